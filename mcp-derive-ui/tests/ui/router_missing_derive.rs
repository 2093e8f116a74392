use mcp_era_server::router;

struct Server;

#[router]
impl Server {
    #[tool]
    fn greet(&self) -> String {
        String::new()
    }
}

fn main() {}

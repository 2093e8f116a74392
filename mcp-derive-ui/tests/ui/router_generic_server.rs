use mcp_era_server::{McpServer, router};

// The derive of a generic type cannot see a router of one of its instances.
#[derive(McpServer)]
#[mcp(name = "s", version = "1")]
struct Server<T: Send + Sync>(T);

#[router]
impl Server<u32> {
    #[tool]
    fn ping(&self) -> String {
        "pong".into()
    }
}

fn main() {}

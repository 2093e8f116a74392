use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", tools)]
struct Server;

#[router]
impl Server {
    #[tool]
    fn double(&self, #[arguments] n: i64) -> String {
        (n * 2).to_string()
    }
}

fn main() {}

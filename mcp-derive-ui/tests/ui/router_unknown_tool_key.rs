use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", tools)]
struct Server;

#[router]
impl Server {
    #[tool(read_ony)]
    fn greet(&self) -> String {
        String::new()
    }
}

fn main() {}

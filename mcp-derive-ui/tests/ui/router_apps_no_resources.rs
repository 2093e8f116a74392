use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", extension("io.modelcontextprotocol/ui"))]
struct Server;

#[router]
impl Server {
    #[tool(ui = "ui://counter/app")]
    fn show(&self) -> String {
        String::new()
    }
}

fn main() {}

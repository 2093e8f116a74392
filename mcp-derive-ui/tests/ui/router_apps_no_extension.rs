use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1")]
struct Server;

#[router]
impl Server {
    #[tool(ui = "ui://counter/app")]
    fn show(&self) -> String {
        String::new()
    }

    #[resource(ui = "ui://counter/app")]
    fn app(&self) -> &'static str {
        "<!DOCTYPE html><html></html>"
    }
}

fn main() {}

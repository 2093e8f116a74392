use mcp_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", prompts)]
struct Server;

#[router]
impl Server {
    #[tool]
    fn greet(&self) -> String {
        String::new()
    }

    #[prompt]
    fn hello(&self) -> String {
        String::new()
    }
}

fn main() {}

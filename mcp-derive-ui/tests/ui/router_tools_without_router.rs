use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", tools, prompts)]
struct Server;

#[router]
impl Server {
    #[prompt]
    fn hello(&self) -> String {
        String::new()
    }
}

fn main() {}

use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1")]
struct Server;

#[router]
impl Server {
    #[prompt]
    fn summarise(&self, #[arg(complete = Self::styles)] style: String) -> String {
        style
    }

    fn styles(&self, _partial: &str) -> u32 {
        3
    }
}

fn main() {}

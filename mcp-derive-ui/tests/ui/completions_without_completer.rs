use mcp_era_server::{McpServer, router};

// `completions` declared, but nothing completes: a plain `String` argument.
#[derive(McpServer)]
#[mcp(name = "s", version = "1", completions)]
struct Server;

#[router]
impl Server {
    #[prompt]
    fn summarise(&self, style: String) -> String {
        style
    }
}

fn main() {}

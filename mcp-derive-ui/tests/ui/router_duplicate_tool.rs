use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", tools)]
struct Server;

#[router]
impl Server {
    #[tool]
    fn greet(&self) -> String {
        String::new()
    }

    #[tool(name = "greet")]
    fn hello(&self) -> String {
        String::new()
    }
}

fn main() {}

use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", tools)]
struct Server;

#[router]
impl Server {
    #[tool(scopes = ["files:read", "files write", ""])]
    fn write(&self) -> String {
        String::new()
    }
}

fn main() {}

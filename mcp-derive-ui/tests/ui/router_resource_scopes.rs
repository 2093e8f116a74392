use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", resources)]
struct Server;

#[router]
impl Server {
    #[resource(uri = "file:///readme", scopes = ["files:read"])]
    fn readme(&self) -> String {
        String::new()
    }
}

fn main() {}

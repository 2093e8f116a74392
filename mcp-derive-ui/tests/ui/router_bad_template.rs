use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", resources)]
struct Server;

#[router]
impl Server {
    #[resource(template = "note://{id")]
    fn note(&self, id: u32) -> String {
        id.to_string()
    }
}

fn main() {}

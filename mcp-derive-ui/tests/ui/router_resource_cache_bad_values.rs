use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", tools, resources)]
struct Server;

#[router]
impl Server {
    #[resource(uri = "x://a", cache(ttl_ms = -1, scope = "shared", ttl = 5))]
    fn a(&self) -> String {
        String::new()
    }

    #[resource(template = "x://b/{id}", cache(ttl_ms = 9007199254740992, ttl_ms = 1))]
    fn b(&self, id: u32) -> String {
        id.to_string()
    }

    #[resource(uri = "x://c", cache(ttl_ms = "60"), cache(scope = "public"))]
    fn c(&self) -> String {
        String::new()
    }

    #[tool(cache(ttl_ms = 1))]
    fn d(&self) -> String {
        String::new()
    }
}

fn main() {}

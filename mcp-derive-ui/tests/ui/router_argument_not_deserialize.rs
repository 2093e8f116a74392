use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", tools)]
struct Server;

struct Point {
    x: i64,
}

#[router]
impl Server {
    #[tool]
    fn plot(&self, point: Point) -> String {
        point.x.to_string()
    }
}

fn main() {}

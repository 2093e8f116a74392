use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", tools, resources)]
struct Server;

#[router]
impl Server {
    #[tool(era = "moden")]
    fn a(&self) -> String {
        String::new()
    }

    #[tool(hidden = true)]
    fn b(&self) -> String {
        String::new()
    }

    #[tool(hidden(always))]
    fn c(&self) -> String {
        String::new()
    }

    #[tool(era = "legacy", task = "optional")]
    fn d(&self) -> String {
        String::new()
    }

    #[tool(hidden, hidden)]
    fn e(&self) -> String {
        String::new()
    }

    #[resource(uri = "x://f", hidden, era = "modern")]
    fn f(&self) -> String {
        String::new()
    }
}

fn main() {}

use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", resources)]
struct Server;

/// Parses, but has no `Display` to be written back into a URI.
struct Id(u32);

impl std::str::FromStr for Id {
    type Err = std::num::ParseIntError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(Id)
    }
}

#[router]
impl Server {
    #[resource(template = "note://{id}", list = names)]
    fn note(&self, id: u32) -> String {
        id.to_string()
    }

    fn names(&self) -> Vec<String> {
        Vec::new()
    }

    #[resource(template = "item://{id}", list = items)]
    fn item(&self, id: Id) -> String {
        id.0.to_string()
    }

    fn items(&self) -> Vec<Id> {
        Vec::new()
    }
}

fn main() {}

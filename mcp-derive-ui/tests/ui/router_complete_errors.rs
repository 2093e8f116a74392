use mcp_era_server::{McpServer, RequestContext, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1")]
struct Server;

#[router]
impl Server {
    #[prompt]
    fn summarise(
        &self,
        #[arg(complete = Self::styel)] style: String,
        #[arg(complete = Self::two_values)] tone: String,
        #[arg(complete = other::module)] mood: String,
        #[arg(complete = Self::by_value)] length: String,
    ) -> String {
        format!("{style}{tone}{mood}{length}")
    }

    #[tool]
    fn greet(&self, #[arg(complete = Self::style)] name: String) -> String {
        name
    }

    fn style(&self, partial: &str) -> Vec<String> {
        vec![partial.to_owned()]
    }

    fn two_values(&self, a: &str, b: &str, ctx: &RequestContext) -> Vec<String> {
        let _ = ctx;
        vec![a.to_owned(), b.to_owned()]
    }

    fn by_value(self, partial: String) -> Vec<String> {
        vec![partial]
    }
}

fn main() {}

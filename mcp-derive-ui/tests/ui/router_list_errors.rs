use mcp_era_server::{McpServer, RequestContext, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", tools, resources, prompts)]
struct Server;

#[router]
impl Server {
    #[resource(template = "note://{id}", list = note_lst)]
    fn note(&self, id: u32) -> String {
        id.to_string()
    }

    fn note_list(&self) -> Vec<u32> {
        Vec::new()
    }

    #[resource(uri = "x://fixed", list = note_list)]
    fn fixed(&self) -> String {
        String::new()
    }

    #[resource(template = "tool://{id}", list = add)]
    fn by_tool(&self, id: u32) -> String {
        id.to_string()
    }

    #[tool]
    fn add(&self) -> String {
        String::new()
    }

    #[resource(template = "args://{id}", list = with_args)]
    fn by_args(&self, id: u32) -> String {
        id.to_string()
    }

    fn with_args(&self, ctx: &RequestContext, page: u32) -> Vec<u32> {
        let _ = (ctx, page);
        Vec::new()
    }

    #[prompt(list = note_list)]
    fn ask(&self) -> String {
        String::new()
    }

    #[resource(template = "path://{id}", list = other::module)]
    fn by_path(&self, id: u32) -> String {
        id.to_string()
    }
}

fn main() {}

use mcp_era_server::{McpServer, router};

#[derive(McpServer)]
#[mcp(name = "s", version = "1", extension("io.modelcontextprotocol/ui"))]
struct Server;

#[router]
impl Server {
    /// Links an App the router does not declare.
    #[tool(ui = "ui://counter/ap")]
    fn show(&self) -> String {
        String::new()
    }

    /// Answers nothing a host without Apps could show.
    #[tool(ui = "ui://counter/app")]
    fn silent(&self) {}

    /// A visibility nobody knows.
    #[tool(ui = "ui://counter/app", visibility = ["agent", "app", "app"])]
    fn add(&self) -> String {
        String::new()
    }

    /// Not a `ui://` URI, and origins that are not origins.
    #[resource(ui = "https://counter/app", csp(connect_domains = ["api.example.com", "https://ok.example.com/path"], frame_domains = ["https://*.video.example"]))]
    fn web(&self) -> &'static str {
        ""
    }

    /// An App with its own MIME type.
    #[resource(ui = "ui://counter/app", mime_type = "text/html")]
    fn app(&self) -> &'static str {
        ""
    }

    /// App settings on a plain resource, and a `ui://` URI without `ui`.
    #[resource(uri = "ui://counter/other", prefers_border)]
    fn other(&self) -> &'static str {
        ""
    }
}

fn main() {}

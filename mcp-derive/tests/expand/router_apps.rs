impl Counter {
    /// Shows the counter in its App.
    #[tool(read_only, ui = "ui://counter/app")]
    fn show(&self) -> String {
        String::new()
    }

    /// Called by the App only.
    #[tool(ui = "ui://counter/app", visibility = ["app"], meta = {"x": 1})]
    fn add(&self) -> String {
        String::new()
    }

    /// The App.
    #[resource(
        ui = "ui://counter/app",
        csp(connect_domains = ["https://api.example.com"], resource_domains = ["https://*.cdn.example"]),
        permissions(clipboard_write),
        domain = "counter.example",
        prefers_border = false
    )]
    fn app(&self) -> &'static str {
        "<!DOCTYPE html><html></html>"
    }
}

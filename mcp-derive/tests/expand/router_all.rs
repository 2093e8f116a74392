impl Notes {
    /// Adds a note.
    #[tool(read_only, meta = { "com.example/x": 1 })]
    async fn add(&self, #[arg(description = "The title", header = "Title")] title: String, tags: Option<Vec<String>>, ctx: &RequestContext) -> Json<Note> {
        todo!()
    }

    #[tool(name = "find", scopes = ["notes:read", "search"])]
    fn search(&self, #[arguments] query: Query, retry: &RetryInput) -> Result<String, String> {
        todo!()
    }

    /// A note.
    #[resource(template = "note://{id}", mime_type = "text/markdown")]
    fn note(&self, id: u32) -> Option<String> {
        todo!()
    }

    #[prompt(title = "Summarise")]
    fn summarise(&self, #[arg(description = "Which note")] id: u32, #[arg(complete = Self::styles)] style: Option<String>) -> String {
        todo!()
    }

    fn styles(&self, partial: &str) -> Vec<String> {
        todo!()
    }

    fn helper(&self) {}
}

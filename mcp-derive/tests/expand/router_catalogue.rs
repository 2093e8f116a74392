impl Notes {
    /// One note.
    #[resource(template = "note://{id}", list = Self::note_ids, cache(ttl_ms = 60000, scope = "public"))]
    fn note(&self, id: u32) -> Option<String> {
        None
    }

    async fn note_ids(&self, ctx: &RequestContext) -> Vec<ListedResource<u32>> {
        Vec::new()
    }

    /// A cell.
    #[resource(template = "cell://{sheet}/{row}", list = cells)]
    fn cell(&self, row: u32) -> String {
        String::new()
    }

    fn cells(&self) -> Vec<(String, u32)> {
        Vec::new()
    }

    /// Not listed.
    #[tool(hidden, era = "legacy")]
    fn old(&self) -> String {
        String::new()
    }
}

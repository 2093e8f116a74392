//! Generates the typed client from the committed `tools.json` snapshot, so
//! building needs no live server (`tests/everything.rs` checks the snapshot
//! is current).

fn main() {
    // The fixture's one schema the typed client cannot say in full: its
    // `if`/`then`/`else` is left to the server to check (reviewed).
    let options = mcp_era_codegen::client::ClientOptions::new("Everything")
        .client_path("::mcp_era_client")
        .accept_warning("json_schema_2020_12_tool", "/inputSchema");
    if let Err(e) = mcp_era_codegen::client::build("tools.json", "everything.rs", &options) {
        // A build script reports failure by panicking.
        panic!("generating the client: {e}");
    }
}

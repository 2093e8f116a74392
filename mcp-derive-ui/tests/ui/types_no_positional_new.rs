// Two required strings: no positional `new` that could be called swapped.
use mcp_era_server::mcp_era_types::v2026_07_28::Resource;

fn main() {
    let _ = Resource::new("file:///a", "a");
}

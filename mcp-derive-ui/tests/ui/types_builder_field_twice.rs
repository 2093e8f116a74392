// Each required field is set exactly once.
use mcp_era_server::mcp_era_types::v2026_07_28::Resource;

fn main() {
    let _ = Resource::builder().name("x").name("y").uri("u").build();
}

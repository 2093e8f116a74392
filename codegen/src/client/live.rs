//! Fetching a live server's catalogue (feature `live`): connect over stdio
//! or HTTP in either era and list every tool, following `nextCursor`.

use serde_json::Value;

use crate::error::{Error, Result};

/// Where the catalogue comes from.
#[derive(Debug, Clone)]
pub enum Server {
    /// A command and its arguments, spoken to over stdio.
    Stdio(String, Vec<String>),
    /// A Streamable HTTP endpoint.
    Url(String),
}

/// Lists every tool of `server` as `{"tools": [...]}` (either era).
pub fn fetch(server: &Server) -> Result<Value> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::new(format!("tokio runtime: {e}")))?;
    rt.block_on(async {
        let options = mcp_era_client::ClientOptions::default();
        let client = match server {
            Server::Stdio(program, args) => {
                mcp_era_client::Client::connect_stdio(program, args, options).await
            }
            Server::Url(url) => mcp_era_client::Client::connect_http(url, options).await,
        }
        .map_err(|e| Error::new(format!("connecting to the server: {e}")))?;
        let list = client
            .list_all_tools()
            .await
            .map_err(|e| Error::new(format!("tools/list: {e}")))?;
        let mut value = serde_json::to_value(&list)
            .map_err(|e| Error::new(format!("tools/list result: {e}")))?;
        if let Value::Object(map) = &mut value {
            // Only the tools: a snapshot should not change with `_meta`.
            map.retain(|k, _| k == "tools");
        }
        Ok(value)
    })
}

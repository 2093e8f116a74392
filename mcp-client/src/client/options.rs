//! [`ClientOptions`]: how a [`Client`](crate::Client) connects and what it
//! declares, with [`EraMode`] and [`TASKS_EXTENSION`] (declared when
//! [`ClientOptions::tasks`] is set).

use std::sync::Arc;
use std::time::Duration;

use mcp_era_types::v2026_07_28 as modern;
use mcp_era_types::versions::{IMPLEMENTED_LEGACY_VERSIONS, IMPLEMENTED_MODERN_VERSIONS};

use crate::cache::Cache;
use crate::handler::ClientHandler;

/// The extension's identifier, the key under `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The default [`ClientOptions::max_request_state_bytes`]: 1 MiB, a quarter
/// of the request size our server accepts by default.
pub const DEFAULT_MAX_REQUEST_STATE_BYTES: usize = 1 << 20;

/// Which era to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EraMode {
    /// Detect it (the default).
    #[default]
    Auto,
    /// 2026-07-28 and later only; never fall back.
    Modern,
    /// `initialize` only (2025-11-25 and older).
    Legacy,
}

/// How the client connects. Build with `ClientOptions::default()` and
/// change the fields you need.
#[derive(Clone)]
pub struct ClientOptions {
    /// Which era to speak.
    pub era: EraMode,
    /// Sent as `clientInfo`.
    pub client_info: modern::Implementation,
    /// Sent as `clientCapabilities` (converted for `initialize`). Only the
    /// kinds of input declared here are answered.
    pub capabilities: modern::ClientCapabilities,
    /// Answers elicitation, sampling and roots requests (both eras).
    pub handler: Option<Arc<dyn ClientHandler>>,
    /// How many `input_required` rounds one request (or task) may take.
    pub max_input_rounds: usize,
    /// The largest `requestState` an `input_required` result may carry
    /// (default [`DEFAULT_MAX_REQUEST_STATE_BYTES`]): it is sent back with
    /// every retry, so a larger one ends the request.
    pub max_request_state_bytes: usize,
    /// Declare the tasks extension (`io.modelcontextprotocol/tasks`) in
    /// every modern request, so the server may answer a tool call with a
    /// task; see [`tasks`](crate::tasks). Off by default.
    pub tasks: bool,
    /// Modern versions to offer, newest first. Default:
    /// [`IMPLEMENTED_MODERN_VERSIONS`](crate::IMPLEMENTED_MODERN_VERSIONS).
    /// The client speaks 2026-07-28; another version here is offered as is.
    pub modern_versions: Vec<String>,
    /// Legacy versions to offer through `initialize`, newest first, and the
    /// only ones accepted in its answer. Default:
    /// [`IMPLEMENTED_LEGACY_VERSIONS`](crate::IMPLEMENTED_LEGACY_VERSIONS)
    /// (2025-11-25): a server answering an older revision is refused rather
    /// than spoken to with rules it does not follow.
    pub legacy_versions: Vec<String>,
    /// How long the `server/discover` probe waits before concluding "legacy".
    pub probe_timeout: Duration,
    /// How long any other request waits for its answer (the default; see
    /// [`Client::set_request_timeout`](crate::Client::set_request_timeout)).
    pub request_timeout: Duration,
    /// What the client remembers between connections.
    pub cache: Arc<Cache>,
    /// HTTP `Authorization` header value; also the cache's authorization context.
    pub authorization: Option<String>,
    /// DER certificates trusted for `https://` besides the bundled web PKI
    /// roots (a private CA). Used with the `rustls` feature.
    pub extra_root_certificates: Vec<Vec<u8>>,
    /// The most pages a "list everything" method fetches before it gives up
    /// (a server whose cursors never end would otherwise keep it busy).
    pub max_pages: usize,
    /// OAuth for HTTP servers that ask for it (`401`).
    #[cfg(feature = "oauth")]
    pub oauth: Option<crate::auth::options::OAuthOptions>,
}

impl std::fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOptions")
            .field("era", &self.era)
            .field("client_info", &self.client_info)
            .field("capabilities", &self.capabilities)
            .field("handler", &self.handler.is_some())
            .field("tasks", &self.tasks)
            .field("probe_timeout", &self.probe_timeout)
            .field("request_timeout", &self.request_timeout)
            .finish_non_exhaustive()
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            era: EraMode::Auto,
            client_info: modern::Implementation::builder()
                .name("mcp-client")
                .version(env!("CARGO_PKG_VERSION"))
                .build(),
            capabilities: modern::ClientCapabilities::new(),
            handler: None,
            max_input_rounds: 8,
            max_request_state_bytes: DEFAULT_MAX_REQUEST_STATE_BYTES,
            tasks: false,
            modern_versions: IMPLEMENTED_MODERN_VERSIONS
                .iter()
                .map(|v| (*v).to_owned())
                .collect(),
            legacy_versions: IMPLEMENTED_LEGACY_VERSIONS
                .iter()
                .map(|v| (*v).to_owned())
                .collect(),
            probe_timeout: Duration::from_secs(3),
            request_timeout: Duration::from_secs(30),
            cache: Arc::default(),
            authorization: None,
            extra_root_certificates: Vec::new(),
            max_pages: 100,
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_options_offer_the_implemented_versions() {
        let o = ClientOptions::default();
        assert_eq!(o.modern_versions, ["2026-07-28"]);
        assert_eq!(o.legacy_versions, ["2025-11-25"]);
    }
}

//! The hyper connector for `http://` and, with the `rustls` feature,
//! `https://` (ring, the bundled web PKI roots, extra roots). Shared by the
//! HTTP transport and OAuth, which both depend down on it, with the bound
//! both put on what a server sends.

use hyper_util::client::legacy::connect::HttpConnector;

/// The most of one body (a JSON answer, an OAuth document) or one SSE event
/// the client reads: a server cannot make it hold more.
pub(crate) const MAX_BODY: usize = 16 * 1024 * 1024;

#[cfg(feature = "rustls")]
pub(crate) type Connector = hyper_rustls::HttpsConnector<HttpConnector>;
#[cfg(not(feature = "rustls"))]
pub(crate) type Connector = HttpConnector;

#[cfg(not(feature = "rustls"))]
pub(crate) fn connector(_extra_roots: &[Vec<u8>]) -> std::result::Result<Connector, String> {
    Ok(HttpConnector::new())
}

/// An `http`/`https` connector: ring crypto, the bundled web PKI roots and
/// the caller's extra roots.
#[cfg(feature = "rustls")]
pub(crate) fn connector(extra_roots: &[Vec<u8>]) -> std::result::Result<Connector, String> {
    use std::sync::Arc;

    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    for der in extra_roots {
        roots
            .add(rustls::pki_types::CertificateDer::from(der.clone()))
            .map_err(|e| format!("an extra root certificate is not usable: {e}"))?;
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| format!("TLS setup failed: {e}"))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_or_http()
        .enable_http1()
        .build())
}

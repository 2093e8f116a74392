//! The small HTTP client the validators use: a JSON GET (metadata, JWKS)
//! and a form POST (introspection), over TCP or (feature `rustls`) TLS.

#[cfg(feature = "rustls")]
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use serde_json::Value;

/// GETs `url` and parses the body as JSON (an authorization server behind
/// `https://` needs the `rustls` feature).
pub(super) async fn fetch_json(url: &str) -> Result<Value, String> {
    exchange_json(url, None).await
}

/// A form POST (`application/x-www-form-urlencoded`) with an
/// `Authorization` header; the answer parsed as JSON.
pub(super) async fn post_form_json(
    url: &str,
    authorization: &str,
    form: &str,
) -> Result<Value, String> {
    exchange_json(url, Some((authorization, form))).await
}

async fn exchange_json(url: &str, form: Option<(&str, &str)>) -> Result<Value, String> {
    let uri: hyper::Uri = url.parse().map_err(|e| format!("{url}: {e}"))?;
    let host = uri
        .host()
        .ok_or_else(|| format!("{url}: no host"))?
        .to_owned();
    let https = uri.scheme_str() == Some("https");
    let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    let authority = uri.authority().map_or(host.as_str(), |a| a.as_str());
    let builder = hyper::Request::builder()
        .uri(path)
        .header(hyper::header::HOST, authority)
        .header(hyper::header::ACCEPT, "application/json");
    let request = match form {
        None => builder
            .method(hyper::Method::GET)
            .body(Full::new(Bytes::new())),
        Some((authorization, form)) => builder
            .method(hyper::Method::POST)
            .header(hyper::header::AUTHORIZATION, authorization)
            .header(
                hyper::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(Full::new(Bytes::from(form.to_owned()))),
    }
    .map_err(|e| e.to_string())?;
    let tcp = tokio::time::timeout(
        Duration::from_secs(10),
        tokio::net::TcpStream::connect((host.as_str(), port)),
    )
    .await
    .map_err(|_| format!("{url}: connect timed out"))?
    .map_err(|e| format!("{url}: {e}"))?;
    let response = if https {
        #[cfg(feature = "rustls")]
        {
            let stream = tls_connect(&host, tcp).await?;
            send(stream, request).await?
        }
        #[cfg(not(feature = "rustls"))]
        return Err(format!("{url}: https needs the `rustls` feature"));
    } else {
        send(tcp, request).await?
    };
    if !response.0.is_success() {
        return Err(format!("{url}: HTTP {}", response.0));
    }
    serde_json::from_slice(&response.1).map_err(|e| format!("{url}: {e}"))
}

async fn send<I>(
    io: I,
    request: hyper::Request<Full<Bytes>>,
) -> Result<(hyper::StatusCode, Bytes), String>
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let exchange = async {
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(io))
                .await
                .map_err(|e| e.to_string())?;
        tokio::spawn(connection);
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status();
        let body = http_body_util::Limited::new(response.into_body(), 1 << 20)
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        Ok((status, body))
    };
    tokio::time::timeout(Duration::from_secs(10), exchange)
        .await
        .map_err(|_| "timed out".to_owned())?
}

#[cfg(feature = "rustls")]
async fn tls_connect(
    host: &str,
    tcp: tokio::net::TcpStream,
) -> Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>, String> {
    let roots = rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name =
        rustls_pki_types::ServerName::try_from(host.to_owned()).map_err(|e| e.to_string())?;
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|e| e.to_string())
}

/// `(origin, path)` of a URL; the path without its trailing `/`.
pub(super) fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => {
            let path = &url[after_scheme + i..];
            (&url[..after_scheme + i], path.trim_end_matches('/'))
        }
        None => (url, ""),
    }
}

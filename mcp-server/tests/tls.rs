//! HTTPS from `run`/`serve` (feature `rustls`): the certificate and key
//! from PEM files (`tests/tls/`, the client tests' private test CA, valid
//! until 2126), a client that trusts the CA gets its answer, a plain-HTTP
//! client gets nothing and the server goes on, and a bad file stops the
//! server at start naming the file.

#![cfg(feature = "rustls")]
#![allow(clippy::unwrap_used, reason = "tests panic on broken fixtures")]

use std::sync::Arc;
use std::time::Duration;

use mcp_era_server::http::{HttpConfig, TlsConfig, serve_listener};
use mcp_era_server::{McpServer, router};
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(McpServer)]
#[mcp(name = "tls", version = "1.0.0")]
struct Secure;

#[router]
impl Secure {
    /// Says hello.
    #[tool]
    fn hello(&self) -> String {
        "hello over TLS".into()
    }
}

const GUARD: Duration = Duration::from_secs(20);

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/tls")
        .join(name)
}

async fn start(tls: TlsConfig) -> (u16, tokio::task::JoinHandle<std::io::Result<()>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = HttpConfig::new(addr);
    config.tls = Some(tls);
    let server = tokio::spawn(serve_listener(Arc::new(Secure), listener, config));
    (addr.port(), server)
}

fn request(port: u16) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: hello\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// A client that trusts the test CA and offers `alpn`.
fn connector(alpn: &[&[u8]]) -> tokio_rustls::TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from(
            std::fs::read(fixture("ca.der")).unwrap(),
        ))
        .unwrap();
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    tokio_rustls::TlsConnector::from(Arc::new(config))
}

async fn https_call(port: u16) -> String {
    let connector = connector(&[]);
    let exchange = async {
        let tcp = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        let mut tls = connector.connect(name, tcp).await.unwrap();
        tls.write_all(request(port).as_bytes()).await.unwrap();
        let mut raw = String::new();
        // rustls reports the peer's close without close_notify as an error
        // after the whole answer arrived; the text read so far is kept.
        let _ = tls.read_to_string(&mut raw).await;
        raw
    };
    tokio::time::timeout(GUARD, exchange).await.unwrap()
}

#[tokio::test]
async fn https_is_served_from_pem_files_and_plain_http_is_refused() {
    let (port, _server) = start(TlsConfig::from_pem_files(
        fixture("server.pem"),
        fixture("server.key.pem"),
    ))
    .await;
    let answer = https_call(port).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("hello over TLS"), "{answer}");

    // Plain HTTP on the TLS port: no HTTP answer, then the server goes on.
    let mut plain = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    plain.write_all(request(port).as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(GUARD, plain.read_to_end(&mut raw))
        .await
        .unwrap();
    assert!(!raw.starts_with(b"HTTP/1.1 200"));
    assert!(https_call(port).await.starts_with("HTTP/1.1 200"));
}

/// With the `http2` feature a client offering `h2` gets HTTP/2, one
/// offering `http/1.1` HTTP/1.1.
#[cfg(feature = "http2")]
#[tokio::test]
async fn alpn_chooses_http2_or_http1() {
    use http_body_util::{BodyExt, Full};
    use hyper_util::rt::{TokioExecutor, TokioIo};

    let (port, _server) = start(TlsConfig::from_pem_files(
        fixture("server.pem"),
        fixture("server.key.pem"),
    ))
    .await;
    let exchange = async {
        let tcp = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        let tls = connector(&[b"h2", b"http/1.1"])
            .connect(name, tcp)
            .await
            .unwrap();
        assert_eq!(tls.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
        let (mut sender, connection) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tls))
                .await
                .unwrap();
        tokio::spawn(connection);
        let raw = request(port);
        let (_, body) = raw.split_once("\r\n\r\n").unwrap();
        let call = hyper::Request::post(format!("https://localhost:{port}/mcp"))
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "hello")
            .body(Full::new(bytes::Bytes::from(body.to_owned())))
            .unwrap();
        let response = sender.send_request(call).await.unwrap();
        assert_eq!(response.version(), hyper::Version::HTTP_2);
        assert_eq!(response.status(), 200);
        response.into_body().collect().await.unwrap().to_bytes()
    };
    let body = tokio::time::timeout(GUARD, exchange).await.unwrap();
    assert!(String::from_utf8_lossy(&body).contains("hello over TLS"));
    // A client that offers only HTTP/1.1 still gets it.
    let tcp = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let tls = connector(&[b"http/1.1"]).connect(name, tcp).await.unwrap();
    assert_eq!(tls.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
}

#[tokio::test]
async fn a_missing_key_file_stops_the_server_naming_it() {
    let (_, server) = start(TlsConfig::from_pem_files(
        fixture("server.pem"),
        fixture("no-such-key.pem"),
    ))
    .await;
    let error = tokio::time::timeout(GUARD, server)
        .await
        .unwrap()
        .unwrap()
        .expect_err("a missing key file");
    assert!(error.to_string().contains("no-such-key.pem"), "{error}");
}

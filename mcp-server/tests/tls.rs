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

async fn https_call(port: u16) -> String {
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from(
            std::fs::read(fixture("ca.der")).unwrap(),
        ))
        .unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
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

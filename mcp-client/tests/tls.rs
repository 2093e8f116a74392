//! `https://` endpoints (feature `rustls`): a modern server behind TLS with
//! a certificate from a private test CA (`tests/tls/*.der`, made with
//! openssl; valid until 2126). Trusting the CA connects; not trusting it is
//! an error, never a fallback to the legacy era.

#![cfg(feature = "rustls")]
#![allow(clippy::unwrap_used, reason = "tests panic on broken fixtures")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;

use mcp_era_client::{Client, ClientOptions, EraMode, Error};
use mcp_era_types::versions::Era;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::{Value, json};

const CA: &[u8] = include_bytes!("tls/ca.der");
const SERVER_CERT: &[u8] = include_bytes!("tls/server.der");
const SERVER_KEY: &[u8] = include_bytes!("tls/server.key.der");

/// Serves `connections` TLS connections on a thread, answering each POST
/// with a modern discover result; returns the port.
fn tls_server(connections: usize) -> u16 {
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![CertificateDer::from(SERVER_CERT.to_vec())],
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(SERVER_KEY.to_vec())),
    )
    .unwrap();
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(connections) {
            let Ok(tcp) = stream else { continue };
            let Ok(conn) = rustls::ServerConnection::new(config.clone()) else {
                continue;
            };
            let mut tls = rustls::StreamOwned::new(conn, tcp);
            // A failed handshake (an untrusting client) just ends this one.
            let _ = answer(&mut tls);
        }
    });
    port
}

fn answer(stream: &mut impl ReadWrite) -> std::io::Result<()> {
    let mut reader = BufReader::new(&mut *stream);
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let response = json!({"jsonrpc": "2.0", "id": request["id"], "result": {
        "resultType": "complete", "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "public",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "tls-fake", "version": "1"}}
    }})
    .to_string();
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{response}",
        response.len()
    )?;
    stream.flush()
}

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

#[tokio::test]
async fn https_with_a_trusted_private_ca_is_modern() {
    let port = tls_server(1);
    let opts = ClientOptions {
        era: EraMode::Auto,
        extra_root_certificates: vec![CA.to_vec()],
        ..ClientOptions::default()
    };
    let client = Client::connect_http(&format!("https://localhost:{port}/mcp"), opts)
        .await
        .unwrap();
    assert_eq!(client.era(), Era::Modern);
    assert_eq!(client.protocol_version(), "2026-07-28");
    let info = serde_json::to_value(client.server_info()).unwrap();
    assert_eq!(info["name"], "tls-fake");
}

#[tokio::test]
async fn an_untrusted_certificate_is_an_error_not_a_legacy_server() {
    let port = tls_server(1);
    let result = Client::connect_http(
        &format!("https://localhost:{port}/mcp"),
        ClientOptions::default(),
    )
    .await;
    let Err(error) = result else {
        panic!("connected to a server whose certificate nobody trusts");
    };
    assert!(matches!(error, Error::Http { .. }), "{error:?}");
    assert!(error.to_string().contains("UnknownIssuer"), "{error}");
}

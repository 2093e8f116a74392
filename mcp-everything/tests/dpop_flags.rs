//! `mcp-everything http --oauth-dpop-required --oauth-dpop-nonce` (feature
//! `auth`): the process advertises DPoP in its Protected Resource Metadata
//! and answers an unauthenticated POST with a `DPoP` challenge and a nonce;
//! a DPoP switch without an issuer is a usage error.

#![cfg(feature = "auth")]
#![allow(clippy::unwrap_used, reason = "tests panic on broken fixtures")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-everything");

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn exchange(addr: &str, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    raw
}

#[test]
fn the_dpop_flags_reach_the_metadata_and_the_challenge() {
    let (child, addr) = common::spawn_http(
        Command::new(BIN)
            .arg("http")
            .args(["--oauth-issuer", "http://127.0.0.1:9"])
            // Any URL whose path is /mcp: the metadata is served at the
            // path it names, whatever the port.
            .args(["--oauth-resource", "http://mcp.test/mcp"])
            .args(["--oauth-dpop-required", "--oauth-dpop-nonce"])
            .stdout(Stdio::null()),
        |_| {},
    );
    let _server = Server(child);
    let raw = exchange(
        &addr,
        &format!(
            "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        ),
    );
    let metadata: serde_json::Value =
        serde_json::from_str(raw.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(metadata["dpop_bound_access_tokens_required"], true);
    assert!(
        metadata["dpop_signing_alg_values_supported"]
            .as_array()
            .unwrap()
            .contains(&"ES256".into())
    );
    let raw = exchange(
        &addr,
        &format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}"),
    )
    .to_ascii_lowercase();
    assert!(raw.starts_with("http/1.1 401"), "{raw}");
    assert!(
        raw.contains("www-authenticate: dpop resource_metadata="),
        "{raw}"
    );
    assert!(!raw.contains("www-authenticate: bearer"), "{raw}");
    assert!(raw.contains("dpop-nonce: "), "{raw}");
}

#[test]
fn a_dpop_flag_without_an_issuer_is_a_usage_error() {
    let status = Command::new(BIN)
        .args(["http", "--oauth-dpop"])
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
}

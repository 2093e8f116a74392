//! The "bare-hyper floor" for `bench/compare.sh`: the least any JSON-RPC-over-HTTP
//! server must do per request, to state an MCP server's req/s as a fraction of it.
//!
//!     floor-server http 127.0.0.1:PORT
//!
//! hyper 1 HTTP/1.1 with keep-alive, one tokio task per connection, on the
//! default multi-thread runtime. A `POST /mcp` has its body collected and
//! parsed into a `serde_json::Value` (a JSON-RPC parse error and 400 if it
//! does not parse), and nothing in it is read: the answer is always the same
//! fixed bytes, the answer `mcp-everything` gives to the benchmark's
//! `tools/call` of `test_simple_text` (200, `application/json`, Content-Length).
//! No routing of methods, no validation, no headers read, no serialization.
//!
//!     floor-server stdio
//!
//! The stdio floor: lines read from stdin, each parsed into a
//! `serde_json::Value`, and the same fixed answer written for each (its
//! request's `id` spliced in, so that a client can pair answers with
//! requests), through one buffered writer on the calling thread.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{
    Method, Request, Response, StatusCode,
    body::Incoming,
    header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderValue},
    server::conn::http1,
    service::service_fn,
};
use hyper_util::rt::TokioIo;

const USAGE: &str = "usage: floor-server http 127.0.0.1:PORT | floor-server stdio";

/// Byte for byte what `mcp-everything http` answers to the benchmark request.
const ANSWER: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-everything","title":"mcp-rs everything fixture","version":"0.1.0"}},"resultType":"complete","content":[{"type":"text","text":"This is a simple text response for testing."}]}}"#;
/// `ANSWER` around its id, for stdio.
const BEFORE_ID: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
const AFTER_ID: &[u8] = br#","result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-everything","title":"mcp-rs everything fixture","version":"0.1.0"}},"resultType":"complete","content":[{"type":"text","text":"This is a simple text response for testing."}]}}"#;
const PARSE_ERROR: &[u8] =
    br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;

fn reply(status: StatusCode, body: &'static [u8]) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if !body.is_empty() {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    headers.insert(CONTENT_LENGTH, HeaderValue::from(body.len()));
    response
}

async fn handle(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, hyper::Error> {
    if request.method() != Method::POST || request.uri().path() != "/mcp" {
        return Ok(reply(StatusCode::NOT_FOUND, b""));
    }
    let body = request.into_body().collect().await?.to_bytes();
    Ok(match serde_json::from_slice::<serde_json::Value>(&body) {
        // Parsed (and dropped) but never read: `black_box` keeps the parse.
        Ok(value) => {
            std::hint::black_box(value);
            reply(StatusCode::OK, ANSWER)
        }
        Err(_) => reply(StatusCode::BAD_REQUEST, PARSE_ERROR),
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["http", addr] => addr.to_owned(),
        ["stdio"] => return Ok(stdio()?),
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!(
        "floor-server listening on http://{}/mcp",
        listener.local_addr()?
    );
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service_fn(handle))
                .await;
        });
    }
}

/// Each stdin line parsed into a `Value` and answered with the fixed bytes.
fn stdio() -> std::io::Result<()> {
    use std::io::{BufRead, Write};
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in std::io::stdin().lock().lines() {
        match serde_json::from_str::<serde_json::Value>(&line?) {
            Ok(value) => {
                out.write_all(BEFORE_ID)?;
                serde_json::to_writer(&mut out, &value["id"])?;
                out.write_all(AFTER_ID)?;
            }
            Err(_) => out.write_all(PARSE_ERROR)?,
        }
        out.write_all(b"\n")?;
    }
    out.flush()
}

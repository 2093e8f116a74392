//! Fuzzes the stdio transport: an arbitrary byte stream (many lines,
//! over-long lines, invalid UTF-8, blank lines) through
//! `stdio::serve_with` on the fixture, from memory into memory.
//!
//! Input: one byte for the line limit (8 to 2,048 bytes, so over-long
//! lines are common), one for the in-flight limit, then the stream.
//! Invariants: no panic; the server returns at EOF (with the default: no
//! grace, every in-flight request finishes); it returns `Ok`; every output
//! line is a JSON-RPC message with `jsonrpc: "2.0"`.
//!
//! The in-flight limit is the default (256) unless `FUZZ_STDIO_IN_FLIGHT=small`
//! asks for 1 to 4, where requests queue behind legacy tools waiting on a
//! server→client request. The queue is bounded (64 requests): a client
//! that pipelines more before answering stalls by design, which this mode
//! can report as a timeout.
#![no_main]

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};

use libfuzzer_sys::fuzz_target;
use mcp_fuzz::{block_on, check_message, server};
use mcp_era_server::stdio::{StdioConfig, serve_with};
use tokio::io::AsyncWrite;

/// An in-memory stdout.
#[derive(Clone, Default)]
struct Output(Arc<Mutex<Vec<u8>>>);

impl AsyncWrite for Output {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.0.lock().expect("output").extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

fn small_in_flight() -> bool {
    static SMALL: OnceLock<bool> = OnceLock::new();
    *SMALL.get_or_init(|| std::env::var("FUZZ_STDIO_IN_FLIGHT").as_deref() == Ok("small"))
}

fuzz_target!(|data: &[u8]| {
    let [line_limit, in_flight, stream @ ..] = data else {
        return;
    };
    let config = StdioConfig {
        max_line_bytes: 8 * (usize::from(*line_limit) + 1),
        max_in_flight: if small_in_flight() {
            usize::from(in_flight % 4) + 1
        } else {
            StdioConfig::default().max_in_flight
        },
        ..StdioConfig::default()
    };
    let output = Output::default();
    let served = block_on(serve_with(server(), stream, output.clone(), config));
    let Some(result) = served else {
        panic!("the server did not return at EOF");
    };
    if let Err(e) = result {
        panic!("serve_with failed: {e}");
    }
    let written = output.0.lock().expect("output");
    if !written.is_empty() {
        assert_eq!(
            written.last(),
            Some(&b'\n'),
            "the last line is unterminated"
        );
    }
    for line in written.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        check_message(line, true);
    }
});

//! HTTP/2 on the server's own listener (feature `http2`): told from
//! HTTP/1.1 by its preface (or ALPN), each request a stream of the
//! connection, and the connection closed once no request has been open
//! for the header timeout, as an idle HTTP/1.1 connection is.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::FutureExt;
use hyper::Request;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, watch};

use super::connection::{Stage, drive};
use super::response::Body;
use super::service::handle;
use super::state::State;
use crate::model::context::PeerAddr;
use crate::model::server::McpServer;

/// What every HTTP/2 connection starts with (RFC 9113 §3.4).
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Reads a connection's first bytes until they are HTTP/2's preface
/// (true) or cannot be (false); the stream given back replays them.
pub(super) async fn sniff<I: AsyncRead + Unpin>(mut io: I) -> std::io::Result<(Replay<I>, bool)> {
    let mut first = [0u8; PREFACE.len()];
    let mut read = 0;
    while read < first.len() {
        let n = io.read(&mut first[read..]).await?;
        read += n;
        if n == 0 || first[..read] != PREFACE[..read] {
            break;
        }
    }
    let preface = first[..read] == PREFACE[..];
    Ok((
        Replay {
            first,
            read,
            at: 0,
            io,
        },
        preface,
    ))
}

/// A stream whose first bytes, already read, are read again.
pub(super) struct Replay<I> {
    first: [u8; PREFACE.len()],
    read: usize,
    at: usize,
    io: I,
}

impl<I: AsyncRead + Unpin> AsyncRead for Replay<I> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if this.at < this.read {
            let n = (this.read - this.at).min(buf.remaining());
            buf.put_slice(&this.first[this.at..this.at + n]);
            this.at += n;
            // With what has arrived since: hyper then reads a request in
            // one go, rather than grow its buffer to read the rest.
            if this.at == this.read && buf.remaining() > 0 {
                return match Pin::new(&mut this.io).poll_read(cx, buf) {
                    Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                    Poll::Ready(Ok(())) | Poll::Pending => Poll::Ready(Ok(())),
                };
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.io).poll_read(cx, buf)
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Replay<I> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// Serves one HTTP/2 connection: each request its own stream (hyper
/// spawns it), the same service as HTTP/1.1.
pub(super) async fn serve<S: McpServer + 'static, I>(
    state: Arc<State<S>>,
    stream: I,
    peer: PeerAddr,
    stage: watch::Receiver<Stage>,
    _slot: OwnedSemaphorePermit,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (open, watched) = watch::channel(0usize);
    let open = Arc::new(open);
    let service_state = Arc::clone(&state);
    // Boxed: hyper spawns a task per stream, sized for the service's
    // future; a listen's would keep that size for as long as it is open.
    let service = service_fn(move |request: Request<Incoming>| {
        let open = Open::new(&open);
        Box::pin(
            handle(Arc::clone(&service_state), request, Some(peer)).map(move |answer| {
                answer.map(|response| response.map(|body| Counted { body, _open: open }))
            }),
        )
    });
    let connection = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
        .timer(TokioTimer::new())
        .serve_connection(TokioIo::new(stream), service);
    let idle = idle_for(watched, state.config.header_read_timeout);
    let connection = std::pin::pin!(connection);
    let result = drive(
        connection,
        |connection| connection.graceful_shutdown(),
        stage,
        idle,
    )
    .await;
    if let Some(Err(e)) = result {
        tracing::debug!(error = %e, "HTTP/2 connection ended with an error");
    }
}

/// Ends once no request has been open for `timeout`.
async fn idle_for(mut open: watch::Receiver<usize>, timeout: std::time::Duration) {
    loop {
        if open.wait_for(|n| *n == 0).await.is_err() {
            return;
        }
        let busy = tokio::time::timeout(timeout, open.wait_for(|n| *n > 0)).await;
        if busy.is_err() {
            return;
        }
    }
}

/// One request counted open on its connection until its answer is
/// sent or dropped.
struct Open(Arc<watch::Sender<usize>>);

impl Open {
    fn new(open: &Arc<watch::Sender<usize>>) -> Self {
        open.send_modify(|n| *n += 1);
        Self(Arc::clone(open))
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// An answer's body that keeps its request counted open.
struct Counted {
    body: Body,
    _open: Open,
}

impl hyper::body::Body for Counted {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::{PREFACE, sniff};

    /// What `sniff` decides for `pieces` written one by one, and
    /// whether the stream it gives back reads them all again.
    async fn sniffed(pieces: &[&[u8]]) -> bool {
        let (mut client, server) = tokio::io::duplex(1024);
        let sent: Vec<u8> = pieces.concat();
        let writer = {
            let pieces: Vec<Vec<u8>> = pieces.iter().map(|p| p.to_vec()).collect();
            tokio::spawn(async move {
                for piece in pieces {
                    client.write_all(&piece).await.unwrap();
                    tokio::task::yield_now().await;
                }
            })
        };
        let (mut replay, preface) = sniff(server).await.unwrap();
        writer.await.unwrap();
        let mut again = vec![0u8; sent.len()];
        replay.read_exact(&mut again).await.unwrap();
        assert_eq!(again, sent);
        preface
    }

    #[tokio::test]
    async fn the_preface_is_told_from_http1_and_every_byte_is_read_again() {
        let (start, end) = PREFACE.split_at(5);
        assert!(sniffed(&[start, end, b"\0\0\x12\x04"]).await);
        assert!(sniffed(&[PREFACE]).await);
        // Exactly as long as the preface, and a prefix of it.
        assert!(!sniffed(&[b"POST /mcp HTTP/1.1\r\nHost"]).await);
        assert!(!sniffed(&[b"P", b"OST /mcp HTTP/1.1\r\nHost: x\r\n\r\n"]).await);
        assert!(!sniffed(&[b"GET / HTTP/1.1\r\n\r\n"]).await);
    }

    #[tokio::test]
    async fn a_connection_closed_inside_the_preface_is_not_http2() {
        let (mut client, server) = tokio::io::duplex(64);
        client.write_all(b"PRI * HT").await.unwrap();
        drop(client);
        let (_, preface) = sniff(server).await.unwrap();
        assert!(!preface);
    }
}

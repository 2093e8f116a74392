//! stdin as lines: the length limit and its recovery rule (an over-long
//! line is skipped to its newline), read ahead into a channel of one.

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::mpsc;

/// How reading one line ended.
pub(super) enum LineRead {
    Line,
    TooLong,
    Eof,
}

/// Reads one line into `buf` (newline excluded). A line longer than `max`
/// is skipped through its newline without being buffered.
pub(super) async fn read_line_limited<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    let mut discarding = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if discarding {
                LineRead::TooLong
            } else if buf.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            });
        }
        match available.iter().position(|b| *b == b'\n') {
            Some(end) => {
                if !discarding && buf.len() + end <= max {
                    buf.extend_from_slice(&available[..end]);
                } else {
                    discarding = true;
                }
                reader.consume(end + 1);
                return Ok(if discarding {
                    LineRead::TooLong
                } else {
                    LineRead::Line
                });
            }
            None => {
                let len = available.len();
                if !discarding && buf.len() + len <= max {
                    buf.extend_from_slice(available);
                } else {
                    discarding = true;
                    buf.clear();
                }
                reader.consume(len);
            }
        }
    }
}

/// What the line reader hands to the dispatcher.
pub(super) enum Incoming {
    Line(Vec<u8>),
    TooLong,
    End(io::Result<()>),
}

/// Reads lines into a channel of one: reading stops while the dispatcher
/// is not taking lines, and a line is never lost when the dispatcher
/// stops waiting for one.
pub(super) async fn read_lines<R: AsyncRead + Unpin>(
    reader: R,
    max: usize,
    tx: mpsc::Sender<Incoming>,
) {
    let mut reader = BufReader::new(reader);
    loop {
        let mut line = Vec::new();
        let incoming = match read_line_limited(&mut reader, &mut line, max).await {
            Err(e) => Incoming::End(Err(e)),
            Ok(LineRead::Eof) => Incoming::End(Ok(())),
            Ok(LineRead::TooLong) => Incoming::TooLong,
            Ok(LineRead::Line) => Incoming::Line(line),
        };
        let end = matches!(incoming, Incoming::End(_));
        if tx.send(incoming).await.is_err() || end {
            return;
        }
    }
}

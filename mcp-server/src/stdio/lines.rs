//! stdin as lines: the length limit and its recovery rule (an over-long
//! line is skipped to its newline), read by the serving loop itself.

use std::io;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// What the line reader hands to the dispatcher.
pub(super) enum Incoming {
    Line(Vec<u8>),
    TooLong,
    End(io::Result<()>),
}

/// Reads stdin line by line. [`next`](Self::next) keeps a partial line in
/// the reader, so it may be cancelled (in a `select!`) without losing
/// bytes; nothing is read ahead beyond the buffer of the reader.
pub(super) struct LineReader<R> {
    reader: BufReader<R>,
    line: Vec<u8>,
    max: usize,
    /// Past the line limit: the rest of this line is skipped unbuffered.
    discarding: bool,
    /// Input ended (or failed); every further call is the end.
    ended: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(super) fn new(reader: R, max: usize) -> Self {
        Self {
            // Large reads: each read of stdin is a trip to a blocking thread.
            reader: BufReader::with_capacity(64 * 1024, reader),
            line: Vec::new(),
            max,
            discarding: false,
            ended: false,
        }
    }

    /// Whether a whole line (or the end of an over-long one) is already
    /// read, so [`next`](Self::next) will not wait for input.
    pub(super) fn has_line(&self) -> bool {
        memchr::memchr(b'\n', self.reader.buffer()).is_some()
    }

    /// The next line (newline excluded), `TooLong` for a line over the
    /// limit (skipped through its newline), or the end of input.
    pub(super) async fn next(&mut self) -> Incoming {
        if self.ended {
            return Incoming::End(Ok(()));
        }
        loop {
            let available = match self.reader.fill_buf().await {
                Ok(available) => available,
                Err(e) => {
                    self.ended = true;
                    return Incoming::End(Err(e));
                }
            };
            if available.is_empty() {
                self.ended = true;
                return if std::mem::take(&mut self.discarding) {
                    Incoming::TooLong
                } else if self.line.is_empty() {
                    Incoming::End(Ok(()))
                } else {
                    Incoming::Line(std::mem::take(&mut self.line))
                };
            }
            let (taken, complete) = match memchr::memchr(b'\n', available) {
                Some(end) => (end, true),
                None => (available.len(), false),
            };
            if !self.discarding && self.line.len() + taken <= self.max {
                self.line.extend_from_slice(&available[..taken]);
            } else {
                self.discarding = true;
                self.line = Vec::new();
            }
            self.reader.consume(taken + usize::from(complete));
            if complete {
                return if std::mem::take(&mut self.discarding) {
                    Incoming::TooLong
                } else {
                    Incoming::Line(std::mem::take(&mut self.line))
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], max: usize) -> Vec<String> {
        let mut reader = LineReader::new(input, max);
        let mut seen = Vec::new();
        loop {
            match reader.next().await {
                Incoming::Line(line) => seen.push(String::from_utf8(line).expect("utf-8")),
                Incoming::TooLong => seen.push("<too long>".to_owned()),
                Incoming::End(result) => {
                    result.expect("no read error");
                    return seen;
                }
            }
        }
    }

    #[tokio::test]
    async fn lines_the_limit_and_the_end() {
        assert_eq!(all(b"a\nbb\n\nccc", 8).await, ["a", "bb", "", "ccc"]);
        assert_eq!(
            all(b"short\nmuch too long\nok\n", 5).await,
            ["short", "<too long>", "ok"]
        );
        assert_eq!(all(b"ok\nmuch too long", 5).await, ["ok", "<too long>"]);
        assert!(all(b"", 5).await.is_empty());
    }

    #[tokio::test]
    async fn an_over_long_line_is_skipped_across_reads() {
        // A reader that hands out one byte at a time: the skip spans reads.
        let input = one_byte_at_a_time(b"xxxxxxxxxx\nyes\n");
        let mut reader = LineReader::new(input, 4);
        assert!(matches!(reader.next().await, Incoming::TooLong));
        assert!(matches!(reader.next().await, Incoming::Line(line) if line == b"yes"));
        assert!(matches!(reader.next().await, Incoming::End(Ok(()))));
        assert!(matches!(reader.next().await, Incoming::End(Ok(()))));
    }

    /// A reader that returns one byte per read.
    fn one_byte_at_a_time(bytes: &'static [u8]) -> impl AsyncRead + Unpin {
        struct OneByte(&'static [u8]);
        impl AsyncRead for OneByte {
            fn poll_read(
                mut self: std::pin::Pin<&mut Self>,
                _: &mut std::task::Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> std::task::Poll<io::Result<()>> {
                if let Some((first, rest)) = self.0.split_first() {
                    buf.put_slice(&[*first]);
                    self.0 = rest;
                }
                std::task::Poll::Ready(Ok(()))
            }
        }
        OneByte(bytes)
    }
}

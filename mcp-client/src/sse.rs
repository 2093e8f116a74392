//! An incremental parser for `text/event-stream` bodies (the WHATWG
//! "event stream interpretation"), fed with byte chunks as they arrive.
//!
//! Lines end with CRLF, LF or CR (a CR at the end of one chunk and an LF at
//! the start of the next are one line end). Lines starting with `:` are
//! comments. `data` lines accumulate, joined by `\n`; an empty line
//! dispatches the event if it has data. An event cut off by the end of the
//! stream is dropped, as the standard requires.
//!
//! An event larger than the parser's limit ([`MAX_EVENT`] by default) is
//! dropped as it grows, never held whole: [`SseParser::oversized`] then
//! says so, and the reader ends the stream with an error.

/// The largest event a parser keeps by default, the transport's bound on
/// a JSON body: 16 MiB.
pub const MAX_EVENT: usize = crate::connector::MAX_BODY;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event` field, `message` when absent.
    pub event: String,
    /// The `data` lines joined by `\n`.
    pub data: String,
    /// The last `id` seen on the stream, if any.
    pub id: Option<String>,
    /// The `retry` field of this event, in milliseconds.
    pub retry: Option<u64>,
}

/// The parser state. Feed it chunks with [`SseParser::feed`].
#[derive(Debug)]
pub struct SseParser {
    limit: usize,
    /// An event went over the limit (sticky).
    oversized: bool,
    /// Dropping the rest of an oversized event, up to its blank line.
    discarding: bool,
    /// While discarding: the current line has bytes (so it is not blank).
    discarded_bytes: bool,
    line: Vec<u8>,
    skip_lf: bool,
    started: bool,
    data: String,
    has_data: bool,
    event: String,
    id: Option<String>,
    retry: Option<u64>,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::with_limit(MAX_EVENT)
    }
}

impl SseParser {
    /// A parser at the start of a stream, with the [`MAX_EVENT`] limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// A parser whose events may hold at most `limit` bytes (lines and
    /// data together).
    pub fn with_limit(limit: usize) -> Self {
        Self {
            limit,
            oversized: false,
            discarding: false,
            discarded_bytes: false,
            line: Vec::new(),
            skip_lf: false,
            started: false,
            data: String::new(),
            has_data: false,
            event: String::new(),
            id: None,
            retry: None,
        }
    }

    /// Whether an event larger than the limit was dropped.
    pub fn oversized(&self) -> bool {
        self.oversized
    }

    /// Parses `chunk` and returns the events it completed, in order.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &b in chunk {
            if self.skip_lf {
                self.skip_lf = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\r' => {
                    self.skip_lf = true;
                    self.end_line(&mut events);
                }
                b'\n' => self.end_line(&mut events),
                _ if self.discarding => self.discarded_bytes = true,
                _ => {
                    self.line.push(b);
                    if self.line.len() + self.data.len() > self.limit {
                        self.drop_event();
                        // This line is not blank: it does not end the event.
                        self.discarded_bytes = true;
                    }
                }
            }
        }
        events
    }

    /// Forgets the event being read and skips to its end.
    fn drop_event(&mut self) {
        self.oversized = true;
        self.discarding = true;
        self.line = Vec::new();
        self.data = String::new();
        self.has_data = false;
        self.event.clear();
        self.retry = None;
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        if self.discarding {
            // A blank line ends the dropped event.
            self.discarding = std::mem::take(&mut self.discarded_bytes);
            return;
        }
        let raw = std::mem::take(&mut self.line);
        let mut line = String::from_utf8_lossy(&raw).into_owned();
        if !self.started {
            self.started = true;
            if let Some(rest) = line.strip_prefix('\u{feff}') {
                line = rest.to_owned();
            }
        }
        if line.is_empty() {
            if self.has_data {
                events.push(SseEvent {
                    event: if self.event.is_empty() {
                        "message".to_owned()
                    } else {
                        std::mem::take(&mut self.event)
                    },
                    data: std::mem::take(&mut self.data),
                    id: self.id.clone(),
                    retry: self.retry.take(),
                });
            }
            self.data.clear();
            self.has_data = false;
            self.event.clear();
            self.retry = None;
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_str(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
                // Many lines, each under the limit, may still add up.
                if self.data.len() > self.limit {
                    self.drop_event();
                }
            }
            "event" => self.event = value.to_owned(),
            "id" if !value.contains('\0') => self.id = Some(value.to_owned()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = value.parse().ok();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oversized_event_is_dropped_as_it_grows_and_the_next_one_kept() {
        let mut p = SseParser::with_limit(64);
        let mut events = p.feed(b"data: small\n\n");
        assert!(!p.oversized());
        // One long line, fed in pieces: never held past the limit.
        events.extend(p.feed(b"data: "));
        for _ in 0..100 {
            events.extend(p.feed(&[b'x'; 50]));
            assert!(p.line.len() + p.data.len() <= 64);
        }
        events.extend(p.feed(b"\n\n"));
        // Many short lines adding up.
        events.extend(p.feed("data: 0123456789\n".repeat(10).as_bytes()));
        events.extend(p.feed(b"\ndata: after\n\n"));
        assert!(p.oversized());
        let data: Vec<&str> = events.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, ["small", "after"]);
    }

    fn all(parser: &mut SseParser, chunks: &[&[u8]]) -> Vec<SseEvent> {
        chunks.iter().flat_map(|c| parser.feed(c)).collect()
    }

    #[test]
    fn one_event_lf() {
        let mut p = SseParser::new();
        let ev = p.feed(b"event: message\ndata: {\"a\":1}\n\n");
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].event, "message");
        assert_eq!(ev[0].data, "{\"a\":1}");
    }

    #[test]
    fn multi_line_data_and_default_event_name() {
        let mut p = SseParser::new();
        let ev = p.feed(b"data: one\ndata:two\ndata\n\n");
        assert_eq!(ev[0].data, "one\ntwo\n");
        assert_eq!(ev[0].event, "message");
    }

    #[test]
    fn crlf_and_cr_line_ends_split_across_chunks() {
        let mut p = SseParser::new();
        let ev = all(
            &mut p,
            &[b"data: a\r", b"\ndata: b\r", b"\r", b"data: c\r\n\r\n"],
        );
        assert_eq!(ev.len(), 2);
        assert_eq!(ev[0].data, "a\nb");
        assert_eq!(ev[1].data, "c");
    }

    #[test]
    fn bytes_split_anywhere_including_inside_utf8() {
        let text = "id: 7\nretry: 500\ndata: héllo\n\n".as_bytes();
        for cut in 0..text.len() {
            let mut p = SseParser::new();
            let ev = all(&mut p, &[&text[..cut], &text[cut..]]);
            assert_eq!(ev.len(), 1, "cut at {cut}");
            assert_eq!(ev[0].data, "héllo");
            assert_eq!(ev[0].id.as_deref(), Some("7"));
            assert_eq!(ev[0].retry, Some(500));
        }
    }

    #[test]
    fn comments_empty_events_and_priming_events_are_skipped() {
        let mut p = SseParser::new();
        let ev = p.feed(b": keep-alive\n\nid: 1\n\nevent: x\n\ndata: real\n\n");
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].data, "real");
        assert_eq!(
            ev[0].event, "message",
            "event name resets after each blank line"
        );
        assert_eq!(ev[0].id.as_deref(), Some("1"), "the last id persists");
    }

    #[test]
    fn a_leading_bom_is_ignored_and_a_truncated_event_is_dropped() {
        let mut p = SseParser::new();
        let ev = p.feed("\u{feff}data: x\n\ndata: cut".as_bytes());
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].data, "x");
    }

    #[test]
    fn bad_retry_and_unknown_fields_are_ignored() {
        let mut p = SseParser::new();
        let ev = p.feed(b"retry: 5s\nfoo: bar\ndata: d\n\n");
        assert_eq!(ev[0].retry, None);
        assert_eq!(ev[0].data, "d");
    }
}

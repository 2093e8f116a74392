//! The client's error types: [`Error`], and the [`HandlerError`] a
//! handler answers with (here, not in `handler`, because `Error` carries it).

use std::fmt;
use std::time::Duration;

use mcp_era_types::v2026_07_28 as modern;

/// Everything that can go wrong while talking to a server.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The server command could not be started.
    Spawn {
        /// The command line as given.
        command: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// Reading from or writing to the server failed.
    Io(std::io::Error),
    /// The server went away (stdout closed, process exited, connection reset).
    Closed {
        /// What was observed.
        detail: String,
    },
    /// No answer within the configured timeout.
    Timeout {
        /// The request's method.
        method: String,
        /// The timeout that expired.
        after: Duration,
    },
    /// The URL is not a plain `http://` URL this client can use.
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The HTTP exchange failed below the MCP layer.
    Http {
        /// The request's method.
        method: String,
        /// The HTTP status, when a response arrived.
        status: Option<u16>,
        /// A short description (the start of the body, or the transport error).
        detail: String,
    },
    /// The server answered with a JSON-RPC error.
    Rpc {
        /// The request's method.
        method: String,
        /// The error as received.
        error: modern::Error,
    },
    /// The server sent something that is not a usable JSON-RPC message.
    InvalidMessage {
        /// What was wrong.
        detail: String,
    },
    /// A result did not have the shape the protocol requires.
    InvalidResult {
        /// The request's method.
        method: String,
        /// The deserializer's message, naming the field.
        detail: String,
    },
    /// The client and the server share no protocol version.
    NoMutualVersion {
        /// The versions this client offered, newest first.
        client: Vec<String>,
        /// The versions the server said it supports.
        server: Vec<String>,
    },
    /// `--era modern` was forced but the server answered like a legacy server.
    NotModern {
        /// What the server answered to `server/discover`.
        detail: String,
    },
    /// An `input_required` result asked for input of a kind the client did
    /// not declare (or that no handler answers).
    UndeclaredInput {
        /// The request's method.
        method: String,
        /// The input request's method (`elicitation/create`, …).
        input: String,
    },
    /// Authorizing with the server's authorization server failed.
    Auth {
        /// What went wrong.
        detail: String,
    },
    /// The client's handler refused an input request.
    Handler {
        /// The request's method.
        method: String,
        /// What the handler said.
        error: HandlerError,
    },
    /// The server kept answering `input_required` past
    /// [`ClientOptions::max_input_rounds`](crate::ClientOptions::max_input_rounds).
    TooManyInputRounds {
        /// The request's method.
        method: String,
        /// The rounds answered.
        rounds: usize,
    },
    /// An `input_required` result carried a `requestState` larger than
    /// [`ClientOptions::max_request_state_bytes`](crate::ClientOptions::max_request_state_bytes).
    RequestStateTooLarge {
        /// The request's method.
        method: String,
        /// The state's size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A task ended `failed`: the JSON-RPC error it ended with.
    TaskFailed {
        /// The task's id.
        task_id: String,
        /// The error from its `DetailedTask`.
        error: modern::Error,
    },
    /// A task ended `cancelled`.
    TaskCancelled {
        /// The task's id.
        task_id: String,
    },
    /// Content read for a skill failed verification against its entry
    /// (size, digest, frontmatter, or a file the entry does not list): it
    /// was not used.
    SkillVerification(mcp_era_types::ext::skills::VerifyError),
    /// The server did not declare what the request needs (an extension,
    /// or one of its settings), so it was not sent.
    NotDeclared {
        /// The request's method.
        method: String,
        /// What the server would have to declare.
        missing: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Spawn { command, source } => {
                write!(f, "could not start server `{command}`: {source}")
            }
            Error::Io(e) => write!(f, "I/O error talking to the server: {e}"),
            Error::Closed { detail } => write!(f, "the server closed the connection: {detail}"),
            Error::Timeout { method, after } => {
                write!(f, "no answer to `{method}` within {} ms", after.as_millis())
            }
            Error::InvalidUrl { url, reason } => write!(f, "invalid URL `{url}`: {reason}"),
            Error::Http {
                method,
                status: Some(s),
                detail,
            } => {
                write!(f, "HTTP {s} in answer to `{method}`: {detail}")
            }
            Error::Http {
                method,
                status: None,
                detail,
            } => {
                write!(f, "HTTP request `{method}` failed: {detail}")
            }
            Error::Rpc { method, error } => {
                write!(
                    f,
                    "`{method}` failed with JSON-RPC error {}: {}",
                    error.code, error.message
                )?;
                if let Some(data) = &error.data {
                    write!(f, " (data: {data})")?;
                }
                Ok(())
            }
            Error::InvalidMessage { detail } => {
                write!(f, "invalid message from the server: {detail}")
            }
            Error::InvalidResult { method, detail } => {
                write!(f, "invalid `{method}` result: {detail}")
            }
            Error::NoMutualVersion { client, server } => write!(
                f,
                "no protocol version in common: client supports [{}], server supports [{}]",
                client.join(", "),
                server.join(", ")
            ),
            Error::NotModern { detail } => write!(
                f,
                "the server does not speak the modern protocol (era forced to modern): {detail}"
            ),
            Error::Auth { detail } => write!(f, "authorization failed: {detail}"),
            Error::UndeclaredInput { method, input } => write!(
                f,
                "`{method}` needs input by `{input}`, which this client did not declare"
            ),
            Error::Handler { method, error } => {
                write!(
                    f,
                    "the client's handler refused input for `{method}`: {error}"
                )
            }
            Error::TooManyInputRounds { method, rounds } => {
                write!(f, "`{method}` still asked for input after {rounds} rounds")
            }
            Error::RequestStateTooLarge {
                method,
                bytes,
                limit,
            } => write!(
                f,
                "`{method}` asked for input with a requestState of {bytes} bytes, over the limit of {limit}"
            ),
            Error::TaskFailed { task_id, error } => {
                write!(
                    f,
                    "task {task_id} failed with JSON-RPC error {}: {}",
                    error.code, error.message
                )
            }
            Error::TaskCancelled { task_id } => write!(f, "task {task_id} was cancelled"),
            Error::SkillVerification(e) => {
                write!(f, "skill content failed verification, not used: {e}")
            }
            Error::NotDeclared { method, missing } => {
                write!(
                    f,
                    "`{method}` not sent: the server does not declare {missing}"
                )
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Spawn { source, .. } => Some(source),
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

/// Why a handler did not answer: sent to a legacy server as the JSON-RPC
/// error, and returned from a modern call as [`Error::Handler`].
#[derive(Debug, Clone, PartialEq)]
pub struct HandlerError {
    /// The JSON-RPC error code.
    pub code: i64,
    /// A short sentence.
    pub message: String,
}

impl HandlerError {
    /// An error with `code` and `message`.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// `-32601`: this client does not do that.
    pub fn unsupported(what: &str) -> Self {
        Self::new(-32601, format!("{what} is not supported by this client"))
    }
}

impl fmt::Display for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

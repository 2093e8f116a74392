//! Era detection and version selection: plain functions over what the
//! server answered, with no I/O, so every rule is unit-tested.
//!
//! The rules (2026-07-28 stdio §backward compatibility, Streamable HTTP
//! §backward compatibility):
//!
//! * A `DiscoverResult` means **modern**.
//! * A *recognised modern error* means **modern**: `-32022` with a
//!   `data.supported` list of strings, `-32021` with an object
//!   `data.requiredCapabilities`, or `-32020`. The client then picks a
//!   mutual version and retries; it never falls back.
//! * Anything else means **legacy**: any other JSON-RPC error (whatever its
//!   code: `-32601`, `-32602`, `-32600`, `-32000`, …), no answer within the
//!   probe timeout, and on HTTP a 4xx whose body is empty, not JSON, or
//!   not a recognised modern error. The fallback is never keyed on one code.

use mcp_era_types::v2026_07_28::{
    self as modern, UnsupportedProtocolVersionErrorErrorData, error_codes,
};
use serde_json::Value;

use crate::error::Error;

/// A recognised modern error: one only a 2026-07-28 server sends.
#[derive(Debug, Clone, PartialEq)]
pub enum ModernError {
    /// `-32022` with `data.supported` (and usually `data.requested`).
    UnsupportedVersion {
        /// The versions the server implements.
        supported: Vec<String>,
        /// The version the server says it was sent, if given.
        requested: Option<String>,
    },
    /// `-32021` with `data.requiredCapabilities` as an object.
    MissingClientCapability(Value),
    /// `-32020`: a Streamable HTTP header was missing or did not match.
    HeaderMismatch,
}

/// Recognises a modern error. `None` for everything else, including the
/// modern codes without their required `data`.
pub fn recognise_modern_error(error: &modern::Error) -> Option<ModernError> {
    match error.code {
        error_codes::UNSUPPORTED_PROTOCOL_VERSION_ERROR => {
            let data = error.data.as_ref()?;
            let supported = data.get("supported")?.as_array()?;
            let supported: Option<Vec<String>> = supported
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect();
            Some(ModernError::UnsupportedVersion {
                supported: supported?,
                requested: data
                    .get("requested")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            })
        }
        error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY_ERROR => {
            let caps = error.data.as_ref()?.get("requiredCapabilities")?;
            caps.is_object()
                .then(|| ModernError::MissingClientCapability(caps.clone()))
        }
        error_codes::HEADER_MISMATCH_ERROR => Some(ModernError::HeaderMismatch),
        _ => None,
    }
}

/// Reads `data` of a `-32022` error with the generated type, if it has that shape.
pub fn unsupported_version_data(
    error: &modern::Error,
) -> Option<UnsupportedProtocolVersionErrorErrorData> {
    if error.code != error_codes::UNSUPPORTED_PROTOCOL_VERSION_ERROR {
        return None;
    }
    serde_json::from_value(error.data.clone()?).ok()
}

/// What the answer to a `server/discover` probe says about the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// A `DiscoverResult` (the raw `result` object).
    Modern(Value),
    /// A recognised modern error: the server is modern, retry with a mutual version.
    ModernError(ModernError, modern::Error),
    /// The server is legacy: fall back to `initialize`.
    Legacy(LegacyReason),
}

/// Why a probe concluded "legacy".
#[derive(Debug, Clone, PartialEq)]
pub enum LegacyReason {
    /// A JSON-RPC error that is not a recognised modern error.
    Error(modern::Error),
    /// No answer within the probe timeout.
    Timeout,
    /// A success result that is not a `DiscoverResult`.
    NotDiscover,
    /// An HTTP 4xx without a recognised modern JSON-RPC error in the body.
    HttpStatus {
        /// The status code.
        status: u16,
        /// The start of the body, for diagnostics.
        body: String,
    },
}

impl std::fmt::Display for LegacyReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LegacyReason::Error(e) => write!(
                f,
                "server/discover failed with error {}: {}",
                e.code, e.message
            ),
            LegacyReason::Timeout => {
                write!(f, "no answer to server/discover within the probe timeout")
            }
            LegacyReason::NotDiscover => write!(
                f,
                "server/discover returned something that is not a DiscoverResult"
            ),
            LegacyReason::HttpStatus { status, body } if body.is_empty() => {
                write!(f, "HTTP {status} with an empty body")
            }
            LegacyReason::HttpStatus { status, body } => {
                write!(f, "HTTP {status} without a modern JSON-RPC error: {body}")
            }
        }
    }
}

/// A JSON-RPC response, split into its outcome.
pub type Reply = Result<Value, modern::Error>;

/// Splits a JSON-RPC response message into `Ok(result)` or `Err(error)`.
/// `None` when the message is neither.
pub fn split_response(message: &Value) -> Option<Reply> {
    if let Some(result) = message.get("result") {
        return Some(Ok(result.clone()));
    }
    let error = message.get("error")?;
    Some(
        serde_json::from_value::<modern::Error>(error.clone())
            .map_err(|_| {
                // An error object that is not even `{code, message}`: keep what we can.
                modern::Error::new(
                    error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    error.to_string(),
                )
            })
            .and_then(Err),
    )
}

/// Whether a success result looks like a `DiscoverResult` (it has the
/// required `supportedVersions` list). Full validation happens later.
fn looks_like_discover(result: &Value) -> bool {
    result.get("supportedVersions").is_some_and(Value::is_array)
}

/// Classifies the stdio answer to `server/discover`: `None` = timed out.
pub fn classify_stdio(reply: Option<Reply>) -> Verdict {
    match reply {
        None => Verdict::Legacy(LegacyReason::Timeout),
        Some(Ok(result)) if looks_like_discover(&result) => Verdict::Modern(result),
        Some(Ok(_)) => Verdict::Legacy(LegacyReason::NotDiscover),
        Some(Err(error)) => match recognise_modern_error(&error) {
            Some(m) => Verdict::ModernError(m, error),
            None => Verdict::Legacy(LegacyReason::Error(error)),
        },
    }
}

/// Classifies an HTTP answer to the first modern request. `message` is the
/// JSON-RPC response found in the body (JSON or SSE), if any; `body` is the
/// start of the raw body for diagnostics. `Err` for answers that say
/// nothing about the era (5xx, 1xx/3xx).
pub fn classify_http(status: u16, message: Option<&Value>, body: &str) -> Result<Verdict, Error> {
    let reply = message.and_then(split_response);
    match status {
        200..=299 => Ok(match reply {
            Some(r) => classify_stdio(Some(r)),
            None => Verdict::Legacy(LegacyReason::NotDiscover),
        }),
        400..=499 => Ok(match reply {
            Some(Err(error)) => match recognise_modern_error(&error) {
                Some(m) => Verdict::ModernError(m, error),
                None => Verdict::Legacy(LegacyReason::HttpStatus {
                    status,
                    body: body.to_owned(),
                }),
            },
            _ => Verdict::Legacy(LegacyReason::HttpStatus {
                status,
                body: body.to_owned(),
            }),
        }),
        _ => Err(Error::Http {
            method: modern::methods::SERVER_DISCOVER.to_owned(),
            status: Some(status),
            detail: body.to_owned(),
        }),
    }
}

/// Picks the newest version both sides support. `ours` is newest first,
/// so the first of ours the server lists wins; versions compare exactly.
pub fn select_version(ours: &[String], theirs: &[String]) -> Result<String, Error> {
    ours.iter()
        .find(|v| theirs.contains(v))
        .cloned()
        .ok_or_else(|| Error::NoMutualVersion {
            client: ours.to_vec(),
            server: theirs.to_vec(),
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> modern::Error {
        serde_json::from_value(v).unwrap()
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn discover_result_is_modern() {
        let r = json!({"supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public"});
        assert_eq!(classify_stdio(Some(Ok(r.clone()))), Verdict::Modern(r));
    }

    #[test]
    fn unsupported_version_with_data_is_modern() {
        let e = err(
            json!({"code":-32022,"message":"Unsupported protocol version",
            "data":{"supported":["2027-01-01","2026-07-28"],"requested":"2026-07-28"}}),
        );
        match classify_stdio(Some(Err(e))) {
            Verdict::ModernError(
                ModernError::UnsupportedVersion {
                    supported,
                    requested,
                },
                _,
            ) => {
                assert_eq!(supported, strings(&["2027-01-01", "2026-07-28"]));
                assert_eq!(requested.as_deref(), Some("2026-07-28"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn other_modern_codes_are_modern() {
        let e = err(
            json!({"code":-32021,"message":"m","data":{"requiredCapabilities":{"sampling":{}}}}),
        );
        assert!(matches!(
            classify_stdio(Some(Err(e))),
            Verdict::ModernError(ModernError::MissingClientCapability(_), _)
        ));
        let e = err(json!({"code":-32020,"message":"Header mismatch"}));
        assert!(matches!(
            classify_stdio(Some(Err(e))),
            Verdict::ModernError(ModernError::HeaderMismatch, _)
        ));
    }

    #[test]
    fn modern_codes_without_their_data_are_not_recognised() {
        for e in [
            json!({"code":-32022,"message":"x"}),
            json!({"code":-32022,"message":"x","data":{"supported":"2026-07-28"}}),
            json!({"code":-32022,"message":"x","data":{"supported":[1]}}),
            json!({"code":-32021,"message":"x","data":{"requiredCapabilities":["sampling"]}}),
        ] {
            assert!(
                matches!(
                    classify_stdio(Some(Err(err(e.clone())))),
                    Verdict::Legacy(LegacyReason::Error(_))
                ),
                "{e}"
            );
        }
    }

    #[test]
    fn any_other_error_or_silence_is_legacy() {
        for code in [-32601, -32602, -32600, -32603, -32000, -32001, 1, 0] {
            let e = err(json!({"code":code,"message":"no"}));
            assert!(
                matches!(
                    classify_stdio(Some(Err(e))),
                    Verdict::Legacy(LegacyReason::Error(_))
                ),
                "{code}"
            );
        }
        assert_eq!(classify_stdio(None), Verdict::Legacy(LegacyReason::Timeout));
        assert_eq!(
            classify_stdio(Some(Ok(json!({})))),
            Verdict::Legacy(LegacyReason::NotDiscover)
        );
    }

    #[test]
    fn http_400_rules() {
        // Empty body, non-JSON body, JSON-RPC error that is not modern: legacy.
        assert!(matches!(
            classify_http(400, None, "").unwrap(),
            Verdict::Legacy(LegacyReason::HttpStatus { status: 400, .. })
        ));
        assert!(matches!(
            classify_http(400, None, "Bad Request").unwrap(),
            Verdict::Legacy(_)
        ));
        let legacy = json!({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}});
        assert!(matches!(
            classify_http(400, Some(&legacy), "").unwrap(),
            Verdict::Legacy(_)
        ));
        assert!(matches!(
            classify_http(404, None, "").unwrap(),
            Verdict::Legacy(_)
        ));
        assert!(matches!(
            classify_http(405, None, "").unwrap(),
            Verdict::Legacy(_)
        ));
        // A recognised modern error: modern.
        let modern = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"u","data":{"supported":["2026-07-28"],"requested":"x"}}});
        assert!(matches!(
            classify_http(400, Some(&modern), "").unwrap(),
            Verdict::ModernError(..)
        ));
        // 200 with a result: by the result; 200 with a legacy error: legacy.
        let ok = json!({"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}});
        assert!(matches!(
            classify_http(200, Some(&ok), "").unwrap(),
            Verdict::Modern(_)
        ));
        let mnf =
            json!({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}});
        assert!(matches!(
            classify_http(200, Some(&mnf), "").unwrap(),
            Verdict::Legacy(_)
        ));
        // 5xx says nothing about the era.
        assert!(classify_http(500, None, "boom").is_err());
    }

    #[test]
    fn selection_takes_our_newest_that_they_support() {
        let ours = strings(&["2026-07-28", "2026-01-01"]);
        assert_eq!(
            select_version(&ours, &strings(&["2026-01-01", "2026-07-28"])).unwrap(),
            "2026-07-28"
        );
        assert_eq!(
            select_version(&ours, &strings(&["2027-01-01", "2026-01-01"])).unwrap(),
            "2026-01-01"
        );
    }

    #[test]
    fn no_mutual_version_names_both_lists() {
        let e = select_version(
            &strings(&["2026-07-28"]),
            &strings(&["2099-01-01", "2025-11-25"]),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "no protocol version in common: client supports [2026-07-28], server supports [2099-01-01, 2025-11-25]"
        );
    }

    #[test]
    fn versions_compare_exactly() {
        assert!(
            select_version(
                &strings(&["2026-07-28"]),
                &strings(&["2026-07-28 ", "2026-7-28"])
            )
            .is_err()
        );
    }

    #[test]
    fn split_response_handles_results_errors_and_garbage() {
        assert_eq!(
            split_response(&json!({"id":1,"result":{"a":1}})),
            Some(Ok(json!({"a":1})))
        );
        let e = split_response(&json!({"id":1,"error":{"code":-32601,"message":"nope"}}))
            .unwrap()
            .unwrap_err();
        assert_eq!(e.code, -32601);
        let e = split_response(&json!({"id":1,"error":"weird"}))
            .unwrap()
            .unwrap_err();
        assert_eq!(e.code, 0);
        assert_eq!(split_response(&json!({"id":1})), None);
    }
}

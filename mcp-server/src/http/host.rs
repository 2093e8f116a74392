//! Which host a request is for: the `Host` rules of RFC 9112 §3.2 and the
//! allow-lists that guard `Host` and `Origin` against DNS rebinding.
//!
//! An HTTP/1.1 request needs exactly one `Host` line with a valid value
//! (else 400, whatever the allow-list). An absolute-form target's authority
//! is the one that counts, not `Host` (§3.2.2), so a target naming another
//! host cannot walk around the allow-list; so does HTTP/2's `:authority`,
//! which hyper puts in the target.

use std::net::Ipv6Addr;

use hyper::header::HeaderValue;
use hyper::{Uri, Version};

/// The authority `uri` and the request's `Host` lines (the first of
/// `host_lines`) say the request is for; `None` for an HTTP/1.0 request
/// without one. `Err` is the reason for a 400.
pub(super) fn request_authority<'a>(
    version: Version,
    uri: &'a Uri,
    host: Option<&'a HeaderValue>,
    host_lines: usize,
) -> Result<Option<&'a str>, &'static str> {
    if host_lines > 1 {
        return Err("Bad Request: more than one Host header");
    }
    let host = match host {
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .filter(|h| is_valid_authority(h))
                .ok_or("Bad Request: invalid Host header")?,
        ),
        // HTTP/2 names the host in `:authority` (in the target) instead.
        None if version == Version::HTTP_11 => return Err("Bad Request: no Host header"),
        None => None,
    };
    match uri.authority() {
        Some(target) if is_valid_authority(target.as_str()) => Ok(Some(target.as_str())),
        Some(_) => Err("Bad Request: invalid authority in the request target"),
        None => Ok(host),
    }
}

/// `uri-host [":" port]` (RFC 9110 §7.2) with a non-empty host, as an
/// `http(s)` authority must have (§4.2.1), and no userinfo (§4.2.4).
fn is_valid_authority(authority: &str) -> bool {
    let (host_ok, port) = match authority.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((literal, port)) => (literal.parse::<Ipv6Addr>().is_ok(), port),
            None => return false,
        },
        None => {
            let colon = authority.bytes().position(|b| b == b':');
            let (name, port) = authority.split_at(colon.unwrap_or(authority.len()));
            (!name.is_empty() && is_reg_name(name), port)
        }
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()));
    host_ok && port_ok
}

/// RFC 3986 `reg-name` (which IPv4 addresses are too, by syntax).
fn is_reg_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    while let Some(byte) = bytes.next() {
        let ok = match byte {
            b'%' => {
                bytes.next().is_some_and(|b| b.is_ascii_hexdigit())
                    && bytes.next().is_some_and(|b| b.is_ascii_hexdigit())
            }
            byte => REG_NAME[usize::from(byte)],
        };
        if !ok {
            return false;
        }
    }
    true
}

/// `unreserved` and `sub-delims` (RFC 3986 §2): a `reg-name` byte other
/// than `%`, looked up rather than matched (every request's `Host` is read).
const REG_NAME: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = matches!(
            byte as u8,
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9'
                | b'-' | b'.' | b'_' | b'~' | b'!' | b'$' | b'&' | b'\'' | b'('..=b',' | b';' | b'='
        );
        byte += 1;
    }
    table
};

/// The hostname of a `Host` value or URL authority: port removed, IPv6
/// brackets removed (compared case-insensitively).
fn hostname(authority: &str) -> &str {
    let authority = authority.trim_ascii();
    if let Some(rest) = authority.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        match authority.bytes().rposition(|b| b == b':') {
            Some(colon)
                if authority.as_bytes()[colon + 1..]
                    .iter()
                    .all(u8::is_ascii_digit) =>
            {
                &authority[..colon]
            }
            _ => authority,
        }
    }
}

/// Whether `authority` names one of `allowed_hosts` (empty: any host).
pub(super) fn host_allowed(allowed_hosts: &[String], authority: &str) -> bool {
    let hostname = hostname(authority);
    allowed_hosts.is_empty()
        || allowed_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(hostname))
}

/// Whether `origin` is listed, or is `http(s)://` plus an allowed host.
pub(super) fn origin_allowed(
    allowed_hosts: &[String],
    allowed_origins: &[String],
    origin: &str,
) -> bool {
    if allowed_origins.iter().any(|o| o == origin) {
        return true;
    }
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    match rest {
        Some(authority) => host_allowed(allowed_hosts, authority.trim_end_matches('/')),
        None => allowed_hosts.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

    use super::*;

    fn authority_of(
        version: Version,
        target: &str,
        hosts: &[&'static str],
    ) -> Result<Option<String>, &'static str> {
        let uri: Uri = target.parse().unwrap();
        let first = hosts.first().map(|host| HeaderValue::from_static(host));
        request_authority(version, &uri, first.as_ref(), hosts.len()).map(|a| a.map(str::to_owned))
    }

    #[test]
    fn host_values() {
        for valid in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "[::1]",
            "[::1]:80",
            "a%2Db.example",
            "host:",
        ] {
            assert!(is_valid_authority(valid), "{valid}");
        }
        for invalid in [
            "",
            ":80",
            "a b",
            "user@localhost",
            "localhost:80x",
            "a:1:2",
            "[::1",
            "[nope]",
            "[::1]x",
            "a%zz",
            "a%2",
        ] {
            assert!(!is_valid_authority(invalid), "{invalid}");
        }
    }

    #[test]
    fn exactly_one_host_line_and_the_target_authority_first() {
        let h11 = Version::HTTP_11;
        assert_eq!(authority_of(h11, "/mcp", &["a:1"]), Ok(Some("a:1".into())));
        assert!(authority_of(h11, "/mcp", &[]).is_err());
        assert!(authority_of(h11, "/mcp", &["a", "a"]).is_err());
        assert!(authority_of(h11, "http://x/mcp", &[]).is_err());
        assert_eq!(
            authority_of(h11, "http://other.example/mcp", &["localhost"]),
            Ok(Some("other.example".into()))
        );
        assert!(authority_of(h11, "http://u@other.example/mcp", &["localhost"]).is_err());
        assert_eq!(authority_of(Version::HTTP_10, "/mcp", &[]), Ok(None));
        assert_eq!(
            authority_of(Version::HTTP_2, "http://localhost/mcp", &[]),
            Ok(Some("localhost".into()))
        );
    }
}

//! The interactive step of the flow, [`Authorizer`]: send the user to the
//! authorization URL and bring back the redirect. Two are given: headless
//! (the server redirects at once) and loopback (a browser comes back to a
//! local port).

use std::fmt;

use hyper::Method;
use hyper::body::Bytes;
use oauth2::url::Url;

use super::error::{AuthError, fail};
use super::http::HyperHttp;
use crate::future::BoxFuture;

/// The interactive step: send the user to `url` and return the redirect
/// URL the authorization server sent back (with `code`, `state`, `iss`).
pub trait Authorizer: Send + Sync {
    /// Authorizes at `url`.
    fn authorize(&self, url: String) -> BoxFuture<'_, Result<String, AuthError>>;
}

/// An [`Authorizer`] for servers that redirect at once (tests, trusted
/// automation): it requests the authorization URL and returns `Location`.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeadlessAuthorizer;

impl Authorizer for HeadlessAuthorizer {
    fn authorize(&self, url: String) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(async move {
            let http = HyperHttp::new().map_err(AuthError)?;
            let response = http.send(Method::GET, &url, vec![], Bytes::new()).await?;
            response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| AuthError("the authorization endpoint did not redirect".into()))
        })
    }
}

/// An [`Authorizer`] for command-line programs: it hands the
/// authorization URL to `open` (print it, or start a browser), then waits
/// on the redirect URI's loopback port (`127.0.0.1`, `localhost` or
/// `[::1]`) for the browser to come back, and answers it with a short page.
pub struct LoopbackAuthorizer {
    open: Box<dyn Fn(&str) + Send + Sync>,
    timeout: std::time::Duration,
}

impl fmt::Debug for LoopbackAuthorizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackAuthorizer")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl LoopbackAuthorizer {
    /// Calls `open` with the authorization URL; waits up to five minutes.
    pub fn new(open: impl Fn(&str) + Send + Sync + 'static) -> Self {
        Self {
            open: Box::new(open),
            timeout: std::time::Duration::from_secs(300),
        }
    }

    /// Prints the authorization URL on stderr for the user to open.
    pub fn printing() -> Self {
        Self::new(|url| eprintln!("Open this URL to authorize:\n  {url}"))
    }

    async fn wait(&self, url: &str) -> Result<String, AuthError> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let parsed = Url::parse(url).map_err(|e| AuthError(format!("authorization URL: {e}")))?;
        let Some(redirect) = parsed
            .query_pairs()
            .find(|(k, _)| k == "redirect_uri")
            .and_then(|(_, v)| Url::parse(&v).ok())
        else {
            return fail("the authorization URL has no redirect_uri");
        };
        let host = redirect.host_str().unwrap_or_default().to_owned();
        if !matches!(host.as_str(), "127.0.0.1" | "localhost" | "[::1]") {
            return fail(format!(
                "the redirect URI `{redirect}` is not a loopback address"
            ));
        }
        let port = redirect.port_or_known_default().unwrap_or(80);
        let bind_host = if host == "[::1]" { "::1" } else { "127.0.0.1" };
        let listener = tokio::net::TcpListener::bind((bind_host, port))
            .await
            .map_err(|e| AuthError(format!("listening on {bind_host}:{port}: {e}")))?;
        (self.open)(url);
        loop {
            let (mut stream, _) = listener
                .accept()
                .await
                .map_err(|e| AuthError(format!("accepting the redirect: {e}")))?;
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let head = String::from_utf8_lossy(&head);
            let target = head
                .lines()
                .next()
                .and_then(|line| line.strip_prefix("GET "))
                .and_then(|rest| rest.split(' ').next())
                .unwrap_or_default()
                .to_owned();
            let is_ours = target.split('?').next() == Some(redirect.path());
            let body = if is_ours {
                "Authorization complete; you can close this window."
            } else {
                "Not found."
            };
            let status = if is_ours { "200 OK" } else { "404 Not Found" };
            let reply = format!(
                "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
            if is_ours {
                return Ok(format!("{}://{}:{port}{target}", redirect.scheme(), host));
            }
        }
    }
}

impl Authorizer for LoopbackAuthorizer {
    fn authorize(&self, url: String) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(async move {
            tokio::time::timeout(self.timeout, self.wait(&url))
                .await
                .map_err(|_| AuthError("no redirect came back in time".into()))?
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.
    use super::*;

    #[tokio::test]
    async fn the_loopback_authorizer_returns_the_redirect() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let redirect = format!("http://127.0.0.1:{port}/callback");
        let url = Url::parse_with_params(
            "http://as.example/authorize",
            &[("redirect_uri", redirect.as_str())],
        )
        .unwrap();
        let browser = move |_: &str| {
            let target = format!("http://127.0.0.1:{port}/callback?code=c&state=s");
            tokio::spawn(async move {
                let http = HyperHttp::new().unwrap();
                let _ = http.send(Method::GET, &target, vec![], Bytes::new()).await;
            });
        };
        let got = LoopbackAuthorizer::new(browser)
            .authorize(url.to_string())
            .await
            .unwrap();
        assert_eq!(
            got,
            format!("http://127.0.0.1:{port}/callback?code=c&state=s")
        );
    }
}

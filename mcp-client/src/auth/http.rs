//! The HTTP client of the OAuth flow: plain requests for discovery and
//! registration, and the `oauth2` crate's token requests, each bounded by
//! [`HTTP_TIMEOUT`].

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Method, Request};

use super::error::AuthError;
use crate::connector::{Connector, connector};

/// How long one HTTP exchange of the flow may take.
const HTTP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The HTTP client the flow uses (the same connector as the transport).
#[derive(Clone)]
pub(crate) struct HyperHttp {
    client: hyper_util::client::legacy::Client<Connector, Full<Bytes>>,
}

impl HyperHttp {
    pub(crate) fn new() -> Result<Self, String> {
        Ok(Self {
            client: hyper_util::client::legacy::Client::builder(
                hyper_util::rt::TokioExecutor::new(),
            )
            .build(connector(&[])?),
        })
    }

    /// One request; the whole body is read.
    pub(crate) async fn send(
        &self,
        method: Method,
        url: &str,
        headers: Vec<(&'static str, String)>,
        body: Bytes,
    ) -> Result<hyper::Response<Vec<u8>>, AuthError> {
        let mut req = Request::builder().method(method).uri(url);
        for (name, value) in headers {
            req = req.header(name, value);
        }
        let req = req
            .body(Full::new(body))
            .map_err(|e| AuthError(format!("{url}: {e}")))?;
        let exchange = async {
            let response = self
                .client
                .request(req)
                .await
                .map_err(|e| AuthError(format!("{url}: {e}")))?;
            let (parts, body) = response.into_parts();
            let bytes = body
                .collect()
                .await
                .map_err(|e| AuthError(format!("{url}: {e}")))?
                .to_bytes();
            Ok(hyper::Response::from_parts(parts, bytes.to_vec()))
        };
        tokio::time::timeout(HTTP_TIMEOUT, exchange)
            .await
            .map_err(|_| {
                AuthError(format!(
                    "{url}: no answer within {} s",
                    HTTP_TIMEOUT.as_secs()
                ))
            })?
    }

    /// The `oauth2` crate's HTTP client.
    pub(super) async fn exchange(
        &self,
        req: oauth2::HttpRequest,
    ) -> Result<oauth2::HttpResponse, std::io::Error> {
        let (parts, body) = req.into_parts();
        let headers = parts
            .headers
            .iter()
            .filter_map(|(n, v)| Some((n.clone(), v.to_str().ok()?.to_owned())))
            .collect::<Vec<_>>();
        let mut req = Request::builder()
            .method(parts.method)
            .uri(parts.uri.clone());
        for (name, value) in headers {
            req = req.header(name, value);
        }
        let req = req
            .body(Full::new(Bytes::from(body)))
            .map_err(std::io::Error::other)?;
        let response = tokio::time::timeout(HTTP_TIMEOUT, self.client.request(req))
            .await
            .map_err(std::io::Error::other)?
            .map_err(std::io::Error::other)?;
        let (parts, body) = response.into_parts();
        let bytes = body
            .collect()
            .await
            .map_err(std::io::Error::other)?
            .to_bytes();
        Ok(hyper::Response::from_parts(parts, bytes.to_vec()))
    }
}

//! [`BoxFuture`]: the future the crate's object-safe async traits return
//! (`ClientHandler`, `Authorizer`, `Inbound`), in a file of its own so that
//! each of them depends down on it. Public as `transport::BoxFuture`.

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future (what [`Inbound`](crate::transport::Inbound) and handlers return).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

//! One accepted connection's life as the listener sees it: served until
//! it ends, asked to finish what it has begun at shutdown or when idle,
//! dropped when the grace runs out.

use std::future::Future;
use std::pin::Pin;

use tokio::sync::watch;

/// Where the server is in its life, as connections see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    Serving,
    /// Finish the current request, then close.
    Draining,
    /// Close now.
    Dropping,
}

/// Serves `connection` until it ends; at shutdown (`stage`) or once
/// `idle`, it is asked to finish what it has begun, then dropped if the
/// grace runs out. `None` when it was dropped.
///
/// The connection is pinned by the caller: taken by value, it would be
/// held twice in this future (an `async fn` keeps its arguments).
pub(super) async fn drive<C, E>(
    mut connection: Pin<&mut C>,
    graceful_shutdown: impl FnOnce(Pin<&mut C>),
    mut stage: watch::Receiver<Stage>,
    idle: impl Future<Output = ()>,
) -> Option<Result<(), E>>
where
    C: Future<Output = Result<(), E>>,
{
    let served = tokio::select! {
        result = connection.as_mut() => Some(result),
        _ = stage.wait_for(|s| *s != Stage::Serving) => None,
        () = idle => None,
    };
    if served.is_some() {
        return served;
    }
    graceful_shutdown(connection.as_mut());
    tokio::select! {
        result = connection.as_mut() => Some(result),
        _ = stage.wait_for(|s| *s == Stage::Dropping) => None,
    }
}

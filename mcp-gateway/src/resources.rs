//! Resource subscriptions: the URIs the front's clients follow (their
//! `subscriptions/listen` streams, their legacy sessions'
//! `resources/subscribe`), subscribed at the backend session serving them
//! and kept subscribed across its restarts; the backend's
//! `resources/updated` reach the front's event hub (see `notes`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Weak};

use mcp_era_client::Era;
use mcp_era_server::mcp_era_types::v2026_07_28::SubscriptionFilter;
use serde_json::json;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::backend::Backend;
use crate::notes::Notes;

/// The URIs followed on one backend session, each with how many follow it.
#[derive(Clone, Default)]
pub(crate) struct Wanted(Arc<watch::Sender<BTreeMap<String, usize>>>);

/// One client following `uris`; dropped when it stops.
pub(crate) struct Follower {
    wanted: Wanted,
    uris: BTreeSet<String>,
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.wanted.0.send_if_modified(|counts| {
            let mut gone = false;
            for uri in &self.uris {
                if let Some(count) = counts.get_mut(uri) {
                    *count -= 1;
                    if *count == 0 {
                        counts.remove(uri);
                        gone = true;
                    }
                }
            }
            gone
        });
    }
}

impl Wanted {
    /// A client follows `uris` from now on, until the result is dropped.
    pub(crate) fn follow(&self, uris: &[String]) -> Follower {
        let uris: BTreeSet<String> = uris.iter().cloned().collect();
        self.0.send_if_modified(|counts| {
            let mut new = false;
            for uri in &uris {
                let count = counts.entry(uri.clone()).or_default();
                new |= *count == 0;
                *count += 1;
            }
            new
        });
        Follower {
            wanted: self.clone(),
            uris,
        }
    }

    /// Whether any client follows a URI on this session.
    pub(crate) fn is_followed(&self) -> bool {
        !self.0.borrow().is_empty()
    }

    /// Keeps `backend` subscribed to the URIs followed, until the future
    /// is dropped (its session's link holds another backend, or none): a
    /// legacy backend with `resources/subscribe` and `unsubscribe`, a
    /// modern one with a `subscriptions/listen` stream naming them (opened
    /// again when they change), whose updates go to `notes`.
    pub(crate) async fn keep_subscribed(self, backend: Weak<Backend>, notes: Notes) {
        let mut wanted = self.0.subscribe();
        let mut subscribed = BTreeSet::new();
        // Held for its `Drop`: the stream ends with this future.
        let mut _listen: Option<Listen> = None;
        loop {
            let now: BTreeSet<String> = wanted.borrow_and_update().keys().cloned().collect();
            let Some(backend) = backend.upgrade() else {
                return;
            };
            if backend.era() == Era::Modern {
                if now != subscribed {
                    _listen = follow_modern(&backend, &now, &notes).await;
                }
            } else {
                for uri in now.difference(&subscribed) {
                    change(&backend, "resources/subscribe", uri).await;
                }
                for uri in subscribed.difference(&now) {
                    change(&backend, "resources/unsubscribe", uri).await;
                }
            }
            subscribed = now;
            drop(backend);
            if wanted.changed().await.is_err() {
                return;
            }
        }
    }
}

/// The task following a modern backend's listen stream, stopped when
/// dropped.
struct Listen(JoinHandle<()>);

impl Drop for Listen {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A legacy backend subscribed to (or unsubscribed from) `uri`; a refusal
/// is logged (the client's stream stays open, without its updates).
async fn change(backend: &Backend, method: &str, uri: &str) {
    if let Err(e) = backend.forward_call(method, json!({"uri": uri})).await {
        tracing::warn!(method, uri, "the backend refused: {}", e.message);
    }
}

/// A modern backend's listen stream for `uris` (none when empty), its
/// updates handed to `notes`.
async fn follow_modern(
    backend: &Backend,
    uris: &BTreeSet<String>,
    notes: &Notes,
) -> Option<Listen> {
    if uris.is_empty() {
        return None;
    }
    let filter = SubscriptionFilter::new()
        .with_resource_subscriptions(uris.iter().cloned().collect::<Vec<_>>());
    match backend.listen(filter).await {
        Ok(listen) => Some(Listen(tokio::spawn(notes.clone().follow(listen)))),
        Err(e) => {
            tracing::warn!("the backend's resource updates are not followed: {e}");
            None
        }
    }
}

//! A member's events handed on to the composite's listeners, after the
//! lists they may have changed are dropped from the catalogue.

use std::sync::Arc;

use mcp_era_server::{ServerEvent, ServerEvents};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::watch;

use super::catalogue::Catalogue;
use super::kind::Kind;

/// Hands a member's events on to the composite's hub (list changes and
/// resource updates: URIs are kept, so they need no rewriting), first
/// dropping the lists of the member that may have changed.
pub(super) struct Relay {
    pub(super) index: usize,
    pub(super) to: ServerEvents,
    pub(super) catalogue: Arc<Catalogue>,
    /// Whether the composite has other members, whose clients learn of a
    /// lost member's items going (one member alone, as directly, fails).
    pub(super) several: bool,
}

impl Relay {
    pub(super) async fn run(self, from: ServerEvents, mut losses: watch::Receiver<u64>) {
        let mut events = from.subscribe();
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    Ok(event) => self.pass(event),
                    Err(RecvError::Lagged(_)) => self.all_changed(),
                    Err(RecvError::Closed) => return,
                },
                lost = losses.changed() => {
                    if lost.is_err() {
                        return;
                    }
                    self.catalogue.forget(self.index, &Kind::ALL);
                    if self.several {
                        self.all_changed();
                    }
                }
            }
        }
    }

    fn pass(&self, event: ServerEvent) {
        let kinds: &[Kind] = match &event {
            ServerEvent::ToolsListChanged => &[Kind::Tools],
            ServerEvent::PromptsListChanged => &[Kind::Prompts],
            ServerEvent::ResourcesListChanged => &[Kind::Resources, Kind::Templates],
            ServerEvent::ResourceUpdated(_) => &[],
            _ => return,
        };
        if !kinds.is_empty() {
            self.catalogue.forget(self.index, kinds);
        }
        self.to.publish(event);
    }

    fn all_changed(&self) {
        self.catalogue.forget(self.index, &Kind::ALL);
        self.to.tools_list_changed();
        self.to.prompts_list_changed();
        self.to.resources_list_changed();
    }
}

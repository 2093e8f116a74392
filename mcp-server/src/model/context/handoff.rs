//! A request that goes on after its handler chain returns: a listen
//! stream, once acknowledged, keeps only what it needs (its filter, its
//! caller, where its notifications go), not the request, its context and
//! the handlers' futures that led to it.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};

use crate::model::outcome::Outcome;

/// The rest of a request: it ends with the request's answer.
pub(crate) type Rest = Pin<Box<dyn Future<Output = Outcome> + Send>>;

/// Where a handler leaves the rest of its request for the transport,
/// which polls it in place of the handler chain's own answer. A transport
/// that offers none gets the whole request from the chain.
#[derive(Default)]
pub(crate) struct Handoff(Mutex<Option<Rest>>);

impl Handoff {
    pub(crate) fn put(&self, rest: Rest) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(rest);
    }

    pub(crate) fn take(&self) -> Option<Rest> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

//! Admission of long-lived streams (`subscriptions/listen`, a legacy
//! session's GET stream): a cap in total and per principal, apart from
//! the connection cap, so that idle streams can never take every
//! connection and lock ordinary requests out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The open streams of one server, by principal.
#[derive(Debug)]
pub(super) struct StreamLimits {
    max_total: usize,
    max_per_principal: usize,
    open: Mutex<Open>,
}

#[derive(Debug, Default)]
struct Open {
    total: usize,
    by_principal: HashMap<String, usize>,
}

/// Why a stream was not admitted: which cap, and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// The server holds its most streams at once.
    Server(usize),
    /// This principal holds its most streams at once.
    Principal(usize),
}

/// One admitted stream; dropping it frees its place.
#[derive(Debug)]
pub(super) struct StreamPermit {
    limits: Arc<StreamLimits>,
    principal: Option<String>,
}

impl StreamLimits {
    pub(super) fn new(max_total: usize, max_per_principal: usize) -> Arc<Self> {
        Arc::new(Self {
            max_total,
            max_per_principal,
            open: Mutex::default(),
        })
    }

    fn open(&self) -> MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for one more stream of `principal`. Unauthenticated
    /// streams (`None`) count toward the server's cap only: without
    /// authentication every caller would be the same one.
    pub(super) fn admit(
        self: &Arc<Self>,
        principal: Option<&str>,
    ) -> Result<StreamPermit, Refusal> {
        let mut open = self.open();
        if open.total >= self.max_total {
            return Err(Refusal::Server(self.max_total));
        }
        if let Some(principal) = principal {
            let count = open.by_principal.entry(principal.to_owned()).or_default();
            if *count >= self.max_per_principal {
                return Err(Refusal::Principal(self.max_per_principal));
            }
            *count += 1;
        }
        open.total += 1;
        Ok(StreamPermit {
            limits: Arc::clone(self),
            principal: principal.map(str::to_owned),
        })
    }

    #[cfg(test)]
    fn total(&self) -> usize {
        self.open().total
    }
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut open = self.limits.open();
        open.total = open.total.saturating_sub(1);
        if let Some(principal) = &self.principal
            && let Some(count) = open.by_principal.get_mut(principal)
        {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.by_principal.remove(principal);
            }
        }
    }
}

impl Refusal {
    /// The error message a refused client reads.
    pub(super) fn message(self) -> String {
        match self {
            Refusal::Server(n) => format!(
                "Too many open streams: this server holds at most {n} listen and session \
                 streams at once; retry later"
            ),
            Refusal::Principal(n) => format!(
                "Too many open streams: at most {n} listen and session streams per caller; \
                 close one first"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_hold_in_total_and_per_principal_and_free_on_drop() {
        let limits = StreamLimits::new(3, 2);
        let a1 = limits.admit(Some("a")).expect("first of a");
        let _a2 = limits.admit(Some("a")).expect("second of a");
        assert_eq!(limits.admit(Some("a")).err(), Some(Refusal::Principal(2)));
        let _anonymous = limits.admit(None).expect("anonymous");
        assert_eq!(limits.admit(Some("b")).err(), Some(Refusal::Server(3)));
        drop(a1);
        assert_eq!(limits.total(), 2);
        let _b = limits.admit(Some("b")).expect("a freed place");
        assert_eq!(limits.admit(None).err(), Some(Refusal::Server(3)));
    }

    #[test]
    fn a_refusal_counts_nothing() {
        let limits = StreamLimits::new(1, 1);
        let _a = limits.admit(Some("a")).expect("a");
        for _ in 0..10 {
            assert!(limits.admit(Some("a")).is_err());
            assert!(limits.admit(Some("b")).is_err());
        }
        assert_eq!(limits.total(), 1);
        assert!(!limits.open().by_principal.contains_key("b"));
    }
}

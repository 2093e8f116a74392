//! Logs that repeat under attack (rejected Host or Origin, the connection
//! and stream caps) are written at most once a second, with a count of
//! the rest.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// At most one log line a second for a repeated event (rejected requests,
/// the connection limit), with how many were not logged meanwhile.
#[derive(Default)]
pub(super) struct LogLimiter {
    state: Mutex<(Option<Instant>, u64)>,
}

impl LogLimiter {
    /// `Some(suppressed)` when this occurrence may be logged.
    pub(super) fn allow(&self) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        match state.0 {
            Some(last) if now.duration_since(last) < Duration::from_secs(1) => {
                state.1 += 1;
                None
            }
            _ => {
                let suppressed = state.1;
                *state = (Some(now), 0);
                Some(suppressed)
            }
        }
    }
}

//! The in-flight slots: a counter and a wake-up, so taking and freeing a
//! slot costs two atomic operations unless the reader waits for one.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// At most `max` slots taken at once.
pub(super) struct Slots {
    taken: AtomicUsize,
    max: usize,
    freed: Notify,
}

/// A taken slot, freed when dropped.
pub(super) struct Slot(Arc<Slots>);

impl Slots {
    pub(super) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            taken: AtomicUsize::new(0),
            max: max.max(1),
            freed: Notify::new(),
        })
    }

    /// A slot, if one is free.
    pub(super) fn try_take(self: &Arc<Self>) -> Option<Slot> {
        self.taken
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |taken| {
                (taken < self.max).then_some(taken + 1)
            })
            .ok()
            .map(|_| Slot(Arc::clone(self)))
    }

    /// A slot, once one is free.
    pub(super) async fn take(self: &Arc<Self>) -> Slot {
        loop {
            let freed = self.freed.notified();
            let mut freed = std::pin::pin!(freed);
            // Registered before the check, so a slot freed in between wakes it.
            freed.as_mut().enable();
            if let Some(slot) = self.try_take() {
                return slot;
            }
            freed.await;
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let slots = &self.0;
        // Only a release from full can have someone waiting.
        if slots.taken.fetch_sub(1, Ordering::AcqRel) == slots.max {
            slots.freed.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_set_waits_until_a_slot_is_freed() {
        let slots = Slots::new(2);
        let first = slots.try_take().expect("a free slot");
        let _second = slots.take().await;
        assert!(slots.try_take().is_none(), "both slots are taken");
        let waiting = tokio::spawn({
            let slots = Arc::clone(&slots);
            async move { slots.take().await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "no slot is free yet");
        drop(first);
        let third = tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
            .await
            .expect("woken when a slot is freed")
            .expect("the task ran");
        assert!(slots.try_take().is_none(), "the freed slot was taken again");
        drop(third);
        assert!(slots.try_take().is_some());
    }
}

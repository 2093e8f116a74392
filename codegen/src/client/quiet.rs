//! `catch_unwind` without the panic message: the panic hook is process-wide,
//! so while any thread is inside [`catch_silently`] a wrapper hook stands in
//! for the previous one, stays silent for the threads inside and passes every
//! other thread's panic on; the last thread out puts the previous hook back.

use std::cell::Cell;
use std::panic::{self, PanicHookInfo, UnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static>;

thread_local! {
    /// Whether this thread is inside `catch_silently`.
    static SILENT: Cell<bool> = const { Cell::new(false) };
}

/// Threads inside, and the hook the wrapper replaced (while there are any).
static INSIDE: Mutex<(usize, Option<Arc<Hook>>)> = Mutex::new((0, None));

fn inside() -> MutexGuard<'static, (usize, Option<Arc<Hook>>)> {
    // A panic never happens while this is held; poison would be harmless.
    INSIDE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Leaves the silent section, also when `f` unwinds past `catch_unwind`'s
/// frame (it cannot, but the count must never leak).
struct Leave {
    was_silent: bool,
}

impl Drop for Leave {
    fn drop(&mut self) {
        SILENT.with(|s| s.set(self.was_silent));
        if self.was_silent {
            return;
        }
        let mut state = inside();
        state.0 -= 1;
        if state.0 == 0 {
            // Drop the wrapper first: then the previous hook has one owner.
            drop(panic::take_hook());
            if let Some(previous) = state.1.take() {
                match Arc::try_unwrap(previous) {
                    Ok(hook) => panic::set_hook(hook),
                    Err(shared) => panic::set_hook(Box::new(move |info| shared(info))),
                }
            }
        }
    }
}

/// `catch_unwind(f)`, with no panic message for a panic on this thread.
pub fn catch_silently<R>(f: impl FnOnce() -> R + UnwindSafe) -> std::thread::Result<R> {
    let was_silent = SILENT.with(|s| s.replace(true));
    if !was_silent {
        let mut state = inside();
        if state.0 == 0 {
            let previous: Arc<Hook> = Arc::new(panic::take_hook());
            state.1 = Some(Arc::clone(&previous));
            panic::set_hook(Box::new(move |info| {
                if !SILENT.with(Cell::get) {
                    previous(info);
                }
            }));
        }
        state.0 += 1;
    }
    let _leave = Leave { was_silent };
    panic::catch_unwind(f)
}

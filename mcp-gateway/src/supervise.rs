//! Keeping a backend up: started again, after a growing delay, whenever it
//! could not be started or a stdio backend exited (unless its restart
//! policy says never).

use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::oneshot;

use crate::backend::{BackendOptions, BackendSpec, Restart};
use crate::link::{Link, Shared};

/// The delay before the first restart; it doubles on each failure.
const FIRST_DELAY: Duration = Duration::from_millis(250);
/// The longest delay between two attempts.
const MAX_DELAY: Duration = Duration::from_secs(30);
/// A backend up this long has recovered: the next delay is the first again.
const RECOVERED_AFTER: Duration = Duration::from_secs(60);

/// Watches the link `shared` holds and (re)starts the backend `spec` names,
/// telling it the client capabilities `input`, whenever it is down (at once
/// when the link is `Connecting`), until `stop` resolves (its owner was
/// dropped); then the link lets the backend go. Only this task writes the
/// link, so no backend it connected outlives it.
pub(crate) async fn supervise(
    shared: Shared,
    spec: BackendSpec,
    options: BackendOptions,
    input: Value,
    stop: oneshot::Receiver<()>,
) {
    keep_up(&shared, &spec, &options, &input, stop).await;
    shared
        .link
        .send_replace(Link::Down("this backend session was stopped".into()));
}

async fn keep_up(
    shared: &Shared,
    spec: &BackendSpec,
    options: &BackendOptions,
    input: &Value,
    mut stop: oneshot::Receiver<()>,
) {
    let mut delay = FIRST_DELAY;
    let mut now = matches!(*shared.link.borrow(), Link::Connecting);
    // A session started for another capability set serves the lists the
    // front already declares: announcing them at its first start would only
    // make every client list them again. A restart, or a first backend
    // after none could be started, may change them.
    let mut announce = !now;
    let restart = options.restart == Restart::Always;
    loop {
        let link = shared.link.borrow().clone();
        if let Link::Up(connection) = link {
            let since = Instant::now();
            let why = tokio::select! {
                why = connection.backend.closed() => why,
                _ = &mut stop => return,
            };
            drop(connection);
            if since.elapsed() >= RECOVERED_AFTER {
                delay = FIRST_DELAY;
            }
            shared.notes.backend_lost();
            if !restart {
                tracing::warn!("backend {spec} is gone ({why}); its restart policy is never");
                shared.link.send_replace(Link::Down(
                    format!("it exited ({why}), and its restart policy is never").into(),
                ));
                let _ = stop.await;
                return;
            }
            tracing::warn!("backend {spec} is gone ({why}); starting it again in {delay:?}");
            shared.link.send_replace(Link::Down(
                format!("it exited ({why}) and is being restarted").into(),
            ));
        }
        if !std::mem::take(&mut now) {
            if !restart {
                // Down since its first start, which is not retried.
                let _ = stop.await;
                return;
            }
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                _ = &mut stop => return,
            }
            delay = (delay * 2).min(MAX_DELAY);
        }
        shared.link.send_replace(Link::Connecting);
        let attempt = tokio::select! {
            attempt = spec.connect_telling(options, input) => attempt,
            _ = &mut stop => return,
        };
        match attempt {
            Ok(backend) => {
                tracing::info!(?backend, "backend {spec} is up");
                shared.attach(backend).await;
                if std::mem::replace(&mut announce, true) {
                    shared.lists_may_have_changed();
                }
            }
            Err(e) => {
                tracing::warn!(
                    "backend {spec} could not be started ({e}); next attempt in {delay:?}"
                );
                shared
                    .link
                    .send_replace(Link::Down(format!("it could not be started: {e}").into()));
            }
        }
    }
}

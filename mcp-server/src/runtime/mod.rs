//! Layer 5, what both transports run beside the dispatcher: one client
//! connection (what each message is, the peer, the requests in flight and
//! their cancellation, the legacy session), and the forwarding of
//! server-wide events to a legacy session.

pub(crate) mod connection;
pub(crate) mod in_flight;
pub(crate) mod legacy_events;

//! Layer 5, what both transports run beside the dispatcher: the requests
//! in flight and their cancellation, and the forwarding of server-wide
//! events to a legacy session.

pub(crate) mod in_flight;
pub(crate) mod legacy_events;

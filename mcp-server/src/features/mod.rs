//! Layer 3, long-lived and extension methods served beside the router:
//! `subscriptions/listen` and the tasks extension (listen uses tasks).

pub(crate) mod listen;
pub mod tasks;

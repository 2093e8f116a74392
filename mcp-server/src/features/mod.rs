//! Layer 3, long-lived and extension methods served beside the router:
//! `subscriptions/listen`, the tasks extension (listen uses tasks) and the
//! skills extension.

pub(crate) mod listen;
pub mod skills;
pub mod tasks;

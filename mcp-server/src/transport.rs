//! What a transport needs to drive a server: the entry points that
//! answer one JSON-RPC message ([`handle_message`],
//! [`handle_message_shared`], [`handle_value`]) and their [`Outcome`],
//! the per-message context ([`MessageContext`], [`Transport`],
//! [`HttpHeaders`] and its [`HeaderText`], [`LegacySession`]), the server→client side
//! ([`ClientPeer`], [`Sink`], [`is_response`]) and the legacy bridge
//! ([`legacy_result`], [`honoured_filter`], [`legacy_notification`]).
//! The built-in [`stdio`](crate::stdio) and [`http`](crate::http)
//! transports are written against it; a server author needs none of it.

pub use crate::dispatch::{handle_message, handle_message_shared, handle_value};
pub use crate::era::legacy::legacy_result;
pub use crate::features::listen::{honoured_filter, legacy_notification};
pub use crate::model::context::{
    HeaderText, HttpHeaders, LegacySession, MessageContext, Transport,
};
pub use crate::model::outcome::Outcome;
pub use crate::model::peer::{ClientPeer, DEFAULT_CLIENT_REQUEST_TIMEOUT, Sink, is_response};
pub use crate::wire::errors::http_status_of;

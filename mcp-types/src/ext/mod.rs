//! Types of protocol extensions (SEP-2133) that no official schema covers yet.

pub mod skills;

//! Transports: bytes in and out. They know nothing of tools or methods; each hands complete
//! messages to the dispatcher and writes back what it answers.

#[cfg(feature = "http")]
pub mod http;
pub(crate) mod signals;
pub(crate) mod stderr_log;
pub(crate) mod stdio;

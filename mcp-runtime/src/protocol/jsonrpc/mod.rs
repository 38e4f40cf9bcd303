//! JSON-RPC 2.0 framing: one line in becomes a typed message or a typed error; one message out
//! becomes compact JSON with no embedded newline.
//!
//! Nothing here knows MCP methods or revisions: that is the dispatcher's business. The codec
//! only enforces what JSON-RPC (as MCP restricts it) says about envelopes: `"jsonrpc": "2.0"`,
//! ids that are strings or integers, `params` that are objects. It knows only the names of the
//! few members of `params` that `tools/call` reads, which [`Params`] keeps apart as it reads
//! them.

pub(crate) mod budget;
mod decode;
mod encode;
mod error;
mod id;
mod params;

#[cfg(feature = "fuzzing")]
pub(crate) use decode::decode;
pub(crate) use decode::{Incoming, InvalidMessage, Message, Notification, Request, decode_within};
pub(crate) use encode::Outgoing;
pub(crate) use error::ErrorObject;
pub use id::RequestId;
#[cfg(feature = "http")]
pub(crate) use id::RequestIds;
pub(crate) use params::{
    Arguments, CLIENT_CAPABILITIES, Declared, LOG_LEVEL, Name, PROTOCOL_VERSION, Params, Revision,
};

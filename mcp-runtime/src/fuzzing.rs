//! Entry points for the fuzz targets in `fuzz/` and for the tests that replay what they found:
//! the JSON-RPC decoder and the dispatcher, in process, without a transport.
//!
//! Compiled only with the `fuzzing` feature. Not an API: it may change in any release.

use crate::dispatch::session::Session;
use crate::dispatch::{Dispatcher, Reply};
use crate::handler::BoxFuture;
use crate::protocol::jsonrpc::{self, Incoming, InvalidMessage, Message, Outgoing};
use crate::server::Server;

/// What one line decodes to, reduced to what a fuzzer can check.
#[derive(Debug)]
pub enum Decoded {
    /// A request (it has an id).
    Request,
    /// A notification (no id).
    Notification,
    /// A response from the client.
    Response,
    /// A batch: for each element, `None` when it is a message, else the error answering it
    /// (itself `None` for a bad notification, which is never answered).
    Batch(Vec<Option<Option<Vec<u8>>>>),
    /// Not a message: the encoded error response, or `None` for a bad notification.
    Invalid(Option<Vec<u8>>),
}

/// Decode `line` (without its newline) as every transport does, encoding the error answer the
/// dispatcher would send for whatever is not a message.
pub fn decode(line: &[u8]) -> Decoded {
    match jsonrpc::decode(line) {
        Ok(Incoming::Single(message)) => kind(&message),
        Ok(Incoming::Batch(elements)) => Decoded::Batch(
            elements
                .into_iter()
                .map(|element| element.err().map(error_answer))
                .collect(),
        ),
        Err(invalid) => Decoded::Invalid(error_answer(invalid)),
    }
}

fn kind(message: &Message) -> Decoded {
    match message {
        Message::Request(_) => Decoded::Request,
        Message::Notification(_) => Decoded::Notification,
        Message::Response(_) => Decoded::Response,
    }
}

fn error_answer(invalid: InvalidMessage) -> Option<Vec<u8>> {
    (!invalid.is_notification).then(|| {
        Outgoing::error(invalid.id.as_ref(), &invalid.error)
            .as_bytes()
            .to_vec()
    })
}

/// The answer to one line: nothing, an encoded message now, or one once a call finishes
/// (`None` then when the call was cancelled).
pub enum Answer {
    /// Nothing to send.
    None,
    /// The encoded answer.
    Ready(Vec<u8>),
    /// The encoded answer once the call finishes.
    Pending(BoxFuture<'static, Option<Vec<u8>>>),
}

impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Answer::None => f.write_str("None"),
            Answer::Ready(bytes) => f
                .debug_tuple("Ready")
                .field(&String::from_utf8_lossy(bytes))
                .finish(),
            Answer::Pending(_) => f.write_str("Pending(..)"),
        }
    }
}

/// One client connection to a server, fed line by line.
pub struct Connection {
    dispatcher: Dispatcher,
    session: Session,
}

impl Connection {
    /// A fresh connection to `server`; an error when its definitions are (duplicate names,
    /// schemas that are not objects).
    pub fn new(server: &Server) -> Result<Self, String> {
        Ok(Connection {
            dispatcher: server.dispatcher().map_err(|error| error.to_string())?,
            session: Session::new(),
        })
    }

    /// Answer one line (without its newline). Pending calls run when the returned future is
    /// polled, on whatever tokio runtime polls it.
    pub fn handle(&mut self, line: &[u8]) -> Answer {
        match self.dispatcher.handle_bytes(line, &mut self.session) {
            Reply::None => Answer::None,
            Reply::Ready(answer) => Answer::Ready(answer.as_bytes().to_vec()),
            Reply::Pending(call) => Answer::Pending(Box::pin(async move {
                call.await.map(|answer| answer.as_bytes().to_vec())
            })),
        }
    }
}

/// A call of a tool with its `arguments` as the client's JSON `text`, the way the dispatcher
/// hands them to a tool that reads them so (`#[mcp_tool]`'s): `call.arguments` is empty and
/// each argument is read from the text. `None` when `text` is not JSON.
pub fn call_with_arguments_text(
    text: &str,
    mut context: crate::RequestContext,
) -> Option<crate::handler::ToolCall> {
    context.arguments_text = Some(serde_json::value::RawValue::from_string(text.to_owned()).ok()?);
    Some(crate::handler::ToolCall {
        arguments: crate::protocol::JsonObject::new(),
        context,
    })
}

//! What a legacy session sends to the stream of one request's POST (its questions to the
//! client, their withdrawal, its progress), on a [`queue`](super::queue) of its own: every POST
//! that takes events opens one, and nearly all of them carry nothing.

use super::queue;
use crate::protocol::jsonrpc::Outgoing;

/// What a request's route carries to its POST's stream.
#[derive(Debug)]
pub(crate) enum Routed {
    /// A message about the request (a question to the client, progress, a log message).
    Message(Outgoing),
    /// Its handler let go of the connection: end it once what came before has been read, and
    /// let the client resume the stream for the rest.
    Release,
}

/// Sends to one POST's stream; clones send into the same queue.
pub(crate) type RouteSender = queue::Sender<Routed>;

/// Reads what a POST's route carries.
pub(crate) type RouteReceiver = queue::Receiver<Routed>;

/// A route's queue.
pub(crate) fn channel() -> (RouteSender, RouteReceiver) {
    queue::channel()
}

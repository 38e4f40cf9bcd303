//! Bodies: the response body the service answers with (whole, or a server-sent event stream),
//! the framing of its events, and reading a request body within the size limit.

use std::convert::Infallible;
use std::future::poll_fn;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use http_body::{Frame, SizeHint};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::time::{self, Instant, Interval, MissedTickBehavior};

use super::resume::Reader;
use crate::protocol::jsonrpc::Outgoing;

/// The body of every response of the MCP HTTP service: empty, one JSON document, or a stream
/// of server-sent events that ends when the server has nothing more to send.
#[derive(Debug)]
pub struct ResponseBody {
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Whole(Option<Bytes>),
    /// Events, and a comment sent whenever none was for a while.
    Events(mpsc::Receiver<Bytes>, Interval),
    /// A legacy session's stream, read from its event log; with keep-alive comments too.
    Logged(Reader, Interval),
}

/// An event stream quiet for this long gets a comment, so that proxies and clients do not
/// take the idle connection for a dead one.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

impl ResponseBody {
    #[cfg(test)]
    pub(crate) fn empty() -> Self {
        ResponseBody {
            kind: Kind::Whole(None),
        }
    }

    pub(crate) fn whole(bytes: impl Into<Bytes>) -> Self {
        let bytes = bytes.into();
        ResponseBody {
            kind: Kind::Whole((!bytes.is_empty()).then_some(bytes)),
        }
    }

    /// Events as `events` yields them (each already framed by [`event`]). Must be made
    /// inside a tokio runtime (for the keep-alive timer).
    pub(crate) fn events(events: mpsc::Receiver<Bytes>) -> Self {
        ResponseBody {
            kind: Kind::Events(events, keep_alive()),
        }
    }

    /// The events `reader` reads from a session's event log. Must be made inside a tokio
    /// runtime.
    pub(crate) fn logged(reader: Reader) -> Self {
        ResponseBody {
            kind: Kind::Logged(reader, keep_alive()),
        }
    }
}

fn keep_alive() -> Interval {
    let mut keep_alive = time::interval_at(Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
    keep_alive.set_missed_tick_behavior(MissedTickBehavior::Delay);
    keep_alive
}

/// The next event as a frame; a keep-alive comment when none came for a while.
fn event_or_keep_alive(
    next: Poll<Option<Bytes>>,
    keep_alive: &mut Interval,
    cx: &mut Context<'_>,
) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
    if let Poll::Ready(event) = next {
        keep_alive.reset();
        return Poll::Ready(event.map(|bytes| Ok(Frame::data(bytes))));
    }
    match keep_alive.poll_tick(cx) {
        Poll::Ready(_) => Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
            b": keep-alive\n\n",
        ))))),
        Poll::Pending => Poll::Pending,
    }
}

impl http_body::Body for ResponseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.get_mut().kind {
            Kind::Whole(bytes) => Poll::Ready(bytes.take().map(|bytes| Ok(Frame::data(bytes)))),
            Kind::Events(events, keep_alive) => {
                event_or_keep_alive(events.poll_recv(cx), keep_alive, cx)
            }
            Kind::Logged(reader, keep_alive) => {
                event_or_keep_alive(reader.poll_next(cx), keep_alive, cx)
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.kind, Kind::Whole(None))
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Whole(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |bytes| bytes.len() as u64))
            }
            Kind::Events(..) | Kind::Logged(..) => SizeHint::default(),
        }
    }
}

/// One server-sent event carrying `message` (compact JSON never holds a newline, so one
/// `data:` line suffices).
pub(crate) fn event(message: &Outgoing) -> Bytes {
    event_with_id(None, message)
}

/// [`event`], with an `id` field when given (a resumable stream's events).
pub(crate) fn event_with_id(id: Option<&str>, message: &Outgoing) -> Bytes {
    let json = message.as_bytes();
    let id_len = id.map_or(0, |id| id.len() + 5);
    let mut bytes = Vec::with_capacity(json.len() + id_len + 24);
    if let Some(id) = id {
        bytes.extend_from_slice(b"id: ");
        bytes.extend_from_slice(id.as_bytes());
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(b"event: message\ndata: ");
    bytes.extend_from_slice(json);
    bytes.extend_from_slice(b"\n\n");
    bytes.into()
}

/// How long a 2025-11-25 client should wait before reconnecting a broken event stream (the
/// `retry` field of the priming event).
pub(crate) const RETRY_MILLIS: u64 = 1000;

/// The first event of a 2025-11-25 stream: an id and empty data (so the client has an id to
/// reconnect with), and how long to wait before reconnecting.
pub(crate) fn priming(id: &str) -> Bytes {
    format!("id: {id}\nretry: {RETRY_MILLIS}\ndata: \n\n").into()
}

/// Why a request body could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Longer than the limit.
    TooLarge,
    /// The bodies being read and handled already hold all the memory allowed for them.
    NoMemory,
    /// The connection failed mid-body.
    Failed(String),
}

/// The memory every request body in flight shares ([`HttpConfig::max_body_memory`]): each
/// body holds a share as large as its buffer until it has been handled.
///
/// [`HttpConfig::max_body_memory`]: super::HttpConfig::max_body_memory
#[derive(Debug)]
pub(crate) struct BodyMemory(Arc<Semaphore>);

/// A request body's bytes and the share of [`BodyMemory`] they hold, given back on drop.
#[derive(Debug)]
pub(crate) struct RequestBody {
    bytes: Vec<u8>,
    held: Option<OwnedSemaphorePermit>,
}

impl BodyMemory {
    pub(crate) fn new(bytes: usize) -> Self {
        BodyMemory(Arc::new(Semaphore::new(bytes.min(Semaphore::MAX_PERMITS))))
    }
}

impl RequestBody {
    fn empty() -> Self {
        RequestBody {
            bytes: Vec::new(),
            held: None,
        }
    }

    /// Make sure at least `total` bytes of `memory` are held; `false` when they cannot be.
    fn hold(&mut self, memory: &BodyMemory, total: usize) -> bool {
        let held = self.held.as_ref().map_or(0, |held| held.num_permits());
        let Some(more) = total.checked_sub(held).filter(|&more| more > 0) else {
            return true;
        };
        let Ok(more) = u32::try_from(more) else {
            return false;
        };
        match Arc::clone(&memory.0).try_acquire_many_owned(more) {
            Ok(permit) => {
                match &mut self.held {
                    Some(held) => held.merge(permit),
                    None => self.held = Some(permit),
                }
                true
            }
            Err(_) => false,
        }
    }
}

impl std::ops::Deref for RequestBody {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

/// The whole body, refusing one over `limit` bytes without reading the rest, and one whose
/// buffer does not fit in what is left of `memory`. `declared` is its `Content-Length`: a
/// body that declares more than fits is refused before a byte of it is read.
pub(crate) async fn read_limited<B>(
    body: B,
    limit: usize,
    declared: Option<u64>,
    memory: &BodyMemory,
) -> Result<RequestBody, ReadError>
where
    B: http_body::Body,
    B::Error: std::fmt::Display,
{
    let mut read = RequestBody::empty();
    if let Some(declared) = declared {
        let declared = usize::try_from(declared).map_err(|_| ReadError::TooLarge)?;
        if declared > limit {
            return Err(ReadError::TooLarge);
        }
        if !read.hold(memory, declared) {
            return Err(ReadError::NoMemory);
        }
        read.bytes.reserve_exact(declared);
    }
    let mut body = pin!(body);
    while let Some(frame) = poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let frame = frame.map_err(|error| ReadError::Failed(error.to_string()))?;
        let Ok(mut data) = frame.into_data() else {
            continue;
        };
        if read.bytes.len() + data.remaining() > limit {
            return Err(ReadError::TooLarge);
        }
        // What the buffer will hold once grown (it may double), not just what was read.
        let needed = read.bytes.len() + data.remaining();
        if needed > read.bytes.capacity() {
            let grown = needed.max(read.bytes.capacity() * 2).min(limit);
            if !read.hold(memory, grown) {
                return Err(ReadError::NoMemory);
            }
            read.bytes.reserve_exact(grown - read.bytes.len());
        }
        while data.has_remaining() {
            let chunk = data.chunk();
            read.bytes.extend_from_slice(chunk);
            let taken = chunk.len();
            data.advance(taken);
        }
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use http_body::Body as _;

    use super::*;
    use crate::protocol::jsonrpc::RequestId;

    #[test]
    fn an_event_is_one_data_line() {
        let message = Outgoing::result(&RequestId::Number(1.into()), &serde_json::json!({}));
        assert_eq!(
            &event(&message)[..],
            b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
        );
    }

    #[test]
    fn resumable_events_carry_their_id_and_streams_open_primed() {
        let message = Outgoing::result(&RequestId::Number(1.into()), &serde_json::json!({}));
        assert_eq!(
            &event_with_id(Some("t-3-1"), &message)[..],
            b"id: t-3-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
        );
        assert_eq!(&priming("t-0-0")[..], b"id: t-0-0\nretry: 1000\ndata: \n\n");
    }

    #[test]
    fn a_whole_body_knows_its_length() {
        assert_eq!(ResponseBody::whole("abc").size_hint().exact(), Some(3));
        assert!(ResponseBody::empty().is_end_stream());
    }

    #[tokio::test(start_paused = true)]
    async fn a_quiet_event_stream_sends_keep_alive_comments() {
        let (sender, receiver) = mpsc::channel(1);
        let mut body = pin!(ResponseBody::events(receiver));
        sender
            .send(Bytes::from_static(b"data: 1\n\n"))
            .await
            .unwrap();
        let first = poll_fn(|cx| body.as_mut().poll_frame(cx))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(first.into_data().unwrap(), "data: 1\n\n");
        let started = Instant::now();
        let quiet = poll_fn(|cx| body.as_mut().poll_frame(cx))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(quiet.into_data().unwrap(), ": keep-alive\n\n");
        assert!(started.elapsed() >= KEEP_ALIVE);
        drop(sender);
        assert!(poll_fn(|cx| body.as_mut().poll_frame(cx)).await.is_none());
    }

    #[tokio::test]
    async fn bodies_over_the_limit_are_refused() {
        let memory = BodyMemory::new(1 << 20);
        let body = ResponseBody::whole("0123456789");
        assert!(matches!(
            read_limited(body, 9, None, &memory).await,
            Err(ReadError::TooLarge)
        ));
        let body = ResponseBody::whole("0123456789");
        assert!(matches!(
            read_limited(body, 9, Some(10), &memory).await,
            Err(ReadError::TooLarge)
        ));
        let body = ResponseBody::whole("0123456789");
        let read = read_limited(body, 10, None, &memory).await.unwrap();
        assert_eq!(&*read, b"0123456789");
    }

    #[tokio::test]
    async fn bodies_in_flight_share_one_memory_budget() {
        let memory = BodyMemory::new(16);
        let read = |text: &'static str, declared: Option<u64>| {
            read_limited(ResponseBody::whole(text), 100, declared, &memory)
        };
        let first = read("0123456789", None).await.unwrap();
        assert!(matches!(
            read("0123456789", None).await,
            Err(ReadError::NoMemory)
        ));
        assert!(
            matches!(read("", Some(10)).await, Err(ReadError::NoMemory)),
            "refused by its declared length alone"
        );
        assert_eq!(&*read("012345", Some(6)).await.unwrap(), b"012345");
        drop(first);
        assert_eq!(
            &*read("0123456789", None).await.unwrap(),
            b"0123456789",
            "a handled body gives its memory back"
        );
    }
}

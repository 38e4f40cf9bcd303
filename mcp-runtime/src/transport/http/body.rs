//! Bodies: the response body the service answers with (whole, or a server-sent event stream),
//! the framing of its events, and reading a request body within the size limit.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::{Future, poll_fn};
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use http_body::{Frame, SizeHint};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::{self, Instant, Interval, MissedTickBehavior};

use super::resume::Reader;

/// The body of every response of the MCP HTTP service: empty, one JSON document, or a stream
/// of server-sent events that ends when the server has nothing more to send.
#[derive(Debug)]
pub struct ResponseBody {
    kind: Kind,
    /// An event stream's place in `mcp.server.active_streams`, while the body lives.
    #[cfg(feature = "otel")]
    counted: Option<Box<crate::middleware::trace::StreamSpan>>,
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
            #[cfg(feature = "otel")]
            counted: None,
        }
    }

    pub(crate) fn whole(bytes: impl Into<Bytes>) -> Self {
        let bytes = bytes.into();
        ResponseBody {
            kind: Kind::Whole((!bytes.is_empty()).then_some(bytes)),
            #[cfg(feature = "otel")]
            counted: None,
        }
    }

    /// Events as `events` yields them (each already framed by [`event`]). Must be made
    /// inside a tokio runtime (for the keep-alive timer).
    pub(crate) fn events(events: mpsc::Receiver<Bytes>) -> Self {
        ResponseBody {
            kind: Kind::Events(events, keep_alive()),
            #[cfg(feature = "otel")]
            counted: None,
        }
    }

    /// The events `reader` reads from a session's event log. Must be made inside a tokio
    /// runtime.
    pub(crate) fn logged(reader: Reader) -> Self {
        ResponseBody {
            kind: Kind::Logged(reader, keep_alive()),
            #[cfg(feature = "otel")]
            counted: None,
        }
    }
}

#[cfg(feature = "otel")]
impl ResponseBody {
    /// Whether the body is an event stream.
    pub(crate) fn is_stream(&self) -> bool {
        !matches!(self.kind, Kind::Whole(_))
    }

    /// Count the body among the open streams while it lives.
    pub(crate) fn count(&mut self, span: crate::middleware::trace::StreamSpan) {
        self.counted = Some(Box::new(span));
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

/// Why a request body could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Longer than the limit.
    TooLarge,
    /// The bodies being read and handled already hold all the memory allowed for them.
    NoMemory,
    /// The connection failed mid-body.
    Failed(String),
    /// The rest of a body that came in part did not arrive in time.
    TimedOut,
}

/// The memory the request bodies in flight share ([`HttpConfig::max_body_memory`]): each body
/// over [`SMALL_BODY`] holds a share as large as its buffer until it has been handled, and the
/// bodies from one address hold at most a quarter of it (or one body of the largest size).
///
/// Small bodies are not counted: the connection limits bound them, and so a client holding
/// the whole budget with large slow uploads cannot keep anyone's ordinary requests out.
///
/// [`HttpConfig::max_body_memory`]: super::HttpConfig::max_body_memory
#[derive(Debug)]
pub(crate) struct BodyMemory {
    max: usize,
    per_address: usize,
    held: Arc<Mutex<Held>>,
}

/// A body at most this large holds no share of [`BodyMemory`].
pub(crate) const SMALL_BODY: usize = 64 * 1024;

#[derive(Debug, Default)]
struct Held {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

/// What one body holds of [`BodyMemory`], given back on drop.
#[derive(Debug)]
struct Share {
    held: Arc<Mutex<Held>>,
    address: Option<IpAddr>,
    bytes: usize,
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut held = lock(&self.held);
        held.total -= self.bytes;
        if let Some(address) = self.address
            && let Some(by_address) = held.by_address.get_mut(&address)
        {
            *by_address -= self.bytes;
            if *by_address == 0 {
                held.by_address.remove(&address);
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section leaves its data consistent, even one cut short by a panic.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A request body's bytes and the share of [`BodyMemory`] they hold, given back on drop.
#[derive(Debug)]
pub(crate) struct RequestBody {
    bytes: Bytes,
    share: Option<Share>,
}

impl BodyMemory {
    /// `max` bytes for all bodies; a body may be `largest` bytes long.
    pub(crate) fn new(max: usize, largest: usize) -> Self {
        BodyMemory {
            max,
            per_address: (max / 4).max(largest),
            held: Arc::default(),
        }
    }
}

impl RequestBody {
    fn empty() -> Self {
        RequestBody {
            bytes: Bytes::new(),
            share: None,
        }
    }

    /// Make sure a buffer of `total` bytes is accounted for in `memory`, for a body from
    /// `address`; `false` when it does not fit.
    fn hold(&mut self, memory: &BodyMemory, total: usize, address: Option<IpAddr>) -> bool {
        if total <= SMALL_BODY {
            return true;
        }
        let share = self.share.get_or_insert_with(|| Share {
            held: Arc::clone(&memory.held),
            address,
            bytes: 0,
        });
        let Some(more) = total.checked_sub(share.bytes).filter(|&more| more > 0) else {
            return true;
        };
        let mut held = lock(&memory.held);
        let by_address = address.map_or(0, |address| {
            held.by_address.get(&address).copied().unwrap_or(0)
        });
        if held.total + more > memory.max || by_address + more > memory.per_address {
            return false;
        }
        held.total += more;
        if let Some(address) = address {
            *held.by_address.entry(address).or_default() += more;
        }
        share.bytes += more;
        true
    }
}

impl std::ops::Deref for RequestBody {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

/// The whole body, refusing one over `limit` bytes without reading the rest, and one whose
/// buffer does not fit in what is left of `memory` (for its `address`). `declared` is its `Content-Length`: a
/// body that declares more than fits is refused before a byte of it is read.
#[cfg(test)]
pub(crate) async fn read_limited<B>(
    body: B,
    limit: usize,
    declared: Option<u64>,
    memory: &BodyMemory,
    address: Option<IpAddr>,
) -> Result<RequestBody, ReadError>
where
    B: http_body::Body,
    B::Error: std::fmt::Display,
{
    let limits = BodyLimits {
        limit,
        memory,
        address,
    };
    let body = std::pin::pin!(body);
    limits
        .read_pinned(body, declared, Duration::from_secs(3600))
        .await
}

/// What a request body may take: at most `limit` bytes, and what fits of `memory` for a body
/// from `address`.
#[derive(Clone, Copy)]
pub(crate) struct BodyLimits<'m> {
    pub(crate) limit: usize,
    pub(crate) memory: &'m BodyMemory,
    pub(crate) address: Option<IpAddr>,
}

/// What reading a body without waiting found.
enum AtOnce {
    /// The whole body, or why it is refused.
    Whole(Result<RequestBody, ReadError>),
    /// Part of it (maybe none): the rest is still to come.
    Started(SoFar),
}

/// A body read in part.
struct SoFar {
    read: RequestBody,
    /// A body in one frame (nearly every one: it arrives with its headers) is kept as the
    /// frame's bytes, uncopied; a second frame starts `buffer`.
    first: Option<Bytes>,
    buffer: Vec<u8>,
}

impl<'m> BodyLimits<'m> {
    /// The whole of `body`, which declares `declared` bytes (its `Content-Length`): a body
    /// that declares more than fits is refused before a byte of it is read, and one that has
    /// not arrived whole within `timeout` of its first look is [`ReadError::TimedOut`].
    ///
    /// The body is pinned where its caller keeps it, and the future is a few words: a future
    /// is copied whole into the one that awaits it, and a request's future, which holds this
    /// one, is in memory the connection has not touched since its previous request. The
    /// limits are taken by value (a few words), so that the read is a future of its own.
    #[allow(clippy::manual_async_fn)]
    pub(crate) fn read_pinned<'a, B>(
        self,
        mut body: Pin<&'a mut B>,
        declared: Option<u64>,
        timeout: Duration,
    ) -> impl Future<Output = Result<RequestBody, ReadError>> + 'a
    where
        'm: 'a,
        B: http_body::Body,
        B::Error: std::fmt::Display,
    {
        // A block, not an `async fn`, which would keep its arguments twice.
        async move {
            // Boxed: a body that is not all there with its headers is rare, and the state of
            // its wait stays out of the future of every request that reads a body. Made before
            // it is awaited, so that what was read at once is not kept beside it.
            let rest =
                match poll_fn(|cx| Poll::Ready(self.read_at_once(body.as_mut(), cx, declared)))
                    .await
                {
                    AtOnce::Whole(read) => return read,
                    AtOnce::Started(so_far) => {
                        Box::pin(time::timeout(timeout, self.read_rest(body, so_far)))
                    }
                };
            rest.await.unwrap_or(Err(ReadError::TimedOut))
        }
    }

    /// Read what of `body` is already there, without waiting (`cx` is only handed to the
    /// body): nearly every body arrives with its headers, and is then read whole here, with
    /// nothing kept for a wait. A body that declares more than fits is refused before a byte of
    /// it is read.
    fn read_at_once<B>(
        &self,
        mut body: Pin<&mut B>,
        cx: &mut Context<'_>,
        declared: Option<u64>,
    ) -> AtOnce
    where
        B: http_body::Body,
        B::Error: std::fmt::Display,
    {
        let mut so_far = SoFar {
            read: RequestBody::empty(),
            first: None,
            buffer: Vec::new(),
        };
        if let Some(declared) = declared {
            let Some(declared) = usize::try_from(declared).ok().filter(|&d| d <= self.limit) else {
                return AtOnce::Whole(Err(ReadError::TooLarge));
            };
            if !so_far.read.hold(self.memory, declared, self.address) {
                return AtOnce::Whole(Err(ReadError::NoMemory));
            }
        }
        loop {
            match body.as_mut().poll_frame(cx) {
                Poll::Pending => return AtOnce::Started(so_far),
                Poll::Ready(None) => return AtOnce::Whole(Ok(so_far.finish())),
                Poll::Ready(Some(frame)) => {
                    if let Err(refused) = self.take(&mut so_far, frame) {
                        return AtOnce::Whole(Err(refused));
                    }
                    // Known without asking for more: the body has had all it declared.
                    if body.is_end_stream() {
                        return AtOnce::Whole(Ok(so_far.finish()));
                    }
                }
            }
        }
    }

    /// Read the rest of `body`, after what [`read_at_once`](Self::read_at_once) found.
    async fn read_rest<B>(
        &self,
        mut body: Pin<&mut B>,
        mut so_far: SoFar,
    ) -> Result<RequestBody, ReadError>
    where
        B: http_body::Body,
        B::Error: std::fmt::Display,
    {
        while !body.is_end_stream()
            && let Some(frame) = poll_fn(|cx| body.as_mut().poll_frame(cx)).await
        {
            self.take(&mut so_far, frame)?;
        }
        Ok(so_far.finish())
    }

    fn take<E: std::fmt::Display>(
        &self,
        so_far: &mut SoFar,
        frame: Result<Frame<impl Buf>, E>,
    ) -> Result<(), ReadError> {
        let frame = frame.map_err(|error| ReadError::Failed(error.to_string()))?;
        let Ok(mut data) = frame.into_data() else {
            return Ok(());
        };
        let SoFar {
            read,
            first,
            buffer,
        } = so_far;
        let needed = first.as_ref().map_or(buffer.len(), Bytes::len) + data.remaining();
        if needed > self.limit {
            return Err(ReadError::TooLarge);
        }
        if first.is_none() && buffer.is_empty() {
            if !read.hold(self.memory, needed, self.address) {
                return Err(ReadError::NoMemory);
            }
            *first = Some(data.copy_to_bytes(data.remaining()));
            return Ok(());
        }
        // What the buffer will hold once grown (it may double), not just what was read.
        if needed > buffer.capacity() {
            let grown = needed.max(buffer.capacity() * 2).min(self.limit);
            if !read.hold(self.memory, grown, self.address) {
                return Err(ReadError::NoMemory);
            }
            buffer.reserve_exact(grown - buffer.len());
        }
        if let Some(first) = first.take() {
            buffer.extend_from_slice(&first);
        }
        while data.has_remaining() {
            let chunk = data.chunk();
            buffer.extend_from_slice(chunk);
            let taken = chunk.len();
            data.advance(taken);
        }
        Ok(())
    }
}

impl SoFar {
    fn finish(self) -> RequestBody {
        let SoFar {
            mut read,
            first,
            buffer,
        } = self;
        read.bytes = first.unwrap_or_else(|| Bytes::from(buffer));
        read
    }
}

#[cfg(test)]
mod tests {
    use std::pin::pin;

    use http_body::Body as _;

    use super::*;

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
        let memory = BodyMemory::new(1 << 20, 1 << 20);
        let body = ResponseBody::whole("0123456789");
        assert!(matches!(
            read_limited(body, 9, None, &memory, None).await,
            Err(ReadError::TooLarge)
        ));
        let body = ResponseBody::whole("0123456789");
        assert!(matches!(
            read_limited(body, 9, Some(10), &memory, None).await,
            Err(ReadError::TooLarge)
        ));
        let body = ResponseBody::whole("0123456789");
        let read = read_limited(body, 10, None, &memory, None).await.unwrap();
        assert_eq!(&*read, b"0123456789");
    }

    /// A body in several frames, as a slow client's arrives.
    fn frames(parts: &[&'static [u8]]) -> Arriving {
        let parts: Vec<_> = parts.iter().copied().map(Some).collect();
        arriving(&parts, None)
    }

    #[tokio::test]
    async fn a_body_in_several_frames_is_read_whole_within_the_limit() {
        let memory = BodyMemory::new(1 << 20, 1 << 20);
        let read = read_limited(frames(&[b"ab", b"", b"cd", b"ef"]), 6, None, &memory, None);
        assert_eq!(&*read.await.unwrap(), b"abcdef");
        let read = read_limited(frames(&[b"abc", b"def", b"g"]), 6, None, &memory, None);
        assert!(matches!(read.await, Err(ReadError::TooLarge)));
        let read = read_limited(frames(&[b"", b"xyz"]), 6, Some(3), &memory, None);
        assert_eq!(&*read.await.unwrap(), b"xyz");

        // A large body in frames holds what its buffer grows to, and gives it back.
        const K: usize = 1024;
        let big = Box::leak(vec![b' '; 100 * K].into_boxed_slice());
        let memory = BodyMemory::new(400 * K, 300 * K);
        let read = read_limited(frames(&[big, big, big]), 300 * K, None, &memory, None);
        let body = read.await.unwrap();
        assert_eq!(body.len(), 300 * K);
        assert_eq!(lock(&memory.held).total, 300 * K);
        drop(body);
        assert_eq!(lock(&memory.held).total, 0);
    }

    /// A body whose frames come from `frames`, `None` being a wait for more; with `declared`
    /// bytes in all, it knows its end once it has given them (as hyper's bodies do).
    struct Arriving {
        frames: std::collections::VecDeque<Option<&'static [u8]>>,
        declared: Option<usize>,
        given: usize,
    }

    impl http_body::Body for Arriving {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            match self.frames.pop_front() {
                Some(Some(part)) => {
                    self.given += part.len();
                    Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(part)))))
                }
                // A wait: nothing wakes it, the test polls again.
                Some(None) => Poll::Pending,
                None if self.declared.is_some() => Poll::Pending,
                None => Poll::Ready(None),
            }
        }

        fn is_end_stream(&self) -> bool {
            self.declared == Some(self.given)
        }
    }

    fn arriving(frames: &[Option<&'static [u8]>], declared: Option<usize>) -> Arriving {
        Arriving {
            frames: frames.iter().copied().collect(),
            declared,
            given: 0,
        }
    }

    #[tokio::test]
    async fn a_body_all_there_is_read_at_once_and_one_still_arriving_is_read_on() {
        let memory = BodyMemory::new(1 << 20, 1 << 20);
        let limits = BodyLimits {
            limit: 8,
            memory: &memory,
            address: None,
        };
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let declared = |length: usize| Some(length as u64);

        // All there: read whole without a wait, its end known from its length (the body
        // would wait if asked for more).
        let mut body = pin!(arriving(&[Some(b"abc"), Some(b"de")], Some(5)));
        match limits.read_at_once(body.as_mut(), &mut cx, declared(5)) {
            AtOnce::Whole(Ok(read)) => assert_eq!(&*read, b"abcde"),
            _ => panic!("a body all there is read at once"),
        }
        // Declared over the limit: refused before a byte is read.
        let mut body = pin!(arriving(&[Some(b"abc")], Some(9)));
        assert!(matches!(
            limits.read_at_once(body.as_mut(), &mut cx, declared(9)),
            AtOnce::Whole(Err(ReadError::TooLarge))
        ));
        assert_eq!(body.given, 0);

        // Still arriving: what is there is kept, and the rest read on after the wait.
        let mut body = pin!(arriving(&[Some(b"ab"), None, Some(b"cd")], Some(4)));
        let AtOnce::Started(so_far) = limits.read_at_once(body.as_mut(), &mut cx, declared(4))
        else {
            panic!("the body is still arriving");
        };
        let read = limits.read_rest(body, so_far).await.unwrap();
        assert_eq!(&*read, b"abcd");
        // Over the limit on the way: refused.
        let mut body = pin!(arriving(&[Some(b"abcde"), None, Some(b"fghi")], None));
        let AtOnce::Started(so_far) = limits.read_at_once(body.as_mut(), &mut cx, None) else {
            panic!("the body is still arriving");
        };
        assert!(matches!(
            limits.read_rest(body, so_far).await,
            Err(ReadError::TooLarge)
        ));
    }

    #[tokio::test]
    async fn large_bodies_in_flight_share_one_memory_budget_a_quarter_per_address() {
        const K: usize = 1024;
        let memory = BodyMemory::new(1024 * K, 300 * K);
        let (one, other, third) = (
            Some(IpAddr::from([127, 0, 0, 1])),
            Some(IpAddr::from([127, 0, 0, 2])),
            Some(IpAddr::from([127, 0, 0, 3])),
        );
        let read = |size: usize, declared: bool, address: Option<IpAddr>| {
            let body = ResponseBody::whole(vec![b' '; size]);
            let declared = declared.then_some(size as u64);
            read_limited(body, 1024 * K, declared, &memory, address)
        };
        let first = read(300 * K, false, one).await.unwrap();
        assert!(
            matches!(read(200 * K, true, one).await, Err(ReadError::NoMemory)),
            "one address holds at most a quarter (or one largest body)"
        );
        let second = read(300 * K, true, other).await.unwrap();
        let third_body = read(300 * K, true, third).await.unwrap();
        assert!(
            matches!(read(200 * K, true, None).await, Err(ReadError::NoMemory)),
            "refused by its declared length alone: the budget is spent"
        );
        assert_eq!(
            read(SMALL_BODY, false, one).await.unwrap().len(),
            SMALL_BODY,
            "small bodies are never refused for memory"
        );
        drop((first, second, third_body));
        assert_eq!(
            read(300 * K, false, one).await.unwrap().len(),
            300 * K,
            "a handled body gives its memory back"
        );
        assert_eq!(lock(&memory.held).total, 0);
        assert!(lock(&memory.held).by_address.is_empty());
    }
}

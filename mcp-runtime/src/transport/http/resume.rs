//! The event streams of a legacy session, kept in one [`EventLog`] per session so that they can
//! be resumed.
//!
//! Every event stream of a session (its GET stream, and each POST answered with events) is a
//! stream of the log: what the server sends is logged, and a response body reads it through a
//! [`Reader`], which the log hands to one connection at a time. In a 2025-11-25 session every
//! event has an id (`{tag}-{stream}-{event}`: the session's random tag, then numbers unique in
//! the session), and each stream opens with a priming event, so that:
//!
//! * a client whose connection broke comes back with `GET` and `Last-Event-ID`
//!   ([`EventLog::resume`]): the events of that stream after that id are replayed, then the
//!   stream goes on on the new connection (for a POST's stream: until its response);
//! * a stream nobody reads keeps what is sent to it, for [`UNREAD_RETENTION`], and its call keeps
//!   running meanwhile (a disconnection is not a cancellation);
//! * the server may end a connection itself while the call runs ([`RequestStream::release`]),
//!   and the client polls for the rest the same way.
//!
//! With a [`SessionStore`](crate::store::SessionStore), every event of a resumable stream is
//! also written through to the store as it is logged (in order, off the request path: see
//! [`Mirror`]), so that another instance can replay a stream of a session whose instance died.
//!
//! Earlier revisions' events have no ids, so nothing can be resumed: the log only queues what
//! the connection has not read yet, and a stream whose connection is gone is dropped at once (its
//! call is then cancelled, as it always was).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;

use crate::protocol::jsonrpc::Outgoing;
use crate::store::StoredEvent;

/// Where a log writes its events through to: a session store's writer (see
/// [`super::shared`]), started with the first event, so that a session that never sends one
/// holds no writer task and no channel (some 5 KiB).
pub(crate) struct Mirror {
    writer: OnceLock<mpsc::UnboundedSender<StoredEvent>>,
    start: Box<dyn Fn() -> mpsc::UnboundedSender<StoredEvent> + Send + Sync>,
}

impl Mirror {
    /// A mirror that calls `start` for its writer when the first event comes.
    pub(crate) fn starting_with(
        start: impl Fn() -> mpsc::UnboundedSender<StoredEvent> + Send + Sync + 'static,
    ) -> Self {
        Mirror {
            writer: OnceLock::new(),
            start: Box::new(start),
        }
    }

    /// Refused only once the session's writer is gone (the session ended).
    fn send(&self, event: StoredEvent) {
        let _ = self.writer.get_or_init(&self.start).send(event);
    }
}

impl std::fmt::Debug for Mirror {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mirror")
            .field("started", &self.writer.get().is_some())
            .finish()
    }
}

/// At most this many events (results aside) are kept per session, across its streams; older
/// ones are dropped first. A resuming client needs the events of about one `retry` interval
/// (a second), and an open stream only the few its connection has not taken yet: 256 covers
/// a call reporting progress every few milliseconds, as the GET stream's queue always did.
pub(super) const MAX_RETAINED_EVENTS: usize = 256;

/// At most this many bytes of events (results aside) are kept per session: with the default
/// 10 000 sessions, 2.5 GiB at the very worst, and in practice a few kilobytes each (progress
/// and log notifications are small).
pub(super) const MAX_RETAINED_BYTES: usize = 256 * 1024;

/// How long a stream nobody reads is kept (and its call left running). Clients reconnect after
/// the priming event's `retry` (1 s) and back off to some 30 s; two minutes covers a few attempts
/// and a short network outage, and bounds how long a call whose client never comes back runs.
///
/// Results are never dropped for the bounds above (that would lose the call's outcome): they
/// go when delivered, when this period passes unread, or with the session.
pub(crate) const UNREAD_RETENTION: Duration = Duration::from_secs(120);

/// The event streams of one legacy session.
pub(crate) struct EventLog {
    state: Mutex<State>,
    /// Starts every event id, so that an id of another session is told apart.
    tag: String,
    /// Whether events have ids and streams may be resumed (2025-11-25 sessions).
    resumable: bool,
    /// Where every event of a resumable stream is written through to, if anywhere.
    mirror: Option<Mirror>,
}

#[derive(Default)]
struct State {
    streams: HashMap<u64, Stream>,
    /// The session's GET stream, if it has one.
    standalone: Option<u64>,
    next_stream: u64,
    /// Events are numbered across the session's streams.
    next_event: u64,
    /// Events kept (results aside), and their bytes, against the bounds.
    retained_events: usize,
    retained_bytes: usize,
    /// The session ended: no more streams.
    closed: bool,
}

/// One stream: its events not yet known to be seen, and its reader.
struct Stream {
    events: VecDeque<Event>,
    /// The newest of its events dropped for the bounds: resuming before it would skip events.
    evicted_through: Option<u64>,
    /// Its last event (a POST's response) is logged; it ends once read.
    finished: bool,
    /// Which reader is the current one (each resumption makes a new one).
    generation: u64,
    /// Whether the current reader is still attached.
    reading: bool,
    /// The newest event the current reader has taken.
    read_through: Option<u64>,
    waker: Option<Waker>,
    /// The reader stops before this event (the connection is released).
    cut: Option<u64>,
    /// Since when nobody reads it.
    unread_since: Option<Instant>,
    /// Tells the stream's call that a reader came or went, or that the stream is gone.
    changed: Arc<Notify>,
    /// The id (JSON text) of the request whose POST the stream answers; `None` for the GET
    /// stream.
    request: Option<String>,
}

struct Event {
    number: u64,
    bytes: Bytes,
    /// A response: never dropped for the bounds.
    result: bool,
}

/// Why a `Last-Event-ID` cannot be resumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotResumable {
    /// The session's events have no ids (revisions before 2025-11-25).
    NoIds,
    /// Not an id this session gave (another session's, or made up).
    Foreign,
    /// A stream the session no longer keeps (delivered, unread too long, replaced).
    UnknownStream,
    /// Some of that stream's events after the id were dropped for the log's bounds.
    Expired,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // Every critical section leaves the log consistent, even one cut short by a panic.
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// 8 random hex digits: enough to tell sessions apart, not a secret (the session id is);
/// never one of `taken` (the tags the session's earlier logs used, on other instances), so
/// that event ids stay unique across a session's instances.
pub(crate) fn new_tag(taken: &[String]) -> String {
    loop {
        let mut id = crate::random::id();
        id.truncate(8);
        if !taken.contains(&id) {
            return id;
        }
    }
}

impl Stream {
    fn new(changed: Arc<Notify>, request: Option<String>) -> Self {
        Stream {
            request,
            events: VecDeque::new(),
            evicted_through: None,
            finished: false,
            generation: 0,
            reading: true,
            read_through: None,
            waker: None,
            cut: None,
            unread_since: None,
            changed,
        }
    }

    fn wake(&mut self) {
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
    }
}

impl State {
    /// Stop counting `event` against the bounds (it is no longer kept).
    fn forget(&mut self, event: &Event) {
        if !event.result {
            self.retained_events -= 1;
            self.retained_bytes -= event.bytes.len();
        }
    }

    fn remove(&mut self, number: u64) {
        let Some(mut stream) = self.streams.remove(&number) else {
            return;
        };
        for event in &stream.events {
            self.forget(event);
        }
        stream.wake();
        stream.changed.notify_waiters();
        if self.standalone == Some(number) {
            self.standalone = None;
        }
    }

    /// Drop the streams nobody has read for [`UNREAD_RETENTION`].
    fn prune(&mut self, now: Instant) {
        let stale: Vec<u64> = self
            .streams
            .iter()
            .filter(|(_, stream)| {
                stream
                    .unread_since
                    .is_some_and(|since| since + UNREAD_RETENTION <= now)
            })
            .map(|(&number, _)| number)
            .collect();
        for number in stale {
            tracing::debug!("an event stream was not resumed in time; dropped");
            self.remove(number);
        }
    }

    /// Drop the oldest events (results aside) until the log is within its bounds, keeping the
    /// newest event, `keep`. Those a connection still reading its stream has taken go first:
    /// they have most likely arrived, where the others surely have not.
    fn evict(&mut self, keep: u64) {
        while self.retained_events > MAX_RETAINED_EVENTS || self.retained_bytes > MAX_RETAINED_BYTES
        {
            let oldest = |taken_only: bool| {
                self.streams
                    .iter()
                    .filter_map(|(&number, stream)| {
                        let front = stream.events.front()?;
                        let taken = stream.reading
                            && stream.read_through.is_some_and(|read| front.number <= read);
                        (!front.result && front.number != keep && (taken || !taken_only))
                            .then_some((front.number, number))
                    })
                    .min()
            };
            let Some((_, number)) = oldest(true).or_else(|| oldest(false)) else {
                break;
            };
            let Some(stream) = self.streams.get_mut(&number) else {
                break;
            };
            let Some(event) = stream.events.pop_front() else {
                break;
            };
            stream.evicted_through = Some(event.number);
            self.forget(&event);
        }
    }

    /// The reader of `generation` left `number` (went away, or was released).
    fn detach(&mut self, number: u64, generation: u64, resumable: bool) {
        let Some(stream) = self.streams.get_mut(&number) else {
            return;
        };
        if stream.generation != generation || !stream.reading {
            return;
        }
        if !resumable {
            // Nobody can come back for what it had not read.
            self.remove(number);
            return;
        }
        stream.reading = false;
        stream.waker = None;
        stream.cut = None;
        stream.unread_since = Some(Instant::now());
        stream.changed.notify_waiters();
    }
}

impl EventLog {
    /// The log of a new session; `resumable` for 2025-11-25 sessions.
    #[cfg(test)]
    pub(crate) fn new(resumable: bool) -> Arc<Self> {
        Self::mirrored(resumable, new_tag(&[]), None)
    }

    /// The log of a session whose event ids start with `tag`, writing every event of its
    /// resumable streams through to `mirror`.
    pub(crate) fn mirrored(resumable: bool, tag: String, mirror: Option<Mirror>) -> Arc<Self> {
        Arc::new(EventLog {
            state: Mutex::default(),
            tag,
            resumable,
            mirror: mirror.filter(|_| resumable),
        })
    }

    fn id(&self, stream: u64, event: u64) -> String {
        format!("{}-{stream}-{event}", self.tag)
    }

    /// The stream and event an id of this session names.
    fn parse(&self, id: &str) -> Option<(u64, u64)> {
        let numbers = id.strip_prefix(self.tag.as_str())?.strip_prefix('-')?;
        let (stream, event) = numbers.split_once('-')?;
        Some((stream.parse().ok()?, event.parse().ok()?))
    }

    /// Log `message` (`None`: the priming event, only in resumable streams) on `number`;
    /// `false` when there is no such stream any more.
    fn push(
        &self,
        state: &mut State,
        number: u64,
        message: Option<&Outgoing>,
        result: bool,
    ) -> bool {
        if !state.streams.contains_key(&number) {
            return false;
        }
        let id = self.resumable.then(|| self.id(number, state.next_event));
        let bytes = match (message, &id) {
            (Some(message), id) => super::event::event_with_id(id.as_deref(), message),
            (None, Some(id)) => super::event::priming(id),
            (None, None) => return true,
        };
        let event = state.next_event;
        state.next_event += 1;
        let size = bytes.len();
        if let (Some(mirror), Some(stream)) = (&self.mirror, state.streams.get(&number)) {
            mirror.send(StoredEvent {
                stream: format!("{}-{number}", self.tag),
                number: event,
                frame: String::from_utf8_lossy(&bytes).into_owned(),
                request: stream.request.clone(),
                response: result,
                missed_through: None,
            });
        }
        if let Some(stream) = state.streams.get_mut(&number) {
            stream.events.push_back(Event {
                number: event,
                bytes,
                result,
            });
            stream.wake();
        }
        if !result {
            state.retained_events += 1;
            state.retained_bytes += size;
            state.evict(event);
        }
        true
    }

    /// A new stream, read by the returned reader; primed when resumable. A closed session's
    /// stream ends at once.
    fn open(self: &Arc<Self>, state: &mut State, request: Option<String>) -> Reader {
        let number = state.next_stream;
        state.next_stream += 1;
        if !state.closed {
            state
                .streams
                .insert(number, Stream::new(Arc::new(Notify::new()), request));
            self.push(state, number, None, false);
        }
        Reader {
            log: Arc::clone(self),
            stream: number,
            generation: 0,
            cursor: 0,
            done: false,
            replayed: VecDeque::new(),
        }
    }

    /// Open the session's GET stream: `None` while a connection reads it. One that nobody reads
    /// (the client went away, or opened it anew rather than resume it) is replaced.
    pub(crate) fn open_standalone(self: &Arc<Self>) -> Option<Reader> {
        let mut state = lock(&self.state);
        state.prune(Instant::now());
        if let Some(current) = state.standalone {
            if state
                .streams
                .get(&current)
                .is_some_and(|stream| stream.reading)
            {
                return None;
            }
            state.remove(current);
        }
        let reader = self.open(&mut state, None);
        if !state.closed {
            state.standalone = Some(reader.stream);
        }
        Some(reader)
    }

    /// Send `message` on the GET stream; `false` when the session has none.
    pub(crate) fn push_standalone(&self, message: &Outgoing) -> bool {
        let mut state = lock(&self.state);
        state.prune(Instant::now());
        match state.standalone {
            Some(number) => self.push(&mut state, number, Some(message), false),
            None => false,
        }
    }

    /// A stream for a POST's call (`request`: its id, as JSON text): where its messages go,
    /// and the reader of its response.
    pub(crate) fn open_request(
        self: &Arc<Self>,
        request: Option<String>,
    ) -> (RequestStream, Reader) {
        let mut state = lock(&self.state);
        state.prune(Instant::now());
        let reader = self.open(&mut state, request);
        let changed = state
            .streams
            .get(&reader.stream)
            .map(|stream| Arc::clone(&stream.changed));
        let stream = RequestStream {
            log: Arc::clone(self),
            stream: reader.stream,
            changed: changed.unwrap_or_default(),
        };
        (stream, reader)
    }

    /// A reader of the stream `last_event_id` belongs to, from the event after it; the reader
    /// it replaces (a connection that broke without the server noticing) ends.
    pub(crate) fn resume(self: &Arc<Self>, last_event_id: &str) -> Result<Reader, NotResumable> {
        if !self.resumable {
            return Err(NotResumable::NoIds);
        }
        let (number, last) = self.parse(last_event_id).ok_or(NotResumable::Foreign)?;
        let mut state = lock(&self.state);
        state.prune(Instant::now());
        if last >= state.next_event || number >= state.next_stream {
            return Err(NotResumable::Foreign);
        }
        let stream = state
            .streams
            .get_mut(&number)
            .ok_or(NotResumable::UnknownStream)?;
        if stream.evicted_through.is_some_and(|through| through > last) {
            return Err(NotResumable::Expired);
        }
        // The client has seen everything up to `last`: nobody will ask for it again.
        let mut seen = Vec::new();
        while stream
            .events
            .front()
            .is_some_and(|event| event.number <= last)
        {
            seen.extend(stream.events.pop_front());
        }
        stream.generation += 1;
        stream.reading = true;
        stream.read_through = None;
        stream.cut = None;
        stream.unread_since = None;
        stream.wake();
        stream.changed.notify_waiters();
        let generation = stream.generation;
        for event in &seen {
            state.forget(event);
        }
        Ok(Reader {
            log: Arc::clone(self),
            stream: number,
            generation,
            cursor: last + 1,
            done: false,
            replayed: VecDeque::new(),
        })
    }

    /// Whether a connection reads one of the session's streams (so the session is in use).
    pub(crate) fn has_reader(&self) -> bool {
        let mut state = lock(&self.state);
        state.prune(Instant::now());
        state.streams.values().any(|stream| stream.reading)
    }

    /// End the GET stream (at shutdown) once its connection has read what is logged.
    pub(crate) fn end_standalone(&self) {
        let mut state = lock(&self.state);
        if let Some(number) = state.standalone.take()
            && let Some(stream) = state.streams.get_mut(&number)
        {
            stream.finished = true;
            stream.wake();
        }
    }

    /// The session ended: every stream ends, nothing more is kept.
    pub(crate) fn close(&self) {
        let mut state = lock(&self.state);
        state.closed = true;
        let all: Vec<u64> = state.streams.keys().copied().collect();
        for number in all {
            state.remove(number);
        }
    }
}

/// The connection reading one stream of a log: the body of its response.
pub(crate) struct Reader {
    log: Arc<EventLog>,
    stream: u64,
    generation: u64,
    /// The first event number it has not read.
    cursor: u64,
    done: bool,
    /// Events of another instance's stream to send first (see [`Reader::after_replay`]).
    replayed: VecDeque<Bytes>,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("stream", &self.stream)
            .field("cursor", &self.cursor)
            .finish_non_exhaustive()
    }
}

impl Reader {
    /// The same reader, sending `frames` first: the events a stream of this session had on
    /// another instance after the client's `Last-Event-ID`, replayed from the store, before
    /// the stream goes on here.
    pub(crate) fn after_replay(mut self, frames: Vec<Bytes>) -> Self {
        self.replayed = frames.into();
        self
    }

    /// The next event to send; `None` once the stream ended for this connection: delivered to
    /// the end, released, replaced by a resumption, or dropped with the session.
    pub(crate) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        if let Some(frame) = self.replayed.pop_front() {
            return Poll::Ready(Some(frame));
        }
        if self.done {
            return Poll::Ready(None);
        }
        let log = Arc::clone(&self.log);
        let mut state = lock(&log.state);
        let Some(stream) = state.streams.get_mut(&self.stream) else {
            self.done = true;
            return Poll::Ready(None);
        };
        if stream.generation != self.generation {
            self.done = true;
            return Poll::Ready(None);
        }
        let position = stream
            .events
            .partition_point(|event| event.number < self.cursor);
        if let Some(event) = stream.events.get(position)
            && stream.cut.is_none_or(|cut| event.number < cut)
        {
            if stream
                .evicted_through
                .is_some_and(|through| through >= self.cursor)
            {
                tracing::debug!("a connection fell behind its event stream; events were dropped");
            }
            self.cursor = event.number + 1;
            stream.read_through = Some(event.number);
            let bytes = event.bytes.clone();
            if !log.resumable
                && let Some(read) = stream.events.remove(position)
            {
                // Nobody can ask for it again.
                state.forget(&read);
            }
            return Poll::Ready(Some(bytes));
        }
        let remaining = position < stream.events.len();
        if stream.finished && !remaining {
            // Delivered to the end on a connection that stayed to take it all.
            self.done = true;
            state.remove(self.stream);
            return Poll::Ready(None);
        }
        if stream.cut.is_some() {
            self.done = true;
            state.detach(self.stream, self.generation, log.resumable);
            return Poll::Ready(None);
        }
        stream.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        if !self.done {
            lock(&self.log.state).detach(self.stream, self.generation, self.log.resumable);
        }
    }
}

/// The stream of one POST's call, for the task that sends the call's messages on it.
pub(crate) struct RequestStream {
    log: Arc<EventLog>,
    stream: u64,
    changed: Arc<Notify>,
}

impl RequestStream {
    /// Send `message` (a notification or question about the call).
    pub(crate) fn push(&self, message: &Outgoing) {
        let mut state = lock(&self.log.state);
        self.log.push(&mut state, self.stream, Some(message), false);
    }

    /// Send the call's response (`None`: it has none, being cancelled): the stream ends with it.
    pub(crate) fn finish(&self, response: Option<&Outgoing>) {
        let mut state = lock(&self.log.state);
        if let Some(response) = response {
            self.log.push(&mut state, self.stream, Some(response), true);
        }
        if let Some(stream) = state.streams.get_mut(&self.stream) {
            stream.finished = true;
            stream.wake();
        }
    }

    /// End the connection reading the stream once it has read what is sent so far; the client
    /// resumes it for the rest. Only resumable streams are released (others would lose the
    /// rest).
    pub(crate) fn release(&self) {
        if !self.log.resumable {
            return;
        }
        let mut state = lock(&self.log.state);
        let cut = state.next_event;
        if let Some(stream) = state.streams.get_mut(&self.stream)
            && stream.reading
        {
            stream.cut = Some(cut);
            stream.wake();
        }
    }

    /// Resolves once nobody will read the stream any more: it went with the session, its
    /// connection went away and it cannot be resumed, or nobody resumed it for
    /// [`UNREAD_RETENTION`].
    pub(crate) async fn abandoned(&self) {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            // Registered before looking, so a change in between is not missed.
            notified.as_mut().enable();
            let deadline = {
                let mut state = lock(&self.log.state);
                state.prune(Instant::now());
                match state.streams.get(&self.stream) {
                    None => return,
                    Some(stream) => stream.unread_since.map(|since| since + UNREAD_RETENTION),
                }
            };
            match deadline {
                Some(deadline) => tokio::select! {
                    () = &mut notified => {}
                    () = tokio::time::sleep_until(deadline) => {}
                },
                None => notified.await,
            }
        }
    }
}

//! The event log of legacy sessions: ids, replay after `Last-Event-ID`, released connections,
//! bounds and retention, and streams without ids.

use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use serde_json::json;

use super::resume::{
    EventLog, MAX_RETAINED_BYTES, MAX_RETAINED_EVENTS, Mirror, NotResumable, Reader,
    UNREAD_RETENTION,
};
use crate::protocol::jsonrpc::{Outgoing, RequestId};

/// What the reader has to send right now.
fn now(reader: &mut Reader) -> Poll<Option<Bytes>> {
    reader.poll_next(&mut Context::from_waker(Waker::noop()))
}

/// The next event, which must be there.
fn next(reader: &mut Reader) -> String {
    match now(reader) {
        Poll::Ready(Some(bytes)) => String::from_utf8(bytes.to_vec()).unwrap(),
        other => panic!("no event ready: {other:?}"),
    }
}

/// Everything ready, until the reader would wait or ends.
fn drain(reader: &mut Reader) -> Vec<String> {
    let mut all = Vec::new();
    while let Poll::Ready(Some(bytes)) = now(reader) {
        all.push(String::from_utf8(bytes.to_vec()).unwrap());
    }
    all
}

fn id(event: &str) -> &str {
    event
        .strip_prefix("id: ")
        .and_then(|rest| rest.split('\n').next())
        .unwrap_or_else(|| panic!("no id: {event:?}"))
}

fn note(n: u64) -> Outgoing {
    Outgoing::notification("notifications/message", Some(&json!({"n": n})))
}

fn has(event: &str, n: u64) -> bool {
    event.contains(&format!("{{\"n\":{n}}}"))
}

fn result() -> Outgoing {
    Outgoing::result(&RequestId::Number(1.into()), &json!({"done": true}))
}

#[test]
fn a_resumable_stream_opens_primed_and_numbers_its_events_with_the_session_tag() {
    let log = EventLog::new(true);
    let mut reader = log.open_standalone().unwrap();
    assert!(log.open_standalone().is_none(), "one connection at a time");
    let priming = next(&mut reader);
    assert!(
        priming.ends_with("\nretry: 1000\ndata: \n\n"),
        "{priming:?}"
    );
    assert!(log.push_standalone(&note(1)));
    let event = next(&mut reader);
    assert!(has(&event, 1), "{event:?}");
    let (tag, numbers) = id(&event).split_once('-').unwrap();
    assert_eq!(tag.len(), 8);
    assert_eq!(id(&priming), format!("{tag}-0-0"));
    assert_eq!(numbers, "0-1");
    assert!(now(&mut reader).is_pending());
    assert!(log.has_reader());
}

#[test]
fn resuming_replays_what_followed_the_id_then_goes_on() {
    let log = EventLog::new(true);
    let mut first = log.open_standalone().unwrap();
    for n in 1..=3 {
        log.push_standalone(&note(n));
    }
    let seen = drain(&mut first);
    assert_eq!(seen.len(), 4);
    // The connection broke after the second notification reached the client.
    drop(first);
    assert!(!log.has_reader());
    log.push_standalone(&note(4));
    let mut resumed = log.resume(id(&seen[2])).unwrap();
    let replayed = drain(&mut resumed);
    assert_eq!(replayed.len(), 2, "{replayed:?}");
    assert!(has(&replayed[0], 3) && has(&replayed[1], 4));
    log.push_standalone(&note(5));
    assert!(has(&next(&mut resumed), 5), "then live");
    // The resumed stream is the session's GET stream: no second one beside it.
    assert!(log.open_standalone().is_none());
}

#[test]
fn a_resumption_replaces_a_connection_the_server_still_thought_open() {
    let log = EventLog::new(true);
    let mut stale = log.open_standalone().unwrap();
    let priming = next(&mut stale);
    log.push_standalone(&note(1));
    let mut resumed = log.resume(id(&priming)).unwrap();
    assert_eq!(now(&mut stale), Poll::Ready(None));
    assert!(has(&next(&mut resumed), 1));
}

#[test]
fn a_released_request_stream_ends_after_what_was_sent_and_resumes_to_its_result() {
    let log = EventLog::new(true);
    let (stream, mut post) = log.open_request(None);
    stream.push(&note(1));
    stream.release();
    let sent = drain(&mut post);
    assert_eq!(sent.len(), 2, "the priming event and the note: {sent:?}");
    assert_eq!(now(&mut post), Poll::Ready(None), "the connection ends");
    stream.push(&note(2));
    stream.finish(Some(&result()));
    let mut get = log.resume(id(&sent[1])).unwrap();
    let rest = drain(&mut get);
    assert_eq!(rest.len(), 2, "{rest:?}");
    assert!(has(&rest[0], 2));
    assert!(rest[1].contains("\"done\":true"));
    assert_eq!(
        now(&mut get),
        Poll::Ready(None),
        "the result ends the stream"
    );
    assert_eq!(
        log.resume(id(&rest[1])).err(),
        Some(NotResumable::UnknownStream),
        "delivered, the stream is forgotten"
    );
}

#[test]
fn a_release_after_resuming_ends_that_connection_too() {
    let log = EventLog::new(true);
    let (stream, mut post) = log.open_request(None);
    stream.release();
    let priming = next(&mut post);
    assert_eq!(now(&mut post), Poll::Ready(None));
    let mut get = log.resume(id(&priming)).unwrap();
    stream.push(&note(1));
    stream.release();
    let polled = next(&mut get);
    assert_eq!(now(&mut get), Poll::Ready(None));
    stream.finish(Some(&result()));
    let mut again = log.resume(id(&polled)).unwrap();
    assert!(next(&mut again).contains("\"done\":true"));
}

#[test]
fn ids_that_cannot_be_resumed_say_why() {
    let log = EventLog::new(true);
    let other = EventLog::new(true);
    let mut theirs = other.open_standalone().unwrap();
    let foreign = next(&mut theirs);
    assert_eq!(log.resume(id(&foreign)).err(), Some(NotResumable::Foreign));
    assert_eq!(log.resume("garbage").err(), Some(NotResumable::Foreign));
    let mut ours = log.open_standalone().unwrap();
    let priming = next(&mut ours);
    let future = format!("{}-0-99", id(&priming).split('-').next().unwrap());
    assert_eq!(log.resume(&future).err(), Some(NotResumable::Foreign));
    assert_eq!(
        EventLog::new(false).resume(id(&priming)).err(),
        Some(NotResumable::NoIds)
    );
    // Nobody reads while more is sent than the log keeps: the oldest events go.
    drop(ours);
    for n in 0..MAX_RETAINED_EVENTS as u64 + 5 {
        log.push_standalone(&note(n));
    }
    assert_eq!(log.resume(id(&priming)).err(), Some(NotResumable::Expired));
}

#[test]
fn the_bounds_drop_the_oldest_events_but_never_a_result() {
    let log = EventLog::new(true);
    let (stream, mut post) = log.open_request(None);
    stream.release();
    let priming = next(&mut post);
    assert_eq!(now(&mut post), Poll::Ready(None));
    stream.finish(Some(&result()));
    let mut get = log.open_standalone().unwrap();
    let big = Outgoing::notification(
        "notifications/message",
        Some(&json!({"data": "x".repeat(MAX_RETAINED_BYTES / 4)})),
    );
    for _ in 0..8 {
        log.push_standalone(&big);
    }
    let kept = drain(&mut get);
    assert!(kept.len() < 8, "bytes are bounded: {}", kept.len());
    let mut resumed = log.resume(id(&priming)).unwrap();
    assert!(next(&mut resumed).contains("\"done\":true"));
}

#[test]
fn events_a_live_connection_took_are_dropped_before_unread_ones() {
    let log = EventLog::new(true);
    let (stream, mut post) = log.open_request(None);
    stream.release();
    let priming = next(&mut post);
    assert_eq!(now(&mut post), Poll::Ready(None));
    stream.push(&note(0));
    // A chatty GET stream, read as it goes, sends more than the log keeps meanwhile.
    let mut get = log.open_standalone().unwrap();
    for n in 1..=MAX_RETAINED_EVENTS as u64 * 2 {
        log.push_standalone(&note(n));
        drain(&mut get);
    }
    let mut resumed = log.resume(id(&priming)).unwrap();
    assert!(
        has(&next(&mut resumed), 0),
        "the unread note is still there"
    );
}

#[tokio::test(start_paused = true)]
async fn an_unread_stream_is_kept_for_the_retention_period_then_abandoned() {
    let log = EventLog::new(true);
    let (stream, mut post) = log.open_request(None);
    let priming = next(&mut post);
    drop(post);
    let abandoned = tokio::time::timeout(UNREAD_RETENTION / 2, stream.abandoned()).await;
    assert!(abandoned.is_err(), "kept meanwhile");
    // A resumption restarts the clock when its connection goes too.
    drop(log.resume(id(&priming)).unwrap());
    let abandoned = tokio::time::timeout(UNREAD_RETENTION * 3 / 4, stream.abandoned()).await;
    assert!(abandoned.is_err(), "kept after the second connection left");
    tokio::time::timeout(UNREAD_RETENTION, stream.abandoned())
        .await
        .expect("abandoned once unread for the whole period");
    assert_eq!(
        log.resume(id(&priming)).err(),
        Some(NotResumable::UnknownStream)
    );
}

#[tokio::test(start_paused = true)]
async fn a_stream_being_read_is_never_abandoned() {
    let log = EventLog::new(true);
    let (stream, _post) = log.open_request(None);
    let abandoned = tokio::time::timeout(UNREAD_RETENTION * 2, stream.abandoned()).await;
    assert!(abandoned.is_err());
}

#[tokio::test]
async fn without_ids_a_stream_goes_with_its_connection() {
    let log = EventLog::new(false);
    let (stream, mut post) = log.open_request(None);
    stream.push(&note(1));
    stream.release();
    let event = next(&mut post);
    assert!(
        event.starts_with("event: message\n") && has(&event, 1),
        "{event:?}"
    );
    assert!(
        now(&mut post).is_pending(),
        "not released: it could not be resumed"
    );
    drop(post);
    tokio::time::timeout(Duration::from_secs(1), stream.abandoned())
        .await
        .expect("abandoned at once");
    let get = log.open_standalone().unwrap();
    drop(get);
    assert!(!log.push_standalone(&note(2)), "no GET stream any more");
}

#[tokio::test]
async fn closing_the_session_ends_every_stream() {
    let log = EventLog::new(true);
    let (stream, mut post) = log.open_request(None);
    let mut get = log.open_standalone().unwrap();
    drain(&mut post);
    drain(&mut get);
    log.close();
    assert_eq!(now(&mut post), Poll::Ready(None));
    assert_eq!(now(&mut get), Poll::Ready(None));
    tokio::time::timeout(Duration::from_secs(1), stream.abandoned())
        .await
        .expect("abandoned with the session");
    assert!(!log.push_standalone(&note(1)));
    let mut late = log.open_standalone().unwrap();
    assert_eq!(now(&mut late), Poll::Ready(None));
}

#[test]
fn shutdown_ends_the_get_stream_once_it_is_read() {
    let log = Arc::clone(&EventLog::new(true));
    let mut get = log.open_standalone().unwrap();
    log.push_standalone(&note(1));
    log.end_standalone();
    assert_eq!(drain(&mut get).len(), 2);
    assert_eq!(now(&mut get), Poll::Ready(None));
}

#[tokio::test]
async fn a_mirrored_log_writes_every_event_of_its_resumable_streams_in_order() {
    let (mirror, mut written) = tokio::sync::mpsc::unbounded_channel();
    let log = EventLog::mirrored(
        true,
        "0badcafe".into(),
        Some(Mirror::starting_with(move || mirror.clone())),
    );
    let mut get = log.open_standalone().unwrap();
    log.push_standalone(&note(1));
    let (stream, mut post) = log.open_request(Some("7".into()));
    stream.push(&note(2));
    stream.finish(Some(&result()));
    let sent: Vec<String> = drain(&mut get)
        .into_iter()
        .chain(drain(&mut post))
        .collect();
    let mut stored = Vec::new();
    while let Ok(event) = written.try_recv() {
        stored.push(event);
    }
    let streams: Vec<(&str, Option<&str>, bool)> = stored
        .iter()
        .map(|event| {
            (
                event.stream.as_str(),
                event.request.as_deref(),
                event.response,
            )
        })
        .collect();
    assert_eq!(
        streams,
        [
            ("0badcafe-0", None, false),
            ("0badcafe-0", None, false),
            ("0badcafe-1", Some("7"), false),
            ("0badcafe-1", Some("7"), false),
            ("0badcafe-1", Some("7"), true),
        ]
    );
    for event in &stored {
        assert_eq!(
            format!("{}-{}", event.stream, event.number),
            id(&event.frame),
            "each frame is stored under its own id"
        );
        assert!(
            sent.contains(&event.frame),
            "stored as sent: {:?}",
            event.frame
        );
    }
}

#[test]
fn a_log_without_ids_writes_nothing_through() {
    let (mirror, mut written) = tokio::sync::mpsc::unbounded_channel();
    let log = EventLog::mirrored(
        false,
        "0badcafe".into(),
        Some(Mirror::starting_with(move || mirror.clone())),
    );
    let _get = log.open_standalone().unwrap();
    log.push_standalone(&note(1));
    assert!(
        written.try_recv().is_err(),
        "nothing to resume, nothing stored"
    );
}

#[test]
fn a_new_tag_is_never_one_the_session_used() {
    let taken: Vec<String> = (0..4).map(|_| super::resume::new_tag(&[])).collect();
    for _ in 0..100 {
        let tag = super::resume::new_tag(&taken);
        assert_eq!(tag.len(), 8);
        assert!(!taken.contains(&tag));
    }
}

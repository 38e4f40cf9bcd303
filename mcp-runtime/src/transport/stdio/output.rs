//! The protocol output, and the thread that writes the answers of calls that finished late.
//!
//! Answers ready at once are written by the I/O thread itself, which flushes only when it has
//! no more input to answer; answers of calls that had to wait go to one writer thread, which
//! writes every answer queued and then flushes once. Both append whole lines under one lock,
//! so lines never interleave.

use std::io::{self, BufWriter, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;

use tokio::sync::{mpsc, oneshot};

use crate::protocol::jsonrpc::Outgoing;

type Sink = BufWriter<Box<dyn Write + Send>>;

/// The protocol output (the real stdout), buffered. Cheap to clone; clones share it.
#[derive(Clone)]
pub(crate) struct Output {
    sink: Arc<Mutex<Sink>>,
}

/// Large enough that a burst of answers leaves in one write.
const BUFFER: usize = 64 * 1024;

impl Output {
    pub(crate) fn new(output: impl Write + Send + 'static) -> Self {
        let output: Box<dyn Write + Send> = Box::new(output);
        Output {
            sink: Arc::new(Mutex::new(BufWriter::with_capacity(BUFFER, output))),
        }
    }

    /// Append `message` as one line; it leaves at the next flush (or when the buffer fills).
    pub(crate) fn write(&self, message: &Outgoing) -> io::Result<()> {
        write_line(&mut self.lock(), message)
    }

    /// Send everything written so far.
    pub(crate) fn flush(&self) -> io::Result<()> {
        self.lock().flush()
    }

    fn lock(&self) -> MutexGuard<'_, Sink> {
        // A panic while holding the lock cannot leave half a line: lines are written whole.
        self.sink
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn write_line(sink: &mut Sink, message: &Outgoing) -> io::Result<()> {
    sink.write_all(message.as_bytes())?;
    sink.write_all(b"\n")
}

/// Queues answers for the writer thread. Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct AnswerSender {
    queue: mpsc::UnboundedSender<Outgoing>,
}

impl AnswerSender {
    /// Queue `answer`. Dropped once the output is gone: there is no one left to tell.
    pub(crate) fn send(&self, answer: Outgoing) {
        let _ = self.queue.send(answer);
    }
}

/// Tells when the writer thread has stopped.
#[derive(Debug)]
pub(crate) struct WriterDone {
    done: oneshot::Receiver<()>,
}

impl WriterDone {
    /// Resolves when the writer thread stops: after every sender is dropped and the output is
    /// flushed, or early when the output broke.
    pub(crate) async fn stopped(&mut self) {
        let _ = (&mut self.done).await;
    }
}

/// Start the writer thread for answers that come late.
pub(crate) fn spawn_writer(output: Output) -> io::Result<(AnswerSender, WriterDone)> {
    let (queue, answers) = mpsc::unbounded_channel();
    let (finished, done) = oneshot::channel();
    thread::Builder::new()
        .name("mcp-stdout".into())
        .spawn(move || {
            if let Err(error) = write_answers(&output, answers) {
                tracing::warn!(%error, "cannot write to stdout any more");
            }
            let _ = finished.send(());
        })?;
    Ok((AnswerSender { queue }, WriterDone { done }))
}

fn write_answers(
    output: &Output,
    mut answers: mpsc::UnboundedReceiver<Outgoing>,
) -> io::Result<()> {
    while let Some(answer) = answers.blocking_recv() {
        let mut sink = output.lock();
        write_line(&mut sink, &answer)?;
        while let Ok(answer) = answers.try_recv() {
            write_line(&mut sink, &answer)?;
        }
        sink.flush()?;
    }
    // Last out: whatever the I/O thread appended and did not flush leaves now.
    output.flush()
}

#[cfg(test)]
pub(crate) mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::jsonrpc::RequestId;

    /// A `Write` whose bytes and flushes the test can inspect.
    #[derive(Clone, Default)]
    pub(crate) struct Recorder {
        pub(crate) bytes: Arc<Mutex<Vec<u8>>>,
        pub(crate) flushes: Arc<Mutex<usize>>,
    }

    impl Recorder {
        pub(crate) fn lines(&self) -> Vec<String> {
            String::from_utf8(self.bytes.lock().unwrap().clone())
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect()
        }
    }

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.bytes.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            *self.flushes.lock().unwrap() += 1;
            Ok(())
        }
    }

    struct Broken;

    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }

        fn flush(&mut self) -> io::Result<()> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
    }

    pub(crate) fn message(n: i64) -> Outgoing {
        Outgoing::result(&RequestId::Number(n.into()), &json!({}))
    }

    #[test]
    fn writes_are_lines_that_leave_on_flush() {
        let recorder = Recorder::default();
        let output = Output::new(recorder.clone());
        output.write(&message(1)).unwrap();
        output.write(&message(2)).unwrap();
        assert!(recorder.lines().is_empty(), "buffered until flushed");
        output.flush().unwrap();
        assert_eq!(
            recorder.lines(),
            [
                r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
                r#"{"jsonrpc":"2.0","id":2,"result":{}}"#
            ]
        );
    }

    #[tokio::test]
    async fn the_writer_writes_everything_sent_and_flushes_on_the_way_out() {
        let recorder = Recorder::default();
        let output = Output::new(recorder.clone());
        let (answers, mut done) = spawn_writer(output.clone()).unwrap();
        output.write(&message(0)).unwrap();
        for n in 1..=100 {
            answers.send(message(n));
        }
        drop(answers);
        done.stopped().await;
        let lines = recorder.lines();
        assert_eq!(lines.len(), 101);
        assert!(lines.contains(&r#"{"jsonrpc":"2.0","id":0,"result":{}}"#.to_owned()));
    }

    #[test]
    fn queued_answers_share_one_flush() {
        let recorder = Recorder::default();
        let (queue, answers) = mpsc::unbounded_channel();
        for n in 0..50 {
            queue.send(message(n)).unwrap();
        }
        drop(queue);
        write_answers(&Output::new(recorder.clone()), answers).unwrap();
        // One flush for the burst, one on the way out.
        assert_eq!(*recorder.flushes.lock().unwrap(), 2);
        assert_eq!(recorder.lines().len(), 50);
    }

    #[tokio::test]
    async fn a_broken_output_stops_the_writer() {
        let (answers, mut done) = spawn_writer(Output::new(Broken)).unwrap();
        answers.send(message(1));
        done.stopped().await;
        answers.send(message(2));
    }
}

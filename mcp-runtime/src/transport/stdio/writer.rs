//! The one owner of the protocol output: a thread that writes each message as a line and
//! flushes only when no more messages are waiting, so a burst of answers costs one write call.

use std::io::{self, BufWriter, Write};
use std::thread;

use tokio::sync::{mpsc, oneshot};

use crate::protocol::jsonrpc::Outgoing;

/// Sends messages to the writer thread. Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct OutputSender {
    queue: mpsc::UnboundedSender<Outgoing>,
}

impl OutputSender {
    /// Queue `message` for writing. Dropped silently once the output is gone: there is no one
    /// left to tell.
    pub(crate) fn send(&self, message: Outgoing) {
        let _ = self.queue.send(message);
    }

    /// Resolves when the writer thread has stopped (the output failed).
    pub(crate) async fn closed(&self) {
        self.queue.closed().await;
    }
}

/// Waits for the writer thread to write everything queued before it.
#[derive(Debug)]
pub(crate) struct OutputDone {
    done: oneshot::Receiver<()>,
}

impl OutputDone {
    /// Resolves once every sender is dropped and the thread has written and flushed all it
    /// was sent (or given up on a broken output).
    pub(crate) async fn wait(self) {
        let _ = self.done.await;
    }
}

/// Start the writer thread on `output`.
pub(crate) fn spawn(output: impl Write + Send + 'static) -> io::Result<(OutputSender, OutputDone)> {
    let (queue, messages) = mpsc::unbounded_channel();
    let (finished, done) = oneshot::channel();
    thread::Builder::new()
        .name("mcp-stdout".into())
        .spawn(move || {
            if let Err(error) = write_all(output, messages) {
                tracing::warn!(%error, "cannot write to stdout any more; stopping");
            }
            let _ = finished.send(());
        })?;
    Ok((OutputSender { queue }, OutputDone { done }))
}

fn write_all(
    output: impl Write,
    mut messages: mpsc::UnboundedReceiver<Outgoing>,
) -> io::Result<()> {
    let mut output = BufWriter::with_capacity(64 * 1024, output);
    while let Some(message) = messages.blocking_recv() {
        write_line(&mut output, &message)?;
        while let Ok(message) = messages.try_recv() {
            write_line(&mut output, &message)?;
        }
        output.flush()?;
    }
    output.flush()
}

fn write_line(output: &mut impl Write, message: &Outgoing) -> io::Result<()> {
    output.write_all(message.as_bytes())?;
    output.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::json;

    use super::*;
    use crate::protocol::jsonrpc::RequestId;

    /// A `Write` whose bytes the test can read, counting flushes.
    #[derive(Clone, Default)]
    struct Shared {
        bytes: Arc<Mutex<Vec<u8>>>,
        flushes: Arc<Mutex<usize>>,
    }

    impl Write for Shared {
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

    fn message(n: i64) -> Outgoing {
        Outgoing::result(&RequestId::Number(n.into()), &json!({}))
    }

    #[tokio::test]
    async fn every_message_is_one_line_and_all_are_flushed_at_the_end() {
        let output = Shared::default();
        let (sender, done) = spawn(output.clone()).unwrap();
        for n in 0..100 {
            sender.send(message(n));
        }
        drop(sender);
        done.wait().await;
        let bytes = output.bytes.lock().unwrap().clone();
        let text = String::from_utf8(bytes).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 100);
        assert_eq!(lines[99], r#"{"jsonrpc":"2.0","id":99,"result":{}}"#);
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn queued_messages_share_one_flush() {
        let output = Shared::default();
        let (queue, messages) = mpsc::unbounded_channel();
        for n in 0..50 {
            queue.send(message(n)).unwrap();
        }
        drop(queue);
        write_all(output.clone(), messages).unwrap();
        // One flush for the burst, one on the way out.
        assert_eq!(*output.flushes.lock().unwrap(), 2);
        assert_eq!(
            output
                .bytes
                .lock()
                .unwrap()
                .iter()
                .filter(|&&b| b == b'\n')
                .count(),
            50
        );
    }

    #[tokio::test]
    async fn a_broken_output_closes_the_sender() {
        let (sender, done) = spawn(Broken).unwrap();
        sender.send(message(1));
        sender.closed().await;
        sender.send(message(2));
        done.wait().await;
    }
}

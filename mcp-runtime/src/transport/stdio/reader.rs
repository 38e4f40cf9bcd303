//! The stdin side: a thread that reads lines and hands them over.
//!
//! A plain thread rather than tokio's stdin: a blocking read there would keep the runtime from
//! shutting down until the client sent another line, while this thread simply ends with the
//! process.

use std::io::{self, BufReader};
use std::thread;

use tokio::sync::mpsc;

use super::lines::{self, Line};

/// What the reader thread hands over.
#[derive(Debug)]
pub(crate) enum Input {
    /// One message line, without its newline.
    Line(Vec<u8>),
    /// A line over the size limit was discarded; it had `len` bytes.
    TooLong { len: usize },
    /// Reading failed; nothing more will come.
    Failed(io::Error),
}

/// Lines in flight between the threads; reading pauses when the server falls this far behind.
const QUEUE: usize = 64;

/// Read buffer: large messages arrive in few reads.
const READ_BUFFER: usize = 64 * 1024;

/// Start reading stdin, each line at most `max_message_size` bytes. The channel closes at the
/// end of the input.
pub(crate) fn spawn(max_message_size: usize) -> io::Result<mpsc::Receiver<Input>> {
    let (lines, received) = mpsc::channel(QUEUE);
    thread::Builder::new()
        .name("mcp-stdin".into())
        .spawn(move || read_all(lines, max_message_size))?;
    Ok(received)
}

fn read_all(lines: mpsc::Sender<Input>, max_message_size: usize) {
    let mut reader = BufReader::with_capacity(READ_BUFFER, io::stdin().lock());
    let mut buf = Vec::new();
    loop {
        let input = match lines::read_line(&mut reader, &mut buf, max_message_size) {
            Ok(Line::Complete) if buf.iter().all(u8::is_ascii_whitespace) => continue,
            Ok(Line::Complete) => {
                let line = buf.clone();
                // Keep a buffer that fits common messages, not the largest one ever seen.
                buf.shrink_to(READ_BUFFER);
                Input::Line(line)
            }
            Ok(Line::TooLong { len }) => Input::TooLong { len },
            Ok(Line::End) => return,
            Err(error) => Input::Failed(error),
        };
        let failed = matches!(input, Input::Failed(_));
        if lines.blocking_send(input).is_err() || failed {
            return;
        }
    }
}

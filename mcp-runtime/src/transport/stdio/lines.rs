//! Reading newline-delimited messages with a bound on their size, so one huge (or endless)
//! line cannot make the server buffer without limit.

use std::io::{self, BufRead};

/// What one read produced.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A complete line is in the buffer, without its `\n`.
    Complete,
    /// The line was longer than the limit; its `len` bytes were read and thrown away.
    TooLong { len: usize },
    /// The input ended; the buffer is empty.
    End,
}

/// Read the next line into `buf` (cleared first), keeping at most `max` bytes of it. A last
/// line without a newline still counts as a line.
pub(crate) fn read_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<Line> {
    buf.clear();
    // Once the line outgrows `max`, only its length is kept.
    let mut discarded: Option<usize> = None;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if available.is_empty() {
            return Ok(match discarded {
                Some(len) => Line::TooLong { len },
                None if buf.is_empty() => Line::End,
                None => Line::Complete,
            });
        }
        let newline = memchr::memchr(b'\n', available);
        let chunk = &available[..newline.unwrap_or(available.len())];
        match &mut discarded {
            Some(len) => *len += chunk.len(),
            None if buf.len() + chunk.len() > max => {
                discarded = Some(buf.len() + chunk.len());
                // Give the memory back: the line will never be parsed.
                *buf = Vec::new();
            }
            None => buf.extend_from_slice(chunk),
        }
        let consumed = chunk.len() + usize::from(newline.is_some());
        reader.consume(consumed);
        if newline.is_some() {
            return Ok(match discarded {
                Some(len) => Line::TooLong { len },
                None => Line::Complete,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Cursor};

    use super::*;

    fn lines(input: &[u8], max: usize, capacity: usize) -> Vec<(Line, Vec<u8>)> {
        let mut reader = BufReader::with_capacity(capacity, Cursor::new(input.to_vec()));
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let line = read_line(&mut reader, &mut buf, max).unwrap();
            if line == Line::End {
                return out;
            }
            out.push((line, buf.clone()));
        }
    }

    #[test]
    fn splits_on_newlines() {
        assert_eq!(
            lines(b"a\nbc\n\nd", 10, 64),
            [
                (Line::Complete, b"a".to_vec()),
                (Line::Complete, b"bc".to_vec()),
                (Line::Complete, Vec::new()),
                (Line::Complete, b"d".to_vec()),
            ]
        );
    }

    #[test]
    fn lines_longer_than_the_read_buffer_are_assembled() {
        let long = "x".repeat(100);
        let input = format!("{long}\nshort\n");
        let got = lines(input.as_bytes(), 1000, 7);
        assert_eq!(got[0], (Line::Complete, long.into_bytes()));
        assert_eq!(got[1], (Line::Complete, b"short".to_vec()));
    }

    #[test]
    fn an_oversize_line_is_skipped_and_reading_goes_on() {
        let input = format!("{}\nok\n{}", "y".repeat(50), "z".repeat(11));
        let got = lines(input.as_bytes(), 10, 8);
        assert_eq!(
            got,
            [
                (Line::TooLong { len: 50 }, Vec::new()),
                (Line::Complete, b"ok".to_vec()),
                (Line::TooLong { len: 11 }, Vec::new()),
            ]
        );
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_kept() {
        assert_eq!(
            lines(b"12345\n", 5, 2),
            [(Line::Complete, b"12345".to_vec())]
        );
    }

    #[test]
    fn empty_input_ends_at_once() {
        assert!(lines(b"", 5, 2).is_empty());
    }
}

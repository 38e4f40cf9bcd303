//! The load generator's HTTP/1.1 client: one keep-alive connection, a request written whole,
//! its response read with `Content-Length` or chunked framing (an event stream answer is
//! chunked). Written for the benchmark, so its own cost per request stays small and the same
//! for every server: requests are prepared once, responses parsed in place.

use std::io;
use std::net::SocketAddr;
use std::ops::Range;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One keep-alive connection.
pub struct Connection {
    stream: TcpStream,
    buffer: Vec<u8>,
    /// Where the unread bytes of `buffer` start and end.
    start: usize,
    end: usize,
    /// A chunked body, decoded.
    chunked: Vec<u8>,
}

/// What a response said, as far as the benchmark cares.
pub struct Reply {
    pub status: u16,
    /// `Mcp-Session-Id`, when `want_session` asked for it.
    pub session: Option<String>,
    body: Body,
}

enum Body {
    /// In the connection's buffer; valid until the next request.
    Buffered(Range<usize>),
    Chunked,
}

impl Connection {
    pub async fn open(addr: SocketAddr) -> io::Result<Connection> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream,
            buffer: vec![0; 64 * 1024],
            start: 0,
            end: 0,
            chunked: Vec::new(),
        })
    }

    /// Sends `request` (a whole HTTP request) and reads the response's head and body.
    pub async fn exchange(&mut self, request: &[u8], want_session: bool) -> io::Result<Reply> {
        self.stream.write_all(request).await?;
        self.read_reply(want_session).await
    }

    /// Sends `request` and reads only the response's head: for an event stream that stays
    /// open. The connection is of no further use but to hold the stream.
    pub async fn open_stream(&mut self, request: &[u8]) -> io::Result<u16> {
        self.stream.write_all(request).await?;
        let head = self.read_head().await?;
        Ok(head.status)
    }

    /// The body of `reply`, the last response read.
    pub fn body(&self, reply: &Reply) -> &[u8] {
        match &reply.body {
            Body::Buffered(range) => &self.buffer[range.clone()],
            Body::Chunked => &self.chunked,
        }
    }

    async fn fill(&mut self) -> io::Result<()> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buffer.len() {
            if self.start > 0 {
                self.buffer.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            } else {
                let grown = self.buffer.len() * 2;
                self.buffer.resize(grown, 0);
            }
        }
        let read = self.stream.read(&mut self.buffer[self.end..]).await?;
        if read == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
        self.end += read;
        Ok(())
    }

    async fn read_head(&mut self) -> io::Result<Head> {
        loop {
            if let Some(head) = parse_head(&self.buffer[self.start..self.end])? {
                return Ok(head);
            }
            self.fill().await?;
        }
    }

    async fn read_reply(&mut self, want_session: bool) -> io::Result<Reply> {
        let head = self.read_head().await?;
        let session = want_session
            .then(|| head.session.clone().map(|range| self.text(range)))
            .flatten();
        self.start += head.length;
        let body = match head.framing {
            Framing::Length(length) => {
                while self.end - self.start < length {
                    self.fill().await?;
                }
                let range = self.start..self.start + length;
                self.start += length;
                Body::Buffered(range)
            }
            Framing::Chunked => {
                self.read_chunks().await?;
                Body::Chunked
            }
        };
        Ok(Reply {
            status: head.status,
            session,
            body,
        })
    }

    fn text(&self, range: Range<usize>) -> String {
        let absolute = self.start + range.start..self.start + range.end;
        String::from_utf8_lossy(&self.buffer[absolute]).into_owned()
    }

    async fn read_chunks(&mut self) -> io::Result<()> {
        self.chunked.clear();
        loop {
            let line_end = loop {
                if let Some(at) = find(&self.buffer[self.start..self.end], b"\r\n") {
                    break at;
                }
                self.fill().await?;
            };
            let size_text = &self.buffer[self.start..self.start + line_end];
            let size_text = std::str::from_utf8(size_text)
                .ok()
                .and_then(|text| text.split(';').next())
                .ok_or_else(|| malformed("chunk size"))?;
            let size =
                usize::from_str_radix(size_text.trim(), 16).map_err(|_| malformed("chunk size"))?;
            self.start += line_end + 2;
            // The chunk and its CRLF (the last chunk: the empty trailer's CRLF).
            while self.end - self.start < size + 2 {
                self.fill().await?;
            }
            let data = self.start..self.start + size;
            self.chunked.extend_from_slice(&self.buffer[data]);
            self.start += size + 2;
            if size == 0 {
                return Ok(());
            }
        }
    }
}

struct Head {
    status: u16,
    /// Bytes of the head, its blank line included.
    length: usize,
    framing: Framing,
    /// Where `Mcp-Session-Id`'s value is in the head.
    session: Option<Range<usize>>,
}

enum Framing {
    Length(usize),
    Chunked,
}

fn malformed(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("malformed response: {what}"),
    )
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// The head of a response, if `bytes` holds all of it.
fn parse_head(bytes: &[u8]) -> io::Result<Option<Head>> {
    let Some(end) = find(bytes, b"\r\n\r\n") else {
        return Ok(None);
    };
    let head = &bytes[..end];
    let mut lines = head.split(|&byte| byte == b'\n');
    let status_line = lines.next().ok_or_else(|| malformed("status line"))?;
    let status = status_line
        .get(9..12)
        .and_then(|code| std::str::from_utf8(code).ok()?.parse().ok())
        .ok_or_else(|| malformed("status line"))?;
    let mut framing = Framing::Length(0);
    let mut session = None;
    let mut offset = status_line.len() + 1;
    for line in lines {
        let line_start = offset;
        offset += line.len() + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(colon) = line.iter().position(|&byte| byte == b':') else {
            continue;
        };
        let (name, value) = (&line[..colon], &line[colon + 1..]);
        let trimmed = value.trim_ascii();
        if name.eq_ignore_ascii_case(b"content-length") {
            let length = std::str::from_utf8(trimmed)
                .ok()
                .and_then(|text| text.parse().ok())
                .ok_or_else(|| malformed("content-length"))?;
            framing = Framing::Length(length);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding")
            && trimmed.eq_ignore_ascii_case(b"chunked")
        {
            framing = Framing::Chunked;
        } else if name.eq_ignore_ascii_case(b"mcp-session-id") {
            let value_start =
                line_start + colon + 1 + (value.len() - value.trim_ascii_start().len());
            session = Some(value_start..value_start + trimmed.len());
        }
    }
    Ok(Some(Head {
        status,
        length: end + 4,
        framing,
        session,
    }))
}

/// Whether `body` is a JSON-RPC success (as JSON, or as an event carrying it).
pub fn is_result(body: &[u8]) -> bool {
    find(body, b"\"result\"").is_some() && find(body, b"\"isError\":true").is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_gives_its_status_framing_and_session() {
        let response = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nMcp-Session-Id: ab12\r\ncontent-length: 7\r\n\r\n{\"a\":1}";
        let head = parse_head(response).unwrap().unwrap();
        assert_eq!(head.status, 200);
        assert!(matches!(head.framing, Framing::Length(7)));
        assert_eq!(&response[head.session.unwrap()], b"ab12");
        assert_eq!(&response[head.length..], b"{\"a\":1}");
        let chunked = b"HTTP/1.1 202 Accepted\r\ntransfer-encoding: chunked\r\n\r\n";
        let head = parse_head(chunked).unwrap().unwrap();
        assert_eq!(head.status, 202);
        assert!(matches!(head.framing, Framing::Chunked));
        assert!(parse_head(b"HTTP/1.1 200 OK\r\n").unwrap().is_none());
    }

    #[test]
    fn results_are_told_from_errors() {
        assert!(is_result(br#"{"id":1,"result":{"content":[]}}"#));
        assert!(is_result(b"data: {\"result\":{}}\n\n"));
        assert!(!is_result(br#"{"id":1,"error":{"code":-32601}}"#));
        assert!(!is_result(br#"{"result":{"isError":true}}"#));
    }
}

//! Every kind of bad input the reliability tests send, and exactly what the server answers:
//! the source of the table in the README's "Bad input" section. Each case is sent over a real pipe to the
//! fixture server, followed by a `ping` whose answer marks the end of the case's answers.

#[allow(unused_macros)]
mod support;

use serde_json::{Value, json};
use support::ServerProcess;
use support::process::{Next, StdoutLine};

/// The session a case is sent in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Session {
    /// A fresh server, before any `initialize` (each such case gets its own).
    Fresh,
    /// After `initialize` at 2025-06-18.
    Legacy,
    /// After `initialize` at 2025-03-26, the revision with JSON-RPC batches.
    Batches,
}

/// One line to send.
#[derive(Debug)]
enum Line {
    Text(&'static str),
    Bytes(&'static [u8]),
    /// A `ping` padded to 70,000 bytes.
    Oversize,
    /// `tools/list` with `params` nested 200 deep.
    Deep,
    /// A `tools/call` of `echo` with 30,000 numbers besides its text: 60 KB sent, 2 MiB parsed.
    ManyValues,
}

impl Line {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Line::Text(text) => text.as_bytes().to_vec(),
            Line::Bytes(bytes) => bytes.to_vec(),
            Line::Oversize => format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","x":"{}"}}"#,
                "y".repeat(70_000)
            )
            .into_bytes(),
            Line::Deep => format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"a":{}{}}}}}"#,
                "[".repeat(200),
                "]".repeat(200)
            )
            .into_bytes(),
            Line::ManyValues => format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x","pad":[{}0]}}}}}}"#,
                "0,".repeat(29_999)
            )
            .into_bytes(),
        }
    }
}

/// A bad input and every answer it gets, in order (none for what is not answered). Each
/// answer must hold every member given here, with equal values; error answers are given whole.
struct Case {
    what: &'static str,
    session: Session,
    send: &'static [Line],
    answers: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        what: "a line that is not JSON",
        session: Session::Legacy,
        send: &[Line::Text(r#"nonsense"#)],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: expected ident at line 1 column 2"}}"#,
        ],
    },
    Case {
        what: "JSON cut short",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: EOF while parsing a value at line 1 column 55"}}"#,
        ],
    },
    Case {
        what: "a message followed by more text",
        session: Session::Legacy,
        send: &[Line::Text(r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#)],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: trailing characters at line 1 column 42"}}"#,
        ],
    },
    Case {
        what: "bytes that are not UTF-8 in a member the server reads",
        session: Session::Legacy,
        send: &[Line::Bytes(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid unicode code point at line 1 column 35"}}"#,
        ],
    },
    Case {
        what: "a byte-order mark before the message",
        session: Session::Legacy,
        send: &[Line::Bytes(
            b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: expected value at line 1 column 1"}}"#,
        ],
    },
    Case {
        what: "JSON that is not an object (`5`)",
        session: Session::Legacy,
        send: &[Line::Text(r#"5"#)],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"not a JSON-RPC message: invalid type: integer `5`, expected struct Envelope at line 1 column 1"}}"#,
        ],
    },
    Case {
        what: "an empty batch `[]`",
        session: Session::Legacy,
        send: &[Line::Text(r#"[]"#)],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}"#,
        ],
    },
    Case {
        what: "`\"jsonrpc\": \"1.0\"`",
        session: Session::Legacy,
        send: &[Line::Text(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#)],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"`jsonrpc` must be \"2.0\""}}"#,
        ],
    },
    Case {
        what: "no `jsonrpc` member",
        session: Session::Legacy,
        send: &[Line::Text(r#"{"id":1,"method":"ping"}"#)],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"`jsonrpc` must be \"2.0\""}}"#,
        ],
    },
    Case {
        what: "a `method` that is not a string",
        session: Session::Legacy,
        send: &[Line::Text(r#"{"jsonrpc":"2.0","id":1,"method":7}"#)],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"`method` must be a string"}}"#,
        ],
    },
    Case {
        what: "an id but no `method`, `result` or `error`",
        session: Session::Legacy,
        send: &[Line::Text(r#"{"jsonrpc":"2.0","id":1}"#)],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"a message needs a `method` (or a `result` or `error`)"}}"#,
        ],
    },
    Case {
        what: "`\"id\": null`",
        session: Session::Legacy,
        send: &[Line::Text(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#)],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"`id` must be a string or an integer"}}"#,
        ],
    },
    Case {
        what: "a fractional id (`1.5`)",
        session: Session::Legacy,
        send: &[Line::Text(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#)],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"`id` must be a string or an integer"}}"#,
        ],
    },
    Case {
        what: "an object as id",
        session: Session::Legacy,
        send: &[Line::Text(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#)],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"`id` must be a string or an integer"}}"#,
        ],
    },
    Case {
        what: "`params` by position (an array)",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"`params` must be an object"}}"#,
        ],
    },
    Case {
        what: "`params` neither object nor array",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":3}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"`params` must be an object"}}"#,
        ],
    },
    Case {
        what: "a member given twice",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"not a JSON-RPC message: duplicate field `id` at line 1 column 28"}}"#,
        ],
    },
    Case {
        what: "`params` nested 200 deep",
        session: Session::Legacy,
        send: &[Line::Deep],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: recursion limit exceeded at line 1 column 186"}}"#,
        ],
    },
    Case {
        what: "a notification with bad `params`",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","method":"notifications/x","params":"p"}"#,
        )],
        answers: &[],
    },
    Case {
        what: "an unknown notification",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","method":"notifications/unknown"}"#,
        )],
        answers: &[],
    },
    Case {
        what: "blank lines",
        session: Session::Legacy,
        send: &[Line::Text(r#""#), Line::Text(r#"   "#)],
        answers: &[],
    },
    Case {
        what: "a message over `max_message_size` (64 KiB in the fixture)",
        session: Session::Legacy,
        send: &[Line::Oversize],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message of 70047 bytes exceeds the limit of 65536 bytes and was discarded"}}"#,
        ],
    },
    Case {
        what: "a message over `max_parsed_size` once parsed (1 MiB in the fixture)",
        session: Session::Legacy,
        send: &[Line::ManyValues],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"message would take more than the limit of 1048576 bytes once parsed and was refused"}}"#,
        ],
    },
    Case {
        what: "a legacy request before `initialize`",
        session: Session::Fresh,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"`tools/list` before `initialize`: send `initialize` first, or put `io.modelcontextprotocol/protocolVersion` in `_meta` to speak 2026-07-28"}}"#,
        ],
    },
    Case {
        what: "`ping` before `initialize` (allowed)",
        session: Session::Fresh,
        send: &[Line::Text(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)],
        answers: &[r#"{"jsonrpc":"2.0","id":1,"result":{}}"#],
    },
    Case {
        what: "an unknown method",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"no/such/method"}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: `no/such/method`"}}"#,
        ],
    },
    Case {
        what: "a second `initialize`",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"p","version":"0"}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"already initialized (at 2025-06-18): `initialize` may be sent only once per connection"}}"#,
        ],
    },
    Case {
        what: "`initialize` without params",
        session: Session::Fresh,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"`initialize` needs params with a `protocolVersion`"}}"#,
        ],
    },
    Case {
        what: "`initialize` with a `protocolVersion` that is not a string",
        session: Session::Fresh,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"`protocolVersion` must be a string"}}"#,
        ],
    },
    Case {
        what: "`initialize` asking for an unknown revision (the newest legacy one is offered)",
        session: Session::Fresh,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"p","version":"0"}}}"#,
        )],
        answers: &[r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}"#],
    },
    Case {
        what: "a batch outside a 2025-03-26 session",
        session: Session::Legacy,
        send: &[Line::Text(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)],
        answers: &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"JSON-RPC batches are accepted only in a session initialized at 2025-03-26"}}"#,
        ],
    },
    Case {
        what: "`initialize` inside a batch (2025-03-26)",
        session: Session::Batches,
        send: &[Line::Text(
            r#"[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
        )],
        answers: &[
            r#"[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"`initialize` must not be part of a JSON-RPC batch"}},{"jsonrpc":"2.0","id":2,"result":{}}]"#,
        ],
    },
    Case {
        what: "a batch element that is not a message (2025-03-26)",
        session: Session::Batches,
        send: &[Line::Text(
            r#"[5,{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
        )],
        answers: &[
            r#"[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch element is not a JSON-RPC message: invalid type: integer `5`, expected struct Envelope at line 1 column 1"}},{"jsonrpc":"2.0","id":2,"result":{}}]"#,
        ],
    },
    Case {
        what: "`tools/call` without params",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"`tools/call` needs params naming the tool"}}"#,
        ],
    },
    Case {
        what: "`tools/call` with a `name` that is not a string",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"`name` must be a tool's name"}}"#,
        ],
    },
    Case {
        what: "`tools/call` of an unknown tool",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool `nope`"}}"#,
        ],
    },
    Case {
        what: "`arguments` that are not an object",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[1]}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"`arguments` must be an object"}}"#,
        ],
    },
    Case {
        what: "an argument of the wrong type",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":5}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"invalid arguments: `text`: expected a string, got integer `5`"}],"isError":true}}"#,
        ],
    },
    Case {
        what: "an argument serde_json cannot hold",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":1e400}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"invalid arguments: `arguments`: cannot be read: number out of range at line 1 column 13"}],"isError":true}}"#,
        ],
    },
    Case {
        // Read from the text as sent: what the tool takes no parameter for is never built.
        what: "an argument the tool does not take, which serde_json cannot hold",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"n":1e400,"text":"x"}}}"#,
        )],
        answers: &[r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}"#],
    },
    Case {
        what: "an argument given twice",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","te\u0078t":"b"}}}"#,
        )],
        answers: &[r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"b"}]}}"#],
    },
    Case {
        what: "a required argument missing",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"invalid arguments: `text`: missing required argument"}],"isError":true}}"#,
        ],
    },
    Case {
        what: "wrong values inside arguments (a field, an enum variant)",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"step","arguments":{"from":{"x":1,"y":"up"},"heading":"up"}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"invalid arguments: `from.y`: expected an integer (i64), got string \"up\"; `heading`: unknown variant `up`, expected one of `north`, `east`, `south`, `west`"}],"isError":true}}"#,
        ],
    },
    Case {
        what: "an integer out of the parameter's range",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"a","times":-1}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"invalid arguments: `times`: expected an integer (u32), got integer `-1`"}],"isError":true}}"#,
        ],
    },
    Case {
        what: "integers written as floats (`2.0`, `-0`): accepted",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"augend":2.0,"addend":0}}}"#,
        )],
        answers: &[r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"2"}]}}"#],
    },
    Case {
        what: "`null` for an optional argument: accepted, read as absent",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"a","punctuation":null}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Hello, a!"}]}}"#,
        ],
    },
    Case {
        what: "a tool that panics",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"panics","arguments":{}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"internal error: the tool `panics` failed unexpectedly (details are in the server's log)"}],"isError":true}}"#,
        ],
    },
    Case {
        what: "a tool that fails (returns `Err`)",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"divide","arguments":{"dividend":1,"divisor":0}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"cannot divide by zero: `divisor` must not be 0"}],"isError":true}}"#,
        ],
    },
    Case {
        what: "a `cursor` that is not a string",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":5}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"`cursor` must be a string"}}"#,
        ],
    },
    Case {
        what: "a `cursor` the server never gave",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"bogus"}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid cursor \"bogus\": pass back a `nextCursor` from `tools/list`"}}"#,
        ],
    },
    Case {
        what: "cancelling an unknown request",
        session: Session::Legacy,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"never"}}"#,
        )],
        answers: &[],
    },
    Case {
        what: "2026-07-28 `_meta` naming an unknown revision",
        session: Session::Fresh,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2030-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported protocol version \"2030-01-01\"","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2030-01-01"}}}"#,
        ],
    },
    Case {
        what: "2026-07-28 `_meta` without client capabilities",
        session: Session::Fresh,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"missing `_meta[\"io.modelcontextprotocol/clientCapabilities\"]`: 2026-07-28 requests declare the client's capabilities on every request"}}"#,
        ],
    },
    Case {
        what: "2026-07-28 `_meta` with a protocol version that is not a string",
        session: Session::Fresh,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":2026}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"`_meta[\"io.modelcontextprotocol/protocolVersion\"]` must be a string"}}"#,
        ],
    },
    Case {
        what: "2026-07-28 `_meta` with capabilities that are not an object",
        session: Session::Fresh,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":1}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"`_meta[\"io.modelcontextprotocol/clientCapabilities\"]` must be an object"}}"#,
        ],
    },
    Case {
        what: "`initialize` with 2026-07-28 `_meta`",
        session: Session::Fresh,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: `initialize` does not exist in 2026-07-28 (send it without `_meta[\"io.modelcontextprotocol/protocolVersion\"]` to use a legacy session)"}}"#,
        ],
    },
    Case {
        what: "`ping` with 2026-07-28 `_meta`",
        session: Session::Fresh,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: `ping` does not exist in 2026-07-28 (send it without `_meta[\"io.modelcontextprotocol/protocolVersion\"]` to use a legacy session)"}}"#,
        ],
    },
    Case {
        what: "an unknown method with 2026-07-28 `_meta`",
        session: Session::Fresh,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"no/such","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: `no/such`"}}"#,
        ],
    },
    Case {
        what: "`_meta` naming a legacy revision",
        session: Session::Fresh,
        send: &[Line::Text(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        )],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported protocol version \"2025-06-18\"","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2025-06-18"}}}"#,
        ],
    },
    Case {
        // Sealed by a server whose secret was `a secret since retired`: the fixture's key is
        // random, and it has no previous one.
        what: "a `requestState` sealed under a key the server does not hold (another deployment's, or retired)",
        session: Session::Fresh,
        send: &[Line::Text(concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"requestState":""#,
            "oq_ddD9PHu8TYWqsRUXGm0_vf3PtFahmlu3wBwh9gJBFWI1lfeoxYHBDp93My4z8ZvJqdJAUb35VFkhfRSLrP6viTFEvzku9_UeZo7Oq63ntYyujti5RulOoXomU5gW9nt9DCE1Tn3kMpAN8A5K8ApujnUpARrfJhiQGhb9qDuE-oQ8cj5D8s4ow74WwJJU53UcEHMmJyyhTsds3hsbtCEnetLvRWwpNKzXYb3-Pdb3U05q1dQbo8eP6kSFNrgd93SeWXuNPGeGE64b7_0AIW_NuUZ0vJk7YrjqvaBTxx1WkXK1Jf_ipk88nxcjr4vQvbi1yVwpHUMAdORq18BWHQznoA-J4vXQAprMD07vqvcz_IRmDYQrjIjtSimbBENYu-j3ixi-KX9eRHts6",
            r#"","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ))],
        answers: &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid `requestState`: not issued by this server (sealed under a key it does not hold: another deployment's, or one retired); retry the request without `requestState` and `inputResponses` to start over"}}"#,
        ],
    },
];

fn initialize(server: &mut ServerProcess, version: &str) {
    server.write_line(
        &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "bad-input", "version": "0"}}})
        .to_string(),
    );
    let answer = next_json(server);
    assert_eq!(answer["result"]["protocolVersion"], version, "{answer}");
    server.write_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
}

fn next_json(server: &mut ServerProcess) -> Value {
    match server.next_line(support::PATIENCE) {
        Next::Line(StdoutLine::Json(message)) => message,
        other => panic!(
            "expected a message, got {other:?}\nstderr:\n{}",
            server.stderr()
        ),
    }
}

/// Whether `got` has every member of `expected` (recursively) with equal values; arrays
/// element by element.
fn holds(got: &Value, expected: &Value) -> bool {
    match (got, expected) {
        (Value::Object(got), Value::Object(expected)) => expected
            .iter()
            .all(|(key, value)| got.get(key).is_some_and(|got| holds(got, value))),
        (Value::Array(got), Value::Array(expected)) => {
            got.len() == expected.len() && got.iter().zip(expected).all(|(g, e)| holds(g, e))
        }
        _ => got == expected,
    }
}

/// Send `case`, then a `ping`; every answer before the ping's.
fn answers_to(server: &mut ServerProcess, case: &Case, sentinel: usize) -> Vec<Value> {
    let mut bytes = Vec::new();
    for line in case.send {
        bytes.extend(line.bytes());
        bytes.push(b'\n');
    }
    let sentinel = format!("sentinel-{sentinel}");
    bytes.extend(
        json!({"jsonrpc": "2.0", "id": sentinel, "method": "ping"})
            .to_string()
            .bytes(),
    );
    bytes.push(b'\n');
    server.write_raw(&bytes);
    let mut answers = Vec::new();
    loop {
        let answer = next_json(server);
        if answer["id"] == sentinel.as_str() {
            return answers;
        }
        answers.push(answer);
    }
}

#[test]
fn every_bad_input_gets_the_documented_answer_and_serving_goes_on() {
    let mut legacy = ServerProcess::fixture();
    initialize(&mut legacy, "2025-06-18");
    let mut batches = ServerProcess::fixture();
    initialize(&mut batches, "2025-03-26");
    let mut mismatches = Vec::new();
    for (index, case) in CASES.iter().enumerate() {
        let mut fresh;
        let server = match case.session {
            Session::Legacy => &mut legacy,
            Session::Batches => &mut batches,
            Session::Fresh => {
                fresh = ServerProcess::fixture();
                &mut fresh
            }
        };
        let got = answers_to(server, case, index);
        let expected: Vec<Value> = case
            .answers
            .iter()
            .map(|answer| serde_json::from_str(answer).expect("valid JSON in the table"))
            .collect();
        let matches = got.len() == expected.len()
            && got
                .iter()
                .zip(&expected)
                .all(|(got, expected)| holds(got, expected));
        if !matches {
            mismatches.push(format!(
                "{} ({:?}):\n  expected {expected:?}\n  got      {got:?}",
                case.what, case.session
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    // After all of it, both sessions still serve calls.
    for server in [&mut legacy, &mut batches] {
        server.write_line(
            r#"{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"}}}"#,
        );
        let answer = next_json(server);
        assert_eq!(answer["result"]["content"][0]["text"], "ok", "{answer}");
    }
}

/// A request reusing the id of a call still running is refused; the running call still
/// answers (so the client sees two answers for the id it sent twice).
#[test]
fn an_id_reused_while_its_call_runs_is_refused() {
    let mut server = ServerProcess::fixture();
    initialize(&mut server, "2025-06-18");
    server.write_raw(
        concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"millis":300}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}"#,
            "\n"
        )
        .as_bytes(),
    );
    assert_eq!(
        next_json(&mut server),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32600,
               "message": "request id 1 is already used by a call still running"}})
    );
    let answer = next_json(&mut server);
    assert_eq!(
        answer["result"]["content"][0]["text"], "slept 300 ms",
        "{answer}"
    );
}

//! Reading MCP's headers, and the checks on them: a 2026-07-28 request's headers must agree
//! with its body; `Origin` and `Host` must be ones this server trusts.

use std::borrow::Cow;
use std::collections::HashMap;

use http::{HeaderMap, HeaderValue, header};
use serde_json::Value;

use super::config::HttpConfig;
use crate::handler::ToolDefinition;
use crate::protocol::JsonObject;
use crate::protocol::jsonrpc::{Arguments, ErrorObject, Params, Revision};

/// A tool argument mirrored in a header: `Mcp-Param-{x-mcp-header}`.
const PARAM_PREFIX: &str = "mcp-param-";

/// 2026-07-28: a header disagrees with the body, or is missing or malformed (HTTP 400).
pub(crate) const HEADER_MISMATCH: i32 = -32020;

/// A header's value, trimmed; `Err` when it is not visible ASCII. (`to_str`'s byte loop is
/// quicker on values this short than a check by words followed by `str::from_utf8`.)
fn text(value: Option<&HeaderValue>) -> Result<Option<&str>, ()> {
    let Some(value) = value else {
        return Ok(None);
    };
    value.to_str().map(|text| Some(text.trim())).map_err(|_| ())
}

/// [`text`] for values that run long, as session ids do: `HeaderValue::to_str` checks one
/// byte at a time, `is_ascii` a word at a time (dearer than `to_str` for a value of a few
/// bytes). A `HeaderValue` holds no control character but tab and no DEL (httparse, which
/// reads hyper's headers, refuses them, as `HeaderValue::from_bytes` does), so it is the
/// visible ASCII `to_str` accepts exactly when it is ASCII.
fn long_text(value: Option<&HeaderValue>) -> Result<Option<&str>, ()> {
    let Some(value) = value else {
        return Ok(None);
    };
    let bytes = value.as_bytes();
    if !bytes.is_ascii() {
        return Err(());
    }
    // SAFETY: ASCII, checked just above, is UTF-8. Checking it again with `from_utf8` cost a
    // legacy POST some 140 instructions.
    let text = unsafe { std::str::from_utf8_unchecked(bytes) };
    Ok(Some(text.trim()))
}

/// The headers the endpoint reads, found in one walk over a request's headers: a lookup by
/// name hashes the name, and a POST asks for some nine of them. Several values: the first.
#[derive(Clone, Copy)]
pub(crate) struct Known<'h> {
    all: &'h HeaderMap,
    host: Option<&'h HeaderValue>,
    origin: Option<&'h HeaderValue>,
    authorization: Option<&'h HeaderValue>,
    content_type: Option<&'h HeaderValue>,
    content_length: Option<&'h HeaderValue>,
    accept: Option<&'h HeaderValue>,
    protocol_version: Option<&'h HeaderValue>,
    session_id: Option<&'h HeaderValue>,
    method: Option<&'h HeaderValue>,
    name: Option<&'h HeaderValue>,
}

impl<'h> Known<'h> {
    pub(crate) fn read(all: &'h HeaderMap) -> Self {
        let mut known = Known {
            all,
            host: None,
            origin: None,
            authorization: None,
            content_type: None,
            content_length: None,
            accept: None,
            protocol_version: None,
            session_id: None,
            method: None,
            name: None,
        };
        for (name, value) in all {
            // The standard names compare as the small numbers `http` keeps them as; only the
            // others are compared as text.
            let slot = if name == header::HOST {
                &mut known.host
            } else if name == header::CONTENT_TYPE {
                &mut known.content_type
            } else if name == header::CONTENT_LENGTH {
                &mut known.content_length
            } else if name == header::ACCEPT {
                &mut known.accept
            } else if name == header::ORIGIN {
                &mut known.origin
            } else if name == header::AUTHORIZATION {
                &mut known.authorization
            } else {
                match name.as_str() {
                    "mcp-protocol-version" => &mut known.protocol_version,
                    "mcp-session-id" => &mut known.session_id,
                    "mcp-method" => &mut known.method,
                    "mcp-name" => &mut known.name,
                    _ => continue,
                }
            };
            slot.get_or_insert(value);
        }
        known
    }

    /// Every header of the request.
    pub(crate) fn all(&self) -> &'h HeaderMap {
        self.all
    }

    /// `MCP-Protocol-Version`, as [`text`] reads it.
    pub(crate) fn protocol_version(&self) -> Result<Option<&'h str>, ()> {
        text(self.protocol_version)
    }

    /// `Mcp-Session-Id`, as [`text`] reads it.
    pub(crate) fn session_id(&self) -> Result<Option<&'h str>, ()> {
        long_text(self.session_id)
    }

    /// `Content-Length`, when it is a number.
    pub(crate) fn content_length(&self) -> Option<u64> {
        let digits = self.content_length?.as_bytes();
        if digits.is_empty() || digits.len() > 19 {
            return None;
        }
        digits.iter().try_fold(0u64, |length, digit| {
            digit
                .is_ascii_digit()
                .then(|| length * 10 + u64::from(digit - b'0'))
        })
    }
}

/// The value of an MCP header that may carry any text: `=?base64?...?=` is decoded (RFC 2047
/// style, as 2026-07-28 uses for names outside visible ASCII). `name` is for messages.
fn decoded<'h>(
    value: Option<&'h HeaderValue>,
    name: &str,
) -> Result<Option<Cow<'h, str>>, ErrorObject> {
    let malformed = || mismatch(format!("the `{name}` header is malformed"));
    let Some(value) = text(value).map_err(|()| malformed())? else {
        return Ok(None);
    };
    match value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => base64_decode(encoded)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(|text| Some(Cow::Owned(text)))
            .ok_or_else(malformed),
        // Plain text, the common case, is borrowed: no allocation per header per request.
        None => Ok(Some(Cow::Borrowed(value))),
    }
}

/// Whether `header` is, byte for byte, `body` written as plain text: what [`decoded`] would
/// give back unchanged, so that [`agree`] would find them equal.
fn plainly_equal(header: Option<&HeaderValue>, body: Option<&str>) -> bool {
    let (Some(header), Some(body)) = (header, body) else {
        return false;
    };
    let bytes = body.as_bytes();
    let blank = |byte: Option<&u8>| matches!(byte, Some(b' ' | b'\t'));
    // A `HeaderValue` holds no control character but tab: ASCII, it is all printable.
    header.as_bytes() == bytes
        && bytes.is_ascii()
        && !blank(bytes.first())
        && !blank(bytes.last())
        && !body.starts_with("=?base64?")
}

#[cold]
fn mismatch(message: String) -> ErrorObject {
    ErrorObject::new(HEADER_MISMATCH, message)
}

/// 2026-07-28: `MCP-Protocol-Version` must equal `_meta`'s version, `Mcp-Method` the method,
/// and `Mcp-Name` the tool or prompt name (`tools/call`, `prompts/get`), the resource URI
/// (`resources/read`) or the task id (`tasks/get`, `tasks/update`, `tasks/cancel`). Intermediaries route and rate-limit on these headers without reading
/// the body, so a request whose headers say something else must not be served.
pub(crate) fn check_modern(
    headers: &Known<'_>,
    method: &str,
    params: Option<&Params>,
) -> Result<(), ErrorObject> {
    let meta_version = params
        .and_then(Params::meta)
        .and_then(|meta| meta.protocol_version.as_ref())
        .and_then(Revision::as_str);
    header_agrees(
        headers.protocol_version,
        ("MCP-Protocol-Version", "mcp-protocol-version"),
        meta_version,
        "`_meta[\"io.modelcontextprotocol/protocolVersion\"]`",
    )?;
    header_agrees(
        headers.method,
        ("Mcp-Method", "mcp-method"),
        Some(method),
        "the method",
    )?;
    // The member, and how an error names it (no message is made unless one is sent).
    let named = match method {
        "tools/call" | "prompts/get" => Some(("name", "`params.name`")),
        "resources/read" => Some(("uri", "`params.uri`")),
        // The tasks extension routes its methods by task, so a task's requests can be pinned
        // to the instance holding it.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some(("taskId", "`params.taskId`")),
        _ => None,
    };
    if let Some((member, field)) = named {
        // A missing or mistyped field is the params' fault, reported by the dispatcher.
        if let Some(body) = params.and_then(|params| params.get_str(member)) {
            header_agrees(headers.name, ("Mcp-Name", "mcp-name"), body, field)?;
        }
    }
    Ok(())
}

/// One tool argument that 2026-07-28 clients repeat in a header, because the tool's input
/// schema marks its property with `"x-mcp-header": "Name"` (header `Mcp-Param-Name`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParamHeader {
    /// The argument (the property's name).
    argument: String,
    /// The header's name, lowercase.
    header: String,
}

/// Tool name -> the arguments it mirrors in headers (tools that mirror none are absent).
pub(crate) type ParamHeaders = HashMap<String, Vec<ParamHeader>>;

/// The mirrored arguments of `tools`, read from the top-level properties of their input
/// schemas. A marker that is not a valid header-name token is ignored (no client can send it).
pub(crate) fn param_headers(tools: impl IntoIterator<Item = ToolDefinition>) -> ParamHeaders {
    let mut all = ParamHeaders::new();
    for tool in tools {
        let Some(Value::Object(properties)) = tool.input_schema.get("properties") else {
            continue;
        };
        let mirrored: Vec<ParamHeader> = properties
            .iter()
            .filter_map(|(argument, schema)| {
                let name = schema.get("x-mcp-header")?.as_str()?;
                let token = !name.is_empty()
                    && name.bytes().all(|byte| {
                        byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
                    });
                token.then(|| ParamHeader {
                    argument: argument.clone(),
                    header: format!("{PARAM_PREFIX}{}", name.to_ascii_lowercase()),
                })
            })
            .collect();
        if !mirrored.is_empty() {
            all.insert(tool.name.into_owned(), mirrored);
        }
    }
    all
}

/// 2026-07-28 `tools/call`: every argument the tool mirrors in a header must be in that header
/// exactly when it is in the body (and not null), with the same value (numbers compared as
/// numbers, booleans as `true`/`false`); values outside visible ASCII come `=?base64?..?=`.
pub(crate) fn check_params(
    headers: &Known<'_>,
    method: &str,
    params: Option<&Params>,
    mirrored: &ParamHeaders,
) -> Result<(), ErrorObject> {
    if method != "tools/call" {
        return Ok(());
    }
    let Some(params) = params else {
        return Ok(());
    };
    let Some(wanted) = params
        .get_str("name")
        .flatten()
        .and_then(|name| mirrored.get(name))
    else {
        return Ok(());
    };
    // Built here only for a tool that mirrors arguments; one that cannot be is no object here,
    // and the call refuses it.
    let built: Option<JsonObject>;
    let arguments = match &params.arguments {
        Some(Arguments::Text(text)) => {
            built = serde_json::from_str(text.get()).ok();
            built.as_ref()
        }
        Some(Arguments::Value(arguments)) => arguments.as_object(),
        None => None,
    };
    for param in wanted {
        let body = arguments
            .and_then(|arguments| arguments.get(&param.argument))
            .filter(|value| !value.is_null());
        let header = decoded(headers.all.get(&param.header), &param.header)?;
        let display = display_name(&param.header);
        match (header, body) {
            (None, None) => {}
            (None, Some(_)) => {
                return Err(mismatch(format!(
                    "missing `{display}` header: 2026-07-28 requests repeat argument `{}` in it",
                    param.argument
                )));
            }
            (Some(value), None) => {
                return Err(mismatch(format!(
                    "the `{display}` header ({value:?}) is sent but argument `{}` is absent",
                    param.argument
                )));
            }
            (Some(value), Some(body)) if same_value(&value, body) => {}
            (Some(value), Some(body)) => {
                return Err(mismatch(format!(
                    "the `{display}` header ({value:?}) does not match argument `{}` ({body})",
                    param.argument
                )));
            }
        }
    }
    Ok(())
}

/// `mcp-param-region` as `Mcp-Param-region`, for messages.
fn display_name(header: &str) -> String {
    format!("Mcp-Param-{}", &header[PARAM_PREFIX.len()..])
}

/// Whether a header's text stands for the JSON value `body`.
fn same_value(text: &str, body: &Value) -> bool {
    match body {
        Value::String(body) => text == body,
        Value::Bool(body) => text == if *body { "true" } else { "false" },
        Value::Number(body) => match (body.as_i64(), body.as_u64()) {
            (Some(body), _) => text.parse::<i64>().is_ok_and(|text| text == body),
            (_, Some(body)) => text.parse::<u64>().is_ok_and(|text| text == body),
            _ => text
                .parse::<f64>()
                .is_ok_and(|text| body.as_f64() == Some(text)),
        },
        other => serde_json::from_str::<Value>(text).is_ok_and(|text| &text == other),
    }
}

/// Whether the header `value` (named `names`: as messages write it, and lowercase) says what
/// the body says (`body`, described as `what`): by one comparison when it is written plainly,
/// else decoded first.
/// Inlined: nearly every request writes its values plainly, and then this is one comparison
/// where it is checked.
#[inline(always)]
fn header_agrees(
    value: Option<&HeaderValue>,
    names: (&str, &str),
    body: Option<&str>,
    what: &str,
) -> Result<(), ErrorObject> {
    if plainly_equal(value, body) {
        return Ok(());
    }
    header_decoded_agrees(value, names, body, what)
}

#[inline(never)]
fn header_decoded_agrees(
    value: Option<&HeaderValue>,
    (name, lowercase): (&str, &str),
    body: Option<&str>,
    what: &str,
) -> Result<(), ErrorObject> {
    agree(name, decoded(value, lowercase)?, body, what)
}

fn agree(
    header: &str,
    value: Option<Cow<'_, str>>,
    body: Option<&str>,
    what: &str,
) -> Result<(), ErrorObject> {
    match (value.as_deref(), body) {
        (Some(value), Some(body)) if value == body => Ok(()),
        (None, _) => Err(mismatch(format!(
            "missing `{header}` header: 2026-07-28 requests repeat {what} in it"
        ))),
        (Some(value), body) => Err(mismatch(format!(
            "the `{header}` header ({value:?}) does not match {what} ({})",
            body.map_or_else(|| "absent".to_owned(), |body| format!("{body:?}"))
        ))),
    }
}

/// Standard base64, padded to a multiple of four characters; `None` for anything else
/// (SEP-2243 has servers reject bad padding and characters outside the alphabet).
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    fn sextet(byte: u8) -> Option<u32> {
        Some(match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    if text.len() % 4 != 0 {
        return None;
    }
    let data = text
        .strip_suffix("==")
        .or_else(|| text.strip_suffix('='))
        .unwrap_or(text);
    let data = data.as_bytes();
    if data.len() % 4 == 1 {
        return None;
    }
    let mut bytes = Vec::with_capacity(data.len() * 3 / 4);
    for chunk in data.chunks(4) {
        let mut bits = 0u32;
        for (i, &byte) in chunk.iter().enumerate() {
            bits |= sextet(byte)? << (18 - 6 * i);
        }
        let produced = chunk.len() - 1;
        bytes.extend_from_slice(&bits.to_be_bytes()[1..1 + produced]);
    }
    Some(bytes)
}

/// The host part (no port, lowercase) of a `host[:port]` or `[v6]:port` authority: borrowed
/// when it is lowercase already, as it nearly always is.
fn host_of(authority: &str) -> Cow<'_, str> {
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or(v6)
    } else {
        authority
            .rsplit_once(':')
            .map_or(authority, |(host, _)| host)
    };
    if host.bytes().any(|byte| byte.is_ascii_uppercase()) {
        Cow::Owned(host.to_ascii_lowercase())
    } else {
        Cow::Borrowed(host)
    }
}

/// Whether a `Host` value is a loopback name as a local client writes it (`127.0.0.1`,
/// `localhost` or `[::1]`, with or without a port): what [`is_loopback_host`] says of it after
/// the value is checked and taken apart, found by comparing bytes, on every request.
fn is_plain_loopback(value: &[u8]) -> bool {
    [&b"127.0.0.1"[..], b"localhost", b"[::1]"]
        .iter()
        .any(|name| match value.strip_prefix(*name) {
            Some([]) => true,
            Some([b':', port @ ..]) => port.iter().all(u8::is_ascii_digit),
            _ => false,
        })
}

fn is_loopback_host(host: &str) -> bool {
    host == "127.0.0.1"
        || host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Whether the request's `Origin` may use this server: absent (not a browser), allowed by the
/// configuration, or a loopback origin.
pub(crate) fn origin_allowed(config: &HttpConfig, headers: &Known<'_>) -> bool {
    let Ok(origin) = text(headers.origin) else {
        return false;
    };
    let Some(origin) = origin else {
        return true;
    };
    if config.any_origin {
        return true;
    }
    let origin = origin.trim_end_matches('/').to_ascii_lowercase();
    if config.allowed_origins.contains(&origin) {
        return true;
    }
    match origin.split_once("://") {
        Some(("http" | "https", authority)) => is_loopback_host(&host_of(authority)),
        _ => false,
    }
}

/// Whether the `Host` header names this server. `loopback_only`: the server listens on a
/// loopback address, so only loopback names are genuine (another name means a DNS-rebinding
/// page is talking to it).
pub(crate) fn host_allowed(config: &HttpConfig, headers: &Known<'_>, loopback_only: bool) -> bool {
    if loopback_only
        && config.allowed_hosts.is_none()
        && headers
            .host
            .is_some_and(|host| is_plain_loopback(host.as_bytes()))
    {
        return true;
    }
    let host = text(headers.host).ok().flatten().map(host_of);
    match (&config.allowed_hosts, host) {
        (Some(allowed), Some(host)) => allowed.iter().any(|allowed| *allowed == host),
        (Some(_), None) => false,
        (None, Some(host)) if loopback_only => is_loopback_host(&host),
        (None, _) => true,
    }
}

/// The W3C trace context headers of a request, if it has a `traceparent`: the fallback of a
/// request whose `_meta` carries none. Repeated `tracestate` and `baggage` lines are one list.
#[cfg(feature = "otel")]
pub(crate) fn trace_context(headers: &HeaderMap) -> Option<crate::middleware::TraceContext> {
    let traceparent = headers.get("traceparent")?.to_str().ok()?;
    let list = |name: &str| {
        let values: Vec<&str> = headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .collect();
        (!values.is_empty()).then(|| values.join(","))
    };
    Some(crate::middleware::TraceContext::new(
        traceparent.to_owned(),
        list("tracestate"),
        list("baggage"),
    ))
}

/// The token of `Authorization: Bearer <token>`.
pub(crate) fn bearer_token<'h>(headers: &Known<'h>) -> Option<&'h str> {
    let value = text(headers.authorization).ok().flatten()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}

/// Whether the `Accept` header admits `media_type` (absent: anything is accepted).
pub(crate) fn accepts(headers: &Known<'_>, media_type: &str) -> bool {
    let Some(accept) = headers.accept else {
        return true;
    };
    // Clients write the media types they take as they are named, in lowercase: finding one
    // as a range of its own answers without taking the header apart (every POST asks this
    // once or twice, and the parse below costs some hundreds of instructions).
    has_range(accept.as_bytes(), media_type.as_bytes())
        || accepts_parsed(accept.as_bytes(), media_type.as_bytes())
}

/// Whether `media_type` is one of the comma-separated ranges of `accept`, exactly (parameters
/// and the blanks around it aside): what [`accepts_parsed`] finds by its first test.
fn has_range(accept: &[u8], media_type: &[u8]) -> bool {
    let is_blank = |byte: &u8| matches!(byte, b' ' | b'\t');
    let Some(&first) = media_type.first() else {
        return false;
    };
    let mut from = 0;
    // By its first byte, then the rest: a searcher for the whole needle costs more to set up
    // than the scan of a header this short.
    while let Some(found) = memchr::memchr(first, &accept[from..]) {
        let start = from + found;
        let end = start + media_type.len();
        if accept.get(start..end) != Some(media_type) {
            from = start + 1;
            continue;
        }
        let opens = accept[..start]
            .iter()
            .rev()
            .find(|byte| !is_blank(byte))
            .is_none_or(|byte| *byte == b',');
        let closes = accept[end..]
            .iter()
            .find(|byte| !is_blank(byte))
            .is_none_or(|byte| matches!(byte, b',' | b';'));
        if opens && closes {
            return true;
        }
        from = start + 1;
    }
    false
}

/// [`accepts`], by taking `accept` apart: case-insensitive, with wildcards.
fn accepts_parsed(accept: &[u8], media_type: &[u8]) -> bool {
    let kind = media_type
        .iter()
        .position(|byte| *byte == b'/')
        .map_or(media_type, |slash| &media_type[..slash]);
    // Bytes, not `str::split` (a byte outside visible ASCII matches no media type, so the
    // value is not checked first).
    accept.split(|byte| *byte == b',').any(|range| {
        let range = range
            .iter()
            .position(|byte| *byte == b';')
            .map_or(range, |semicolon| &range[..semicolon])
            .trim_ascii();
        // Exact bytes first: clients write media types in lowercase.
        range == media_type
            || range.eq_ignore_ascii_case(media_type)
            || range == b"*/*"
            || range
                .strip_suffix(b"/*")
                .is_some_and(|prefix| prefix.eq_ignore_ascii_case(kind))
    })
}

/// Whether the body is declared JSON (`application/json`, parameters allowed).
pub(crate) fn is_json(headers: &Known<'_>) -> bool {
    headers.content_type.is_some_and(|content_type| {
        let content_type = content_type.as_bytes();
        let media_type = content_type
            .iter()
            .position(|byte| *byte == b';')
            .map_or(content_type, |semicolon| &content_type[..semicolon])
            .trim_ascii();
        media_type == b"application/json" || media_type.eq_ignore_ascii_case(b"application/json")
    })
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;
    use serde_json::json;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn every_header_the_transport_reads_is_found_by_its_name_and_the_first_one_counts() {
        let map = headers(&[
            ("Host", "h"),
            ("Origin", "o"),
            ("Authorization", "a"),
            ("Content-Type", "t"),
            ("Content-Length", "12"),
            ("Accept", "x"),
            ("MCP-Protocol-Version", "v"),
            ("Mcp-Session-Id", "s"),
            ("Mcp-Method", "m"),
            ("Mcp-Name", "n"),
            ("Mcp-Name", "second"),
            ("User-Agent", "ignored"),
            ("X-Other", "ignored"),
        ]);
        let known = Known::read(&map);
        fn read(value: Option<&HeaderValue>) -> Option<&str> {
            value.map(|value| value.to_str().unwrap())
        }
        assert_eq!(
            [
                read(known.host),
                read(known.origin),
                read(known.authorization),
                read(known.content_type),
                read(known.accept),
                read(known.method),
                read(known.name),
            ],
            [
                Some("h"),
                Some("o"),
                Some("a"),
                Some("t"),
                Some("x"),
                Some("m"),
                Some("n")
            ]
        );
        assert_eq!(known.content_length(), Some(12));
        assert_eq!(known.protocol_version(), Ok(Some("v")));
        assert_eq!(known.session_id(), Ok(Some("s")));
        let empty = HeaderMap::new();
        let none = Known::read(&empty);
        assert!(none.host.is_none() && none.name.is_none() && none.content_length().is_none());
    }

    fn call_params(name: &str) -> Params {
        match json!({"name": name, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
        {
            Value::Object(map) => map.into(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn base64_must_be_padded_and_in_the_alphabet() {
        assert_eq!(base64_decode("aGk=").unwrap(), b"hi");
        assert_eq!(base64_decode("SGVsbG8=").unwrap(), b"Hello");
        assert_eq!(base64_decode("w6lsw6g=").unwrap(), "élè".as_bytes());
        assert_eq!(base64_decode("").unwrap(), b"");
        assert!(base64_decode("aGk").is_none(), "unpadded");
        assert!(base64_decode("SGVsbG8").is_none(), "unpadded");
        assert!(base64_decode("a===").is_none());
        assert!(base64_decode("a*==").is_none());
        assert!(base64_decode("SGVs!!!bG8=").is_none());
        assert!(base64_decode("aG=k").is_none(), "padding inside");
    }

    fn custom_tool() -> ParamHeaders {
        let Value::Object(input_schema) = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "ratio": {"type": "number", "x-mcp-header": "Ratio"},
            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
            "bad": {"type": "string", "x-mcp-header": "Not A Token"},
            "query": {"type": "string"}
        }}) else {
            unreachable!()
        };
        param_headers([ToolDefinition {
            name: "custom".into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: Default::default(),
            icons: Vec::new(),
            task_support: crate::handler::TaskSupport::Forbidden,
            meta: Default::default(),
        }])
    }

    fn call(arguments: Value) -> Params {
        match json!({"name": "custom", "arguments": arguments}) {
            Value::Object(map) => map.into(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn mirrored_arguments_are_read_from_the_schema() {
        let mirrored = custom_tool();
        let mut names: Vec<_> = mirrored["custom"]
            .iter()
            .map(|param| param.header.as_str())
            .collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "mcp-param-priority",
                "mcp-param-ratio",
                "mcp-param-region",
                "mcp-param-verbose"
            ]
        );
    }

    #[test]
    fn mirrored_arguments_must_match_their_headers() {
        let mirrored = custom_tool();
        let check = |pairs: &[(&'static str, &str)], arguments: Value| {
            check_params(
                &Known::read(&headers(pairs)),
                "tools/call",
                Some(&call(arguments)),
                &mirrored,
            )
        };
        let all = json!({"region": "eu west", "priority": 7, "ratio": 0.5, "verbose": true, "query": "x"});
        let full = [
            ("Mcp-Param-Region", "eu west"),
            ("mcp-param-priority", "7"),
            ("mcp-param-ratio", "0.50"),
            ("mcp-param-verbose", "true"),
        ];
        check(&full, all.clone()).unwrap();
        // Absent or null arguments go without their header.
        check(&[], json!({"query": "x", "verbose": null})).unwrap();
        // Base64 stands for any text; a value without both markers is literal.
        check(
            &[("mcp-param-region", "=?base64?SGVsbG8=?=")],
            json!({"region": "Hello"}),
        )
        .unwrap();
        check(
            &[("mcp-param-region", "=?base64?SGVsbG8=")],
            json!({"region": "=?base64?SGVsbG8="}),
        )
        .unwrap();
        let failures = [
            check(&full[1..], all.clone()),
            check(&[("mcp-param-region", "eu")], json!({})),
            check(&[("mcp-param-region", "eu")], json!({"region": "EU"})),
            check(&[("mcp-param-priority", "7.5")], json!({"priority": 7})),
            check(&[("mcp-param-verbose", "True")], json!({"verbose": true})),
            check(
                &[("mcp-param-region", "=?base64?SGVsbG8?=")],
                json!({"region": "Hello"}),
            ),
            check(
                &[("mcp-param-region", "=?base64?SGVs!!!bG8=?=")],
                json!({"region": "Hello"}),
            ),
        ];
        for (i, failure) in failures.into_iter().enumerate() {
            assert_eq!(failure.unwrap_err().code, HEADER_MISMATCH, "case {i}");
        }
        // Other methods and other tools are not concerned.
        let other = json!({"name": "other", "arguments": {"region": "x"}});
        let Value::Object(other) = other else {
            unreachable!()
        };
        let other = Params::from(other);
        check_params(
            &Known::read(&HeaderMap::new()),
            "tools/call",
            Some(&other),
            &mirrored,
        )
        .unwrap();
        check_params(
            &Known::read(&HeaderMap::new()),
            "prompts/get",
            Some(&call(all)),
            &mirrored,
        )
        .unwrap();
    }

    #[test]
    fn matching_headers_pass_whatever_their_case_and_spacing() {
        let map = headers(&[
            ("MCP-Protocol-Version", " 2026-07-28 "),
            ("mcp-method", "tools/call"),
            ("Mcp-Name", "=?base64?YWRk?="),
        ]);
        check_modern(&Known::read(&map), "tools/call", Some(&call_params("add"))).unwrap();
    }

    #[test]
    fn a_missing_or_different_header_is_a_mismatch() {
        let full = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "add"),
        ];
        for drop in 0..full.len() {
            let partial: Vec<_> = full
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != drop)
                .map(|(_, pair)| *pair)
                .collect();
            let error = check_modern(
                &Known::read(&headers(&partial)),
                "tools/call",
                Some(&call_params("add")),
            )
            .unwrap_err();
            assert_eq!(error.code, HEADER_MISMATCH, "without {:?}", full[drop]);
        }
        let error = check_modern(
            &Known::read(&headers(&full)),
            "tools/call",
            Some(&call_params("sub")),
        )
        .unwrap_err();
        assert!(error.message.contains("Mcp-Name"), "{}", error.message);
        // Values are case-sensitive.
        let upper = headers(&[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "TOOLS/CALL"),
            ("mcp-name", "add"),
        ]);
        assert!(
            check_modern(
                &Known::read(&upper),
                "tools/call",
                Some(&call_params("add"))
            )
            .is_err()
        );
    }

    #[test]
    fn origins_are_checked_against_loopback_and_the_allow_list() {
        let config = HttpConfig::new().allow_origin("https://App.example.com/");
        let allowed =
            |origin: &str| origin_allowed(&config, &Known::read(&headers(&[("origin", origin)])));
        assert!(origin_allowed(&config, &Known::read(&HeaderMap::new())));
        assert!(allowed("http://localhost:3000"));
        assert!(allowed("http://127.0.0.1"));
        assert!(allowed("http://[::1]:8080"));
        assert!(allowed("https://app.example.com"));
        assert!(!allowed("https://evil.example"));
        assert!(!allowed("http://localhost.evil.example"));
        assert!(!allowed("null"));
        assert!(origin_allowed(
            &HttpConfig::new().allow_any_origin(),
            &Known::read(&headers(&[("origin", "https://evil.example")]))
        ));
    }

    #[test]
    fn hosts_are_checked_when_loopback_only_or_configured() {
        let config = HttpConfig::new();
        let host = |value: &str| headers(&[("host", value)]);
        let host_allowed = |config: &HttpConfig, map: &HeaderMap, loopback: bool| {
            host_allowed(config, &Known::read(map), loopback)
        };
        assert!(host_allowed(&config, &host("127.0.0.1:8080"), true));
        assert!(host_allowed(&config, &host("localhost"), true));
        assert!(!host_allowed(&config, &host("evil.example:8080"), true));
        assert!(host_allowed(&config, &host("evil.example:8080"), false));
        let listed = HttpConfig::new().allowed_hosts(["mcp.example.com"]);
        assert!(host_allowed(&listed, &host("MCP.example.com:443"), false));
        assert!(!host_allowed(&listed, &host("127.0.0.1"), false));
    }

    #[test]
    fn known_headers_are_read_in_one_walk_first_value_first() {
        let mut map = headers(&[
            ("Mcp-Session-Id", "first"),
            ("mcp-session-id", "second"),
            ("Content-Length", "17"),
        ]);
        let latin1 = HeaderValue::from_bytes(b"2026-07-28\xe9").unwrap();
        map.append("mcp-protocol-version", latin1);
        map.append("x-other", HeaderValue::from_static("ignored"));
        let known = Known::read(&map);
        assert_eq!(known.session_id(), Ok(Some("first")));
        assert_eq!(known.content_length(), Some(17));
        for (declared, read) in [("0", Some(0)), ("x1", None), ("", None), ("-1", None)] {
            let map = headers(&[("content-length", declared)]);
            assert_eq!(Known::read(&map).content_length(), read, "{declared:?}");
        }
        let longest = headers(&[("content-length", "9999999999999999999")]);
        assert_eq!(
            Known::read(&longest).content_length(),
            Some(9_999_999_999_999_999_999)
        );
        let too_long = headers(&[("content-length", "18446744073709551616")]);
        assert_eq!(Known::read(&too_long).content_length(), None);
        assert_eq!(known.protocol_version(), Err(()));
        let none = HeaderMap::new();
        let known = Known::read(&none);
        assert_eq!(
            (known.session_id(), known.content_length()),
            (Ok(None), None)
        );
    }

    #[test]
    fn bearer_tokens_and_media_types_are_read() {
        assert_eq!(
            bearer_token(&Known::read(&headers(&[(
                "authorization",
                "Bearer abc.def"
            )]))),
            Some("abc.def")
        );
        assert_eq!(
            bearer_token(&Known::read(&headers(&[("authorization", "Basic x")]))),
            None
        );
        let accepts = |map: &HeaderMap, media_type: &str| accepts(&Known::read(map), media_type);
        let is_json = |map: &HeaderMap| is_json(&Known::read(map));
        let accept = headers(&[("accept", "application/json, text/event-stream")]);
        assert!(accepts(&accept, "text/event-stream"));
        assert!(!accepts(
            &headers(&[("accept", "text/html")]),
            "application/json"
        ));
        assert!(accepts(&headers(&[("accept", "*/*")]), "application/json"));
        assert!(is_json(&headers(&[(
            "content-type",
            "application/json; charset=utf-8"
        )])));
        assert!(!is_json(&headers(&[("content-type", "text/plain")])));
    }

    #[test]
    fn a_header_plainly_equal_to_the_body_is_one_the_decoder_agrees_with() {
        for (header, body) in [
            ("2026-07-28", "2026-07-28"),
            ("tools/call", "tools/call"),
            ("a b", "a b"),
            ("", ""),
            (" x", " x"),
            ("x\t", "x\t"),
            ("=?base64?eA==?=", "=?base64?eA==?="),
            ("x", "y"),
        ] {
            let value = HeaderValue::from_str(header).unwrap();
            let decodes_equal = decoded(Some(&value), "h")
                .ok()
                .flatten()
                .is_some_and(|decoded| decoded == body);
            // Plainly equal only where decoding finds them equal too.
            if plainly_equal(Some(&value), Some(body)) {
                assert!(decodes_equal, "{header:?} {body:?}");
            }
        }
        let plain = |header: &str, body: &str| {
            plainly_equal(Some(&HeaderValue::from_str(header).unwrap()), Some(body))
        };
        assert!(plain("2026-07-28", "2026-07-28"));
        assert!(!plain(" x", " x"));
        assert!(!plain("=?base64?eA==?=", "=?base64?eA==?="));
        let raw = HeaderValue::from_bytes("é".as_bytes()).unwrap();
        assert!(!plainly_equal(Some(&raw), Some("é")));
        assert!(!plainly_equal(None, Some("x")));
    }

    #[test]
    fn long_header_text_is_what_to_str_accepts_for_every_byte() {
        for byte in 0..=u8::MAX {
            let Ok(value) = HeaderValue::from_bytes(&[b'a', byte, b'z']) else {
                continue;
            };
            assert_eq!(
                long_text(Some(&value)),
                text(Some(&value)),
                "byte {byte:#04x}"
            );
        }
    }

    #[test]
    fn a_plain_loopback_host_is_what_the_full_check_says_it_is() {
        for value in [
            "127.0.0.1",
            "127.0.0.1:8080",
            "localhost",
            "localhost:1",
            "[::1]",
            "[::1]:443",
            "127.0.0.1:",
            "localhost:80:90",
            "localhostx",
            "127.0.0.10",
            "[::1]x",
            "example.com",
            "LOCALHOST:80",
            " localhost",
        ] {
            let full = text(Some(&HeaderValue::from_str(value).unwrap()))
                .ok()
                .flatten()
                .map(host_of)
                .is_some_and(|host| is_loopback_host(&host));
            // The byte test says yes only where the full one does.
            if is_plain_loopback(value.as_bytes()) {
                assert!(full, "{value:?}");
            }
        }
        assert!(is_plain_loopback(b"127.0.0.1:8080"));
        assert!(is_plain_loopback(b"[::1]"));
        assert!(!is_plain_loopback(b"localhost:80:90"));
        assert!(!is_plain_loopback(b"127.0.0.10"));
    }

    #[test]
    fn finding_a_media_type_as_a_range_agrees_with_taking_the_header_apart() {
        let accepts_both = [
            "application/json, text/event-stream",
            "text/event-stream,application/json",
            "  application/json ;q=0.9 ,\ttext/event-stream ; q=1",
            "Application/JSON, TEXT/event-stream",
            "*/*",
            "application/*, text/*",
        ];
        let accepts_neither = [
            "text/html",
            "application/jsonx, xtext/event-stream",
            "text/html;x=application/json, text/html; text/event-stream",
            "application/json-seq, text/event-streams",
            "",
        ];
        for (accept, expected) in accepts_both
            .iter()
            .map(|accept| (accept, true))
            .chain(accepts_neither.iter().map(|accept| (accept, false)))
        {
            for media_type in ["application/json", "text/event-stream"] {
                let found = has_range(accept.as_bytes(), media_type.as_bytes());
                let parsed = accepts_parsed(accept.as_bytes(), media_type.as_bytes());
                assert_eq!(parsed, expected, "{accept:?} {media_type}");
                // The fast test never says yes where the parse says no.
                assert!(!found || parsed, "{accept:?} {media_type}");
                assert_eq!(
                    accepts(&Known::read(&headers(&[("accept", accept)])), media_type),
                    expected,
                    "{accept:?} {media_type}"
                );
            }
        }
        assert!(has_range(
            b"application/json, text/event-stream",
            b"text/event-stream"
        ));
        assert!(has_range(
            b"x/y, application/json ;q=1",
            b"application/json"
        ));
        assert!(!has_range(b"application/json2", b"application/json"));
    }
}

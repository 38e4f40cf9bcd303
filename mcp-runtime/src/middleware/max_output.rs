//! A cap on the bytes of a result's content.

use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::describe::subject;
use super::response::{content_bytes, contents_bytes, json_bytes};
use super::{BoxError, Layer, Method, Request, Response, Service};
use crate::future::BoxFuture;
use crate::protocol::{CallToolResult, Content, ResourceBody, ResourceContents};

/// Caps what a tool result or a resource read sends, in bytes of content as sent (text as
/// UTF-8, binary data as its base64, structured content as JSON; see
/// [`Response::content_bytes`]).
///
/// Over the cap, by default, the result is truncated: its blocks are kept in order while
/// they fit, the text that crosses the cap is cut (between characters), binary data that
/// does not fit whole is left out, every block after is dropped, and a last text block says
/// so: `[truncated: the result had 123456 bytes; this server sends at most 100000]` (the
/// note counts toward the cap). A tool result whose structured content alone is over the
/// cap is refused instead, since JSON cannot be cut. With [`refuse`](Self::refuse), every
/// result over the cap is refused, with [`OverCap`]: a tool call's client gets a tool error
/// saying how large the result was; a read, an internal error.
///
/// ```
/// use mcp_runtime::middleware::MaxOutputLayer;
///
/// let layer = MaxOutputLayer::new(100_000);
/// # drop(layer);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MaxOutputLayer {
    cap: usize,
    refuse: bool,
}

impl MaxOutputLayer {
    /// At most `bytes` of content in a result.
    pub fn new(bytes: usize) -> Self {
        MaxOutputLayer {
            cap: bytes,
            refuse: false,
        }
    }

    /// Refuse a result over the cap instead of truncating it.
    pub fn refuse(mut self) -> Self {
        self.refuse = true;
        self
    }
}

impl<S> Layer<S> for MaxOutputLayer {
    type Service = MaxOutput<S>;

    fn layer(&self, inner: S) -> MaxOutput<S> {
        MaxOutput {
            inner,
            layer: *self,
        }
    }
}

/// The service [`MaxOutputLayer`] wraps around `S`.
#[derive(Debug, Clone)]
pub struct MaxOutput<S> {
    inner: S,
    layer: MaxOutputLayer,
}

impl<S> Service<Request> for MaxOutput<S>
where
    S: Service<Request, Response = Response>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Response, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let (method, name) = (request.method(), request.name.clone());
        let MaxOutputLayer { cap, refuse } = self.layer;
        let future = self.inner.call(request);
        Box::pin(async move {
            let response = future.await.map_err(Into::into)?;
            let bytes = response.content_bytes();
            if bytes <= cap {
                return Ok(response);
            }
            let over = OverCap {
                method,
                name,
                bytes,
                cap,
            };
            if refuse {
                return Err(over.into());
            }
            match response {
                Response::Tool(result) => Ok(Response::Tool(truncate_tool(result, &over)?)),
                Response::Resource(contents) => {
                    Ok(Response::Resource(truncate_contents(contents, &over)))
                }
                other => Ok(other),
            }
        })
    }
}

/// The note that ends a truncated result.
fn note(over: &OverCap) -> String {
    format!(
        "[truncated: the result had {} bytes; this server sends at most {}]",
        over.bytes, over.cap
    )
}

fn truncate_tool(mut result: CallToolResult, over: &OverCap) -> Result<CallToolResult, OverCap> {
    let structured = result.structured_content.as_ref().map_or(0, json_bytes);
    if structured > over.cap {
        return Err(over.clone());
    }
    let note = note(over);
    let mut budget = over.cap - structured;
    budget = budget.saturating_sub(note.len());
    let mut kept = Vec::new();
    for block in std::mem::take(&mut result.content) {
        let size = content_bytes(&block);
        if size <= budget {
            budget -= size;
            kept.push(block);
            continue;
        }
        kept.extend(cut_content(block, budget));
        break;
    }
    kept.push(Content::text(note));
    result.content = kept;
    Ok(result)
}

fn truncate_contents(contents: Vec<ResourceContents>, over: &OverCap) -> Vec<ResourceContents> {
    let note = note(over);
    let mut budget = over.cap.saturating_sub(note.len());
    let mut kept = Vec::new();
    for item in contents {
        let size = contents_bytes(&item);
        if size <= budget {
            budget -= size;
            kept.push(item);
            continue;
        }
        kept.extend(cut_contents(item, budget));
        break;
    }
    // A read has no other place for the note: an item of the resource itself.
    let uri = over.name.as_deref().unwrap_or_default();
    kept.push(ResourceContents::text(uri, note).with_mime_type("text/plain"));
    kept
}

/// The part of `block` that fits in `budget` bytes: text cut between characters, nothing of
/// binary data.
fn cut_content(block: Content, budget: usize) -> Option<Content> {
    match block {
        Content::Text { text } => cut_text(text, budget).map(Content::text),
        Content::Resource { resource } => {
            cut_contents(resource, budget).map(|resource| Content::Resource { resource })
        }
        Content::Annotated {
            content,
            annotations,
        } => cut_content(*content, budget).map(|content| Content::Annotated {
            content: Box::new(content),
            annotations,
        }),
        Content::Image { .. } | Content::Audio { .. } | Content::ResourceLink(_) => None,
    }
}

fn cut_contents(item: ResourceContents, budget: usize) -> Option<ResourceContents> {
    match item.body {
        ResourceBody::Text(text) => Some(ResourceContents {
            body: ResourceBody::Text(cut_text(text, budget)?),
            ..item
        }),
        ResourceBody::Blob(_) => None,
    }
}

/// `text` cut to at most `budget` bytes at a character boundary; `None` if nothing is left.
fn cut_text(mut text: String, budget: usize) -> Option<String> {
    let mut end = budget.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    (!text.is_empty()).then_some(text)
}

/// A result [`MaxOutputLayer`] refused: it had more bytes of content than the cap.
///
/// ```
/// use mcp_runtime::middleware::{BoxError, OverCap};
///
/// fn too_large(error: &BoxError) -> Option<usize> {
///     error.downcast_ref::<OverCap>().map(OverCap::bytes)
/// }
/// # let _ = too_large;
/// ```
#[derive(Debug, Clone)]
pub struct OverCap {
    method: Method,
    name: Option<Arc<str>>,
    bytes: usize,
    cap: usize,
}

impl OverCap {
    /// The bytes of content the result had.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The most this server sends.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// The request's method.
    pub fn method(&self) -> Method {
        self.method
    }
}

impl fmt::Display for OverCap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} returned {} bytes, more than the {} this server sends",
            subject(self.method, self.name.as_deref()),
            self.bytes,
            self.cap
        )
    }
}

impl std::error::Error for OverCap {}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::middleware::testing::{request, run, tool_call};
    use crate::protocol::Resource;

    fn tool_result(content: Vec<Content>) -> Response {
        Response::Tool(CallToolResult::success(content))
    }

    async fn capped(layer: MaxOutputLayer, response: Response) -> Result<Response, BoxError> {
        run(&layer, tool_call("big").answer(response)).await
    }

    fn blocks(response: &Response) -> &[Content] {
        match response {
            Response::Tool(result) => &result.content,
            other => panic!("not a tool result: {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_result_within_the_cap_is_untouched() {
        let response = tool_result(vec![Content::text("x".repeat(100))]);
        let answered = capped(MaxOutputLayer::new(100).refuse(), response)
            .await
            .unwrap();
        assert_eq!(blocks(&answered), [Content::text("x".repeat(100))]);
    }

    #[tokio::test]
    async fn over_the_cap_blocks_are_kept_while_they_fit_and_the_crossing_text_is_cut() {
        let response = tool_result(vec![
            Content::text("a".repeat(20)),
            Content::text("b".repeat(50)),
            Content::text("c".repeat(42)),
        ]);
        let note = "[truncated: the result had 112 bytes; this server sends at most 100]";

        let answered = capped(MaxOutputLayer::new(100), response).await.unwrap();

        let budget = 100 - note.len() - 20;
        assert_eq!(
            blocks(&answered),
            [
                Content::text("a".repeat(20)),
                Content::text("b".repeat(budget)),
                Content::text(note),
            ]
        );
        assert_eq!(answered.content_bytes(), 100);
    }

    #[tokio::test]
    async fn text_is_cut_between_characters() {
        // 200 bytes of two-byte characters, and 101 - 68 = 33 bytes of room beside the note:
        // the 17th character would cross it.
        let note = "[truncated: the result had 200 bytes; this server sends at most 101]";
        let response = tool_result(vec![Content::text("é".repeat(100))]);

        let answered = capped(MaxOutputLayer::new(101), response).await.unwrap();

        assert_eq!(
            blocks(&answered),
            [Content::text("é".repeat(16)), Content::text(note)]
        );
    }

    #[tokio::test]
    async fn binary_data_that_does_not_fit_whole_is_left_out_with_what_follows() {
        let link = Content::resource_link(Resource::new("file:///a", "a"));
        let response = tool_result(vec![
            Content::text("intro"),
            link.clone(),
            Content::image([0u8; 300], "image/png"),
            Content::text("after"),
        ]);

        let answered = capped(MaxOutputLayer::new(200), response).await.unwrap();

        let content = blocks(&answered);
        assert_eq!(content[..2], [Content::text("intro"), link]);
        assert_eq!(content.len(), 3);
        assert!(matches!(&content[2], Content::Text { text } if text.starts_with("[truncated:")));
    }

    #[tokio::test]
    async fn structured_content_over_the_cap_is_refused_even_when_truncating() {
        let mut result = CallToolResult::success(vec![Content::text("summary")]);
        result.structured_content = Some(json!({"rows": "x".repeat(200)}));
        let bytes = Response::Tool(result.clone()).content_bytes();

        let error = capped(MaxOutputLayer::new(100), Response::Tool(result))
            .await
            .unwrap_err();

        let over = error.downcast_ref::<OverCap>().expect("an OverCap");
        assert_eq!((over.bytes(), over.cap()), (bytes, 100));
        assert_eq!(
            error.to_string(),
            format!("the tool `big` returned {bytes} bytes, more than the 100 this server sends")
        );
    }

    #[tokio::test]
    async fn refusing_refuses_whatever_is_over_the_cap() {
        let response = tool_result(vec![Content::text("x".repeat(101))]);
        let error = capped(MaxOutputLayer::new(100).refuse(), response)
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "the tool `big` returned 101 bytes, more than the 100 this server sends"
        );
    }

    #[tokio::test]
    async fn a_read_is_truncated_item_by_item() {
        let read =
            request(Method::ReadResource, Some("file:///log")).answer(Response::Resource(vec![
                ResourceContents::text("file:///log", "l".repeat(150)),
                ResourceContents::blob("file:///log.gz", vec![0u8; 30]),
            ]));
        let note = "[truncated: the result had 190 bytes; this server sends at most 120]";

        let answered = run(&MaxOutputLayer::new(120), read).await.unwrap();

        let Response::Resource(contents) = answered else {
            panic!("not a read")
        };
        assert_eq!(contents.len(), 2);
        assert_eq!(
            contents[0].body,
            ResourceBody::Text("l".repeat(120 - note.len()))
        );
        assert_eq!(contents[1].body, ResourceBody::Text(note.into()));
        assert_eq!(contents[1].uri, "file:///log");
    }

    #[tokio::test]
    async fn other_responses_pass() {
        let list = request(Method::ListTools, None).answer(Response::Tools(Vec::new()));
        assert!(matches!(
            run(&MaxOutputLayer::new(0).refuse(), list).await,
            Ok(Response::Tools(_))
        ));
    }
}

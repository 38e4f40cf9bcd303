//! Asking an authorization server: key sets, metadata, introspection answers, each within a
//! time limit and a size limit, so that a slow or hostile server can hold neither a request
//! nor memory for long.

use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

/// How long one exchange with an authorization server may take.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(5);

/// The largest answer read: key sets and metadata documents are a few KiB.
pub(crate) const MAX_BODY: usize = 1 << 20;

/// The HTTP client of a verifier, made when first needed: a verifier is rebuilt by each of
/// its options, and a client loads the TLS roots.
#[derive(Default)]
pub(crate) struct Client(OnceLock<Result<reqwest::Client, String>>);

impl Client {
    /// The client, or why there is none (reported by
    /// [`TokenVerifier::check`](super::TokenVerifier::check) at start-up).
    pub(crate) fn get(&self) -> Result<&reqwest::Client, String> {
        self.0
            .get_or_init(|| {
                reqwest::Client::builder()
                    .timeout(TIMEOUT)
                    .connect_timeout(TIMEOUT)
                    // A redirect could lead a POST carrying client credentials elsewhere.
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .map_err(|error| format!("no HTTP client: {error}"))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// GET `url` as JSON.
pub(crate) async fn get_json(client: &reqwest::Client, url: &str) -> Result<Value, String> {
    let response = client
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|error| format!("GET {url}: {}", chain(&error)))?;
    read_json(response, url).await
}

/// A response's body as JSON: a success status, at most [`MAX_BODY`] bytes.
pub(crate) async fn read_json(mut response: reqwest::Response, url: &str) -> Result<Value, String> {
    let status = response.status();
    if !status.is_success() {
        return Err(format!("{url} answered {status}"));
    }
    if response
        .content_length()
        .is_some_and(|length| length > MAX_BODY as u64)
    {
        return Err(format!("{url} answered more than {MAX_BODY} bytes"));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| format!("reading {url}: {}", chain(&error)))?
    {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(format!("{url} answered more than {MAX_BODY} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|error| format!("{url} answered no JSON: {error}"))
}

/// An error with its causes (reqwest's own message leaves out why a request failed: the
/// connection was refused, the name did not resolve, it timed out).
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        text.push_str(": ");
        text.push_str(&error.to_string());
        cause = error.source();
    }
    text
}

//! `WWW-Authenticate: Bearer` challenges (RFC 6750 §3, with RFC 9728's `resource_metadata`),
//! and the HTTP answer to a request refused for want of a scope: 403 `insufficient_scope`
//! naming the scopes (the step-up authorization of 2025-11-25 and later), or 401 for a caller
//! who sent no token.

use http::request::Parts;
use http::{HeaderValue, Response, StatusCode, header};

use super::body::ResponseBody;
use super::config::ProtectedResource;
use super::response::{json_owned, quotable};
use crate::auth::Principal;
use crate::protocol::jsonrpc::{ErrorObject, Outgoing};

/// The challenge's parameters: those given, after the metadata URL when there is one.
pub(crate) fn bearer(
    resource: Option<&ProtectedResource>,
    error: Option<&str>,
    description: Option<&str>,
    scope: Option<&str>,
) -> Option<HeaderValue> {
    let mut params = Vec::new();
    if let Some(resource) = resource {
        params.push(format!("resource_metadata=\"{}\"", resource.metadata_url()));
    }
    if let Some(error) = error {
        params.push(format!("error=\"{error}\""));
    }
    if let Some(description) = description {
        params.push(format!("error_description=\"{}\"", quotable(description)));
    }
    if let Some(scope) = scope {
        params.push(format!("scope=\"{}\"", quotable(scope)));
    }
    let challenge = if params.is_empty() {
        "Bearer".to_owned()
    } else {
        format!("Bearer {}", params.join(", "))
    };
    HeaderValue::from_str(&challenge).ok()
}

/// `answer` as the response to a single request: 200, unless it refuses the caller for want
/// of a scope, which HTTP says with 403 (or 401 without a principal) and a challenge.
pub(crate) fn answered(
    answer: Outgoing,
    parts: &Parts,
    resource: Option<&ProtectedResource>,
    status: StatusCode,
) -> Response<ResponseBody> {
    let code = answer.error_code();
    answered_coded(answer, code, parts, resource, status)
}

/// [`answered`], given the answer's error code (`Outgoing::error_code`) already read.
pub(crate) fn answered_coded(
    answer: Outgoing,
    code: Option<i64>,
    parts: &Parts,
    resource: Option<&ProtectedResource>,
    status: StatusCode,
) -> Response<ResponseBody> {
    if code != Some(i64::from(ErrorObject::INSUFFICIENT_SCOPE)) {
        return json_owned(status, answer);
    }
    let scope = needed_scope(&answer);
    let (status, error) = if parts.extensions.get::<Principal>().is_some() {
        (StatusCode::FORBIDDEN, Some("insufficient_scope"))
    } else {
        // Nobody was named: RFC 6750 §3.1 gives a request without a token no error code.
        (StatusCode::UNAUTHORIZED, None)
    };
    let mut response = json_owned(status, answer);
    if let Some(challenge) = bearer(resource, error, None, scope.as_deref()) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, challenge);
    }
    response
}

/// The scopes an insufficient-scope refusal names (in its `data`).
fn needed_scope(answer: &Outgoing) -> Option<String> {
    let message: serde_json::Value = serde_json::from_slice(answer.as_bytes()).ok()?;
    Some(message["error"]["data"]["scope"].as_str()?.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::jsonrpc::RequestId;

    fn parts(principal: Option<Principal>) -> Parts {
        let (mut parts, ()) = http::Request::new(()).into_parts();
        if let Some(principal) = principal {
            parts.extensions.insert(principal);
        }
        parts
    }

    #[test]
    fn a_scope_refusal_is_403_for_a_principal_and_401_for_nobody() {
        let id = RequestId::Number(1.into());
        let refused = Outgoing::error(
            Some(&id),
            &ErrorObject::insufficient_scope("notes:write".into()),
        );
        let resource = ProtectedResource::new("https://mcp.example/mcp");
        let alice = answered(
            refused.clone(),
            &parts(Some(Principal::new("alice"))),
            Some(&resource),
            StatusCode::OK,
        );
        assert_eq!(alice.status(), StatusCode::FORBIDDEN);
        assert_eq!(
            alice.headers()[header::WWW_AUTHENTICATE],
            "Bearer resource_metadata=\"https://mcp.example/.well-known/oauth-protected-resource/mcp\", \
             error=\"insufficient_scope\", scope=\"notes:write\""
        );
        let nobody = answered(refused, &parts(None), None, StatusCode::OK);
        assert_eq!(nobody.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            nobody.headers()[header::WWW_AUTHENTICATE],
            "Bearer scope=\"notes:write\""
        );
        let other = Outgoing::error(Some(&id), &ErrorObject::invalid_params("x"));
        assert_eq!(
            answered(other, &parts(None), None, StatusCode::OK).status(),
            StatusCode::OK
        );
    }
}

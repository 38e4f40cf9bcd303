//! Reading a token's claims (or an introspection answer, which has the same names): scopes,
//! audiences, times; and where an issuer publishes its metadata.

use serde_json::{Map, Value};

/// The scopes granted: `scope`, a space-separated string (RFC 9068, RFC 7662), else `scp`,
/// a string or an array of strings (as some issuers write it).
pub(crate) fn scopes(claims: &Map<String, Value>) -> Vec<String> {
    let words = |text: &str| {
        text.split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) => words(scope),
        (_, Some(Value::String(scp))) => words(scp),
        (_, Some(Value::Array(scp))) => scp
            .iter()
            .filter_map(Value::as_str)
            .filter(|scope| !scope.is_empty())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether an `aud` claim (a string or an array of strings) names one of `expected`.
pub(crate) fn audience_matches(aud: &Value, expected: &[&str]) -> bool {
    match aud {
        Value::String(aud) => expected.contains(&aud.as_str()),
        Value::Array(auds) => auds
            .iter()
            .filter_map(Value::as_str)
            .any(|aud| expected.contains(&aud)),
        _ => false,
    }
}

/// A time claim (NumericDate: seconds since the epoch, possibly fractional); `Err` when
/// present but not a number.
pub(crate) fn time(claims: &Map<String, Value>, name: &str) -> Result<Option<u64>, String> {
    match claims.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_u64()
            .or_else(|| value.as_f64().filter(|t| *t >= 0.0).map(|t| t as u64))
            .map(Some)
            .ok_or_else(|| format!("the `{name}` claim is not a time")),
    }
}

/// Seconds since the epoch, as token times are written.
pub(crate) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// Where `issuer` may publish its metadata, in the order to try: RFC 8414's
/// `oauth-authorization-server`, inserted between the issuer's origin and its path (§3.1),
/// then OpenID Connect Discovery's `openid-configuration`, appended to the issuer.
pub(crate) fn metadata_urls(issuer: &str) -> [String; 2] {
    let issuer = issuer.trim_end_matches('/');
    let after_scheme = issuer.find("://").map_or(0, |at| at + 3);
    let (origin, path) = match issuer[after_scheme..].find('/') {
        Some(slash) => issuer.split_at(after_scheme + slash),
        None => (issuer, ""),
    };
    [
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{issuer}/.well-known/openid-configuration"),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn claims(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        assert_eq!(scopes(&claims(json!({"scope": "a  b c"}))), ["a", "b", "c"]);
        assert_eq!(scopes(&claims(json!({"scp": "a b"}))), ["a", "b"]);
        assert_eq!(
            scopes(&claims(json!({"scp": ["a", "", 3, "b"]}))),
            ["a", "b"]
        );
        assert_eq!(
            scopes(&claims(json!({"scope": "a", "scp": ["b"]}))),
            ["a"],
            "`scope` is the standard one"
        );
        assert!(scopes(&claims(json!({"scope": 3}))).is_empty());
        assert!(scopes(&claims(json!({}))).is_empty());
    }

    #[test]
    fn an_audience_is_a_string_or_an_array() {
        assert!(audience_matches(&json!("r"), &["r"]));
        assert!(audience_matches(&json!(["x", "r"]), &["r"]));
        assert!(!audience_matches(&json!(["x"]), &["r"]));
        assert!(!audience_matches(&json!(1), &["r"]));
        assert!(!audience_matches(&json!("r"), &[]));
    }

    #[test]
    fn times_are_numbers() {
        let read = claims(json!({"exp": 10, "nbf": 5.5, "iat": "x"}));
        assert_eq!(time(&read, "exp"), Ok(Some(10)));
        assert_eq!(time(&read, "nbf"), Ok(Some(5)));
        assert!(time(&read, "iat").is_err());
        assert_eq!(time(&read, "missing"), Ok(None));
    }

    #[test]
    fn metadata_urls_insert_the_well_known_segment_before_the_issuer_path() {
        assert_eq!(
            metadata_urls("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            metadata_urls("https://auth.example.com/tenant/1/"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant/1",
                "https://auth.example.com/tenant/1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            metadata_urls("http://127.0.0.1:9/"),
            [
                "http://127.0.0.1:9/.well-known/oauth-authorization-server",
                "http://127.0.0.1:9/.well-known/openid-configuration",
            ]
        );
    }
}

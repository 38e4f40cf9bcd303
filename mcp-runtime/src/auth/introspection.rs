//! Opaque access tokens, checked by asking the authorization server (RFC 7662).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value};

use super::Principal;
use super::cache::{self, TokenCache};
use super::claims;
use super::fetch;
use super::verifier::{TokenError, TokenVerifier, VerifyFuture};

/// Checks access tokens at the authorization server's introspection endpoint (RFC 7662): a
/// `POST` of `token=...&token_type_hint=access_token`, authenticated with the
/// [`client_credentials`](Self::client_credentials) when given.
///
/// A token is accepted when the answer says `"active": true`, its `exp` (when present) is not
/// past and its `nbf` not to come (within the [`leeway`](Self::leeway)), its `aud` (when
/// present; [`require_audience`](Self::require_audience) to refuse answers without one)
/// names one of the [`audience`](Self::audience)s (by default this server's resource URL),
/// and its `iss` is the [`issuer`](Self::issuer) when one is set. The [`Principal`] is its
/// `sub`, else its `username`, else its `client_id` (a token a client got for itself); its
/// scopes are the answer's `scope`; every member of the answer is a claim.
///
/// Answers are remembered (by the token's SHA-256 digest) for
/// [`cache_for`](Self::cache_for) (60 s by default; never past the token's `exp`), so a
/// token revoked meanwhile is still accepted until then; inactive answers for at most 10 s.
/// Requests carrying one token at once share one introspection. An endpoint that cannot be
/// reached, or answers an error, makes the request 503, never 401: the client keeps its
/// token.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::auth::Introspection;
/// use mcp_runtime::http::{HttpConfig, ProtectedResource};
///
/// let introspection = Introspection::new("https://auth.example.com/oauth/introspect")
///     .client_credentials("mcp-server", "its secret")
///     .issuer("https://auth.example.com")
///     .cache_for(Duration::from_secs(30));
/// let config = HttpConfig::new()
///     .protected_resource(ProtectedResource::new("https://mcp.example.com/mcp"))
///     .verify_tokens(introspection);
/// # let _ = config;
/// ```
#[derive(Clone)]
pub struct Introspection {
    config: Arc<Config>,
    state: Arc<State>,
}

#[derive(Clone)]
struct Config {
    endpoint: String,
    credentials: Option<(String, String)>,
    audiences: Vec<String>,
    require_audience: bool,
    issuer: Option<String>,
    cache_for: Duration,
    leeway: Duration,
}

struct State {
    client: fetch::Client,
    /// Answers by token: the principal, or why it was refused.
    cache: TokenCache<Answer>,
    /// Introspections under way, by token, for the requests that wait on them.
    in_flight: Mutex<HashMap<[u8; 32], Arc<tokio::sync::OnceCell<Answer>>>>,
    introspections: AtomicU64,
    cache_hits: AtomicU64,
    refused: AtomicU64,
}

/// Counters of an [`Introspection`]'s work since it was made (shared by its clones), for
/// tests and operators.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct IntrospectionStats {
    /// Requests made to the introspection endpoint.
    pub introspections: u64,
    /// Tokens answered from the cache.
    pub cache_hits: u64,
    /// Tokens refused ([`TokenErrorKind::Invalid`](super::TokenErrorKind::Invalid)).
    pub refused: u64,
}

/// How long an inactive answer is remembered at most: a token may be refused for a moment
/// only (the authorization server was behind), so it is asked about again soon.
const INACTIVE_FOR: Duration = Duration::from_secs(10);

/// The endpoint's verdict on a token: the principal, or why it was refused.
type Answer = Result<Principal, String>;

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// How many answers are remembered.
const CACHED_ANSWERS: usize = 10_000;

impl Introspection {
    /// How long an answer is remembered unless [`cache_for`](Self::cache_for) says otherwise.
    pub const DEFAULT_CACHE_FOR: Duration = Duration::from_secs(60);

    /// Ask `endpoint` (the authorization server's `introspection_endpoint`) about each token.
    pub fn new(endpoint: impl Into<String>) -> Self {
        let config = Config {
            endpoint: endpoint.into(),
            credentials: None,
            audiences: Vec::new(),
            require_audience: false,
            issuer: None,
            cache_for: Self::DEFAULT_CACHE_FOR,
            leeway: Duration::from_secs(30),
        };
        Introspection {
            config: Arc::new(config),
            state: Arc::new(State::new()),
        }
    }

    // A changed verifier starts afresh: its clones made before keep what they learnt.
    fn configure(mut self, change: impl FnOnce(&mut Config)) -> Self {
        change(Arc::make_mut(&mut self.config));
        self.state = Arc::new(State::new());
        self
    }

    /// Authenticate to the endpoint as the client `id` with `secret` (HTTP Basic, each
    /// form-urlencoded first, as RFC 6749 §2.3.1 says).
    pub fn client_credentials(self, id: impl Into<String>, secret: impl Into<String>) -> Self {
        let credentials = (id.into(), secret.into());
        self.configure(|config| config.credentials = Some(credentials))
    }

    /// Accept tokens for `audience` (the answer's `aud` names it); repeat for several.
    /// Without one, this server's resource URL.
    pub fn audience(self, audience: impl Into<String>) -> Self {
        let audience = audience.into();
        self.configure(|config| config.audiences.push(audience))
    }

    /// Refuse answers that name no audience (`aud`), rather than accept them.
    pub fn require_audience(self) -> Self {
        self.configure(|config| config.require_audience = true)
    }

    /// Refuse answers whose `iss` is not `issuer` (or that have none).
    pub fn issuer(self, issuer: impl Into<String>) -> Self {
        let issuer = issuer.into();
        self.configure(|config| config.issuer = Some(issuer))
    }

    /// Remember each answer this long (default 60 s; `Duration::ZERO` asks every time).
    pub fn cache_for(self, duration: Duration) -> Self {
        self.configure(|config| config.cache_for = duration)
    }

    /// The clock skew allowed when checking `exp` and `nbf` (default 30 s).
    pub fn leeway(self, leeway: Duration) -> Self {
        self.configure(|config| config.leeway = leeway)
    }

    /// What this verifier (and its clones) did so far.
    pub fn stats(&self) -> IntrospectionStats {
        let state = &self.state;
        IntrospectionStats {
            introspections: state.introspections.load(Ordering::Relaxed),
            cache_hits: state.cache_hits.load(Ordering::Relaxed),
            refused: state.refused.load(Ordering::Relaxed),
        }
    }

    /// The principal `token` was issued to, by the endpoint's answer (or the one
    /// remembered), with `resource` the audience expected unless
    /// [`audience`](Self::audience) named others.
    ///
    /// # Errors
    ///
    /// [`Invalid`](super::TokenErrorKind::Invalid) when the token is refused,
    /// [`Unavailable`](super::TokenErrorKind::Unavailable) when the endpoint could not answer.
    pub async fn verify_token(
        &self,
        token: &str,
        resource: Option<&str>,
    ) -> Result<Principal, TokenError> {
        let state = &self.state;
        let now = claims::now();
        let key = cache::key(token, resource);
        let answer = match state.cache.get(&key, now) {
            Some(answer) => {
                state.cache_hits.fetch_add(1, Ordering::Relaxed);
                answer
            }
            None => self.introspect_once(key, token, resource, now).await?,
        };
        answer.map_err(|why| {
            state.refused.fetch_add(1, Ordering::Relaxed);
            TokenError::invalid(why)
        })
    }

    /// The endpoint's verdict on a token the cache does not know, remembered; requests
    /// asking about one token at once (a client's first burst) share one introspection.
    async fn introspect_once(
        &self,
        key: [u8; 32],
        token: &str,
        resource: Option<&str>,
        now: u64,
    ) -> Result<Answer, TokenError> {
        let state = &self.state;
        let shared = {
            let mut in_flight = lock(&state.in_flight);
            // Looked up again under the lock: an introspection that ended since left its
            // answer in the cache before it left this table.
            if let Some(answer) = state.cache.get(&key, now) {
                state.cache_hits.fetch_add(1, Ordering::Relaxed);
                return Ok(answer);
            }
            in_flight.entry(key).or_default().clone()
        };
        let mut asked = false;
        let answer = shared
            .get_or_try_init(|| {
                asked = true;
                async {
                    let (answer, expires) = self.introspect(token, resource, now).await?;
                    state.cache.insert(key, answer.clone(), expires, now);
                    Ok::<_, TokenError>(answer)
                }
            })
            .await
            .cloned();
        if !asked && answer.is_ok() {
            state.cache_hits.fetch_add(1, Ordering::Relaxed);
        }
        let mut in_flight = lock(&state.in_flight);
        if in_flight
            .get(&key)
            .is_some_and(|current| Arc::ptr_eq(current, &shared))
        {
            in_flight.remove(&key);
        }
        answer
    }

    /// The endpoint's verdict, and until when to remember it; `Err` when there is none.
    async fn introspect(
        &self,
        token: &str,
        resource: Option<&str>,
        now: u64,
    ) -> Result<(Answer, u64), TokenError> {
        let config = &self.config;
        let client = self.state.client.get().map_err(TokenError::unavailable)?;
        let mut request = client
            .post(&config.endpoint)
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&[("token", token), ("token_type_hint", "access_token")]);
        if let Some((id, secret)) = &config.credentials {
            request = request.basic_auth(form_encoded(id), Some(form_encoded(secret)));
        }
        self.state.introspections.fetch_add(1, Ordering::Relaxed);
        let url = &config.endpoint;
        let answer = match request.send().await {
            Ok(response) => fetch::read_json(response, url).await,
            Err(error) => Err(format!("POST {url}: {}", fetch::chain(&error))),
        };
        // The transport logs why, with the request it failed.
        let answer = answer.map_err(TokenError::unavailable)?;
        let Value::Object(answer) = answer else {
            return Err(TokenError::unavailable(format!(
                "{url} answered something else than an object"
            )));
        };
        let verdict = self.judge(answer, resource, now);
        let remember = match &verdict {
            Ok(_) => config.cache_for,
            Err(_) => config.cache_for.min(INACTIVE_FOR),
        };
        let mut expires = now.saturating_add(remember.as_secs());
        if let Ok((_, Some(exp))) = &verdict {
            expires = expires.min(*exp);
        }
        Ok((verdict.map(|(principal, _)| principal), expires))
    }

    /// Whether an answer accepts the token: its principal and `exp` if so, why not else.
    fn judge(
        &self,
        answer: Map<String, Value>,
        resource: Option<&str>,
        now: u64,
    ) -> Result<(Principal, Option<u64>), String> {
        let config = &self.config;
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err("the authorization server says the token is not active".to_owned());
        }
        let leeway = config.leeway.as_secs();
        let exp = claims::time(&answer, "exp")?;
        if exp.is_some_and(|exp| exp.saturating_add(leeway) <= now) {
            return Err("the token has expired (`exp`)".to_owned());
        }
        if claims::time(&answer, "nbf")?.is_some_and(|nbf| nbf > now.saturating_add(leeway)) {
            return Err("the token is not valid yet (`nbf`)".to_owned());
        }
        let audiences: Vec<&str> = if config.audiences.is_empty() {
            resource.into_iter().collect()
        } else {
            config.audiences.iter().map(String::as_str).collect()
        };
        match answer.get("aud") {
            Some(aud) if !audiences.is_empty() && !claims::audience_matches(aud, &audiences) => {
                return Err("the token is for another audience (`aud`)".to_owned());
            }
            None if config.require_audience => {
                return Err("the answer names no audience (`aud`)".to_owned());
            }
            _ => {}
        }
        if let Some(issuer) = &config.issuer
            && answer.get("iss").and_then(Value::as_str) != Some(issuer.as_str())
        {
            return Err("the token is from another issuer (`iss`)".to_owned());
        }
        let subject = ["sub", "username", "client_id"]
            .iter()
            .find_map(|name| answer.get(*name).and_then(Value::as_str))
            .filter(|subject| !subject.is_empty())
            .ok_or("the answer names no subject (`sub`, `username` or `client_id`)")?
            .to_owned();
        let scopes = claims::scopes(&answer);
        Ok((
            Principal::new(subject)
                .with_scopes(scopes)
                .with_claims(answer),
            exp,
        ))
    }
}

/// `text` form-urlencoded (`application/x-www-form-urlencoded`).
fn form_encoded(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

impl State {
    fn new() -> Self {
        State {
            client: fetch::Client::default(),
            cache: TokenCache::new(CACHED_ANSWERS),
            in_flight: Mutex::default(),
            introspections: AtomicU64::new(0),
            cache_hits: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        }
    }
}

impl std::fmt::Debug for Introspection {
    // Not the client secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let config = &self.config;
        f.debug_struct("Introspection")
            .field("endpoint", &config.endpoint)
            .field("client_id", &config.credentials.as_ref().map(|(id, _)| id))
            .field("audiences", &config.audiences)
            .field("require_audience", &config.require_audience)
            .field("issuer", &config.issuer)
            .field("cache_for", &config.cache_for)
            .finish_non_exhaustive()
    }
}

impl TokenVerifier for Introspection {
    fn verify<'a>(&'a self, token: &'a str, resource: Option<&'a str>) -> VerifyFuture<'a> {
        Box::pin(self.verify_token(token, resource))
    }

    fn check(&self, resource: Option<&str>) -> Result<(), String> {
        let config = &self.config;
        if config.require_audience && config.audiences.is_empty() && resource.is_none() {
            return Err(format!(
                "the introspection at {} requires an audience but has none to expect: give \
                 it one (`audience`), or the HTTP config a `protected_resource`",
                config.endpoint
            ));
        }
        self.state.client.get().map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn judge(introspection: &Introspection, answer: Value) -> Result<Principal, String> {
        introspection
            .judge(
                answer.as_object().unwrap().clone(),
                Some("https://r/mcp"),
                1000,
            )
            .map(|(principal, _)| principal)
    }

    #[test]
    fn the_subject_is_sub_else_username_else_client_id() {
        let introspection = Introspection::new("http://127.0.0.1:9/introspect");
        let active = |extra: Value| {
            let mut answer = json!({"active": true, "scope": "a b"});
            answer
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            judge(&introspection, answer)
        };
        let principal = active(json!({"sub": "s", "username": "u"})).unwrap();
        assert_eq!(principal.subject(), "s");
        assert_eq!(principal.scopes().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(principal.claim("username").unwrap(), "u");
        assert_eq!(
            active(json!({"username": "u", "client_id": "c"}))
                .unwrap()
                .subject(),
            "u"
        );
        assert_eq!(active(json!({"client_id": "c"})).unwrap().subject(), "c");
        assert!(active(json!({})).is_err());
    }

    #[test]
    fn answers_are_judged_on_activity_times_audience_and_issuer() {
        let plain = Introspection::new("http://127.0.0.1:9/introspect");
        assert!(judge(&plain, json!({"active": false, "sub": "s"})).is_err());
        assert!(judge(&plain, json!({"active": "true", "sub": "s"})).is_err());
        assert!(judge(&plain, json!({"active": true, "sub": "s", "exp": 900})).is_err());
        assert!(
            judge(&plain, json!({"active": true, "sub": "s", "exp": 980})).is_ok(),
            "leeway"
        );
        assert!(judge(&plain, json!({"active": true, "sub": "s", "nbf": 1100})).is_err());
        assert!(
            judge(
                &plain,
                json!({"active": true, "sub": "s", "aud": "https://r/mcp"})
            )
            .is_ok()
        );
        assert!(
            judge(
                &plain,
                json!({"active": true, "sub": "s", "aud": ["other"]})
            )
            .is_err()
        );
        assert!(judge(&plain, json!({"active": true, "sub": "s"})).is_ok());
        let strict = plain.clone().require_audience().issuer("https://as");
        assert!(
            judge(
                &strict,
                json!({"active": true, "sub": "s", "iss": "https://as"})
            )
            .is_err()
        );
        assert!(
            judge(
                &strict,
                json!({"active": true, "sub": "s", "iss": "https://as", "aud": "https://r/mcp"})
            )
            .is_ok()
        );
        assert!(
            judge(
                &strict,
                json!({"active": true, "sub": "s", "aud": "https://r/mcp"})
            )
            .is_err()
        );
    }

    #[test]
    fn credentials_are_form_encoded() {
        assert_eq!(form_encoded("a b:c%"), "a+b%3Ac%25");
    }
}

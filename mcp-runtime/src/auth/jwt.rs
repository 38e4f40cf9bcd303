//! JWT access tokens (RFC 9068) checked against the issuer's published key set (JWKS).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::Principal;
use super::cache::{self, TokenCache};
use super::claims;
use super::fetch;
use super::verifier::{TokenError, TokenVerifier, VerifyFuture};

/// Verifies JWT access tokens (RFC 9068) by the keys its issuer publishes (a JWKS document),
/// fetched when first needed and again when a token names a key the set lacks.
///
/// A token is accepted when all of these hold:
///
/// * its signature verifies with the key its header's `kid` names, by an asymmetric
///   algorithm among [`algorithms`](Self::algorithms) (never `none`, never HMAC: a public
///   key cannot be a shared secret); the key's own `alg`, when it has one, is the header's;
///   the key can do that algorithm (an RSA key for `RS*`/`PS*`, P-256 for `ES256`, P-384 for
///   `ES384`, Ed25519 for `EdDSA`). Keys whose `use` is not `sig` are ignored. A token
///   without `kid` is checked only against a set with exactly one key for its algorithm;
/// * `iss` is the issuer, exactly;
/// * `aud` names one of the [`audience`](Self::audience)s, by default this server's resource
///   URL (its [`ProtectedResource`](crate::http::ProtectedResource));
/// * `exp` is present and not past, `nbf` (when present) is not to come, each within the
///   [`leeway`](Self::leeway);
/// * `sub` is present (RFC 9068 requires it): it becomes the [`Principal`]'s subject; the
///   scopes are the space-separated `scope` claim, else `scp` (a string or an array); every
///   claim is kept ([`Principal::claims`]).
///
/// The header's `typ` is not checked: many issuers do not write RFC 9068's `at+jwt`.
///
/// A verified token is remembered (by its SHA-256 digest) until its `exp`, so each token's
/// signature is checked once in its lifetime. An unknown `kid` fetches the key set again at
/// most once per [`min_refetch_interval`](Self::min_refetch_interval), and requests that miss
/// together share one fetch: a flood of forged tokens cannot flood the issuer. A fetch that
/// fails keeps the keys already known; a key removed from the set stops verifying once the
/// set has been fetched again (then tokens remembered are checked again, so those it signed
/// are refused too). The set is fetched again only for an unknown `kid`: an issuer that
/// withdraws a key without publishing a new one is noticed when a token names the new one.
/// While no key set could be fetched yet, requests are answered 503 (the client keeps its
/// token), and the fetch is tried again at most once per interval.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::auth::JwtVerifier;
/// use mcp_runtime::http::{HttpConfig, ProtectedResource};
///
/// let verifier = JwtVerifier::discover("https://auth.example.com")
///     .leeway(Duration::from_secs(10))
///     .algorithms(["RS256", "ES256"]);
/// let config = HttpConfig::new()
///     .protected_resource(
///         ProtectedResource::new("https://mcp.example.com/mcp")
///             .authorization_server("https://auth.example.com"),
///     )
///     .verify_tokens(verifier);
/// # let _ = config;
/// ```
#[derive(Clone)]
pub struct JwtVerifier {
    config: Arc<Config>,
    state: Arc<State>,
}

#[derive(Clone)]
struct Config {
    issuer: String,
    /// The key set's URL; `None` to find it in the issuer's metadata.
    jwks_url: Option<String>,
    audiences: Vec<String>,
    leeway: Duration,
    algorithms: Vec<Algorithm>,
    /// Names given to [`JwtVerifier::algorithms`] that are no asymmetric algorithm.
    refused_algorithms: Vec<String>,
    cache_capacity: usize,
    min_refetch_interval: Duration,
    required_claims: Vec<String>,
}

/// What a verifier learns while it works; shared by its clones.
struct State {
    client: fetch::Client,
    keys: RwLock<Arc<KeySet>>,
    /// Held while the key set is fetched, so that requests missing together fetch once.
    fetching: tokio::sync::Mutex<Fetching>,
    /// Found in the issuer's metadata, once.
    discovered_jwks_url: OnceLock<String>,
    cache: Option<TokenCache<(Principal, u64)>>,
    signature_checks: AtomicU64,
    cache_hits: AtomicU64,
    key_fetches: AtomicU64,
    refused: AtomicU64,
}

#[derive(Default)]
struct Fetching {
    /// The last fetch for a token whose `kid` was unknown.
    last_refetch: Option<Instant>,
    /// The last fetch that failed, and why.
    last_failure: Option<(Instant, String)>,
}

/// The keys known, and how many times they were fetched (0: never yet).
#[derive(Default)]
struct KeySet {
    keys: Vec<Key>,
    generation: u64,
}

/// One verification key of the set.
struct Key {
    kid: Option<String>,
    /// The one algorithm the key is for, when its JWK says.
    alg: Option<Algorithm>,
    kind: KeyKind,
    /// The public key's components as published, to tell whether a refetched set still has it.
    material: String,
    decoding: DecodingKey,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Rsa,
    P256,
    P384,
    Ed25519,
}

impl KeyKind {
    fn can_verify(self, alg: Algorithm) -> bool {
        use Algorithm::*;
        match self {
            KeyKind::Rsa => matches!(alg, RS256 | RS384 | RS512 | PS256 | PS384 | PS512),
            KeyKind::P256 => alg == ES256,
            KeyKind::P384 => alg == ES384,
            KeyKind::Ed25519 => alg == EdDSA,
        }
    }
}

/// Counters of a [`JwtVerifier`]'s work since it was made (shared by its clones), for tests
/// and operators.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct JwtStats {
    /// Signatures checked: tokens verified in full.
    pub signature_checks: u64,
    /// Tokens accepted from the cache, without checking their signature again.
    pub cache_hits: u64,
    /// Key set fetches attempted (the first, and those for unknown `kid`s).
    pub key_fetches: u64,
    /// Tokens refused ([`TokenErrorKind::Invalid`](super::TokenErrorKind::Invalid)).
    pub refused: u64,
}

/// Every asymmetric algorithm jsonwebtoken verifies.
const ASYMMETRIC: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

impl JwtVerifier {
    /// How many verified tokens are remembered unless [`cache_tokens`](Self::cache_tokens)
    /// says otherwise.
    pub const DEFAULT_CACHED_TOKENS: usize = 10_000;
    /// The clock skew allowed unless [`leeway`](Self::leeway) says otherwise.
    pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);
    /// How often an unknown `kid` may fetch the key set unless
    /// [`min_refetch_interval`](Self::min_refetch_interval) says otherwise.
    pub const DEFAULT_MIN_REFETCH_INTERVAL: Duration = Duration::from_secs(30);

    /// Tokens issued by `issuer` (their `iss`, exactly), signed by the keys published at
    /// `jwks_url`.
    pub fn new(issuer: impl Into<String>, jwks_url: impl Into<String>) -> Self {
        Self::with(issuer.into(), Some(jwks_url.into()))
    }

    /// Tokens issued by `issuer`, signed by the keys whose URL (`jwks_uri`) its metadata
    /// names: RFC 8414's `/.well-known/oauth-authorization-server` (inserted before the
    /// issuer's path, if it has one), else OpenID Connect's `/.well-known/openid-configuration`.
    /// The metadata is read when the first token arrives; its `issuer` must be `issuer`.
    pub fn discover(issuer: impl Into<String>) -> Self {
        Self::with(issuer.into(), None)
    }

    fn with(issuer: String, jwks_url: Option<String>) -> Self {
        let config = Config {
            issuer,
            jwks_url,
            audiences: Vec::new(),
            leeway: Self::DEFAULT_LEEWAY,
            algorithms: ASYMMETRIC.to_vec(),
            refused_algorithms: Vec::new(),
            cache_capacity: Self::DEFAULT_CACHED_TOKENS,
            min_refetch_interval: Self::DEFAULT_MIN_REFETCH_INTERVAL,
            required_claims: Vec::new(),
        };
        JwtVerifier {
            state: Arc::new(State::new(&config)),
            config: Arc::new(config),
        }
    }

    // A changed verifier starts afresh: its clones made before keep what they learnt.
    fn configure(mut self, change: impl FnOnce(&mut Config)) -> Self {
        change(Arc::make_mut(&mut self.config));
        self.state = Arc::new(State::new(&self.config));
        self
    }

    /// Accept tokens for `audience` (their `aud` names it); repeat for several. Without
    /// one, tokens must be for this server's resource URL.
    pub fn audience(self, audience: impl Into<String>) -> Self {
        let audience = audience.into();
        self.configure(|config| config.audiences.push(audience))
    }

    /// The clock skew allowed when checking `exp` and `nbf` (default 30 s).
    pub fn leeway(self, leeway: Duration) -> Self {
        self.configure(|config| config.leeway = leeway)
    }

    /// Accept signatures by these algorithms only (JWA names: `"RS256"`, `"ES256"`,
    /// `"EdDSA"`, ...; default: all of RS256/384/512, PS256/384/512, ES256/384 and EdDSA).
    /// HMAC (`HS*`), `none` and unknown names are refused when the server starts.
    pub fn algorithms<I>(self, algorithms: I) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut accepted = Vec::new();
        let mut refused = Vec::new();
        for name in algorithms {
            let name = name.as_ref();
            match name.parse::<Algorithm>() {
                Ok(alg) if ASYMMETRIC.contains(&alg) => accepted.push(alg),
                _ => refused.push(name.to_owned()),
            }
        }
        self.configure(|config| {
            config.algorithms = accepted;
            config.refused_algorithms = refused;
        })
    }

    /// Remember up to `max_entries` verified tokens until they expire (default 10 000); 0
    /// checks every token's signature on every request. A full cache drops expired tokens,
    /// then the oldest.
    pub fn cache_tokens(self, max_entries: usize) -> Self {
        self.configure(|config| config.cache_capacity = max_entries)
    }

    /// Fetch the key set for an unknown `kid` at most once per `interval` (default 30 s);
    /// tokens naming keys still unknown meanwhile are refused.
    pub fn min_refetch_interval(self, interval: Duration) -> Self {
        self.configure(|config| config.min_refetch_interval = interval)
    }

    /// Refuse tokens without each of these claims (any value), beyond `iss`, `aud`, `exp`
    /// and `sub`, which are always required.
    pub fn required_claims<I>(self, claims: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let claims: Vec<String> = claims.into_iter().map(Into::into).collect();
        self.configure(|config| config.required_claims.extend(claims))
    }

    /// What this verifier (and its clones) did so far.
    pub fn stats(&self) -> JwtStats {
        let state = &self.state;
        JwtStats {
            signature_checks: state.signature_checks.load(Ordering::Relaxed),
            cache_hits: state.cache_hits.load(Ordering::Relaxed),
            key_fetches: state.key_fetches.load(Ordering::Relaxed),
            refused: state.refused.load(Ordering::Relaxed),
        }
    }

    /// The principal `token` was issued to, with `resource` the audience expected unless
    /// [`audience`](Self::audience) named others.
    ///
    /// # Errors
    ///
    /// [`Invalid`](super::TokenErrorKind::Invalid) when the token is refused,
    /// [`Unavailable`](super::TokenErrorKind::Unavailable) when the key set could not be
    /// fetched and none is known.
    pub async fn verify_token(
        &self,
        token: &str,
        resource: Option<&str>,
    ) -> Result<Principal, TokenError> {
        let state = &self.state;
        let now = claims::now();
        let key = state.cache.as_ref().map(|_| cache::key(token, resource));
        if let (Some(cache), Some(key)) = (&state.cache, &key)
            && let Some((principal, _)) = cache.get(key, now)
        {
            state.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(principal);
        }
        match self.verify_uncached(token, resource).await {
            Ok((principal, expires)) => {
                if let (Some(cache), Some(key)) = (&state.cache, key) {
                    cache.insert(key, (principal.clone(), expires), expires, now);
                }
                Ok(principal)
            }
            Err(error) => {
                if error.kind() == super::TokenErrorKind::Invalid {
                    state.refused.fetch_add(1, Ordering::Relaxed);
                }
                Err(error)
            }
        }
    }

    /// The principal and the token's `exp`.
    async fn verify_uncached(
        &self,
        token: &str,
        resource: Option<&str>,
    ) -> Result<(Principal, u64), TokenError> {
        let config = &self.config;
        let header = jsonwebtoken::decode_header(token).map_err(|error| {
            TokenError::invalid(format!("malformed token: {}", describe(&error)))
        })?;
        let alg = header.alg;
        if !config.algorithms.contains(&alg) {
            return Err(TokenError::invalid(format!(
                "the algorithm {alg:?} is not accepted"
            )));
        }
        let audiences: Vec<&str> = if config.audiences.is_empty() {
            resource.into_iter().collect()
        } else {
            config.audiences.iter().map(String::as_str).collect()
        };
        if audiences.is_empty() {
            return Err(TokenError::invalid(
                "no audience to check the token against",
            ));
        }
        let kid = header.kid.as_deref();
        let mut keys = self.keys().await?;
        let key = match find(&keys, kid, alg) {
            Ok(key) => key,
            Err(Missing::Unknown) => {
                keys = self.refresh(keys.generation, true).await?;
                find(&keys, kid, alg).map_err(|missing| missing.error(kid))?
            }
            Err(missing) => return Err(missing.error(kid)),
        };
        if let Some(key_alg) = key.alg
            && key_alg != alg
        {
            return Err(TokenError::invalid(format!(
                "the token says {alg:?} but its key {:?} is for {key_alg:?}",
                key.kid
            )));
        }
        if !key.kind.can_verify(alg) {
            return Err(TokenError::invalid(format!(
                "the token says {alg:?} but its key {:?} is {:?}",
                key.kid, key.kind
            )));
        }
        let mut validation = Validation::new(alg);
        validation.leeway = config.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&config.issuer]);
        validation.set_audience(&audiences);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        self.state.signature_checks.fetch_add(1, Ordering::Relaxed);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation)
            .map_err(|error| TokenError::invalid(describe(&error)))?;
        let claims = data.claims;
        for required in &config.required_claims {
            if !claims.contains_key(required) {
                return Err(TokenError::invalid(format!("no `{required}` claim")));
            }
        }
        let subject = match claims.get("sub") {
            Some(Value::String(subject)) if !subject.is_empty() => subject.clone(),
            _ => return Err(TokenError::invalid("the `sub` claim is not a string")),
        };
        let expires = claims::time(&claims, "exp")
            .map_err(TokenError::invalid)?
            .unwrap_or(0);
        let principal = Principal::new(subject)
            .with_scopes(claims::scopes(&claims))
            .with_claims(claims);
        Ok((principal, expires))
    }

    /// The keys known, fetched first if they never were.
    async fn keys(&self) -> Result<Arc<KeySet>, TokenError> {
        let keys = self.current();
        if keys.generation > 0 {
            return Ok(keys);
        }
        self.refresh(0, false).await
    }

    fn current(&self) -> Arc<KeySet> {
        self.state
            .keys
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Fetch the key set, unless another request did since `seen` was current, or (for an
    /// unknown `kid`) one did within the minimum interval, or the last attempt failed within
    /// it. Answers the key set then current.
    async fn refresh(&self, seen: u64, unknown_kid: bool) -> Result<Arc<KeySet>, TokenError> {
        let mut fetching = self.state.fetching.lock().await;
        let current = self.current();
        if current.generation != seen {
            return Ok(current);
        }
        let interval = self.config.min_refetch_interval;
        if let Some((failed, why)) = &fetching.last_failure
            && failed.elapsed() < interval
        {
            return if current.generation == 0 || unknown_kid {
                Err(TokenError::unavailable(format!(
                    "the key set could not be fetched lately: {why}"
                )))
            } else {
                Ok(current)
            };
        }
        if unknown_kid {
            if fetching
                .last_refetch
                .is_some_and(|last| last.elapsed() < interval)
            {
                return Ok(current);
            }
            fetching.last_refetch = Some(Instant::now());
        }
        match self.fetch_keys().await {
            Ok(keys) => {
                tracing::info!(
                    issuer = %self.config.issuer,
                    keys = keys.len(),
                    "fetched the issuer's key set"
                );
                fetching.last_failure = None;
                // Tokens remembered may have been verified by a key the issuer withdrew
                // (rotated out, or compromised): they are checked again.
                let withdrawn = current.keys.iter().any(|old| {
                    !keys
                        .iter()
                        .any(|new| new.kid == old.kid && new.material == old.material)
                });
                if withdrawn && let Some(cache) = &self.state.cache {
                    cache.clear();
                }
                let fresh = Arc::new(KeySet {
                    keys,
                    generation: current.generation + 1,
                });
                *self
                    .state
                    .keys
                    .write()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = fresh.clone();
                Ok(fresh)
            }
            Err(why) => {
                tracing::warn!(
                    issuer = %self.config.issuer,
                    reason = %why,
                    "could not fetch the issuer's key set; keeping the keys known"
                );
                fetching.last_failure = Some((Instant::now(), why.clone()));
                Err(TokenError::unavailable(why))
            }
        }
    }

    async fn fetch_keys(&self) -> Result<Vec<Key>, String> {
        let client = self.state.client.get()?;
        let url = match &self.config.jwks_url {
            Some(url) => url.clone(),
            None => self.discover_jwks_url(client).await?,
        };
        self.state.key_fetches.fetch_add(1, Ordering::Relaxed);
        let document = fetch::get_json(client, &url).await?;
        let keys = parse_key_set(&document);
        if keys.is_empty() {
            return Err(format!("the key set at {url} has no usable key"));
        }
        Ok(keys)
    }

    async fn discover_jwks_url(&self, client: &reqwest::Client) -> Result<String, String> {
        if let Some(url) = self.state.discovered_jwks_url.get() {
            return Ok(url.clone());
        }
        let issuer = &self.config.issuer;
        let mut failures = Vec::new();
        for url in claims::metadata_urls(issuer) {
            let metadata = match fetch::get_json(client, &url).await {
                Ok(metadata) => metadata,
                Err(why) => {
                    failures.push(why);
                    continue;
                }
            };
            // RFC 8414 §3.3: metadata naming another issuer must not be used.
            if metadata.get("issuer").and_then(Value::as_str) != Some(issuer.as_str()) {
                return Err(format!("the metadata at {url} is for another issuer"));
            }
            let Some(jwks_uri) = metadata.get("jwks_uri").and_then(Value::as_str) else {
                return Err(format!("the metadata at {url} names no `jwks_uri`"));
            };
            return Ok(self
                .state
                .discovered_jwks_url
                .get_or_init(|| jwks_uri.to_owned())
                .clone());
        }
        Err(failures.join("; "))
    }
}

impl State {
    fn new(config: &Config) -> Self {
        State {
            client: fetch::Client::default(),
            keys: RwLock::default(),
            fetching: tokio::sync::Mutex::default(),
            discovered_jwks_url: OnceLock::new(),
            cache: (config.cache_capacity > 0).then(|| TokenCache::new(config.cache_capacity)),
            signature_checks: AtomicU64::new(0),
            cache_hits: AtomicU64::new(0),
            key_fetches: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        }
    }
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.config.issuer)
            .field("jwks_url", &self.config.jwks_url)
            .field("audiences", &self.config.audiences)
            .field("leeway", &self.config.leeway)
            .field("algorithms", &self.config.algorithms)
            .field("cache_tokens", &self.config.cache_capacity)
            .field("min_refetch_interval", &self.config.min_refetch_interval)
            .finish_non_exhaustive()
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str, resource: Option<&'a str>) -> VerifyFuture<'a> {
        Box::pin(self.verify_token(token, resource))
    }

    fn check(&self, resource: Option<&str>) -> Result<(), String> {
        let config = &self.config;
        let named = format!("the JWT verifier for {}", config.issuer);
        if config.issuer.is_empty() {
            return Err("the JWT verifier has no issuer".to_owned());
        }
        if !config.refused_algorithms.is_empty() {
            return Err(format!(
                "{named} was given algorithms it does not accept (only asymmetric ones: \
                 RS256/384/512, PS256/384/512, ES256/384, EdDSA): {}",
                config.refused_algorithms.join(", ")
            ));
        }
        if config.algorithms.is_empty() {
            return Err(format!("{named} accepts no algorithm"));
        }
        if config.audiences.is_empty() && resource.is_none() {
            return Err(format!(
                "{named} has no audience to expect: give it one (`audience`), or the HTTP \
                 config a `protected_resource`"
            ));
        }
        self.state.client.get().map(|_| ())
    }
}

/// Why no key was found for a token.
enum Missing {
    /// No key has the token's `kid` (or, without one, none can verify its algorithm).
    Unknown,
    /// The token names no `kid`, and several keys could verify it.
    Ambiguous,
}

impl Missing {
    fn error(&self, kid: Option<&str>) -> TokenError {
        match (self, kid) {
            (Missing::Unknown, Some(kid)) => {
                TokenError::invalid(format!("no key {kid:?} in the key set"))
            }
            (Missing::Unknown, None) => {
                TokenError::invalid("no `kid`, and no key in the set for the token's algorithm")
            }
            (Missing::Ambiguous, _) => TokenError::invalid(
                "no `kid`, and the key set has several keys for the token's algorithm",
            ),
        }
    }
}

/// The key for a token whose header names `kid` (if any) and `alg`.
fn find<'k>(keys: &'k KeySet, kid: Option<&str>, alg: Algorithm) -> Result<&'k Key, Missing> {
    match kid {
        Some(kid) => keys
            .keys
            .iter()
            .find(|key| key.kid.as_deref() == Some(kid))
            .ok_or(Missing::Unknown),
        None => {
            let mut usable = keys
                .keys
                .iter()
                .filter(|key| key.kind.can_verify(alg) && key.alg.is_none_or(|own| own == alg));
            match (usable.next(), usable.next()) {
                (Some(key), None) => Ok(key),
                (None, _) => Err(Missing::Unknown),
                (Some(_), Some(_)) => Err(Missing::Ambiguous),
            }
        }
    }
}

/// The verification keys of a JWKS document; the others (encryption keys, symmetric keys,
/// unknown types and curves, malformed keys) are skipped.
fn parse_key_set(document: &Value) -> Vec<Key> {
    let Some(keys) = document.get("keys").and_then(Value::as_array) else {
        return Vec::new();
    };
    keys.iter()
        .filter_map(|jwk| match parse_key(jwk) {
            Ok(key) => Some(key),
            Err(why) => {
                tracing::debug!(kid = ?jwk.get("kid"), reason = %why, "skipped a key of the set");
                None
            }
        })
        .collect()
}

fn parse_key(jwk: &Value) -> Result<Key, String> {
    let text = |name: &str| jwk.get(name).and_then(Value::as_str);
    let required = |name: &str| text(name).ok_or_else(|| format!("no `{name}`"));
    if let Some(usage) = jwk.get("use")
        && usage != "sig"
    {
        return Err(format!("its `use` is {usage}"));
    }
    if let Some(operations) = jwk.get("key_ops")
        && !operations
            .as_array()
            .is_some_and(|operations| operations.iter().any(|op| op == "verify"))
    {
        return Err("its `key_ops` do not include `verify`".to_owned());
    }
    let alg = match text("alg") {
        None => None,
        Some(name) => match name.parse::<Algorithm>() {
            Ok(alg) if ASYMMETRIC.contains(&alg) => Some(alg),
            _ => {
                return Err(format!(
                    "its `alg` {name:?} is no signature algorithm accepted"
                ));
            }
        },
    };
    let invalid = |error: jsonwebtoken::errors::Error| format!("malformed: {}", describe(&error));
    let (kind, material, decoding) = match (text("kty"), text("crv")) {
        (Some("RSA"), _) => {
            let (n, e) = (required("n")?, required("e")?);
            (
                KeyKind::Rsa,
                format!("{n}.{e}"),
                DecodingKey::from_rsa_components(n, e).map_err(invalid)?,
            )
        }
        (Some("EC"), Some(curve @ ("P-256" | "P-384"))) => {
            let (x, y) = (required("x")?, required("y")?);
            let kind = if curve == "P-256" {
                KeyKind::P256
            } else {
                KeyKind::P384
            };
            (
                kind,
                format!("{x}.{y}"),
                DecodingKey::from_ec_components(x, y).map_err(invalid)?,
            )
        }
        (Some("OKP"), Some("Ed25519")) => {
            let x = required("x")?;
            (
                KeyKind::Ed25519,
                x.to_owned(),
                DecodingKey::from_ed_components(x).map_err(invalid)?,
            )
        }
        (kty, crv) => return Err(format!("unsupported key type {kty:?} (curve {crv:?})")),
    };
    Ok(Key {
        kid: text("kid").map(str::to_owned),
        alg,
        kind,
        material,
        decoding,
    })
}

/// A jsonwebtoken error, in words for the log.
fn describe(error: &jsonwebtoken::errors::Error) -> String {
    match error.kind() {
        ErrorKind::InvalidSignature => "the signature does not verify".to_owned(),
        ErrorKind::ExpiredSignature => "the token has expired (`exp`)".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (`nbf`)".to_owned(),
        ErrorKind::InvalidIssuer => "the token is from another issuer (`iss`)".to_owned(),
        ErrorKind::InvalidAudience => "the token is for another audience (`aud`)".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("no `{claim}` claim"),
        ErrorKind::InvalidClaimFormat(claim) => format!("the `{claim}` claim is malformed"),
        ErrorKind::InvalidAlgorithm => "the algorithm does not fit the key".to_owned(),
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_not_for_signatures_are_skipped() {
        let set = json!({"keys": [
            {"kty": "OKP", "crv": "Ed25519", "kid": "enc", "use": "enc",
             "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "ops", "key_ops": ["encrypt"],
             "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "hs", "alg": "HS256",
             "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty": "EC", "crv": "P-521", "kid": "p521", "x": "AA", "y": "AA"},
            {"kty": "RSA", "kid": "no-e", "n": "AQAB"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "good", "use": "sig",
             "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
        ]});
        let keys = parse_key_set(&set);
        let kids: Vec<_> = keys.iter().map(|key| key.kid.as_deref()).collect();
        assert_eq!(kids, [Some("good")]);
        assert_eq!(keys[0].kind, KeyKind::Ed25519);
        assert!(parse_key_set(&json!({"keys": "none"})).is_empty());
    }

    #[test]
    fn a_token_without_kid_needs_exactly_one_key_for_its_algorithm() {
        let ed = json!({"kty": "OKP", "crv": "Ed25519",
            "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"});
        let one = KeySet {
            keys: parse_key_set(&json!({"keys": [ed]})),
            generation: 1,
        };
        assert!(find(&one, None, Algorithm::EdDSA).is_ok());
        assert!(matches!(
            find(&one, None, Algorithm::ES256),
            Err(Missing::Unknown)
        ));
        let two = KeySet {
            keys: parse_key_set(&json!({"keys": [ed, ed]})),
            generation: 1,
        };
        assert!(matches!(
            find(&two, None, Algorithm::EdDSA),
            Err(Missing::Ambiguous)
        ));
        assert!(matches!(
            find(&two, Some("x"), Algorithm::EdDSA),
            Err(Missing::Unknown)
        ));
    }

    #[test]
    fn key_kinds_verify_their_algorithms_only() {
        assert!(KeyKind::Rsa.can_verify(Algorithm::PS256));
        assert!(!KeyKind::Rsa.can_verify(Algorithm::ES256));
        assert!(!KeyKind::P256.can_verify(Algorithm::ES384));
        assert!(KeyKind::P384.can_verify(Algorithm::ES384));
        assert!(!KeyKind::Ed25519.can_verify(Algorithm::HS256));
    }

    #[test]
    fn a_misconfigured_verifier_is_refused_at_start() {
        let verifier = JwtVerifier::new("https://a.example", "https://a.example/jwks");
        assert!(verifier.check(Some("https://mcp.example/mcp")).is_ok());
        let no_audience = verifier.check(None).unwrap_err();
        assert!(no_audience.contains("no audience"), "{no_audience}");
        assert!(verifier.clone().audience("x").check(None).is_ok());
        let hmac = verifier
            .algorithms(["RS256", "HS256"])
            .check(Some("r"))
            .unwrap_err();
        assert!(hmac.contains("HS256"), "{hmac}");
    }
}

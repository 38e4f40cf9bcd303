//! OAuth access tokens over real sockets: a test authorization server (RFC 8414 metadata, a
//! JWKS that can be rotated, an RFC 7662 introspection endpoint) on a loopback port, and a
//! `Server` behind `HttpConfig::verify_tokens`. Tokens the test signs (RS256, ES256, EdDSA)
//! are served as their principal; every refused one is answered 401 with the challenge, a
//! body that does not say which check failed, and nothing served.

// Not every helper is used here (`per_revision!` among them).
#[allow(unused_macros)]
mod support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::{Introspection, JwtVerifier, TokenVerifier};
use mcp_runtime::http::{HttpConfig, ProtectedResource};
use mcp_runtime::{RequestContext, Server, State, mcp_tool, server_info, tools};
use serde_json::{Value, json};
use support::http::{Reply, legacy_answer, open_legacy_session_as, post_legacy_as, send};
use support::http_server::InProcessServer;

const MODERN: &str = "2026-07-28";

/// The `Authorization` header the introspection endpoint expects: client `mcp server` with
/// secret `p@ss wörd`, each form-urlencoded, then Basic.
const CLIENT_BASIC: &str = "Basic bWNwK3NlcnZlcjpwJTQwc3MrdyVDMyVCNnJk";

/// How many times the tools ran.
#[derive(Clone, Default)]
struct Calls(Arc<AtomicUsize>);

/// Who is calling: subject, scopes and the `email` claim, as JSON.
#[mcp_tool]
async fn whoami(context: RequestContext, calls: State<Calls>) -> String {
    calls.0.fetch_add(1, Ordering::SeqCst);
    let principal = context.principal().expect("a verified principal");
    json!({
        "sub": principal.subject(),
        "scopes": principal.scopes().collect::<Vec<_>>(),
        "email": principal.claim("email"),
    })
    .to_string()
}

/// Becomes a task at once, then answers.
#[cfg(feature = "tasks")]
#[mcp_tool(task)]
async fn chore(context: RequestContext, calls: State<Calls>) -> &'static str {
    calls.0.fetch_add(1, Ordering::SeqCst);
    context.start_task().await;
    "chore done"
}

// ---- the authorization server ----

/// An authorization server on a loopback port: its metadata, key set and introspection
/// endpoint, counting the requests for each path.
struct Issuer {
    addr: SocketAddr,
    shared: Arc<IssuerShared>,
}

struct IssuerShared {
    /// The key set served; `None` to answer 500 in its place.
    jwks: Mutex<Option<String>>,
    /// The audience introspection answers name.
    resource: Mutex<String>,
    /// Publish the metadata at OpenID Connect's well-known path instead of RFC 8414's.
    openid_only: std::sync::atomic::AtomicBool,
    hits: Mutex<HashMap<String, usize>>,
}

impl Issuer {
    fn start(jwks: &str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(IssuerShared {
            jwks: Mutex::new(Some(jwks.to_owned())),
            resource: Mutex::new(String::new()),
            openid_only: std::sync::atomic::AtomicBool::new(false),
            hits: Mutex::new(HashMap::new()),
        });
        let serving = shared.clone();
        // Ends with the test process: accepting blocks, and nothing waits for it.
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let shared = serving.clone();
                std::thread::spawn(move || answer(stream, addr, &shared));
            }
        });
        Issuer { addr, shared }
    }

    fn issuer(&self) -> String {
        format!("http://{}/tenant", self.addr)
    }

    fn jwks_url(&self) -> String {
        format!("http://{}/tenant/jwks", self.addr)
    }

    fn introspection_url(&self) -> String {
        format!("http://{}/tenant/introspect", self.addr)
    }

    fn hits(&self, path: &str) -> usize {
        self.shared
            .hits
            .lock()
            .unwrap()
            .get(path)
            .copied()
            .unwrap_or(0)
    }

    fn serve_keys(&self, jwks: &str) {
        *self.shared.jwks.lock().unwrap() = Some(jwks.to_owned());
    }

    /// Answer 500 for the key set from now on.
    fn fail_keys(&self) {
        *self.shared.jwks.lock().unwrap() = None;
    }
}

/// One request of the authorization server (its connection closes after).
fn answer(stream: TcpStream, addr: SocketAddr, shared: &IssuerShared) {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut words = line.split(' ');
    let (method, path) = (
        words.next().unwrap_or("").to_owned(),
        words.next().unwrap_or("").to_owned(),
    );
    let mut headers = HashMap::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
    }
    let length = headers
        .get("content-length")
        .map_or(0, |length| length.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    *shared.hits.lock().unwrap().entry(path.clone()).or_default() += 1;
    let issuer = format!("http://{addr}/tenant");
    let metadata_path = if shared.openid_only.load(Ordering::SeqCst) {
        "/tenant/.well-known/openid-configuration"
    } else {
        "/.well-known/oauth-authorization-server/tenant"
    };
    let (status, document) = match (method.as_str(), path.as_str()) {
        ("GET", path) if path == metadata_path => (
            "200 OK",
            json!({
                "issuer": issuer,
                "jwks_uri": format!("{issuer}/jwks"),
                "introspection_endpoint": format!("{issuer}/introspect"),
            })
            .to_string(),
        ),
        ("GET", "/tenant/jwks") => match shared.jwks.lock().unwrap().clone() {
            Some(jwks) => ("200 OK", jwks),
            None => ("500 Internal Server Error", "{}".to_owned()),
        },
        ("POST", "/tenant/introspect")
            if headers.get("authorization").map(String::as_str) == Some(CLIENT_BASIC) =>
        {
            let form = String::from_utf8(body).unwrap();
            assert!(form.contains("token_type_hint=access_token"), "{form}");
            let token = form
                .split('&')
                .find_map(|pair| pair.strip_prefix("token="))
                .unwrap_or("");
            let resource = shared.resource.lock().unwrap().clone();
            let answer = match token {
                "opaque-alice" => json!({
                    "active": true, "sub": "alice", "scope": "notes:read notes:write",
                    "aud": resource, "iss": issuer, "exp": now() + 3600,
                    "email": "alice@example.com",
                }),
                "opaque-service" => json!({"active": true, "client_id": "svc", "scope": "jobs"}),
                "opaque-elsewhere" => {
                    json!({"active": true, "sub": "alice", "aud": "http://elsewhere/mcp"})
                }
                _ => json!({"active": false}),
            };
            ("200 OK", answer.to_string())
        }
        ("POST", "/tenant/introspect") => ("401 Unauthorized", "{}".to_owned()),
        _ => ("404 Not Found", "{}".to_owned()),
    };
    let mut stream = reader.into_inner();
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{document}",
        document.len()
    );
}

// ---- tokens ----

const JWKS_1: &str = include_str!("fixtures/oauth/jwks-1.json");
const JWKS_2: &str = include_str!("fixtures/oauth/jwks-2.json");

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn rsa_1() -> EncodingKey {
    EncodingKey::from_rsa_pem(include_bytes!("fixtures/oauth/rsa-1.pem")).unwrap()
}

fn rsa_2() -> EncodingKey {
    EncodingKey::from_rsa_pem(include_bytes!("fixtures/oauth/rsa-2.pem")).unwrap()
}

fn ec() -> EncodingKey {
    EncodingKey::from_ec_pem(include_bytes!("fixtures/oauth/ec-p256.pem")).unwrap()
}

fn ed() -> EncodingKey {
    EncodingKey::from_ed_pem(include_bytes!("fixtures/oauth/ed25519.pem")).unwrap()
}

fn sign(alg: Algorithm, kid: Option<&str>, key: &EncodingKey, claims: &Value) -> String {
    let mut header = Header::new(alg);
    header.kid = kid.map(str::to_owned);
    jsonwebtoken::encode(&header, claims, key).unwrap()
}

/// Base64url without padding, for tokens jsonwebtoken would not make.
fn b64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, byte)| n | u32::from(*byte) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

// ---- the MCP server ----

/// A server behind a token verifier, and how many times its tools ran.
struct Mcp {
    server: InProcessServer,
    calls: Calls,
    resource: String,
}

impl Mcp {
    fn start(issuer: &Issuer, verifier: impl TokenVerifier) -> Self {
        let calls = Calls::default();
        let mut resource = String::new();
        let issuer_url = issuer.issuer();
        let server = Server::new(server_info!()).with_state(calls.clone());
        #[cfg(feature = "tasks")]
        let server = server.tools(tools![whoami, chore]);
        #[cfg(not(feature = "tasks"))]
        let server = server.tools(tools![whoami]);
        let server = InProcessServer::start_for(server, |addr| {
            resource = format!("http://{addr}/mcp");
            HttpConfig::new()
                .protected_resource(
                    ProtectedResource::new(resource.clone()).authorization_server(issuer_url),
                )
                .verify_tokens(verifier)
        });
        *issuer.shared.resource.lock().unwrap() = resource.clone();
        Mcp {
            server,
            calls,
            resource,
        }
    }

    fn calls(&self) -> usize {
        self.calls.0.load(Ordering::SeqCst)
    }

    /// The claims of a token for this server, good for an hour.
    fn claims(&self, issuer: &Issuer, subject: &str) -> Value {
        json!({
            "iss": issuer.issuer(), "aud": self.resource, "sub": subject,
            "iat": now(), "exp": now() + 3600,
            "scope": "notes:read notes:write", "email": format!("{subject}@example.com"),
        })
    }

    /// A 2026-07-28 `tools/call` of `whoami`, with `token` when given.
    fn call(&self, token: Option<&str>) -> Reply {
        let body = call_body(1);
        let authorization = token.map(|token| format!("Bearer {token}"));
        let mut headers = modern_headers("tools/call", "whoami");
        if let Some(authorization) = &authorization {
            headers.push(("Authorization", authorization));
        }
        send(self.server.addr, "POST", &headers, body.as_bytes())
    }

    /// Whoami's answer to the holder of `token`, which must be served.
    fn whoami(&self, token: &str) -> Value {
        let reply = self.call(Some(token));
        assert_eq!(
            reply.status,
            200,
            "{}",
            String::from_utf8_lossy(&reply.body)
        );
        let message = reply.json();
        let text = message["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text in {message}"));
        serde_json::from_str(text).unwrap()
    }

    /// The challenge every refusal carries.
    fn challenge(&self, error: Option<&str>) -> String {
        let addr = self.server.addr;
        let mut challenge = format!(
            "Bearer resource_metadata=\"http://{addr}/.well-known/oauth-protected-resource/mcp\""
        );
        if let Some(error) = error {
            challenge.push_str(&format!(
                ", error=\"{error}\", error_description=\"the access token is invalid\""
            ));
        }
        challenge
    }

    /// `token` is answered 401 `invalid_token`, saying no more, and nothing is served.
    fn assert_refused(&self, token: &str, what: &str) {
        let before = self.calls();
        let reply = self.call(Some(token));
        assert_eq!(
            reply.status,
            401,
            "{what}: {:?}",
            String::from_utf8_lossy(&reply.body)
        );
        assert_eq!(
            reply.header("www-authenticate"),
            Some(self.challenge(Some("invalid_token")).as_str()),
            "{what}"
        );
        let body = reply.json();
        assert_eq!(
            body["error"]["message"], "the access token is invalid",
            "{what}: {body}"
        );
        assert_eq!(self.calls(), before, "{what}: nothing is served");
    }
}

fn call_body(id: i64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
    "name": "whoami", "arguments": {},
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "oauth-tests", "version": "0"},
    }}})
    .to_string()
}

fn modern_headers<'a>(method: &'a str, name: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", method),
        ("Mcp-Name", name),
    ]
}

// ---- JWT ----

#[test]
fn tokens_signed_by_rsa_ec_and_ed25519_keys_are_served_as_their_principal() {
    let issuer = Issuer::start(JWKS_1);
    // Found through the issuer's RFC 8414 metadata, whose well-known segment goes before the
    // issuer's path.
    let verifier = JwtVerifier::discover(issuer.issuer());
    let mcp = Mcp::start(&issuer, verifier.clone());

    let alice = rsa_token(&mcp, &issuer, "alice");
    assert_eq!(
        mcp.whoami(&alice),
        json!({"sub": "alice", "scopes": ["notes:read", "notes:write"],
            "email": "alice@example.com"})
    );
    let bob = ec_token(&mcp, &issuer, "bob");
    assert_eq!(mcp.whoami(&bob)["sub"], "bob");
    // `scp` as an array, as some issuers write scopes.
    let mut claims = mcp.claims(&issuer, "carol");
    claims.as_object_mut().unwrap().remove("scope");
    claims["scp"] = json!(["jobs:run"]);
    let carol = sign(Algorithm::EdDSA, Some("ed25519"), &ed(), &claims);
    assert_eq!(mcp.whoami(&carol)["scopes"], json!(["jobs:run"]));
    assert_eq!(mcp.calls(), 3);

    assert_eq!(
        issuer.hits("/.well-known/oauth-authorization-server/tenant"),
        1,
        "the metadata is read once"
    );
    assert_eq!(
        issuer.hits("/tenant/jwks"),
        1,
        "the key set is fetched once"
    );
    // Each token's signature is checked once: the second time it is remembered.
    assert_eq!(mcp.whoami(&alice)["sub"], "alice");
    let stats = verifier.stats();
    assert_eq!(
        (
            stats.signature_checks,
            stats.cache_hits,
            stats.key_fetches,
            stats.refused
        ),
        (3, 1, 1, 0)
    );
    mcp.server.shut_down();
}

#[test]
fn the_key_set_is_found_in_openid_connect_metadata_too() {
    let issuer = Issuer::start(JWKS_1);
    issuer.shared.openid_only.store(true, Ordering::SeqCst);
    let mcp = Mcp::start(&issuer, JwtVerifier::discover(issuer.issuer()));
    let alice = sign(
        Algorithm::EdDSA,
        Some("ed25519"),
        &ed(),
        &mcp.claims(&issuer, "alice"),
    );
    assert_eq!(mcp.whoami(&alice)["sub"], "alice");
    assert_eq!(
        issuer.hits("/.well-known/oauth-authorization-server/tenant"),
        1,
        "RFC 8414's path first"
    );
    assert_eq!(issuer.hits("/tenant/.well-known/openid-configuration"), 1);
    assert_eq!(issuer.hits("/tenant/jwks"), 1);
    mcp.server.shut_down();
}

#[test]
fn a_token_without_kid_is_checked_against_a_set_of_one_key() {
    let issuer = Issuer::start(include_str!("fixtures/oauth/jwks-rsa-1.json"));
    let mcp = Mcp::start(
        &issuer,
        JwtVerifier::new(issuer.issuer(), issuer.jwks_url()),
    );
    let token = sign(
        Algorithm::RS256,
        None,
        &rsa_1(),
        &mcp.claims(&issuer, "alice"),
    );
    assert_eq!(mcp.whoami(&token)["sub"], "alice");
    mcp.server.shut_down();

    // With several keys, a token must say which.
    let issuer = Issuer::start(JWKS_1);
    let mcp = Mcp::start(
        &issuer,
        JwtVerifier::new(issuer.issuer(), issuer.jwks_url()),
    );
    let token = sign(Algorithm::ES256, None, &ec(), &mcp.claims(&issuer, "alice"));
    assert_eq!(
        mcp.whoami(&token)["sub"],
        "alice",
        "one P-256 key in the set"
    );
    let token = sign(
        Algorithm::RS256,
        None,
        &rsa_1(),
        &mcp.claims(&issuer, "alice"),
    );
    assert_eq!(mcp.whoami(&token)["sub"], "alice", "one RSA key in the set");
    mcp.server.shut_down();
}

#[test]
fn a_key_that_names_no_algorithm_verifies_only_those_of_its_type() {
    let mut jwks: Value = serde_json::from_str(JWKS_1).unwrap();
    for key in jwks["keys"].as_array_mut().unwrap() {
        key.as_object_mut().unwrap().remove("alg");
    }
    let issuer = Issuer::start(&jwks.to_string());
    let mcp = Mcp::start(
        &issuer,
        JwtVerifier::new(issuer.issuer(), issuer.jwks_url()),
    );
    let claims = mcp.claims(&issuer, "alice");
    for alg in [Algorithm::RS256, Algorithm::PS256, Algorithm::RS512] {
        let token = sign(alg, Some("rsa-1"), &rsa_1(), &claims);
        assert_eq!(mcp.whoami(&token)["sub"], "alice", "{alg:?}");
    }
    let refused = [
        (
            sign(Algorithm::ES256, Some("rsa-1"), &ec(), &claims),
            "ES256 naming an RSA key",
        ),
        (
            sign(Algorithm::EdDSA, Some("ec-p256"), &ed(), &claims),
            "EdDSA naming a P-256 key",
        ),
        (
            sign(
                Algorithm::HS256,
                Some("rsa-1"),
                &EncodingKey::from_secret(include_bytes!("fixtures/oauth/rsa-1.pub.pem")),
                &claims,
            ),
            "HS256 with the RSA public key as its secret",
        ),
    ];
    for (token, what) in &refused {
        mcp.assert_refused(token, what);
    }
    mcp.server.shut_down();
}

#[test]
fn every_refused_token_is_answered_401_without_saying_why_and_serves_nothing() {
    let issuer = Issuer::start(JWKS_1);
    let verifier = JwtVerifier::new(issuer.issuer(), issuer.jwks_url());
    let mcp = Mcp::start(&issuer, verifier.clone());
    let claims = |change: &dyn Fn(&mut Value)| {
        let mut claims = mcp.claims(&issuer, "alice");
        change(&mut claims);
        claims
    };
    let rs256 = |claims: &Value| sign(Algorithm::RS256, Some("rsa-1"), &rsa_1(), claims);
    // One good token first: the key set is known, so what follows is refused for itself.
    assert_eq!(mcp.whoami(&rs256(&claims(&|_| {})))["sub"], "alice");

    let none_header = b64url(br#"{"alg":"none","typ":"JWT","kid":"rsa-1"}"#);
    let payload = b64url(claims(&|_| {}).to_string().as_bytes());
    let good = rs256(&claims(&|_| {}));
    let mallory = rs256(&claims(&|claims| claims["sub"] = json!("mallory")));
    let tampered = {
        let good: Vec<&str> = good.split('.').collect();
        let forged: Vec<&str> = mallory.split('.').collect();
        format!("{}.{}.{}", good[0], forged[1], good[2])
    };
    let refused = [
        (
            rs256(&claims(&|claims| claims["exp"] = json!(now() - 120))),
            "expired",
        ),
        (
            rs256(&claims(&|claims| claims["nbf"] = json!(now() + 600))),
            "not yet valid",
        ),
        (
            rs256(&claims(&|claims| {
                claims["iss"] = json!("http://127.0.0.1:1/other")
            })),
            "another issuer",
        ),
        (
            rs256(&claims(&|claims| {
                claims["aud"] = json!("http://127.0.0.1:1/mcp")
            })),
            "another resource's token",
        ),
        (
            rs256(&claims(&|claims| {
                claims.as_object_mut().unwrap().remove("exp");
            })),
            "no exp",
        ),
        (
            rs256(&claims(&|claims| {
                claims.as_object_mut().unwrap().remove("sub");
            })),
            "no sub",
        ),
        (format!("{none_header}.{payload}."), "alg none"),
        (
            sign(
                Algorithm::HS256,
                Some("rsa-1"),
                &EncodingKey::from_secret(include_bytes!("fixtures/oauth/rsa-1.pub.pem")),
                &claims(&|_| {}),
            ),
            "HS256 with the RSA public key as its secret",
        ),
        (
            sign(Algorithm::RS384, Some("rsa-1"), &rsa_1(), &claims(&|_| {})),
            "RS384 by a key published for RS256",
        ),
        (
            sign(Algorithm::ES256, Some("rsa-1"), &ec(), &claims(&|_| {})),
            "ES256 naming an RSA key",
        ),
        (
            sign(
                Algorithm::RS256,
                Some("ec-p256"),
                &rsa_1(),
                &claims(&|_| {}),
            ),
            "RS256 naming an EC key",
        ),
        (
            sign(Algorithm::RS256, Some("rsa-1"), &rsa_2(), &claims(&|_| {})),
            "signed by another key",
        ),
        (tampered, "a tampered payload"),
        ("not-a-jwt".to_owned(), "garbage"),
    ];
    for (token, what) in &refused {
        mcp.assert_refused(token, what);
    }
    assert_eq!(verifier.stats().refused, refused.len() as u64);
    assert_eq!(issuer.hits("/tenant/jwks"), 1, "no key was unknown");

    // No token at all: the challenge alone (RFC 6750 §3.1: no error code).
    let reply = mcp.call(None);
    assert_eq!(reply.status, 401);
    assert_eq!(
        reply.header("www-authenticate"),
        Some(mcp.challenge(None).as_str())
    );
    assert_eq!(mcp.calls(), 1);
    mcp.server.shut_down();
}

#[test]
fn unknown_kids_fetch_the_key_set_at_most_once_per_interval() {
    let issuer = Issuer::start(JWKS_1);
    // An interval no loaded machine outlasts during the test.
    let verifier = JwtVerifier::new(issuer.issuer(), issuer.jwks_url())
        .min_refetch_interval(Duration::from_secs(3600));
    let mcp = Mcp::start(&issuer, verifier.clone());
    let claims = mcp.claims(&issuer, "mallory");
    // Fifty forged tokens at once, each naming a key of its own, before any other: they
    // share the first fetch, then one more for the unknown kids, and no other.
    let forged: Vec<String> = (0..50)
        .map(|n| {
            sign(
                Algorithm::RS256,
                Some(&format!("forged-{n}")),
                &rsa_2(),
                &claims,
            )
        })
        .collect();
    std::thread::scope(|scope| {
        for token in &forged {
            let mcp = &mcp;
            scope.spawn(move || mcp.assert_refused(token, "an unknown kid"));
        }
    });
    assert_eq!(issuer.hits("/tenant/jwks"), 2);
    for token in &forged[..10] {
        mcp.assert_refused(token, "an unknown kid, again");
    }
    assert_eq!(
        issuer.hits("/tenant/jwks"),
        2,
        "within the interval, no more fetches"
    );
    let stats = verifier.stats();
    assert_eq!(
        (stats.key_fetches, stats.refused, stats.signature_checks),
        (2, 60, 0)
    );
    // Good tokens are still served.
    let alice = rsa_token(&mcp, &issuer, "alice");
    assert_eq!(mcp.whoami(&alice)["sub"], "alice");
    mcp.server.shut_down();
}

#[test]
fn a_rotated_key_is_fetched_for_its_first_token_and_the_removed_one_verifies_no_more() {
    let issuer = Issuer::start(JWKS_1);
    // An interval no loaded machine outlasts during the test.
    let verifier = JwtVerifier::new(issuer.issuer(), issuer.jwks_url())
        .min_refetch_interval(Duration::from_secs(3600));
    let mcp = Mcp::start(&issuer, verifier.clone());
    let old = rsa_token(&mcp, &issuer, "alice");
    assert_eq!(mcp.whoami(&old)["sub"], "alice");
    assert_eq!(mcp.whoami(&old)["sub"], "alice", "remembered");

    issuer.serve_keys(JWKS_2);
    let new = sign(
        Algorithm::RS256,
        Some("rsa-2"),
        &rsa_2(),
        &mcp.claims(&issuer, "alice"),
    );
    assert_eq!(mcp.whoami(&new)["sub"], "alice");
    assert_eq!(
        issuer.hits("/tenant/jwks"),
        2,
        "the new kid fetched the set again"
    );
    // The old key is gone from the set: its token, remembered before, is checked again and
    // refused (within the interval, without another fetch).
    mcp.assert_refused(&old, "signed by a removed key");
    assert_eq!(issuer.hits("/tenant/jwks"), 2);
    // Keys that stayed still verify.
    let bob = ec_token(&mcp, &issuer, "bob");
    assert_eq!(mcp.whoami(&bob)["sub"], "bob");
    mcp.server.shut_down();
}

#[test]
fn a_key_set_that_cannot_be_fetched_again_keeps_the_keys_known() {
    let issuer = Issuer::start(JWKS_1);
    let verifier = JwtVerifier::new(issuer.issuer(), issuer.jwks_url());
    let mcp = Mcp::start(&issuer, verifier.clone());
    let alice = rsa_token(&mcp, &issuer, "alice");
    assert_eq!(mcp.whoami(&alice)["sub"], "alice");

    issuer.fail_keys();
    // A new kid cannot be looked up: 503, no challenge, so the client keeps its token.
    let new = sign(
        Algorithm::RS256,
        Some("rsa-2"),
        &rsa_2(),
        &mcp.claims(&issuer, "bob"),
    );
    let reply = mcp.call(Some(&new));
    assert_eq!(
        reply.status,
        503,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.header("www-authenticate"), None);
    assert_eq!(issuer.hits("/tenant/jwks"), 2);
    // The keys known still verify, and new tokens they signed too.
    let bob = ec_token(&mcp, &issuer, "bob");
    assert_eq!(mcp.whoami(&bob)["sub"], "bob");
    assert_eq!(verifier.stats().refused, 0);
    mcp.server.shut_down();

    // A server that never got the key set answers 503 too.
    let down = Issuer::start(JWKS_1);
    down.fail_keys();
    let mcp = Mcp::start(&down, JwtVerifier::new(down.issuer(), down.jwks_url()));
    let alice = rsa_token(&mcp, &down, "alice");
    assert_eq!(mcp.call(Some(&alice)).status, 503);
    assert_eq!(mcp.calls(), 0);
    mcp.server.shut_down();
}

/// A valid token of `subject` for `mcp`, signed with RS256 by the key `rsa-1`.
fn rsa_token(mcp: &Mcp, issuer: &Issuer, subject: &str) -> String {
    sign(
        Algorithm::RS256,
        Some("rsa-1"),
        &rsa_1(),
        &mcp.claims(issuer, subject),
    )
}

/// A valid token of `subject` for `mcp`, signed with ES256 by the key `ec-p256`.
fn ec_token(mcp: &Mcp, issuer: &Issuer, subject: &str) -> String {
    sign(
        Algorithm::ES256,
        Some("ec-p256"),
        &ec(),
        &mcp.claims(issuer, subject),
    )
}

/// Valid tokens of alice (RS256) and bob (ES256) for `mcp`.
fn alice_and_bob(mcp: &Mcp, issuer: &Issuer) -> (String, String) {
    let alice = rsa_token(mcp, issuer, "alice");
    let bob = ec_token(mcp, issuer, "bob");
    (alice, bob)
}

#[test]
fn a_valid_token_cannot_continue_another_principals_legacy_session() {
    let issuer = Issuer::start(JWKS_1);
    let mcp = Mcp::start(
        &issuer,
        JwtVerifier::new(issuer.issuer(), issuer.jwks_url()),
    );
    let (alice, bob) = alice_and_bob(&mcp, &issuer);
    let addr = mcp.server.addr;
    let session = open_legacy_session_as(addr, &alice);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}}});
    assert_eq!(
        post_legacy_as(addr, &bob, Some(&session), &call).status,
        404
    );
    assert_eq!(mcp.calls(), 0);
    let reply = post_legacy_as(addr, &alice, Some(&session), &call);
    assert_eq!(reply.status, 200);
    let message = legacy_answer(&reply);
    let text = message["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap()["sub"], "alice");
    mcp.server.shut_down();
}

#[cfg(feature = "tasks")]
#[test]
fn a_task_is_found_only_by_the_principal_that_started_it() {
    let issuer = Issuer::start(JWKS_1);
    let mcp = Mcp::start(
        &issuer,
        JwtVerifier::new(issuer.issuer(), issuer.jwks_url()),
    );
    let (alice, bob) = alice_and_bob(&mcp, &issuer);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "oauth-tests", "version": "0"},
    });
    let request = |token: &str, method: &str, name: &str, mut params: Value| {
        params["_meta"] = meta.clone();
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let authorization = format!("Bearer {token}");
        let mut headers = modern_headers(method, name);
        headers.push(("Authorization", &authorization));
        let reply = send(
            mcp.server.addr,
            "POST",
            &headers,
            body.to_string().as_bytes(),
        );
        reply.json()
    };
    let created = request(
        &alice,
        "tools/call",
        "chore",
        json!({"name": "chore", "arguments": {}}),
    );
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let theirs = request(&bob, "tasks/get", &task_id, json!({"taskId": task_id}));
    assert!(theirs.get("result").is_none(), "{theirs}");
    assert!(theirs["error"]["code"].is_i64(), "{theirs}");
    let own = request(&alice, "tasks/get", &task_id, json!({"taskId": task_id}));
    assert_eq!(own["result"]["taskId"], task_id, "{own}");
    mcp.server.shut_down();
}

#[test]
fn a_jwt_verifier_without_an_audience_stops_the_server_at_start() {
    let error = Server::new(server_info!())
        .http_service(HttpConfig::new().verify_tokens(JwtVerifier::new(
            "https://auth.example.com",
            "https://auth.example.com/jwks",
        )))
        .unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert!(error.to_string().contains("no audience"), "{error}");
    // Given one, it starts.
    let verifier = JwtVerifier::new("https://auth.example.com", "https://auth.example.com/jwks")
        .audience("https://mcp.example.com/mcp");
    assert!(
        Server::new(server_info!())
            .http_service(HttpConfig::new().verify_tokens(verifier))
            .is_ok()
    );
}

// ---- introspection ----

fn introspection(issuer: &Issuer) -> Introspection {
    Introspection::new(issuer.introspection_url()).client_credentials("mcp server", "p@ss wörd")
}

#[test]
fn introspected_tokens_are_served_as_their_principal_and_remembered() {
    let issuer = Issuer::start(JWKS_1);
    let verifier = introspection(&issuer).issuer(issuer.issuer());
    let mcp = Mcp::start(&issuer, verifier.clone());
    assert_eq!(
        mcp.whoami("opaque-alice"),
        json!({"sub": "alice", "scopes": ["notes:read", "notes:write"],
            "email": "alice@example.com"})
    );
    assert_eq!(mcp.whoami("opaque-alice")["sub"], "alice");
    assert_eq!(
        issuer.hits("/tenant/introspect"),
        1,
        "the second answer was remembered"
    );
    let stats = verifier.stats();
    assert_eq!((stats.introspections, stats.cache_hits), (1, 1));
    mcp.server.shut_down();

    // Without `sub`, the client it was issued to; without `iss` when one is expected, refused.
    let mcp = Mcp::start(&issuer, introspection(&issuer));
    assert_eq!(
        mcp.whoami("opaque-service"),
        json!({"sub": "svc", "scopes": ["jobs"], "email": null})
    );
    mcp.server.shut_down();
}

#[test]
fn requests_carrying_one_new_token_at_once_share_one_introspection() {
    let issuer = Issuer::start(JWKS_1);
    let verifier = introspection(&issuer);
    let mcp = Mcp::start(&issuer, verifier.clone());
    std::thread::scope(|scope| {
        for _ in 0..20 {
            let mcp = &mcp;
            scope.spawn(move || assert_eq!(mcp.whoami("opaque-alice")["sub"], "alice"));
        }
    });
    assert_eq!(issuer.hits("/tenant/introspect"), 1);
    let stats = verifier.stats();
    assert_eq!((stats.introspections, stats.cache_hits), (1, 19));
    assert_eq!(mcp.calls(), 20);
    mcp.server.shut_down();
}

#[test]
fn inactive_and_foreign_introspected_tokens_are_refused() {
    let issuer = Issuer::start(JWKS_1);
    let verifier = introspection(&issuer);
    let mcp = Mcp::start(&issuer, verifier.clone());
    mcp.assert_refused("opaque-revoked", "inactive");
    mcp.assert_refused("opaque-revoked", "inactive, remembered");
    assert_eq!(issuer.hits("/tenant/introspect"), 1);
    mcp.assert_refused("opaque-elsewhere", "for another resource");
    let strict = Mcp::start(
        &issuer,
        introspection(&issuer).issuer("http://127.0.0.1:1/other"),
    );
    strict.assert_refused("opaque-alice", "from another issuer");
    let stats = verifier.stats();
    assert_eq!((stats.refused, stats.cache_hits), (3, 1));
    // Credentials the endpoint refuses are the server's fault, not the token's.
    let unauthenticated = Mcp::start(&issuer, Introspection::new(issuer.introspection_url()));
    assert_eq!(unauthenticated.call(Some("opaque-alice")).status, 503);
    mcp.server.shut_down();
    strict.server.shut_down();
    unauthenticated.server.shut_down();
}

#[test]
fn an_unreachable_introspection_endpoint_is_503_so_the_client_keeps_its_token() {
    let issuer = Issuer::start(JWKS_1);
    // A port nobody listens on any more.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let mcp = Mcp::start(
        &issuer,
        Introspection::new(format!("http://{closed}/introspect")),
    );
    let reply = mcp.call(Some("opaque-alice"));
    assert_eq!(
        reply.status,
        503,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.header("www-authenticate"), None);
    assert!(reply.header("retry-after").is_some());
    assert!(reply.json()["error"]["code"].is_i64());
    assert_eq!(mcp.calls(), 0);
    mcp.server.shut_down();
}

// ---- load ----

/// One HTTP/1.1 connection kept alive for many requests.
struct KeepAlive {
    reader: BufReader<TcpStream>,
}

impl KeepAlive {
    fn connect(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        stream.set_nodelay(true).unwrap();
        KeepAlive {
            reader: BufReader::new(stream),
        }
    }

    /// POST `body` with `headers`; the status and body of the answer.
    fn post(&mut self, headers: &[(&str, &str)], body: &str) -> (u16, Vec<u8>) {
        let request =
            support::http::request_bytes_to("/mcp", "POST", headers, body.as_bytes(), false);
        self.reader.get_mut().write_all(&request).unwrap();
        let mut line = String::new();
        self.reader.read_line(&mut line).unwrap();
        let status = line.split(' ').nth(1).unwrap().parse().unwrap();
        let (mut length, mut chunked) = (None, false);
        loop {
            line.clear();
            self.reader.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = Some(value.parse().unwrap());
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value == "chunked";
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.reader.read_line(&mut line).unwrap();
                let size = usize::from_str_radix(line.trim(), 16).unwrap();
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk).unwrap();
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else {
            body.resize(length.expect("a length"), 0);
            self.reader.read_exact(&mut body).unwrap();
        }
        (status, body)
    }
}

#[test]
fn ten_thousand_requests_of_a_hundred_principals_check_a_hundred_signatures() {
    let issuer = Issuer::start(JWKS_1);
    let verifier = JwtVerifier::new(issuer.issuer(), issuer.jwks_url());
    let mcp = Mcp::start(&issuer, verifier.clone());
    let tokens: Vec<String> = (0..100)
        .map(|n| {
            let claims = mcp.claims(&issuer, &format!("user-{n}"));
            sign(Algorithm::RS256, Some("rsa-1"), &rsa_1(), &claims)
        })
        .collect();
    // Two connections, each for half the principals: no token is ever first on both, so
    // each signature is checked exactly once.
    std::thread::scope(|scope| {
        for half in tokens.chunks(50) {
            let mcp = &mcp;
            scope.spawn(move || {
                let mut connection = KeepAlive::connect(mcp.server.addr);
                let body = call_body(1);
                for n in 0..5_000 {
                    let authorization = format!("Bearer {}", half[n % half.len()]);
                    let mut headers = modern_headers("tools/call", "whoami");
                    headers.push(("Authorization", &authorization));
                    let (status, answer) = connection.post(&headers, &body);
                    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
                }
            });
        }
    });
    assert_eq!(mcp.calls(), 10_000);
    let stats = verifier.stats();
    assert_eq!(stats.signature_checks, 100);
    assert_eq!(stats.cache_hits, 9_900);
    assert_eq!(stats.key_fetches, 1);
    mcp.server.shut_down();
}

//! Notes for a team, served over HTTP: every caller signs in with a bearer token, and each
//! sees only their own notes. Reading needs the scope `notes:read`, writing `notes:write`: a
//! caller without one does not see the tool, and calling it anyway gets 403 with the step-up
//! challenge naming the scope.
//!
//! Development mode, a table of static tokens (`user=token`, granting both scopes, or
//! `user=token[scope scope]` granting those listed):
//!
//! ```text
//! TEAM_NOTES_TOKENS="alice=token-of-alice,bob=token-of-bob[notes:read]" \
//!     cargo run --example team_notes -- 127.0.0.1:8080
//! ```
//!
//! Then an MCP client sending `Authorization: Bearer token-of-alice` to
//! `http://127.0.0.1:8080/mcp` is alice; without a known token it gets 401.
//!
//! Production: the tokens of an OAuth authorization server, JWTs verified against its key set
//! (signature, `iss`, `aud` = this server's URL, expiry), the subject and scopes taken from
//! them. The server publishes the RFC 9728 metadata that leads clients to the issuer.
//!
//! ```text
//! TEAM_NOTES_JWKS_URL=https://auth.example.com/.well-known/jwks.json \
//! TEAM_NOTES_ISSUER=https://auth.example.com \
//! TEAM_NOTES_AUDIENCE=https://notes.example.com/mcp \
//!     cargo run --example team_notes -- 0.0.0.0:8080
//! ```

use std::collections::HashMap;
use std::sync::Mutex;

use mcp_runtime::auth::JwtVerifier;
use mcp_runtime::http::{AuthRejection, HttpConfig, Principal, ProtectedResource};
use mcp_runtime::{RequestContext, Server, State, mcp_tool, server_info, tools};

/// Everyone's notes, by user.
#[derive(Default)]
struct Notebook(Mutex<HashMap<String, Vec<String>>>);

impl Notebook {
    fn notes(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<String>>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Who is calling: no one gets through unnamed.
fn user(ctx: &RequestContext) -> Result<&str, String> {
    ctx.principal()
        .map(|who| who.subject())
        .ok_or_else(|| "not signed in".to_owned())
}

/// Write a note that only you will see.
///
/// # Arguments
/// * `text` - the note
#[mcp_tool(scopes("notes:write"))]
fn add_note(text: String, ctx: RequestContext, book: State<Notebook>) -> Result<String, String> {
    let user = user(&ctx)?;
    let mut notes = book.notes();
    let mine = notes.entry(user.to_owned()).or_default();
    mine.push(text);
    Ok(format!("{user} has {} note(s)", mine.len()))
}

/// Your notes, oldest first, one per line.
#[mcp_tool(scopes("notes:read"), annotations(read_only))]
fn my_notes(ctx: RequestContext, book: State<Notebook>) -> Result<String, String> {
    let user = user(&ctx)?;
    let notes = book.notes();
    Ok(notes
        .get(user)
        .map(|mine| mine.join("\n"))
        .unwrap_or_default())
}

/// The scopes a static token grants unless it lists its own.
const ALL_SCOPES: &str = "notes:read notes:write";

/// `user=token` or `user=token[scope scope]` pairs, comma-separated.
fn tokens(spec: &str) -> Result<HashMap<String, Principal>, String> {
    spec.split(',')
        .filter(|pair| !pair.trim().is_empty())
        .map(|pair| {
            let (user, rest) = pair.trim().split_once('=').unwrap_or_default();
            let (token, scopes) = match rest.split_once('[') {
                Some((token, scopes)) => (token, scopes.strip_suffix(']').unwrap_or("\0")),
                None => (rest, ALL_SCOPES),
            };
            if user.is_empty() || token.is_empty() || scopes.contains('\0') {
                return Err(format!(
                    "`{pair}` is not user=token or user=token[scope ...]"
                ));
            }
            let principal = Principal::new(user).with_scopes(scopes.split_whitespace());
            Ok((token.to_owned(), principal))
        })
        .collect()
}

/// Exit with `message` on stderr: the server cannot start as configured.
fn refuse_to_start(message: &str) -> ! {
    eprintln!("team_notes: {message}");
    std::process::exit(2);
}

/// How callers are authenticated: tokens verified against the issuer's key set when
/// `TEAM_NOTES_JWKS_URL` is set, else the development table `TEAM_NOTES_TOKENS`.
fn authentication() -> HttpConfig {
    let setting = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
    if let Some(jwks_url) = setting("TEAM_NOTES_JWKS_URL") {
        let (Some(issuer), Some(audience)) =
            (setting("TEAM_NOTES_ISSUER"), setting("TEAM_NOTES_AUDIENCE"))
        else {
            refuse_to_start(
                "TEAM_NOTES_JWKS_URL needs TEAM_NOTES_ISSUER (the tokens' `iss`) and \
                 TEAM_NOTES_AUDIENCE (this server's URL, e.g. https://notes.example.com/mcp)",
            );
        };
        // Clients find the authorization server through this metadata; tokens must name the
        // audience, which is this server's resource URL.
        let resource = ProtectedResource::new(audience.clone())
            .authorization_server(issuer.clone())
            .name("Team notes");
        return HttpConfig::new()
            .protected_resource(resource)
            .verify_tokens(JwtVerifier::new(issuer, jwks_url).audience(audience));
    }
    let spec = std::env::var("TEAM_NOTES_TOKENS").unwrap_or_default();
    let tokens = match tokens(&spec) {
        Ok(tokens) if !tokens.is_empty() => tokens,
        Ok(_) => refuse_to_start(
            "set TEAM_NOTES_JWKS_URL (with TEAM_NOTES_ISSUER and TEAM_NOTES_AUDIENCE), or, \
             for development, TEAM_NOTES_TOKENS to user=token pairs, comma-separated",
        ),
        Err(error) => refuse_to_start(&format!("TEAM_NOTES_TOKENS: {error}")),
    };
    HttpConfig::new().authorize(move |request| {
        let token = request
            .bearer_token
            .ok_or_else(AuthRejection::missing_token)?;
        tokens
            .get(token)
            .cloned()
            .ok_or_else(|| AuthRejection::invalid_token("unknown token"))
    })
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    Server::new(server_info!())
        .trace_from_env()
        .instructions("Each user's private notes: add_note, then my_notes.")
        .tools(tools![add_note, my_notes])
        .with_state(Notebook::default())
        .serve_http_with(address, authentication())
        .await
}

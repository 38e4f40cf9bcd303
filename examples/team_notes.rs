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
//! `http://127.0.0.1:8080/mcp` is alice; without a known token it gets 401. A real server
//! verifies the tokens its authorization server issues, and this one does that when
//! `TEAM_NOTES_JWKS_URL` is set (see `main`).

use std::collections::HashMap;
use std::sync::Mutex;

use mcp_runtime::http::{AuthRejection, HttpConfig, Principal};
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

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    let spec = std::env::var("TEAM_NOTES_TOKENS").unwrap_or_default();
    let tokens = match tokens(&spec) {
        Ok(tokens) if !tokens.is_empty() => tokens,
        Ok(_) => {
            eprintln!("team_notes: set TEAM_NOTES_TOKENS to user=token pairs, comma-separated");
            std::process::exit(2);
        }
        Err(error) => {
            eprintln!("team_notes: TEAM_NOTES_TOKENS: {error}");
            std::process::exit(2);
        }
    };
    let config = HttpConfig::new().authorize(move |request| {
        let token = request
            .bearer_token
            .ok_or_else(AuthRejection::missing_token)?;
        tokens
            .get(token)
            .cloned()
            .ok_or_else(|| AuthRejection::invalid_token("unknown token"))
    });
    Server::new(server_info!())
        .instructions("Each user's private notes: add_note, then my_notes.")
        .tools(tools![add_note, my_notes])
        .with_state(Notebook::default())
        .serve_http_with(address, config)
        .await
}

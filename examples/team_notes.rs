//! Notes for a team, served over HTTP: every caller signs in with a bearer token, and each
//! sees only their own notes. The authorization hook names who a token belongs to (a
//! `Principal`); the tools read it from their request's context.
//!
//! ```text
//! TEAM_NOTES_TOKENS="alice=token-of-alice,bob=token-of-bob" \
//!     cargo run --example team_notes -- 127.0.0.1:8080
//! ```
//!
//! Then an MCP client sending `Authorization: Bearer token-of-alice` to
//! `http://127.0.0.1:8080/mcp` is alice; without a known token it gets 401. A real server
//! would verify a signed token (a JWT's signature and `sub`) or ask its authorization server
//! (`HttpConfig::authorize_async`) rather than read a table.

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

/// Who is calling: the hook lets no one through unnamed.
fn user(ctx: &RequestContext) -> Result<&str, String> {
    ctx.principal()
        .map(|who| who.subject())
        .ok_or_else(|| "not signed in".to_owned())
}

/// Write a note that only you will see.
///
/// # Arguments
/// * `text` - the note
#[mcp_tool]
fn add_note(text: String, ctx: RequestContext, book: State<Notebook>) -> Result<String, String> {
    let user = user(&ctx)?;
    let mut notes = book.notes();
    let mine = notes.entry(user.to_owned()).or_default();
    mine.push(text);
    Ok(format!("{user} has {} note(s)", mine.len()))
}

/// Your notes, oldest first, one per line.
#[mcp_tool]
fn my_notes(ctx: RequestContext, book: State<Notebook>) -> Result<String, String> {
    let user = user(&ctx)?;
    let notes = book.notes();
    Ok(notes
        .get(user)
        .map(|mine| mine.join("\n"))
        .unwrap_or_default())
}

/// `user=token` pairs, comma-separated.
fn tokens(spec: &str) -> Result<HashMap<String, Principal>, String> {
    spec.split(',')
        .filter(|pair| !pair.trim().is_empty())
        .map(|pair| match pair.trim().split_once('=') {
            Some((user, token)) if !user.is_empty() && !token.is_empty() => {
                Ok((token.to_owned(), Principal::new(user)))
            }
            _ => Err(format!("`{pair}` is not user=token")),
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

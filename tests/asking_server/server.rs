//! Handlers that ask the client (elicitation, sampling, roots), for `tests/stdio_asking.rs`.
//! `ASK_TIMEOUT_MS` shortens how long a legacy question waits.

use std::time::Duration;

use mcp_runtime::{
    AskError, Elicitation, RequestContext, Server, ask::SamplingRequest, mcp_prompt, mcp_resource,
    mcp_tool, prompts, resources, server_info, tools,
};
use serde::Deserialize;

/// What the user answers before a deletion.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Whether to go ahead.
    confirm: bool,
    /// Why, if the user wants to say.
    reason: Option<String>,
}

/// A form that cannot be one (a nested struct).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Nested {
    #[allow(dead_code)] // never read: the form is refused before any answer
    inner: Confirm,
}

fn failed(error: AskError) -> String {
    format!("cannot ask: {error}")
}

/// Delete `name` once the user confirms.
#[mcp_tool]
async fn confirm_delete(name: String, ctx: RequestContext) -> Result<String, String> {
    match ctx
        .elicit::<Confirm>(format!("Delete {name}?"))
        .await
        .map_err(failed)?
    {
        Elicitation::Accepted(Confirm {
            confirm: true,
            reason,
        }) => Ok(format!("deleted {name} ({})", reason.unwrap_or_default())),
        Elicitation::Accepted(_) => Ok(format!("kept {name}: not confirmed")),
        Elicitation::Declined => Ok(format!("kept {name}: declined")),
        Elicitation::Cancelled => Ok(format!("kept {name}: cancelled")),
    }
}

/// Two questions at once: both reach the client together.
#[mcp_tool]
async fn two_questions(ctx: RequestContext) -> Result<String, String> {
    let (first, second) = tokio::join!(
        ctx.elicit::<Confirm>("First?"),
        ctx.elicit::<Confirm>("Second?")
    );
    let show = |answer: Result<Elicitation<Confirm>, AskError>| match answer {
        Ok(Elicitation::Accepted(confirm)) => confirm.confirm.to_string(),
        Ok(other) => format!("{other:?}"),
        Err(error) => failed(error),
    };
    Ok(format!("{} {}", show(first), show(second)))
}

/// One question after another.
#[mcp_tool]
async fn sequential(ctx: RequestContext) -> Result<String, String> {
    let roots = ctx.roots().await.map_err(failed)?;
    let answer = ctx
        .elicit::<Confirm>(format!("Use {} roots?", roots.len()))
        .await
        .map_err(failed)?;
    Ok(format!("{} roots, {answer:?}", roots.len()))
}

/// Ask the client's model.
#[mcp_tool]
async fn ask_model(question: String, ctx: RequestContext) -> Result<String, String> {
    let request = SamplingRequest::new(50)
        .system_prompt("Answer briefly.")
        .user(question);
    let answer = ctx.sample(request).await.map_err(failed)?;
    Ok(format!(
        "{} said: {}",
        answer.model,
        answer.text().unwrap_or("(no text)")
    ))
}

/// The client's roots.
#[mcp_tool]
async fn list_roots(ctx: RequestContext) -> Result<String, String> {
    let roots = ctx.roots().await.map_err(failed)?;
    Ok(roots
        .iter()
        .map(|root| root.uri.as_str())
        .collect::<Vec<_>>()
        .join(","))
}

/// Send the user to a page (URL-mode elicitation).
#[mcp_tool]
async fn open_url(url: String, ctx: RequestContext) -> Result<String, String> {
    match ctx
        .elicit_url("Sign in, please", url)
        .await
        .map_err(failed)?
    {
        Elicitation::Accepted(()) => Ok("the user went to sign in".into()),
        other => Ok(format!("no sign-in: {other:?}")),
    }
}

/// Send the user to a sign-in page whose URL carries the elicitation's id, and, once they
/// agreed, tell the client it finished (as the page's callback would, a moment later).
#[mcp_tool]
async fn sign_in(ctx: RequestContext) -> Result<String, String> {
    let sign_in = ctx.url_elicitation();
    let url = format!(
        "https://auth.example/sign-in?state={}",
        sign_in.id().unwrap_or("none")
    );
    match ctx
        .elicit_url_with(&sign_in, "Sign in, please", url)
        .await
        .map_err(failed)?
    {
        Elicitation::Accepted(()) => {
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                sign_in.complete();
            });
            Ok("signing in".into())
        }
        other => Ok(format!("no sign-in: {other:?}")),
    }
}

/// A form no client could show.
#[mcp_tool]
async fn bad_form(ctx: RequestContext) -> Result<String, String> {
    ctx.elicit::<Nested>("Nested?").await.map_err(failed)?;
    Ok("unreachable".into())
}

/// A review prompt that first asks what to focus on.
#[mcp_prompt]
async fn review(code: String, ctx: RequestContext) -> Result<String, String> {
    let focus = match ctx.elicit::<Confirm>("Focus on security?").await {
        Ok(Elicitation::Accepted(Confirm { confirm: true, .. })) => "security",
        Ok(_) => "style",
        Err(error) => return Err(failed(error)),
    };
    Ok(format!("Review this code for {focus}:\n{code}"))
}

/// A secret, shown only once the user confirms.
#[mcp_resource("secret://{name}", mime_type = "text/plain")]
async fn secret(name: String, ctx: RequestContext) -> Result<String, String> {
    match ctx
        .elicit::<Confirm>(format!("Show the secret {name}?"))
        .await
        .map_err(failed)?
    {
        Elicitation::Accepted(Confirm { confirm: true, .. }) => Ok(format!("the secret {name}")),
        _ => Err(format!("the secret {name} stays hidden")),
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let timeout = std::env::var("ASK_TIMEOUT_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(Server::DEFAULT_ASK_TIMEOUT, Duration::from_millis);
    Server::new(server_info!())
        .ask_timeout(timeout)
        .tools(tools![
            confirm_delete,
            two_questions,
            sequential,
            ask_model,
            list_roots,
            open_url,
            sign_in,
            bad_form
        ])
        .prompts(prompts![review])
        .resources(resources![secret])
        .serve_stdio()
        .await
}

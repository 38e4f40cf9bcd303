//! The server the resource, prompt and completion end-to-end tests talk to: written only
//! against `mcp_runtime`, `serde` and `schemars`, the way a user would, with one resource or
//! prompt per behaviour the tests need.

use std::str::FromStr;
use std::sync::OnceLock;

use mcp_runtime::{
    Content, GetPromptResult, Notifier, PromptError, PromptMessage, RequestContext, Resource,
    ResourceContents, ResourceError, Role, Server, handler::CompletionContext, mcp_prompt,
    mcp_resource, mcp_tool, prompts, resources, server_info, tools,
};
use schemars::JsonSchema;

/// Small, so a handful of resources and prompts already span several pages.
const PAGE_SIZE: usize = 3;

static NOTIFIER: OnceLock<Notifier> = OnceLock::new();

// ---- resources -------------------------------------------------------------------------------

/// The application's settings.
#[mcp_resource(
    "config://app",
    title = "App settings",
    mime_type = "application/json",
    size = 17,
    annotations(audience(user), priority = 1.0),
    icon = "https://example.com/icons/settings.svg"
)]
async fn app_config() -> &'static str {
    r#"{"theme":"dark"}"#
}

/// Any other configuration section.
#[mcp_resource("config://{section}", mime_type = "text/plain")]
async fn config_section(section: String) -> String {
    format!("section {section}")
}

/// The logo, as bytes.
#[mcp_resource("config://logo.png", mime_type = "image/png")]
fn logo() -> Vec<u8> {
    vec![0x89, b'P', b'N', b'G', 0, 255]
}

/// A numbered note; notes 1 to 3 exist.
#[mcp_resource(
    "note://{id}",
    mime_type = "text/plain",
    icon = "https://example.com/icons/note.svg",
    list = list_notes
)]
async fn note(id: u64) -> Result<String, String> {
    if (1..=3).contains(&id) {
        Ok(format!("note {id}"))
    } else {
        Err(format!("there is no note {id}; notes are 1 to 3"))
    }
}

async fn list_notes() -> Vec<Resource> {
    (1..=3)
        .map(|id| Resource::new(format!("note://{id}"), format!("note {id}")))
        .collect()
}

/// Any file.
#[mcp_resource("file:///{+path}")]
async fn any_file(path: String) -> String {
    format!("any file: {path}")
}

/// A Rust source file: more specific than any file.
#[mcp_resource("file:///src/{name}.rs", mime_type = "text/x-rust")]
async fn rust_source(name: String) -> String {
    format!("rust source: {name}")
}

/// Two contents for one URI.
#[mcp_resource("multi://{key}")]
async fn multi(key: String) -> Vec<ResourceContents> {
    vec![
        ResourceContents::text(format!("multi://{key}"), "first").with_mime_type("text/plain"),
        ResourceContents::blob(format!("multi://{key}/raw"), b"second".to_vec()),
    ]
}

/// Always fails on the server's side.
#[mcp_resource("broken://{key}")]
async fn broken(key: String) -> Result<String, ResourceError> {
    Err(ResourceError::internal(format!(
        "the disk holding {key} is gone"
    )))
}

/// Panics.
#[mcp_resource("panics://{key}")]
async fn panics(key: String) -> String {
    panic!("resource panic for {key}")
}

/// Reads as no contents at all.
#[mcp_resource("empty://{key}")]
async fn empty(key: String) -> Vec<ResourceContents> {
    let _ = key;
    Vec::new()
}

/// Answers with the revision of the request that reads it.
#[mcp_resource("revision://current")]
async fn revision(context: RequestContext) -> String {
    context.revision.to_string()
}

/// A shade; completed from its variants.
#[derive(Debug, Clone, Copy, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Shade {
    Red,
    Green,
    Blue,
}

impl FromStr for Shade {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "red" => Ok(Shade::Red),
            "green" => Ok(Shade::Green),
            "blue" => Ok(Shade::Blue),
            other => Err(format!("no shade `{other}`")),
        }
    }
}

/// A colour swatch, by shade; a plain `fn`.
#[mcp_resource("color://{shade}")]
fn color(shade: Shade) -> String {
    format!("{shade:?}")
}

/// A city page; the city is completed by a function.
#[mcp_resource("city://{country}/{name}", complete(name = complete_city))]
async fn city(country: String, name: String) -> String {
    format!("{name}, {country}")
}

/// Cities of the chosen country (from the completion context), else of every country; 150 of
/// them for "many".
fn complete_city(typed: &str, context: &CompletionContext) -> Vec<String> {
    if typed == "many" {
        return (0..150).map(|n| format!("many-{n}")).collect();
    }
    let cities: &[&str] = match context.argument("country") {
        Some("fr") => &["paris", "lyon"],
        Some("jp") => &["tokyo", "osaka"],
        _ => &["paris", "lyon", "tokyo", "osaka"],
    };
    cities
        .iter()
        .filter(|city| city.starts_with(typed))
        .map(|city| city.to_string())
        .collect()
}

// ---- prompts ---------------------------------------------------------------------------------

/// Greet someone.
///
/// # Arguments
/// * `name` - who to greet
/// * `excited` - whether to shout
#[mcp_prompt(title = "Greeting", icon = "https://example.com/icons/wave.svg")]
async fn greeting(name: String, excited: Option<bool>) -> String {
    if excited.unwrap_or(false) {
        format!("HELLO, {}!", name.to_uppercase())
    } else {
        format!("Hello, {name}.")
    }
}

/// Count to a number, some times; a plain `fn`.
///
/// # Arguments
/// * `to` - the last number
/// * `times` - how many times to count
#[mcp_prompt]
fn count(to: u8, #[arg(default = 2)] times: u32) -> String {
    let once: Vec<String> = (1..=to).map(|n| n.to_string()).collect();
    vec![once.join(" "); times as usize].join(" / ")
}

/// A conversation with every kind of content.
#[mcp_prompt]
async fn conversation() -> GetPromptResult {
    GetPromptResult::new(vec![
        PromptMessage::user("Look at this."),
        PromptMessage::new(
            Role::User,
            Content::Image {
                data: "iVBORw0KGgo=".into(),
                mime_type: "image/png".into(),
            },
        ),
        PromptMessage::new(
            Role::User,
            Content::Audio {
                data: "UklGRg==".into(),
                mime_type: "audio/wav".into(),
            },
        ),
        PromptMessage::user_resource(
            ResourceContents::text("note://1", "note 1").with_mime_type("text/plain"),
        ),
        PromptMessage::assistant("I see a logo, a sound and a note."),
    ])
    .with_description("every kind of content")
}

/// Refuses its argument.
///
/// # Arguments
/// * `topic` - anything
#[mcp_prompt]
async fn refuse(topic: String) -> Result<String, String> {
    Err(format!("I will not talk about {topic}"))
}

/// Fails on the server's side.
#[mcp_prompt]
async fn crash() -> Result<String, PromptError> {
    Err(PromptError::internal("the template store is gone"))
}

/// Panics.
#[mcp_prompt]
async fn explode() -> String {
    panic!("prompt panic")
}

/// Paint with a shade, completed from its variants.
///
/// # Arguments
/// * `shade` - which shade
#[mcp_prompt]
async fn paint(shade: Shade) -> String {
    format!("Paint it {shade:?}.")
}

/// Plan a trip; the city is completed by a function that reads the chosen country.
#[mcp_prompt(complete(city = complete_city))]
async fn travel(
    #[arg(description = "a country code, like `fr`")] country: String,
    #[arg(description = "a city of that country", rename = "city")] destination: String,
) -> String {
    format!("Plan a trip to {destination}, {country}.")
}

/// Answers with the revision of its request.
#[mcp_prompt]
async fn which_revision(context: RequestContext) -> String {
    format!("revision {}", context.revision)
}

// ---- tools that announce changes -------------------------------------------------------------

/// Announce that the resource at `uri` changed.
///
/// # Arguments
/// * `uri` - the resource that changed
#[mcp_tool]
async fn touch(uri: String) -> &'static str {
    NOTIFIER.get().expect("set in main").resource_updated(uri);
    "announced"
}

/// Announce that the lists of resources and prompts changed.
#[mcp_tool]
async fn reshuffle() -> &'static str {
    let notifier = NOTIFIER.get().expect("set in main");
    notifier.resource_list_changed();
    notifier.prompt_list_changed();
    "announced"
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = Server::new(server_info!())
        .page_size(PAGE_SIZE)
        .tools(tools![touch, reshuffle])
        .resources(resources![
            app_config,
            config_section,
            logo,
            note,
            any_file,
            rust_source,
            multi,
            broken,
            panics,
            empty,
            revision,
            color,
            city,
        ])
        .prompts(prompts![
            greeting,
            count,
            conversation,
            refuse,
            crash,
            explode,
            paint,
            travel,
            which_revision,
        ]);
    NOTIFIER.set(server.notifier()).expect("main runs once");
    server.serve_stdio().await
}

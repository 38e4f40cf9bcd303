//! A documentation server over a folder of Markdown files: tools to search and summarize them,
//! each file as a `doc://{name}` resource, and prompts that put the documents to use.
//!
//! Run it with `cargo run --example doc_search [DIR]`. The folder is `DIR` (a first argument
//! that is a directory; what follows is the runtime's command line), else the
//! `DOC_SEARCH_DIR` environment variable, else `examples/docs` of this workspace. Edits to the
//! folder are announced to subscribed clients (`notifications/resources/updated`, and
//! `list_changed` when files come or go).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use mcp_runtime::{
    Notifier, PromptMessage, Resource, Server, mcp_prompt, mcp_resource, mcp_tool, prompts,
    resources, server_info, tools,
};
use schemars::JsonSchema;

/// The folder the documents are read from, set once in `main`.
static DOCS_DIR: OnceLock<PathBuf> = OnceLock::new();

fn docs_dir() -> &'static Path {
    DOCS_DIR.get_or_init(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/docs"))
}

/// One Markdown document.
struct Doc {
    /// The file name without `.md`: what `doc://{name}` and the tools call it.
    name: String,
    text: String,
}

impl Doc {
    /// The first `# ` heading, or the name.
    fn title(&self) -> &str {
        self.text
            .lines()
            .find_map(|line| line.strip_prefix("# "))
            .map_or(&self.name, str::trim)
    }

    /// Every heading, indented by level.
    fn headings(&self) -> Vec<String> {
        self.text
            .lines()
            .filter_map(|line| {
                let level = line.chars().take_while(|c| *c == '#').count();
                let title = line[level..].strip_prefix(' ')?;
                (1..=6)
                    .contains(&level)
                    .then(|| format!("{}{}", "  ".repeat(level - 1), title.trim()))
            })
            .collect()
    }

    /// The first paragraph that is not a heading.
    fn first_paragraph(&self) -> String {
        self.text
            .split("\n\n")
            .map(str::trim)
            .find(|block| !block.is_empty() && !block.starts_with('#'))
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Every `.md` file of the folder, by name.
fn all_docs() -> Result<Vec<Doc>, String> {
    let dir = docs_dir();
    let entries = std::fs::read_dir(dir).map_err(|error| {
        format!(
            "cannot read the documents folder {}: {error}",
            dir.display()
        )
    })?;
    let mut docs: Vec<Doc> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .filter_map(|path| {
            let name = path.file_stem()?.to_str()?.to_owned();
            let text = std::fs::read_to_string(&path).ok()?;
            Some(Doc { name, text })
        })
        .collect();
    docs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(docs)
}

/// The document called `name`, or an error naming the ones that exist.
fn find_doc(name: &str) -> Result<Doc, String> {
    let docs = all_docs()?;
    let names: Vec<String> = docs.iter().map(|doc| doc.name.clone()).collect();
    docs.into_iter()
        .find(|doc| doc.name == name)
        .ok_or_else(|| {
            format!(
                "unknown document `{name}`; the documents are: {}",
                names.join(", ")
            )
        })
}

/// Lowercase words of at least two letters or digits.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.len() >= 2)
        .map(str::to_lowercase)
        .collect()
}

/// The documents sharing words with `query`, best first: (score, document).
fn ranked(query: &BTreeSet<String>) -> Result<Vec<(usize, Doc)>, String> {
    let mut ranked: Vec<(usize, Doc)> = all_docs()?
        .into_iter()
        .map(|doc| (words(&doc.text).intersection(query).count(), doc))
        .filter(|(score, _)| *score > 0)
        .collect();
    ranked.sort_by(|(a, doc_a), (b, doc_b)| b.cmp(a).then_with(|| doc_a.name.cmp(&doc_b.name)));
    Ok(ranked)
}

/// Up to three lines of `doc` holding a query word, each with the line before and after.
fn snippets(doc: &Doc, query: &BTreeSet<String>) -> Vec<String> {
    let lines: Vec<&str> = doc.text.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| !words(line).is_disjoint(query))
        .take(3)
        .map(|(index, _)| {
            let from = index.saturating_sub(1);
            let to = (index + 1).min(lines.len() - 1);
            let context: Vec<String> = (from..=to)
                .filter(|&at| !lines[at].trim().is_empty())
                .map(|at| format!("    {:>3} | {}", at + 1, lines[at]))
                .collect();
            context.join("\n")
        })
        .collect()
}

/// Search the documentation for words of a query, best matches first.
///
/// # Arguments
/// * `query` - the words to look for
/// * `limit` - how many documents to return at most
#[mcp_tool(annotations(read_only, idempotent))]
async fn search_docs(query: String, #[arg(default = 5)] limit: usize) -> Result<String, String> {
    let query_words = words(&query);
    if query_words.is_empty() {
        return Err("`query` holds no word to search for".to_owned());
    }
    let ranked = ranked(&query_words)?;
    if ranked.is_empty() {
        return Ok(format!("No document mentions any of: {query}"));
    }
    let results: Vec<String> = ranked
        .iter()
        .take(limit)
        .map(|(score, doc)| {
            format!(
                "{} (doc://{}, {score} matching word{}):\n{}",
                doc.title(),
                doc.name,
                if *score == 1 { "" } else { "s" },
                snippets(doc, &query_words).join("\n    ...\n")
            )
        })
        .collect();
    Ok(results.join("\n\n"))
}

/// List every document with its title and length.
#[mcp_tool(annotations(read_only, idempotent))]
async fn list_all_docs() -> Result<String, String> {
    let docs = all_docs()?;
    if docs.is_empty() {
        return Ok(format!("No documents in {}", docs_dir().display()));
    }
    let lines: Vec<String> = docs
        .iter()
        .map(|doc| {
            format!(
                "{}: {} ({} lines)",
                doc.name,
                doc.title(),
                doc.text.lines().count()
            )
        })
        .collect();
    Ok(lines.join("\n"))
}

/// Summarize one document: its headings, first paragraph and length.
///
/// # Arguments
/// * `doc_name` - the document's name, as `list_all_docs` shows it
#[mcp_tool(annotations(read_only, idempotent))]
async fn summarize_doc(doc_name: String) -> Result<String, String> {
    let doc = find_doc(&doc_name)?;
    Ok(format!(
        "{} ({} lines)\n\nHeadings:\n{}\n\nFirst paragraph:\n{}",
        doc.title(),
        doc.text.lines().count(),
        doc.headings().join("\n"),
        doc.first_paragraph()
    ))
}

/// A documentation page, as Markdown.
#[mcp_resource(
    "doc://{name}",
    title = "Documentation page",
    mime_type = "text/markdown",
    annotations(audience(user, assistant), priority = 0.7),
    list = list_docs,
    complete(name = complete_doc_name)
)]
async fn doc(name: String) -> Result<String, String> {
    find_doc(&name).map(|doc| doc.text)
}

/// Every document as a `doc://` resource.
fn list_docs() -> Result<Vec<Resource>, String> {
    Ok(all_docs()?
        .into_iter()
        .map(|doc| {
            let size = doc.text.len() as u64;
            Resource::new(format!("doc://{}", doc.name), doc.name.clone())
                .with_title(doc.title().to_owned())
                .with_size(size)
        })
        .collect())
}

/// The names of the documents starting with what was typed.
fn complete_doc_name(typed: &str) -> Vec<String> {
    all_docs()
        .unwrap_or_default()
        .into_iter()
        .map(|doc| doc.name)
        .filter(|name| name.starts_with(typed))
        .collect()
}

/// Explain a concept of the framework, grounded in the documents that mention it.
///
/// # Arguments
/// * `concept` - what to explain, like "resource templates"
#[mcp_prompt(title = "Explain a concept", complete(concept = complete_concept))]
async fn explain_concept(concept: String) -> Result<String, String> {
    let mut text = format!(
        "Explain \"{concept}\" in mcp-runtime to a Rust developer, with a short example. Base \
         the explanation on these documents:\n"
    );
    let related = ranked(&words(&concept))?;
    if related.is_empty() {
        text.push_str("\n(No document mentions it: say so, and explain from general knowledge.)\n");
    }
    for (_, doc) in related.iter().take(3) {
        let excerpt: String = doc.text.chars().take(1000).collect();
        text.push_str(&format!("\n--- doc://{} ---\n{excerpt}\n", doc.name));
    }
    Ok(text)
}

/// The headings of every document starting with what was typed: concepts worth explaining.
fn complete_concept(typed: &str) -> Vec<String> {
    let typed = typed.to_lowercase();
    let headings: BTreeSet<String> = all_docs()
        .unwrap_or_default()
        .iter()
        .flat_map(Doc::headings)
        .map(|heading| heading.trim().to_lowercase())
        .filter(|heading| heading.starts_with(&typed))
        .collect();
    headings.into_iter().collect()
}

/// A language `code_review` knows the conventions of. Clients complete it from the variants.
#[derive(Debug, Clone, Copy, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Language {
    Rust,
    Python,
    TypeScript,
    Go,
}

impl FromStr for Language {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.to_lowercase().as_str() {
            "rust" => Ok(Language::Rust),
            "python" => Ok(Language::Python),
            "typescript" | "ts" => Ok(Language::TypeScript),
            "go" => Ok(Language::Go),
            other => Err(format!(
                "unknown language `{other}`; expected rust, python, typescript or go"
            )),
        }
    }
}

impl Language {
    fn conventions(self) -> &'static str {
        match self {
            Language::Rust => "ownership and borrowing, error handling with `Result`, clippy lints",
            Language::Python => "PEP 8, type hints, exceptions",
            Language::TypeScript => "strict types, `async`/`await`, no `any`",
            Language::Go => "`gofmt`, error values, small interfaces",
        }
    }
}

/// Review a piece of code for bugs, clarity and idiom.
///
/// # Arguments
/// * `language` - the code's language
/// * `code` - the code to review
#[mcp_prompt(title = "Code review")]
async fn code_review(language: Language, code: String) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(format!(
            "Review this {language:?} code. Point out bugs first, then unclear parts, then \
             departures from {language:?} idiom ({}). Quote the lines you mean.\n\n```\n{code}\n```",
            language.conventions()
        )),
        PromptMessage::assistant("I will start with anything that is wrong, then style."),
    ]
}

/// Watch the folder and announce what changed: a document's new contents to its subscribers,
/// and a new list when documents come or go. The folder as it is when `watch` is called is the
/// starting point, so call it before serving: a change made once a client is connected is then
/// announced, however late the watching task first runs.
fn watch(notifier: Notifier) -> impl Future<Output = ()> {
    fn snapshot() -> BTreeMap<String, SystemTime> {
        let Ok(entries) = std::fs::read_dir(docs_dir()) else {
            return BTreeMap::new();
        };
        entries
            .filter_map(Result::ok)
            .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "md"))
            .filter_map(|entry| {
                let name = entry.path().file_stem()?.to_str()?.to_owned();
                Some((name, entry.metadata().ok()?.modified().ok()?))
            })
            .collect()
    }
    let mut known = snapshot();
    async move {
        loop {
            tokio::time::sleep(Duration::from_secs(2)).await;
            let now = snapshot();
            if now.keys().ne(known.keys()) {
                notifier.resource_list_changed();
            }
            for (name, modified) in &now {
                if known.get(name).is_some_and(|before| before != modified) {
                    notifier.resource_updated(format!("doc://{name}"));
                }
            }
            known = now;
        }
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // A leading argument that is a directory is the folder; the rest is the runtime's command
    // line (`doc_search DIR manifest`, `doc_search call search_docs query=tools`).
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let dir = match args.first() {
        Some(first) if Path::new(first).is_dir() => Some(args.remove(0)),
        _ => std::env::var_os("DOC_SEARCH_DIR"),
    }
    .map(PathBuf::from);
    if let Some(dir) = dir {
        DOCS_DIR.set(dir).expect("set before any use");
    }
    let server = Server::new(server_info!())
        .trace_from_env()
        .instructions(
            "Documentation of mcp-runtime. Use `search_docs` to find pages, `summarize_doc` for \
             an overview of one, and read `doc://{name}` for the full text.",
        )
        .tools(tools![search_docs, list_all_docs, summarize_doc])
        .resources(resources![doc])
        .prompts(prompts![explain_concept, code_review]);
    tokio::spawn(watch(server.notifier()));
    server.serve_stdio_with_args(args).await
}

// A template: variables of any `FromStr` type bound by name, reserved expansion, injected
// values, a lister (plain or async), completers of both signatures, enum completion, an icon.
#![deny(warnings)]

use std::str::FromStr;

use mcp_runtime::{CancellationToken, handler::CompletionContext, RequestContext, Resource, handler::ResourceDefinition, mcp_resource, resources};

#[derive(Debug, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Format {
    Html,
    Text,
}

impl FromStr for Format {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "html" => Ok(Format::Html),
            "text" => Ok(Format::Text),
            other => Err(format!("unknown format {other}")),
        }
    }
}

fn list_pages() -> Vec<Resource> {
    vec![Resource::new("page://1/html", "page 1")]
}

async fn list_files() -> Result<Vec<Resource>, String> {
    Ok(Vec::new())
}

fn complete_id(typed: &str) -> Vec<&'static str> {
    ["1", "2"].into_iter().filter(|id| id.starts_with(typed)).collect()
}

fn complete_path(typed: &str, context: &CompletionContext) -> Vec<String> {
    vec![format!("{typed}{}", context.arguments.len())]
}

/// A page in a format.
#[mcp_resource(
    "page://{id}/{format}",
    list = list_pages,
    complete(id = complete_id),
    icon = "data:image/svg+xml;base64,PHN2Zy8+"
)]
async fn page(id: u64, format: Format, context: RequestContext) -> String {
    format!("{id} {format:?} {}", context.revision)
}

/// A file by path.
#[mcp_resource("file:///{+path}", list = list_files, complete(path = complete_path))]
fn file(r#path: String, cancel: CancellationToken) -> Result<String, String> {
    let _ = cancel.is_cancelled();
    Ok(r#path)
}

fn main() {
    let resources = resources![page, file];
    let ResourceDefinition::Template(template) = resources.handlers()[0].definition() else {
        panic!("a URI with variables is a template");
    };
    assert_eq!(template.uri_template.as_str(), "page://{id}/{format}");
    assert_eq!(template.uri_template.variables().collect::<Vec<_>>(), ["id", "format"]);
    assert_eq!(template.icons.len(), 1);
    assert_eq!(template.icons[0].src, "data:image/svg+xml;base64,PHN2Zy8+");
    let ResourceDefinition::Template(file) = resources.handlers()[1].definition() else {
        panic!("a URI with variables is a template");
    };
    assert!(file.icons.is_empty(), "no `icon`, no icons");
    assert!(resources.handlers()[0].has_completions());
    assert!(resources.handlers()[1].has_completions());
}

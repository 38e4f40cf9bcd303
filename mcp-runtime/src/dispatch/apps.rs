//! What a server's offerings must be before it serves: `_meta` keys it may send, and MCP Apps
//! whose tools name pages the server has. Checked when the server starts, so a mistake stops
//! it with a message naming the offering instead of reaching a client.

use serde_json::Value;

use super::catalog::CatalogError;
use super::sets::Sets;
use crate::extensions::apps::{self, META_KEY, MIME_TYPE, SCHEME};
use crate::protocol::{Meta, ResourceDefinition, meta_key_problem};

/// Check `sets`; `Ok(true)` when the server has an MCP App (a tool with `_meta.ui` or an app
/// page), so the extension is declared.
pub(crate) fn check(sets: &Sets) -> Result<bool, CatalogError> {
    for (definition, _) in &sets.tools {
        check_meta(&definition.meta, || format!("tool `{}`", definition.name))?;
    }
    for route in &sets.resources {
        check_meta(route.definition.meta(), || {
            format!("resource `{}`", route.definition.name())
        })?;
        check_page(&route.definition)?;
    }
    for (definition, _) in &sets.prompts {
        check_meta(&definition.meta, || format!("prompt `{}`", definition.name))?;
    }
    let mut has_app = false;
    for (definition, _) in &sets.tools {
        if definition.meta.get(META_KEY).is_none() {
            continue;
        }
        has_app = true;
        let Some(uri) = apps::tool_page(&definition.meta) else {
            continue;
        };
        if !uri.starts_with(SCHEME) {
            return Err(CatalogError::Offering(format!(
                "tool `{}` names the app page `{uri}` (`_meta.ui.resourceUri`), which is not a \
                 `ui://` URI: app pages are `ui://` resources",
                definition.name
            )));
        }
        let offered = sets.resources.iter().any(|route| {
            matches!(&route.definition, ResourceDefinition::Static(resource) if resource.uri == uri)
        });
        if !offered {
            return Err(CatalogError::Offering(format!(
                "tool `{}` names the app page `{uri}` (`_meta.ui.resourceUri`), but the server \
                 offers no resource `{uri}`: add a `#[mcp_resource(\"{uri}\", app)]` to its \
                 resources, or fix the URI",
                definition.name
            )));
        }
    }
    has_app |= sets
        .resources
        .iter()
        .any(|route| route.definition.mime_type() == Some(MIME_TYPE));
    Ok(has_app)
}

/// Every key of a definition's `_meta` must be one a client accepts and the runtime does not
/// own (builders take keys unchecked, so this is where a bad one is caught).
fn check_meta(meta: &Meta, what: impl Fn() -> String) -> Result<(), CatalogError> {
    for key in meta.as_object().keys() {
        if let Some(problem) = meta_key_problem(key) {
            return Err(CatalogError::Offering(format!(
                "the `_meta` key `{key}` of {} {problem}",
                what()
            )));
        }
    }
    Ok(())
}

/// An app page is a `ui://` resource (the scheme is how hosts tell them apart), one URI (a
/// tool names it exactly), and its `_meta.ui` an object.
fn check_page(definition: &ResourceDefinition) -> Result<(), CatalogError> {
    if definition.mime_type() != Some(MIME_TYPE) {
        return Ok(());
    }
    let problem = match definition {
        ResourceDefinition::Template(template) => Some(format!(
            "is the template `{}`: an app page has one `ui://` URI a tool can name",
            template.uri_template.as_str()
        )),
        ResourceDefinition::Static(resource) if !resource.uri.starts_with(SCHEME) => Some(format!(
            "has the URI `{}`: app pages are `ui://` resources",
            resource.uri
        )),
        ResourceDefinition::Static(_) => definition
            .meta()
            .get(META_KEY)
            .filter(|ui| !ui.is_object())
            .map(|_| "has a `_meta.ui` that is not an object".to_owned()),
    };
    match problem {
        Some(problem) => Err(CatalogError::Offering(format!(
            "the app page `{}` (MIME type `{MIME_TYPE}`) {problem}",
            definition.name()
        ))),
        None => Ok(()),
    }
}

/// The `_meta.ui` an app page's read contents carry: its definition's, on every item that
/// has none of its own.
pub(crate) fn page_meta(definition: &ResourceDefinition) -> Option<Value> {
    (definition.mime_type() == Some(MIME_TYPE))
        .then(|| definition.meta().get(META_KEY).cloned())
        .flatten()
}

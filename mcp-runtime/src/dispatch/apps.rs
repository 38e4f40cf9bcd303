//! What a server's offerings must be before it serves: `_meta` keys it may send, and MCP Apps
//! whose tools name pages the server has. Checked when the server starts, so a mistake stops
//! it with a message naming the offering instead of reaching a client.

use super::catalog::{CatalogError, ToolEntry};
use super::prompts::PromptEntry;
use super::routing::Route;
use crate::extensions::apps::{self, META_KEY, MIME_TYPE, SCHEME};
use crate::protocol::{Meta, ResourceDefinition, meta_key_problem};

/// What a server starts with.
pub(crate) struct Offerings<'a> {
    pub(crate) tools: &'a [ToolEntry],
    pub(crate) resources: &'a [Route],
    pub(crate) prompts: &'a [PromptEntry],
}

/// Check `sets`; `Ok(true)` when the server has an MCP App (a tool with `_meta.ui` or an app
/// page), so the extension is declared.
pub(crate) fn check(sets: Offerings<'_>) -> Result<bool, CatalogError> {
    for (definition, _) in sets.tools {
        check_meta(&definition.meta, || format!("tool `{}`", definition.name))?;
    }
    for route in sets.resources {
        check_meta(route.definition.meta(), || {
            format!("resource `{}`", route.definition.name())
        })?;
        check_page(&route.definition)?;
    }
    for (definition, _) in sets.prompts {
        check_meta(&definition.meta, || format!("prompt `{}`", definition.name))?;
    }
    let mut has_app = false;
    for (definition, _) in sets.tools {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::extensions::Extension;
    use crate::extensions::apps::{AppPage, AppTool, EXTENSION};
    use crate::handler::{ResourceBuilder, ToolBuilder};
    use crate::protocol::{ProtocolVersion, Resource};
    use crate::testing::TestClient;
    use crate::{Resources, Server, ServerInfo, Tools};

    fn server() -> Server {
        Server::new(ServerInfo::new("apps", "1"))
    }

    fn start_error(server: Server) -> String {
        match server.dispatcher() {
            Ok(_) => panic!("the server started"),
            Err(error) => error.to_string(),
        }
    }

    fn tool(name: &'static str) -> ToolBuilder {
        ToolBuilder::new(name)
    }

    fn page(uri: &'static str) -> ResourceBuilder {
        ResourceBuilder::new(Resource::new(uri, "page")).app(AppPage::new().prefers_border(true))
    }

    #[test]
    fn a_reserved_meta_key_stops_the_server_naming_the_offering() {
        let bad = tool("deploy")
            .meta("io.modelcontextprotocol/serverInfo", "me")
            .handler(|_, _| async { "" });
        let error = start_error(server().tools(Tools::new().with(bad)));
        assert!(error.contains("tool `deploy`"), "{error}");
        assert!(
            error.contains("io.modelcontextprotocol/serverInfo"),
            "{error}"
        );
        assert!(error.contains("reserved"), "{error}");

        let bad = page("ui://p").meta("no spaces", 1).reader(|_| async { "" });
        let error = start_error(server().resources(Resources::new().with(bad)));
        assert!(
            error.contains("resource `page`") && error.contains("no spaces"),
            "{error}"
        );
    }

    #[test]
    fn a_tool_naming_a_page_the_server_lacks_stops_it_naming_both() {
        let forecast = tool("forecast")
            .app(AppTool::new("ui://weather/forcast"))
            .handler(|_, _| async { "" });
        let offered = page("ui://weather/forecast").reader(|_| async { "" });
        let error = start_error(
            server()
                .tools(Tools::new().with(forecast))
                .resources(Resources::new().with(offered)),
        );
        assert!(error.contains("tool `forecast`"), "{error}");
        assert!(error.contains("`ui://weather/forcast`"), "{error}");

        let web = tool("web")
            .app(AppTool::new("https://example.com"))
            .handler(|_, _| async { "" });
        let error = start_error(server().tools(Tools::new().with(web)));
        assert!(error.contains("not a `ui://` URI"), "{error}");
    }

    #[test]
    fn an_app_page_is_one_ui_uri() {
        let elsewhere = ResourceBuilder::new(Resource::new("https://example.com/p", "web"))
            .app(AppPage::new())
            .reader(|_| async { "" });
        let error = start_error(server().resources(Resources::new().with(elsewhere)));
        assert!(
            error.contains("app page `web`") && error.contains("`ui://`"),
            "{error}"
        );
    }

    #[test]
    fn an_extension_identifier_without_a_prefix_stops_the_server() {
        let error = start_error(server().extension(Extension::new("audit")));
        assert!(
            error.contains("`audit`") && error.contains("prefix"),
            "{error}"
        );
    }

    fn app_server() -> Server {
        let forecast = tool("forecast")
            .app(AppTool::new("ui://weather/forecast"))
            .handler(|_, _| async { "sunny" });
        let offered =
            page("ui://weather/forecast").reader(|_| async { "<!doctype html>".to_owned() });
        server()
            .tools(Tools::new().with(forecast))
            .resources(Resources::new().with(offered))
    }

    #[tokio::test]
    async fn a_server_with_an_app_declares_the_extension_in_both_eras() {
        for revision in [ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_11_25] {
            let dispatcher = app_server().dispatcher().unwrap();
            let capabilities =
                serde_json::to_value(dispatcher.capabilities.for_revision(revision).as_ref())
                    .unwrap();
            assert_eq!(
                capabilities["extensions"],
                json!({EXTENSION: {}}),
                "{revision}"
            );
        }
        let client = TestClient::new(app_server());
        let discovered = client.request("server/discover", json!({})).await.unwrap();
        assert_eq!(
            discovered["capabilities"]["extensions"],
            json!({EXTENSION: {}})
        );
        // A server without an app declares nothing.
        let plain = TestClient::new(server());
        let discovered = plain.request("server/discover", json!({})).await.unwrap();
        assert!(discovered["capabilities"].get("extensions").is_none());
    }

    #[tokio::test]
    async fn an_app_page_s_contents_carry_its_policy_and_mime_type() {
        let client = TestClient::new(app_server());
        let read = client.read_resource("ui://weather/forecast").await.unwrap();
        let contents = &read.contents()[0];
        assert_eq!(contents["mimeType"], crate::extensions::apps::MIME_TYPE);
        assert_eq!(contents["_meta"]["ui"], json!({"prefersBorder": true}));
    }
}

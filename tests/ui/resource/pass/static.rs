// A static resource with every option: its definition says what was written.
#![deny(warnings)]

use mcp_runtime::{handler::ResourceDefinition, Role, mcp_resource, resources};

/// The application's settings.
#[mcp_resource(
    "config://app",
    name = "settings",
    title = "Settings",
    mime_type = "application/json",
    size = 2,
    annotations(audience(user, assistant), priority = 0.5),
    icon = "https://example.com/settings.svg"
)]
async fn app_config() -> &'static str {
    "{}"
}

fn main() {
    let resources = resources![app_config];
    let ResourceDefinition::Static(resource) = resources.handlers()[0].definition() else {
        panic!("a static URI is a static resource");
    };
    assert_eq!(resource.uri, "config://app");
    assert_eq!(resource.name, "settings");
    assert_eq!(resource.title.as_deref(), Some("Settings"));
    assert_eq!(resource.description.as_deref(), Some("The application's settings."));
    assert_eq!(resource.mime_type.as_deref(), Some("application/json"));
    assert_eq!(resource.size, Some(2));
    assert_eq!(&*resource.annotations.audience, [Role::User, Role::Assistant]);
    assert_eq!(resource.annotations.priority, Some(0.5));
    let icons: Vec<&str> = resource.icons.iter().map(|icon| &*icon.src).collect();
    assert_eq!(icons, ["https://example.com/settings.svg"]);
}

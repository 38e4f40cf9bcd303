//! Which resource answers a `resources/read` for a given URI.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::handler::Resources;
use crate::handler::sets::route_text;
use crate::handler::{ResourceDefinition, ResourceHandler};
use crate::protocol::uri_template::UriVariables;

/// One resource with its definition, computed once.
#[derive(Clone)]
pub(crate) struct Route {
    pub(crate) definition: ResourceDefinition,
    pub(crate) handler: Arc<dyn ResourceHandler>,
}

/// Every resource's definition, asked of its handler once.
pub(crate) fn routes(resources: &Resources) -> Vec<Route> {
    resources
        .handlers()
        .iter()
        .map(|handler| Route {
            definition: handler.definition(),
            handler: handler.clone(),
        })
        .collect()
}

/// Two resources that would answer the same URIs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RouteConflict {
    pub(crate) first: String,
    pub(crate) second: String,
}

impl fmt::Display for RouteConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the resources `{}` and `{}` answer the same URIs, so which one reads them would be \
             arbitrary; change one of them",
            self.first, self.second
        )
    }
}

/// Static URIs by exact text, templates by specificity.
pub(crate) struct ResourceRouter {
    routes: Vec<Route>,
    statics: HashMap<String, usize>,
    /// Indexes of the templates, most specific first.
    templates: Vec<usize>,
}

impl ResourceRouter {
    /// Take the definitions of `resources` and check that no two answer the same URIs.
    #[cfg(test)]
    pub(crate) fn build(resources: &Resources) -> Result<Self, RouteConflict> {
        Self::from_routes(routes(resources))
    }

    /// [`build`](Self::build) from definitions already computed.
    pub(crate) fn from_routes(routes: Vec<Route>) -> Result<Self, RouteConflict> {
        let mut statics = HashMap::new();
        let mut shapes: HashMap<String, usize> = HashMap::new();
        let mut templates = Vec::new();
        for (index, route) in routes.iter().enumerate() {
            let earlier = match &route.definition {
                ResourceDefinition::Static(resource) => {
                    statics.insert(resource.uri.to_string(), index)
                }
                ResourceDefinition::Template(template) => {
                    templates.push(index);
                    shapes.insert(template.uri_template.shape(), index)
                }
            };
            if let Some(earlier) = earlier {
                return Err(RouteConflict {
                    first: route_text(&routes[earlier].definition),
                    second: route_text(&route.definition),
                });
            }
        }
        // On equal specificity the one listed first stays first: `templates` was filled in
        // increasing `index`, so ending the key with it orders as a stable sort would (and the
        // unstable sort is the smaller code).
        templates.sort_unstable_by_key(|&index| {
            let ResourceDefinition::Template(template) = &routes[index].definition else {
                unreachable!("only templates are in `templates`")
            };
            (
                Reverse(template.uri_template.literal_len()),
                template.uri_template.reserved_count(),
                index,
            )
        });
        Ok(ResourceRouter {
            routes,
            statics,
            templates,
        })
    }

    /// Every resource, in the order listed.
    pub(crate) fn routes(&self) -> &[Route] {
        &self.routes
    }

    /// Whether there are no resources at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }

    /// The resource that reads `uri`, with the template's variables taken from it.
    pub(crate) fn route(&self, uri: &str) -> Option<(&Route, UriVariables)> {
        if let Some(&index) = self.statics.get(uri) {
            return Some((&self.routes[index], Vec::new()));
        }
        self.templates.iter().find_map(|&index| {
            let route = &self.routes[index];
            let ResourceDefinition::Template(template) = &route.definition else {
                return None;
            };
            template
                .uri_template
                .match_uri(uri)
                .map(|variables| (route, variables))
        })
    }

    /// The resource a completion's `ref/resource` names: a template by its text, or a static
    /// resource by its URI.
    pub(crate) fn by_reference(&self, uri: &str) -> Option<&Route> {
        self.routes.iter().find(|route| match &route.definition {
            ResourceDefinition::Static(resource) => resource.uri == uri,
            ResourceDefinition::Template(template) => template.uri_template.as_str() == uri,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::RequestContext;
    use crate::handler::{BoxFuture, Resource, ResourceError, ResourceRead, ResourceTemplate};
    use crate::protocol::uri_template::UriTemplate;
    use crate::protocol::{Annotations, ResourceContents};

    struct Fixed(ResourceDefinition);

    impl ResourceHandler for Fixed {
        fn definition(&self) -> ResourceDefinition {
            self.0.clone()
        }

        fn read(
            &self,
            read: ResourceRead,
        ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
            let _: RequestContext = read.context;
            Box::pin(std::future::ready(Ok(Vec::new())))
        }
    }

    fn fixed(uri: &'static str) -> Fixed {
        Fixed(ResourceDefinition::Static(Resource::new(uri, uri)))
    }

    fn template(text: &'static str) -> Fixed {
        Fixed(ResourceDefinition::Template(ResourceTemplate {
            uri_template: UriTemplate::parse(text).unwrap(),
            name: text.into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: Annotations::NONE,
            icons: Vec::new(),
            meta: Default::default(),
        }))
    }

    fn router(resources: Resources) -> ResourceRouter {
        ResourceRouter::build(&resources).unwrap()
    }

    /// The route reading `uri`, by its URI or template text.
    fn reader(router: &ResourceRouter, uri: &str) -> Option<String> {
        router
            .route(uri)
            .map(|(route, _)| route_text(&route.definition))
    }

    #[test]
    fn a_static_uri_beats_any_template() {
        let router = router(
            Resources::new()
                .with(template("config://{name}"))
                .with(fixed("config://app")),
        );
        assert_eq!(
            reader(&router, "config://app").as_deref(),
            Some("config://app")
        );
        assert_eq!(
            reader(&router, "config://db").as_deref(),
            Some("config://{name}")
        );
    }

    #[test]
    fn more_literal_characters_win() {
        let router = router(
            Resources::new()
                .with(template("file:///{+path}"))
                .with(template("file:///src/{name}.rs")),
        );
        assert_eq!(
            reader(&router, "file:///src/main.rs").as_deref(),
            Some("file:///src/{name}.rs")
        );
        assert_eq!(
            reader(&router, "file:///README.md").as_deref(),
            Some("file:///{+path}")
        );
        assert_eq!(
            reader(&router, "file:///src/a/b.rs").as_deref(),
            Some("file:///{+path}"),
            "a simple variable cannot take a slash"
        );
    }

    #[test]
    fn on_equal_literals_fewer_reserved_variables_win() {
        let router = router(
            Resources::new()
                .with(template("x://{+a}/{b}"))
                .with(template("x://{a}/{b}")),
        );
        assert_eq!(reader(&router, "x://1/2").as_deref(), Some("x://{a}/{b}"));
        assert_eq!(
            reader(&router, "x://1/2/3").as_deref(),
            Some("x://{+a}/{b}")
        );
    }

    #[test]
    fn on_a_full_tie_the_first_listed_wins() {
        let router = router(
            Resources::new()
                .with(template("x://{a}.txt"))
                .with(template("x://a.{b}")),
        );
        assert_eq!(reader(&router, "x://a.txt").as_deref(), Some("x://{a}.txt"));
    }

    #[test]
    fn nothing_matches_nothing() {
        let router = router(Resources::new().with(template("doc://{name}")));
        assert!(router.route("other://x").is_none());
    }

    #[test]
    fn resources_answering_the_same_uris_are_refused() {
        let same_uri = Resources::new().with(fixed("a://b")).with(fixed("a://b"));
        assert!(ResourceRouter::build(&same_uri).is_err());
        let same_shape = Resources::new()
            .with(template("doc://{name}"))
            .with(template("doc://{id}"));
        let conflict = ResourceRouter::build(&same_shape).err().unwrap();
        assert_eq!(conflict.first, "doc://{name}");
        assert_eq!(conflict.second, "doc://{id}");
    }

    #[test]
    fn references_find_templates_by_their_text() {
        let router = router(Resources::new().with(template("doc://{name}")));
        assert!(router.by_reference("doc://{name}").is_some());
        assert!(router.by_reference("doc://intro").is_none());
    }
}

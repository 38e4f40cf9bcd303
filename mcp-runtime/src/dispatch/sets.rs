//! The catalogs one dispatcher serves from, and the link through which a change to the
//! server's [`Surfaces`](crate::Surfaces) replaces them.

use std::sync::{Arc, Weak};

use super::catalog::{self, CatalogConfig, CatalogError, Live, ToolCatalog, ToolEntry};
use super::prompts::{self, PromptCatalog, PromptEntry};
use super::resources::ResourceCatalog;
use crate::dispatch::routing::{self, Route};
use crate::handler::Prompts;
use crate::handler::Resources;
use crate::handler::Tools;

/// Every tool, resource and prompt a server offers, each definition asked of its handler once.
#[derive(Clone, Default)]
pub(crate) struct Sets {
    pub(crate) tools: Vec<ToolEntry>,
    pub(crate) resources: Vec<Route>,
    pub(crate) prompts: Vec<PromptEntry>,
}

impl Sets {
    /// What a server was given through its builder.
    pub(crate) fn of(tools: &Tools, resources: &Resources, prompts: &Prompts) -> Self {
        Sets {
            tools: catalog::entries(tools),
            resources: routing::routes(resources),
            prompts: prompts::entries(prompts),
        }
    }
}

impl Sets {
    /// The tools, as a set to add to ([`Server::service`](crate::Server::service)).
    pub(crate) fn tools_set(&self) -> Tools {
        Tools::from_handlers(
            self.tools
                .iter()
                .map(|(_, handler)| handler.clone())
                .collect(),
        )
    }

    /// The resources, as a set to add to.
    pub(crate) fn resources_set(&self) -> Resources {
        Resources::from_handlers(
            self.resources
                .iter()
                .map(|route| route.handler.clone())
                .collect(),
        )
    }

    /// The prompts, as a set to add to.
    pub(crate) fn prompts_set(&self) -> Prompts {
        Prompts::from_handlers(
            self.prompts
                .iter()
                .map(|(_, handler)| handler.clone())
                .collect(),
        )
    }

    /// Take `new`'s set of `kind` in place of this one's.
    pub(crate) fn take(&mut self, kind: Kind, new: Sets) {
        match kind {
            Kind::Tools => self.tools = new.tools,
            Kind::Resources => self.resources = new.resources,
            Kind::Prompts => self.prompts = new.prompts,
        }
    }
}

/// One of the three kinds of offering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tools,
    Resources,
    Prompts,
}

/// One dispatcher's catalogs, each replaced whole on a change.
pub(crate) struct Catalogs {
    pub(crate) tools: Arc<Live<ToolCatalog>>,
    pub(crate) resources: Arc<Live<ResourceCatalog>>,
    pub(crate) prompts: Arc<Live<PromptCatalog>>,
    /// Whether the server starts with an MCP App (tool or page).
    pub(crate) has_app: bool,
}

impl Catalogs {
    /// The catalogs of `sets`, checked; `dynamic` when they may change while serving.
    pub(crate) fn build(
        sets: &Sets,
        config: &CatalogConfig,
        dynamic: bool,
    ) -> Result<Self, CatalogError> {
        let has_app = super::apps::check(super::apps::Offerings {
            tools: &sets.tools,
            resources: &sets.resources,
            prompts: &sets.prompts,
        })?;
        Ok(Catalogs {
            has_app,
            tools: Arc::new(Live::new(tools(sets, config)?, dynamic)),
            resources: Arc::new(Live::new(resources(sets, config)?, dynamic)),
            prompts: Arc::new(Live::new(prompts(sets, config)?, dynamic)),
        })
    }

    /// A link that reaches these catalogs for as long as their dispatcher lives.
    pub(crate) fn attachment(&self, config: CatalogConfig) -> Attachment {
        Attachment {
            config,
            tools: Arc::downgrade(&self.tools),
            resources: Arc::downgrade(&self.resources),
            prompts: Arc::downgrade(&self.prompts),
        }
    }
}

/// Where a change to the server's surfaces must go: one serving dispatcher's catalogs.
pub(crate) struct Attachment {
    config: CatalogConfig,
    tools: Weak<Live<ToolCatalog>>,
    resources: Weak<Live<ResourceCatalog>>,
    prompts: Weak<Live<PromptCatalog>>,
}

impl Attachment {
    /// Whether its dispatcher still serves.
    pub(crate) fn is_alive(&self) -> bool {
        self.tools.strong_count() > 0
    }

    /// Replace the catalog of `kind` with one built from `sets` (already checked).
    pub(crate) fn update(&self, sets: &Sets, kind: Kind) -> Result<(), CatalogError> {
        match kind {
            Kind::Tools => {
                if let Some(live) = self.tools.upgrade() {
                    live.replace(tools(sets, &self.config)?);
                }
            }
            Kind::Resources => {
                if let Some(live) = self.resources.upgrade() {
                    live.replace(resources(sets, &self.config)?);
                }
            }
            Kind::Prompts => {
                if let Some(live) = self.prompts.upgrade() {
                    live.replace(prompts(sets, &self.config)?);
                }
            }
        }
        Ok(())
    }
}

fn tools(sets: &Sets, config: &CatalogConfig) -> Result<ToolCatalog, CatalogError> {
    ToolCatalog::from_entries(&sets.tools, config)
}

fn resources(sets: &Sets, config: &CatalogConfig) -> Result<ResourceCatalog, CatalogError> {
    ResourceCatalog::from_routes(sets.resources.clone(), config)
        .map_err(|conflict| CatalogError::ResourceConflict(conflict.to_string()))
}

fn prompts(sets: &Sets, config: &CatalogConfig) -> Result<PromptCatalog, CatalogError> {
    PromptCatalog::from_entries(&sets.prompts, config)
        .map_err(|duplicate| CatalogError::DuplicatePrompt(duplicate.0))
}

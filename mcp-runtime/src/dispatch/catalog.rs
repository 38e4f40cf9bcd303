//! The tools a server offers: definitions computed once, each page of `tools/list` encoded at
//! most once per revision, lookup by name. A catalog never changes; when the server's tools do
//! (see [`Surfaces`](crate::Surfaces)), a new catalog replaces it in its [`Live`] slot.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard};
use std::time::Duration;

use serde_json::value::RawValue;

use crate::handler::Tools;
use crate::handler::{ToolDefinition, ToolHandler};
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::ErrorObject;
use crate::protocol::wire::{ListToolsResult, ModernResult};

/// A tool ready to be called. Cloning it is two reference counts: a call holds its own, so
/// it keeps running with the tool it started with even if the tool is removed meanwhile.
#[derive(Clone)]
pub(crate) struct CatalogTool {
    /// Its name, shared with the calls that log it.
    pub(crate) name: Arc<str>,
    pub(crate) handler: Arc<dyn ToolHandler>,
    /// Its hints, which layers read (a cache serves only read-only, idempotent tools).
    pub(crate) annotations: crate::protocol::ToolAnnotations,
    /// The layers around its calls alone, if it has any.
    pub(crate) layers: Option<crate::middleware::Pipeline>,
    /// Whether its calls may become tasks.
    #[cfg(feature = "tasks")]
    pub(crate) task_support: crate::handler::TaskSupport,
}

/// How one dispatcher's catalogs are paged and marked.
#[derive(Clone)]
pub(crate) struct CatalogConfig {
    /// Entries per list page (at least one).
    pub(crate) page_size: usize,
    /// `_meta` of every 2026-07-28 result.
    pub(crate) modern_meta: Arc<RawValue>,
    /// How long 2026-07-28 clients may reuse a list: zero when it may change while serving.
    pub(crate) ttl: Duration,
}

/// A tool's definition, computed once, with its handler: what a catalog is built from.
pub(crate) type ToolEntry = (ToolDefinition, Arc<dyn ToolHandler>);

/// One kind of offering (tools, resources or prompts) as the dispatcher sees it now: an
/// immutable catalog, replaced whole when the server's surfaces change.
///
/// A request takes the current catalog (a read lock held only to clone an `Arc`) and works on
/// it; no lock is held while a handler runs, and a change waits for no request. A catalog that
/// cannot change (the server handed out no [`Surfaces`](crate::Surfaces)) is read with no lock
/// and no reference counted: every call looks its tool up, and those are atomic operations.
pub(crate) struct Live<T> {
    slot: Slot<T>,
}

enum Slot<T> {
    /// Never replaced: only the catalogs of a server's `Surfaces` get an `Attachment`.
    Fixed(Arc<T>),
    /// Entries may be added or removed while serving: the server handed out its
    /// [`Surfaces`](crate::Surfaces). The capability is then declared with `listChanged`, even
    /// while there are no entries.
    Dynamic(RwLock<Arc<T>>),
}

/// The catalog now, for one request: borrowed when it is fixed, else a snapshot.
pub(crate) enum Current<'a, T> {
    Fixed(&'a T),
    Snapshot(Arc<T>),
}

impl<T> std::ops::Deref for Current<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self {
            Current::Fixed(catalog) => catalog,
            Current::Snapshot(catalog) => catalog,
        }
    }
}

impl<T> Live<T> {
    pub(crate) fn new(catalog: T, dynamic: bool) -> Self {
        let catalog = Arc::new(catalog);
        let slot = if dynamic {
            Slot::Dynamic(RwLock::new(catalog))
        } else {
            Slot::Fixed(catalog)
        };
        Live { slot }
    }

    /// The catalog now.
    pub(crate) fn get(&self) -> Arc<T> {
        match &self.slot {
            Slot::Fixed(catalog) => catalog.clone(),
            Slot::Dynamic(current) => read(current).clone(),
        }
    }

    /// The catalog now, without counting a reference to a fixed one.
    pub(crate) fn current(&self) -> Current<'_, T> {
        match &self.slot {
            Slot::Fixed(catalog) => Current::Fixed(catalog),
            Slot::Dynamic(current) => Current::Snapshot(read(current).clone()),
        }
    }

    /// From now on, `catalog`. Requests already holding the previous one finish with it.
    pub(crate) fn replace(&self, catalog: T) {
        let Slot::Dynamic(current) = &self.slot else {
            unreachable!("only the catalogs of a server's `Surfaces` are replaced");
        };
        let previous = std::mem::replace(
            &mut *current
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
            Arc::new(catalog),
        );
        // Dropped outside the lock: the last reference may free a large catalog.
        drop(previous);
    }

    /// Whether entries may come and go while serving.
    pub(crate) fn is_dynamic(&self) -> bool {
        matches!(self.slot, Slot::Dynamic(_))
    }
}

fn read<T>(current: &RwLock<Arc<T>>) -> RwLockReadGuard<'_, Arc<T>> {
    // A panic cannot leave a half-written `Arc` behind: the poison is meaningless.
    current
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The server's tools at one moment.
pub(crate) struct ToolCatalog {
    definitions: Vec<ToolDefinition>,
    tools: Vec<CatalogTool>,
    by_name: HashMap<Arc<str>, usize>,
    page_size: usize,
    /// Per revision (by its position in `ProtocolVersion::ALL`), every page's encoded result.
    pages: [OnceLock<Vec<Box<RawValue>>>; ProtocolVersion::ALL.len()],
    modern_meta: Arc<RawValue>,
    ttl: Duration,
    /// Whether some tool declares scopes, so that callers' lists may differ.
    scoped: bool,
}

/// Why a set of tools cannot be served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CatalogError {
    /// Two tools share a name, so calls to it would be ambiguous.
    DuplicateName(String),
    /// A tool's `inputSchema` lacks `"type": "object"` at its root, which every revision
    /// requires (clients reject the whole list over one such tool).
    InputSchemaNotObject(String),
    /// Two resources answer the same URIs (the message names both).
    ResourceConflict(String),
    /// Two prompts share a name.
    DuplicatePrompt(String),
    /// An offering's `_meta` or MCP App is wrong (the message names it).
    Offering(String),
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogError::DuplicateName(name) => write!(
                f,
                "two tools are named `{name}`: tool names must be unique (rename one with \
                 `#[mcp_tool(name = \"...\")]`)"
            ),
            CatalogError::InputSchemaNotObject(name) => write!(
                f,
                "tool `{name}` has an input schema without `\"type\": \"object\"` at its root; \
                 MCP requires tool arguments to be an object"
            ),
            CatalogError::ResourceConflict(message) | CatalogError::Offering(message) => {
                f.write_str(message)
            }
            CatalogError::DuplicatePrompt(name) => write!(
                f,
                "two prompts are named `{name}`: prompt names must be unique (rename one with \
                 `#[mcp_prompt(name = \"...\")]`)"
            ),
        }
    }
}

impl std::error::Error for CatalogError {}

impl ToolCatalog {
    /// Take the definitions of `tools` and check them; `page_size` tools per `tools/list`
    /// page (at least one); modern pages carry `modern_meta` and may be cached for `ttl`.
    #[cfg(test)]
    pub(crate) fn build(
        tools: &Tools,
        page_size: usize,
        modern_meta: Arc<RawValue>,
        ttl: Duration,
    ) -> Result<Self, CatalogError> {
        let config = CatalogConfig {
            page_size,
            modern_meta,
            ttl,
        };
        Self::from_entries(&entries(tools), &config)
    }

    /// [`build`](Self::build) from definitions already computed.
    pub(crate) fn from_entries(
        entries: &[ToolEntry],
        config: &CatalogConfig,
    ) -> Result<Self, CatalogError> {
        let mut definitions = Vec::with_capacity(entries.len());
        let mut catalog_tools = Vec::with_capacity(entries.len());
        let mut by_name = HashMap::with_capacity(entries.len());
        for (definition, handler) in entries {
            let definition = definition.clone();
            let name: Arc<str> = Arc::from(&*definition.name);
            if by_name.insert(name.clone(), catalog_tools.len()).is_some() {
                return Err(CatalogError::DuplicateName(name.to_string()));
            }
            if definition.input_schema.get("type").and_then(|t| t.as_str()) != Some("object") {
                return Err(CatalogError::InputSchemaNotObject(name.to_string()));
            }
            catalog_tools.push(CatalogTool {
                name,
                handler: handler.clone(),
                annotations: definition.annotations,
                layers: handler.layers().map(|layers| layers.pipeline()),
                #[cfg(feature = "tasks")]
                task_support: definition.task_support,
            });
            definitions.push(definition);
        }
        Ok(ToolCatalog {
            definitions,
            tools: catalog_tools,
            by_name,
            page_size: config.page_size.max(1),
            pages: Default::default(),
            modern_meta: config.modern_meta.clone(),
            ttl: config.ttl,
            scoped: entries
                .iter()
                .any(|(_, handler)| !handler.scopes().is_empty()),
        })
    }

    /// Whether some tool declares scopes.
    pub(crate) fn scoped(&self) -> bool {
        self.scoped
    }

    /// The definitions of the tools whose scopes `may_use` allows, in order.
    pub(crate) fn definitions_for(
        &self,
        may_use: impl Fn(&[std::borrow::Cow<'static, str>]) -> bool,
    ) -> Vec<ToolDefinition> {
        self.tools
            .iter()
            .zip(&self.definitions)
            .filter(|(tool, _)| may_use(tool.handler.scopes()))
            .map(|(_, definition)| definition.clone())
            .collect()
    }

    /// Every scope some tool declares.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn declared_scopes(&self) -> impl Iterator<Item = &str> {
        self.tools
            .iter()
            .flat_map(|tool| tool.handler.scopes().iter().map(|scope| &**scope))
    }

    /// The tool called `name`.
    pub(crate) fn find(&self, name: &str) -> Option<&CatalogTool> {
        // Every call looks its tool up: among a few tools, comparing names costs less than
        // hashing one (SipHash).
        if self.tools.len() <= 8 {
            return self.tools.iter().find(|tool| *tool.name == *name);
        }
        self.by_name.get(name).map(|&index| &self.tools[index])
    }

    /// Whether some tool's calls may become tasks.
    #[cfg(feature = "tasks")]
    pub(crate) fn allows_tasks(&self) -> bool {
        self.tools
            .iter()
            .any(|tool| tool.task_support.allows_tasks())
    }

    /// Whether there are no tools.
    pub(crate) fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools' names, in order.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|tool| &*tool.name)
    }

    /// Every definition, how many go on a page, and how long a list may be reused.
    pub(crate) fn listing(&self) -> (Vec<ToolDefinition>, usize, Duration) {
        (self.definitions.clone(), self.page_size, self.ttl)
    }

    /// The encoded `tools/list` result for `cursor` (`None`: the first page) in `revision`.
    /// An unknown cursor is invalid params.
    pub(crate) fn page(
        &self,
        revision: ProtocolVersion,
        cursor: Option<&str>,
    ) -> Result<&RawValue, ErrorObject> {
        let pages = self.pages[revision as usize].get_or_init(|| self.encode_pages(revision));
        let index = match cursor {
            None => 0,
            Some(cursor) => decode_cursor(cursor)
                .filter(|&index| index < pages.len())
                .ok_or_else(|| {
                    ErrorObject::invalid_params(format!(
                        "invalid cursor {cursor:?}: pass back a `nextCursor` from `tools/list`"
                    ))
                })?,
        };
        Ok(&pages[index])
    }

    fn encode_pages(&self, revision: ProtocolVersion) -> Vec<Box<RawValue>> {
        let modern = revision
            .is_modern()
            .then(|| ModernResult::cacheable(&self.modern_meta, self.ttl));
        let chunks: Vec<&[ToolDefinition]> = if self.definitions.is_empty() {
            vec![&[]]
        } else {
            self.definitions.chunks(self.page_size).collect()
        };
        (0..chunks.len())
            .map(|index| {
                let next_cursor = (index + 1 < chunks.len()).then(|| encode_cursor(index + 1));
                ListToolsResult::new(chunks[index], revision, next_cursor.as_deref(), modern)
                    .encode()
            })
            .collect()
    }
}

/// Every tool's definition, asked of its handler once.
pub(crate) fn entries(tools: &Tools) -> Vec<ToolEntry> {
    tools
        .handlers()
        .iter()
        .map(|handler| (handler.definition(), handler.clone()))
        .collect()
}

/// Cursors name the page they lead to; the first page has none. Clients treat them as opaque.
fn encode_cursor(page: usize) -> String {
    format!("page-{page}")
}

fn decode_cursor(cursor: &str) -> Option<usize> {
    cursor
        .strip_prefix("page-")?
        .parse()
        .ok()
        .filter(|&page| page > 0)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::dispatch::test_tools::named;
    use crate::protocol::ServerInfo;
    use crate::protocol::wire::result_meta;

    fn catalog(tools: Tools, page_size: usize) -> Result<ToolCatalog, CatalogError> {
        let meta = result_meta(&ServerInfo::new("s", "1")).into();
        ToolCatalog::build(&tools, page_size, meta, Duration::from_secs(1))
    }

    fn five() -> Tools {
        (1..=5).fold(Tools::new(), |tools, i| tools.with(named(&format!("t{i}"))))
    }

    fn page(catalog: &ToolCatalog, cursor: Option<&str>) -> Value {
        let raw = catalog.page(ProtocolVersion::V2025_06_18, cursor).unwrap();
        serde_json::from_str(raw.get()).unwrap()
    }

    fn names(page: &Value) -> Vec<&str> {
        page["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn pages_follow_each_other_through_cursors() {
        let catalog = catalog(five(), 2).unwrap();
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = page(&catalog, cursor.as_deref());
            seen.extend(names(&page).into_iter().map(str::to_owned));
            match page.get("nextCursor") {
                Some(next) => cursor = Some(next.as_str().unwrap().to_owned()),
                None => break,
            }
        }
        assert_eq!(seen, ["t1", "t2", "t3", "t4", "t5"]);
    }

    #[test]
    fn a_single_page_has_no_cursor() {
        let catalog = catalog(five(), 100).unwrap();
        let page = page(&catalog, None);
        assert_eq!(names(&page).len(), 5);
        assert!(page.get("nextCursor").is_none());
    }

    #[test]
    fn no_tools_is_one_empty_page() {
        let catalog = catalog(Tools::new(), 10).unwrap();
        assert_eq!(page(&catalog, None), json!({"tools": []}));
        assert!(catalog.is_empty());
    }

    #[test]
    fn bad_cursors_are_invalid_params() {
        let catalog = catalog(five(), 2).unwrap();
        for cursor in [
            "",
            "page-0",
            "page-3",
            "page-x",
            "1",
            "page-99999999999999999999",
        ] {
            let error = catalog
                .page(ProtocolVersion::V2025_06_18, Some(cursor))
                .unwrap_err();
            assert_eq!(error.code, ErrorObject::INVALID_PARAMS, "{cursor:?}");
        }
    }

    #[test]
    fn modern_pages_carry_cache_hints() {
        let catalog = catalog(five(), 2).unwrap();
        let raw = catalog.page(ProtocolVersion::V2026_07_28, None).unwrap();
        let page: Value = serde_json::from_str(raw.get()).unwrap();
        assert_eq!(page["resultType"], json!("complete"));
        assert_eq!(page["ttlMs"], json!(1000));
        assert_eq!(page["cacheScope"], json!("public"));
        assert!(page["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    }

    #[test]
    fn a_page_is_encoded_once_per_revision() {
        let catalog = catalog(five(), 2).unwrap();
        let first = catalog.page(ProtocolVersion::V2025_03_26, None).unwrap() as *const RawValue;
        let again = catalog.page(ProtocolVersion::V2025_03_26, None).unwrap() as *const RawValue;
        assert_eq!(first, again);
    }

    #[test]
    fn duplicate_names_are_refused() {
        let tools = Tools::new()
            .with(named("a"))
            .with(named("b"))
            .with(named("a"));
        let error = catalog(tools, 10).err().unwrap();
        assert_eq!(error, CatalogError::DuplicateName("a".into()));
        assert!(error.to_string().contains("`a`"));
    }

    #[test]
    fn a_non_object_input_schema_is_refused() {
        let mut tool = named("loose");
        tool.input_schema = serde_json::Map::new();
        let error = catalog(Tools::new().with(tool), 10).err().unwrap();
        assert_eq!(error, CatalogError::InputSchemaNotObject("loose".into()));
    }

    #[test]
    fn tools_are_found_by_name() {
        let catalog = catalog(five(), 2).unwrap();
        assert_eq!(&*catalog.find("t4").unwrap().name, "t4");
        assert!(catalog.find("t6").is_none());
        assert_eq!(catalog.names().count(), 5);
        // Beyond a few tools, by their hashed names.
        let many = (1..=20).fold(Tools::new(), |tools, i| tools.with(named(&format!("t{i}"))));
        let large = self::catalog(many, 100).unwrap();
        assert_eq!(&*large.find("t17").unwrap().name, "t17");
        assert!(large.find("t21").is_none());
    }
}

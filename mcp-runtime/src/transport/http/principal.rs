//! Who a request was authenticated as, over HTTP: the authorization hook names it (or the
//! enclosing app does); legacy sessions are bound to it, so that one user's client cannot
//! continue another user's session.

use std::collections::HashMap;
use std::sync::Arc;

pub use crate::auth::Principal;

/// What an authorization hook answers for a request it lets through: nothing more (`()`),
/// the [`Principal`] it was authenticated as, or `Option<Principal>` when only some are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Authorized {
    pub(crate) principal: Option<Principal>,
}

impl Authorized {
    /// Let the request through without naming anyone.
    pub fn anonymous() -> Self {
        Authorized::default()
    }
}

impl From<()> for Authorized {
    fn from((): ()) -> Self {
        Authorized::anonymous()
    }
}

impl From<Principal> for Authorized {
    fn from(principal: Principal) -> Self {
        Authorized {
            principal: Some(principal),
        }
    }
}

impl From<Option<Principal>> for Authorized {
    fn from(principal: Option<Principal>) -> Self {
        Authorized { principal }
    }
}

/// The principal a request is served for (set by the hook, or by the enclosing app).
pub(crate) fn of(parts: &http::request::Parts) -> Option<Principal> {
    parts.extensions.get::<Principal>().cloned()
}

/// [`of`], borrowed: whom a request that names a session speaks for.
pub(crate) fn caller(parts: &http::request::Parts) -> Option<&str> {
    parts.extensions.get::<Principal>().map(Principal::as_str)
}

/// Who holds a session, for the per-client limit: its principal, else the address it came
/// from. `None` from [`client`] when neither is known (a mounted service serving anonymous
/// requests); then only the global limit counts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Client {
    Principal(Arc<str>),
    Address(std::net::IpAddr),
}

/// The client a request is from.
///
/// `address` is the IP address the request came from, known when the server serves on its
/// own (kept beside the connection rather than in every request's extensions, which would
/// cost each request an allocation).
pub(crate) fn client(
    parts: &http::request::Parts,
    address: Option<std::net::IpAddr>,
) -> Option<Client> {
    match parts.extensions.get::<Principal>() {
        Some(principal) => Some(Client::Principal(principal.shared())),
        None => address.map(Client::Address),
    }
}

/// Open sessions by id, each with the client holding it, and how many each client holds
/// against a limit per client: legacy and HTTP+SSE sessions keep their tables alike.
#[derive(Debug)]
pub(crate) struct SessionTable<E> {
    /// Every request looks its session up here. The ids are the server's own (random), so a
    /// fast hash over them cannot be led into collisions by a client.
    by_id: crate::fast_hash::FastMap<String, (Option<Client>, Arc<E>)>,
    held: HashMap<Client, usize>,
    per_client: usize,
}

impl<E> SessionTable<E> {
    pub(crate) fn new(per_client: usize) -> Self {
        SessionTable {
            by_id: crate::fast_hash::FastMap::default(),
            held: HashMap::new(),
            per_client,
        }
    }

    pub(crate) fn get(&self, id: &str) -> Option<&Arc<E>> {
        self.by_id.get(id).map(|(_, entry)| entry)
    }

    pub(crate) fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether `client` holds as many sessions as it may.
    pub(crate) fn is_full(&self, client: Option<&Client>) -> bool {
        client.is_some_and(|client| self.held.get(client).is_some_and(|&n| n >= self.per_client))
    }

    pub(crate) fn insert(&mut self, id: String, client: Option<Client>, entry: Arc<E>) {
        if let Some(client) = &client {
            *self.held.entry(client.clone()).or_default() += 1;
        }
        self.by_id.insert(id, (client, entry));
    }

    pub(crate) fn remove(&mut self, id: &str) -> Option<Arc<E>> {
        let (client, entry) = self.by_id.remove(id)?;
        if let Some(client) = client
            && let Some(held) = self.held.get_mut(&client)
        {
            *held -= 1;
            if *held == 0 {
                self.held.remove(&client);
            }
        }
        Some(entry)
    }

    /// Every session, by id.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &Arc<E>)> {
        self.by_id.iter().map(|(id, (_, entry))| (id, entry))
    }

    /// The sessions `client` holds, by id.
    pub(crate) fn of<'t>(
        &'t self,
        client: &'t Client,
    ) -> impl Iterator<Item = (&'t String, &'t Arc<E>)> {
        self.by_id
            .iter()
            .filter(move |(_, (holder, _))| holder.as_ref() == Some(client))
            .map(|(id, (_, entry))| (id, entry))
    }

    /// Every session, taken out.
    pub(crate) fn drain(&mut self) -> Vec<Arc<E>> {
        self.held.clear();
        self.by_id.drain().map(|(_, (_, entry))| entry).collect()
    }
}

/// Whether a request for `caller` may reach a session of `owner`: only one for the principal
/// that opened it. Every lookup of a legacy or HTTP+SSE session asks this, whatever route,
/// method or headers the request came with.
pub(crate) fn may_use(owner: Option<&str>, caller: Option<&str>) -> bool {
    let allowed = owner == caller;
    if !allowed {
        tracing::warn!("refused a request naming another principal's session");
    }
    allowed
}

#[cfg(test)]
mod tests {
    use http::{Method, Request, StatusCode};
    use serde_json::{Value, json};

    use super::*;
    use crate::http::HttpConfig;
    use crate::server::{Server, ServerInfo};
    use crate::transport::http::ResponseBody;
    use crate::{RequestContext, Tools, handler::ToolBuilder};

    fn whoami_call(principal: Option<&str>) -> Request<ResponseBody> {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "whoami", "arguments": {},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}});
        let mut request = Request::builder()
            .method(Method::POST)
            .uri("/mcp")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "whoami")
            .body(ResponseBody::whole(serde_json::to_vec(&call).unwrap()))
            .unwrap();
        if let Some(principal) = principal {
            request.extensions_mut().insert(Principal::new(principal));
        }
        request
    }

    async fn answer(service: &crate::http::HttpService, request: Request<ResponseBody>) -> Value {
        let response = service.handle(request).await;
        assert_eq!(response.status(), StatusCode::OK);
        let bytes = super::super::body::read_limited(
            response.into_body(),
            1 << 20,
            None,
            &super::super::body::BodyMemory::new(1 << 20, 1 << 20),
            None,
        )
        .await
        .unwrap_or_else(|_| unreachable!());
        serde_json::from_slice(&bytes).unwrap()
    }

    #[tokio::test]
    async fn an_enclosing_apps_principal_reaches_handlers_unless_a_hook_names_another() {
        let whoami = ToolBuilder::new("whoami").handler(|_, context: RequestContext| async move {
            context
                .principal()
                .map_or("nobody", |who| who.as_str())
                .to_owned()
        });
        let server = Server::new(ServerInfo::new("s", "1")).tools(Tools::new().with(whoami));
        let text = |answer: Value| answer["result"]["content"][0]["text"].clone();

        let mounted = server.clone().http_service(HttpConfig::new()).unwrap();
        let carol = answer(&mounted, whoami_call(Some("carol"))).await;
        assert_eq!(text(carol), "carol");
        assert_eq!(text(answer(&mounted, whoami_call(None)).await), "nobody");

        let hooked = server
            .http_service(HttpConfig::new().authorize(|_| Ok(Principal::new("dave"))))
            .unwrap();
        let dave = answer(&hooked, whoami_call(Some("carol"))).await;
        assert_eq!(text(dave), "dave");
    }
}

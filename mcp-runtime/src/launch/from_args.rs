//! `serve_from_args`: one entry point for example servers and users' binaries, choosing stdio,
//! HTTP or the command-line tool from argv. It exists with or without the `http` feature, so a
//! stdio-only build keeps the same `main` and says plainly why `--http` is unavailable.

use std::ffi::OsString;
use std::io;

use crate::server::Server;
use crate::transport::stderr_log;

/// The environment variable holding the secret that seals `requestState`.
const REQUEST_STATE_KEY_VAR: &str = "MCP_REQUEST_STATE_KEY";
/// The one holding the secret it replaced, which still opens what it sealed.
const PREVIOUS_REQUEST_STATE_KEY_VAR: &str = "MCP_REQUEST_STATE_PREVIOUS_KEY";
/// The one naming this instance in its HTTP session ids (`HttpConfig::instance_id`).
#[cfg(feature = "http")]
const INSTANCE_ID_VAR: &str = "MCP_INSTANCE_ID";
/// The Redis whose shared stores the server uses, unless `--redis URL` says.
const REDIS_URL_VAR: &str = "MCP_REDIS_URL";
/// How long a task's lease lasts in the shared store, in milliseconds.
#[cfg(feature = "redis")]
const TASK_LEASE_VAR: &str = "MCP_TASK_LEASE_MS";
/// The PEM file of the CA a `rediss://` Redis's certificate must chain to (the system's roots
/// when unset).
#[cfg(feature = "redis")]
const REDIS_CA_VAR: &str = "MCP_REDIS_CA_CERT";
/// The PEM files of the certificate (and its key) to present to a Redis that asks for one.
#[cfg(feature = "redis")]
const REDIS_CLIENT_CERT_VAR: &str = "MCP_REDIS_CLIENT_CERT";
#[cfg(feature = "redis")]
const REDIS_CLIENT_KEY_VAR: &str = "MCP_REDIS_CLIENT_KEY";

impl Server {
    /// Serve as the command line says: `--http ADDR` (`127.0.0.1:8080`, or a bare port for
    /// `127.0.0.1:PORT`) serves over HTTP; anything else goes to
    /// [`serve_stdio_with_args`](Self::serve_stdio_with_args) (no arguments: stdio; else the
    /// command-line tool).
    ///
    /// The environment variable `MCP_REQUEST_STATE_KEY`, when set and not empty, is the secret
    /// that seals 2026-07-28 `requestState`s (see
    /// [`request_state_key`](Self::request_state_key)): give every replica behind one load
    /// balancer the same value. `MCP_REQUEST_STATE_PREVIOUS_KEY`, likewise, is the secret it
    /// replaced, which still opens the states it sealed while a new one is rolled out (see
    /// [`previous_request_state_key`](Self::previous_request_state_key)). A key the program
    /// set itself wins over its variable. Over HTTP, `MCP_INSTANCE_ID` names the instance in
    /// its session ids (see `HttpConfig::instance_id`), so a proxy can route legacy sessions
    /// by their id.
    ///
    /// `--redis URL` (anywhere in the arguments; or the variable `MCP_REDIS_URL`) shares the
    /// state an instance keeps about its clients through that Redis (see
    /// [`Server::redis`](Self::redis); needs the `redis` feature), so that replicas behind a
    /// load balancer answer for each other's tasks and announcements. `MCP_TASK_LEASE_MS`
    /// then sets the [task lease](Self::task_lease). For a `rediss://` URL (the `redis-tls`
    /// feature), `MCP_REDIS_CA_CERT` names the PEM file of the CA to trust instead of the
    /// system's roots, and `MCP_REDIS_CLIENT_CERT` with `MCP_REDIS_CLIENT_KEY` the certificate
    /// and key to present to a Redis that asks its clients for one.
    ///
    /// ```no_run
    /// use mcp_runtime::{Server, server_info};
    ///
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     // `my-server` (stdio), `my-server --http 8080`, `my-server call add a=1 b=2`
    ///     Server::new(server_info!()).serve_from_args().await
    /// }
    /// ```
    ///
    /// # Errors
    ///
    /// As `serve_http` (with the `http` feature) or [`serve_stdio`](Self::serve_stdio); without
    /// the `http` feature, `--http` is an [`io::ErrorKind::Unsupported`] error.
    pub async fn serve_from_args(self) -> io::Result<()> {
        let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
        let redis = match take_redis_url(&mut args) {
            Ok(Some(url)) => Some(url),
            Ok(None) => std::env::var(REDIS_URL_VAR)
                .ok()
                .filter(|url| !url.is_empty()),
            Err(message) => {
                stderr_log::install_if_absent();
                tracing::error!("{message}");
                return Err(io::Error::new(io::ErrorKind::InvalidInput, message));
            }
        };
        let this = match redis {
            Some(url) => self.shared_through_redis(&url)?,
            None => self,
        };
        let secret = std::env::var_os(REQUEST_STATE_KEY_VAR);
        let previous = std::env::var_os(PREVIOUS_REQUEST_STATE_KEY_VAR);
        let mut this = this
            .request_state_key_from_env(secret)
            .previous_request_state_key_from_env(previous);
        this.from_args = true;
        match http_address(&args) {
            Some(Ok(addr)) => this.serve_http_address(addr).await,
            Some(Err(message)) => {
                stderr_log::install_if_absent();
                tracing::error!("{message}");
                Err(io::Error::new(io::ErrorKind::InvalidInput, message))
            }
            None => this.serve_stdio_with_args(args).await,
        }
    }

    /// The server with the key `secret` (the value of `MCP_REQUEST_STATE_KEY`), unless the
    /// program chose one or `secret` is unset or empty. The key itself is never logged.
    fn request_state_key_from_env(self, secret: Option<OsString>) -> Self {
        match secret_from_env(REQUEST_STATE_KEY_VAR, secret, self.request_state_key_chosen) {
            Some(secret) => self.request_state_key(secret),
            None => self,
        }
    }

    /// The server also opening states sealed under `secret` (the value of
    /// `MCP_REQUEST_STATE_PREVIOUS_KEY`), on the same terms as the current key.
    fn previous_request_state_key_from_env(self, secret: Option<OsString>) -> Self {
        let chosen = self.previous_request_state_key_chosen;
        match secret_from_env(PREVIOUS_REQUEST_STATE_KEY_VAR, secret, chosen) {
            Some(secret) => self.previous_request_state_key(secret),
            None => self,
        }
    }

    /// Serves HTTP at `addr`, its sessions named for `MCP_INSTANCE_ID` when set.
    /// The server sharing its state through the Redis at `url`.
    #[cfg(feature = "redis")]
    fn shared_through_redis(self, url: &str) -> io::Result<Self> {
        stderr_log::install_if_absent();
        let refuse = |error: String| {
            tracing::error!(%error, "--redis");
            io::Error::new(io::ErrorKind::InvalidInput, error)
        };
        let options = redis_options(|name| std::env::var_os(name)).map_err(refuse)?;
        let store = crate::redis::RedisStore::open_with(url, options)
            .map_err(|error| refuse(error.to_string()))?;
        // The URL may hold a password: not logged.
        tracing::info!(instance = store.instance(), "sharing state through Redis");
        let mut this = self.redis(&store);
        if let Some(lease) = std::env::var(TASK_LEASE_VAR)
            .ok()
            .and_then(|ms| ms.parse::<u64>().ok())
        {
            this = this.task_lease(std::time::Duration::from_millis(lease));
        }
        Ok(this)
    }

    #[cfg(not(feature = "redis"))]
    fn shared_through_redis(self, _url: &str) -> io::Result<Self> {
        let message = "cannot share state through Redis: this binary was built without the \
                       `redis` feature of mcp-runtime";
        stderr_log::install_if_absent();
        tracing::error!("{message}");
        Err(io::Error::new(io::ErrorKind::Unsupported, message))
    }

    #[cfg(feature = "http")]
    async fn serve_http_address(self, addr: String) -> io::Result<()> {
        let mut config = crate::http::HttpConfig::new();
        if let Some(instance) = std::env::var_os(INSTANCE_ID_VAR).filter(|id| !id.is_empty()) {
            let instance = instance.into_string().map_err(|_| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{INSTANCE_ID_VAR} is not valid UTF-8"),
                )
            })?;
            config = config.instance_id(instance);
        }
        self.serve_http_with(addr, config).await
    }

    #[cfg(not(feature = "http"))]
    async fn serve_http_address(self, addr: String) -> io::Result<()> {
        let message = format!(
            "cannot serve HTTP at {addr}: this binary was built without the `http` feature of mcp-runtime"
        );
        stderr_log::install_if_absent();
        tracing::error!("{message}");
        Err(io::Error::new(io::ErrorKind::Unsupported, message))
    }
}

/// The options of the store `--redis` opens, from the variables `var` reads: the files of a
/// CA to trust and of a client certificate, with the `redis-tls` feature. Without it, any of
/// them set is an error rather than a setting silently ignored.
#[cfg(feature = "redis")]
fn redis_options(
    var: impl Fn(&str) -> Option<OsString>,
) -> Result<crate::redis::RedisOptions, String> {
    let set = |name: &str| var(name).filter(|value| !value.is_empty());
    #[allow(unused_mut)]
    let mut options = crate::redis::RedisOptions::default();
    #[cfg(feature = "redis-tls")]
    {
        if let Some(ca) = set(REDIS_CA_VAR) {
            let read = std::fs::read(&ca).map_err(|error| {
                format!(
                    "{REDIS_CA_VAR}: {}: {error}",
                    std::path::Path::new(&ca).display()
                )
            });
            options.ca_certificate = Some(read?);
        }
        let (chain, key) = (set(REDIS_CLIENT_CERT_VAR), set(REDIS_CLIENT_KEY_VAR));
        options.client_certificate = match (chain, key) {
            // The error names the file that could not be read.
            (Some(chain), Some(key)) => Some(
                crate::redis::ClientCertificate::from_files(chain, key).map_err(|error| {
                    format!("{REDIS_CLIENT_CERT_VAR}, {REDIS_CLIENT_KEY_VAR}: {error}")
                })?,
            ),
            (None, None) => None,
            (Some(_), None) | (None, Some(_)) => {
                return Err(format!(
                    "{REDIS_CLIENT_CERT_VAR} and {REDIS_CLIENT_KEY_VAR} go together: set both \
                     (the certificate and its key) or neither"
                ));
            }
        };
    }
    #[cfg(not(feature = "redis-tls"))]
    if let Some(name) = [REDIS_CA_VAR, REDIS_CLIENT_CERT_VAR, REDIS_CLIENT_KEY_VAR]
        .into_iter()
        .find(|name| set(name).is_some())
    {
        return Err(format!(
            "{name} is set, but this binary was built without the `redis-tls` feature of \
             mcp-runtime"
        ));
    }
    Ok(options)
}

/// Takes `--redis URL` or `--redis=URL` out of `args`: the URL, if there was one.
fn take_redis_url(args: &mut Vec<OsString>) -> Result<Option<String>, String> {
    let Some(at) = args.iter().position(|arg| {
        arg.to_str()
            .is_some_and(|arg| arg == "--redis" || arg.starts_with("--redis="))
    }) else {
        return Ok(None);
    };
    let flag = args.remove(at);
    let url = match flag.to_str().and_then(|flag| flag.strip_prefix("--redis=")) {
        Some(url) => Some(url.to_owned()),
        None => (at < args.len())
            .then(|| args.remove(at))
            .and_then(|url| url.into_string().ok()),
    };
    match url.filter(|url| !url.is_empty() && !url.starts_with("--")) {
        Some(url) => Ok(Some(url)),
        None => Err("`--redis` needs a URL, e.g. `--redis redis://127.0.0.1:6379/`".to_owned()),
    }
}

/// `--http ADDR` or `--http=ADDR` as the only arguments: the address (a bare port means
/// loopback); `None` when the arguments are not about HTTP.
fn http_address(args: &[OsString]) -> Option<Result<String, String>> {
    let first = args.first()?.to_str()?;
    let value = match first.strip_prefix("--http") {
        Some("") => args.get(1).and_then(|arg| arg.to_str()).map(str::to_owned),
        Some(rest) => Some(rest.strip_prefix('=')?.to_owned()),
        None => return None,
    };
    let consumed = if first.contains('=') { 1 } else { 2 };
    Some(match value {
        None => Err("`--http` needs an address, e.g. `--http 127.0.0.1:8080`".to_owned()),
        Some(_) if args.len() > consumed => {
            Err("`--http ADDR` takes no other arguments".to_owned())
        }
        Some(port) if port.parse::<u16>().is_ok() => Ok(format!("127.0.0.1:{port}")),
        Some(addr) => Ok(addr),
    })
}

/// The secret in `var` (its value `secret`) to use, unless it is unset or empty or the program
/// chose that key itself (then the program's wins). What is decided is logged, never the key.
fn secret_from_env(var: &str, secret: Option<OsString>, chosen: bool) -> Option<Vec<u8>> {
    let secret = secret.filter(|secret| !secret.is_empty())?;
    stderr_log::install_if_absent();
    if chosen {
        tracing::info!("{var} is set but the program chose that requestState key; keeping it");
        return None;
    }
    let secret = secret.into_encoded_bytes();
    if secret.len() < 32 {
        tracing::warn!(
            bytes = secret.len(),
            "{var} is short: use at least 32 random bytes"
        );
    }
    tracing::debug!("requestState key from {var}");
    Some(secret)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_http_flag_names_the_address() {
        assert_eq!(
            http_address(&args(&["--http", "127.0.0.1:9000"])),
            Some(Ok("127.0.0.1:9000".to_owned()))
        );
        assert_eq!(
            http_address(&args(&["--http=8080"])),
            Some(Ok("127.0.0.1:8080".to_owned()))
        );
        assert!(matches!(http_address(&args(&["--http"])), Some(Err(_))));
        assert!(matches!(
            http_address(&args(&["--http", "1", "extra"])),
            Some(Err(_))
        ));
        assert_eq!(http_address(&args(&["call", "add"])), None);
        assert_eq!(http_address(&args(&[])), None);
    }

    /// What `redis_options` makes of `vars` (name, value).
    #[cfg(feature = "redis")]
    fn options_from(vars: &[(&str, &str)]) -> Result<crate::redis::RedisOptions, String> {
        redis_options(|name| {
            vars.iter()
                .find(|(var, _)| *var == name)
                .map(|(_, value)| OsString::from(value))
        })
    }

    #[cfg(feature = "redis-tls")]
    #[test]
    fn the_redis_tls_files_come_from_their_variables() {
        let fixture = |name: &str| {
            format!(
                "{}/../tests/fixtures/tls/{name}",
                env!("CARGO_MANIFEST_DIR")
            )
        };
        let (ca, chain, key) = (
            fixture("ca.pem"),
            fixture("client.pem"),
            fixture("client.key"),
        );
        let options = options_from(&[
            (REDIS_CA_VAR, &ca),
            (REDIS_CLIENT_CERT_VAR, &chain),
            (REDIS_CLIENT_KEY_VAR, &key),
        ])
        .unwrap();
        assert_eq!(options.ca_certificate, Some(std::fs::read(&ca).unwrap()));
        let identity = options.client_certificate.unwrap();
        assert_eq!(identity.chain, std::fs::read(&chain).unwrap());
        assert_eq!(identity.key, std::fs::read(&key).unwrap());

        let none = options_from(&[(REDIS_CA_VAR, ""), (REDIS_CLIENT_CERT_VAR, "")]).unwrap();
        assert!(none.ca_certificate.is_none() && none.client_certificate.is_none());

        let alone = options_from(&[(REDIS_CLIENT_CERT_VAR, &chain)]).unwrap_err();
        assert!(alone.contains("set both"), "{alone}");
        let alone = options_from(&[(REDIS_CLIENT_KEY_VAR, &key)]).unwrap_err();
        assert!(alone.contains("set both"), "{alone}");

        let missing = fixture("no-such.pem");
        let error = options_from(&[(REDIS_CA_VAR, &missing)]).unwrap_err();
        assert!(
            error.starts_with(REDIS_CA_VAR) && error.contains("no-such.pem"),
            "{error}"
        );
        let error = options_from(&[
            (REDIS_CLIENT_CERT_VAR, &chain),
            (REDIS_CLIENT_KEY_VAR, &missing),
        ])
        .unwrap_err();
        assert!(
            error.contains(REDIS_CLIENT_KEY_VAR) && error.contains("no-such.pem"),
            "{error}"
        );
    }

    #[cfg(all(feature = "redis", not(feature = "redis-tls")))]
    #[test]
    fn the_redis_tls_variables_need_the_feature() {
        let error = options_from(&[(REDIS_CLIENT_CERT_VAR, "client.pem")]).unwrap_err();
        assert!(error.contains("redis-tls"), "{error}");
        assert!(options_from(&[(REDIS_CA_VAR, "")]).is_ok());
    }

    #[test]
    fn the_redis_flag_is_taken_out_wherever_it_is() {
        let mut list = args(&["--http", "9000", "--redis", "redis://127.0.0.1:1/"]);
        assert_eq!(
            take_redis_url(&mut list),
            Ok(Some("redis://127.0.0.1:1/".to_owned()))
        );
        assert_eq!(list, args(&["--http", "9000"]));
        let mut list = args(&["--redis=redis://h/", "call", "add"]);
        assert_eq!(take_redis_url(&mut list), Ok(Some("redis://h/".to_owned())));
        assert_eq!(list, args(&["call", "add"]));
        assert!(take_redis_url(&mut args(&["--redis"])).is_err());
        assert!(take_redis_url(&mut args(&["--redis", "--http", "1"])).is_err());
        assert_eq!(take_redis_url(&mut args(&["call"])), Ok(None));
    }

    /// Whether `reader` opens a state `sealer` sealed.
    fn opens(reader: &Server, sealer: &Server) -> bool {
        let sealed = sealer
            .config
            .request_state_key
            .seal(&serde_json::json!({"probe": 1}));
        reader.config.request_state_key.open(&sealed).is_ok()
    }

    #[test]
    fn the_environment_sets_the_request_state_key_unless_the_program_did() {
        let info = || crate::server::ServerInfo::new("s", "1");
        let shared = Server::new(info()).request_state_key("shared secret");
        let from_env =
            Server::new(info()).request_state_key_from_env(Some(OsString::from("shared secret")));
        assert!(opens(&from_env, &shared) && opens(&shared, &from_env));
        assert!(from_env.request_state_key_chosen);

        let chosen = Server::new(info())
            .request_state_key("the program's")
            .request_state_key_from_env(Some(OsString::from("shared secret")));
        assert!(opens(
            &chosen,
            &Server::new(info()).request_state_key("the program's")
        ));
        assert!(!opens(&chosen, &shared));

        for unset in [None, Some(OsString::new())] {
            let random = Server::new(info()).request_state_key_from_env(unset);
            assert!(!random.request_state_key_chosen);
            assert!(!opens(&random, &shared) && !opens(&shared, &random));
        }
    }

    #[test]
    fn the_environment_sets_the_previous_key_unless_the_program_did() {
        let info = || crate::server::ServerInfo::new("s", "1");
        let retired = Server::new(info()).request_state_key("retired secret");
        let rolled = Server::new(info())
            .request_state_key_from_env(Some(OsString::from("new secret")))
            .previous_request_state_key_from_env(Some(OsString::from("retired secret")));
        assert!(rolled.previous_request_state_key_chosen);
        assert!(opens(&rolled, &retired), "the previous key opens");
        assert!(!opens(&retired, &rolled), "and seals nothing");
        assert!(opens(
            &Server::new(info()).request_state_key("new secret"),
            &rolled
        ));

        let chosen = Server::new(info())
            .previous_request_state_key("the program's")
            .previous_request_state_key_from_env(Some(OsString::from("retired secret")));
        assert!(!opens(&chosen, &retired));
        assert!(opens(
            &chosen,
            &Server::new(info()).request_state_key("the program's")
        ));

        for unset in [None, Some(OsString::new())] {
            let none = Server::new(info()).previous_request_state_key_from_env(unset);
            assert!(!none.previous_request_state_key_chosen);
            assert!(!opens(&none, &retired));
        }
    }
}

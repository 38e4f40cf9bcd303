//! `serve_from_args`: one entry point for example servers and users' binaries, choosing stdio,
//! HTTP or the command-line tool from argv. It exists with or without the `http` feature, so a
//! stdio-only build keeps the same `main` and says plainly why `--http` is unavailable.

use std::ffi::OsString;
use std::io;

use crate::server::Server;
use crate::transport::stderr_log;

impl Server {
    /// Serve as the command line says: `--http ADDR` (`127.0.0.1:8080`, or a bare port for
    /// `127.0.0.1:PORT`) serves over HTTP; anything else goes to
    /// [`serve_stdio_with_args`](Self::serve_stdio_with_args) (no arguments: stdio; else the
    /// command-line tool).
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
        let args: Vec<OsString> = std::env::args_os().skip(1).collect();
        match http_address(&args) {
            Some(Ok(addr)) => self.serve_http_address(addr).await,
            Some(Err(message)) => {
                stderr_log::install_if_absent();
                tracing::error!("{message}");
                Err(io::Error::new(io::ErrorKind::InvalidInput, message))
            }
            None => self.serve_stdio_with_args(args).await,
        }
    }

    #[cfg(feature = "http")]
    async fn serve_http_address(self, addr: String) -> io::Result<()> {
        self.serve_http(addr).await
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
}

//! A file-search MCP server: find files by name and read text files, never outside one root
//! directory.
//!
//! ```sh
//! file_search [--root DIR] [--audit-log FILE] [--rate-limit N/s] [--timeout SECS]
//!             [--max-output BYTES] [manifest | call TOOL key=value ... | --help ...]
//! cargo run --example file_search -- --root src call search_files keyword=lib
//! ```
//!
//! The root is `--root DIR` (default: the current directory). The example's flags come first:
//! it takes them off and hands every other argument to the runtime
//! (`Server::serve_stdio_with_args`), whose command-line tool owns the rest, so
//! `file_search --root DIR` serves MCP on stdin/stdout as a client expects, and
//! `file_search --root DIR call read_file path=notes.md` runs one call.
//!
//! Its policy is a stack of the runtime's layers (`mcp_runtime::middleware`): an audit log of
//! every request (`--audit-log FILE`, one JSON line each, refusals included), a rate limit per
//! caller and tool (`--rate-limit N/s`), a deadline per call (`--timeout SECS`), and a cap on
//! what a result may hold (100 KiB unless `--max-output BYTES`), past which it is truncated
//! with a note.
//!
//! Every path a client gives is taken relative to the root (an absolute path must lie inside
//! it) and `.` and `..` are folded first, so `../secret` and `/etc/passwd` are refused without
//! asking the file system. What is left is opened beneath a handle on the root directory,
//! opened once at start-up, never by a path of the whole file system again: no check is
//! followed by a second lookup that a process renaming entries inside the root could
//! redirect. Symbolic links are followed only while they stay beneath the root (`cap-std`
//! resolves them one component at a time from that handle): a relative link to something
//! inside works; a link that points outside, is absolute, or climbs out of the root even to
//! come back in, is answered as a missing file is, so that no answer tells what exists
//! outside. `search_files` never follows links into directories. `read_file` reads regular
//! files only: a FIFO or a device could block a thread for ever. Paths in answers are
//! relative to the root.

use std::ffi::OsString;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use cap_fs_ext::DirExt;
use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};
use mcp_runtime::middleware::{AuditLogLayer, MaxOutputLayer, RateLimitLayer, TimeoutLayer};
use mcp_runtime::{Server, ServerInfo, mcp_tool, tools};

/// How many paths `search_files` lists at most.
const MAX_MATCHES: usize = 50;
/// The largest file `read_file` returns: 100 KiB.
const MAX_READ: u64 = 100 * 1024;

/// The root directory, set once in `main`.
#[derive(Debug)]
struct Root {
    /// Its canonical path, only to take absolute paths given by clients apart: nothing is
    /// opened by it after start-up.
    path: PathBuf,
    /// Everything is opened beneath this handle.
    dir: Dir,
}

static ROOT: OnceLock<Root> = OnceLock::new();

fn root() -> &'static Root {
    ROOT.get().expect("the root is set before serving")
}

/// `path` relative to the root, with `.` and `..` folded (`.` for the root itself), or why
/// not: it lies outside. Decided from the text alone, so refusing says nothing about what
/// exists.
fn inside(path: &str) -> Result<PathBuf, String> {
    let root = &root().path;
    let outside = || format!("`{path}` is outside the root directory");
    let given = Path::new(path);
    let relative = if given.is_absolute() {
        // Fold before comparing, so `/root/../etc` is not taken for a path inside `/root`.
        let folded = fold(given).ok_or_else(outside)?;
        folded
            .strip_prefix(root)
            .map_err(|_| outside())?
            .to_path_buf()
    } else {
        fold(given).ok_or_else(outside)?
    };
    if relative.as_os_str().is_empty() {
        return Ok(PathBuf::from("."));
    }
    Ok(relative)
}

/// `path` without `.` and `..`, or `None` when a `..` climbs above its start.
fn fold(path: &Path) -> Option<PathBuf> {
    let mut folded = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !folded.pop() {
                    return None;
                }
            }
            other => folded.push(other),
        }
    }
    Some(folded)
}

/// Why `path` could not be opened. A link out of the root is refused by `cap-std` with an
/// error of its own (`PermissionDenied` carrying no OS error code); it is answered as a
/// missing file is, so that an answer never tells whether something exists outside.
fn cannot_open(path: &str, error: &io::Error) -> String {
    let escaped = error.kind() == io::ErrorKind::PermissionDenied && error.raw_os_error().is_none();
    if error.kind() == io::ErrorKind::NotFound || escaped {
        format!("`{path}` does not exist inside the root")
    } else {
        format!("cannot open `{path}`: {error}")
    }
}

/// `path` (relative to the root) as answers show it: `/`-separated, `.` for the root.
fn shown(path: &Path) -> String {
    let parts: Vec<_> = path
        .components()
        .filter(|part| *part != Component::CurDir)
        .map(|part| part.as_os_str().to_string_lossy())
        .collect();
    if parts.is_empty() {
        return ".".to_owned();
    }
    parts.join("/")
}

/// Every file in `dir` (shown as `at`) and beneath whose name contains `needle` (lowercase),
/// in name order. Symbolic links to files inside the root count as files; links are never
/// followed into directories (that could loop).
fn walk(dir: &Dir, at: &Path, needle: &str, found: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<_> = dir.entries()?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let kind = entry.file_type()?;
        let name = entry.file_name();
        let path = at.join(&name);
        if kind.is_dir() {
            // Not following a link: one swapped in since the listing could loop. An
            // unreadable subdirectory is skipped rather than failing the whole search.
            if let Ok(subdir) = dir.open_dir_nofollow(&name) {
                let _ = walk(&subdir, &path, needle, found);
            }
            continue;
        }
        // Looked up from the root, not from `dir`, so that a link to `../x` counts; beneath
        // the root's handle, so that it never counts a target outside.
        let is_file = kind.is_file()
            || (kind.is_symlink() && root().dir.metadata(&path).is_ok_and(|t| t.is_file()));
        if is_file && name.to_string_lossy().to_lowercase().contains(needle) {
            found.push(path);
        }
    }
    Ok(())
}

/// Find files whose name contains a keyword, ignoring case, under a directory of the root.
/// Lists at most 50 paths, relative to the root, which `read_file` takes as they are.
///
/// # Arguments
/// * `keyword` - the part of the file name to look for, like `readme` or `.toml`
/// * `directory` - where to look, relative to the root (default: the whole root)
#[mcp_tool(annotations(read_only, idempotent))]
fn search_files(
    keyword: String,
    #[arg(default = String::from("."))] directory: String,
) -> Result<String, String> {
    let needle = keyword.trim().to_lowercase();
    if needle.is_empty() {
        return Err("`keyword` must not be empty".to_owned());
    }
    let relative = inside(&directory).map_err(|error| format!("cannot search: {error}"))?;
    let dir = match root().dir.open_dir(&relative) {
        Ok(dir) => dir,
        Err(error) if error.kind() == io::ErrorKind::NotADirectory => {
            return Err(format!("cannot search: `{directory}` is not a directory"));
        }
        Err(error) => {
            return Err(format!(
                "cannot search: {}",
                cannot_open(&directory, &error)
            ));
        }
    };
    let mut found = Vec::new();
    walk(&dir, &relative, &needle, &mut found)
        .map_err(|error| format!("cannot search `{directory}`: {error}"))?;
    let under = shown(&relative);
    let mut text = match found.len() {
        0 => return Ok(format!("no file name contains \"{keyword}\" under {under}")),
        1 => format!("1 file matches \"{keyword}\" under {under}:"),
        n if n <= MAX_MATCHES => format!("{n} files match \"{keyword}\" under {under}:"),
        n => format!(
            "{n} files match \"{keyword}\" under {under}; the first {MAX_MATCHES} (narrow the \
             keyword or the directory for the rest):"
        ),
    };
    for path in found.iter().take(MAX_MATCHES) {
        text.push('\n');
        text.push_str(&shown(path));
    }
    Ok(text)
}

/// Read a text file under the root: at most 100 KiB, UTF-8 only.
///
/// # Arguments
/// * `path` - the file, relative to the root (as `search_files` lists it)
#[mcp_tool(annotations(read_only, idempotent))]
fn read_file(path: String) -> Result<String, String> {
    let relative = inside(&path)?;
    let mut options = OpenOptions::new();
    options.read(true);
    // Opening a FIFO for reading waits for a writer unless non-blocking; a terminal must not
    // become the process's controlling one. Neither flag changes reading a regular file, the
    // only kind read below.
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = root()
        .dir
        .open_with(&relative, &options)
        .map_err(|error| cannot_open(&path, &error))?;
    // The handle's own metadata (fstat), not the path's: the path may lead elsewhere by now.
    let metadata = file
        .metadata()
        .map_err(|error| format!("cannot read `{path}`: {error}"))?;
    if metadata.is_dir() {
        return Err(format!(
            "`{path}` is a directory, not a file (search_files lists the files in it)"
        ));
    }
    if !metadata.is_file() {
        return Err(format!(
            "`{path}` is not a regular file (a FIFO, a socket or a device); read_file reads \
             regular files only"
        ));
    }
    let too_large = |size: u64| {
        format!(
            "`{path}` is {size} bytes, larger than the {MAX_READ} bytes (100 KiB) read_file returns"
        )
    };
    if metadata.len() > MAX_READ {
        return Err(too_large(metadata.len()));
    }
    // Read one byte past the limit, in case the file grew since.
    let mut bytes = Vec::new();
    file.take(MAX_READ + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read `{path}`: {error}"))?;
    if bytes.len() as u64 > MAX_READ {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|error| {
        format!(
            "`{path}` is not UTF-8 text (invalid byte at offset {}); read_file returns text files only",
            error.utf8_error().valid_up_to()
        )
    })
}

/// What the example's own flags ask for.
struct Options {
    root: OsString,
    audit_log: Option<PathBuf>,
    /// Calls per second, per caller and tool.
    rate_limit: Option<u32>,
    timeout: Option<Duration>,
    max_output: usize,
}

/// The largest tool result sent, by default: 100 KiB.
const DEFAULT_MAX_OUTPUT: usize = 100 * 1024;

/// Take the example's own flags off the front of `args` (each `--flag VALUE` or
/// `--flag=VALUE`, in any order), leaving the runtime's command line.
fn take_options(args: &mut Vec<OsString>) -> Result<Options, String> {
    let mut options = Options {
        root: OsString::from("."),
        audit_log: None,
        rate_limit: None,
        timeout: None,
        max_output: DEFAULT_MAX_OUTPUT,
    };
    loop {
        let Some(first) = args.first().and_then(|arg| arg.to_str()) else {
            return Ok(options);
        };
        let (flag, joined) = match first.split_once('=') {
            Some((flag, value)) => (flag.to_owned(), Some(OsString::from(value))),
            None => (first.to_owned(), None),
        };
        let usage = match flag.as_str() {
            "--root" => "--root DIR",
            "--audit-log" => "--audit-log FILE",
            "--rate-limit" => "--rate-limit N/s",
            "--timeout" => "--timeout SECS",
            "--max-output" => "--max-output BYTES",
            _ => return Ok(options),
        };
        let value = match joined {
            Some(value) => {
                args.remove(0);
                value
            }
            None if args.len() >= 2 => args.drain(..2).nth(1).expect("two were there"),
            None => return Err(format!("`{flag}` needs a value: {usage}")),
        };
        let text = || {
            value
                .to_str()
                .ok_or_else(|| format!("`{flag}` needs a value: {usage}"))
        };
        let bad = |what: &str| format!("`{flag}` {what}: {usage}");
        match flag.as_str() {
            "--root" => options.root = value.clone(),
            "--audit-log" => options.audit_log = Some(PathBuf::from(&value)),
            "--rate-limit" => {
                let per_second = text()?.strip_suffix("/s").unwrap_or(text()?);
                options.rate_limit = Some(
                    per_second
                        .parse()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| bad("takes a positive number of calls per second"))?,
                );
            }
            "--timeout" => {
                let seconds: f64 = text()?
                    .parse()
                    .ok()
                    .filter(|seconds: &f64| seconds.is_finite() && *seconds > 0.0)
                    .ok_or_else(|| bad("takes a positive number of seconds"))?;
                options.timeout = Some(Duration::from_secs_f64(seconds));
            }
            _max_output => {
                options.max_output = text()?
                    .parse()
                    .ok()
                    .filter(|&bytes| bytes > 0)
                    .ok_or_else(|| bad("takes a positive number of bytes"))?;
            }
        }
    }
}

/// The server's layers, as the design asks: every request audited (refusals included),
/// calls limited per caller, each given a deadline, and no answer larger than the cap. The
/// layer added last sees a request first.
fn with_policy(server: Server, options: &Options) -> Result<Server, String> {
    let mut server = server.layer(MaxOutputLayer::new(options.max_output));
    if let Some(limit) = options.timeout {
        server = server.layer(TimeoutLayer::new(limit));
    }
    if let Some(per_second) = options.rate_limit {
        server = server.layer(RateLimitLayer::per_second(per_second));
    }
    if let Some(path) = &options.audit_log {
        let audit = AuditLogLayer::to_file(path)
            .map_err(|error| format!("cannot open the audit log `{}`: {error}", path.display()))?;
        server = server.layer(audit);
    }
    Ok(server)
}

#[tokio::main]
async fn main() -> io::Result<()> {
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let fail = |error: String| -> ! {
        eprintln!("file_search: {error}");
        std::process::exit(2);
    };
    let options = take_options(&mut args).unwrap_or_else(|error| fail(error));
    let root = open_root(&options.root).unwrap_or_else(|error| fail(error));
    ROOT.set(root).expect("the root is set once");

    let server = Server::new(
        ServerInfo::new("file_search", env!("CARGO_PKG_VERSION")).with_title("File search"),
    )
    .trace_from_env()
    .instructions(
        "Find files by name with `search_files`, then read them with `read_file`. Paths \
                 are relative to the server's root directory; nothing outside it can be reached.",
    )
    .flag_usage(
        "--root DIR",
        "the directory the tools search and read; nothing outside it is reached (default: the \
         current directory)",
    )
    .flag_usage(
        "--audit-log FILE",
        "append one JSON line per request to FILE: who, what, a digest of the arguments, the \
         outcome and how long it took",
    )
    .flag_usage(
        "--rate-limit N/s",
        "at most N calls per second of each tool, per client",
    )
    .flag_usage(
        "--timeout SECS",
        "stop a call that runs longer, answering with a tool error",
    )
    .flag_usage(
        "--max-output BYTES",
        "truncate a result longer than BYTES (default: 102400, 100 KiB)",
    )
    .tools(tools![search_files, read_file]);
    let server = with_policy(server, &options).unwrap_or_else(|error| fail(error));
    // A read stuck in the kernel (a hung network mount) does not keep the process alive after
    // stdin closes: plain-fn tools run on threads the runtime never waits for.
    server.serve_stdio_with_args(args).await
}

/// The root directory `dir`, opened once.
fn open_root(dir: &OsString) -> Result<Root, String> {
    let dir = PathBuf::from(dir);
    let cannot_use =
        |error: io::Error| format!("cannot use `{}` as the root: {error}", dir.display());
    let path = dir.canonicalize().map_err(cannot_use)?;
    if !path.is_dir() {
        return Err(format!("the root `{}` is not a directory", dir.display()));
    }
    let dir = Dir::open_ambient_dir(&path, ambient_authority()).map_err(cannot_use)?;
    Ok(Root { path, dir })
}

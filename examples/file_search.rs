//! A file-search MCP server: find files by name and read text files, never outside one root
//! directory.
//!
//! ```sh
//! file_search [--root DIR] [manifest | call TOOL key=value ... | --help ...]
//! cargo run --example file_search -- --root src call search_files keyword=lib
//! ```
//!
//! The root is `--root DIR` (default: the current directory). The flag must come first: the
//! example takes it off and hands every other argument to the runtime
//! (`Server::serve_stdio_with_args`), whose command-line tool owns the rest, so
//! `file_search --root DIR` serves MCP on stdin/stdout as a client expects, and
//! `file_search --root DIR call read_file path=notes.md` runs one call.
//!
//! Every path a client gives is resolved against the root (an absolute path must lie inside
//! it), `.` and `..` are folded, symbolic links are followed, and whatever the result is must
//! still be inside the root: `../secret`, `/etc/passwd` and a link pointing outside are all
//! refused. Paths in answers are relative to the root.

use std::ffi::OsString;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use mcp_runtime::{Server, ServerInfo, mcp_tool, tools};

/// How many paths `search_files` lists at most.
const MAX_MATCHES: usize = 50;
/// The largest file `read_file` returns: 100 KiB.
const MAX_READ: u64 = 100 * 1024;

/// The root, canonical (symbolic links resolved), set once in `main`.
static ROOT: OnceLock<PathBuf> = OnceLock::new();

fn root() -> &'static Path {
    ROOT.get().expect("the root is set before serving")
}

/// Where `path` leads, if that is inside the root: the canonical path, or why not.
fn resolve(path: &str) -> Result<PathBuf, String> {
    let root = root();
    let given = Path::new(path);
    let joined = if given.is_absolute() {
        given.to_path_buf()
    } else {
        root.join(given)
    };
    // Fold `.` and `..` first, so `../x` is refused without asking the file system whether
    // it exists.
    let mut folded = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                folded.pop();
            }
            other => folded.push(other),
        }
    }
    if !folded.starts_with(root) {
        return Err(format!("`{path}` is outside the root directory"));
    }
    let canonical = folded.canonicalize().map_err(|error| match error.kind() {
        io::ErrorKind::NotFound => format!("`{path}` does not exist"),
        _ => format!("cannot open `{path}`: {error}"),
    })?;
    // A symbolic link inside the root may point anywhere.
    if !canonical.starts_with(root) {
        return Err(format!(
            "`{path}` leads outside the root directory (through a symbolic link)"
        ));
    }
    Ok(canonical)
}

/// `path` (inside the root) as answers show it: relative to the root, `/`-separated.
fn shown(path: &Path) -> String {
    let relative = path.strip_prefix(root()).unwrap_or(path);
    if relative.as_os_str().is_empty() {
        return ".".to_owned();
    }
    let parts: Vec<_> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

/// Every file under `dir` whose name contains `needle` (lowercase), in name order. Symbolic
/// links to files inside the root count as files; links are never followed into directories
/// (that could leave the root, or loop).
fn walk(dir: &Path, needle: &str, found: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let kind = entry.file_type()?;
        let path = entry.path();
        if kind.is_dir() {
            // An unreadable subdirectory is skipped rather than failing the whole search.
            let _ = walk(&path, needle, found);
            continue;
        }
        let is_file = kind.is_file()
            || (kind.is_symlink()
                && path
                    .canonicalize()
                    .is_ok_and(|target| target.starts_with(root()) && target.is_file()));
        let name = entry.file_name().to_string_lossy().to_lowercase();
        if is_file && name.contains(needle) {
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
    let dir = resolve(&directory).map_err(|error| format!("cannot search: {error}"))?;
    if !dir.is_dir() {
        return Err(format!("cannot search: `{directory}` is not a directory"));
    }
    let mut found = Vec::new();
    walk(&dir, &needle, &mut found)
        .map_err(|error| format!("cannot search `{directory}`: {error}"))?;
    let under = shown(&dir);
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
    let file = resolve(&path)?;
    let metadata =
        std::fs::metadata(&file).map_err(|error| format!("cannot read `{path}`: {error}"))?;
    if metadata.is_dir() {
        return Err(format!(
            "`{path}` is a directory, not a file (search_files lists the files in it)"
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
    std::fs::File::open(&file)
        .and_then(|opened| opened.take(MAX_READ + 1).read_to_end(&mut bytes))
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

/// Take a leading `--root DIR` (or `--root=DIR`) off `args`.
fn take_root(args: &mut Vec<OsString>) -> Result<Option<OsString>, String> {
    let Some(first) = args.first().and_then(|arg| arg.to_str()) else {
        return Ok(None);
    };
    if let Some(dir) = first.strip_prefix("--root=") {
        let dir = OsString::from(dir);
        args.remove(0);
        return Ok(Some(dir));
    }
    if first != "--root" {
        return Ok(None);
    }
    if args.len() < 2 {
        return Err("`--root` needs a directory: --root DIR".to_owned());
    }
    Ok(args.drain(..2).nth(1))
}

#[tokio::main]
async fn main() -> io::Result<()> {
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let root = take_root(&mut args)
        .and_then(|dir| {
            let dir = PathBuf::from(dir.unwrap_or_else(|| OsString::from(".")));
            match dir.canonicalize() {
                Ok(root) if root.is_dir() => Ok(root),
                Ok(_) => Err(format!("the root `{}` is not a directory", dir.display())),
                Err(error) => Err(format!(
                    "cannot use `{}` as the root: {error}",
                    dir.display()
                )),
            }
        })
        .unwrap_or_else(|error| {
            eprintln!("file_search: {error}");
            std::process::exit(2);
        });
    ROOT.set(root).expect("the root is set once");

    Server::new(ServerInfo::new("file_search", env!("CARGO_PKG_VERSION")).with_title("File search"))
        .instructions(
            "Find files by name with `search_files`, then read them with `read_file`. Paths are \
             relative to the server's root directory; nothing outside it can be reached.",
        )
        .tools(tools![search_files, read_file])
        .serve_stdio_with_args(args)
        .await
}

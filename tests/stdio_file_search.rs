//! The `file_search` example over a real pipe, rooted at a tree made for each test: searching
//! and reading inside the root, the limits of `read_file`, and every way out of the root a
//! client might try (`..`, absolute paths, symbolic links to a file and to a directory).
#![cfg(unix)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::{
    Client, ServerProcess, assert_text, assert_tool_error_mentions, example_path, per_revision,
    text_of,
};

/// What the file outside the root holds; no answer may ever contain it.
const SECRET: &str = "top secret";

/// A fresh tree: `outside/` (with the secret) beside `root/`, the server's root.
///
/// ```text
/// outside/secret.txt
/// root/a.txt  root/docs/Guide.md  root/docs/notes/guide-2.md
/// root/exact.log (100 KiB)  root/big.log (100 KiB + 1)  root/binary.bin (not UTF-8)
/// root/many/file-00.dat .. file-59.dat
/// root/link-in.md -> docs/Guide.md        (inside: allowed)
/// root/link-out.txt -> ../outside/secret.txt, root/dir-out -> ../outside   (escapes)
/// ```
struct Tree {
    base: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "file_search-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&base);
        let write = |path: &str, bytes: &[u8]| {
            let path = base.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        };
        write("outside/secret.txt", SECRET.as_bytes());
        write("root/a.txt", b"alpha\n");
        write("root/docs/Guide.md", b"# Guide\n");
        write("root/docs/notes/guide-2.md", b"# Guide, part 2\n");
        write("root/exact.log", &vec![b'x'; 100 * 1024]);
        write("root/big.log", &vec![b'x'; 100 * 1024 + 1]);
        write("root/binary.bin", &[0x66, 0x6f, 0xff, 0xfe]);
        for n in 0..60 {
            write(&format!("root/many/file-{n:02}.dat"), b"");
        }
        use std::os::unix::fs::symlink;
        symlink("docs/Guide.md", base.join("root/link-in.md")).unwrap();
        symlink("../outside/secret.txt", base.join("root/link-out.txt")).unwrap();
        symlink("../outside", base.join("root/dir-out")).unwrap();
        Tree { base }
    }

    fn root(&self) -> PathBuf {
        self.base.join("root")
    }

    fn open(&self, revision: ProtocolVersion) -> Client {
        let root = self.root();
        let server =
            ServerProcess::example_with_args("file_search", &["--root".as_ref(), root.as_os_str()]);
        Client::open(server, revision)
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

fn search(client: &mut Client, keyword: &str, directory: Option<&str>) -> Value {
    let mut arguments = json!({"keyword": keyword});
    if let Some(directory) = directory {
        arguments["directory"] = json!(directory);
    }
    client.call_tool("search_files", arguments)
}

fn read(client: &mut Client, path: &str) -> Value {
    client.call_tool("read_file", json!({"path": path}))
}

fn lists_search_files_and_read_file(revision: ProtocolVersion) {
    let tree = Tree::new();
    let mut client = tree.open(revision);
    let tools = client.list_all_tools();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["search_files", "read_file"]);
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["keyword"]));
    assert_eq!(tools[1]["inputSchema"]["required"], json!(["path"]));
}

fn search_ignores_case_and_answers_paths_relative_to_the_root(revision: ProtocolVersion) {
    let tree = Tree::new();
    let mut client = tree.open(revision);
    assert_text(
        &search(&mut client, "GUIDE", None),
        "2 files match \"GUIDE\" under .:\ndocs/Guide.md\ndocs/notes/guide-2.md",
    );
    assert_text(
        &search(&mut client, "guide", Some("docs/notes")),
        "1 file matches \"guide\" under docs/notes:\ndocs/notes/guide-2.md",
    );
    // A link inside the root is a file like any other.
    assert_text(
        &search(&mut client, "link", None),
        "1 file matches \"link\" under .:\nlink-in.md",
    );
    assert_text(
        &search(&mut client, "nothing-like-this", None),
        "no file name contains \"nothing-like-this\" under .",
    );
}

fn search_lists_at_most_50_paths(revision: ProtocolVersion) {
    let tree = Tree::new();
    let mut client = tree.open(revision);
    let result = search(&mut client, "file-", Some("many"));
    let text = text_of(&result);
    let mut lines = text.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("60 files match \"file-\" under many; the first 50"),
        "{text}"
    );
    let paths: Vec<&str> = lines.collect();
    assert_eq!(paths.len(), 50, "{text}");
    assert_eq!(paths[0], "many/file-00.dat");
    assert_eq!(paths[49], "many/file-49.dat");
}

fn a_missing_directory_is_an_error_not_an_empty_list(revision: ProtocolVersion) {
    let tree = Tree::new();
    let mut client = tree.open(revision);
    let result = search(&mut client, "a", Some("no-such-dir"));
    assert_tool_error_mentions(&result, &["no-such-dir", "does not exist"]);
    let result = search(&mut client, "a", Some("a.txt"));
    assert_tool_error_mentions(&result, &["a.txt", "not a directory"]);
    let result = search(&mut client, "  ", None);
    assert_tool_error_mentions(&result, &["keyword", "empty"]);
}

fn reads_utf8_files_of_up_to_100_kib(revision: ProtocolVersion) {
    let tree = Tree::new();
    let mut client = tree.open(revision);
    assert_text(&read(&mut client, "a.txt"), "alpha\n");
    assert_text(&read(&mut client, "./docs/../a.txt"), "alpha\n");
    assert_text(&read(&mut client, "link-in.md"), "# Guide\n");
    let inside = tree.root().join("docs/Guide.md");
    assert_text(&read(&mut client, inside.to_str().unwrap()), "# Guide\n");
    let exact = read(&mut client, "exact.log");
    assert_eq!(
        text_of(&exact).len(),
        100 * 1024,
        "exactly 100 KiB is allowed"
    );
}

fn each_refusal_of_read_file_says_why(revision: ProtocolVersion) {
    let tree = Tree::new();
    let mut client = tree.open(revision);
    let errors = [
        ("big.log", &["big.log", "102401 bytes", "100 KiB"][..]),
        ("binary.bin", &["binary.bin", "not UTF-8"]),
        ("docs", &["docs", "is a directory"]),
        ("missing.txt", &["missing.txt", "does not exist"]),
    ];
    let mut texts = Vec::new();
    for (path, words) in errors {
        let result = read(&mut client, path);
        assert_tool_error_mentions(&result, words);
        texts.push(text_of(&result));
    }
    texts.sort();
    texts.dedup();
    assert_eq!(
        texts.len(),
        errors.len(),
        "each violation has its own error"
    );
}

fn no_path_leaves_the_root(revision: ProtocolVersion) {
    let tree = Tree::new();
    let mut client = tree.open(revision);
    let secret = tree.base.join("outside/secret.txt");
    let secret = secret.to_str().unwrap();
    let reads = [
        ("../outside/secret.txt", "outside the root"),
        ("docs/../../outside/secret.txt", "outside the root"),
        ("..", "outside the root"),
        (secret, "outside the root"),
        ("/etc/passwd", "outside the root"),
        ("link-out.txt", "symbolic link"),
        ("dir-out/secret.txt", "symbolic link"),
    ];
    for (path, why) in reads {
        let result = read(&mut client, path);
        assert_tool_error_mentions(&result, &[path, why]);
        assert!(!text_of(&result).contains(SECRET), "{path}: {result}");
    }
    let outside_dir = tree.base.join("outside");
    let searches = [
        ("..", "outside the root"),
        (outside_dir.to_str().unwrap(), "outside the root"),
        ("dir-out", "symbolic link"),
    ];
    for (directory, why) in searches {
        let result = search(&mut client, "secret", Some(directory));
        assert_tool_error_mentions(&result, &[directory, why]);
    }
    // Searching the root neither follows the link to a directory outside nor lists the link
    // to a file outside.
    assert_text(
        &search(&mut client, "secret", None),
        "no file name contains \"secret\" under .",
    );
    assert_text(
        &search(&mut client, "link-out", None),
        "no file name contains \"link-out\" under .",
    );
}

per_revision!(all:
    lists_search_files_and_read_file,
    search_ignores_case_and_answers_paths_relative_to_the_root,
    search_lists_at_most_50_paths,
    a_missing_directory_is_an_error_not_an_empty_list,
    reads_utf8_files_of_up_to_100_kib,
    each_refusal_of_read_file_says_why,
    no_path_leaves_the_root,
);

/// `--root DIR` comes first and is the example's; the runtime's command line gets the rest.
#[test]
fn the_root_flag_comes_before_the_runtime_command_line() {
    let tree = Tree::new();
    let run = |args: &[&std::ffi::OsStr]| {
        Command::new(example_path("file_search"))
            .args(args)
            .output()
            .unwrap()
    };
    let root = tree.root();
    let root = root.as_os_str();

    let call = run(&[
        "--root".as_ref(),
        root,
        "call".as_ref(),
        "read_file".as_ref(),
        "path=a.txt".as_ref(),
    ]);
    assert_eq!(call.status.code(), Some(0), "{call:?}");
    assert_eq!(String::from_utf8_lossy(&call.stdout), "alpha\n");

    let escape = run(&[
        "--root".as_ref(),
        root,
        "call".as_ref(),
        "read_file".as_ref(),
        "path=../outside/secret.txt".as_ref(),
    ]);
    assert_eq!(escape.status.code(), Some(1), "{escape:?}");
    assert!(String::from_utf8_lossy(&escape.stderr).contains("outside the root"));

    let joined = format!("--root={}", root.to_str().unwrap());
    let manifest = run(&[joined.as_ref(), "manifest".as_ref()]);
    assert_eq!(manifest.status.code(), Some(0), "{manifest:?}");
    let manifest: Value = serde_json::from_slice(&manifest.stdout).unwrap();
    assert_eq!(manifest["tools"].as_array().unwrap().len(), 2);

    // After the root, an unknown word is the runtime's usage error; so is `--root` out of place.
    for args in [
        &["--root".as_ref(), root, "frob".as_ref()][..],
        &["manifest".as_ref(), "--root".as_ref(), root],
    ] {
        let wrong = run(args);
        assert_eq!(wrong.status.code(), Some(2), "{args:?}: {wrong:?}");
        assert!(String::from_utf8_lossy(&wrong.stderr).contains("Usage: file_search"));
    }

    // A root that is missing or not a directory is the example's own usage error.
    for args in [
        &["--root".as_ref()][..],
        &["--root".as_ref(), tree.base.join("nowhere").as_os_str()],
        &["--root".as_ref(), tree.root().join("a.txt").as_os_str()],
    ] {
        let wrong = run(args);
        assert_eq!(wrong.status.code(), Some(2), "{args:?}: {wrong:?}");
        assert!(
            String::from_utf8_lossy(&wrong.stderr).starts_with("file_search: "),
            "{wrong:?}"
        );
    }
}

//! The `file_search` example over a real pipe, rooted at a tree made for each test: searching
//! and reading inside the root, the limits of `read_file`, and every way out of the root a
//! client might try (`..`, absolute paths, symbolic links to a file and to a directory, a
//! directory swapped for a link while it is read), files that are not regular (a FIFO), and
//! refusals that must not tell what exists outside.
#![cfg(unix)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::{
    Client, PATIENCE, ServerProcess, assert_text, assert_tool_error_mentions, example_path,
    is_error, per_revision, text_of,
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
/// root/link-nowhere.txt -> ../outside/nothing.txt, root/dir-nowhere -> ../nowhere
///                                       (escapes to nothing: answered as the escapes are)
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
        symlink("../outside/nothing.txt", base.join("root/link-nowhere.txt")).unwrap();
        symlink("../nowhere", base.join("root/dir-nowhere")).unwrap();
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
    // Lexically outside: refused before the file system is asked, so saying so tells nothing.
    // Through a link: answered as a missing file is, whatever lies outside.
    let reads = [
        ("../outside/secret.txt", "outside the root"),
        ("docs/../../outside/secret.txt", "outside the root"),
        ("..", "outside the root"),
        (secret, "outside the root"),
        ("/etc/passwd", "outside the root"),
        ("link-out.txt", "does not exist inside the root"),
        ("dir-out/secret.txt", "does not exist inside the root"),
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
        ("dir-out", "does not exist inside the root"),
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

/// A link leading outside answers exactly what a missing file answers, whether its target
/// exists or not: otherwise a client could probe which files exist outside the root.
fn links_outside_answer_as_missing_files_do(revision: ProtocolVersion) {
    let tree = Tree::new();
    let mut client = tree.open(revision);
    // Each group names the same kind of thing; the answers differ only in the name given.
    let groups = [
        (
            "read",
            ["link-out.txt", "link-nowhere.txt", "missing.txt"],
            read as fn(&mut Client, &str) -> Value,
        ),
        (
            "read",
            [
                "dir-out/secret.txt",
                "dir-out/nothing.txt",
                "dir-nowhere/secret.txt",
            ],
            read,
        ),
        (
            "search",
            ["dir-out", "dir-nowhere", "no-such-dir"],
            |client: &mut Client, directory: &str| search(client, "secret", Some(directory)),
        ),
    ];
    for (what, paths, call) in groups {
        let answers: Vec<Value> = paths
            .iter()
            .map(|path| {
                let result = call(&mut client, path);
                assert!(is_error(&result), "{what} {path}: {result}");
                // The name given is echoed; take it out to compare the rest.
                let text = text_of(&result).replace(path, "<path>");
                json!({"isError": result["isError"], "text": text})
            })
            .collect();
        assert_eq!(answers[0], answers[1], "{what} {paths:?}");
        assert_eq!(answers[0], answers[2], "{what} {paths:?}");
        assert!(
            answers[0]["text"]
                .as_str()
                .unwrap()
                .contains("does not exist inside the root"),
            "{what} {paths:?}: {answers:?}"
        );
    }
}

/// Reading a FIFO would wait for a writer forever, holding a thread and keeping the process
/// alive after stdin closes: it is refused at once, like anything that is not a regular file.
fn a_fifo_is_refused_at_once_and_the_server_still_exits_on_eof(revision: ProtocolVersion) {
    let tree = Tree::new();
    let made = Command::new("mkfifo")
        .arg(tree.root().join("pipe"))
        .status()
        .expect("`mkfifo` runs");
    assert!(made.success(), "mkfifo: {made}");
    let mut client = tree.open(revision);
    // Several at once: one blocked thread per call was how the process got stuck.
    let fifo_reads: Vec<Value> = (0..3)
        .map(|_| client.send_request("tools/call", read_arguments("pipe")))
        .collect();
    let later = client.send_request("tools/call", read_arguments("a.txt"));
    for id in &fifo_reads {
        let result = client.response(id)["result"].clone();
        assert_tool_error_mentions(&result, &["pipe", "not a regular file"]);
    }
    assert_text(&client.response(&later)["result"], "alpha\n");
    // Nor does a search list it: it lists regular files (and links to them) only.
    assert_text(
        &search(&mut client, "pipe", None),
        "no file name contains \"pipe\" under .",
    );
    let closed = Instant::now();
    let status = client.finish();
    assert!(status.success(), "{status}");
    // Nothing is left running, so nothing is waited for: well under the 5 s shutdown timeout.
    assert!(
        closed.elapsed() < Duration::from_secs(4),
        "exited {:?} after stdin closed",
        closed.elapsed()
    );
}

fn read_arguments(path: &str) -> Value {
    json!({"name": "read_file", "arguments": {"path": path}})
}

per_revision!(all:
    lists_search_files_and_read_file,
    search_ignores_case_and_answers_paths_relative_to_the_root,
    search_lists_at_most_50_paths,
    a_missing_directory_is_an_error_not_an_empty_list,
    reads_utf8_files_of_up_to_100_kib,
    each_refusal_of_read_file_says_why,
    no_path_leaves_the_root,
    links_outside_answer_as_missing_files_do,
    a_fifo_is_refused_at_once_and_the_server_still_exits_on_eof,
);

/// At most this many calls in a race test, for at most `RACE_TIME` (whichever ends first).
#[cfg(target_os = "linux")]
const RACE_CALLS: usize = 20_000;
#[cfg(target_os = "linux")]
const RACE_TIME: Duration = Duration::from_secs(20);

/// A thread swapping `root/race` (a directory holding `file.txt`) with `root/race-link` (a link
/// to `outside/race`, holding the secret as `file.txt` and `outside-only.txt`) as fast as it
/// can, until stopped. Atomically (`RENAME_EXCHANGE`): `race` always exists, as the directory
/// or as the link.
#[cfg(target_os = "linux")]
struct Swapper {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<u64>>,
}

#[cfg(target_os = "linux")]
impl Swapper {
    /// Set the race up in `tree` and return once the first swap is done.
    fn start(tree: &Tree) -> Swapper {
        let root = tree.root();
        std::fs::create_dir_all(root.join("race")).unwrap();
        std::fs::write(root.join("race/file.txt"), "inside").unwrap();
        let outside = tree.base.join("outside/race");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("file.txt"), SECRET).unwrap();
        std::fs::write(outside.join("outside-only.txt"), SECRET).unwrap();
        std::os::unix::fs::symlink("../outside/race", root.join("race-link")).unwrap();

        let c_path = |name: &str| {
            std::ffi::CString::new(root.join(name).into_os_string().into_encoded_bytes()).unwrap()
        };
        let (dir, link) = (c_path("race"), c_path("race-link"));
        let exchange = move || {
            // SAFETY: both paths are NUL-terminated C strings that outlive the call.
            let exchanged = unsafe {
                libc::renameat2(
                    libc::AT_FDCWD,
                    dir.as_ptr(),
                    libc::AT_FDCWD,
                    link.as_ptr(),
                    libc::RENAME_EXCHANGE,
                )
            };
            assert_eq!(exchanged, 0, "{}", std::io::Error::last_os_error());
        };
        let stop = Arc::new(AtomicBool::new(false));
        let (first_swap, swapped) = mpsc::channel();
        let thread = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut swaps = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    exchange();
                    swaps += 1;
                    if swaps == 1 {
                        first_swap.send(()).unwrap();
                    }
                }
                // Leave the directory in place, as it began.
                if swaps % 2 == 1 {
                    exchange();
                }
                swaps
            })
        };
        swapped.recv_timeout(PATIENCE).expect("the swapper started");
        Swapper {
            stop,
            thread: Some(thread),
        }
    }

    /// Stop swapping; how many swaps there were.
    fn stop(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap()
    }
}

#[cfg(target_os = "linux")]
impl Drop for Swapper {
    /// A failing test stops the swapper too, rather than leaving it spinning beside the others.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Call `tool` with `arguments` up to [`RACE_CALLS`] times, 32 in flight at once (so that calls
/// overlap the swaps from several threads), handing each result to `check`.
#[cfg(target_os = "linux")]
fn race(client: &mut Client, tool: &str, arguments: Value, mut check: impl FnMut(&Value)) -> usize {
    const WINDOW: usize = 32;
    let started = Instant::now();
    let mut sent = 0;
    let mut pending = std::collections::VecDeque::new();
    loop {
        while pending.len() < WINDOW && sent < RACE_CALLS && started.elapsed() < RACE_TIME {
            let params = json!({"name": tool, "arguments": arguments});
            pending.push_back(client.send_request("tools/call", params));
            sent += 1;
        }
        let Some(id) = pending.pop_front() else {
            return sent;
        };
        check(&client.response(&id)["result"]);
    }
}

/// A directory that a process inside the root keeps swapping with a link to a directory
/// outside: every read of `race/file.txt` answers the file inside or an error, never the file
/// outside. A check of the path followed by an open of the path again loses this race.
#[cfg(target_os = "linux")]
#[test]
fn a_directory_swapped_for_a_link_while_reading_never_leads_outside() {
    let tree = Tree::new();
    let swapper = Swapper::start(&tree);
    let mut client = tree.open(ProtocolVersion::NEWEST_LEGACY);
    let started = Instant::now();
    let (mut inside, mut refused, mut escaped) = (0, 0, 0);
    let sent = race(
        &mut client,
        "read_file",
        json!({"path": "race/file.txt"}),
        |result| {
            let text = text_of(result);
            if text.contains(SECRET) {
                escaped += 1;
            } else if is_error(result) {
                refused += 1;
            } else {
                assert_eq!(text, "inside", "{result}");
                inside += 1;
            }
        },
    );
    let swaps = swapper.stop();
    eprintln!(
        "{sent} reads in {:?} while {swaps} swaps: {inside} inside, {refused} refused, \
         {escaped} outside",
        started.elapsed()
    );
    assert_eq!(
        escaped, 0,
        "{escaped} of {sent} reads returned the file outside the root"
    );
    assert!(client.finish().success());
}

/// The same race under a search of the whole root: the walk never descends through the link
/// swapped in for a directory it listed, so nothing outside is ever listed.
#[cfg(target_os = "linux")]
#[test]
fn a_directory_swapped_for_a_link_while_searching_is_never_descended() {
    let tree = Tree::new();
    let swapper = Swapper::start(&tree);
    let mut client = tree.open(ProtocolVersion::NEWEST_LEGACY);
    let started = Instant::now();
    let mut escaped = 0;
    let sent = race(
        &mut client,
        "search_files",
        json!({"keyword": "outside-only"}),
        |result| {
            if text_of(result).contains("outside-only.txt") {
                escaped += 1;
            } else {
                assert_text(result, "no file name contains \"outside-only\" under .");
            }
        },
    );
    let swaps = swapper.stop();
    eprintln!(
        "{sent} searches in {:?} while {swaps} swaps: {escaped} listed a file outside",
        started.elapsed()
    );
    assert_eq!(
        escaped, 0,
        "{escaped} of {sent} searches listed a file outside the root"
    );
    assert!(client.finish().success());
}

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

/// The policy flags (before the runtime's command line, in any order): every request in the
/// audit log, refusals included; results over the cap truncated with a note; and each flag's
/// usage error.
#[test]
fn the_policy_flags_audit_every_request_and_cap_the_output() {
    let tree = Tree::new();
    let audit = tree.base.join("audit.jsonl");
    let root = tree.root();
    let args: [&std::ffi::OsStr; 9] = [
        "--audit-log".as_ref(),
        audit.as_os_str(),
        "--max-output".as_ref(),
        "300".as_ref(),
        "--timeout=30".as_ref(),
        "--rate-limit".as_ref(),
        "1000/s".as_ref(),
        "--root".as_ref(),
        root.as_os_str(),
    ];
    let server = ServerProcess::example_with_args("file_search", &args);
    let mut client = Client::open(server, ProtocolVersion::V2025_11_25);
    assert_text(&read(&mut client, "a.txt"), "alpha\n");
    let cut = read(&mut client, "exact.log");
    let text = text_of(&cut);
    assert!(!is_error(&cut), "{cut}");
    assert!(text.starts_with(&"x".repeat(100)), "{text}");
    assert!(text.contains("truncated"), "{text}");
    assert!(text.len() < 400, "{} bytes", text.len());
    assert_tool_error_mentions(&read(&mut client, "../outside/secret.txt"), &["outside"]);
    let unknown = client.error("tools/call", json!({"name": "delete_all", "arguments": {}}));
    assert_eq!(unknown["code"], -32602, "{unknown}");
    assert!(client.finish().success());

    // The server wrote each line as its request ended; wait for the last one to land.
    let deadline = Instant::now() + PATIENCE;
    let lines: Vec<Value> = loop {
        let text = std::fs::read_to_string(&audit).unwrap_or_default();
        if text.contains("delete_all") && text.ends_with('\n') || Instant::now() > deadline {
            break text
                .lines()
                .map(|line| serde_json::from_str(line).unwrap())
                .collect();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let calls: Vec<(&str, &str, Option<i64>)> = lines
        .iter()
        .filter(|line| line["method"] == "tools/call")
        .map(|line| {
            (
                line["name"].as_str().unwrap(),
                line["outcome"].as_str().unwrap(),
                line["code"].as_i64(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("read_file", "ok", None),
            ("read_file", "ok", None),
            ("read_file", "tool_error", None),
            ("delete_all", "error", Some(-32602)),
        ],
        "{lines:#?}"
    );
    assert!(lines.iter().all(|line| line.get("arguments").is_none()));

    // Each flag's mistakes are the example's usage errors, before anything is served.
    let root = root.as_os_str();
    for (args, says) in [
        (
            vec!["--rate-limit", "fast"],
            "takes a positive number of calls per second",
        ),
        (vec!["--timeout", "0"], "takes a positive number of seconds"),
        (vec!["--max-output"], "needs a value: --max-output BYTES"),
        (
            vec!["--audit-log", "/nonexistent/dir/audit.jsonl"],
            "cannot open the audit log",
        ),
    ] {
        let output = Command::new(example_path("file_search"))
            .arg("--root")
            .arg(root)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with("file_search: ") && stderr.contains(says),
            "{args:?}: {stderr}"
        );
    }
}

//! Interop: the official MCP client SDKs drive every example server over a real stdio pipe,
//! and some over Streamable HTTP.
//!
//! Each test runs one client program from `tests/interop/` against every example that has a
//! fixture in `tests/interop/fixtures/<example>.json` (tool name -> calls and expected results;
//! the format is in `tests/interop/README.md`). The clients spawn the example binary themselves
//! through their SDK's own stdio transport, check everything through the SDK's own types, and
//! exit non-zero on any mismatch, which fails the test with their whole report.
//!
//! The `*_asking_*` tests run the asking clients (`tests/interop/python/asking.py`,
//! `tests/interop/ts/asking-v{1,2}.ts`) against `examples/long_task.rs` and the `asking-server`
//! binary: the servers ask (elicitation, sampling, roots) and the clients answer through their
//! SDK's own handlers, in both eras; they also cancel a running call through the SDK.
//!
//! Over HTTP: the HTTP+SSE transport of 2024-11-05, the layered server's policy
//! (`python/middleware.py`), and `examples/team_notes.rs` with bearer tokens
//! (`python/team_notes.py`, `ts/team-notes.ts` in both SDK lines): each principal sees only
//! its own notes and only the tools its scopes allow, and a call lacking a scope surfaces the
//! 403 `insufficient_scope` the way each SDK reports it.
//!
//! Tracing: the Python SDK's own OpenTelemetry instrumentation (`python/tracing.py`) sends
//! its client spans' `traceparent` in `_meta` over stdio and Streamable HTTP, in both eras, and
//! the calculator's server spans (exported by `Server::trace_from_env` to a receiver the test
//! runs) are their children.
//!
//! MCP Apps: the Python SDK sees the weather example's app in both eras (`python/apps.py`), and
//! a real headless Chromium renders it through the official host-side bridge
//! (`browser/drive.mjs`, `browser/host.ts`).
//!
//! The clients are installed by `bash tests/interop/setup.sh` (CI runs it before
//! `cargo test`). Without them these tests fail and say so; set `MCP_SKIP_INTEROP=1` to skip
//! them instead.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

// Only the receiver and a few readers are used here.
#[allow(dead_code)]
#[path = "support/otlp.rs"]
mod otlp;

/// How long one client run may take before it is killed. Runs take a few seconds; the margin is
/// for a loaded two-core machine running the whole workspace's tests at once.
const PATIENCE: Duration = Duration::from_secs(180);

/// Legacy revisions a server may negotiate through `initialize`.
const LEGACY_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// The modern revision.
const MODERN_VERSION: &str = "2026-07-28";

const SETUP_HINT: &str = "install the interop clients with `bash tests/interop/setup.sh` \
     (or set MCP_SKIP_INTEROP=1 to skip the interop tests)";

/// `tests/interop/`.
fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop")
}

/// The installed clients.
struct Clients {
    dir: PathBuf,
    python: PathBuf,
    node: PathBuf,
    /// `PATH` with `node_modules/.bin` (its Node.js and the Inspector's bins) first.
    path: OsString,
}

/// The clients, or `None` (after saying so) when `MCP_SKIP_INTEROP` is set. Panics with the
/// setup command when they are missing or do not match the pins.
fn clients(test: &str) -> Option<Clients> {
    if std::env::var_os("MCP_SKIP_INTEROP").is_some_and(|v| !v.is_empty() && v != "0") {
        eprintln!("{test}: skipped (MCP_SKIP_INTEROP is set)");
        return None;
    }
    let dir = interop_dir();
    let python = dir.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{test}: no Python client at {}: {SETUP_HINT}",
        python.display()
    );
    let bin = dir.join("node_modules/.bin");
    assert!(
        bin.is_dir(),
        "{test}: no TypeScript clients at {}: {SETUP_HINT}",
        bin.display()
    );
    check_pins(&dir);
    let local_node = bin.join("node");
    let node = if local_node.exists() {
        local_node
    } else {
        PathBuf::from("node")
    };
    let mut paths = vec![bin];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let path = std::env::join_paths(paths).expect("PATH entries join");
    Some(Clients {
        dir,
        python,
        node,
        path,
    })
}

/// Fails when what is installed is not what `requirements.txt` / `package.json` pin (the setup
/// script is then simply stale).
fn check_pins(dir: &Path) {
    let requirements = std::fs::read_to_string(dir.join("requirements.txt")).unwrap();
    let mcp = requirements
        .lines()
        .find_map(|line| line.trim().strip_prefix("mcp=="))
        .expect("requirements.txt pins mcp==X.Y.Z");
    let site = std::fs::read_dir(dir.join(".venv/lib"))
        .ok()
        .and_then(|mut entries| entries.find_map(|e| e.ok()))
        .map(|python| python.path().join("site-packages"));
    let dist_info = format!("mcp-{mcp}.dist-info");
    assert!(
        site.is_some_and(|site| site.join(&dist_info).is_dir()),
        "tests/interop/.venv does not hold mcp {mcp}: {SETUP_HINT}"
    );
    let manifest = read_json(&dir.join("package.json"));
    for section in ["dependencies", "devDependencies"] {
        for (name, pinned) in manifest[section].as_object().into_iter().flatten() {
            let installed = read_json(&dir.join("node_modules").join(name).join("package.json"));
            assert_eq!(
                installed["version"], *pinned,
                "tests/interop/node_modules/{name} is not the pinned version: {SETUP_HINT}"
            );
        }
    }
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}: {SETUP_HINT}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One example server with its fixture.
struct Example {
    name: String,
    fixture_path: PathBuf,
    fixture: Value,
    binary: PathBuf,
    /// The server's own arguments (the fixture's `args`, `{interop}` made absolute).
    args: Vec<String>,
}

/// `target/<profile>/examples/`, where `cargo test` builds the examples.
fn examples_dir() -> PathBuf {
    let test_exe = std::env::current_exe().expect("the test binary's path");
    test_exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary lives in target/<profile>/deps")
        .join("examples")
}

/// Every example that has a fixture, with its built binary (`cargo test` builds the examples
/// next to this test's own directory: `target/<profile>/examples/`).
fn examples() -> Vec<Example> {
    let examples_dir = examples_dir();
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(interop_dir().join("fixtures"))
        .expect("tests/interop/fixtures exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    fixtures.sort();
    assert!(
        !fixtures.is_empty(),
        "no fixtures in tests/interop/fixtures"
    );
    fixtures
        .into_iter()
        .map(|fixture_path| {
            let name = fixture_path
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let fixture = read_json(&fixture_path);
            assert_eq!(
                fixture["example"].as_str(),
                Some(name.as_str()),
                "{}: `example` must name the example the file is named after",
                fixture_path.display()
            );
            let binary = examples_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
            assert!(
                binary.exists(),
                "no binary for example `{name}` at {}: build it with `cargo build --examples` \
                 (`cargo test --workspace` builds it)",
                binary.display()
            );
            let interop = interop_dir();
            let args = fixture["args"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|arg| {
                    let arg = arg.as_str().expect("the fixture's `args` are strings");
                    arg.replace("{interop}", &interop.to_string_lossy())
                })
                .collect();
            Example {
                name,
                fixture_path,
                fixture,
                binary,
                args,
            }
        })
        .collect()
}

/// What a finished client run produced.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
    shown: String,
}

impl Run {
    fn report(&self) -> String {
        format!(
            "`{}` exited with {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.shown, self.status, self.stdout, self.stderr
        )
    }
}

/// Runs `command` in `tests/interop/` with the clients' PATH, killing it after `PATIENCE`.
fn run(clients: &Clients, mut command: Command) -> Run {
    let shown = format!("{command:?}");
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("interop");
    std::fs::create_dir_all(&scratch).unwrap();
    command
        .current_dir(&clients.dir)
        .env("PATH", &clients.path)
        // Keep the Inspector's catalog and client config out of the developer's home.
        .env("MCP_CATALOG_PATH", scratch.join("catalog.json"))
        .env("MCP_CLIENT_CONFIG_PATH", scratch.join("client.json"))
        .env("npm_config_update_notifier", "false")
        .env("PYTHONUNBUFFERED", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    let status = wait(&mut child, &shown);
    Run {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
        shown,
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

fn wait(child: &mut Child, shown: &str) -> ExitStatus {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{shown} did not finish within {PATIENCE:?}");
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// Runs a client program (`program` + `args`, then `<fixture> <binary>`) against every example
/// and fails with its report unless it exits 0.
fn run_client(test: &str, program: impl Fn(&Clients) -> Command) {
    let Some(clients) = clients(test) else {
        return;
    };
    for example in examples() {
        let mut command = program(&clients);
        command
            .arg(&example.fixture_path)
            .arg(&example.binary)
            .args(&example.args);
        let run = run(&clients, command);
        assert!(
            run.status.success(),
            "{test} against example `{}` failed:\n{}",
            example.name,
            run.report()
        );
        let summary = run.stdout.lines().last().unwrap_or_default();
        eprintln!("{test}: {summary}");
    }
}

#[test]
fn python_sdk_legacy_era() {
    run_client("python_sdk_legacy_era", |c| {
        let mut command = Command::new(&c.python);
        command.args(["python/client.py", "--era", "legacy"]);
        command
    });
}

#[test]
fn python_sdk_modern_era() {
    run_client("python_sdk_modern_era", |c| {
        let mut command = Command::new(&c.python);
        command.args(["python/client.py", "--era", "modern"]);
        command
    });
}

/// `python/apps.py`: the Python SDK sees the weather example's MCP App (`_meta.ui.resourceUri`
/// on the tool, the `ui://` page read as `text/html;profile=mcp-app`) in `era`.
fn python_sdk_sees_the_weather_app(test: &str, era: &str) {
    let Some(clients) = clients(test) else {
        return;
    };
    let weather = examples_dir().join(format!("weather{}", std::env::consts::EXE_SUFFIX));
    assert!(
        weather.exists(),
        "no binary for example `weather` at {}: build it with `cargo build --examples`",
        weather.display()
    );
    let mut command = Command::new(&clients.python);
    command.args(["python/apps.py", "--era", era]).arg(&weather);
    let run = run(&clients, command);
    assert!(run.status.success(), "{test} failed:\n{}", run.report());
    eprintln!("{test}: {}", run.stdout.lines().last().unwrap_or_default());
}

#[test]
fn python_sdk_sees_the_weather_app_legacy_era() {
    python_sdk_sees_the_weather_app("python_sdk_sees_the_weather_app_legacy_era", "legacy");
}

#[test]
fn python_sdk_sees_the_weather_app_modern_era() {
    python_sdk_sees_the_weather_app("python_sdk_sees_the_weather_app_modern_era", "modern");
}

#[test]
fn typescript_sdk_v1_legacy_era() {
    run_client("typescript_sdk_v1_legacy_era", |c| {
        let mut command = Command::new(&c.node);
        command.arg("ts/sdk-v1.ts");
        command
    });
}

#[test]
fn typescript_sdk_v2_default_legacy_first() {
    run_client("typescript_sdk_v2_default_legacy_first", |c| {
        let mut command = Command::new(&c.node);
        command.args(["ts/sdk-v2.ts", "--era", "legacy"]);
        command
    });
}

#[test]
fn typescript_sdk_v2_auto_negotiation_reaches_modern_era() {
    run_client(
        "typescript_sdk_v2_auto_negotiation_reaches_modern_era",
        |c| {
            let mut command = Command::new(&c.node);
            command.args(["ts/sdk-v2.ts", "--era", "auto"]);
            command
        },
    );
}

/// Runs an asking client program (`program` + `args`, then `<long_task> <asking-server>`): the
/// servers ask the client (elicitation, sampling, roots) and the client answers through its
/// SDK's own handlers; fails with its report unless it exits 0.
fn run_asking_client(test: &str, program: impl Fn(&Clients) -> Command) {
    let Some(clients) = clients(test) else {
        return;
    };
    let long_task = examples_dir().join(format!("long_task{}", std::env::consts::EXE_SUFFIX));
    assert!(
        long_task.exists(),
        "no binary for example `long_task` at {}: build it with `cargo build --examples` \
         (`cargo test --workspace` builds it)",
        long_task.display()
    );
    // Cargo builds the package's binaries for its integration tests.
    let asking_server = Path::new(env!("CARGO_BIN_EXE_asking-server"));
    let mut command = program(&clients);
    command.arg(&long_task).arg(asking_server);
    let run = run(&clients, command);
    assert!(run.status.success(), "{test} failed:\n{}", run.report());
    let summary = run.stdout.lines().last().unwrap_or_default();
    eprintln!("{test}: {summary}");
}

/// `python/asking.py`: `mcp.Client` (`mode="legacy"`) with `elicitation_callback`,
/// `sampling_callback` and `list_roots_callback` answering real server-to-client requests.
#[test]
fn python_sdk_asking_legacy_era() {
    run_asking_client("python_sdk_asking_legacy_era", |c| {
        let mut command = Command::new(&c.python);
        command.args(["python/asking.py", "--era", "legacy"]);
        command
    });
}

/// The same callbacks with `mode="auto"` (2026-07-28): the SDK's multi-round-trip driver answers
/// `InputRequiredResult`s and retries with `inputResponses` + `requestState`.
#[test]
fn python_sdk_asking_modern_era() {
    run_asking_client("python_sdk_asking_modern_era", |c| {
        let mut command = Command::new(&c.python);
        command.args(["python/asking.py", "--era", "modern"]);
        command
    });
}

/// `ts/asking-v1.ts`: `@modelcontextprotocol/sdk` v1 with `setRequestHandler(ElicitRequestSchema,
/// ...)` and friends (legacy only).
#[test]
fn typescript_sdk_v1_asking_legacy_era() {
    run_asking_client("typescript_sdk_v1_asking_legacy_era", |c| {
        let mut command = Command::new(&c.node);
        command.arg("ts/asking-v1.ts");
        command
    });
}

/// `ts/asking-v2.ts`: `@modelcontextprotocol/client` v2, default connect (legacy).
#[test]
fn typescript_sdk_v2_asking_default_legacy() {
    run_asking_client("typescript_sdk_v2_asking_default_legacy", |c| {
        let mut command = Command::new(&c.node);
        command.args(["ts/asking-v2.ts", "--era", "legacy"]);
        command
    });
}

/// The same with `versionNegotiation: { mode: 'auto' }` (2026-07-28): the SDK fulfils
/// `input_required` results through the registered handlers itself.
#[test]
fn typescript_sdk_v2_asking_auto_modern_era() {
    run_asking_client("typescript_sdk_v2_asking_auto_modern_era", |c| {
        let mut command = Command::new(&c.node);
        command.args(["ts/asking-v2.ts", "--era", "auto"]);
        command
    });
}

/// The client programs type-check against the pinned SDKs' own declarations (Node runs them by
/// stripping the types, which checks nothing).
#[test]
fn typescript_clients_typecheck() {
    let Some(clients) = clients("typescript_clients_typecheck") else {
        return;
    };
    let mut command = Command::new(&clients.node);
    command.args(["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."]);
    let run = run(&clients, command);
    assert!(run.status.success(), "tsc failed:\n{}", run.report());
}

/// `npx @modelcontextprotocol/inspector --cli ... -- <binary> <args>`, answering one JSON
/// document. After `--` everything is the server's command line, so the server's own flags
/// are not taken for the Inspector's.
fn inspector(clients: &Clients, example: &Example, era: &str, method_args: &[&str]) -> Value {
    let mut command = Command::new("npx");
    command
        .args(["--no-install", "@modelcontextprotocol/inspector", "--cli"])
        .args(["--format", "json", "--protocol-era", era])
        .args(method_args)
        .arg("--")
        .arg(&example.binary)
        .args(&example.args);
    let run = run(clients, command);
    assert!(
        run.status.success(),
        "the Inspector CLI failed on example `{}`:\n{}",
        example.name,
        run.report()
    );
    serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "the Inspector CLI printed no JSON ({e}) on example `{}`:\n{}",
            example.name,
            run.report()
        )
    })
}

/// The Inspector CLI: handshake, `tools/list --strict` (schema portability) and the fixture's
/// `inspector` call.
fn inspector_cli(test: &str, era: &str) {
    let Some(clients) = clients(test) else {
        return;
    };
    for example in examples() {
        let name = &example.name;
        let init = inspector(&clients, &example, era, &["--method", "initialize"]);
        let version = init["result"]["protocolVersion"]
            .as_str()
            .unwrap_or_default();
        let era_ok = match era {
            "modern" => version == MODERN_VERSION,
            _ => LEGACY_VERSIONS.contains(&version),
        };
        assert!(era_ok, "{test} `{name}`: negotiated {version:?}: {init}");

        let list = inspector(
            &clients,
            &example,
            era,
            &["--method", "tools/list", "--strict"],
        );
        let listed: BTreeSet<&str> = list["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{test} `{name}`: no tools in {list}"))
            .iter()
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        let expected: BTreeSet<&str> = example.fixture["tools"]
            .as_object()
            .expect("the fixture's `tools` is an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(listed, expected, "{test} `{name}`: listed tools");

        let call = &example.fixture["inspector"];
        let tool = call["tool"]
            .as_str()
            .unwrap_or_else(|| panic!("fixture `{name}` lacks inspector.tool"));
        let mut args = vec!["--method", "tools/call", "--tool-name", tool];
        for pair in call["toolArgs"].as_array().into_iter().flatten() {
            args.extend(["--tool-arg", pair.as_str().expect("toolArgs are key=value")]);
        }
        let answer = inspector(&clients, &example, era, &args);
        let result = &answer["result"];
        assert_eq!(
            result["isError"].as_bool().unwrap_or(false),
            call["isError"].as_bool().unwrap_or(false),
            "{test} `{name}`: isError of {answer}"
        );
        let text: String = result["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|block| block["text"].as_str())
            .collect();
        if let Some(expected) = call["text"].as_str() {
            assert_eq!(text, expected, "{test} `{name}`: text of {answer}");
        }
        eprintln!(
            "{test}: `{name}` at {version}: {} tools, {tool} -> {text:?}",
            listed.len()
        );
    }
}

#[test]
fn inspector_cli_legacy_era() {
    inspector_cli("inspector_cli_legacy_era", "legacy");
}

#[test]
fn inspector_cli_modern_era() {
    inspector_cli("inspector_cli_modern_era", "modern");
}

/// An example serving HTTP on a free loopback port, and where: the process, its base URL (the
/// endpoint without `/mcp`) and the thread collecting its log.
struct HttpExample {
    process: Child,
    base: String,
    log: thread::JoinHandle<String>,
}

impl HttpExample {
    /// Start example `name` with `args` (which make it listen on `127.0.0.1:0`) and `env`.
    fn start(test: &str, name: &str, args: &[&str], env: &[(&str, &str)]) -> Self {
        let binary = examples_dir().join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        assert!(
            binary.exists(),
            "no binary for example `{name}` at {}: build it with `cargo build --examples`",
            binary.display()
        );
        Self::start_binary(test, name, &binary, args, env)
    }

    /// [`start`](Self::start) for any server binary.
    fn start_binary(
        test: &str,
        name: &str,
        binary: &Path,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        use std::io::{BufRead, BufReader};

        let mut process = Command::new(binary)
            .args(args)
            .env("MCP_LOG", "info")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        // The server says where it listens on stderr; the rest of its log is drained meanwhile.
        let (found, address) = std::sync::mpsc::channel();
        let stderr = process.stderr.take().unwrap();
        let log = thread::spawn(move || {
            let mut lines = Vec::new();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line
                    .split_whitespace()
                    .find_map(|word| word.strip_suffix("/mcp"))
                    .filter(|url| url.starts_with("http://"))
                {
                    let _ = found.send(url.to_owned());
                }
                lines.push(line);
            }
            lines.join("\n")
        });
        let Ok(base) = address.recv_timeout(PATIENCE) else {
            let _ = process.kill();
            let _ = process.wait();
            panic!(
                "{test}: {name} never said where it serves:\n{}",
                log.join().unwrap()
            );
        };
        HttpExample { process, base, log }
    }

    /// Stop it with SIGTERM, as an operator does, and wait for it to exit; its log.
    #[cfg(unix)]
    fn terminate(mut self) -> String {
        let status = Command::new("kill")
            .args(["-TERM", &self.process.id().to_string()])
            .status()
            .expect("the `kill` command runs");
        assert!(status.success(), "`kill -TERM` failed: {status}");
        let deadline = Instant::now() + PATIENCE;
        while self.process.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "the server ignored SIGTERM");
            thread::sleep(Duration::from_millis(20));
        }
        self.log.join().unwrap()
    }

    /// Stop it; its log.
    fn stop(mut self) -> String {
        let _ = self.process.kill();
        let _ = self.process.wait();
        self.log.join().unwrap()
    }
}

/// `browser/drive.mjs`: headless Chromium (Debian's, installed by `setup-browser.sh`) opens a
/// test host page whose official TypeScript SDK client reaches `examples/weather.rs` over
/// Streamable HTTP and whose official MCP Apps bridge (`@modelcontextprotocol/ext-apps`) shows
/// the tool's `ui://` page in a sandboxed iframe; the page's DOM shows the result, and a click
/// in it calls the tool again through the bridge. `era` is the client's negotiation.
fn browser_renders_the_weather_app(test: &str, era: &str) {
    let Some(clients) = clients(test) else {
        return;
    };
    let chromium = std::env::var_os("CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    assert!(
        chromium.exists(),
        "{test}: no Chromium at {}: install it with `bash tests/interop/setup.sh` (it runs \
         setup-browser.sh), or set CHROMIUM",
        chromium.display()
    );
    let server = HttpExample::start(test, "weather", &["--http", "127.0.0.1:0"], &[]);
    let mut command = Command::new(&clients.node);
    command
        .arg("browser/drive.mjs")
        .arg(format!("{}/mcp", server.base))
        .args(["--era", era])
        .env("CHROMIUM", &chromium);
    let run = run(&clients, command);
    let server_log = server.stop();
    assert!(
        run.status.success(),
        "{test} failed:\n{}\n--- weather's log ---\n{server_log}",
        run.report()
    );
    eprintln!("{test}: {}", run.stdout.lines().last().unwrap_or_default());
}

#[test]
fn browser_renders_the_weather_app_legacy_era() {
    browser_renders_the_weather_app("browser_renders_the_weather_app_legacy_era", "legacy");
}

#[test]
fn browser_renders_the_weather_app_modern_era() {
    browser_renders_the_weather_app("browser_renders_the_weather_app_modern_era", "auto");
}

/// Run `script` (under tests/interop) with the venv's Python against `url`, with `server`
/// serving; fails the test with both logs unless the script succeeds.
fn python_against(test: &str, clients: &Clients, script: &str, url: &str, server: HttpExample) {
    let mut command = Command::new(&clients.python);
    command.args([script, url]);
    let run = run(clients, command);
    let server_log = server.stop();
    assert!(
        run.status.success(),
        "{test} failed:\n{}\n--- server log ---\n{server_log}",
        run.report()
    );
    let summary = run.stdout.lines().last().unwrap_or_default();
    eprintln!("{test}: {summary}");
}

/// `python/sse_legacy.py`: the Python SDK's `mcp.client.sse.sse_client` (the 2024-11-05
/// HTTP+SSE transport) drives `examples/long_task.rs` served with `--http`: the `endpoint`
/// event, `initialize`, `tools/list`, and a call whose elicitation and progress ride the stream.
#[test]
fn python_sdk_http_sse_transport() {
    let test = "python_sdk_http_sse_transport";
    let Some(clients) = clients(test) else {
        return;
    };
    let server = HttpExample::start(test, "long_task", &["--http", "127.0.0.1:0"], &[]);
    let base = server.base.clone();
    python_against(test, &clients, "python/sse_legacy.py", &base, server);
}

/// The token table `examples/team_notes.rs` is started with: alice and bob may read and write
/// notes, carol may only read them.
const TEAM_NOTES_TOKENS: &str = "alice=alice-token,bob=bob-token,carol=carol-token[notes:read]";

/// `examples/team_notes.rs` on a free loopback port with [`TEAM_NOTES_TOKENS`], and its endpoint.
fn team_notes(test: &str) -> (HttpExample, String) {
    let server = HttpExample::start(
        test,
        "team_notes",
        &["127.0.0.1:0"],
        &[("TEAM_NOTES_TOKENS", TEAM_NOTES_TOKENS)],
    );
    let url = format!("{}/mcp", server.base);
    (server, url)
}

/// `python/team_notes.py`: the Python SDK's Streamable HTTP client, in a legacy session and in
/// 2026-07-28, sends each user's bearer token to `examples/team_notes.rs`, whose authorization
/// hook names the user: each sees only their own notes and the tools their scopes allow; carol
/// (`notes:read` only) calling `add_note` gets 403 `insufficient_scope`, which the SDK raises as
/// `MCPError` -32003 (a raw POST sees the status and the challenge); an unknown token gets 401.
#[test]
fn python_sdk_streamable_http_with_bearer_tokens() {
    let test = "python_sdk_streamable_http_with_bearer_tokens";
    let Some(clients) = clients(test) else {
        return;
    };
    let (server, url) = team_notes(test);
    python_against(test, &clients, "python/team_notes.py", &url, server);
}

/// `ts/team-notes.ts --sdk <sdk> --era <era> <url>` against `examples/team_notes.rs`: the same
/// checks through a TypeScript SDK's `StreamableHTTPClientTransport` with the token in
/// `requestInit.headers`; fails the test with both logs unless the program succeeds.
fn typescript_team_notes(test: &str, sdk: &str, era: &str) {
    let Some(clients) = clients(test) else {
        return;
    };
    let (server, url) = team_notes(test);
    let mut command = Command::new(&clients.node);
    command.args(["ts/team-notes.ts", "--sdk", sdk, "--era", era, &url]);
    let run = run(&clients, command);
    let server_log = server.stop();
    assert!(
        run.status.success(),
        "{test} failed:\n{}\n--- server log ---\n{server_log}",
        run.report()
    );
    eprintln!("{test}: {}", run.stdout.lines().last().unwrap_or_default());
}

/// `@modelcontextprotocol/sdk` v1 (legacy only): carol's `add_note` rejects with
/// `StreamableHTTPError` code 403 quoting the JSON-RPC error body.
#[test]
fn ts_sdk_streamable_http_with_bearer_tokens_v1_legacy_era() {
    typescript_team_notes(
        "ts_sdk_streamable_http_with_bearer_tokens_v1_legacy_era",
        "v1",
        "legacy",
    );
}

/// `@modelcontextprotocol/client` v2, default connect (legacy): carol's `add_note` rejects with
/// `InsufficientScopeError` (`requiredScope: "notes:write"`); with no OAuth provider there is no
/// step-up.
#[test]
fn ts_sdk_streamable_http_with_bearer_tokens_v2_legacy_era() {
    typescript_team_notes(
        "ts_sdk_streamable_http_with_bearer_tokens_v2_legacy_era",
        "v2",
        "legacy",
    );
}

/// The same with `versionNegotiation: { mode: 'auto' }` (2026-07-28).
#[test]
fn ts_sdk_streamable_http_with_bearer_tokens_v2_modern_era() {
    typescript_team_notes(
        "ts_sdk_streamable_http_with_bearer_tokens_v2_modern_era",
        "v2",
        "auto",
    );
}

/// `python/middleware.py`: the Python SDK drives `tests/layered_server/server.rs`, a server
/// behind every shipped layer, over a stdio pipe (the SDK spawns it) or Streamable HTTP with
/// bearer tokens naming principals, in one era: rate limit, timeout, output cap, a panicking
/// layer, the cache and cancellation, through the SDK's types. Then the audit log the server
/// wrote is checked line by line.
fn python_through_the_layers(test: &str, era: &str, over_http: bool) {
    let Some(clients) = clients(test) else {
        return;
    };
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("interop");
    std::fs::create_dir_all(&scratch).unwrap();
    let audit = scratch.join(format!("{test}.audit.jsonl"));
    let _ = std::fs::remove_file(&audit);
    let binary = Path::new(env!("CARGO_BIN_EXE_layered-server"));
    let audit_arg = audit.to_str().unwrap();
    let mut command = Command::new(&clients.python);
    command.args(["python/middleware.py", "--era", era]);
    let server = over_http.then(|| {
        HttpExample::start_binary(
            test,
            "layered-server",
            binary,
            &["--audit-log", audit_arg, "--http", "127.0.0.1:0"],
            &[],
        )
    });
    match &server {
        Some(server) => command.arg("http").arg(format!("{}/mcp", server.base)),
        None => command.arg("stdio").arg(binary).arg(&audit),
    };
    let run = run(&clients, command);
    let server_log = server.map(HttpExample::stop).unwrap_or_default();
    assert!(
        run.status.success(),
        "{test} failed:\n{}\n--- server log ---\n{server_log}",
        run.report()
    );
    eprintln!("{test}: {}", run.stdout.lines().last().unwrap_or_default());
    check_audit_log(test, &audit, era, over_http);
}

/// The audit log of one `python/middleware.py` run: one JSON line per request, with the
/// caller, the client, the method, the name, a digest of the arguments, the outcome and the
/// duration.
fn check_audit_log(test: &str, audit: &Path, era: &str, over_http: bool) {
    // The client is done; the server may still be writing its last lines (over stdio it
    // exits once the SDK closes its stdin). Wait for the event: the last call's line.
    let deadline = Instant::now() + PATIENCE;
    let lines: Vec<Value> = loop {
        let text = std::fs::read_to_string(audit).unwrap_or_default();
        let complete = text.ends_with('\n');
        let lines: Vec<Value> = text
            .lines()
            .map(|line| {
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{test}: `{line}`: {e}"))
            })
            .collect();
        let calls = |principal: Option<&str>, tool: &str| {
            lines.iter().any(|line| {
                line["name"] == tool && principal.is_none_or(|p| line["caller"].as_str() == Some(p))
            })
        };
        let last_seen = if over_http {
            calls(Some(&format!("bob-{era}")), "lookup")
        } else {
            lines
                .iter()
                .filter(|line| line["name"] == "dropped")
                .count()
                >= 2
        };
        if complete && last_seen {
            break lines;
        }
        assert!(
            Instant::now() < deadline,
            "{test}: the audit log never got its last lines:\n{text}"
        );
        thread::sleep(Duration::from_millis(20));
    };
    let alice = format!("alice-{era}");
    for line in &lines {
        let time = line["time"].as_str().unwrap_or_default();
        assert!(
            time.len() == 24 && time.ends_with('Z') && time.as_bytes()[10] == b'T',
            "{test}: `time` is RFC 3339 with milliseconds: {line}"
        );
        assert_eq!(
            line["client"]["name"], "mcp-rs-interop-middleware",
            "{test}: {line}"
        );
        assert!(
            line["duration_ms"].as_f64().is_some_and(|ms| ms >= 0.0),
            "{test}: {line}"
        );
        // A digest of the arguments where there are any (a list has none).
        match line["arguments_sha256"].as_str() {
            Some(digest) => assert!(
                digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit()),
                "{test}: {line}"
            ),
            None => assert!(
                line["method"].as_str().unwrap().ends_with("/list"),
                "{test}: {line}"
            ),
        }
        assert!(
            line.get("arguments").is_none(),
            "{test}: raw arguments only when opted in: {line}"
        );
        let revision = line["revision"].as_str().unwrap_or_default();
        if era == "modern" {
            assert_eq!(revision, MODERN_VERSION, "{test}: {line}");
        } else {
            assert!(LEGACY_VERSIONS.contains(&revision), "{test}: {line}");
        }
        if over_http {
            assert!(
                line["connection"].is_null() || era == "legacy",
                "{test}: {line}"
            );
        } else {
            assert_eq!(
                line["caller"],
                Value::Null,
                "{test}: no principal over stdio: {line}"
            );
        }
    }
    // The tool calls of the first client, in order, with their outcomes.
    let outcomes: Vec<(String, String)> = lines
        .iter()
        .filter(|line| line["method"] == "tools/call")
        .filter(|line| !over_http || line["caller"].as_str() == Some(&alice))
        .map(|line| {
            let outcome = line["outcome"].as_str().unwrap_or_default().to_owned();
            (
                line["name"].as_str().unwrap_or_default().to_owned(),
                outcome,
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("echo", "ok"),
        ("echo", "ok"),
        ("echo", "ok"),
        ("echo", "ok"),
        ("echo", "tool_error"),
        ("slow", "timed_out"),
        ("dropped", "ok"),
        ("big", "ok"),
        ("trap", "tool_error"),
        ("lookup", "ok"),
        ("lookup", "ok"),
        ("wait", "tool_error"),
    ]
    .iter()
    .map(|(name, outcome)| ((*name).to_owned(), (*outcome).to_owned()))
    .collect();
    assert_eq!(
        outcomes[..expected.len()],
        expected[..],
        "{test}: the audit log's tool calls:\n{outcomes:#?}"
    );
    // Then the cancelled `wait` and the `dropped` polls that waited for its handler to go: a
    // line is written when its request ends, and the cancel may end it after a poll began.
    let rest = &outcomes[expected.len()..];
    let waits: Vec<&(String, String)> = rest.iter().filter(|(name, _)| name == "wait").collect();
    assert_eq!(
        waits,
        [&("wait".to_owned(), "cancelled".to_owned())],
        "{test}: {outcomes:#?}"
    );
    assert!(
        rest.iter()
            .all(|(name, outcome)| name == "wait" || (name == "dropped" && outcome == "ok")),
        "{test}: {outcomes:#?}"
    );
    // The same arguments digest alike; different ones do not.
    let digests: Vec<&str> = lines
        .iter()
        .filter(|line| line["name"] == "echo")
        .map(|line| line["arguments_sha256"].as_str().unwrap())
        .collect();
    let distinct: BTreeSet<&str> = digests.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        digests.len(),
        "{test}: five different echoes: {digests:?}"
    );
    let lookups: BTreeSet<&str> = lines
        .iter()
        .filter(|line| line["name"] == "lookup")
        .map(|line| line["arguments_sha256"].as_str().unwrap())
        .collect();
    assert_eq!(lookups.len(), 1, "{test}: one argument object, one digest");
}

#[test]
fn python_sdk_through_the_layers_over_stdio_legacy_era() {
    python_through_the_layers(
        "python_sdk_through_the_layers_over_stdio_legacy_era",
        "legacy",
        false,
    );
}

#[test]
fn python_sdk_through_the_layers_over_stdio_modern_era() {
    python_through_the_layers(
        "python_sdk_through_the_layers_over_stdio_modern_era",
        "modern",
        false,
    );
}

#[test]
fn python_sdk_through_the_layers_over_http_legacy_era() {
    python_through_the_layers(
        "python_sdk_through_the_layers_over_http_legacy_era",
        "legacy",
        true,
    );
}

#[test]
fn python_sdk_through_the_layers_over_http_modern_era() {
    python_through_the_layers(
        "python_sdk_through_the_layers_over_http_modern_era",
        "modern",
        true,
    );
}

/// `python/tracing.py`: the Python SDK, with an OpenTelemetry SDK tracer provider, sends its
/// client span's `traceparent` in each request's `_meta`; the calculator (over stdio, started
/// by the SDK, and over Streamable HTTP), traced by the `OTEL_*` variables alone, exports a
/// server span that is that client span's child, in each era.
#[cfg(unix)]
#[test]
fn python_sdk_sends_trace_context_the_server_continues() {
    let test = "python_sdk_sends_trace_context_the_server_continues";
    let Some(clients) = clients(test) else {
        return;
    };
    let (receiver, received) = otlp::start_receiver();
    let endpoint = format!("http://{receiver}");
    let otel = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("OTEL_SERVICE_NAME", "calculator"),
    ];
    let server = HttpExample::start(test, "calculator", &["--http", "127.0.0.1:0"], &otel);
    let url = format!("{}/mcp", server.base);
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("interop/client-spans.json");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let calculator = examples_dir().join("calculator");
    let mut command = Command::new(&clients.python);
    command
        .args(["python/tracing.py"])
        .arg(&out)
        .arg(&calculator)
        .arg(&url)
        .envs(otel);
    let run = run(&clients, command);
    // SIGTERM: what the HTTP server holds is exported as it exits (the stdio ones exited
    // when their client closed stdin).
    let server_log = server.terminate();
    assert!(
        run.status.success(),
        "{test} failed:\n{}\n--- server log ---\n{server_log}",
        run.report()
    );
    let sent: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(sent.len(), 4, "{sent:?}");
    let spans = otlp::spans(&received);
    for client in &sent {
        let children: Vec<_> = spans
            .iter()
            .filter(|span| {
                span.name == "tools/call add"
                    && otlp::hex(&span.trace_id) == client["trace_id"]
                    && otlp::hex(&span.parent_span_id) == client["span_id"]
            })
            .collect();
        assert_eq!(
            children.len(),
            1,
            "no server span continues the client's {client}: {spans:#?}"
        );
        let span = children[0];
        assert_eq!(
            otlp::attribute(&span.attributes, "mcp.protocol.version").as_deref(),
            client["protocol"].as_str(),
            "{client}"
        );
        let transport = if client["transport"] == "stdio" {
            "pipe"
        } else {
            "tcp"
        };
        assert_eq!(
            otlp::attribute(&span.attributes, "network.transport").as_deref(),
            Some(transport),
            "{client}"
        );
    }
    eprintln!("{test}: {}", run.stdout.lines().last().unwrap_or_default());
}

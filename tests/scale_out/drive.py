"""Drives three calculator and three long_task instances behind nginx (started by run.sh).

    python drive.py --base http://127.0.0.1:PORT --instance PID:ADDR:LOG (x3) \
        --asking PID:ADDR:LOG (x3) --stranger PID:ADDR:LOG

Raw HTTP with the standard library (`http.client`), not the SDK client: each check needs
control over which nginx location a request goes to and over the headers it carries.

(c) legacy, first, with all three instances up: `initialize` sessions through /legacy/mcp
    (nginx maps the session id's prefix, the instance's MCP_INSTANCE_ID, to its address; no
    retries), then many `tools/call echo` naming each session: all must succeed, on one
    instance, the one the id's prefix names; the same through the round-robin /mcp must meet
    404s (the session lives in one process). The same sessions and calls through
    /legacy-retry/mcp (the session-id hash and a retry on 404, the recipe for ids that name no
    instance) must all succeed too. Also reports, without failing, how many new sessions the
    session-id hash alone (/legacy-hash-only/mcp) misroutes.
(a) modern: N 2026-07-28 `tools/call add` requests through /mcp from a few threads; every one
    must answer the sum; each instance's debug log must show some of them.
(b) one instance is killed (SIGKILL) a third of the way through (a); no request may fail.
(d) asking across instances: the three `--asking` long_task instances share one
    MCP_REQUEST_STATE_KEY. ASKING_CALLS 2026-07-28 `tools/call migrate` go through nginx's
    /asking/mcp; each must answer `input_required` with an `elicitation/create` question, and
    the instance that asked is read from the debug logs. The retry (a new id, the answer in
    `inputResponses`, the `requestState`) is then sent straight to the port of ANOTHER instance
    (the next one after the asker), which must complete the call; its log must show the retry
    and the asker's must not; the same retry sent again to that instance must be refused with
    -32602 "already used" (a state resumes one call). Then ASKING_CALLS more with both rounds through nginx, each
    round attributed through the logs (reported: how many retries crossed instances). The
    negative: the `--stranger` instance, started with another key, must refuse a shared-key
    state with -32602 naming `requestState`, and the shared-key instances must refuse the
    stranger's.
(e) 2024-11-05 HTTP+SSE: SSE_SESSIONS sessions opened with `GET /sse` through nginx (round
    robin), each `initialize`d and called SSE_CALLS times by POSTs to the `endpoint` it names
    (nginx's /messages, which maps the `sessionId`'s prefix to its instance); every answer must
    arrive on the session's stream, each session's calls on one instance (the one its id
    names), and the sessions on more than one.
Exits 1 with the reasons on any failure.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import sys
import threading
import time
from urllib.parse import urlsplit

MODERN = "2026-07-28"
LEGACY = "2025-06-18"
N = 300
THREADS = 4
SESSIONS = 6
CALLS_PER_SESSION = 20
ASKING_CALLS = 9
MIGRATED = "migrated: copied 1 parts and dropped the old tables"

failures: list[str] = []


def fail(what: str) -> None:
    failures.append(what)
    print(f"FAIL {what}", flush=True)


class Client:
    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname, parts.port

    def post(self, path: str, body: dict, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            conn.request(
                "POST",
                path,
                body=json.dumps(body),
                headers={
                    "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream",
                    **headers,
                },
            )
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
        finally:
            conn.close()


def result_of(text: str) -> dict:
    """The JSON-RPC message of a JSON body or of an SSE body's last `data:` line."""
    if text.lstrip().startswith("{"):
        return json.loads(text)
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])


def text_of(message: dict) -> str | None:
    try:
        return "".join(block["text"] for block in message["result"]["content"] if block["type"] == "text")
    except (KeyError, TypeError):
        return None


def modern_add(client: Client, i: int, a: int, b: int) -> str | None:
    """One stateless 2026-07-28 call; None when it answered the sum, else what went wrong."""
    body = {
        "jsonrpc": "2.0",
        "id": i,
        "method": "tools/call",
        "params": {
            "name": "add",
            "arguments": {"a": a, "b": b},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "add"}
    try:
        status, _, text = client.post("/mcp", body, headers)
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    if status != 200:
        return f"HTTP {status}: {text[:200]}"
    got = text_of(result_of(text))
    return None if got == str(a + b) else f"answered {text[:200]}"


def legacy_open(client: Client, path: str) -> str:
    status, headers, text = client.post(
        path,
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "scale-out", "version": "1"}},
        },
        {},
    )
    if status != 200 or "mcp-session-id" not in headers:
        raise RuntimeError(f"initialize through {path}: HTTP {status} {text[:200]}")
    session = headers["mcp-session-id"]
    common = {"Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY}
    status, _, text = client.post(path, {"jsonrpc": "2.0", "method": "notifications/initialized"}, common)
    if status not in (200, 202):
        raise RuntimeError(f"notifications/initialized through {path}: HTTP {status} {text[:200]}")
    return session


def legacy_echo(client: Client, path: str, session: str, i: int) -> str | None:
    body = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": f"m{i}"}}}
    try:
        status, _, text = client.post(path, body, {"Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY})
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    if status != 200:
        return f"HTTP {status}"
    got = text_of(result_of(text))
    return None if got is not None and f"m{i}" in got else f"answered {text[:200]}"


SSE_SESSIONS = 6
SSE_CALLS = 5


def sse_session(client: Client, s: int) -> tuple[int, list[str], str]:
    """One 2024-11-05 HTTP+SSE session through nginx: `GET /sse` (any instance), then every
    message POSTed to the `endpoint` it names, the answers read off the stream. Returns how
    many echo calls were answered, the problems met, and the instance its id names."""
    problems: list[str] = []
    session_name = ""
    stream = http.client.HTTPConnection(client.host, client.port, timeout=30)
    stream.request("GET", "/sse", headers={"Accept": "text/event-stream"})
    response = stream.getresponse()
    if response.status != 200:
        return 0, [f"GET /sse: HTTP {response.status}"], session_name

    def next_event() -> tuple[str, str]:
        kind, data = "message", []
        while True:
            line = response.readline().decode()
            if not line:
                raise RuntimeError("the SSE stream ended")
            line = line.rstrip("\r\n")
            if not line:
                if data:
                    return kind, "\n".join(data)
                continue
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())

    def post(message: dict) -> int:
        status, _, _ = client.post(endpoint, message, {})
        return status

    def answer(i: int) -> dict:
        while True:
            kind, data = next_event()
            message = json.loads(data) if kind == "message" else {}
            if message.get("id") == i:
                return message

    answered = 0
    try:
        kind, endpoint = next_event()
        if kind != "endpoint" or "sessionId=" not in endpoint:
            return 0, [f"the first event is {kind} {endpoint!r}, not the endpoint"], session_name
        session_name = endpoint.split("sessionId=", 1)[1].split(".", 1)[0]
        initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "scale-out-sse", "version": "1"}}}
        if (status := post(initialize)) != 202:
            return 0, [f"initialize: HTTP {status}"], session_name
        if answer(0).get("result", {}).get("protocolVersion") != "2024-11-05":
            problems.append("initialize was not answered in 2024-11-05")
        if (status := post({"jsonrpc": "2.0", "method": "notifications/initialized"})) != 202:
            problems.append(f"notifications/initialized: HTTP {status}")
        for i in range(1, SSE_CALLS + 1):
            call = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": f"sse{s}-{i}"}}}
            if (status := post(call)) != 202:
                problems.append(f"call {i}: HTTP {status}")
                continue
            got = text_of(answer(i))
            if got is not None and f"sse{s}-{i}" in got:
                answered += 1
            else:
                problems.append(f"call {i} answered {got!r}")
    except Exception as e:  # noqa: BLE001
        problems.append(f"{type(e).__name__}: {e}")
    finally:
        stream.close()
    return answered, problems, session_name


def count(log: str, pattern: str) -> int:
    with open(log, encoding="utf-8", errors="replace") as f:
        return len(re.findall(pattern, f.read()))


def migrate(client: Client, path: str, i: int, retry_of: dict | None = None) -> tuple[int, dict]:
    """One 2026-07-28 `tools/call migrate` (1 quick step, then the question) at `path`; a retry
    when `retry_of` (the first round's result) is given: the answer accepts."""
    params: dict = {
        "name": "migrate",
        "arguments": {"steps": 1, "step_ms": 1},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        },
    }
    if retry_of is not None:
        params["inputResponses"] = {
            key: {"action": "accept", "content": {"drop_old_tables": True}} for key in retry_of.get("inputRequests", {})
        }
        params["requestState"] = retry_of.get("requestState")
    body = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "migrate"}
    status, _, text = client.post(path, body, headers)
    return status, result_of(text)


def asked_question(message: dict) -> str | None:
    """None when `message` is an `input_required` result asking one elicitation, else why not."""
    result = message.get("result") or {}
    questions = result.get("inputRequests") or {}
    if result.get("resultType") != "input_required" or not result.get("requestState"):
        return f"not input_required: {json.dumps(message)[:200]}"
    if [q.get("method") for q in questions.values()] != ["elicitation/create"]:
        return f"unexpected questions: {questions}"
    return None


def served_by(instances: list[dict], before: list[int], pattern: str) -> list[int]:
    """The instances whose logs show more `pattern` lines than `before`."""
    after = [count(x["log"], pattern) for x in instances]
    return [n for n, (b, a) in enumerate(zip(before, after)) if a > b]


def asking_across(client: Client, asking: list[dict], stranger: dict) -> None:
    """(d): see the module's docstring."""
    pattern = r"tools/call .*tool=migrate"
    direct = {n: Client(f"http://{x['addr']}") for n, x in enumerate(asking)}
    asked_by = [0, 0, 0]
    retried_at = [0, 0, 0]
    completed = replays_refused = 0
    states: list[dict] = []
    for i in range(ASKING_CALLS):
        before = [count(x["log"], pattern) for x in asking]
        status, first = migrate(client, "/asking/mcp", 100 + 2 * i)
        problem = asked_question(first) if status == 200 else f"HTTP {status}"
        if problem:
            fail(f"asking call {i}, first round through nginx: {problem}")
            continue
        served = served_by(asking, before, pattern)
        if len(served) != 1:
            fail(f"asking call {i}: the first round shows in the logs of instances {served}, not one")
            continue
        asker = served[0]
        asked_by[asker] += 1
        states.append(first["result"])
        other = (asker + 1) % len(asking)
        before = [count(x["log"], pattern) for x in asking]
        status, second = migrate(direct[other], "/mcp", 101 + 2 * i, first["result"])
        if status != 200 or text_of(second) != MIGRATED:
            fail(f"asking call {i}: the retry at instance {other + 4} (asked by {asker + 4}): HTTP {status} {json.dumps(second)[:300]}")
            continue
        if served_by(asking, before, pattern) != [other]:
            fail(f"asking call {i}: the retry shows in the logs of {served_by(asking, before, pattern)}, not [{other}]")
            continue
        retried_at[other] += 1
        completed += 1
        # The same retry again at the instance that completed it: a state resumes one call.
        status, again = migrate(direct[other], "/mcp", 700 + i, first["result"])
        error = again.get("error") or {}
        if error.get("code") == -32602 and "already used" in error.get("message", ""):
            replays_refused += 1
        else:
            fail(f"asking call {i}: the same retry again at instance {other + 4} was not refused as used: HTTP {status} {json.dumps(again)[:300]}")
    print(
        f"asking: {completed}/{ASKING_CALLS} migrate calls completed on a different instance than the one that "
        f"asked; first rounds (through nginx) asked by instances 4/5/6: {asked_by}; retries (straight to the "
        f"next instance's port) completed by 4/5/6: {retried_at}; the same retry sent again to that "
        f"instance refused as already used: {replays_refused}/{completed}",
        flush=True,
    )
    if completed != ASKING_CALLS:
        fail(f"only {completed}/{ASKING_CALLS} calls completed across instances")

    # Both rounds through nginx, each attributed through the logs.
    crossed = through = 0
    for i in range(ASKING_CALLS):
        before = [count(x["log"], pattern) for x in asking]
        status, first = migrate(client, "/asking/mcp", 300 + 2 * i)
        problem = asked_question(first) if status == 200 else f"HTTP {status}"
        if problem:
            fail(f"asking call {i} through nginx, first round: {problem}")
            continue
        asker = served_by(asking, before, pattern)
        before = [count(x["log"], pattern) for x in asking]
        status, second = migrate(client, "/asking/mcp", 301 + 2 * i, first["result"])
        if status != 200 or text_of(second) != MIGRATED:
            fail(f"asking call {i} through nginx, retry: HTTP {status} {json.dumps(second)[:300]}")
            continue
        through += 1
        if served_by(asking, before, pattern) != asker:
            crossed += 1
    print(
        f"asking (both rounds through nginx): {through}/{ASKING_CALLS} completed; {crossed} of them were "
        "retried on another instance than the one that asked (by the logs)",
        flush=True,
    )

    # The negative: another key refuses the state, both ways.
    refused = 0
    for n, state in enumerate(states[:3]):
        status, answer = migrate(Client(f"http://{stranger['addr']}"), "/mcp", 500 + n, state)
        error = answer.get("error") or {}
        if error.get("code") == -32602 and "requestState" in error.get("message", ""):
            refused += 1
        else:
            fail(f"the instance with another key accepted or misanswered a shared-key state: HTTP {status} {json.dumps(answer)[:300]}")
    status, first = migrate(Client(f"http://{stranger['addr']}"), "/mcp", 600)
    problem = asked_question(first) if status == 200 else f"HTTP {status}"
    if problem:
        fail(f"the instance with another key, first round: {problem}")
    else:
        for n in range(len(asking)):
            status, answer = migrate(direct[n], "/mcp", 601 + n, first["result"])
            error = answer.get("error") or {}
            if error.get("code") == -32602 and "requestState" in error.get("message", ""):
                refused += 1
            else:
                fail(f"instance {n + 4} accepted or misanswered the other key's state: HTTP {status} {json.dumps(answer)[:300]}")
    print(
        f"asking (other key): {refused}/{min(3, len(states)) + len(asking)} cross-key retries refused with -32602 "
        "naming requestState",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--instance", action="append", required=True, help="PID:HOST:PORT:LOG")
    parser.add_argument("--asking", action="append", required=True, help="PID:HOST:PORT:LOG")
    parser.add_argument("--stranger", required=True, help="PID:HOST:PORT:LOG")
    args = parser.parse_args()

    def instance(spec: str) -> dict:
        pid, host, port, log = spec.split(":", 3)
        return {"pid": int(pid), "addr": f"{host}:{port}", "log": log}

    instances = [instance(spec) for spec in args.instance]
    asking = [instance(spec) for spec in args.asking]
    stranger = instance(args.stranger)
    client = Client(args.base)
    if len(instances) != 3 or len(asking) != 3:
        parser.error("three --instance and three --asking")
    started = time.monotonic()

    # (c) legacy, all three instances up.
    owners: dict[str, int] = {}
    broken_rr = 0
    for s in range(SESSIONS):
        session = legacy_open(client, "/legacy/mcp")
        before = [count(x["log"], r"tool=echo") for x in instances]
        for i in range(CALLS_PER_SESSION):
            problem = legacy_echo(client, "/legacy/mcp", session, i)
            if problem:
                fail(f"legacy session {s} call {i} through /legacy/mcp: {problem}")
        after = [count(x["log"], r"tool=echo") for x in instances]
        served = [n for n, (b, a) in enumerate(zip(before, after)) if a > b]
        if len(served) != 1:
            fail(f"legacy session {s}: its calls reached instances {served}, not one")
        else:
            owners[session] = served[0]
            if not session.startswith(f"c{served[0] + 1}."):
                fail(f"legacy session {s} ({session[:8]}...) was served by instance {served[0] + 1}, not the one its id names")
        # The same session through the round-robin location: other instances do not know it.
        statuses = []
        for i in range(6):
            problem = legacy_echo(client, "/mcp", session, 1000 + i)
            statuses.append(problem or "ok")
        if any(p == "HTTP 404" for p in statuses):
            broken_rr += 1
        else:
            fail(f"legacy session {s} through round-robin /mcp never got a 404: {statuses}")
    spread = sorted(set(owners.values()))
    print(
        f"legacy: {SESSIONS} sessions x {CALLS_PER_SESSION} calls through /legacy/mcp all answered, "
        f"sessions owned by instances {[n + 1 for n in spread]}; through round-robin /mcp "
        f"{broken_rr}/{SESSIONS} sessions met a 404",
        flush=True,
    )
    # The 404-retry recipe, for setups whose session ids name no instance.
    retried_ok = 0
    for s in range(SESSIONS):
        try:
            session = legacy_open(client, "/legacy-retry/mcp")
        except RuntimeError as e:
            fail(f"legacy session {s} through /legacy-retry/mcp: {e}")
            continue
        before = [count(x["log"], r"tool=echo") for x in instances]
        problems = [p for i in range(5) if (p := legacy_echo(client, "/legacy-retry/mcp", session, 2000 + i))]
        for problem in problems:
            fail(f"legacy session {s} through /legacy-retry/mcp: {problem}")
        if len(served_by(instances, before, r"tool=echo")) != 1:
            fail(f"legacy session {s} through /legacy-retry/mcp: its calls reached several instances")
        elif not problems:
            retried_ok += 1
    print(
        f"legacy: through /legacy-retry/mcp (hash + retry on 404), {retried_ok}/{SESSIONS} sessions' calls all answered",
        flush=True,
    )
    misrouted = 0
    for _ in range(SESSIONS):
        try:
            session = legacy_open(client, "/legacy-hash-only/mcp")
            if legacy_echo(client, "/legacy-hash-only/mcp", session, 1) == "HTTP 404":
                misrouted += 1
        except RuntimeError as e:  # `notifications/initialized` already went elsewhere
            if "HTTP 404" not in str(e):
                raise
            misrouted += 1
    print(
        f"legacy (info): with the session-id hash alone, {misrouted}/{SESSIONS} new sessions' "
        "first call went to an instance that did not open them (404)",
        flush=True,
    )

    # (e) 2024-11-05 HTTP+SSE sessions: the stream opens on any instance, the POSTs find it.
    owners_sse: list[int] = []
    answered_sse = 0
    for s in range(SSE_SESSIONS):
        before = [count(x["log"], r"tool=echo") for x in instances]
        answered, problems, named = sse_session(client, s)
        answered_sse += answered
        for problem in problems:
            fail(f"HTTP+SSE session {s}: {problem}")
        served = served_by(instances, before, r"tool=echo")
        if len(served) == 1:
            owners_sse.append(served[0] + 1)
            if named != f"c{served[0] + 1}":
                fail(f"HTTP+SSE session {s}: served by instance {served[0] + 1}, its id names {named!r}")
        else:
            fail(f"HTTP+SSE session {s}: its calls reached instances {served}, not one")
    print(
        f"HTTP+SSE (2024-11-05): {answered_sse}/{SSE_SESSIONS * SSE_CALLS} echo calls answered on the "
        f"streams of {SSE_SESSIONS} sessions through nginx, owned by instances {owners_sse}",
        flush=True,
    )
    if len(set(owners_sse)) < 2:
        fail(f"every HTTP+SSE session opened on one instance ({owners_sse}): the POSTs never had to find theirs")

    # (d) asking across instances (before (b) kills a calculator instance; unrelated to it).
    asking_across(client, asking, stranger)

    # (a) + (b) modern, one instance killed a third of the way through.
    before = [count(x["log"], r"tools/call .*tool=add") for x in instances]
    victim = instances[1]
    done = 0
    lock = threading.Lock()
    killed_at: list[int] = []
    at_kill: list[list[int]] = []

    def worker(t: int) -> None:
        nonlocal done
        for i in range(t, N, THREADS):
            problem = modern_add(client, i, i, 1000 + i)
            with lock:
                done += 1
                if problem:
                    fail(f"modern call {i} (add {i} {1000 + i}): {problem}")
                if done == N // 3 and not killed_at:
                    at_kill.append([count(x["log"], r"tools/call .*tool=add") - b for x, b in zip(instances, before)])
                    os.kill(victim["pid"], signal.SIGKILL)
                    killed_at.append(done)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    after = [count(x["log"], r"tools/call .*tool=add") - b for x, b in zip(instances, before)]
    ok = N - sum(1 for f in failures if f.startswith("modern"))
    print(
        f"modern: {ok}/{N} tools/call add answered the sum; instance 2 (pid {victim['pid']}) "
        f"killed after {killed_at[0] if killed_at else '?'} answers",
        flush=True,
    )
    for n, x in enumerate(instances):
        print(
            f"  instance {n + 1} ({x['addr']}): {after[n]} calls"
            f" ({at_kill[0][n] if at_kill else '?'} before the kill)",
            flush=True,
        )
    if at_kill and any(c == 0 for c in at_kill[0]):
        fail(f"round robin did not reach every instance before the kill: {at_kill[0]}")
    if sum(after) < N:
        fail(f"the logs show {sum(after)} calls, fewer than the {N} sent")
    if not at_kill:
        fail("the instance was never killed")
    elif after[0] <= at_kill[0][0] or after[2] <= at_kill[0][2]:
        fail("a surviving instance served nothing after the kill")

    print(f"scale-out: {time.monotonic() - started:.1f}s", flush=True)
    if failures:
        print(f"scale-out: {len(failures)} failure(s):", *(f"  - {f}" for f in failures), sep="\n", file=sys.stderr)
        return 1
    print("scale-out: all checks held", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

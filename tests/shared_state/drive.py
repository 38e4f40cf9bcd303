"""Drives three long_task instances sharing one Redis, behind nginx (started by run.sh).

    python drive.py --base http://127.0.0.1:PORT --instance PID:ADDR:LOG (x3) \
        --redis PIDFILE:CMDFILE:LOG

Raw HTTP with the standard library, as tests/scale_out/drive.py: each check chooses the
instance a request reaches (A, B, C straight to their ports; nginx's round-robin /mcp).
Every request has a socket timeout: a request that hangs fails the run.

(1) a task created on A (`migrate` declared with the tasks extension) is polled on B until it
    waits for input, answered on C (`tasks/update`), and polled on B until `completed`, with
    the tool's result; the same through nginx (every request to whichever instance is next).
(R) what the store costs, from Redis's own command counts (INFO commandstats): 50 stateless
    `resources/read` calls through nginx send Redis nothing; a `tasks/get` on B for a task
    that ended on A sends exactly HGET and GET (one pipelined round trip).
(2) a task created on A is seen `working` on B and cancelled through C: A's log shows the
    handler saw the cancellation, and B reports `cancelled`.
(3) a `requestState` used on A (the retry completes there) is refused on B with -32602.
(4) a client listening on A (`subscriptions/listen` for `migration://progress`) gets the
    `notifications/resources/updated` that a call on B announces.
(5) Redis is killed (SIGKILL) while a task runs on A: `tasks/get` on B answers -32031, a retry
    carrying a `requestState` answers -32031, A still answers for its own task, and calls that
    need no store are served (a call that would have become a task is answered in place).
    Redis is started again (its append-only file kept what it acknowledged): every instance
    subscribes again by itself (its log says so), B reads A's task, C cancels it, and A sees
    it; requestStates are recorded again.
(L) with --load N (run.sh passes SHARED_STATE_LOAD): N calls through nginx over 256 keep-alive
    connections, stateless calls and tasks mixed (load.py): nothing lost, memory flat, and no
    instance dropped an announcement for want of Redis keeping up.
(7) a 2025-11-25 client opens a legacy session through nginx (/legacy/mcp: routed by the
    session id's instance name, with a fixed backup per instance), subscribes to
    `migration://progress`, runs a long `migrate` with a progress token and reads part of its
    POST's event stream and of its GET stream; once Redis holds what the client missed of
    both, the session's instance ("A" from here on) is killed (SIGKILL). The client resumes
    each stream with `Last-Event-ID` through nginx, reaching A's backup ("B"): the call's stream
    replays the progress the client missed (each once, in order, exactly what Redis kept) and
    ends with the -32603 error saying the call is lost; the GET stream replays its updates,
    then goes on on B (ids of B's own) with B's next update; later requests of the session
    are served by B, which alone took the session over.
(6) a task runs on A and A is killed (SIGKILL, together with (7)): B reports it `failed` once
    the lease (1.5 s, MCP_TASK_LEASE_MS) runs out, saying why.
Exits 1 with the reasons on any failure.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time

MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
STORE_UNAVAILABLE = -32031
PROGRESS = "migration://progress"
# The longest any wait for an event may take before the run fails (never reached when all
# works: each wait ends at its event).
PATIENCE = 60.0

failures: list[str] = []


def fail(what: str) -> None:
    failures.append(what)
    print(f"FAIL {what}", flush=True)


def check(ok: bool, what: str) -> bool:
    print(f"{'ok  ' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        failures.append(what)
    return ok


def post(addr: str, body: dict, headers: dict[str, str], timeout: float = 30) -> tuple[int, str]:
    host, port = addr.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request(
            "POST",
            "/mcp",
            body=json.dumps(body),
            headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
        )
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def message_of(text: str) -> dict:
    """The JSON-RPC message of a JSON body or of an SSE body's last `data:` line."""
    if text.lstrip().startswith("{"):
        return json.loads(text)
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])


ids = iter(range(1, 1 << 30))


def capabilities(tasks: bool) -> dict:
    caps: dict = {"elicitation": {}}
    if tasks:
        caps["extensions"] = {TASKS: {}}
    return caps


def request(addr: str, method: str, params: dict, name: str | None = None, tasks: bool = True) -> dict:
    """One 2026-07-28 request to `addr` (an instance's host:port, or nginx's); its answer."""
    params = dict(params)
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities(tasks),
    }
    body = {"jsonrpc": "2.0", "id": next(ids), "method": method, "params": params}
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    status, text = post(addr, body, headers)
    if status != 200 and not text.lstrip().startswith("{"):
        return {"error": {"code": f"HTTP {status}", "message": text[:200]}}
    return message_of(text)


def migrate(addr: str, steps: int, step_ms: int, tasks: bool = True, retry_of: dict | None = None) -> dict:
    params: dict = {"name": "migrate", "arguments": {"steps": steps, "step_ms": step_ms}}
    if retry_of is not None:
        params["inputResponses"] = accept(retry_of.get("inputRequests", {}))
        params["requestState"] = retry_of.get("requestState")
    return request(addr, "tools/call", params, name="migrate", tasks=tasks)


def accept(questions: dict) -> dict:
    return {key: {"action": "accept", "content": {"drop_old_tables": True}} for key in questions}


def task_request(addr: str, method: str, task_id: str, **extra) -> dict:
    return request(addr, method, {"taskId": task_id, **extra}, name=task_id)


def created_task(message: dict) -> str | None:
    result = message.get("result") or {}
    if result.get("resultType") == "task" and result.get("taskId"):
        return result["taskId"]
    fail(f"expected a CreateTaskResult, got {json.dumps(message)[:300]}")
    return None


def poll(addr: str | list[str], task_id: str, until: set[str]) -> dict:
    """`tasks/get` (round the instances in `addr`) at the poll interval the task names, until
    its status is one of `until`; the last task read."""
    addrs = [addr] if isinstance(addr, str) else addr
    deadline = time.monotonic() + PATIENCE
    n = 0
    while True:
        message = task_request(addrs[n % len(addrs)], "tasks/get", task_id)
        n += 1
        task = message.get("result") or {}
        if task.get("status") in until:
            return task
        if "error" in message and message["error"].get("code") != STORE_UNAVAILABLE:
            fail(f"tasks/get {task_id}: {json.dumps(message)[:300]}")
            return task
        if time.monotonic() > deadline:
            fail(f"task {task_id} never reached {sorted(until)}: last {json.dumps(message)[:300]}")
            return task
        time.sleep(max(task.get("pollIntervalMs", 100), 50) / 1000)


def count(log: str, pattern: str) -> int:
    with open(log, encoding="utf-8", errors="replace") as f:
        return len(re.findall(pattern, f.read()))


def wait_for_count(log: str, pattern: str, more_than: int, what: str) -> bool:
    """Waits until `log` has more than `more_than` lines matching `pattern`."""
    deadline = time.monotonic() + PATIENCE
    while count(log, pattern) <= more_than:
        if time.monotonic() > deadline:
            fail(f"{what}: `{pattern}` never appeared in {log}")
            return False
        time.sleep(0.05)
    return True


def error_code(message: dict):
    return (message.get("error") or {}).get("code")


def text_of(result: dict) -> str:
    return "".join(block.get("text", "") for block in result.get("content", []))


CANCELLED = r"migrate: cancelled after"


def tasks_across(a: dict, b: dict, c: dict, base: str, redis_port: int) -> None:
    print("(1) a task created on A, polled on B, answered on C", flush=True)
    task_id = first_task = created_task(migrate(a["addr"], steps=2, step_ms=20))
    if task_id:
        waiting = poll(b["addr"], task_id, {"input_required", "completed", "failed", "cancelled"})
        check(waiting.get("status") == "input_required", f"B sees A's task wait for input ({waiting.get('status')})")
        questions = waiting.get("inputRequests") or {}
        check(len(questions) == 1, f"B shows the one question ({list(questions)})")
        ack = task_request(c["addr"], "tasks/update", task_id, inputResponses=accept(questions))
        check("result" in ack, f"C takes the answer ({json.dumps(ack)[:200]})")
        done = poll(b["addr"], task_id, {"completed", "failed", "cancelled"})
        check(
            done.get("status") == "completed"
            and text_of(done.get("result") or {}) == "migrated: copied 2 parts and dropped the old tables",
            f"B reads the task completed with the tool's result ({json.dumps(done)[:300]})",
        )

    print("(1') the same through nginx's round robin", flush=True)
    task_id = created_task(migrate(base, steps=2, step_ms=20))
    if task_id:
        waiting = poll(base, task_id, {"input_required", "completed", "failed", "cancelled"})
        ack = task_request(base, "tasks/update", task_id, inputResponses=accept(waiting.get("inputRequests") or {}))
        check("result" in ack, "tasks/update through nginx")
        done = poll(base, task_id, {"completed", "failed", "cancelled"})
        check(done.get("status") == "completed", f"the task completes through nginx ({done.get('status')})")

    store_costs(base, b, redis_port, first_task)

    print("(2) a task created on A is cancelled through C", flush=True)
    before = count(a["log"], CANCELLED)
    task_id = created_task(migrate(a["addr"], steps=1000, step_ms=50))
    if task_id:
        working = task_request(b["addr"], "tasks/get", task_id).get("result") or {}
        check(working.get("status") == "working", f"B sees it working ({working.get('status')})")
        ack = task_request(c["addr"], "tasks/cancel", task_id)
        check("result" in ack, f"C cancels it ({json.dumps(ack)[:200]})")
        if wait_for_count(a["log"], CANCELLED, before, "the handler on A sees the cancellation"):
            check(True, "the handler on A saw the cancellation")
        gone = task_request(b["addr"], "tasks/get", task_id).get("result") or {}
        check(gone.get("status") == "cancelled", f"B reports it cancelled ({gone.get('status')})")


def redis_commands(port: int) -> dict[str, int]:
    """Calls per command so far, from `INFO commandstats` (RESP over a plain socket)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n")
        data = b""
        while True:
            data += s.recv(65536)
            head, _, rest = data.partition(b"\r\n")
            if head.startswith(b"$") and len(rest) >= int(head[1:]):
                break
    counts = {}
    for name, calls in re.findall(r"cmdstat_([a-z|]+):calls=(\d+)", data.decode()):
        counts[name] = int(calls)
    return counts


def commands_between(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    sent = {name: after[name] - before.get(name, 0) for name in after}
    return {name: n for name, n in sent.items() if n and name != "info"}


def store_costs(base: str, b: dict, redis_port: int, ended_task: str | None) -> None:
    print("(R) what the store costs per request", flush=True)
    before = redis_commands(redis_port)
    for _ in range(50):
        answer = request(base, "resources/read", {"uri": PROGRESS}, name=PROGRESS)
        if not (answer.get("result") or {}).get("contents"):
            fail(f"resources/read: {json.dumps(answer)[:200]}")
            return
    sent = commands_between(before, redis_commands(redis_port))
    check(not sent, f"50 stateless calls send Redis nothing ({sent})")
    if ended_task is None:
        return
    before = redis_commands(redis_port)
    got = task_request(b["addr"], "tasks/get", ended_task).get("result") or {}
    sent = commands_between(before, redis_commands(redis_port))
    check(
        got.get("status") == "completed" and sent == {"hget": 1, "get": 1},
        f"a tasks/get on another instance sends one HGET and one GET, pipelined ({sent})",
    )


def replay_across(a: dict, b: dict) -> None:
    print("(3) a requestState used on A is refused on B", flush=True)
    asked = migrate(a["addr"], steps=1, step_ms=1, tasks=False)
    result = asked.get("result") or {}
    if not check(result.get("resultType") == "input_required", "A asks before dropping the tables"):
        return
    done = migrate(a["addr"], steps=1, step_ms=1, tasks=False, retry_of=result)
    check(
        text_of(done.get("result") or {}) == "migrated: copied 1 parts and dropped the old tables",
        f"the retry completes on A ({json.dumps(done)[:200]})",
    )
    again = migrate(b["addr"], steps=1, step_ms=1, tasks=False, retry_of=result)
    check(
        error_code(again) == -32602 and "already used" in (again.get("error") or {}).get("message", ""),
        f"B refuses the used state with -32602 ({json.dumps(again)[:200]})",
    )


def listen(addr: str, uri: str, into: queue.Queue) -> None:
    """Opens a `subscriptions/listen` stream on `addr` and puts each message it carries."""
    host, port = addr.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=PATIENCE)
    body = {
        "jsonrpc": "2.0",
        "id": "listen",
        "method": "subscriptions/listen",
        "params": {
            "notifications": {"resourceSubscriptions": [uri]},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "subscriptions/listen",
    }
    try:
        conn.request("POST", "/mcp", body=json.dumps(body), headers=headers)
        response = conn.getresponse()
        while True:
            line = response.readline()
            if not line:
                break
            line = line.decode().strip()
            if line.startswith("data:"):
                into.put(json.loads(line[5:]))
    except Exception as e:  # noqa: BLE001
        into.put({"stream error": str(e)})
    finally:
        conn.close()


def next_message(messages: queue.Queue, what: str, wanted) -> dict | None:
    deadline = time.monotonic() + PATIENCE
    while True:
        left = deadline - time.monotonic()
        try:
            message = messages.get(timeout=max(left, 0.01))
        except queue.Empty:
            fail(f"{what}: nothing arrived")
            return None
        if "stream error" in message:
            fail(f"{what}: {message}")
            return None
        if wanted(message):
            return message


def notifications_across(a: dict, b: dict) -> None:
    print("(4) a resource update on B reaches a client listening on A", flush=True)
    messages: queue.Queue = queue.Queue()
    threading.Thread(target=listen, args=(a["addr"], PROGRESS, messages), daemon=True).start()
    # The stream is open once its acknowledgement arrives.
    if next_message(messages, "the listen acknowledgement", lambda m: True) is None:
        return
    migrate(b["addr"], steps=1, step_ms=1, tasks=False)
    updated = next_message(
        messages,
        "the update announced on B",
        lambda m: m.get("method") == "notifications/resources/updated",
    )
    if updated is not None:
        check(updated["params"].get("uri") == PROGRESS, f"A's listener got B's update ({json.dumps(updated)[:200]})")


LISTENING = r"listening on Redis"


def redis_down_and_back(a: dict, b: dict, c: dict, redis: dict, instances: list[dict]) -> None:
    print("(5) Redis restarted mid-run", flush=True)
    task_id = created_task(migrate(a["addr"], steps=1000, step_ms=50))
    if not task_id:
        return
    check((task_request(b["addr"], "tasks/get", task_id).get("result") or {}).get("status") == "working", "B sees A's task")
    asked = (migrate(c["addr"], steps=1, step_ms=1, tasks=False).get("result")) or {}
    listening = [count(x["log"], LISTENING) for x in instances]

    with open(redis["pidfile"]) as f:
        os.kill(int(f.read().strip()), signal.SIGKILL)
    print("     redis-server killed", flush=True)

    # B's answer depends on the store: it gets the documented error, never a hang (every
    # request has a socket timeout, and the store's operations have their own).
    down = task_request(b["addr"], "tasks/get", task_id)
    check(error_code(down) == STORE_UNAVAILABLE, f"B answers tasks/get with -32031 ({json.dumps(down)[:240]})")
    own = task_request(a["addr"], "tasks/get", task_id).get("result") or {}
    check(own.get("status") == "working", f"A still answers for the task it runs ({own.get('status')})")
    retry = migrate(c["addr"], steps=1, step_ms=1, tasks=False, retry_of=asked)
    check(error_code(retry) == STORE_UNAVAILABLE, f"a retry with a requestState gets -32031 ({json.dumps(retry)[:240]})")
    fresh = (migrate(b["addr"], steps=1, step_ms=1, tasks=False).get("result")) or {}
    check(fresh.get("resultType") == "input_required", "a call that needs no store is served")
    in_place = (migrate(b["addr"], steps=1, step_ms=1).get("result")) or {}
    check(
        in_place.get("resultType") == "input_required",
        f"a call that would become a task is answered in place ({json.dumps(in_place)[:200]})",
    )
    for n in range(20):
        through = (migrate(instances[n % 3]["addr"], steps=1, step_ms=1, tasks=False).get("result")) or {}
        if through.get("resultType") != "input_required":
            fail(f"a storeless call on instance {n % 3} while Redis is down: {json.dumps(through)[:200]}")
            break

    with open(redis["cmdfile"]) as f:
        cmd = [line for line in f.read().splitlines() if line]
    log = open(redis["log"], "w")
    restarted = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    with open(redis["pidfile"], "w") as f:
        f.write(str(restarted.pid))
    print("     redis-server started again", flush=True)
    for x, before in zip(instances, listening):
        wait_for_count(x["log"], LISTENING, before, "an instance subscribes again after the restart")
    check(True, "every instance subscribed again by itself")

    # A writes its task again at its next renewal (at most a third of the lease away).
    back = poll(b["addr"], task_id, {"working", "cancelled", "failed", "completed"})
    check(back.get("status") == "working", f"B reads A's task again ({back.get('status')})")
    before = count(a["log"], CANCELLED)
    ack = task_request(c["addr"], "tasks/cancel", task_id)
    check("result" in ack, f"C cancels it after the restart ({json.dumps(ack)[:200]})")
    wait_for_count(a["log"], CANCELLED, before, "A sees the cancellation after the restart")
    again = (migrate(c["addr"], steps=1, step_ms=1, tasks=False).get("result")) or {}
    done = migrate(a["addr"], steps=1, step_ms=1, tasks=False, retry_of=again)
    check("result" in done and "migrated" in text_of(done["result"]), "requestStates are recorded again")


def instance_dies(a: dict, b: dict, base: str, redis_port: int) -> None:
    print("(6) A (the session's instance of (7)) is killed while its task runs", flush=True)
    # Its steps announce to (7)'s session too: slow enough that the session's event log (256
    # events) keeps what (7) replays for far longer than (7) takes.
    task_id = created_task(migrate(a["addr"], steps=1000, step_ms=200))
    if not task_id:
        return
    check((task_request(b["addr"], "tasks/get", task_id).get("result") or {}).get("status") == "working", "B sees it working")
    session_fails_over(a, b, base, redis_port)
    failed = poll(b["addr"], task_id, {"failed", "completed", "cancelled"})
    check(
        failed.get("status") == "failed" and "lease" in failed.get("statusMessage", ""),
        f"B reports it failed once the lease ran out ({json.dumps(failed)[:300]})",
    )


LEGACY = "2025-11-25"
TOOK_OVER = r"took over a legacy session from the store"
# What an instance logs when announcements wait for Redis beyond its outbox.
OUTBOX_FULL = r"Redis is behind by \d+ announcements"


def tuple_of(addr: str) -> tuple[str, int]:
    host, port = addr.rsplit(":", 1)
    return host, int(port)


def redis_call(port: int, *args: str):
    """One Redis command over a plain socket (RESP); its reply (bulk strings decoded)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        command = f"*{len(args)}\r\n" + "".join(f"${len(a.encode())}\r\n{a}\r\n" for a in args)
        s.sendall(command.encode())
        reader = s.makefile("rb")

        def parse():
            line = reader.readline().rstrip(b"\r\n")
            kind, rest = line[:1], line[1:]
            if kind in (b"+", b"-"):
                return rest.decode()
            if kind == b":":
                return int(rest)
            if kind == b"$":
                n = int(rest)
                if n < 0:
                    return None
                data = reader.read(n + 2)[:-2]
                return data.decode()
            if kind == b"*":
                n = int(rest)
                return None if n < 0 else [parse() for _ in range(n)]
            raise ValueError(f"unexpected RESP reply {line!r}")

        return parse()


def stored_after(redis_port: int, session: str, last_id: str) -> list[str]:
    """The frames Redis holds of the stream of event `last_id` after it (RedisStore's keys)."""
    stream, after = last_id.rsplit("-", 1)
    entries = redis_call(redis_port, "LRANGE", f"mcp:session:{session}:stream:{stream}", "0", "-1") or []
    frames = []
    for entry in entries:
        number, frame = entry.split(" ", 1)
        if int(number) > int(after):
            frames.append(frame)
    return frames


def wait_stored(redis_port: int, session: str, last_id: str, count: int, what: str) -> bool:
    deadline = time.monotonic() + PATIENCE
    while len(stored_after(redis_port, session, last_id)) < count:
        if time.monotonic() > deadline:
            fail(f"{what}: Redis never held {count} events after {last_id}")
            return False
        time.sleep(0.05)
    return True


def legacy_headers(session: str | None, extra: dict | None = None) -> dict:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": LEGACY,
    }
    if session:
        headers["Mcp-Session-Id"] = session
    headers.update(extra or {})
    return headers


def legacy_post(base: str, session: str | None, body: dict) -> tuple[int, dict, str]:
    """A legacy POST through nginx's /legacy/mcp: status, headers, body."""
    host, port = base.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=PATIENCE)
    try:
        conn.request("POST", "/legacy/mcp", body=json.dumps(body), headers=legacy_headers(session))
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        conn.close()


def sse_events(response):
    """(id, message) per event of an event stream (priming events: message None), until it
    ends; comments skipped."""
    event_id, data = None, []
    while True:
        line = response.readline()
        if not line:
            return
        line = line.decode().rstrip("\r\n")
        if line == "":
            if event_id is not None or data:
                text = "".join(data).strip()
                yield event_id, (json.loads(text) if text else None)
            event_id, data = None, []
        elif line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:])


def open_stream(base: str, method: str, session: str, body: dict | None = None, last: str | None = None):
    host, port = base.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=PATIENCE)
    extra = {"Last-Event-ID": last} if last else {}
    conn.request(method, "/legacy/mcp", body=json.dumps(body) if body else None, headers=legacy_headers(session, extra))
    return conn, conn.getresponse()


def read_until(events, wanted, what: str) -> list:
    """Events until `wanted(events so far)` holds; [] (and a failure) if the stream ends first."""
    got = []
    for event in events:
        got.append(event)
        if wanted(got):
            return got
    fail(f"{what}: the stream ended after {got}")
    return []


def session_fails_over(a: dict, b: dict, base: str, redis_port: int) -> None:
    """(7): see the module's docstring. `a` must own the session: the caller passes the
    instance the session landed on (drive.py picks it from the session id) and its backup."""
    session = a["session"]
    progress_of = lambda event: ((event[1] or {}).get("params") or {}).get("progress")  # noqa: E731

    call = {"jsonrpc": "2.0", "id": 70, "method": "tools/call",
            "params": {"name": "migrate", "arguments": {"steps": 1000, "step_ms": 200}, "_meta": {"progressToken": "p7"}}}
    post_conn, post = open_stream(base, "POST", session, call)
    check(post.status == 200 and "text/event-stream" in (post.getheader("Content-Type") or ""),
          f"the call answers with an event stream ({post.status})")
    seen_post = read_until(sse_events(post), lambda got: sum(1 for e in got if progress_of(e)) >= 3, "the call's progress")
    post_conn.close()
    get_conn, get = open_stream(base, "GET", session)
    seen_get = read_until(
        sse_events(get),
        lambda got: sum(1 for e in got if (e[1] or {}).get("method") == "notifications/resources/updated") >= 2,
        "the GET stream's updates",
    )
    get_conn.close()
    if not (seen_post and seen_get):
        return
    last_post, last_get = seen_post[-1][0], seen_get[-1][0]
    last_progress = progress_of(seen_post[-1])
    # A goes on sending both streams' events, which nobody reads now: once Redis holds three
    # of each after what the client has, A dies.
    wait_stored(redis_port, session, last_post, 3, "the call's missed progress")
    wait_stored(redis_port, session, last_get, 3, "the GET stream's missed updates")
    took_over = [count(x["log"], TOOK_OVER) for x in (a, b)]
    os.kill(a["pid"], signal.SIGKILL)
    print(f"     instance {a['name']} (the session's) killed", flush=True)
    # Gone once its port refuses connections.
    deadline = time.monotonic() + PATIENCE
    while True:
        try:
            socket.create_connection(tuple_of(a["addr"]), timeout=1).close()
        except OSError:
            break
        if time.monotonic() > deadline:
            fail("the killed instance still accepts connections")
            return
        time.sleep(0.05)
    stored_post = stored_after(redis_port, session, last_post)
    stored_get = stored_after(redis_port, session, last_get)

    conn, resumed = open_stream(base, "GET", session, last=last_post)
    check(resumed.status == 200, f"the call's stream resumes through nginx ({resumed.status})")
    replayed = list(sse_events(resumed)) if resumed.status == 200 else []
    conn.close()
    progress = [progress_of(e) for e in replayed if progress_of(e) is not None]
    expected = [last_progress + n for n in range(1, len(progress) + 1)]
    check(
        progress == expected and len(progress) == len(stored_post) >= 3,
        f"the progress the client missed, each once and in order, as Redis kept it ({progress[:3]}..{progress[-2:]}, {len(stored_post)} stored)",
    )
    answer = replayed[-1][1] if replayed else {}
    check(
        answer.get("id") == 70 and (answer.get("error") or {}).get("code") == -32603 and "lost" in answer["error"].get("message", ""),
        f"the stream ends with the error saying the call is lost ({json.dumps(answer)[:240]})",
    )

    conn, resumed = open_stream(base, "GET", session, last=last_get)
    check(resumed.status == 200, f"the GET stream resumes through nginx ({resumed.status})")
    events = sse_events(resumed)
    a_tag = last_get.split("-")[0]
    got = read_until(events, lambda got: got[-1][0] is not None and not got[-1][0].startswith(a_tag + "-"), "B's own GET stream")
    ids = [event_id for event_id, _ in got[:-1]]
    stored_ids = [re.match(r"id: (\S+)", frame).group(1) for frame in stored_get]
    check(ids == stored_ids and len(ids) >= 3, f"the updates the client missed, each once and in order ({len(ids)} replayed, {len(stored_ids)} stored)")
    check(all(m and m.get("method") == "notifications/resources/updated" for _, m in got[:-1]), "they are the updates")
    # A call on B (the session's next request, routed to A's backup) announces an update that
    # reaches the GET stream now on B.
    done = {}

    def call_on_b():
        done["answer"] = legacy_post(base, session, {"jsonrpc": "2.0", "id": 71, "method": "tools/call",
                                                    "params": {"name": "migrate", "arguments": {"steps": 1, "step_ms": 1}}})

    caller = threading.Thread(target=call_on_b, daemon=True)
    caller.start()
    b_tag = got[-1][0].split("-")[0]
    update = read_until(events, lambda got: (got[-1][1] or {}).get("method") == "notifications/resources/updated", "an update from B")
    conn.close()
    caller.join(PATIENCE)
    check(bool(update) and update[-1][0].startswith(b_tag + "-") and b_tag != a_tag,
          f"B's update arrives on the GET stream with an id of B's own ({update[-1][0] if update else None})")
    status, _, text = done.get("answer", (0, {}, ""))
    check(status == 200 and "result" in message_of(text), f"the session's call is served after the failover ({status} {text[:160]})")
    status, _, text = legacy_post(base, session, {"jsonrpc": "2.0", "id": 72, "method": "resources/read", "params": {"uri": PROGRESS}})
    check(status == 200 and (message_of(text).get("result") or {}).get("contents"), f"later requests work ({status})")
    check(count(b["log"], TOOK_OVER) == took_over[1] + 1, "B took the session over from Redis, once")


def open_legacy_session(base: str) -> str | None:
    """initialize + initialized + subscribe, through nginx's /legacy/mcp; the session id."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "drive.py", "version": "1"}}}
    status, headers, text = legacy_post(base, None, init)
    session = {k.lower(): v for k, v in headers.items()}.get("mcp-session-id")
    if not check(status == 200 and session is not None, f"a legacy session opens through nginx ({status})"):
        return None
    legacy_post(base, session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    status, _, text = legacy_post(base, session, {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": PROGRESS}})
    check(status == 200 and "result" in message_of(text), f"it subscribes to {PROGRESS} ({text[:160]})")
    return session


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--instance", action="append", required=True)
    parser.add_argument("--redis", required=True)
    parser.add_argument("--load", type=int, default=0)
    args = parser.parse_args()
    base = args.base.removeprefix("http://")
    instances = []
    for spec in args.instance:
        pid, host, port, log = spec.split(":", 3)
        instances.append({"pid": int(pid), "addr": f"{host}:{port}", "log": log, "name": f"s{len(instances) + 1}"})
    pidfile, cmdfile, log = args.redis.split(":", 2)
    redis = {"pidfile": pidfile, "cmdfile": cmdfile, "log": log}
    a, b, c = instances

    with open(cmdfile) as f:
        redis_args = f.read().splitlines()
    redis_port = int(redis_args[redis_args.index("--port") + 1])
    tasks_across(a, b, c, base, redis_port)
    replay_across(a, b)
    notifications_across(a, b)
    redis_down_and_back(a, b, c, redis, instances)
    if args.load:
        print(f"(L) {args.load} calls through nginx with the stores on", flush=True)
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import load

        dropped = [count(x["log"], OUTBOX_FULL) for x in instances]
        for problem in load.run(base, [x["pid"] for x in instances], args.load, 256):
            fail(f"load: {problem}")
        # Every step of every migrate announces that the progress changed, a few thousand a
        # second; an instance that published them one round trip each fell behind, dropped
        # some, and sent the rest long after they happened (they flooded (7)'s session).
        check(
            all(count(x["log"], OUTBOX_FULL) == before for x, before in zip(instances, dropped)),
            "every instance kept up with its announcements under the load (none dropped)",
        )
    print("(7) a legacy session outlives its instance", flush=True)
    session = open_legacy_session(base)
    if session is not None:
        # The session's instance is the one its id names; nginx's backup for it is the next.
        owner = int(session.split(".", 1)[0].removeprefix("s")) - 1
        a, b = instances[owner], instances[(owner + 1) % 3]
        a["session"] = session
        print(f"     the session landed on {a['name']}; its backup is {b['name']}", flush=True)
        instance_dies(a, b, base, redis_port)

    if failures:
        print(f"shared-state: {len(failures)} failure(s)", flush=True)
        return 1
    print("shared-state: all checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

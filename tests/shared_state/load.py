"""The load run of tests/shared_state: CALLS requests through nginx over CONNECTIONS keep-alive
connections, a mix of stateless calls and tasks, with the Redis stores on.

Stateless: `resources/read migration://progress` and the first round of `tools/call migrate`
(which asks, touching no store). Tasks: every TASK_EVERY-th turn of a connection is a whole
task's life, each
step through nginx's round robin (so on whichever instance is next): `tools/call migrate`
(becomes a task, and waits for input), `tasks/get` until `input_required`, `tasks/update` with
the answer, `tasks/get` until `completed`. Each request of a task counts as one of the calls.

Nothing may be lost: every request must get its answer (a result of the expected kind), and
every task must complete with the tool's result. Memory: the resident size of each instance is
read after the first half and at the end; it is reported, and growing by more than
MEMORY_SLACK_KIB over the second half fails the run: the first half warms the allocator and
the pools up, and an ended task leaves the instance's memory once its end is in Redis. (Seen:
-0.6 to +1.5 MiB over a second half of 50,000 or of 150,000 calls, so not growing with the
calls; 4 MiB over the ~17,000 calls one instance serves in a half catches a leak of about
250 bytes a call.)

Standard library only (asyncio streams, HTTP/1.1 with Content-Length or chunked bodies).
"""

from __future__ import annotations

import asyncio
import json
import time

MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
TASK_EVERY = 10
MEMORY_SLACK_KIB = 4 * 1024


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Connection:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def post(self, body: dict, headers: dict[str, str]) -> dict:
        if self.writer is None:
            await self.open()
        data = json.dumps(body).encode()
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
            + f"Content-Length: {len(data)}\r\n\r\n"
        ).encode()
        self.writer.write(head + data)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("connection closed before the response")
        status = int(status_line.split()[1])
        length, chunked, close = None, False, False
        while True:
            line = (await self.reader.readline()).decode().strip()
            if not line:
                break
            name, _, value = line.partition(":")
            name, value = name.lower(), value.strip()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
            elif name == "connection" and value.lower() == "close":
                close = True
        if chunked:
            parts = []
            while True:
                size = int((await self.reader.readline()).split(b";")[0], 16)
                if size == 0:
                    await self.reader.readline()
                    break
                parts.append(await self.reader.readexactly(size))
                await self.reader.readline()
            text = b"".join(parts).decode()
        else:
            text = (await self.reader.readexactly(length or 0)).decode()
        if close:
            self.writer.close()
            self.writer = None
        if text.lstrip().startswith("{"):
            return json.loads(text)
        data_lines = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        if not data_lines:
            return {"error": {"code": f"HTTP {status}", "message": text[:200]}}
        return json.loads(data_lines[-1])


class Load:
    def __init__(self, base: str) -> None:
        host, port = base.rsplit(":", 1)
        self.host, self.port = host, int(port)
        self.ids = 0
        self.problems: list[str] = []
        self.calls = 0
        self.tasks_completed = 0

    def request(self, method: str, params: dict, tasks: bool, name: str | None) -> tuple[dict, dict]:
        self.ids += 1
        caps: dict = {"elicitation": {}}
        if tasks:
            caps["extensions"] = {TASKS: {}}
        params = {
            **params,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": caps,
            },
        }
        headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
        if name is not None:
            headers["Mcp-Name"] = name
        return {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params}, headers

    async def call(self, conn: Connection, method: str, params: dict, tasks: bool = False, name: str | None = None) -> dict:
        body, headers = self.request(method, params, tasks, name)
        self.calls += 1
        try:
            return await conn.post(body, headers)
        except Exception as e:  # noqa: BLE001
            conn.writer = None
            return {"error": {"code": "transport", "message": f"{type(e).__name__}: {e}"}}

    def problem(self, what: str) -> None:
        if len(self.problems) < 20:
            print(f"FAIL load: {what}", flush=True)
        self.problems.append(what)

    async def stateless(self, conn: Connection, n: int) -> None:
        if n % 2:
            answer = await self.call(conn, "resources/read", {"uri": "migration://progress"}, name="migration://progress")
            if not (answer.get("result") or {}).get("contents"):
                self.problem(f"resources/read: {json.dumps(answer)[:200]}")
        else:
            migrate = {"name": "migrate", "arguments": {"steps": 1, "step_ms": 0}}
            answer = await self.call(conn, "tools/call", migrate, name="migrate")
            if (answer.get("result") or {}).get("resultType") != "input_required":
                self.problem(f"tools/call migrate: {json.dumps(answer)[:200]}")

    async def task(self, conn: Connection) -> None:
        migrate = {"name": "migrate", "arguments": {"steps": 1, "step_ms": 1}}
        created = (await self.call(conn, "tools/call", migrate, tasks=True, name="migrate")).get("result") or {}
        task_id = created.get("taskId")
        if created.get("resultType") != "task" or not task_id:
            self.problem(f"not a task: {json.dumps(created)[:200]}")
            return
        task = await self.until(conn, task_id, {"input_required"})
        if task is None:
            return
        answers = {k: {"action": "accept", "content": {"drop_old_tables": True}} for k in task.get("inputRequests", {})}
        ack = await self.call(conn, "tasks/update", {"taskId": task_id, "inputResponses": answers}, tasks=True, name=task_id)
        if "result" not in ack:
            self.problem(f"tasks/update: {json.dumps(ack)[:200]}")
            return
        done = await self.until(conn, task_id, {"completed"})
        if done is not None:
            texts = "".join(b.get("text", "") for b in (done.get("result") or {}).get("content", []))
            if texts != "migrated: copied 1 parts and dropped the old tables":
                self.problem(f"task result: {json.dumps(done)[:200]}")
            else:
                self.tasks_completed += 1

    async def until(self, conn: Connection, task_id: str, wanted: set[str]) -> dict | None:
        deadline = time.monotonic() + 60
        while True:
            answer = await self.call(conn, "tasks/get", {"taskId": task_id}, tasks=True, name=task_id)
            task = answer.get("result") or {}
            status = task.get("status")
            if status in wanted:
                return task
            if "error" in answer or status in {"failed", "cancelled", "completed"} or time.monotonic() > deadline:
                self.problem(f"task {task_id} waiting for {sorted(wanted)}: {json.dumps(answer)[:200]}")
                return None
            # The poll interval the task names would slow the run to the server's hint;
            # a short pause keeps the polls from spinning while the task moves on.
            await asyncio.sleep(0.005)

    async def worker(self, target: int) -> None:
        conn = Connection(self.host, self.port)
        n = 0
        while self.calls < target:
            n += 1
            if n % TASK_EVERY == 0:
                await self.task(conn)
            else:
                await self.stateless(conn, n)
        if conn.writer is not None:
            conn.writer.close()

    async def run_until(self, target: int, connections: int) -> None:
        """Runs until `target` calls in all were sent (a task under way finishes)."""
        await asyncio.gather(*(self.worker(target) for _ in range(connections)))


def run(base: str, pids: list[int], calls: int, connections: int) -> list[str]:
    """Runs the load; the problems found (empty: nothing lost, memory flat)."""
    load = Load(base)
    problems: list[str] = []
    started = time.monotonic()
    asyncio.run(load.run_until(calls // 2, connections))
    middle = [rss_kib(pid) for pid in pids]
    first_calls = load.calls
    asyncio.run(load.run_until(calls, connections))
    end = [rss_kib(pid) for pid in pids]
    took = time.monotonic() - started
    print(
        f"     load: {load.calls} calls ({first_calls} in the first half) over {connections} "
        f"connections in {took:.1f} s ({load.calls / took:.0f}/s), {load.tasks_completed} tasks "
        f"completed, {len(load.problems)} problem(s)",
        flush=True,
    )
    for pid, (m, e) in zip(pids, zip(middle, end)):
        print(f"     load: instance {pid} resident {m} KiB after the first half, {e} KiB at the end", flush=True)
        if e - m > MEMORY_SLACK_KIB:
            problems.append(f"instance {pid} grew by {e - m} KiB over the second half")
    problems.extend(load.problems[:20])
    if len(load.problems) > 20:
        problems.append(f"... and {len(load.problems) - 20} more")
    return problems

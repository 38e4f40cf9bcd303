"""The Python SDK client (PyPI `mcp`) against a server behind every shipped layer.

    python python/middleware.py --era legacy|modern stdio <layered-server> <audit-log>
    python python/middleware.py --era legacy|modern http <endpoint-url>

Drives `tests/layered_server/server.rs` (see there for its layers) through the SDK's
high-level `mcp.Client`, over a stdio pipe the SDK spawns or over Streamable HTTP with bearer
tokens naming principals. Checks, through the SDK's own types:

* the rate limit (4 calls an hour per caller and tool): the fifth `echo` is a tool error that
  says when to retry; over HTTP another principal is not limited by the first one's calls;
* the timeout (0.5 s for `slow`): a tool error naming the limit, after which `dropped` says the
  handler was dropped with its cancellation token fired;
* the output cap (1000 bytes): `big` is truncated with a note;
* a layer that panics for `trap`: a tool error, and the server keeps serving;
* the cache of read-only, idempotent tools: the same caller gets the cached result, another
  principal its own;
* the concurrency limit (one call of each tool at a time, none waiting): a second `wait` while
  one runs is refused as busy;
* cancelling a running `wait` through the SDK: no result, and the server keeps serving.

The Rust side (`tests/middleware_process.rs`) then reads the audit log line by line. Prints
one `ok`/`FAIL` line per check and exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import version
from typing import Any

import anyio
from mcp import Client, StdioServerParameters, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from report import Report

LEGACY_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
MODERN_VERSION = "2026-07-28"


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


def open_client(era: str, transport: list[str], principal: str) -> Client:
    mode = "legacy" if era == "legacy" else "auto"
    info = types.Implementation(name="mcp-rs-interop-middleware", version="0.0.0")
    if transport[0] == "stdio":
        server = StdioServerParameters(command=transport[1], args=["--audit-log", transport[2]])
        return Client(server, mode=mode, read_timeout_seconds=30, client_info=info)
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {principal}"})
    return Client(streamable_http_client(transport[1], http_client=http), mode=mode, read_timeout_seconds=30, client_info=info)


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    result = await client.call_tool(tool, arguments)
    return text_of(result), result.is_error


async def check_layers(report: Report, era: str, transport: list[str]) -> None:
    over = transport[0]
    # Principals of their own per era: the limits of one run must not spill into the next.
    alice, bob = f"alice-{era}", f"bob-{era}"
    async with open_client(era, transport, alice) as client:
        wanted = LEGACY_VERSIONS if era == "legacy" else [MODERN_VERSION]
        report.check(client.protocol_version in wanted, f"{over}: negotiated {client.protocol_version} ({era})", wanted)

        for n in range(1, 5):
            report.equal(f"{over}: echo {n} of 4 passes the rate limit", await call(client, "echo", {"text": f"hi {n}"}), (f"hi {n}", False))
        text, is_error = await call(client, "echo", {"text": "one too many"})
        report.check(
            is_error and "rate limit" in text and "retry in" in text,
            f"{over}: the fifth echo is refused, saying when to retry",
            lambda: f"{text!r} (isError {is_error})",
        )

        text, is_error = await call(client, "slow", {})
        report.check(
            is_error and "did not finish within 0.5 s" in text,
            f"{over}: slow times out with a tool error naming the limit",
            lambda: f"{text!r} (isError {is_error})",
        )
        report.equal(f"{over}: the timed-out handler was dropped, its token fired", await call(client, "dropped", {}), ("1 dropped, 1 cancelled", False))

        text, is_error = await call(client, "big", {"bytes": 5000})
        report.check(
            not is_error and text.startswith("x" * 900) and "truncated" in text and len(text.encode()) < 1200,
            f"{over}: a 5000-byte result is truncated to the 1000-byte cap with a note",
            lambda: f"{len(text)} chars, ends {text[-120:]!r}",
        )

        text, is_error = await call(client, "trap", {})
        report.check(
            is_error and "failed unexpectedly" in text and "unreachable" not in text,
            f"{over}: a panicking layer is answered as a tool error",
            lambda: f"{text!r} (isError {is_error})",
        )

        first = await call(client, "lookup", {"key": "k"})
        report.equal(f"{over}: lookup runs once", first, ("k#1", False))
        report.equal(f"{over}: the same lookup by the same caller is served from the cache", await call(client, "lookup", {"key": "k"}), ("k#1", False))

        # Cancellation through the SDK: leave the call's scope once its progress arrived.
        reached = anyio.Event()
        outcome: list[Any] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            reached.set()

        async def run_wait() -> None:
            try:
                outcome.append(await client.call_tool("wait", {}, progress_callback=on_progress))
            except BaseException as e:  # noqa: BLE001 - the cancellation itself must propagate
                outcome.append(e)
                raise

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                scope = anyio.CancelScope()

                async def cancellable() -> None:
                    with scope:
                        await run_wait()

                tg.start_soon(cancellable)
                await reached.wait()
                # One `wait` at a time, none waiting: a second is refused while the first runs.
                text, is_error = await call(client, "wait", {})
                report.check(
                    is_error and "busy" in text and "retry later" in text,
                    f"{over}: a second wait while one runs is refused as busy",
                    lambda: f"{text!r} (isError {is_error})",
                )
                scope.cancel()
        report.check(
            scope.cancelled_caught and not any(isinstance(o, types.CallToolResult) for o in outcome),
            f"{over}: a cancelled wait ends with no result",
            lambda: repr(outcome),
        )
        # The cancel reaches the server after the client moved on: wait for the handler to go.
        with anyio.fail_after(30):
            while (await call(client, "dropped", {}))[0] != "2 dropped, 2 cancelled":
                await anyio.sleep(0.05)
        report.ok(f"{over}: the cancelled handler was dropped, its token fired")

    if over == "http":
        async with open_client(era, transport, bob) as other:
            report.equal(f"{over}: another principal is not limited by the first one's calls", await call(other, "echo", {"text": "bob"}), ("bob", False))
            report.equal(f"{over}: another principal gets a lookup of its own", await call(other, "lookup", {"key": "k"}), ("k#2", False))


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--era", choices=["legacy", "modern"], required=True)
    parser.add_argument("transport", nargs="+")
    args = parser.parse_args()
    report = Report(f"python sdk {version('mcp')} through the middleware layers ({args.era}, {args.transport[0]})")
    try:
        await check_layers(report, args.era, args.transport)
    except Exception as e:  # noqa: BLE001
        report.fail(f"unexpected {type(e).__name__}: {e}")
    return report.finish()


if __name__ == "__main__":
    sys.exit(anyio.run(main))

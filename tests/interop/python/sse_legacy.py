"""The Python SDK (PyPI `mcp`) over the 2024-11-05 HTTP+SSE transport: `mcp.client.sse.sse_client`.

    python python/sse_legacy.py <base-url>     # e.g. http://127.0.0.1:PORT, long_task serving

Connects `mcp.Client(sse_client(<base>/sse), mode="legacy")` to `examples/long_task.rs` served
with `--http`: the SDK opens the GET stream, takes the `endpoint` event, POSTs `initialize`
there and reads every answer from the stream. Checks the negotiated revision, `tools/list`,
and a `migrate` call whose confirmation question (`elicitation/create`, a real server-to-client
request on the stream) the SDK answers through its `elicitation_callback`, with the progress
the tool reports reaching the SDK's `progress_callback`. Prints one `ok`/`FAIL` line per check
and exits 1 on any mismatch.
"""

from __future__ import annotations

import sys
from importlib.metadata import version

import anyio
from mcp import Client, types
from mcp.client.session import ClientRequestContext
from mcp.client.sse import sse_client

from report import Report

LEGACY_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]

report = Report(f"python sdk {version('mcp')} over HTTP+SSE")


async def main(base: str) -> int:
    asked: list[str] = []

    async def on_elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"drop_old_tables": True})

    progress: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)

    sessions: list[str] = []
    async with Client(
        sse_client(f"{base}/sse", on_session_created=sessions.append),
        mode="legacy",
        read_timeout_seconds=30,
        client_info=types.Implementation(name="mcp-rs-interop-python-sse", version="0.0.0"),
        elicitation_callback=on_elicit,
    ) as client:
        report.check(len(sessions) == 1 and len(sessions[0]) == 64, "the endpoint event names a session", sessions)
        report.check(
            client.protocol_version in LEGACY_VERSIONS,
            f"initialize over HTTP+SSE negotiated {client.protocol_version}",
            f"expected one of {LEGACY_VERSIONS}",
        )
        tools = await client.list_tools()
        report.check([tool.name for tool in tools.tools] == ["migrate"], "tools/list over the stream", tools.tools)
        result = await client.call_tool("migrate", {"steps": 2, "step_ms": 10}, progress_callback=on_progress)
        text = "".join(block.text for block in result.content if isinstance(block, types.TextContent))
        report.check(
            text == "migrated: copied 2 parts and dropped the old tables" and not result.is_error,
            "tools/call migrate, confirmed through the elicitation callback",
            f"{text!r} isError={result.is_error}",
        )
        report.check(
            asked == ["2 parts copied. Drop the old tables? This cannot be undone."],
            "elicitation/create came as a server request on the stream",
            asked,
        )
        report.check(progress[:2] == [1.0, 2.0], "progress notifications on the stream", progress)
    return report.finish()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: sse_legacy.py <base-url>")
    sys.exit(anyio.run(main, sys.argv[1]))

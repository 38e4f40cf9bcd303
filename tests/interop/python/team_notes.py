"""The Python SDK (PyPI `mcp`) over Streamable HTTP with bearer tokens: `examples/team_notes.rs`.

    python python/team_notes.py <endpoint-url>   # e.g. http://127.0.0.1:PORT/mcp

The server was started with TEAM_NOTES_TOKENS="alice=alice-token,bob=bob-token". For each era
the SDK speaks (a legacy session, `mode="legacy"`; 2026-07-28 stateless requests, `mode="auto"`),
alice adds a note with her token and bob, with his, must not see it, while alice does: the
authorization hook named each token's user and the tools read it from their context. A client
with an unknown token must be refused before anything is served (401, `WWW-Authenticate:
Bearer error="invalid_token"`). Prints one `ok`/`FAIL` line
per check and exits 1 on any mismatch.
"""

from __future__ import annotations

import sys
from importlib.metadata import version

import anyio
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from report import Report

report = Report(f"python sdk {version('mcp')} over Streamable HTTP with bearer tokens")


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


def client(url: str, token: str, mode: str) -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return Client(
        streamable_http_client(url, http_client=http),
        mode=mode,
        read_timeout_seconds=30,
        client_info=types.Implementation(name="mcp-rs-interop-team-notes", version="0.0.0"),
    )


async def era(url: str, mode: str) -> None:
    note = f"alice's note ({mode})"
    async with client(url, "alice-token", mode) as alice:
        report.check(
            (alice.protocol_version == "2026-07-28") == (mode != "legacy"),
            f"{mode}: negotiated {alice.protocol_version}",
        )
        added = await alice.call_tool("add_note", {"text": note})
        report.check(
            not added.is_error and text_of(added).startswith("alice has "),
            f"{mode}: alice's add_note ran as alice",
            text_of(added),
        )
    async with client(url, "bob-token", mode) as bob:
        mine = await bob.call_tool("my_notes", {})
        report.check(
            not mine.is_error and note not in text_of(mine),
            f"{mode}: bob does not see alice's note",
            text_of(mine),
        )
    async with client(url, "alice-token", mode) as alice:
        mine = await alice.call_tool("my_notes", {})
        report.check(note in text_of(mine).splitlines(), f"{mode}: alice sees her note", text_of(mine))


async def main(url: str) -> int:
    for mode in ("legacy", "auto"):
        await era(url, mode)
    refused: BaseException | None = None
    try:
        async with client(url, "stolen-token", "legacy") as intruder:
            await intruder.call_tool("my_notes", {})
    except BaseException as error:  # noqa: BLE001 - the SDK raises its transport's error, grouped
        refused = error
    report.check(
        refused is not None and "unknown token" in repr(refused),
        "the SDK cannot connect with an unknown token (the hook's reason reaches it)",
        repr(refused),
    )
    async with create_mcp_http_client(headers={"Authorization": "Bearer stolen-token"}) as http:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "mcp-rs-interop-team-notes", "version": "0.0.0"}}}
        response = await http.post(
            url, json=initialize, headers={"Accept": "application/json, text/event-stream"}
        )
        challenge = response.headers.get("www-authenticate", "")
        report.check(
            response.status_code == 401 and challenge.startswith("Bearer") and "invalid_token" in challenge,
            "an unknown token is answered 401 with a Bearer challenge",
            f"{response.status_code} {challenge!r}",
        )
    return report.finish()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: team_notes.py <endpoint-url>")
    sys.exit(anyio.run(main, sys.argv[1]))

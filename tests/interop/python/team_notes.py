"""The Python SDK (PyPI `mcp`) over Streamable HTTP with bearer tokens: `examples/team_notes.rs`.

    python python/team_notes.py <endpoint-url>   # e.g. http://127.0.0.1:PORT/mcp

The server was started with TEAM_NOTES_TOKENS="alice=alice-token,bob=bob-token,
carol=carol-token[notes:read]": alice and bob hold `notes:read notes:write`, carol only
`notes:read`. For each era the SDK speaks (a legacy session, `mode="legacy"`; 2026-07-28
stateless requests, `mode="auto"`), alice adds a note with her token and bob, with his, must not
see it, while alice does: the authorization hook named each token's user and the tools read it
from their context. The tool list is per caller: alice's shows `add_note` and `my_notes`,
carol's only `my_notes`. Carol's `my_notes` works; her `add_note` (called although unlisted) is
refused with HTTP 403, which the SDK surfaces as the JSON-RPC error in the body: it raises
`mcp.MCPError` with code -32003 and `data: {"error": "insufficient_scope", "scope":
"notes:write"}` (the status itself does not reach the caller), and the connection goes on
serving her. A raw httpx POST of the same call, in a legacy session and as a 2026-07-28
request, sees the 403 and `WWW-Authenticate: Bearer error="insufficient_scope",
scope="notes:write"` exactly. A client with an unknown token must be refused before anything is
served (401, `WWW-Authenticate: Bearer error="invalid_token"`). Prints one `ok`/`FAIL` line per
check and exits 1 on any mismatch.
"""

from __future__ import annotations

import sys
from importlib.metadata import version

import anyio
from mcp import Client, MCPError, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from report import Report

report = Report(f"python sdk {version('mcp')} over Streamable HTTP with bearer tokens")

# What the server answers carol's `add_note`: the challenge and the JSON-RPC error's code and data.
CHALLENGE = 'Bearer error="insufficient_scope", scope="notes:write"'
REFUSAL = {"code": -32003, "data": {"error": "insufficient_scope", "scope": "notes:write"}}
CLIENT_INFO = {"name": "mcp-rs-interop-team-notes", "version": "0.0.0"}
ACCEPT = {"Accept": "application/json, text/event-stream"}


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
        alices = sorted(tool.name for tool in (await alice.list_tools()).tools)
        report.equal(f"{mode}: alice lists add_note and my_notes", alices, ["add_note", "my_notes"])
    async with client(url, "carol-token", mode) as carol:
        carols = sorted(tool.name for tool in (await carol.list_tools()).tools)
        report.equal(f"{mode}: carol (notes:read only) lists only my_notes", carols, ["my_notes"])
        report.check(carols != alices, f"{mode}: carol's list differs from alice's", carols)
        mine = await carol.call_tool("my_notes", {})
        report.check(
            not mine.is_error and note not in text_of(mine),
            f"{mode}: carol's my_notes works and does not show alice's note",
            text_of(mine),
        )
        refused: BaseException | None = None
        try:
            added = await carol.call_tool("add_note", {"text": "carol was here"})
        except BaseException as error:  # noqa: BLE001 - whatever it is, it is checked below
            refused = error
        else:
            report.fail(f"{mode}: carol's add_note was not refused: {added!r}")
        if refused is not None:
            # Exactly MCPError (no subclass), carrying the body's JSON-RPC error.
            report.check(
                type(refused) is MCPError
                and {"code": refused.code, "data": refused.data} == REFUSAL
                and refused.message == "insufficient scope: this needs `notes:write`",
                f"{mode}: carol's unlisted add_note raises MCPError -32003 insufficient_scope: {refused!r}",
                repr(refused),
            )
        after = await carol.call_tool("my_notes", {})
        report.check(
            not after.is_error and "carol was here" not in text_of(after),
            f"{mode}: after the 403 the connection still serves carol, and her note was not written",
            text_of(after),
        )


async def raw_refusals(url: str) -> None:
    """Carol's `add_note` over plain httpx, in a legacy session and as a 2026-07-28 request."""
    call = {"name": "add_note", "arguments": {"text": "carol was here"}}
    async with create_mcp_http_client(headers={"Authorization": "Bearer carol-token"}) as http:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT_INFO}}
        response = await http.post(url, json=initialize, headers=ACCEPT)
        session = response.headers.get("mcp-session-id")
        report.check(response.status_code == 200 and session, "raw: carol opens a legacy session",
                     f"{response.status_code} {response.text!r}")
        legacy = {**ACCEPT, "Mcp-Session-Id": session or "", "MCP-Protocol-Version": "2025-11-25"}
        initialized = await http.post(
            url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=legacy
        )
        report.equal("raw: notifications/initialized is accepted", initialized.status_code, 202)
        legacy_call = await http.post(
            url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, headers=legacy
        )
        modern_call = await http.post(
            url,
            json={"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {**call, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
                "io.modelcontextprotocol/clientCapabilities": {}}}},
            headers={**ACCEPT, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                     "Mcp-Name": "add_note"},
        )
        for era, response, id in (("legacy", legacy_call, 2), ("2026-07-28", modern_call, 3)):
            report.equal(f"raw {era}: carol's add_note is answered 403", response.status_code, 403)
            report.equal(f"raw {era}: WWW-Authenticate", response.headers.get("www-authenticate"), CHALLENGE)
            body = response.json()
            error = body.get("error", {})
            report.equal(
                f"raw {era}: the body is JSON-RPC error -32003 with the scope",
                {"id": body.get("id"), "code": error.get("code"), "data": error.get("data")},
                {"id": id, **REFUSAL},
            )


async def main(url: str) -> int:
    for mode in ("legacy", "auto"):
        await era(url, mode)
    await raw_refusals(url)
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
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT_INFO}}
        response = await http.post(url, json=initialize, headers=ACCEPT)
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

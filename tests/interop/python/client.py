"""The Python SDK client (PyPI `mcp`) against one example server.

    python python/client.py [--era legacy|modern] <fixture.json> <server-binary> [server args...]

`legacy` opens with `ClientSession.initialize()` (the handshake era); `modern` opens with
`ClientSession.discover()` (`server/discover`, the stateless 2026-07-28 era) and every later
request carries the per-request `_meta`. Holds the server to the same checks as the TypeScript
clients (../ts/common.ts); the fixture format is in ../README.md. Exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from typing import Any, TypeVar

import anyio
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client, types

from report import Report

LEGACY_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
MODERN_VERSION = "2026-07-28"
MAX_PAGES = 100

T = TypeVar("T")


class Outcome:
    """What one `tools/call` produced, through the SDK's own result type (or its error)."""

    def __init__(
        self,
        *,
        result: types.CallToolResult | None = None,
        error_code: int | None = None,
        error: str | None = None,
    ) -> None:
        self.result = result
        self.error_code = error_code
        self.error = error

    @property
    def text(self) -> str:
        assert self.result is not None
        return "".join(block.text for block in self.result.content if isinstance(block, types.TextContent))

    def describe(self) -> str:
        if self.result is None:
            return f"JSON-RPC error {self.error_code}: {self.error}"
        return self.result.model_dump_json(by_alias=True, exclude_none=True)


async def call(session: ClientSession, name: str, arguments: dict[str, Any]) -> Outcome:
    try:
        return Outcome(result=await session.call_tool(name, arguments))
    except MCPError as e:
        return Outcome(error_code=e.code, error=e.error.message)
    except Exception as e:  # noqa: BLE001 - reported as a mismatch, with its type
        return Outcome(error=f"{type(e).__name__}: {e}")


async def collect(
    report: Report,
    method: str,
    fetch: Callable[[types.PaginatedRequestParams | None], Awaitable[Any]],
    items_of: Callable[[Any], list[T]],
) -> list[T] | None:
    """Follows `nextCursor` until the last page; fails on a repeated cursor or too many pages."""
    items: list[T] = []
    seen: set[str] = set()
    cursor: str | None = None
    for page in range(1, MAX_PAGES + 1):
        try:
            result = await fetch(None if cursor is None else types.PaginatedRequestParams(cursor=cursor))
        except Exception as e:  # noqa: BLE001
            report.fail(f"{method} (page {page}) raised {type(e).__name__}: {e}")
            return None
        items.extend(items_of(result))
        if result.next_cursor is None:
            report.ok(f"{method}: {len(items)} item(s) in {page} page(s)")
            return items
        if result.next_cursor in seen:
            report.fail(f"{method}: nextCursor {result.next_cursor!r} repeats")
            return None
        seen.add(result.next_cursor)
        cursor = result.next_cursor
    report.fail(f"{method}: still paginating after {MAX_PAGES} pages")
    return None


def check_names(report: Report, what: str, listed: list[str], expected: list[str] | None) -> None:
    if expected is None:
        return
    report.check(
        sorted(listed) == sorted(expected),
        f"{what} match the fixture",
        lambda: f"listed {listed}, fixture {expected}",
    )


def check_call(report: Report, name: str, case: dict[str, Any], outcome: Outcome) -> None:
    why = f" ({case['why']})" if "why" in case else ""
    label = f"tools/call {name} {json.dumps(case['arguments'], ensure_ascii=False)}{why}"
    if outcome.result is None:
        report.fail(f"{label}: {outcome.describe()}; expected a result")
        return
    result = outcome.result
    problems: list[str] = []
    want_error = case.get("isError", False)
    if result.is_error != want_error:
        problems.append(f"isError is {result.is_error}, expected {want_error}")
    if not result.content:
        problems.append("content is empty")
    text = outcome.text
    if "text" in case and text != case["text"]:
        problems.append(f"text is {text!r}, expected {case['text']!r}")
    if "textContains" in case and case["textContains"] not in text:
        problems.append(f"text {text!r} lacks {case['textContains']!r}")
    if "structuredContent" in case and result.structured_content != case["structuredContent"]:
        problems.append(f"structuredContent is {result.structured_content!r}, expected {case['structuredContent']!r}")
    report.check(not problems, label, lambda: "; ".join(problems))


async def read(session: ClientSession, uri: str) -> list[Any]:
    return list((await session.read_resource(uri)).contents)


async def get_prompt(session: ClientSession, name: str, arguments: dict[str, str]) -> list[Any]:
    return [message.content for message in (await session.get_prompt(name, arguments)).messages]


async def check_contents(
    report: Report, label: str, case: dict[str, Any], error_code: int, fetch: Awaitable[list[Any]]
) -> None:
    """A read's contents or a prompt's messages' contents, or the JSON-RPC error expected."""
    label += f" ({case['why']})" if "why" in case else ""
    try:
        items = await fetch
    except MCPError as e:
        report.check(
            case.get("error", False) and e.code == error_code,
            f"{label}{' gives JSON-RPC error ' + str(error_code) if case.get('error') else ''}",
            lambda: f"JSON-RPC error {e.code}: {e.error.message}",
        )
        return
    except Exception as e:  # noqa: BLE001
        report.fail(f"{label}: {type(e).__name__}: {e}")
        return
    if case.get("error", False):
        report.fail(f"{label}: a result, expected JSON-RPC error {error_code}")
        return
    problems: list[str] = []
    text = "".join(getattr(item, "text", "") or "" for item in items)
    if not items:
        problems.append("nothing in it")
    if "count" in case and len(items) != case["count"]:
        problems.append(f"{len(items)} items, expected {case['count']}")
    if "textContains" in case and case["textContains"] not in text:
        problems.append(f"text {text!r} lacks {case['textContains']!r}")
    if "mimeType" in case and (not items or getattr(items[0], "mime_type", None) != case["mimeType"]):
        problems.append(f"mimeType is {getattr(items[0], 'mime_type', None) if items else None!r}, expected {case['mimeType']!r}")
    report.check(not problems, label, lambda: "; ".join(problems))


async def check_completion(report: Report, session: ClientSession, case: dict[str, Any]) -> None:
    ref_json = case["ref"]
    ref: types.ResourceTemplateReference | types.PromptReference
    if ref_json["type"] == "ref/prompt":
        ref = types.PromptReference(type="ref/prompt", name=ref_json["name"])
    else:
        ref = types.ResourceTemplateReference(type="ref/resource", uri=ref_json["uri"])
    label = f"completion/complete {json.dumps(ref_json)} {json.dumps(case['argument'])}"
    label += f" ({case['why']})" if "why" in case else ""
    try:
        values = (await session.complete(ref, case["argument"])).completion.values
    except Exception as e:  # noqa: BLE001
        report.fail(f"{label}: {type(e).__name__}: {e}")
        return
    report.check(values == case["values"], label, lambda: f"values {values}, expected {case['values']}")


async def run_checks(report: Report, session: ClientSession, fixture: dict[str, Any], era: str) -> None:
    if era == "modern":
        await session.discover()
        report.check(session.discover_result is not None, "server/discover adopted (modern era)", lambda: "no result")
        wanted = [MODERN_VERSION]
    else:
        await session.initialize()
        report.check(session.initialize_result is not None, "initialize handshake (legacy era)", lambda: "no result")
        wanted = LEGACY_VERSIONS
    negotiated = session.protocol_version
    report.check(negotiated in wanted, f"protocol version {negotiated}", lambda: f"expected one of {wanted}")
    info = session.server_info
    print(f"     server: {info.name if info else None}", flush=True)

    caps = session.server_capabilities or types.ServerCapabilities()
    report.check(caps.tools is not None, "server declares the tools capability", lambda: caps.model_dump_json())

    tools: list[types.Tool] = (
        await collect(report, "tools/list", lambda p: session.list_tools(params=p), lambda r: r.tools) or []
    )
    names = [t.name for t in tools]
    report.check(len(set(names)) == len(names), "tool names are unique", lambda: str(names))
    check_names(report, "listed tools", names, list(fixture["tools"]))
    for tool in tools:
        report.check(
            tool.input_schema.get("type") == "object",
            f"tool {tool.name}: inputSchema is an object schema",
            lambda tool=tool: json.dumps(tool.input_schema),
        )

    if caps.resources is not None:
        resources = await collect(
            report, "resources/list", lambda p: session.list_resources(params=p), lambda r: r.resources
        )
        if resources is not None:
            check_names(report, "listed resources", [str(r.uri) for r in resources], fixture.get("resources"))
        templates = await collect(
            report,
            "resources/templates/list",
            lambda p: session.list_resource_templates(params=p),
            lambda r: r.resource_templates,
        )
        if templates is not None:
            check_names(
                report,
                "listed resource templates",
                [t.uri_template for t in templates],
                fixture.get("resourceTemplates"),
            )
    else:
        report.check(
            "resources" not in fixture and "resourceTemplates" not in fixture,
            "no resources capability",
            lambda: "the fixture expects resources but the server does not declare the capability",
        )
    if caps.prompts is not None:
        prompts = await collect(report, "prompts/list", lambda p: session.list_prompts(params=p), lambda r: r.prompts)
        if prompts is not None:
            check_names(report, "listed prompts", [p.name for p in prompts], fixture.get("prompts"))
    else:
        report.check(
            "prompts" not in fixture,
            "no prompts capability",
            lambda: "the fixture expects prompts but the server does not declare the capability",
        )

    # Reads, prompts and completions, through the SDK's own result types.
    not_found = -32602 if era == "modern" else -32002
    for case in fixture.get("reads", []):
        await check_contents(report, f"resources/read {case['uri']}", case, not_found, read(session, case["uri"]))
    for case in fixture.get("promptGets", []):
        arguments = case.get("arguments", {})
        label = f"prompts/get {case['name']} {json.dumps(arguments, ensure_ascii=False)}"
        await check_contents(report, label, case, -32602, get_prompt(session, case["name"], arguments))
    if fixture.get("completions"):
        report.check(caps.completions is not None, "server declares the completions capability", lambda: caps.model_dump_json())
    for case in fixture.get("completions", []):
        await check_completion(report, session, case)

    for name, cases in fixture["tools"].items():
        report.check(bool(cases), f"fixture has a call for {name}", lambda: "add at least one case")
        for case in cases:
            check_call(report, name, case, await call(session, name, case["arguments"]))

    # Argument validation failures are tool results with isError, not protocol errors.
    for tool in tools:
        required = tool.input_schema.get("required") or []
        if not required:
            continue
        outcome = await call(session, tool.name, {})
        report.check(
            outcome.result is not None and outcome.result.is_error,
            f"tools/call {tool.name} {{}} (missing required {json.dumps(required)}) gives isError",
            outcome.describe,
        )

    # An unknown tool is a protocol error (-32602), not a result.
    unknown = await call(session, "no_such_tool_for_interop", {})
    report.check(
        unknown.result is None and unknown.error_code == -32602,
        "tools/call of an unknown tool gives JSON-RPC error -32602",
        unknown.describe,
    )


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--era", choices=["legacy", "modern"], default="legacy")
    parser.add_argument("fixture")
    parser.add_argument("command")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    with open(options.fixture, encoding="utf-8") as f:
        fixture = json.load(f)

    report = Report(f"python-sdk {version('mcp')} ({options.era}) {fixture['example']}")
    print(f"     mcp=={version('mcp')}", flush=True)
    server = StdioServerParameters(command=options.command, args=options.args)
    try:
        with anyio.fail_after(120):
            async with stdio_client(server) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=30) as session:
                    report.ok(f"connected over stdio to {options.command}")
                    await run_checks(report, session, fixture, options.era)
    except Exception:  # noqa: BLE001 - any escape is a mismatch worth the whole trace
        report.fail(f"unexpected error:\n{traceback.format_exc()}")
    return report.finish()


if __name__ == "__main__":
    sys.exit(anyio.run(main))

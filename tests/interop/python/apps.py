"""The Python SDK (PyPI `mcp`) sees the MCP App of `examples/weather.rs`, in both eras.

    python python/apps.py --era legacy|modern <weather-binary>

Over stdio, through the SDK's own types: the server declares the `io.modelcontextprotocol/ui`
extension (in `initialize` or `server/discover`); `get_weather`'s `_meta.ui.resourceUri` names
`ui://weather/forecast`; reading that resource gives HTML with the MIME type
`text/html;profile=mcp-app` (and, in the legacy revision the SDK negotiates, the page's
`_meta.ui`); a call returns the structured result the page draws. Prints one `ok`/`FAIL` line
per check and exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from importlib.metadata import version
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from report import Report

UI = "io.modelcontextprotocol/ui"
PAGE = "ui://weather/forecast"
MIME = "text/html;profile=mcp-app"


def extensions_of(capabilities: Any) -> dict[str, Any]:
    dumped = capabilities.model_dump(by_alias=True, exclude_none=True)
    return dumped.get("extensions") or {}


async def run_checks(report: Report, session: ClientSession, era: str) -> None:
    if era == "modern":
        await session.discover()
        result = session.discover_result
    else:
        await session.initialize()
        result = session.initialize_result
    report.check(result is not None, f"{era} handshake", lambda: "no result")
    extensions = extensions_of(result.capabilities)
    report.check(UI in extensions, f"the server declares {UI}", extensions)

    tools = (await session.list_tools()).tools
    weather = next((tool for tool in tools if tool.name == "get_weather"), None)
    report.check(weather is not None, "tools/list has get_weather", [tool.name for tool in tools])
    meta = (weather.meta or {}) if weather else {}
    report.equal("get_weather's _meta.ui.resourceUri", (meta.get("ui") or {}).get("resourceUri"), PAGE)

    read = await session.read_resource(PAGE)
    report.equal("resources/read gives one item", len(read.contents), 1)
    page = read.contents[0]
    report.equal("the page's MIME type", page.mime_type, MIME)
    text = page.text if isinstance(page, types.TextResourceContents) else ""
    report.check(text.lstrip().lower().startswith("<!doctype html>"), "the page is an HTML document", text[:80])
    report.check("ui/initialize" in text, "the page speaks to its host", text[:80])
    page_meta = page.meta or {}
    report.equal("the page's _meta.ui", page_meta.get("ui"), {"prefersBorder": True})

    listed = (await session.list_resources()).resources
    entry = next((resource for resource in listed if str(resource.uri) == PAGE), None)
    report.check(entry is not None and entry.mime_type == MIME, "resources/list shows the page as MCP App HTML", listed)

    called = await session.call_tool("get_weather", {"city": "Oslo", "units": "fahrenheit"})
    report.equal(
        "get_weather's structured result, for the page",
        called.structured_content,
        {"city": "Oslo", "temperature": 26.6, "units": "fahrenheit", "condition": "snow", "humidity": 90},
    )


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--era", choices=["legacy", "modern"], default="legacy")
    parser.add_argument("command")
    options = parser.parse_args()
    report = Report(f"python-sdk {version('mcp')} ({options.era}) weather app")
    server = StdioServerParameters(command=options.command, args=[])
    try:
        with anyio.fail_after(120):
            async with stdio_client(server) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=30) as session:
                    await run_checks(report, session, options.era)
    except Exception:  # noqa: BLE001 - any escape is a mismatch worth the whole trace
        report.fail(f"unexpected error:\n{traceback.format_exc()}")
    return report.finish()


if __name__ == "__main__":
    sys.exit(anyio.run(main))

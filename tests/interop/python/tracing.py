"""The Python SDK's own OpenTelemetry instrumentation, sending W3C trace context to a server.

    python python/tracing.py <spans.json> <calculator-binary> <http-url>

With an OpenTelemetry SDK tracer provider installed (spans kept in memory), the SDK opens a
CLIENT span for every request it sends and injects its `traceparent` into the request's
`_meta` (SEP-414). This calls the calculator's `add` over stdio (the SDK starts the binary, which
inherits this process's environment: the test points its `OTEL_*` variables at its receiver) and
over Streamable HTTP (`<http-url>`), each in a legacy session (`mode="legacy"`) and in 2026-07-28
(`mode="auto"`), then writes the client spans of those calls to `<spans.json>`:
`[{"transport", "mode", "protocol", "trace_id", "span_id"}]` (ids in hex). The Rust test finds
the server span each one is the parent of. Exits 1 on any mismatch.
"""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import version

import anyio
from mcp import Client, StdioServerParameters, types
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from report import Report

report = Report(f"python sdk {version('mcp')} tracing (opentelemetry-sdk {version('opentelemetry-sdk')})")

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def call_add(server: StdioServerParameters | str, transport: str, mode: str) -> dict[str, str] | None:
    """One `add` in a client of `mode`; the client span that carried it."""
    exporter.clear()
    async with Client(server, mode=mode, read_timeout_seconds=30) as client:
        protocol = client.protocol_version
        result = await client.call_tool("add", {"a": 20, "b": 22})
        report.check(text_of(result) == "42", f"{transport} {mode}: add answered", lambda: text_of(result))
    sent = [span for span in exporter.get_finished_spans() if span.name == "MCP send tools/call add"]
    report.check(len(sent) == 1, f"{transport} {mode}: the SDK opened one client span for the call", lambda: [s.name for s in exporter.get_finished_spans()])
    if len(sent) != 1:
        return None
    context = sent[0].get_span_context()
    report.check(context.is_valid, f"{transport} {mode}: its span context is valid", context)
    return {
        "transport": transport,
        "mode": mode,
        "protocol": str(protocol),
        "trace_id": format(context.trace_id, "032x"),
        "span_id": format(context.span_id, "016x"),
    }


async def main(out: str, binary: str, url: str) -> int:
    sent: list[dict[str, str]] = []
    stdio = StdioServerParameters(command=binary, args=[], env=dict(os.environ))
    for server, transport in [(stdio, "stdio"), (url, "http")]:
        for mode in ["legacy", "auto"]:
            span = await call_add(server, transport, mode)
            if span is not None:
                sent.append(span)
    modes = {(span["transport"], span["protocol"]) for span in sent}
    for transport in ["stdio", "http"]:
        report.check((transport, "2026-07-28") in modes, f"{transport}: one call was in 2026-07-28", modes)
        report.check(any(t == transport and p != "2026-07-28" for t, p in modes), f"{transport}: one call was in a legacy session", modes)
    with open(out, "w") as file:
        json.dump(sent, file)
    return report.finish()


if __name__ == "__main__":
    sys.exit(anyio.run(main, *sys.argv[1:4]))

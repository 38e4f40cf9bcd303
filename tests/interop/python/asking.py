"""The Python SDK client (PyPI `mcp`) answering a server's questions: elicitation, sampling, roots.

    python python/asking.py --era legacy|modern <long_task-binary> <asking-server-binary>

Drives `examples/long_task.rs` and `tests/asking_server/server.rs` through the SDK's high-level
`mcp.Client` with its `elicitation_callback`, `sampling_callback` and `list_roots_callback`:

* `legacy` (`mode="legacy"`, an `initialize` handshake): the servers ask with real
  server-to-client requests, which the SDK answers through the callbacks;
* `modern` (`mode="auto"`, which probes `server/discover` and must land on 2026-07-28): the
  calls end with `InputRequiredResult`, which the SDK's multi-round-trip driver fulfils through
  the same callbacks and retries with `inputResponses` + `requestState`.

Checks exact texts: accepted / declined / cancelled elicitations reaching the tool's answer,
the sampled text in the result, the roots listed, a prompt that asks, a client without an
elicitation callback getting the tool's error (legacy: an `isError` result; 2026-07-28: JSON-RPC
`-32021` naming `elicitation`), and cancelling a running `migrate` through the SDK (progress
seen, no result, `notifications/cancelled` sent) after which the server still serves. Prints one
`ok`/`FAIL` line per check and exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import anyio
from mcp import Client, MCPError, StdioServerParameters, types
from mcp.client.session import ClientRequestContext

from report import Report

LEGACY_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
MODERN_VERSION = "2026-07-28"
MISSING_CAPABILITY = -32021

ROOTS = [("file:///srv/interop/alpha", "alpha"), ("file:///srv/interop/beta", "beta")]
MODEL = "interop-model"


class Answers:
    """The client side: scripted answers to the server's questions, and what was asked."""

    def __init__(self) -> None:
        # Elicitation message -> the `ElicitResult` fields to answer with.
        self.elicit: dict[str, dict[str, Any]] = {}
        self.asked: list[types.ElicitRequestParams] = []
        # Elicitation message -> the id the SDK handed the callback: a JSON-RPC request id for a
        # legacy server-to-client request, the `inputRequests` key (`q0`, ...) for 2026-07-28.
        self.ids: dict[str, str] = {}
        self.sampled: list[types.CreateMessageRequestParams] = []
        self.roots_listed = 0

    async def on_elicit(self, context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult | types.ErrorData:
        self.asked.append(params)
        self.ids[params.message] = str(context.request_id)
        answer = self.elicit.get(params.message)
        if answer is None:
            return types.ErrorData(code=types.INVALID_PARAMS, message=f"unexpected question {params.message!r}")
        return types.ElicitResult(**answer)

    async def on_sample(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.sampled.append(params)
        question = "".join(
            m.content.text for m in params.messages if isinstance(m.content, types.TextContent)
        )
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"{len(question)} characters heard"),
            model=MODEL,
            stop_reason="endTurn",
        )

    async def on_roots(self, context: ClientRequestContext) -> types.ListRootsResult:
        self.roots_listed += 1
        return types.ListRootsResult(roots=[types.Root(uri=uri, name=name) for uri, name in ROOTS])


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


def describe(error: BaseException) -> str:
    if isinstance(error, MCPError):
        return f"JSON-RPC error {error.code}: {error.error.message} (data {error.error.data!r})"
    return f"{type(error).__name__}: {error}"


async def expect_text(
    report: Report, client: Client, tool: str, arguments: dict[str, Any], text: str, *, is_error: bool = False
) -> None:
    label = f"tools/call {tool} {json.dumps(arguments)} -> {text!r}{' (isError)' if is_error else ''}"
    try:
        result = await client.call_tool(tool, arguments)
    except Exception as e:  # noqa: BLE001 - reported as a mismatch
        report.fail(f"{label}: {describe(e)}")
        return
    report.check(
        text_of(result) == text and result.is_error == is_error,
        label,
        lambda: f"got {text_of(result)!r}, isError {result.is_error}",
    )


def open_client(era: str, binary: str, **callbacks: Any) -> Client:
    return Client(
        StdioServerParameters(command=binary, args=[]),
        mode="legacy" if era == "legacy" else "auto",
        read_timeout_seconds=30,
        client_info=types.Implementation(name="mcp-rs-interop-python-asking", version="0.0.0"),
        **callbacks,
    )


def check_era(report: Report, client: Client, era: str, server: str) -> None:
    wanted = LEGACY_VERSIONS if era == "legacy" else [MODERN_VERSION]
    report.check(
        client.protocol_version in wanted,
        f"{server}: negotiated {client.protocol_version} ({era} era)",
        lambda: f"expected one of {wanted}",
    )


async def asking_server(report: Report, era: str, binary: str) -> None:
    answers = Answers()
    async with open_client(
        era,
        binary,
        elicitation_callback=answers.on_elicit,
        sampling_callback=answers.on_sample,
        list_roots_callback=answers.on_roots,
    ) as client:
        check_era(report, client, era, "asking-server")
        answers.elicit = {
            "Delete alpha?": {"action": "accept", "content": {"confirm": True, "reason": "stale"}},
            "Delete beta?": {"action": "accept", "content": {"confirm": False}},
            "Delete gamma?": {"action": "decline"},
            "Delete delta?": {"action": "cancel"},
            "First?": {"action": "accept", "content": {"confirm": True}},
            "Second?": {"action": "decline"},
            "Use 2 roots?": {"action": "accept", "content": {"confirm": False, "reason": "just looking"}},
            "Focus on security?": {"action": "accept", "content": {"confirm": True}},
        }
        await expect_text(report, client, "confirm_delete", {"name": "alpha"}, "deleted alpha (stale)")
        await expect_text(report, client, "confirm_delete", {"name": "beta"}, "kept beta: not confirmed")
        await expect_text(report, client, "confirm_delete", {"name": "gamma"}, "kept gamma: declined")
        await expect_text(report, client, "confirm_delete", {"name": "delta"}, "kept delta: cancelled")

        # The form the server asked with, as the SDK parsed it.
        form = next((p for p in answers.asked if p.message == "Delete alpha?"), None)
        schema = form.requested_schema if isinstance(form, types.ElicitRequestFormParams) else None
        report.check(
            schema is not None
            and schema.get("type") == "object"
            and {k: v.get("type") for k, v in schema.get("properties", {}).items()}
            == {"confirm": "boolean", "reason": "string"}
            and schema.get("required") == ["confirm"],
            "elicitation/create form: {confirm: boolean (required), reason: string}",
            lambda: json.dumps(schema),
        )

        await expect_text(report, client, "two_questions", {}, "true Declined")
        # How the questions travelled: 2026-07-28 embeds both in one InputRequiredResult (keys
        # q0, q1); legacy sends two real requests with the server's own ids.
        ids = sorted(answers.ids.get(m, "?") for m in ("First?", "Second?"))
        if era == "modern":
            report.equal("two_questions: both asked in one InputRequiredResult (keys q0, q1)", ids, ["q0", "q1"])
        else:
            report.check(
                len(set(ids)) == 2 and not set(ids) & {"q0", "q1", "?"},
                f"two_questions: asked as two server-to-client requests (ids {ids})",
                lambda: str(ids),
            )
        await expect_text(
            report, client, "sequential", {}, '2 roots, Accepted(Confirm { confirm: false, reason: Some("just looking") })'
        )

        question = "What is the answer?"
        await expect_text(
            report, client, "ask_model", {"question": question}, f"{MODEL} said: {len(question)} characters heard"
        )
        sampled = answers.sampled[-1] if answers.sampled else None
        report.check(
            sampled is not None
            and sampled.system_prompt == "Answer briefly."
            and sampled.max_tokens == 50
            and [(m.role, getattr(m.content, "text", None)) for m in sampled.messages] == [("user", question)],
            "sampling/createMessage carried the system prompt, maxTokens 50 and the question",
            lambda: sampled.model_dump_json(by_alias=True, exclude_none=True) if sampled else "not asked",
        )

        await expect_text(report, client, "list_roots", {}, ",".join(uri for uri, _ in ROOTS))
        report.check(answers.roots_listed >= 2, "roots/list reached the callback", lambda: str(answers.roots_listed))

        await expect_text(
            report,
            client,
            "bad_form",
            {},
            "cannot ask: not a valid elicitation form: field `inner` is not a string, number, integer, boolean or "
            "string enum",
            is_error=True,
        )

        try:
            prompt = await client.get_prompt("review", {"code": "fn main() {}"})
            texts = [getattr(m.content, "text", None) for m in prompt.messages]
            report.equal("prompts/get review asks, then uses the answer", texts, ["Review this code for security:\nfn main() {}"])
        except Exception as e:  # noqa: BLE001
            report.fail(f"prompts/get review: {describe(e)}")


async def migrate_call(
    client: Client, arguments: dict[str, Any]
) -> tuple[types.CallToolResult | None, BaseException | None, list[tuple[float, float | None, str | None]]]:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    try:
        return await client.call_tool("migrate", arguments, progress_callback=on_progress), None, progress
    except Exception as e:  # noqa: BLE001
        return None, e, progress


async def long_task(report: Report, era: str, binary: str) -> None:
    answers = Answers()
    async with open_client(era, binary, elicitation_callback=answers.on_elicit) as client:
        check_era(report, client, era, "long_task")
        question = "2 parts copied. Drop the old tables? This cannot be undone."
        copied = [(1.0, 3.0, "copied part 1 of 2"), (2.0, 3.0, "copied part 2 of 2")]
        # 2026-07-28 re-runs the tool from the top once the answer comes: the copy steps (and
        # their progress) happen once per round; the legacy call waits in place.
        rounds = copied if era == "legacy" else copied + copied
        for answer, text, dropped in [
            ({"action": "accept", "content": {"drop_old_tables": True}}, "migrated: copied 2 parts and dropped the old tables", True),
            ({"action": "accept", "content": {"drop_old_tables": False}}, "copied 2 parts; the old tables were kept (not confirmed)", False),
            ({"action": "decline"}, "copied 2 parts; the old tables were kept (not confirmed)", False),
            ({"action": "cancel"}, "copied 2 parts; the old tables were kept (question dismissed)", False),
        ]:
            answers.elicit = {question: answer}
            result, error, progress = await migrate_call(client, {"steps": 2, "step_ms": 20})
            label = f"migrate answered {json.dumps(answer)}"
            if result is None:
                report.fail(f"{label}: {describe(error) if error else 'no result'}")
                continue
            report.equal(f"{label}: text", (text_of(result), result.is_error), (text, False))
            expected = rounds + ([(3.0, 3.0, "dropped the old tables")] if dropped else [])
            report.equal(f"{label}: progress", progress, expected)
        schema = answers.asked[-1].requested_schema if answers.asked and isinstance(answers.asked[-1], types.ElicitRequestFormParams) else None
        report.check(
            schema is not None
            and schema.get("properties", {}).get("drop_old_tables", {}).get("type") == "boolean"
            and schema.get("required") == ["drop_old_tables"],
            "migrate asks with the form {drop_old_tables: boolean}",
            lambda: json.dumps(schema),
        )

        # Cancellation through the SDK: leave the call's scope once progress has arrived; the SDK
        # sends `notifications/cancelled` and the call ends with no result.
        progress: list[tuple[float, float | None, str | None]] = []
        reached = anyio.Event()

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total, message))
            if len(progress) >= 2:
                reached.set()

        answers.asked.clear()
        outcome: list[Any] = []

        async def run_call() -> None:
            try:
                outcome.append(await client.call_tool("migrate", {"steps": 200, "step_ms": 50}, progress_callback=on_progress))
            except BaseException as e:  # noqa: BLE001 - the cancellation itself must propagate
                outcome.append(e)
                raise

        started = anyio.current_time()
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                scope = anyio.CancelScope()

                async def cancellable() -> None:
                    with scope:
                        await run_call()

                tg.start_soon(cancellable)
                await reached.wait()
                scope.cancel()
        elapsed = anyio.current_time() - started
        report.check(
            len(progress) >= 2 and progress[:2] == [(1.0, 201.0, "copied part 1 of 200"), (2.0, 201.0, "copied part 2 of 200")],
            "cancelled migrate: progress arrived before the cancel",
            lambda: repr(progress),
        )
        report.check(
            scope.cancelled_caught and not any(isinstance(o, types.CallToolResult) for o in outcome),
            "cancelled migrate: the call ended cancelled, with no result",
            lambda: f"cancelled_caught={scope.cancelled_caught}, outcome={outcome!r}",
        )
        report.check(elapsed < 8, "cancelled migrate: stopped long before its 10 s", lambda: f"{elapsed:.1f} s")
        report.equal("cancelled migrate: no question asked", [p.message for p in answers.asked], [])

        # The server keeps serving: a second call, answered, completes.
        answers.elicit = {"1 parts copied. Drop the old tables? This cannot be undone.": {"action": "accept", "content": {"drop_old_tables": True}}}
        result, error, _ = await migrate_call(client, {"steps": 1, "step_ms": 1})
        report.check(
            result is not None and text_of(result) == "migrated: copied 1 parts and dropped the old tables" and not result.is_error,
            "after the cancel, a second migrate completes",
            lambda: describe(error) if error else (result.model_dump_json(by_alias=True) if result else "no result"),
        )


async def without_elicitation(report: Report, era: str, long_task_binary: str, asking_binary: str) -> None:
    """No elicitation callback: the SDK declares no `elicitation` capability."""
    expectations = [
        (
            long_task_binary,
            "migrate",
            {"steps": 1, "step_ms": 1},
            "copied 1 parts, but dropping the old tables needs the user's confirmation and the client cannot ask "
            "(the client did not declare the `elicitation` capability)",
        ),
        (
            asking_binary,
            "confirm_delete",
            {"name": "alpha"},
            "cannot ask: cannot ask the client (elicitation): the client did not declare the `elicitation` capability",
        ),
    ]
    for binary, tool, arguments, text in expectations:
        async with open_client(era, binary) as client:
            check_era(report, client, era, f"{tool} without elicitation")
            caps = client.session._build_capabilities(client.protocol_version)  # what the SDK declares  # noqa: SLF001
            report.check(caps.elicitation is None, "no elicitation callback: no elicitation capability declared", caps.model_dump_json)
            label = f"{tool} {json.dumps(arguments)} without the elicitation capability"
            try:
                result = await client.call_tool(tool, arguments)
            except MCPError as e:
                if era == "modern":
                    report.check(
                        e.code == MISSING_CAPABILITY and e.error.data == {"requiredCapabilities": {"elicitation": {}}},
                        f"{label}: JSON-RPC error -32021 requiring elicitation",
                        lambda e=e: describe(e),
                    )
                else:
                    report.fail(f"{label}: {describe(e)}; expected an isError result")
                continue
            except Exception as e:  # noqa: BLE001
                report.fail(f"{label}: {describe(e)}")
                continue
            if era == "modern":
                report.fail(f"{label}: a result {result.model_dump_json(by_alias=True)}; expected JSON-RPC error -32021")
            else:
                report.check(
                    result.is_error and text_of(result) == text,
                    f"{label}: isError {text!r}",
                    lambda result=result: f"isError {result.is_error}, text {text_of(result)!r}",
                )


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--era", choices=["legacy", "modern"], default="legacy")
    parser.add_argument("long_task")
    parser.add_argument("asking_server")
    options = parser.parse_args()

    report = Report(f"python-sdk {version('mcp')} asking ({options.era})")
    print(f"     mcp=={version('mcp')}", flush=True)
    for name, step in [
        ("asking-server", lambda: asking_server(report, options.era, options.asking_server)),
        ("long_task", lambda: long_task(report, options.era, options.long_task)),
        ("without elicitation", lambda: without_elicitation(report, options.era, options.long_task, options.asking_server)),
    ]:
        try:
            with anyio.fail_after(90):
                await step()
        except Exception:  # noqa: BLE001 - any escape is a mismatch worth the whole trace
            report.fail(f"{name}: unexpected error:\n{traceback.format_exc()}")
    return report.finish()


if __name__ == "__main__":
    sys.exit(anyio.run(main))

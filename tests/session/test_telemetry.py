"""Telemetry: OpenTelemetry spans and the trace context handed to the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import claude_sdk as cs
from claude_sdk.hooks import HookContext, PreToolUseInput
from claude_sdk.telemetry import ERROR_TYPE, SPANS, Telemetry
from claude_sdk.testing import FakeCLI, ScriptedCLI, ToolCall
from claude_sdk.testing.stdio import write_fake_cli

from ..support.credentials import Secret, secrets, surroundings

EXPORTER = InMemorySpanExporter()
_provider = TracerProvider()
_provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
trace.set_tracer_provider(_provider)


@pytest.fixture(autouse=True)
def _clear() -> None:
    EXPORTER.clear()


async def test_spans_for_session_turn_tool_permission_hook_and_control() -> None:
    seen_env: list[dict[str, str]] = []

    async def script(cli: ScriptedCLI) -> None:
        seen_env.append(dict(cli.env))
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="done", tools=[ToolCall("Bash", {"command": "ls"}, output="a\nb")])

    async def allow(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        return cs.PermissionAllow()

    async def pre(hook_input: PreToolUseInput, context: HookContext) -> None:
        return None

    options = cs.Options(
        telemetry=True,
        can_use_tool=allow,
        hooks={"PreToolUse": [cs.HookMatcher(hooks=[pre])]},
    )
    tracer = trace.get_tracer("test")
    with tracer.start_as_current_span("caller") as caller:
        async with cs.open_session(options, transport=FakeCLI(script)) as session:
            await session.set_permission_mode("plan")
            await session.send("list files")
            _ = [m async for m in session.receive_response()]
        trace_id = caller.get_span_context().trace_id
    names = [s.name for s in EXPORTER.get_finished_spans()]
    for expected in (
        "claude_sdk.session",
        "claude_sdk.turn",
        "claude_sdk.tool Bash",
        "claude_sdk.permission Bash",
        "claude_sdk.hook PreToolUse",
        "claude_sdk.control set_permission_mode",
        "claude_sdk.control initialize",
    ):
        assert expected in names, names
    spans = {s.name: s for s in EXPORTER.get_finished_spans()}
    assert all(s.context.trace_id == trace_id for s in spans.values() if s.name != "caller")
    turn = spans["claude_sdk.turn"]
    assert turn.attributes is not None
    assert turn.attributes["subtype"] == "success"
    assert spans["claude_sdk.permission Bash"].attributes == {"tool": "Bash", "behavior": "allow"}
    # the CLI gets the trace context in its environment
    assert f"{trace_id:032x}" in seen_env[0]["TRACEPARENT"]


async def test_no_spans_without_the_option() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="x")

    await cs.ask("hi", transport=FakeCLI(script))
    assert [s for s in EXPORTER.get_finished_spans() if s.name.startswith("claude_sdk")] == []


async def test_a_retry_is_a_span_around_its_backoff() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.system_init()
        if cli.index == 0:
            await cli.result("API Error: 529", is_error=True, api_error_status=529)
        else:
            await cli.result("ok")
        await cli.serve_until_stdin_closes()

    policy = cs.RetryPolicy(initial_delay=0.05, jitter=0)
    options = cs.Options(telemetry=True, retry=policy)
    reply = await cs.ask("hi", options=options, transport=FakeCLI(script))
    assert reply.text == "ok"
    [span] = [s for s in EXPORTER.get_finished_spans() if s.name == "claude_sdk.retry"]
    assert span.attributes is not None
    assert span.attributes["attempt"] == 1
    assert span.attributes["reason"] == "HTTP 529 overloaded"
    assert span.end_time is not None
    assert span.start_time is not None
    assert (span.end_time - span.start_time) / 1e9 >= 0.05  # the backoff is inside it


# --------------------------------------------------------------------------------------
# Issue 27, item 8: no secret in a span, and every span and attribute documented

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "observability.md"


def _kind(name: str) -> str:
    """A span's kind: its name without the tool, event or subtype."""
    return name.split(" ", 1)[0]


class _UserError(Exception):
    pass


async def _everything(secret: Secret, around: tuple[str, str]) -> None:
    """Sessions that make every kind of span, with ``secret`` wherever text the caller, the
    CLI or the model wrote can be: the prompt, a tool's input and output, a permission's
    message, a hook's and a control request's failure, the caller's own exception, an API
    error's text."""
    text = f"{around[0]}{secret.text}{around[1]}"

    async def turns(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        if cli.index == 0:  # an API error: the retry's span
            await cli.system_init()
            await cli.result(f"API Error: 529 {text}", is_error=True, api_error_status=529)
        else:
            tools = [
                ToolCall("Bash", {"command": f"curl -H '{text}' x"}, output=text),
                ToolCall("Edit", {"file_path": f"/tmp/{text}"}, output=text),
                ToolCall("Read", {"file_path": f"/tmp/{text}"}, output=text),
            ]
            await cli.turn(text=f"done: {text}", tools=tools)
        await cli.serve_until_stdin_closes()

    async def controls(cli: ScriptedCLI) -> None:
        @cli.on_request("set_model")
        def refuse(request: Any) -> None:
            raise FakeCLI.Error(f"no such model: {text}")

        await cli.handshake()
        await cli.serve_until_stdin_closes()

    async def deny_edit(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        if name == "Edit":
            return cs.PermissionDeny(message=f"not {text}")
        return cs.PermissionAllow()

    async def hook(hook_input: PreToolUseInput, context: HookContext) -> None:
        if hook_input.tool_name == "Read":
            raise _UserError(f"hook failed on {text}")  # fails closed: Read is denied

    options = cs.Options(
        telemetry=True,
        can_use_tool=deny_edit,
        hooks={"PreToolUse": [cs.HookMatcher(hooks=[hook])]},
        retry=cs.RetryPolicy(initial_delay=0.001, jitter=0),
    )
    reply = await cs.ask(text, options=options, transport=FakeCLI(turns))
    assert reply.text.startswith("done")
    with pytest.raises(_UserError):
        async with cs.open_session(options, transport=FakeCLI(controls)) as session:
            with pytest.raises(cs.ControlRequestError):
                await session.set_model("x")
            raise _UserError(f"the caller's own failure: {text}")


#: Every kind of span the SDK emits, as `_everything` makes them.
KINDS = {
    "claude_sdk.session",
    "claude_sdk.turn",
    "claude_sdk.tool",
    "claude_sdk.permission",
    "claude_sdk.hook",
    "claude_sdk.control",
    "claude_sdk.retry",
}


def _exported(spans: Any) -> list[dict[str, Any]]:
    """Each finished span of ours as its exporter sees it (name, attributes, events, links,
    status, resource)."""
    out = []
    for span in spans:
        if span.name.startswith("claude_sdk"):
            out.append(json.loads(span.to_json()))
    return out


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(secret=secrets(), around=surroundings)
def test_no_secret_reaches_any_span(backend: str, secret: Secret, around: tuple[str, str]) -> None:
    EXPORTER.clear()
    anyio.run(_everything, secret, around, backend=backend)
    exported = _exported(EXPORTER.get_finished_spans())
    assert {_kind(s["name"]) for s in exported} == KINDS  # every kind was made
    leaks = [s for s in exported if secret.core in json.dumps(s, ensure_ascii=False)]
    assert leaks == []


def _documented() -> dict[str, set[str]]:
    """The guide's table of spans (span | covers | attributes): kind -> attributes."""
    table: dict[str, set[str]] = {}
    section = GUIDE.read_text(encoding="utf-8").split("## Traces", 1)[1]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`claude_sdk."):
            kind = _kind(cells[0].strip("`"))
            table[kind] = set(re.findall(r"`([a-z_.]+)`", cells[2]))
        elif len(cells) == 3 and cells[0] == "`error.type`":
            table["error.type"] = set()
    return table


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_the_guide_lists_every_span_and_attribute_the_sdk_emits(
    tmp_path: Path, backend: str
) -> None:
    """What `_everything` and a session with a CLI process (its pid) emit, the guide lists:
    every kind of span with every attribute, ``error.type`` on the spans an exception left."""
    EXPORTER.clear()
    secret = Secret(text="sk-ant-api03-0123456789abcdefghij", core="x")
    anyio.run(_everything, secret, ("", ""), backend=backend)
    cli = write_fake_cli(tmp_path / "claude", replies=["ok"], version="2.1.330")
    options = cs.Options(telemetry=True, cli_path=str(cli), cwd=str(tmp_path))
    anyio.run(lambda: cs.ask("hi", options=options), backend=backend)
    emitted: dict[str, set[str]] = {}
    failed: set[str] = set()
    for span in _exported(EXPORTER.get_finished_spans()):
        names = set(span["attributes"])
        if ERROR_TYPE in names:
            failed.add(_kind(span["name"]))
        emitted.setdefault(_kind(span["name"]), set()).update(names - {ERROR_TYPE})
    assert failed == {"claude_sdk.session", "claude_sdk.control"}
    assert {kind: set(names) for kind, names in SPANS.items()} == emitted
    documented = _documented()
    assert documented.pop("error.type") == set()  # the row for every span
    assert documented == emitted


PROMPT = "tell me about ghp_0123456789abcdefghij0123456789abcdef"


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_the_turn_span_carries_no_prompt_text(backend: str) -> None:
    EXPORTER.clear()

    async def run() -> None:
        options = cs.Options(telemetry=True)
        await cs.ask(PROMPT, options=options, transport=FakeCLI(replies=["ok"]))

    anyio.run(run, backend=backend)
    [turn] = [s for s in EXPORTER.get_finished_spans() if s.name == "claude_sdk.turn"]
    assert turn.attributes is not None
    assert "prompt.preview" not in turn.attributes
    assert turn.attributes["prompt.chars"] == len(PROMPT)
    assert "tell me" not in turn.to_json()


def test_an_exception_in_a_span_is_its_type_only() -> None:
    EXPORTER.clear()
    spans = Telemetry(True)
    with pytest.raises(_UserError), spans.span("claude_sdk.session"):
        raise _UserError("password=hunter2-0123456789")
    [span] = [s for s in EXPORTER.get_finished_spans() if s.name == "claude_sdk.session"]
    assert span.attributes is not None
    assert span.attributes["error.type"] == "_UserError"
    assert span.status.status_code == trace.StatusCode.ERROR
    assert span.status.description is None
    assert span.events == ()
    assert "hunter2" not in span.to_json()

"""Telemetry: OpenTelemetry spans and the trace context handed to the CLI."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import claude_sdk as cs
from claude_sdk.hooks import HookContext, PreToolUseInput
from claude_sdk.testing import FakeCLI, ScriptedCLI, ToolCall

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

"""Issue 14, against the real CLI (offline): the bullets of item 4 that concern the CLI itself.

The same bullets are tested with FakeCLI and fake processes in
``tests/regressions/test_protocol_edges.py``; here the CLI is the real one.
"""

from __future__ import annotations

import json
import signal
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.control import McpSetServersResponse
from claude_sdk.transports import subprocess as subprocess_transport

from .conftest import E2E

SLOW_STORY = "word " * 400  # about 16 pieces: with delay=0.5, about 8 s of streaming
SLOW = 0.5
#: A grace no test outlives (pytest-timeout ends it first): a hasty exit that waited it out
#: would fail the test. No test here measures how long anything took.
FOREVER = 3600.0


def started_streaming(message: cs.Message) -> bool:
    return isinstance(message, cs.StreamEvent) and message.event.get("type") in (
        "content_block_start",
        "content_block_delta",
    )


async def test_set_max_thinking_tokens_none_sends_null_and_the_cli_takes_it(e2e: E2E) -> None:
    transport = e2e.transport()
    async with cs.open_session(e2e.options(), transport=transport) as session:
        await session.set_max_thinking_tokens(2048)
        await session.set_max_thinking_tokens(None)
    sent = [json.loads(line) for line in transport.sent()]
    requests = [
        f["request"]
        for f in sent
        if f.get("request", {}).get("subtype") == "set_max_thinking_tokens"
    ]
    assert requests == [
        {"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 2048},
        {"subtype": "set_max_thinking_tokens", "max_thinking_tokens": None},
    ]


async def test_mcp_set_servers_takes_the_server_classes_of_options(e2e: E2E) -> None:
    transport = e2e.transport()
    servers = {
        "files": cs.McpStdioServer(command="definitely-not-an-mcp-server", args=["--x"]),
        "web": cs.McpHttpServer(url="http://127.0.0.1:9/mcp"),
    }
    async with cs.open_session(e2e.options(), transport=transport) as session:
        answer = await session.mcp_set_servers(servers)
        assert isinstance(answer, McpSetServersResponse)
        named = set(answer.added or ()) | set((answer.errors or {}).keys())
        assert named == {"files", "web"}
    sent = [json.loads(line) for line in transport.sent()]
    (request,) = [
        f["request"] for f in sent if f.get("request", {}).get("subtype") == "mcp_set_servers"
    ]
    assert request["servers"] == {
        "files": {"type": "stdio", "command": "definitely-not-an-mcp-server", "args": ["--x"]},
        "web": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
    }


async def test_wait_until_idle_after_an_interrupt_withdrew_queued_prompts(e2e: E2E) -> None:
    e2e.api.reply(text=SLOW_STORY, delay=SLOW)
    options = e2e.options(include_partial_messages=True)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("a long story")
        await session.send("queued one")
        await session.send("queued two")
        async for message in session.receive_messages():
            if started_streaming(message):
                break
        receipt = await session.interrupt(cancel_queued=True)
        assert len(receipt.cancelled or []) == 2
        with anyio.fail_after(20):
            assert await session.wait_until_idle()
        assert session.state == "idle"


async def test_wait_until_idle_when_queued_prompts_are_answered(e2e: E2E) -> None:
    e2e.api.reply(text="first " * 50, delay=0.01)
    e2e.api.reply(text="second")
    e2e.api.reply(text="third")
    options = e2e.options(include_partial_messages=True)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("one")
        async for message in session.receive_messages():
            if started_streaming(message):
                break
        await session.send("two")  # queued behind the first turn: the CLI may take both
        await session.send("three")  # in one turn (one result), or one turn each
        with anyio.fail_after(20):
            assert await session.wait_until_idle()


async def test_leaving_by_cancellation_mid_turn_does_not_wait_the_grace(e2e: E2E) -> None:
    e2e.api.reply(text=SLOW_STORY, delay=SLOW)
    options = e2e.options(include_partial_messages=True, shutdown_grace=FOREVER)
    transport = e2e.transport()
    with anyio.CancelScope() as scope:
        async with cs.open_session(options, transport=transport) as session:
            await session.send("a long story")
            async for message in session.receive_response():
                if started_streaming(message):
                    scope.cancel()
    assert scope.cancelled_caught
    sent = [json.loads(line) for line in transport.sent()]
    assert sent[-1]["request"] == {"subtype": "interrupt"}  # interrupted, then terminated
    assert session.returncode != -signal.SIGKILL  # the SIGTERM ended it


async def test_leaving_by_an_exception_mid_turn_is_prompt(e2e: E2E) -> None:
    e2e.api.reply(text=SLOW_STORY, delay=SLOW)
    options = e2e.options(include_partial_messages=True, shutdown_grace=FOREVER)
    transport = e2e.transport()
    with pytest.raises(LookupError, match="enough"):
        async with cs.open_session(options, transport=transport) as session:
            await session.send("a long story")
            async for message in session.receive_response():
                if started_streaming(message):
                    raise LookupError("enough")
    sent = [json.loads(line) for line in transport.sent()]
    assert sent[-1]["request"] == {"subtype": "interrupt"}  # interrupted, then terminated
    assert session.returncode != -signal.SIGKILL  # the SIGTERM ended it


async def test_a_normal_exit_mid_turn_waits_the_grace_once(
    e2e: E2E, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI finishes a turn after stdin closes (PROTOCOL.md 5.5): it gets the grace, once,
    then SIGTERM. Checked by the deadlines the code computed, not by a duration: the session
    set its deadline one grace after the body left; the transport's teardown began once it
    had passed, and gave no second grace (its graceful part ends at that deadline)."""
    grace = 1.5
    teardowns: list[dict[str, Any]] = []
    real = getattr(subprocess_transport, "graceful_end")  # noqa: B009 (not exported)

    def graceful_end(grace: float, deadline: float | None) -> float:
        end: float = real(grace, deadline)
        teardowns.append({"began": anyio.current_time(), "deadline": deadline, "end": end})
        return end

    monkeypatch.setattr(subprocess_transport, "graceful_end", graceful_end)
    e2e.api.reply(text=SLOW_STORY, delay=SLOW)
    options = e2e.options(include_partial_messages=True, shutdown_grace=grace)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("a long story")
        async for message in session.receive_messages():
            if started_streaming(message):
                break
        left = anyio.current_time()
    (teardown,) = teardowns
    assert teardown["deadline"] is not None
    assert teardown["deadline"] >= left + grace  # a whole grace, counted from leaving
    assert teardown["began"] >= teardown["deadline"]  # the CLI had it all (it did not finish)
    assert teardown["end"] == teardown["deadline"]  # not a second grace: SIGTERM at once


@pytest.mark.parametrize("run", range(3))
async def test_a_cli_that_fails_at_once_keeps_its_message(e2e: E2E, run: int) -> None:
    options = e2e.options(extra_args={"definitely-not-a-flag": None})
    with pytest.raises(cs.ProcessError) as info:
        async with cs.open_session(options, transport=e2e.transport()):
            pass
    assert info.value.exit_code == 1
    assert "definitely-not-a-flag" in info.value.stderr_tail


async def test_inactivity_timeout_does_not_count_our_slow_callback(e2e: E2E) -> None:
    async def slow(
        name: str, tool_input: dict[str, object], context: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        await anyio.sleep(2.5)
        return cs.PermissionAllow()

    e2e.api.reply(tool_use=("Bash", {"command": "touch slow.txt", "description": "touch"}))
    e2e.api.reply(text="done")
    options = e2e.options(can_use_tool=slow, inactivity_timeout=1.0)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("touch slow.txt")
        with anyio.fail_after(30):
            messages = [m async for m in session.receive_response()]
    result = messages[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.result == "done"
    assert (e2e.cwd / "slow.txt").exists()

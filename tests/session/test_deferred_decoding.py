"""Messages only the consumer looks at are decoded when they are handed out (issue 8).

The reader sets the lines of ``assistant``, ``user`` and ``stream_event`` frames aside as bytes
and the consumer decodes them; everything the session itself acts on is decoded by the
reader. What a user sees must not change: the same typed messages in the same order, a line
that is not JSON skipped (and counted), a frame that does not fit kept whole, control traffic
served while nobody reads.
"""

from __future__ import annotations

from typing import Any

import anyio
import orjson

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI

ASSISTANT = {
    "type": "assistant",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": "one"}],
        "stop_reason": None,
        "usage": {"input_tokens": 1, "output_tokens": 2},
    },
    "parent_tool_use_id": None,
    "session_id": "s",
    "uuid": "u1",
}


def _line(frame: dict[str, Any]) -> bytes:
    return orjson.dumps(frame) + b"\n"


async def test_set_aside_lines_decode_in_order_and_a_broken_one_is_skipped() -> None:
    message: dict[str, Any] = ASSISTANT["message"]  # type: ignore[assignment]
    misfit = {**ASSISTANT, "uuid": "u3", "message": {**message, "usage": "many"}}

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        second = {**ASSISTANT, "uuid": "u2"}
        # Written the way the CLI writes (compact, ``type`` first), in one chunk, with a
        # line cut short in the middle and one whose ``usage`` does not fit the model.
        await cli.send_raw(
            _line(ASSISTANT)
            + b'{"type":"assistant","message":{"id":\n'
            + _line(misfit)
            + _line(second)
        )
        await cli.result()

    fake = FakeCLI(script)
    async with cs.open_session(transport=fake) as session:
        await session.send("go")
        messages = [m async for m in session.receive_response()]
        assert session.lines_undecodable == 1
    assistants = [m for m in messages if not isinstance(m, cs.ResultMessage)]
    assert isinstance(assistants[0], cs.AssistantMessage)
    assert assistants[0].uuid == "u1"
    assert [b.text for b in assistants[0].content if isinstance(b, cs.TextBlock)] == ["one"]
    # The misfit arrives whole: its dict exactly as the CLI wrote it (not half converted).
    assert isinstance(assistants[1], cs.UnknownMessage)
    assert assistants[1].raw == misfit
    assert assistants[1].error is not None
    assert isinstance(assistants[2], cs.AssistantMessage)
    assert assistants[2].uuid == "u2"
    assert isinstance(messages[-1], cs.ResultMessage)


async def test_the_same_frames_written_another_way_are_decoded_by_the_reader() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        # ``uuid`` first, and a space after each colon: not the CLI's way of writing.
        reordered = orjson.dumps({"uuid": "u1", **ASSISTANT}).replace(b'":', b'": ')
        await cli.send_raw(reordered + b"\n")
        await cli.result()

    fake = FakeCLI(script)
    async with cs.open_session(transport=fake) as session:
        await session.send("go")
        messages = [m async for m in session.receive_response()]
    assert isinstance(messages[0], cs.AssistantMessage)
    assert messages[0].uuid == "u1"
    assert isinstance(messages[-1], cs.ResultMessage)


async def test_a_backlog_nobody_reads_does_not_hold_up_control_traffic() -> None:
    answered = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.send_raw(b"".join(_line({**ASSISTANT, "uuid": f"u{i}"}) for i in range(5000)))
        assert isinstance(await cli.can_use_tool("Read", {}), cs.PermissionAllow)
        answered.set()
        await cli.result()

    async def allow(name: str, tool_input: dict[str, Any], ctx: Any) -> cs.PermissionResult:
        return cs.PermissionAllow()

    fake = FakeCLI(script)
    async with cs.open_session(cs.Options(can_use_tool=allow), transport=fake) as session:
        await session.send("go")
        with anyio.fail_after(10):
            await answered.wait()  # answered before a single message was read
        messages = [m async for m in session.receive_response()]
    assert len(messages) == 5001
    assert [m.uuid for m in messages[:3]] == ["u0", "u1", "u2"]  # type: ignore[union-attr]

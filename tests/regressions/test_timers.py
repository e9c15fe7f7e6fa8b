"""Timers count what they say (issue 26, item 3).

``inactivity_timeout`` is silence on the CLI's output: bytes arriving, not complete lines.
[Before: it fired while the CLI wrote one byte every 20 ms (a line longer than the timeout
to arrive whole).] The CLI here writes one frame a byte at a time, for about three times the
timeout; silence of the same length still raises. The margins are wide (a byte every 30 ms
against a 0.6 s timeout), so a busy machine does not change the outcome.

Both transports that read bytes themselves are covered: the in-memory one (`FakeCLI`, an
AnyIO byte stream) and the real subprocess (non-blocking pipe reads).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI
from claude_sdk.transports.base import ByteStreamConnection, ConnectionWrapper
from claude_sdk.transports.subprocess import SubprocessTransport

FAKE_CLAUDE = Path(__file__).resolve().parent.parent / "support" / "fake_claude.py"
TIMEOUT = 0.6
PAUSE = 0.03  # seconds between two bytes: a frame of ~180 bytes takes ~9 timeouts


def trickled_frame(cli: ScriptedCLI, text: str) -> bytes:
    frame = {
        "type": "assistant",
        "message": {
            "id": "msg_trickle",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [{"type": "text", "text": text}],
        },
        "parent_tool_use_id": None,
        "session_id": cli.session_id,
    }
    return orjson.dumps(frame) + b"\n"


def trickling() -> Any:
    """A turn whose assistant frame arrives a byte every `PAUSE` seconds, then a result."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        data = trickled_frame(cli, "trickled")
        assert len(data) * PAUSE > 5 * TIMEOUT
        for i in range(len(data)):
            await cli.peer.write(data[i : i + 1])
            await anyio.sleep(PAUSE)
        await cli.result("done")
        await cli.serve_until_stdin_closes()

    return script


async def test_bytes_that_are_not_a_line_yet_are_not_silence() -> None:
    options = cs.Options(inactivity_timeout=TIMEOUT, shutdown_grace=1.0)
    with anyio.fail_after(30):
        async with cs.open_session(options, transport=FakeCLI(trickling())) as session:
            await session.send("go")
            messages = [m async for m in session.receive_response()]
    assert isinstance(messages[-1], cs.ResultMessage)
    assert [m.text for m in messages if isinstance(m, cs.AssistantMessage)] == ["trickled"]


async def test_silence_is_still_inactivity() -> None:
    async def silent(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.peer.write(b'{"type":"assistant",')  # a part of a line, then nothing
        await anyio.sleep_forever()

    options = cs.Options(inactivity_timeout=TIMEOUT, shutdown_grace=0.5)
    with anyio.fail_after(30), pytest.raises(cs.InactivityTimeoutError) as info:
        async with cs.open_session(options, transport=FakeCLI(silent)) as session:
            await session.send("go")
            async for _ in session.receive_response():
                pass
    assert info.value.timeout == TIMEOUT


@pytest.fixture
def fake_claude(tmp_path: Path) -> Path:
    path = tmp_path / "claude-fake"
    path.write_text(f"#!/bin/sh\nexec '{sys.executable}' -I -S '{FAKE_CLAUDE}' \"$@\"\n")
    path.chmod(0o755)
    return path


async def test_a_real_process_writing_a_byte_at_a_time_is_not_silent(fake_claude: Path) -> None:
    size = 1  # the frame is still ~150 bytes: ~7 timeouts to arrive
    options = cs.Options(
        cli_path=str(fake_claude),
        env={"FAKE_CLAUDE": f"trickle={int(PAUSE * 1000)}:{size}"},
        inactivity_timeout=TIMEOUT,
        shutdown_grace=1.0,
    )
    with anyio.fail_after(60):
        async with cs.open_session(options, transport=SubprocessTransport()) as session:
            await session.send("go")
            messages = [m async for m in session.receive_response()]
    assert isinstance(messages[-1], cs.ResultMessage)
    assert any(isinstance(m, cs.AssistantMessage) and len(m.text) == size for m in messages)


def test_every_connection_says_when_bytes_last_came() -> None:
    # The contract: a wrapper passes on what it wraps; the byte-stream connection keeps it.
    assert ByteStreamConnection.last_received is None  # until the first bytes
    assert isinstance(ConnectionWrapper.__dict__["last_received"], property)

"""A scripted CLI served as a process writes like a real one: what the script sent is on
stdout when `send` returns, so a script that then kills its own process (a CLI lost
mid-turn) loses none of it. (It did: the frames waited in memory for a pump, and the
engines' recipes resumed a session without the prompt the dying CLI had mirrored.)

This module imports nothing relative: the executable loads the scripts from this file.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

import claude_sdk as cs
from claude_sdk.testing import ScriptedCLI
from claude_sdk.testing.stdio import write_fake_cli

#: Frames the dying script writes after the prompt, before it kills itself.
BURST = 40
#: This file's script, as the executable loads it.
SCRIPT = f"{Path(__file__).resolve()}:dies_after_a_burst"


async def dies_after_a_burst(cli: ScriptedCLI) -> None:
    await cli.handshake()
    await cli.next_prompt()
    await cli.state("running")
    for n in range(BURST):
        await cli.unknown_frame("burst_frame", n=n)
    os.kill(os.getpid(), signal.SIGKILL)


async def test_frames_written_before_a_sigkill_reach_the_sdk(tmp_path: Path) -> None:
    cli = write_fake_cli(tmp_path / "claude", script=SCRIPT)
    seen: list[int] = []
    with pytest.raises(cs.ProcessError) as caught:
        async with cs.open_session(cs.Options(cli_path=str(cli), cwd=str(tmp_path))) as session:
            await session.send("go")
            async for message in session.receive_messages():
                raw = getattr(message, "raw", None) or {}
                if isinstance(raw, dict) and raw.get("type") == "burst_frame":
                    seen.append(raw["n"])
    assert "SIGKILL" in str(caught.value)
    assert seen == list(range(BURST))

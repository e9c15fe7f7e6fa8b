"""``python -m claude_sdk "prompt"`` with the real CLI against FakeMessagesAPI."""

from __future__ import annotations

import json
import sys

import anyio

from .conftest import E2E


async def run(e2e: E2E, *args: str) -> tuple[int, str, str]:
    env = {**e2e.api.env(), "HOME": str(e2e.home), "CLAUDE_SDK_CLI_PATH": e2e.cli}
    done = await anyio.run_process(
        [sys.executable, "-m", "claude_sdk", *args, "--cwd", str(e2e.cwd)],
        env=env,
        check=False,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


async def test_a_prompt_streams_and_exits_0(e2e: E2E) -> None:
    e2e.api.reply(text="The answer is 4.")
    code, out, err = await run(e2e, "What is 2 + 2?", "--model", "claude-opus-5-5")
    assert code == 0, err
    assert "claude> The answer is 4." in out
    assert "[result] success" in out
    assert e2e.api.main_requests[0].model == "claude-opus-5-5"


async def test_json_prints_frames_and_an_error_result_exits_1(e2e: E2E) -> None:
    e2e.api.reply(error=529, times=None)
    code, out, _ = await run(e2e, "hi", "--json")
    assert code == 1
    frames = [json.loads(line) for line in out.splitlines()]
    assert frames[-1]["type"] == "result"
    assert frames[-1]["is_error"] is True

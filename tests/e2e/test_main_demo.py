"""``python -m claude_sdk demo`` with the real CLI: what it says is what happened (issue 16).

The real CLI (found through ``CLAUDE_SDK_CLI_PATH``) runs against the demo's own
FakeMessagesAPI, offline; and a prompt shows the progress the real CLI reports.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import anyio

from .conftest import E2E


def run_demo(claude_cli: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAUDE_SDK_CLI_PATH": claude_cli}
    return subprocess.run(
        [sys.executable, "-m", "claude_sdk", "demo", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_the_real_demo_reports_the_file_it_really_wrote(claude_cli: str) -> None:
    done = run_demo(claude_cli)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "simulated" not in out
    assert "[real] The Claude Code CLI ran the Bash command" in out
    assert "[check] demo.txt on disk: 'hello from claude_sdk'" in out
    # The file was written in a temporary working directory, which is gone again.
    workdir = re.search(r"the CLI's Bash tool wrote it in (\S+),", out)
    assert workdir is not None, out
    assert not Path(workdir.group(1)).exists()
    source = re.search(r"^The code of this demo: (.+)$", out, re.MULTILINE)
    assert source is not None
    assert Path(source.group(1)).is_file()
    # Progress the CLI reported (its status frames) went to stderr, as plain lines.
    assert "[progress] requesting a model response" in done.stderr.splitlines()


def test_the_real_demo_with_json_prints_only_frames(claude_cli: str) -> None:
    done = run_demo(claude_cli, "--json", "--backend", "trio")
    assert done.returncode == 0, done.stdout + done.stderr
    frames = [json.loads(line) for line in done.stdout.splitlines()]
    assert frames[-1]["type"] == "result"
    assert frames[-1]["is_error"] is False
    assert "[check] demo.txt on disk: 'hello from claude_sdk'" in done.stderr


async def test_a_prompt_shows_the_real_cli_s_api_retries(e2e: E2E) -> None:
    e2e.api.reply(error=529, times=None)
    env = {
        **e2e.api.env(),
        "HOME": str(e2e.home),
        "CLAUDE_SDK_CLI_PATH": e2e.cli,
        "CLAUDE_CODE_MAX_RETRIES": "2",
    }
    done = await anyio.run_process(
        [sys.executable, "-m", "claude_sdk", "hi", "--cwd", str(e2e.cwd)], env=env, check=False
    )
    err = done.stderr.decode()
    assert done.returncode == 1, err
    retries = [line for line in err.splitlines() if "API retry" in line]
    assert len(retries) == 2, err
    for n, line in enumerate(retries, 1):
        assert re.fullmatch(
            rf"\[progress\] API retry attempt {n} of 2 in \d+\.\d s \(HTTP 529, overloaded\)", line
        ), line
    assert "[progress] requesting a model response" in err.splitlines()
    out = done.stdout.decode().splitlines()
    # The CLI ends an API error as subtype "success" with is_error: the line says "error".
    assert "[result] error, 1 model turn(s), cost $0" in out, out
    assert any(line.startswith("[error] API Error:") for line in out), out

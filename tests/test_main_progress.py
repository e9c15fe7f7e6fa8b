"""``python -m claude_sdk "prompt"`` shows the progress the CLI reports (issue 16, item 6).

The command runs as a real subprocess, through pipes, against a real process that plays a
FakeCLI script: ``--cli-path`` names an executable from `claude_sdk.testing.stdio`'s
``write_fake_cli``, which loads the script from this file by its path. So this module imports
nothing relative (``tests.`` is not importable there). ``tests/test_main_pty.py`` runs the
same scripts on a terminal, ``tests/test_main.py`` uses `pauses_after_the_first_line`.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest

from claude_sdk.testing import ScriptedCLI
from claude_sdk.testing.stdio import write_fake_cli

#: The environment variable naming the socket `pauses_after_the_first_line` waits on.
GO = "CLAUDE_SDK_TEST_GO_SOCKET"

#: What the progress script reports, as the command line should show it (stderr, on a pipe).
PROGRESS_LINES = (
    "[progress] requesting a model response",
    "[progress] API retry attempt 1 of 10 in 0.5 s (HTTP 529, overloaded)",
    "[progress] API retry attempt 2 of 10 in 17 s (HTTP 503, api_error)",
    "[progress] API retry attempt 3 of 10 in 3 min 22 s (no response after 45 s)",
    "[progress] Bash running for 4.0 s",
    "[progress] Bash running for 38 s",
    "[progress] compacting the conversation",
    "[progress] task index the repository: 3 tool uses, 1,234 tokens, 12 s, last tool Grep",
)
#: ... and what it puts in the transcript (stdout).
TRANSCRIPT_LINES = (
    "[tool call] Bash {'command': 'make'}",
    "[tool result, ok] built",
    "[compacted] auto compaction: 150,000 -> 15,000 tokens",
    "[task] started: index the repository (local_agent)",
    "[task] completed: index the repository: indexed 12 files",
    "claude> All done.",
    "[result] success, 2 model turn(s), cost $0",
)


def _system(cli: ScriptedCLI, subtype: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": subtype,
        **fields,
        "session_id": cli.session_id,
        "uuid": str(uuid.uuid4()),
    }


async def progress_script(cli: ScriptedCLI) -> None:
    """A turn with API retries, a long tool, a compaction and a background task."""
    await cli.handshake()
    await cli.next_prompt()
    await cli.state("running")
    await cli.system_init()
    await cli.status("requesting")
    retry = {"max_retries": 10}
    await cli.send(
        _system(
            cli, "api_retry", attempt=1, retry_delay_ms=532, error_status=529, error="overloaded"
        )
        | retry
    )
    await cli.send(
        _system(
            cli, "api_retry", attempt=2, retry_delay_ms=17_200, error_status=503, error="api_error"
        )
        | retry
    )
    no_response = {"waited_ms": 45_000, "retry_wait_ms": 202_000}
    await cli.send(
        _system(
            cli,
            "api_retry",
            attempt=3,
            retry_delay_ms=202_000,
            error_status=None,
            no_response=no_response,
        )
        | retry
    )
    await cli.assistant(tool_use=("Bash", {"command": "make"}, "toolu_make"))
    for elapsed in (4.0, 37.6):
        await cli.send(
            {
                "type": "tool_progress",
                "tool_use_id": "toolu_make",
                "tool_name": "Bash",
                "parent_tool_use_id": None,
                "elapsed_time_seconds": elapsed,
                "session_id": cli.session_id,
                "uuid": str(uuid.uuid4()),
            }
        )
    await cli.user_tool_result("toolu_make", "built")
    await cli.compact(trigger="auto", pre_tokens=150_000)
    task = {"task_id": "t1", "description": "index the repository"}
    await cli.send(_system(cli, "task_started", **task, task_type="local_agent"))
    usage = {"total_tokens": 1234, "tool_uses": 3, "duration_ms": 12_000}
    await cli.send(_system(cli, "task_progress", **task, usage=usage, last_tool_name="Grep"))
    await cli.send(
        _system(
            cli,
            "task_notification",
            task_id="t1",
            status="completed",
            output_file="",
            summary="indexed 12 files",
        )
    )
    await cli.assistant(text="All done.")
    await cli.result("All done.", num_turns=2, total_cost_usd=0)
    await cli.state("idle")
    await cli.serve_until_stdin_closes()


async def pauses_after_the_first_line(cli: ScriptedCLI) -> None:
    """One answer, then wait for the test's go (on a socket), then many more."""
    await cli.handshake()
    await cli.next_prompt()
    await cli.state("running")
    await cli.system_init()
    await cli.assistant(text="first line")

    def wait_for_go() -> None:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(os.environ[GO])
            sock.recv(1)

    await anyio.to_thread.run_sync(wait_for_go)
    for n in range(100):
        await cli.assistant(text=f"line {n}")
    await cli.result("done")
    await cli.state("idle")
    await cli.serve_until_stdin_closes()


def fake_cli(directory: Path, script: str) -> Path:
    """An executable playing ``script`` (a function of this file) as the Claude Code CLI."""
    directory.mkdir(parents=True, exist_ok=True)
    return write_fake_cli(directory / "claude", script=f"{Path(__file__).resolve()}:{script}")


def run_main(
    *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "claude_sdk", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )


@pytest.fixture
def progress_cli(tmp_path: Path) -> Path:
    return fake_cli(tmp_path / "bin", "progress_script")


def assert_no_control_characters(text: str) -> None:
    assert "\r" not in text
    assert "\x1b" not in text


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_progress_on_a_pipe_is_plain_lines_on_stderr(
    progress_cli: Path, tmp_path: Path, backend: str
) -> None:
    done = run_main(
        "build it", "--cli-path", str(progress_cli), "--cwd", str(tmp_path), "--backend", backend
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == list(PROGRESS_LINES)
    out = done.stdout.splitlines()
    positions = [out.index(line) for line in TRANSCRIPT_LINES]
    assert positions == sorted(positions), done.stdout
    assert "[progress]" not in done.stdout
    assert_no_control_characters(done.stdout + done.stderr)


def test_json_output_is_exactly_the_frames(progress_cli: Path, tmp_path: Path) -> None:
    done = run_main("build it", "--json", "--cli-path", str(progress_cli), "--cwd", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    frames = [json.loads(line) for line in done.stdout.splitlines()]
    retries = [f for f in frames if f["type"] == "system" and f["subtype"] == "api_retry"]
    assert [f["attempt"] for f in retries] == [1, 2, 3]
    assert retries[0]["retry_delay_ms"] == 532
    assert [f["elapsed_time_seconds"] for f in frames if f["type"] == "tool_progress"] == [
        4.0,
        37.6,
    ]
    assert frames[-1]["type"] == "result"


async def subagent_script(cli: ScriptedCLI) -> None:
    """A subagent's run: its tool's progress, its answer, its task frames."""
    await cli.handshake()
    await cli.next_prompt()
    await cli.state("running")
    await cli.system_init()
    await cli.send(
        {
            "type": "tool_progress",
            "tool_use_id": "toolu_grep",
            "tool_name": "Grep",
            "parent_tool_use_id": "toolu_agent",
            "elapsed_time_seconds": 2.5,
            "subagent_type": "Explore",
            "session_id": cli.session_id,
            "uuid": str(uuid.uuid4()),
        }
    )
    await cli.subagent(
        "explore the code",
        "Look around.",
        "Found 3 modules.",
        subagent_type="Explore",
        tool_use_id="toolu_agent",
    )
    await cli.assistant(text="There are 3 modules.")
    await cli.result("There are 3 modules.", num_turns=2, total_cost_usd=0)
    await cli.state("idle")
    await cli.serve_until_stdin_closes()


def test_a_subagent_is_shown_as_one(tmp_path: Path) -> None:
    cli = fake_cli(tmp_path / "bin", "subagent_script")
    done = run_main("explore", "--cli-path", str(cli), "--cwd", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == ["[progress] Grep running for 2.5 s (subagent Explore)"]
    out = done.stdout.splitlines()
    assert out[0].startswith("[tool call] Agent {'description': 'explore the code'")
    assert out[1:] == [
        "[task] started: explore the code (Explore)",
        "[subagent] Found 3 modules.",
        "[task] completed: explore the code: Found 3 modules.",
        "[tool result, ok] Found 3 modules.",
        "claude> There are 3 modules.",
        "[result] success, 2 model turn(s), cost $0",
    ]

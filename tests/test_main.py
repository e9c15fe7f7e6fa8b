"""``python -m claude_sdk``: the demo runs (scripted FakeCLI here; the real CLI in e2e)."""

from __future__ import annotations

import subprocess
import sys


def test_the_demo_runs_against_the_fake_cli() -> None:
    for backend in ("asyncio", "trio"):
        done = subprocess.run(
            [sys.executable, "-m", "claude_sdk", "demo", "--fake", "--backend", backend],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        out = done.stdout
        for expected in (
            "[tool call] Bash",
            "[hook] PreToolUse Bash",
            "-> allowed by the callback",
            "[hook] PostToolUse Bash finished",
            "[tool result, ok] hello from claude_sdk",
            "[result] success",
        ):
            assert expected in out, out


def test_a_missing_cli_for_a_prompt_is_a_clear_error() -> None:
    env = {"PATH": "/nonexistent", "HOME": "/nonexistent"}
    done = subprocess.run(
        [sys.executable, "-m", "claude_sdk", "hello"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert done.returncode == 2
    assert "not found" in done.stderr

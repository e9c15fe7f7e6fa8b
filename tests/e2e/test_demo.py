"""``python -m claude_sdk demo`` with the real CLI (found through CLAUDE_SDK_CLI_PATH)."""

from __future__ import annotations

import os
import re
import subprocess
import sys


def test_the_demo_runs_the_real_cli_offline(claude_cli: str) -> None:
    env = {**os.environ, "CLAUDE_SDK_CLI_PATH": claude_cli}
    done = subprocess.run(
        [sys.executable, "-m", "claude_sdk", "demo"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "Running the real Claude Code CLI" in out
    assert re.search(r"\[session\] CLI \d+\.\d+\.\d+, pid \d+", out), out
    assert "[permission] Bash" in out
    assert "[hook] PreToolUse Bash" in out
    assert "[check] demo.txt on disk: 'hello from claude_sdk'" in out

"""``python -m claude_sdk`` on a terminal (a pseudo-terminal from ``os.openpty``).

On a terminal the progress the CLI reports is one line on stderr, rewritten in place
(``\\r`` + erase to the end of the line), and it is gone from the screen once the turn ends:
what stays on the screen is exactly the transcript a pipe gets.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from .test_main_progress import PROGRESS_LINES, TRANSCRIPT_LINES, fake_cli, run_main

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux ptys")

ERASE = "\r\x1b[K"


def run_on_pty(
    *args: str, stdout_on_pty: bool = True, columns: int = 200, timeout: float = 60
) -> tuple[int, str, str]:
    """Run ``python -m claude_sdk`` with stderr (and stdout) on a terminal.

    Returns the exit status, what the terminal received (``\\r\\n`` turned back into
    ``\\n``) and what the stdout pipe received (empty when stdout is on the terminal).
    """
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "claude_sdk", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave if stdout_on_pty else subprocess.PIPE,
        stderr=slave,
    )
    os.close(slave)
    received = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], deadline - time.monotonic())
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not chunk:
                break
            received += chunk
    finally:
        os.close(master)
    piped = ""
    if proc.stdout is not None:
        with proc.stdout:
            piped = proc.stdout.read().decode()
    code = proc.wait(timeout=max(deadline - time.monotonic(), 1))
    return code, received.decode().replace("\r\n", "\n"), piped


def drawn(terminal: str) -> list[str]:
    """The progress labels drawn on the terminal, in order, without the spinner."""
    parts = terminal.replace("\n", ERASE).split(ERASE)
    return [part[2:] for part in parts if part[:2] in ("| ", "/ ", "- ", "\\ ")]


def screen(terminal: str) -> list[str]:
    """The lines left visible: each line's text after its last carriage return."""
    return [line.rpartition("\r")[2].replace("\x1b[K", "") for line in terminal.split("\n")]


@pytest.fixture
def progress_cli(tmp_path: Path) -> Path:
    return fake_cli(tmp_path / "bin", "progress_script")


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_progress_is_rewritten_in_place_and_gone_at_the_end(
    progress_cli: Path, tmp_path: Path, backend: str
) -> None:
    code, terminal, _ = run_on_pty(
        "build it", "--cli-path", str(progress_cli), "--cwd", str(tmp_path), "--backend", backend
    )
    assert code == 0, terminal
    assert ERASE in terminal
    assert "[progress]" not in terminal
    labels = drawn(terminal)
    for line in PROGRESS_LINES:
        assert line.removeprefix("[progress] ") in labels, labels
    # What stays on the screen is the transcript, with nothing after it.
    assert [line for line in screen(terminal) if line] == list(TRANSCRIPT_LINES)
    assert screen(terminal)[-1] == ""


def test_progress_on_a_terminal_leaves_a_piped_stdout_clean(
    progress_cli: Path, tmp_path: Path
) -> None:
    code, terminal, piped = run_on_pty(
        "build it",
        "--cli-path",
        str(progress_cli),
        "--cwd",
        str(tmp_path),
        stdout_on_pty=False,
    )
    assert code == 0, terminal
    assert piped.splitlines() == list(TRANSCRIPT_LINES)
    assert "API retry attempt 3 of 10 in 3 min 22 s (no response after 45 s)" in drawn(terminal)
    assert [line for line in screen(terminal) if line] == []


def test_a_progress_line_is_cut_to_the_terminal_width(progress_cli: Path, tmp_path: Path) -> None:
    code, terminal, _ = run_on_pty(
        "build it", "--cli-path", str(progress_cli), "--cwd", str(tmp_path), columns=40
    )
    assert code == 0, terminal
    labels = drawn(terminal)
    assert "API retry attempt 1 of 10 in 0.5 s (H" in labels
    assert all(len(label) <= 39 - 2 for label in labels), labels


def test_version_on_a_terminal(tmp_path: Path) -> None:
    code, terminal, _ = run_on_pty("--version")
    assert code == 0
    lines = terminal.splitlines()
    assert lines[0].startswith("claude-sdk-py ")
    assert lines[1].startswith("Claude Code CLI: ")
    assert "\x1b" not in terminal


def test_the_demo_on_a_terminal_leaves_the_transcript_a_pipe_gets() -> None:
    code, terminal, _ = run_on_pty("demo", "--fake")
    assert code == 0, terminal
    piped = run_main("demo", "--fake")
    assert piped.returncode == 0
    assert screen(terminal) == piped.stdout.split("\n")

"""A newline after a pipeline of three or more commands ended nothing: tree-sitter-bash reads
``a | b | c <newline> d && e`` as ``c d`` (``d`` an argument of ``c``), so
``require_command("ls")`` let ``ls | ls | ls <newline> rm -rf build && ls`` through (found by
the hypothesis test of tests/test_policies.py in a clean-clone CI run). An unescaped newline
between two words of a command now ends it, as in bash; a backslash-continued one does not.

Checked against real bash: the commands the scan sees are the commands bash runs."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from claude_sdk._shell import parse, scan
from claude_sdk.policies import require_command

NAMES = ("a", "b", "c", "d", "e", "f")
bash = shutil.which("bash")


def seen_by_scan(command: str) -> list[list[str]]:
    return [sub.written for sub in scan._commands(command, parse.Steps())]


def run_by_bash(command: str) -> list[list[str]]:
    """The commands bash runs, each a function that logs its name and arguments."""
    assert bash is not None
    define = "".join(f'{n}() {{ echo "{n} $*" >&2; true; }}; ' for n in NAMES)
    done = subprocess.run(
        [bash, "--noprofile", "--norc", "-c", define + command],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    return [line.split() for line in done.stderr.splitlines() if line.strip()]


def test_the_case_found() -> None:
    policy = require_command("ls")
    command = "ls | ls | ls \n rm -rf build && ls"
    decision = policy.decide("Bash", {"command": command})
    assert decision.kind == "deny"
    assert "rm -rf build" in decision.reason
    assert seen_by_scan("a | b | c \n d && e") == [["a"], ["b"], ["c"], ["d"], ["e"]]
    assert seen_by_scan("a | b | c \\\n d && e") == [["a"], ["b"], ["c", "d"], ["e"]]


@pytest.mark.skipif(bash is None, reason="bash is not installed")
@settings(max_examples=150, deadline=None)
@given(
    parts=st.lists(
        st.tuples(
            st.lists(st.sampled_from(NAMES), min_size=1, max_size=3),  # a command and args
            st.sampled_from([" | ", " | ", " |\n", " \n ", "\n", " && ", " ; ", " \\\n "]),
        ),
        min_size=1,
        max_size=6,
    )
)
@example(parts=[(["a"], " | "), (["b"], " | "), (["c"], " \n "), (["d"], " && "), (["e"], "")])
@example(parts=[(["a"], " | "), (["b", "f"], " | "), (["c"], "\n"), (["d"], " ; "), (["e"], "")])
def test_the_scan_sees_the_commands_bash_runs(parts: list[tuple[list[str], str]]) -> None:
    command = "".join(" ".join(words) + sep for words, sep in parts[:-1])
    command += " ".join(parts[-1][0])
    # Every function succeeds, so bash runs every command: the same commands, in some order
    # (a pipeline's run concurrently).
    assert sorted(run_by_bash(command)) == sorted(seen_by_scan(command)), repr(command)

"""``python -m claude_sdk``: the demo (scripted FakeCLI here; the real CLI in e2e), --version,
a closed output pipe, a missing Trio, and one-line errors (issue 16, items 6 and 7).

Every test runs the command as a subprocess. Progress rendering is in
``tests/test_main_progress.py`` (pipes) and ``tests/test_main_pty.py`` (a terminal).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from claude_sdk._version import __version__

from .test_main_progress import GO, fake_cli, run_main


def without(*modules: str) -> str:
    """``python -c`` code: ``modules`` made unimportable (``import`` raises ImportError),
    then the command line, with the arguments that follow."""
    blocked = "".join(f"sys.modules[{name!r}] = None; " for name in modules)
    return (
        f"import runpy, sys; {blocked}"
        "runpy.run_module('claude_sdk', run_name='__main__', alter_sys=True)"
    )


WITHOUT_TRIO = without("trio")
TRIO_HINT = "pip install 'claude-sdk-py[trio]'"


def test_the_demo_runs_against_the_fake_cli() -> None:
    for backend in ("asyncio", "trio"):
        done = run_main("demo", "--fake", "--backend", backend)
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


# ---------------------------------------------------------------------------------------
# item 7: a demo that teaches


def demo_source(out: str) -> Path:
    found = re.findall(r"^The code of this demo: (.+)$", out, re.MULTILINE)
    assert len(found) == 1, out
    return Path(found[0])


def next_commands(out: str) -> list[str]:
    """The commands the demo suggests (``  $ command  # what``)."""
    return [
        line.removeprefix("  $ ").partition("  # ")[0].strip()
        for line in out.splitlines()
        if line.startswith("  $ ")
    ]


@pytest.mark.parametrize("why", ["--fake", "no CLI"])
def test_the_simulated_demo_says_so_and_claims_no_file(why: str) -> None:
    if why == "--fake":
        done = run_main("demo", "--fake")
    else:  # nothing to find: the demo falls back to the FakeCLI on its own
        env = {**os.environ, "PATH": "/nonexistent", "HOME": "/nonexistent"}
        env.pop("CLAUDE_SDK_CLI_PATH", None)
        done = run_main("demo", env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "this run is simulated" in out
    assert "[simulated]" in out
    assert "demo.txt" not in out  # nothing was written, so no file is named
    assert "cost $0\n" in out  # nothing was billed
    assert ("No Claude Code CLI found" in out) == (why == "no CLI")


def test_the_demo_names_its_own_source_file() -> None:
    done = run_main("demo", "--fake")
    source = demo_source(done.stdout)
    assert source.is_absolute()
    assert source.is_file()
    text = source.read_text()
    assert "FakeCLI(script)" in text
    assert "can_use_tool" in text
    assert "PreToolUse" in text


def test_every_command_the_demo_suggests_works() -> None:
    done = run_main("demo", "--fake")
    commands = next_commands(done.stdout)
    assert any("--backend trio" in c for c in commands), done.stdout
    assert any("claude_sdk.tools" in c for c in commands)
    assert any("claude_sdk.testing.fake_cli" in c for c in commands)
    assert any("pytest_plugin" in c for c in commands)
    for command in commands:
        ran = subprocess.run(
            shlex.split(command), capture_output=True, text=True, timeout=120, check=False
        )
        assert ran.returncode == 0, f"{command}: {ran.stdout}{ran.stderr}"
        assert "Traceback" not in ran.stderr, command


def test_the_demo_on_trio_suggests_asyncio() -> None:
    done = run_main("demo", "--fake", "--backend", "trio")
    commands = next_commands(done.stdout)
    assert not any("--backend trio" in c for c in commands)
    assert any(c.endswith("-m claude_sdk demo") for c in commands), done.stdout


def test_without_trio_the_demo_names_the_install() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_TRIO, "demo", "--fake"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert not any("--backend trio" in c for c in next_commands(done.stdout))
    assert f"Trio: {TRIO_HINT}, then add --backend trio" in done.stdout


def test_without_pytest_the_demo_does_not_suggest_the_pytest_plugin() -> None:
    done = subprocess.run(
        [sys.executable, "-c", without("pytest"), "demo", "--fake"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    commands = next_commands(done.stdout)
    assert any("claude_sdk.testing.fake_cli" in c for c in commands)
    assert not any("pytest_plugin" in c for c in commands)


# ---------------------------------------------------------------------------------------
# demo --json


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_demo_json_prints_only_frames_on_stdout(backend: str) -> None:
    done = run_main("demo", "--fake", "--json", "--backend", backend)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    frames = [json.loads(line) for line in lines]  # every line is one JSON frame
    assert all(isinstance(f, dict) and "type" in f for f in frames)
    kinds = [f["type"] for f in frames]
    assert "assistant" in kinds
    assert "stream_event" not in kinds  # --json asks for whole messages, as for a prompt
    assert kinds[-1] == "result"
    tool_calls = [
        block["name"]
        for f in frames
        if f["type"] == "assistant"
        for block in f["message"]["content"]
        if block["type"] == "tool_use"
    ]
    assert tool_calls == ["Bash"]
    # The notes (callback, hooks, closing text) go to stderr.
    assert "-> allowed by the callback" in done.stderr
    assert "[simulated]" in done.stderr
    assert demo_source(done.stderr).is_file()


# ---------------------------------------------------------------------------------------
# --version


def test_version_names_the_sdk_and_the_cli_without_starting_it(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    cli = tmp_path / "claude"
    cli.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\nexec sleep 30\n")
    cli.chmod(0o755)
    done = run_main("--version", "--cli-path", str(cli), timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"claude-sdk-py {__version__} (")
    assert lines[1] == f"Claude Code CLI: {cli}"
    assert len(lines) == 2
    assert not marker.exists()


def test_version_without_a_cli() -> None:
    env = {**os.environ, "PATH": "/nonexistent", "HOME": "/nonexistent"}
    env.pop("CLAUDE_SDK_CLI_PATH", None)
    done = run_main("--version", env=env, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1] == "Claude Code CLI: not found"


def test_version_honours_claude_sdk_cli_path(tmp_path: Path) -> None:
    cli = tmp_path / "my-claude"
    cli.write_text("#!/bin/sh\nexit 1\n")
    cli.chmod(0o755)
    done = run_main("--version", env={**os.environ, "CLAUDE_SDK_CLI_PATH": str(cli)}, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1] == f"Claude Code CLI: {cli}"


# ---------------------------------------------------------------------------------------
# the reader of the output goes away


@pytest.fixture
def go_socket() -> Iterator[tuple[socket.socket, str]]:
    # A short directory: a socket path has about 100 bytes at most.
    with tempfile.TemporaryDirectory(prefix="cs-") as tmp, socket.socket(socket.AF_UNIX) as sock:
        path = os.path.join(tmp, "go")
        sock.bind(path)
        sock.listen(1)
        sock.settimeout(30)
        yield sock, path


@pytest.mark.parametrize(("json_flag", "backend"), [(False, "asyncio"), (True, "trio")])
def test_a_closed_pipe_mid_turn_ends_quietly(
    tmp_path: Path, go_socket: tuple[socket.socket, str], json_flag: bool, backend: str
) -> None:
    server, path = go_socket
    cli = fake_cli(tmp_path / "bin", "pauses_after_the_first_line")
    args = ["hello", "--cli-path", str(cli), "--cwd", str(tmp_path), "--backend", backend]
    proc = subprocess.Popen(
        [sys.executable, "-m", "claude_sdk", *args, *(["--json"] if json_flag else [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, GO: path},
    )
    try:
        assert proc.stdout is not None
        # Read up to the answer written before the pause, then go away (``| head -n``).
        lines = [proc.stdout.readline()]
        while lines[-1] and b"first line" not in lines[-1]:
            lines.append(proc.stdout.readline())
        proc.stdout.close()
        if json_flag:
            assert json.loads(lines[-1])["type"] == "assistant"
        else:
            assert lines == [b"claude> first line\n"]
        conn, _ = server.accept()  # the fake CLI waits here; let it write more
        conn.close()
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stderr is not None
        with proc.stderr:
            err = proc.stderr.read().decode()
    assert code == 141, err
    assert err == ""


def assert_quiet(err: str, *, json_flag: bool) -> None:
    """Nothing about the closed pipe on stderr (with --json, the demo's notes go there)."""
    if not json_flag:
        assert err == ""
    assert "Traceback" not in err
    assert "Exception ignored" not in err
    assert "Broken pipe" not in err
    assert "error" not in err


def run_with_closed_stdout(*args: str) -> tuple[int, str]:
    """Run with stdout a pipe whose reader is already gone."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "claude_sdk", *args],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write)
    return done.returncode, done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("demo", "--fake"),
        ("demo", "--fake", "--json"),
        ("demo", "--fake", "--backend", "trio"),
        ("--version",),
    ],
    ids=" ".join,
)
def test_a_closed_stdout_ends_quietly(args: tuple[str, ...]) -> None:
    code, err = run_with_closed_stdout(*args)
    assert code == 141, err
    assert_quiet(err, json_flag="--json" in args)


@pytest.mark.parametrize("args", ["demo --fake", "demo --fake --json"])
def test_head_1_gets_one_line_and_no_traceback(args: str) -> None:
    command = f"{shlex.quote(sys.executable)} -m claude_sdk {args} | head -1"
    done = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) == 1
    assert_quiet(done.stderr, json_flag="--json" in args)


# ---------------------------------------------------------------------------------------
# expected errors: one line, no traceback


@pytest.mark.parametrize("args", [("demo", "--fake"), ("hello",)], ids=" ".join)
def test_a_missing_trio_is_one_line_naming_the_install(args: tuple[str, ...]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_TRIO, *args, "--backend", "trio"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"error: the Trio backend needs trio, which is not installed: {TRIO_HINT}"
    ]


def no_cli_env() -> dict[str, str]:
    env = {"PATH": "/nonexistent", "HOME": "/nonexistent"}
    if "SYSTEMROOT" in os.environ:  # pragma: no cover - Windows
        env["SYSTEMROOT"] = os.environ["SYSTEMROOT"]
    return env


def test_a_missing_cli_for_a_prompt_is_a_clear_error() -> None:
    done = run_main("hello", env=no_cli_env())
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: Claude Code CLI not found: ")
    assert "--cli-path" in lines[0]
    assert "Traceback" not in done.stderr


def test_a_missing_cli_path_for_the_demo_is_an_error_not_a_simulation(tmp_path: Path) -> None:
    done = run_main("demo", "--cli-path", str(tmp_path / "nope"))
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "not found" in done.stderr
    assert "simulated" not in done.stdout


def test_debug_shows_the_details_and_the_traceback() -> None:
    done = run_main("hello", "--debug", env=no_cli_env())
    assert done.returncode == 2
    assert "searched:" in done.stderr
    assert "Traceback" in done.stderr
    assert "CLINotFoundError" in done.stderr


def test_a_crashing_cli_is_one_line_with_its_last_words(tmp_path: Path) -> None:
    cli = tmp_path / "claude"
    cli.write_text(
        "#!/bin/sh\necho 'something went wrong' >&2\necho 'fatal: no luck' >&2\nexit 3\n"
    )
    cli.chmod(0o755)
    done = run_main("hello", "--cli-path", str(cli), "--cwd", str(tmp_path))
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "fatal: no luck" in lines[0]
    assert "(--debug shows the details)" in lines[0]


def test_no_prompt_is_a_usage_error() -> None:
    done = run_main()
    assert done.returncode == 2
    assert "a prompt is needed" in done.stderr
    assert "Traceback" not in done.stderr

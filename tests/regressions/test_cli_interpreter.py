"""A ``cli_path`` that exists but cannot run says why (issue 14).

Real scripts in ``tmp_path``, spawned by `SubprocessTransport`, on asyncio and Trio. A script
whose ``#!`` interpreter is missing used to be reported as if the CLI itself did not exist
(`CLINotFoundError`, from exec's ENOENT); now it is a ``ProcessError(kind="spawn")`` naming
the script and the interpreter. The same for an interpreter that is a directory or not
executable, ``#!/usr/bin/env`` with a program that is not on the CLI's ``PATH``, Windows
line endings, a script that is not executable, and a binary whose dynamic loader is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import claude_sdk as cs
from claude_sdk.transports.subprocess import SubprocessTransport, _elf_interpreter

FAKE = Path(__file__).resolve().parent.parent / "support" / "fake_claude.py"


def script(directory: Path, first_line: str, *, mode: int = 0o755, name: str = "claude") -> Path:
    path = directory / name
    path.write_bytes(first_line.encode() + b"\necho never ran >&2\n")
    path.chmod(mode)
    return path


async def spawn_error(cli: Path, **options: object) -> cs.ProcessError:
    """The error ``open_session`` raises for ``cli``, which must be a spawn failure."""
    opts = cs.Options(cli_path=cli, initialize_timeout=10, **options)  # type: ignore[arg-type]
    with pytest.raises(cs.ProcessError) as info:
        async with cs.open_session(opts, transport=SubprocessTransport()):
            pass
    error = info.value
    assert not isinstance(error, cs.CLINotFoundError)
    assert error.kind == "spawn"
    assert error.cli_path == str(cli)
    assert str(cli) in str(error)
    return error


async def test_a_missing_interpreter_is_named(tmp_path: Path) -> None:
    cli = script(tmp_path, "#!/nonexistent/python3")
    error = await spawn_error(cli)
    assert "/nonexistent/python3" in str(error)
    assert "does not exist" in str(error)


async def test_a_missing_interpreter_with_an_argument_is_named(tmp_path: Path) -> None:
    cli = script(tmp_path, "#!  /nonexistent/node --max-old-space-size=100")
    error = await spawn_error(cli)
    assert "its interpreter /nonexistent/node " in str(error)


async def test_an_interpreter_that_is_a_directory(tmp_path: Path) -> None:
    cli = script(tmp_path, f"#!{tmp_path}")
    error = await spawn_error(cli)
    assert f"{tmp_path} (named by its '#!' line) is a directory" in str(error)


async def test_an_interpreter_that_is_not_executable(tmp_path: Path) -> None:
    interpreter = tmp_path / "interp"
    interpreter.write_text("")
    interpreter.chmod(0o644)
    cli = script(tmp_path, f"#!{interpreter}")
    error = await spawn_error(cli)
    assert f"{interpreter} (named by its '#!' line) is not executable" in str(error)


async def test_an_interpreter_that_is_a_broken_script(tmp_path: Path) -> None:
    inner = script(tmp_path, "#!/nonexistent/sh", name="inner")
    cli = script(tmp_path, f"#!{inner}")
    error = await spawn_error(cli)
    assert str(inner) in str(error)
    assert "/nonexistent/sh" in str(error)


async def test_env_with_a_program_missing_from_path(tmp_path: Path) -> None:
    cli = script(tmp_path, "#!/usr/bin/env no-such-program-issue-14")
    error = await spawn_error(cli)
    assert "no-such-program-issue-14" in str(error)
    assert "PATH" in str(error)


async def test_env_without_split_reads_one_program_name(tmp_path: Path) -> None:
    cli = script(tmp_path, "#!/usr/bin/env sh -e")
    error = await spawn_error(cli)
    assert "'sh -e'" in str(error)
    assert "-S" in str(error)


async def test_env_looks_in_the_path_the_cli_gets(tmp_path: Path) -> None:
    """No false alarm: a program found only on ``Options.env["PATH"]`` runs (and a missing
    one is looked for there, not in this process's PATH)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python-issue-14").symlink_to(sys.executable)
    cli = tmp_path / "claude"
    body = FAKE.read_text(encoding="utf-8").split("\n", 1)[1]
    cli.write_text("#!/usr/bin/env python-issue-14\n" + body, encoding="utf-8")
    cli.chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "FAKE_CLAUDE": ""}
    reply = await cs.ask("hi", options=cs.Options(cli_path=cli, env=env))
    assert reply.text == "done"
    error = await spawn_error(cli, env={"PATH": "/nonexistent-dir"})
    assert "python-issue-14" in str(error)


async def test_windows_line_endings_are_named(tmp_path: Path) -> None:
    cli = script(tmp_path, "#!/bin/sh\r")
    error = await spawn_error(cli)
    assert "carriage return" in str(error)


async def test_a_script_that_is_not_executable(tmp_path: Path) -> None:
    cli = script(tmp_path, "#!/bin/sh", mode=0o644)
    error = await spawn_error(cli)
    assert "not an executable file" in str(error)
    assert "chmod +x" in str(error)


async def test_a_file_the_system_cannot_execute(tmp_path: Path) -> None:
    cli = tmp_path / "claude"
    cli.write_bytes(b"\x00\x01\x02 not a program")
    cli.chmod(0o755)
    error = await spawn_error(cli)
    assert "exec format error" in str(error)


def binary_without_its_loader(directory: Path) -> tuple[Path, str] | None:
    """A copy of ``true`` whose dynamic loader is a path that does not exist, and that
    path; None where ``true`` is not a dynamically linked ELF file."""
    true = shutil.which("true")
    loader = _elf_interpreter(true) if true else None
    if true is None or loader is None:
        return None
    missing = "/" + "x" * (len(loader) - 1)  # the same length: the file keeps its layout
    data = Path(true).read_bytes()
    assert data.count(loader.encode() + b"\0") == 1
    cli = directory / "claude"
    cli.write_bytes(data.replace(loader.encode() + b"\0", missing.encode() + b"\0"))
    cli.chmod(0o755)
    with pytest.raises(FileNotFoundError):  # the kernel's answer, with the file right there
        subprocess.run([str(cli)], check=False)
    return cli, missing


async def test_a_binary_whose_dynamic_loader_is_missing(tmp_path: Path) -> None:
    made = binary_without_its_loader(tmp_path)
    if made is None:
        pytest.skip("needs a dynamically linked ELF `true`")
    cli, missing = made
    error = await spawn_error(cli)
    assert f"dynamic loader {missing}" in str(error)


async def test_a_missing_cli_is_still_cli_not_found(tmp_path: Path) -> None:
    with pytest.raises(cs.CLINotFoundError) as info:
        async with cs.open_session(
            cs.Options(cli_path=tmp_path / "claude"), transport=SubprocessTransport()
        ):
            pass
    assert str(tmp_path / "claude") in str(info.value)

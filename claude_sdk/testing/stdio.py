"""A scripted CLI as an executable: any `Transport` served over this process's stdin/stdout.

Code under test that does not take a ``transport=`` argument still starts the CLI through
`Options.cli_path` (or ``$CLAUDE_SDK_CLI_PATH``). Point that at a fake and the whole local
path runs for real (spawn, pipes, process group, watchdog, teardown) while a script plays the
CLI::

    from claude_sdk.testing.stdio import write_fake_cli

    cli = write_fake_cli(tmp_path / "claude", replies=["4"])
    reply = await cs.ask("What is 2 + 2?", options=cs.Options(cli_path=str(cli)))
    assert reply.text == "4"

The executable runs ``python -m claude_sdk.testing fake-cli``: ``--reply TEXT`` (repeatable)
answers successive prompts, ``--script MODULE:FUNCTION`` plays a `FakeCLI` script of yours
(``async def script(cli: ScriptedCLI)``; MODULE is imported, so it must be on ``sys.path`` or
be a file path), and the CLI's own argv is what the script sees as ``cli.argv``. The process
exits with the scripted CLI's exit code.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shlex
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import anyio

from .._protocol.launch import LaunchSpec
from ..transports.base import Transport
from ..transports.memory import MemoryTransport

__all__ = ["load_script", "serve_stdio", "write_fake_cli"]


async def serve_stdio(
    transport: Transport,
    argv: Sequence[str],
    *,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
) -> int:
    """Serve one connection of ``transport`` on stdin/stdout; return its exit code.

    Lines read from ``stdin`` go to the connection as the SDK's frames; its lines go to
    ``stdout``; its stderr goes to this process's stderr. Returns when the connection's
    output ends (the script finished or exited), with its exit code (0 when it has none).
    """
    source = stdin if stdin is not None else sys.stdin.buffer
    sink = stdout if stdout is not None else sys.stdout.buffer

    def write(data: bytes) -> None:
        sink.write(data)
        sink.flush()

    if isinstance(transport, MemoryTransport):
        # Each write is on stdout when the script's `send` returns, as a real CLI's is: a
        # script that then kills its own process (a CLI lost mid-turn) loses nothing.
        transport.stdout_sink = write
    spec = LaunchSpec(argv=tuple(argv), stderr=_to_stderr)
    async with transport.connect(spec) as conn, anyio.create_task_group() as tg:

        async def pump_in() -> None:
            while True:
                line = await anyio.to_thread.run_sync(source.readline, abandon_on_cancel=True)
                if not line:
                    await conn.send_eof()
                    return
                try:
                    await conn.send(line.rstrip(b"\r\n"))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return

        tg.start_soon(pump_in)
        while True:
            try:
                lines = await conn.receive_lines()
            except anyio.EndOfStream:
                break
            for line in lines:
                if isinstance(line, bytes):
                    sink.write(line + b"\n")
            sink.flush()
        code = await conn.wait()
        tg.cancel_scope.cancel()
    if code is None:
        return 0
    return code if code >= 0 else 128 - code  # killed by signal -code: as a shell reports it


def _to_stderr(text: str) -> None:
    sys.stderr.write(text if text.endswith("\n") else text + "\n")
    sys.stderr.flush()


def load_script(reference: str) -> Callable[..., Any]:
    """The script function named by ``MODULE:FUNCTION`` (MODULE: a dotted name or a .py file).

    Raises:
        ValueError: the reference is not of that form, or the function is not there.
    """
    module_name, sep, function = reference.rpartition(":")
    if not sep or not module_name or not function:
        raise ValueError(f"--script wants MODULE:FUNCTION, not {reference!r}")
    if module_name.endswith(".py") or os.sep in module_name:
        spec = importlib.util.spec_from_file_location("_claude_sdk_fake_script", module_name)
        if spec is None or spec.loader is None:
            raise ValueError(f"cannot load a script from {module_name!r}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    found: Callable[..., Any] | None = getattr(module, function, None)
    if found is None or not callable(found):
        raise ValueError(f"{module_name!r} has no function {function!r}")
    return found


def write_fake_cli(
    path: str | os.PathLike[str],
    *,
    replies: Sequence[str] = (),
    script: str | None = None,
    version: str | None = None,
    python: str | None = None,
) -> Path:
    """Write an executable that plays a scripted CLI; return its path.

    Args:
        path: where to write it (its directory must exist).
        replies: texts answering successive prompts (then ``"Done."``).
        script: ``MODULE:FUNCTION`` of a `FakeCLI` script, instead of ``replies``.
        version: the CLI version the fake reports.
        python: the interpreter that runs it (default: this one).

    Raises:
        TypeError: both ``replies`` and ``script`` were given.
    """
    if replies and script is not None:
        raise TypeError("write_fake_cli: pass replies or script, not both")
    args = [python or sys.executable, "-m", "claude_sdk.testing", "fake-cli"]
    for text in replies:
        args += ["--reply", text]
    if script is not None:
        args += ["--script", script]
    if version is not None:
        args += ["--version", version]
    target = Path(path)
    target.write_text(f'#!/bin/sh\nexec {shlex.join(args)} -- "$@"\n', encoding="utf-8")
    target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return target

"""Test code that takes no ``transport=``: a scripted CLI as an executable.

Code under test often calls ``cs.ask(...)`` with nothing but its options. The testing kit
writes an executable that plays a scripted CLI (``claude_sdk.testing.stdio.write_fake_cli``);
point ``Options(cli_path=...)`` or ``$CLAUDE_SDK_CLI_PATH`` at it and the whole local path runs
for real (spawn, pipes, process group, teardown) with no model and no network.

Run it: ``python examples/fake_cli_executable.py``
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import anyio

import claude_sdk as cs
from claude_sdk.testing.stdio import write_fake_cli


async def summarise(path: str) -> str:
    """The code under test: it starts the CLI itself (no transport argument)."""
    reply = await cs.ask(f"Summarise {path} in one line.")
    return reply.text


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cli = write_fake_cli(Path(tmp) / "claude", replies=["A project to try snippets in."])
        os.environ["CLAUDE_SDK_CLI_PATH"] = str(cli)  # what discovery finds first
        try:
            summary = await summarise("README.md")
        finally:
            del os.environ["CLAUDE_SDK_CLI_PATH"]
    assert summary == "A project to try snippets in.", summary
    print("summary:", summary)
    print("all checks passed")


if __name__ == "__main__":
    anyio.run(main)

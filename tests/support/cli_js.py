"""Run a function of the real Claude Code CLI's JavaScript, as an oracle (issue 27, item 10).

The CLI is a compiled Bun program whose bundle holds its JavaScript as text. `extract` finds
one minified function by the shape of its body (names change between builds, the body does
not) and `run` calls it under Node.js on a batch of inputs: one process for thousands of
cases. The tests that use it skip when the CLI or ``node`` is missing, unless
``CLAUDE_SDK_REQUIRE_E2E=1`` (CI), where that fails.
"""

from __future__ import annotations

import functools
import json
import mmap
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .fetch_cli import cli_path

#: The CLI's splitter of ``--allowedTools`` / ``--disallowedTools`` values (``$f`` in 2.1.330,
#: ``Qf`` in 2.1.332): commas and spaces outside parentheses separate rules.
RULE_SPLITTER = re.compile(
    rb"function ([\w$]+)\((\w)\)\{if\(\2\.length===0\)return\[\];let t=\[\];"
    rb"for\(let n of \2\)\{if\(!n\)continue;let r=\"\",o=!1;for\(let s of n\)switch\(s\)"
    rb"\{case\"\(\":.{0,600}?return t\}"
)


def require(what: str) -> None:
    """Skip (or fail under ``CLAUDE_SDK_REQUIRE_E2E=1``) for a missing ``what``."""
    if os.environ.get("CLAUDE_SDK_REQUIRE_E2E") == "1":
        pytest.fail(f"{what} is missing")
    pytest.skip(f"{what} is missing")


@functools.cache
def extract(pattern: re.Pattern[bytes], cli: str | None = None) -> tuple[str, str]:
    """``(name, source)`` of the function of the CLI's bundle that ``pattern`` finds."""
    path = Path(cli) if cli is not None else cli_path()
    if not path.exists():
        require(f"the CLI ({path})")
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        found = pattern.search(data)
        if found is None:
            raise AssertionError(f"{path} has no function of the shape {pattern.pattern!r}")
        name, source = bytes(found.group(1)), bytes(found.group(0))
    return name.decode(), source.decode("utf-8")


def run(pattern: re.Pattern[bytes], calls: list[list[Any]], cli: str | None = None) -> list[Any]:
    """The CLI's function applied to each argument list of ``calls`` (under Node.js)."""
    node = shutil.which("node")
    if node is None:
        require("node (Node.js)")
    name, source = extract(pattern, cli)
    program = (
        f"{source}\n"
        "let input = '';\n"
        "process.stdin.setEncoding('utf8');\n"
        "process.stdin.on('data', (d) => { input += d; });\n"
        "process.stdin.on('end', () => {\n"
        f"  const out = JSON.parse(input).map((args) => {name}(...args));\n"
        "  process.stdout.write(JSON.stringify(out));\n"
        "});\n"
    )
    done = subprocess.run(
        [str(node), "-e", program],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=True,
    )
    result: list[Any] = json.loads(done.stdout)
    return result

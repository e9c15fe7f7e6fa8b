"""The documented ``pytest examples/test_my_agent.py`` in a user's virtual environment.

Run by ``nox -s package``, which makes the environment from the built wheel and ``pytest``
(what docs/testing.md tells a user to install: ``pip install claude-sdk-py pytest``, no other
pytest plugin), then runs this inside the loopback-only namespace::

    python tests/support/check_user_pytest.py --venv VENV

It takes the command from docs/testing.md, runs it from the repository's root with the
environment's ``pytest`` first on ``PATH`` (as an activated environment has it), and checks
that it passes under the examples' own configuration (examples/pytest.ini), not the
repository's strict one (pyproject.toml: ``--strict-config`` with options of plugins a user
does not have). Exit status 1 on a failed check, with pytest's output.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "testing.md"
#: The command of docs/testing.md's paragraph on the copyable test file.
DOCUMENTED = re.compile(r"`(pytest examples/test_my_agent\.py)`")

DISTRIBUTIONS = r"""
import importlib.metadata, json
import claude_sdk
names = sorted({d.metadata["Name"].lower() for d in importlib.metadata.distributions()})
print(json.dumps({"names": names, "claude_sdk_file": claude_sdk.__file__}))
"""


class CheckFailedError(Exception):
    pass


def _check(condition: bool, what: str, seen: object) -> None:
    if not condition:
        raise CheckFailedError(f"{what}; seen: {seen}")
    print(f"ok: {what}")


def check(venv: Path) -> None:
    venv = venv.absolute()
    bin_dir = venv / "bin"
    # An activated environment: its bin first on PATH, nothing else of this process's.
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "VIRTUAL_ENV": str(venv),
        "HOME": os.environ.get("HOME", "/tmp"),
        "PYTHONDONTWRITEBYTECODE": "1",  # no __pycache__ left in the checkout
    }

    # Out of the checkout: a `python -c` run there would import the checkout's claude_sdk.
    done = subprocess.run(
        [str(bin_dir / "python"), "-c", DISTRIBUTIONS],
        env=env,
        cwd=str(venv),
        capture_output=True,
        text=True,
        check=False,
    )
    _check(done.returncode == 0, "the environment imports claude_sdk", done.stderr)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    names: list[str] = seen["names"]
    print(f"user environment: {len(names)} distributions: {', '.join(names)}")
    _check(str(venv) in seen["claude_sdk_file"], "claude_sdk is the wheel's", seen)
    _check({"claude-sdk-py", "pytest"} <= set(names), "claude-sdk-py and pytest", names)
    plugins = [n for n in names if n.startswith("pytest-")]
    _check(not plugins, "no other pytest plugin (pytest-timeout, pytest-asyncio, ...)", plugins)

    found = DOCUMENTED.findall(DOCS.read_text(encoding="utf-8"))
    _check(bool(found), f"{DOCS.relative_to(ROOT)} documents the command", DOCUMENTED.pattern)
    command = shlex.split(found[0])
    print(f"$ cd {ROOT} && {shlex.join(command)}", flush=True)
    done = subprocess.run(
        command,
        env=env,
        cwd=str(ROOT),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
        timeout=300,
    )
    output = done.stdout
    print(output, flush=True)
    _check(done.returncode == 0, f"{shlex.join(command)} exits 0", f"exit {done.returncode}")
    _check(
        f"rootdir: {ROOT / 'examples'}" in output and "configfile: pytest.ini" in output,
        "pytest takes the examples' configuration (examples/pytest.ini)",
        [line for line in output.splitlines() if line.startswith(("rootdir", "configfile"))],
    )
    summary = output.strip().splitlines()[-1] if output.strip() else ""
    _check(
        re.search(r"\b[1-9][0-9]* passed\b", summary) is not None
        and not re.search(r"failed|error|skipped|warning", summary),
        "its tests pass, nothing skipped, no warning",
        summary,
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--venv", type=Path, required=True)
    args = parser.parse_args()
    try:
        check(args.venv)
    except CheckFailedError as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    print("the documented pytest command works in a user's environment")
    return 0


if __name__ == "__main__":
    sys.exit(main())

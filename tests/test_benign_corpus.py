"""Benign commands pass (issue 27, item 3).

``tests/data/policies/benign_commands.txt`` holds commands coding agents really run (git
with here-document commit messages, package managers, test runners, grep/sed/awk
pipelines, loops, ``time (...)``, ``select ... <<< 1``, ``${x~}``...). Each is decided by
``deny_commands("rm -rf")``: at most 1 % may be denied, and each denial must be one of the
limits `docs/policies.md` documents (`KNOWN_LIMITS`, listed with its reason in this test's
output). Each is also run by bash in a scratch project (a git repository with ``src/``,
``tests/``, ``package.json``, a ``Makefile``), offline, under strace: bash reads it (no syntax
error) and, where the policy lets it through, it runs no ``rm`` recursive and forced.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from claude_sdk.policies import deny_commands

from .support import strace_run

CORPUS = Path(__file__).parent / "data" / "policies" / "benign_commands.txt"
RM_RF = deny_commands("rm -rf")

#: Benign commands the policy denies, each for a reason docs/policies.md documents
#: ("What a policy denies that may be harmless"): command -> a substring of the reason.
KNOWN_LIMITS: dict[str, str] = {
    # arithmetic on a command's output: bash evaluates that text as an expression
    "[[ $(git status --porcelain | wc -l) -gt 0 ]] && echo dirty || echo clean": (
        "computed when it runs, as an expression"
    ),
}


def commands() -> list[str]:
    """The corpus: blocks that end at a line holding only ``%%`` (``##`` lines between
    blocks are comments)."""
    out: list[str] = []
    current: list[str] = []
    for line in CORPUS.read_text().split("\n"):
        if line == "%%":
            out.append("\n".join(current))
            current = []
        elif line.startswith("## ") and not current:
            continue
        else:
            current.append(line)
    out.append("\n".join(current))
    return [c.strip("\n") for c in out if c.strip()]


CORPUS_COMMANDS = commands()


def test_the_corpus_is_large_and_has_no_repeats() -> None:
    assert len(CORPUS_COMMANDS) >= 300
    assert len(set(CORPUS_COMMANDS)) == len(CORPUS_COMMANDS)


def test_at_most_one_percent_is_denied_each_for_a_documented_reason() -> None:
    denied = []
    for command in CORPUS_COMMANDS:
        decision = RM_RF.decide("Bash", {"command": command})
        if decision.kind == "deny":
            denied.append((command, decision.reason))
    share = len(denied) / len(CORPUS_COMMANDS)
    print(f"\n{len(denied)} of {len(CORPUS_COMMANDS)} benign commands denied ({share:.2%}):")
    for command, reason in denied:
        print(f"  {command!r}\n    -> {reason}")
    assert share <= 0.01, denied
    for command, reason in denied:
        assert command in KNOWN_LIMITS, (command, reason)
        assert KNOWN_LIMITS[command] in reason, (command, reason)


# --------------------------------------------------------------------------------------
# In bash

GIT = shutil.which("git")
_FILES = {
    "README.md": "# app\n\nA small service.\n\nRun `make test`.\n",
    "notes.txt": "first line\nsecond line\nthird line\n",
    "data.csv": "a,1\nb,2\na,3\n",
    "data.tsv": "name\tvalue\nx\t3\ny\t7\n",
    "numbers.txt": "1\n2\n3\n",
    "words.txt": "b\na\nb\n",
    "files.txt": "src/app.py\nREADME.md\n",
    "a.txt": "1\n2\n",
    "b.txt": "2\n3\n",
    "app.log": "started\nready\n",
    ".env.example": "# settings\nPORT=8080\n\nHOST=localhost\n",
    "requirements.txt": "pytest\n",
    "package.json": (
        '{"name": "app", "version": "1.0.0", "scripts": {"test": "true", "build": "true"}}\n'
    ),
    "Makefile": "build:\n\t@echo build\ntest:\n\t@echo test\nclean:\n\t@echo clean\n",
    "src/app.py": (
        "VERSION = '1.0'\n\n\ndef health():\n    return 200\n\n\ndef main():\n    print(health())\n"
    ),
    "tests/test_app.py": (
        "from src.app import health\n\n\ndef test_health():\n    assert health() == 200\n"
    ),
    "scripts/check.sh": "#!/bin/sh\necho checked\n",
    "x/y/z": "z\n",
}
#: Network and prompts off: the corpus runs offline.
_OFFLINE = {
    "PIP_NO_INDEX": "1",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "npm_config_offline": "true",
    "CARGO_NET_OFFLINE": "true",
    "GOPROXY": "off",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    for name, text in _FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "scripts" / "check.sh").chmod(0o755)
    (root / "empty_dir").mkdir()
    if GIT is not None:
        env = {"PATH": strace_run.PATH, "HOME": str(root), **_OFFLINE}
        for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "start"]):
            subprocess.run([GIT, *argv], cwd=root, env=env, check=True, capture_output=True)
    return root


def _id(command: str) -> str:
    return repr(command) if len(command) <= 50 else f"{command[:40]!r}...({len(command)} chars)"


@pytest.mark.skipif(not strace_run.available(), reason="needs bash and strace")
@pytest.mark.parametrize("command", CORPUS_COMMANDS, ids=_id)
def test_each_command_is_bash_and_runs_no_rm_rf(
    command: str, project: Path, tmp_path: Path
) -> None:
    assert strace_run.BASH is not None
    parsed = subprocess.run(
        [strace_run.BASH, "--norc", "--noprofile", "-n", "-c", command],
        capture_output=True,
        timeout=10,
        check=False,
    )
    assert parsed.returncode == 0, parsed.stderr
    scratch = tmp_path / "p"
    shutil.copytree(project, scratch, symlinks=True)
    traced = strace_run.trace(command, scratch, timeout=3.0, env=_OFFLINE)
    if RM_RF.decide("Bash", {"command": command}).kind == "continue":
        assert not [e for e in traced.execs if strace_run.rm_recursive_force(e)], traced

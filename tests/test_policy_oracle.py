"""The command policies against real bash, on generated commands (issue 27, item 2).

A grammar of bash (`tests/support/bash_grammar.py`) dresses a core that may run ``rm``
recursive and forced in every family that ever hid one from a policy. Each command is
decided by ``deny_commands("rm -rf")`` and ``require_command("echo", "ls", "cat")``; each
one a policy lets through is run by bash under ``strace -f -e trace=execve`` in a scratch
directory (`tests/support/strace_run.py`, with everything else read-only where bubblewrap
works), and the oracle holds:

* when ``deny_commands("rm -rf")`` continues, no traced ``execve`` runs ``rm`` (any path to
  it) recursive and forced;
* when ``require_command("echo", "ls", "cat")`` continues, every traced program is one of
  those (bash's builtins never exec; bash re-running itself, ``bash -c``, counts).

Two drivers: hypothesis (`test_what_a_policy_lets_through_bash_never_runs_against_it`, which
shrinks a failure to a small command), and a seeded generator whose commands are traced many
at a time by one strace (`test_generated_batches`, a fresh seed each run, printed with any
failure: ``CLAUDE_SDK_ORACLE_SEED`` replays it). ``CLAUDE_SDK_DEEP=N`` runs N times as many
of both.

Every case the oracle ever found is a row of ``tests/data/policies/oracle_rows.txt``, run by
`test_each_row_is_denied` and `test_each_row_really_does_it_in_bash` (the policy denies it;
bash does what it says).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings

from claude_sdk.policies import deny_commands, require_command

from .support import bash_grammar, strace_run
from .support.deep import deep, factor

RM_RF = deny_commands("rm -rf")
LISTED = ("echo", "ls", "cat")
ALLOW = require_command(*LISTED)
ROWS = Path(__file__).parent / "data" / "policies" / "oracle_rows.txt"

#: Skipped where strace cannot run, unless ``CLAUDE_SDK_REQUIRE_BASH_ROWS`` says it must (CI).
needs_strace = pytest.mark.skipif(
    not os.environ.get("CLAUDE_SDK_REQUIRE_BASH_ROWS") and not strace_run.available(),
    reason="needs bash and strace (Debian package strace)",
)
#: About 15-25 s each on a quiet 2-core machine; room for load, and for a deep run.
slow_enough = pytest.mark.timeout(240 * factor())


def check(command: str, scratch: Path) -> tuple[str, str]:
    """Decide ``command`` with both policies and, when one lets it through, run it and
    assert the oracle. Returns the two decisions' kinds."""
    deny = RM_RF.decide("Bash", {"command": command})
    allow = ALLOW.decide("Bash", {"command": command})
    if deny.kind == "continue" or allow.kind == "continue":
        traced = strace_run.trace(command, scratch)
        wrong = _against_the_oracle(command, deny.kind, allow.kind, traced)
        assert not wrong, wrong
    return deny.kind, allow.kind


@needs_strace
@slow_enough
@settings(
    max_examples=deep(300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(command=bash_grammar.commands())
def test_what_a_policy_lets_through_bash_never_runs_against_it(
    command: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    deny, allow = check(command, tmp_path_factory.mktemp("oracle"))
    event(f"deny_commands: {deny}")
    event(f"require_command: {allow}")


def _against_the_oracle(command: str, deny: str, allow: str, traced: strace_run.Traced) -> str:
    """What the oracle finds wrong with one decided and traced command ("" if nothing)."""
    if deny == "continue":
        ran = [e.argv for e in traced.execs if strace_run.rm_recursive_force(e)]
        if ran:
            return f"deny_commands('rm -rf') let {command!r} through; bash ran {ran}"
    if allow == "continue":
        extra = [e.argv for e in strace_run.unlisted(traced.execs, LISTED)]
        if extra:
            return f"require_command{LISTED} let {command!r} through; bash ran {extra}"
    return ""


#: Commands generated, decided and traced per run of `test_generated_batches`.
BATCH_COMMANDS = deep(2000)
#: Commands one traced bash runs in turn.
BATCH_SIZE = 500


@needs_strace
@slow_enough
def test_generated_batches(tmp_path: Path) -> None:
    """Thousands of generated commands: each one a policy lets through runs in bash, many
    under one strace, and the oracle holds for all of them."""
    seed = int(os.environ.get("CLAUDE_SDK_ORACLE_SEED") or random.randrange(2**32))
    print(f"CLAUDE_SDK_ORACLE_SEED={seed}")  # shown with any failure, an error too
    commands = bash_grammar.sample(seed, BATCH_COMMANDS)
    decided = [
        (c, RM_RF.decide("Bash", {"command": c}).kind, ALLOW.decide("Bash", {"command": c}).kind)
        for c in commands
    ]
    through = [d for d in decided if "continue" in (d[1], d[2])]
    # not vacuous: a good share gets through each policy (see also the test below)
    assert sum(d[1] == "continue" for d in decided) >= 0.25 * len(decided), seed
    assert sum(d[2] == "continue" for d in decided) >= 0.02 * len(decided), seed
    found: list[str] = []
    for k in range(0, len(through), BATCH_SIZE):
        chunk = through[k : k + BATCH_SIZE]
        root = tmp_path / f"b{k}"
        root.mkdir()
        traced = strace_run.trace_many([c for c, _, _ in chunk], root)
        for (command, deny, allow), one in zip(chunk, traced, strict=True):
            wrong = _against_the_oracle(command, deny, allow, one)
            if wrong:
                found.append(wrong)
    assert not found, f"CLAUDE_SDK_ORACLE_SEED={seed}:\n" + "\n".join(found)


@needs_strace
def test_the_grammar_makes_both_sides(tmp_path: Path) -> None:
    """The oracle is not vacuous: on a fixed sample, both policies let a good share
    through, and a good share of what ``deny_commands`` denies really runs ``rm -rf``."""
    commands = bash_grammar.sample(27, 300)
    denied = [c for c in commands if RM_RF.decide("Bash", {"command": c}).kind == "deny"]
    allowed = len(commands) - len(denied)
    listed = sum(ALLOW.decide("Bash", {"command": c}).kind == "continue" for c in commands)
    assert allowed >= 0.25 * len(commands), allowed
    assert listed >= 0.04 * len(commands), listed
    traced = strace_run.trace_many(denied[:60], tmp_path)
    real = sum(any(strace_run.rm_recursive_force(e) for e in t.execs) for t in traced)
    assert real >= 15, f"only {real} of 60 denied commands ran rm -rf in bash"


def _rows() -> list[dict[str, str]]:
    rows = []
    for line in ROWS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append(json.loads(line))
    return rows


def _id(row: dict[str, str]) -> str:
    text = row["command"]
    return repr(text) if len(text) <= 60 else f"{text[:50]!r}...({len(text)} chars)"


@pytest.mark.parametrize("row", _rows(), ids=_id)
def test_each_row_is_denied(row: dict[str, str]) -> None:
    policy = RM_RF if row["policy"] == "deny" else ALLOW
    decision = policy.decide("Bash", {"command": row["command"]})
    assert decision.kind == "deny", decision


@needs_strace
@pytest.mark.parametrize("row", _rows(), ids=_id)
def test_each_row_really_does_it_in_bash(row: dict[str, str], tmp_path: Path) -> None:
    traced = strace_run.trace(row["command"], tmp_path / "s")
    if row["policy"] == "deny":
        assert any(strace_run.rm_recursive_force(e) for e in traced.execs), traced
    else:
        assert strace_run.unlisted(traced.execs, LISTED), traced

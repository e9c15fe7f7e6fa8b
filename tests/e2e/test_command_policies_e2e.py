"""Issue 27 against the real CLI (offline, FakeMessagesAPI): the forms that got past
``deny_commands("rm -rf")`` (flags spelled another way, a pathname pattern as the program, a
line continuation inside the program's name, a here-string on descriptor 0, a backquoted
command inside a parameter expansion, and more) are blocked end to end with the policy as
the recommended PreToolUse hook, and each really removes the tree when nothing stops it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import claude_sdk as cs
from claude_sdk.policies import deny_commands

from .conftest import E2E

FORMS = [
    "rm --rec --for x",  # flags by meaning
    "/bin/r? -rf x",  # a pathname pattern as the program
    "/usr/bin/r[m] -rf x",
    "r\\\nm -rf x",  # a line continuation inside the program's name
    "bash 0<<< 'rm -rf x'",  # a here-string on descriptor 0
    "BASH_ENV=/dev/stdin bash -c true <<< 'rm -rf x'",
    "echo ${x:-`rm -rf x`}",  # a backquoted command inside a parameter expansion
    "printf '%.2s -rf x' rmz | bash",  # a producer's exact output, read as code
    "c=rm; setarch x86_64 $c -rf x",  # a variable after a program that runs its arguments
]


async def _allow_all(
    name: str, tool_input: dict[str, Any], context: cs.ToolPermissionContext
) -> cs.PermissionResult:
    """Whatever the hooks let through runs (the CLI refuses bypassPermissions as root)."""
    return cs.PermissionAllow()


def _tree(cwd: Path) -> None:
    (cwd / "x" / "y").mkdir(parents=True)
    (cwd / "x" / "y" / "z").write_text("z")


@pytest.mark.parametrize("command", FORMS, ids=repr)
async def test_each_form_is_blocked_by_the_policy_hook(e2e: E2E, command: str) -> None:
    _tree(e2e.cwd)
    policy = deny_commands("rm -rf")
    e2e.api.reply(tool_use=("Bash", {"command": command}))
    e2e.api.reply(text="done")
    options = e2e.options(hooks={"PreToolUse": [policy]}, can_use_tool=_allow_all)
    await cs.ask("clean up", options=options, transport=e2e.transport())
    result = e2e.api.main_requests[1].tool_results[0]
    assert result.is_error, result
    reason = policy.decide("Bash", {"command": command}).reason
    assert reason in result.text, result.text  # the model reads why
    assert (e2e.cwd / "x" / "y" / "z").exists()


@pytest.mark.parametrize("command", FORMS, ids=repr)
async def test_without_the_policy_each_form_removes_the_tree(e2e: E2E, command: str) -> None:
    """The control: each form is real damage when nothing stops it."""
    _tree(e2e.cwd)
    e2e.api.reply(tool_use=("Bash", {"command": command}))
    e2e.api.reply(text="done")
    options = e2e.options(can_use_tool=_allow_all)
    await cs.ask("clean up", options=options, transport=e2e.transport())
    assert not (e2e.cwd / "x").exists()

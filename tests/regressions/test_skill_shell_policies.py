"""Issue 27, item 5: a command policy given as a PreToolUse hook also answers
``PreSkillShellCommand`` (a shell command embedded in a skill or slash command, ``!`cmd` ``,
which no PreToolUse hook and no ``can_use_tool`` sees), and a CLI without that event warns
when the options load commands or skills.

Before: ``Options(hooks={"PreToolUse": [deny_commands("touch")]})`` registered the policy for
PreToolUse only, so CLI 2.1.332 ran ``!`touch marker.txt` `` of a command file unchecked.

Every async test runs on asyncio and Trio.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import attrs
import pytest

import claude_sdk as cs
from claude_sdk import hooks
from claude_sdk._protocol.launch import build_initialize, hook_support_warning
from claude_sdk.options import SkillShellPolicies
from claude_sdk.policies import (
    Decision,
    Policy,
    allow_paths,
    chain,
    deny_commands,
    deny_paths,
    redirect_path,
    require_command,
)
from claude_sdk.testing import FakeCLI, ScriptedCLI


class MyPolicy(Policy):
    """A policy of the user's own (not attrs): taken to decide commands."""

    name = "mine"

    def decide(self, tool_name: str, tool_input: Any, *, cwd: str | None = None) -> Decision:
        if "forbidden" in str(tool_input.get("command", "")):
            return Decision.deny("forbidden word")
        return Decision.continue_()


class MyPathPolicy(MyPolicy):
    """A policy of the user's own that says it decides no commands."""

    @property
    def reads_commands(self) -> bool:
        return False


DENY = deny_commands("touch")
PATHS = deny_paths("/nonexistent-secret")

#: How a command policy may be given under PreToolUse (each is one matcher).
GIVEN: dict[str, Any] = {
    "bare": DENY,
    "matcher": DENY.as_hook_matcher(),
    "matcher Bash": DENY.as_hook_matcher("Bash", timeout=7),
    "in a matcher": cs.HookMatcher(matcher="Bash|Read", hooks=[DENY], on_failure="continue"),
    "chain": chain(PATHS, DENY),
    "require_command": require_command("ls"),
    "your own": MyPolicy(),
}


def _policies(matchers: Any) -> list[Any]:
    return [getattr(cb, "policy", cb) for m in matchers for cb in m.hooks]


@pytest.mark.parametrize("how", sorted(GIVEN))
def test_a_command_policy_under_pre_tool_use_answers_skill_shell_commands(how: str) -> None:
    given = GIVEN[how]
    options = cs.Options(hooks={"PreToolUse": [given]})
    (pre,) = options.hooks["PreToolUse"]
    (derived,) = options.hooks["PreSkillShellCommand"]
    assert isinstance(derived, SkillShellPolicies)
    # the same callbacks, matcher, timeout and failure mode as the PreToolUse matcher
    assert tuple(derived.hooks) == tuple(pre.hooks)
    assert (derived.matcher, derived.timeout, derived.on_failure) == (
        pre.matcher,
        pre.timeout,
        pre.on_failure,
    )
    request, table = build_initialize(options)
    assert request.hooks is not None
    assert set(request.hooks) == {"PreToolUse", "PreSkillShellCommand"}
    (config,) = request.hooks["PreSkillShellCommand"]
    assert config.on_failure == (pre.on_failure or "block")
    assert [table[i].event for i in config.hook_callback_ids] == ["PreSkillShellCommand"]


@pytest.mark.parametrize(
    "policy", [PATHS, allow_paths("/tmp"), redirect_path("/a", "/b"), MyPathPolicy()]
)
def test_a_policy_that_decides_no_commands_is_not_registered_for_skills(policy: Any) -> None:
    options = cs.Options(hooks={"PreToolUse": [policy]})
    assert set(options.hooks) == {"PreToolUse"}


def test_other_callbacks_of_the_matcher_are_not_registered_for_skills() -> None:
    async def log(hook_input: Any, context: Any) -> None:
        return None

    options = cs.Options(hooks={"PreToolUse": [cs.HookMatcher(hooks=[log, DENY, PATHS])]})
    (derived,) = options.hooks["PreSkillShellCommand"]
    assert list(derived.hooks) == [DENY]


def test_a_policy_given_for_skills_already_is_not_registered_twice() -> None:
    options = cs.Options(
        hooks={"PreToolUse": [DENY], "PreSkillShellCommand": [DENY.as_hook_matcher()]}
    )
    assert _policies(options.hooks["PreSkillShellCommand"]) == [DENY]
    assert not any(isinstance(m, SkillShellPolicies) for m in options.hooks["PreSkillShellCommand"])
    # an equal policy built again counts as the same one
    again = cs.Options(
        hooks={"PreToolUse": [DENY], "PreSkillShellCommand": [deny_commands("touch")]}
    )
    assert len(_policies(again.hooks["PreSkillShellCommand"])) == 1


@pytest.mark.parametrize(
    ("fields", "loads"),
    [
        ({}, True),  # setting_sources None: the CLI loads every source
        ({"setting_sources": ["project"]}, True),
        ({"setting_sources": ["user"]}, True),
        ({"setting_sources": ["local"]}, False),
        ({"setting_sources": []}, False),
        ({"setting_sources": [], "add_dirs": ["/tmp"]}, True),
        ({"setting_sources": [], "plugins": ["/tmp"]}, True),
    ],
)
def test_the_derived_matcher_knows_whether_commands_or_skills_load(
    fields: dict[str, Any], loads: bool
) -> None:
    options = cs.Options(hooks={"PreToolUse": [DENY]}, **fields)
    (derived,) = options.hooks["PreSkillShellCommand"]
    assert isinstance(derived, SkillShellPolicies)
    assert derived.loads_commands is loads
    warning = hook_support_warning(options.hooks, "2.1.330")
    if loads:
        assert warning is not None
        for fix in ("newer CLI", "setting_sources=[]", "sandbox", "PreSkillShellCommand"):
            assert fix in warning
    else:
        assert warning is None
    assert hook_support_warning(options.hooks, "2.1.332") is None


def test_evolved_options_derive_again() -> None:
    options = cs.Options(hooks={"PreToolUse": [DENY]})
    quiet = attrs.evolve(options, setting_sources=[])
    (derived,) = quiet.hooks["PreSkillShellCommand"]
    assert isinstance(derived, SkillShellPolicies)
    assert derived.loads_commands is False
    assert hook_support_warning(quiet.hooks, "2.1.330") is None
    none = attrs.evolve(options, hooks={"PreToolUse": [PATHS]})
    assert set(none.hooks) == {"PreToolUse"}
    assert options == attrs.evolve(options)


def test_a_hook_of_your_own_for_skills_still_warns_as_before() -> None:
    async def mine(hook_input: Any, context: Any) -> None:
        return None

    options = cs.Options(
        hooks={"PreToolUse": [DENY], "PreSkillShellCommand": [cs.HookMatcher(hooks=[mine])]},
        setting_sources=[],
    )
    warning = hook_support_warning(options.hooks, "2.1.330")
    assert warning is not None
    assert "registered and never called" in warning
    assert hooks.unsupported_hook_events(options.hooks, "2.1.330") == ("PreSkillShellCommand",)


# --------------------------------------------------------------------------------------
# Through a session (FakeCLI plays CLI 2.1.332 and 2.1.330)


async def _skill_commands(
    options: cs.Options, commands: list[str], version: str
) -> tuple[list[bool], str | None]:
    runs: list[bool] = []
    done = anyio.Event()
    seen: list[str | None] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        for command in commands:
            runs.append(await cli.skill_shell_command(command, command_name="mk"))
        done.set()
        await cli.serve_until_stdin_closes()

    async with cs.open_session(options, transport=FakeCLI(script, version=version)) as session:
        seen.append(session.server_info.claude_code_version)
        with anyio.fail_after(20):
            await done.wait()
    return runs, seen[0]


@pytest.mark.parametrize("how", sorted(GIVEN))
async def test_a_skill_command_is_decided_by_the_pre_tool_use_policy(how: str) -> None:
    given = GIVEN[how]
    options = cs.Options(hooks={"PreToolUse": [given]})
    policy = getattr(given, "hooks", [given])[0]
    policy = getattr(policy, "policy", policy)
    commands = ["touch marker.txt", "echo fine", "ls -la", "echo forbidden"]
    runs, _ = await _skill_commands(options, commands, "2.1.332")
    for command, ran in zip(commands, runs, strict=True):
        decided = policy.decide("Bash", {"command": command})
        assert ran == (decided.kind != "deny"), (command, decided)
    assert False in runs  # each policy here refuses one of them


async def test_a_cli_without_the_event_warns_at_open(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="claude_sdk.session")
    options = cs.Options(hooks={"PreToolUse": [DENY]}, setting_sources=["project"])
    runs, version = await _skill_commands(options, ["touch marker.txt"], "2.1.330")
    assert version == "2.1.330"
    assert runs == [True]  # the old CLI runs it unchecked: the warning says so
    warnings = [r.getMessage() for r in caplog.records if "PreSkillShellCommand" in r.getMessage()]
    assert len(warnings) == 1
    assert "load no commands or skills" in warnings[0]


async def test_no_warning_when_nothing_loads_commands(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="claude_sdk.session")
    options = cs.Options(hooks={"PreToolUse": [DENY]}, setting_sources=[])
    await _skill_commands(options, [], "2.1.330")
    assert not [r for r in caplog.records if "PreSkillShellCommand" in r.getMessage()]

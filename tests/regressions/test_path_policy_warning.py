"""Issue 27, item 10: the warning for a path policy given only as ``can_use_tool`` is silenced
only by that policy among the PreToolUse hooks, for every tool it decides.

The CLI approves some calls itself (reads inside its working directory) and never asks
``can_use_tool`` about them; only a PreToolUse hook sees them. A hook that runs another
policy, or the same policy for other tools, leaves them unseen.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk.policies import (
    FILE_TOOLS,
    Policy,
    allow_paths,
    chain,
    deny_commands,
    deny_paths,
    require_command,
)

from ..support.deep import deep

WARNING = "never asks can_use_tool"


def _warned(**options: Any) -> bool:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cs.Options(**options)
    return any(WARNING in str(w.message) for w in caught)


SECRET = deny_paths("/secret")


@pytest.mark.parametrize(
    "hooks",
    [
        {},
        {"PreToolUse": [deny_commands("rm -rf")]},  # an unrelated policy
        {"PreToolUse": [require_command("git").as_hook_matcher()]},
        {"PreToolUse": [deny_paths("/other")]},  # another path policy
        {"PreToolUse": [SECRET.as_hook_matcher("Bash")]},  # the policy, for another tool
        {"PreToolUse": [SECRET.as_hook_matcher("Read")]},  # ... for one of its tools only
        {"PreToolUse": [SECRET.as_hook_matcher("Read|Edit")]},
        {"PreSkillShellCommand": [SECRET.as_hook_matcher()]},  # not a PreToolUse hook
    ],
)
def test_the_warning_stays_unless_the_policy_is_hooked_for_its_tools(hooks: Any) -> None:
    assert _warned(can_use_tool=SECRET.as_can_use_tool(), hooks=hooks)


@pytest.mark.parametrize(
    "hooks",
    [
        {"PreToolUse": [SECRET]},
        {"PreToolUse": [SECRET.as_hook_matcher()]},
        {"PreToolUse": [deny_paths("/secret").as_hook_matcher("*")]},  # an equal policy
        {"PreToolUse": [chain(deny_commands("rm -rf"), SECRET).as_hook_matcher()]},
        {"PreToolUse": [SECRET.as_hook_matcher("|".join(sorted(FILE_TOOLS)))]},
        {"PreToolUse": [deny_commands("x"), SECRET.as_hook_matcher()]},
    ],
)
def test_the_policy_among_the_hooks_for_all_its_tools_silences_it(hooks: Any) -> None:
    assert not _warned(can_use_tool=SECRET.as_can_use_tool(), hooks=hooks)


def test_each_path_policy_of_a_chain_needs_its_hook() -> None:
    inside = allow_paths("/work")
    both = chain(deny_commands("rm -rf"), SECRET, inside)
    only_one = {"PreToolUse": [SECRET.as_hook_matcher()]}
    assert _warned(can_use_tool=both.as_can_use_tool(), hooks=only_one)
    all_of_them = {"PreToolUse": [SECRET.as_hook_matcher(), inside.as_hook_matcher()]}
    assert not _warned(can_use_tool=both.as_can_use_tool(), hooks=all_of_them)
    assert not _warned(
        can_use_tool=both.as_can_use_tool(), hooks={"PreToolUse": [both.as_hook_matcher()]}
    )


def test_a_command_policy_alone_never_warns() -> None:
    assert not _warned(can_use_tool=deny_commands("rm -rf").as_can_use_tool())


# --------------------------------------------------------------------------------------
# Generated: any mix of hooks; the warning is silenced exactly when every path policy of
# can_use_tool is hooked (itself, an equal one, or inside a chain) for all its tools.

_PATH_POLICIES = [deny_paths("/secret"), deny_paths("/other"), allow_paths("/work")]
_OTHER_POLICIES = [deny_commands("rm -rf"), require_command("git")]
_MATCHERS = [None, "*", "", "Bash", "Read", "Read|Grep|Glob", "|".join(sorted(FILE_TOOLS))]


def _covers(matcher: str | None) -> bool:
    return matcher in (None, "*", "") or set(str(matcher).split("|")) >= FILE_TOOLS


@st.composite
def _setup(draw: st.DrawFn) -> tuple[Policy, dict[str, Any], bool]:
    wanted = draw(st.lists(st.sampled_from(_PATH_POLICIES), min_size=1, max_size=2, unique=True))
    extra = draw(st.lists(st.sampled_from(_OTHER_POLICIES), max_size=1))
    given_policy: Policy = chain(*extra, *wanted) if len(wanted) + len(extra) > 1 else wanted[0]
    matchers = []
    covered: set[int] = set()
    for _ in range(draw(st.integers(0, 3))):
        parts = draw(
            st.lists(st.sampled_from(_PATH_POLICIES + _OTHER_POLICIES), min_size=1, max_size=2)
        )
        hook_policy = chain(*parts) if len(parts) > 1 else parts[0]
        matcher = draw(st.sampled_from(_MATCHERS))
        event = draw(st.sampled_from(["PreToolUse", "PreToolUse", "PreSkillShellCommand"]))
        if event == "PreToolUse" and _covers(matcher):
            covered |= {i for i, p in enumerate(wanted) if p in parts}
        matchers.append((event, hook_policy.as_hook_matcher(matcher)))
    hooks: dict[str, list[cs.HookMatcher]] = {}
    for event, hook_matcher in matchers:
        hooks.setdefault(event, []).append(hook_matcher)
    return given_policy, hooks, len(covered) < len(wanted)


@settings(max_examples=deep(100), deadline=None)
@given(_setup())
def test_the_warning_is_silenced_exactly_when_every_path_policy_is_hooked(
    setup: tuple[Policy, dict[str, Any], bool],
) -> None:
    policy, hooks, expected = setup
    assert _warned(can_use_tool=policy.as_can_use_tool(), hooks=hooks) == expected

"""How permission and hook answers are built: ``claude_sdk._protocol.answers``, sans-IO.

No event loop and no session: each rule is a pure function over model values, checked here on
its own (the session tests check that the driver calls them).

* ``permission_answer``: an allow without ``updated_input`` carries the request's own input
  (the very object, not a copy: the hot path of every permission round trip); an allow with
  one, and a deny, are sent as they are; anything else does not fit.
* ``hook_answer``: None is ``{}``, typed answers pass, a dict is read in the wire form or with
  our field names; a dict answering an event the SDK does not know passes its
  ``hookSpecificOutput`` through (issue 26, item 6).
* ``hook_failure_answer``: one table of the events whose failing hook denies (PreToolUse,
  PermissionRequest, PreSkillShellCommand) and, for an event the SDK does not know, a deny
  when the failed answer was shaped as one.
"""

from __future__ import annotations

from typing import Any

import pytest

from claude_sdk import control, hooks
from claude_sdk._protocol import answers
from claude_sdk._protocol.codec import default_codec
from claude_sdk.hooks import (
    AsyncHookOutput,
    HookOutput,
    PermissionRequestOutput,
    PreSkillShellCommandOutput,
    PreToolUseOutput,
    UnknownHookSpecificOutput,
)
from claude_sdk.permissions import PermissionAllow, PermissionDeny

codec = default_codec()

JSON = dict[str, Any]


def can_use_tool(tool_input: JSON) -> control.CanUseToolRequest:
    request = codec.structure(
        {
            "subtype": "can_use_tool",
            "tool_name": "Bash",
            "input": tool_input,
            "tool_use_id": "toolu_1",
        },
        control.ControlRequestPayload,
    )
    assert isinstance(request, control.CanUseToolRequest)
    return request


# ======================================================================================
# can_use_tool


def test_an_allow_without_an_input_carries_the_requests_own() -> None:
    tool_input = {"command": "ls"}
    request = can_use_tool(tool_input)
    body = answers.permission_answer(PermissionAllow(), request, codec)
    assert body == {"behavior": "allow", "updatedInput": {"command": "ls"}}
    assert isinstance(body, dict)
    assert body["updatedInput"] is request.input  # not copied: the hot path


def test_an_allow_with_an_input_and_a_deny_are_sent_as_they_are() -> None:
    request = can_use_tool({"command": "ls"})
    allow = PermissionAllow(updated_input={"command": "ls -a"})
    deny = PermissionDeny(message="no")
    assert answers.permission_answer(allow, request, codec) is allow
    assert answers.permission_answer(deny, request, codec) is deny


@pytest.mark.parametrize("result", [None, True, {"behavior": "allow"}, "allow", HookOutput()])
def test_anything_else_does_not_fit(result: object) -> None:
    with pytest.raises(answers.UnfitAnswerError, match="not PermissionAllow or PermissionDeny"):
        answers.permission_answer(result, can_use_tool({}), codec)


def test_permission_denials() -> None:
    unfit = answers.UnfitAnswerError(
        "permission callback returned NoneType, not PermissionAllow or PermissionDeny"
    )
    assert codec.unstructure(answers.permission_failure_answer(unfit)) == {
        "behavior": "deny",
        "message": "permission callback returned NoneType, not PermissionAllow or PermissionDeny",
    }
    assert codec.unstructure(answers.permission_failure_answer(ValueError("boom"))) == {
        "behavior": "deny",
        "message": "permission callback failed: ValueError: boom",
    }
    assert answers.permission_failure_answer(TimeoutError()).message == (
        "permission callback failed: TimeoutError"
    )
    assert answers.no_callback_denial().message == (
        "no can_use_tool callback is configured in the SDK"
    )
    assert answers.unfit_request_denial("tool_name: missing").message == (
        "the SDK could not read the permission request: tool_name: missing"
    )


# ======================================================================================
# hook answers

WHY = "no shell in skills"


def test_no_opinion_and_typed_answers() -> None:
    assert codec.unstructure(answers.hook_answer(codec, "Stop", None)) == {}
    typed = HookOutput(system_message="hi")
    later = AsyncHookOutput(async_timeout=5)
    assert answers.hook_answer(codec, "Stop", typed) is typed
    assert answers.hook_answer(codec, "Stop", later) is later
    with pytest.raises(answers.UnfitAnswerError, match="not HookOutput, dict or None"):
        answers.hook_answer(codec, "Stop", "continue")


@pytest.mark.parametrize(
    "given",
    [
        # the wire form, our field names, and the two mixed
        {
            "hookSpecificOutput": {
                "hookEventName": "PreSkillShellCommand",
                "permissionDecision": "deny",
                "permissionDecisionReason": WHY,
            }
        },
        {"specific": {"permission_decision": "deny", "permission_decision_reason": WHY}},
        {"hookSpecificOutput": {"permission_decision": "deny", "permissionDecisionReason": WHY}},
        {
            "specific": PreSkillShellCommandOutput(
                permission_decision="deny", permission_decision_reason=WHY
            )
        },
    ],
)
def test_a_skill_shell_command_deny_is_typed(given: JSON) -> None:
    """Issue 26, item 6: before, ``PreSkillShellCommand hooks take no event-specific answer``
    (a TypeError: the hook failed and the command ran)."""
    out = answers.hook_answer(codec, "PreSkillShellCommand", given)
    assert isinstance(out, HookOutput)
    assert out.specific == PreSkillShellCommandOutput(
        permission_decision="deny", permission_decision_reason="no shell in skills"
    )
    assert codec.unstructure(out) == {
        "hookSpecificOutput": {
            "hookEventName": "PreSkillShellCommand",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no shell in skills",
        }
    }


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ({"hookSpecificOutput": {"permissionDecision": "nope"}}, "does not fit"),
        ({"hookSpecificOutput": {"colour": "red"}}, "unknown key 'colour'"),
        ({"hookSpecificOutput": {"hookEventName": "PreToolUse"}}, "for another event"),
        ({"hookSpecificOutput": "deny"}, "not an object"),
        ({"colour": "red"}, "unknown key 'colour'"),
    ],
)
def test_a_skill_shell_command_answer_that_does_not_fit(given: JSON, why: str) -> None:
    with pytest.raises(answers.UnfitAnswerError, match=why):
        answers.hook_answer(codec, "PreSkillShellCommand", given)


def test_an_unknown_events_answer_passes_through() -> None:
    """Issue 26, item 6: before, a dict answering an event the SDK does not know could not say
    anything event-specific (``FutureEvent hooks take no event-specific answer``)."""
    given = {
        "systemMessage": "checked",
        "hookSpecificOutput": {"permissionDecision": "deny", "permission_decision_reason": "no"},
    }
    out = answers.hook_answer(codec, "FutureEvent", given)
    assert isinstance(out, HookOutput)
    assert isinstance(out.specific, UnknownHookSpecificOutput)
    assert codec.unstructure(out) == {
        "systemMessage": "checked",
        "hookSpecificOutput": {
            "hookEventName": "FutureEvent",  # added, as for every event
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",  # our spelling, camelCase on the wire
        },
    }
    with pytest.raises(answers.UnfitAnswerError, match="for another event"):
        answers.hook_answer(codec, "FutureEvent", {"hookSpecificOutput": {"hookEventName": "X"}})


def test_an_event_without_a_specific_answer_still_refuses_one() -> None:
    with pytest.raises(answers.UnfitAnswerError, match="no event-specific answer"):
        answers.hook_answer(codec, "SessionEnd", {"hookSpecificOutput": {"x": 1}})


# ======================================================================================
# failing hooks


def test_the_table_of_events_that_deny_on_failure() -> None:
    table = answers.DENY_ON_FAILURE
    assert table == {"PreToolUse", "PermissionRequest", "PreSkillShellCommand"}
    assert table <= set(hooks.HOOK_EVENTS)


DENIALS: list[tuple[str, JSON]] = [
    (
        "PreToolUse",
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "hook failed: ValueError: boom",
            }
        },
    ),
    (
        "PermissionRequest",
        {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": "hook failed: ValueError: boom"},
            }
        },
    ),
    (
        "PreSkillShellCommand",
        {
            "hookSpecificOutput": {
                "hookEventName": "PreSkillShellCommand",
                "permissionDecision": "deny",
                "permissionDecisionReason": "hook failed: ValueError: boom",
            }
        },
    ),
]


@pytest.mark.parametrize(("event", "wire"), DENIALS, ids=[d[0] for d in DENIALS])
def test_a_failing_permission_hook_denies(event: str, wire: JSON) -> None:
    """PreSkillShellCommand: issue 26, item 6 (before, its failure was an error answer and the
    command ran)."""
    denial = answers.hook_failure_answer(event, ValueError("boom"))
    assert denial is not None
    assert codec.unstructure(denial) == wire


@pytest.mark.parametrize("event", ["Stop", "PostToolUse", "UserPromptSubmit", "FutureEvent"])
def test_other_failing_hooks_answer_an_error(event: str) -> None:
    assert answers.hook_failure_answer(event, ValueError("boom")) is None


UNKNOWN_DENIALS: list[tuple[Any, JSON]] = [
    (
        {"hookSpecificOutput": {"permissionDecision": "deny"}, "colour": "red"},
        {
            "hookSpecificOutput": {
                "hookEventName": "FutureEvent",
                "permissionDecision": "deny",
                "permissionDecisionReason": "hook failed: TypeError: bad",
            }
        },
    ),
    (
        {"specific": {"permission_decision": "deny"}, "continue": "no"},
        {
            "hookSpecificOutput": {
                "hookEventName": "FutureEvent",
                "permissionDecision": "deny",
                "permissionDecisionReason": "hook failed: TypeError: bad",
            }
        },
    ),
    (
        {"hookSpecificOutput": {"decision": {"behavior": "deny"}}, "colour": "red"},
        {
            "hookSpecificOutput": {
                "hookEventName": "FutureEvent",
                "decision": {"behavior": "deny", "message": "hook failed: TypeError: bad"},
            }
        },
    ),
    (
        {"decision": "block", "colour": "red"},
        {"decision": "block", "reason": "hook failed: TypeError: bad"},
    ),
]


@pytest.mark.parametrize(("result", "wire"), UNKNOWN_DENIALS)
def test_an_unknown_events_unfit_deny_still_denies(result: Any, wire: JSON) -> None:
    """Issue 26, item 6: a hook of an event the SDK does not know can still deny, even when
    its answer does not fit; the deny keeps the shape the callback used."""
    denial = answers.hook_failure_answer("FutureEvent", answers.UnfitAnswerError("bad"), result)
    assert denial is not None
    assert codec.unstructure(denial) == wire


@pytest.mark.parametrize(
    "result",
    [
        None,
        {"hookSpecificOutput": {"permissionDecision": "allow"}, "colour": "red"},
        {"decision": "approve", "colour": "red"},
        {"systemMessage": 3},
        "deny",
    ],
)
def test_an_unknown_events_other_failures_answer_an_error(result: Any) -> None:
    assert answers.hook_failure_answer("FutureEvent", ValueError("x"), result) is None


def test_a_known_events_failure_is_not_judged_by_its_shape() -> None:
    """The table decides for known events: a Stop hook's unfit ``decision: block`` is an error
    answer (the CLI's ``onFailure`` decides), a PreToolUse hook's anything denies."""
    unfit = {"decision": "block", "colour": "red"}
    assert answers.hook_failure_answer("Stop", ValueError("x"), unfit) is None
    denial = answers.hook_failure_answer("PreToolUse", ValueError("x"), {"colour": "red"})
    assert denial is not None
    assert isinstance(denial.specific, PreToolUseOutput)


def test_a_permission_request_denial_is_a_permission_deny() -> None:
    denial = answers.hook_failure_answer("PermissionRequest", TimeoutError())
    assert denial is not None
    assert isinstance(denial.specific, PermissionRequestOutput)
    assert denial.specific.decision == PermissionDeny(message="hook failed: TimeoutError")


def test_describe() -> None:
    assert answers.describe(ValueError("boom")) == "ValueError: boom"
    assert answers.describe(TimeoutError()) == "TimeoutError"

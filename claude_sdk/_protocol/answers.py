"""How the host's answers to the CLI's requests are built: pure functions over model values.

The driver (``_session/handlers.py``) runs the host's callbacks, applies their timeouts and
logs; what it answers the CLI with is decided here, with no I/O and no event loop.

``can_use_tool`` (``reference/PROTOCOL.md`` §10.2):

* `permission_answer`: a `PermissionAllow` without ``updated_input`` carries the request's own
  input (the official SDKs always send the input to run with), added to the encoded answer
  rather than to a copy of it: this is the hot path of every permission round trip. An allow
  with an input, and a `PermissionDeny`, are sent as they are; anything else does not fit
  (`UnfitAnswerError`).
* A callback that raises, times out or returns what does not fit denies
  (`permission_failure_answer`); so do no callback (`no_callback_denial`) and a request that
  does not fit the model (`unfit_request_denial`).

``hook_callback`` (§9.2):

* `hook_answer`: None is ``{}`` (no opinion); `HookOutput` and `AsyncHookOutput` are sent as
  they are; a dict is read by `hook_output_of`, in the wire form or with our field names, and
  checked. The ``hookSpecificOutput`` of an event this model does not know passes through as
  an `UnknownHookSpecificOutput` (its keys camelCased, ``hookEventName`` added).
* `hook_failure_answer`: a hook that raises, times out or answers what does not fit denies
  what it guards when its event is in `DENY_ON_FAILURE` (PreToolUse, PermissionRequest,
  PreSkillShellCommand), and, for an event this model does not know, when the answer that did
  not fit was shaped as a deny (``permissionDecision: "deny"``, ``decision.behavior: "deny"``,
  ``decision: "block"``): the deny keeps that shape. Any other failure is an error answer
  (None here), and the matcher's ``onFailure`` decides on the CLI's side.

Invariant: every function returns a model value (or the encoded allow above); nothing here
writes a wire key by hand but the ``hookEventName`` tag and the keys of an event the model
does not know.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from typing import Any, Final

import attrs

from ..control import CanUseToolRequest
from ..hooks import (
    HOOK_EVENTS,
    AsyncHookOutput,
    BaseHookSpecificOutput,
    HookOutput,
    HookSpecificOutput,
    PermissionRequestOutput,
    PreSkillShellCommandOutput,
    PreToolUseOutput,
    UnknownHookSpecificOutput,
)
from ..permissions import PermissionAllow, PermissionDeny
from .codec import Codec

__all__ = [
    "DENY_ON_FAILURE",
    "UnfitAnswerError",
    "describe",
    "hook_answer",
    "hook_failure_answer",
    "hook_output_of",
    "no_callback_denial",
    "permission_answer",
    "permission_failure_answer",
    "unfit_request_denial",
]


class UnfitAnswerError(TypeError):
    """A callback returned something that is not an answer, or an answer that does not fit."""


def describe(exc: BaseException) -> str:
    """``Type: message`` of an exception, for answers and logs (an answer that does not fit
    is named by its public class, ``TypeError``: what the model reads stays the same)."""
    text = str(exc)
    name = "TypeError" if isinstance(exc, UnfitAnswerError) else type(exc).__name__
    return f"{name}: {text}" if text else name


# ======================================================================================
# can_use_tool


def permission_answer(
    result: object, request: CanUseToolRequest, codec: Codec
) -> PermissionAllow | PermissionDeny | dict[str, Any]:
    """The answer to ``request`` for what its callback returned.

    Raises:
        UnfitAnswerError: ``result`` is not a `PermissionAllow` or `PermissionDeny`.
    """
    if isinstance(result, PermissionAllow):
        if result.updated_input is None:
            # The original input, added to the encoded answer (under the key of the model's
            # spec) rather than to a copy of the answer: no copy of the input either.
            body: dict[str, Any] = codec.unstructure(result)
            body[_updated_input_key(codec)] = request.input
            return body
        return result
    if isinstance(result, PermissionDeny):
        return result
    raise UnfitAnswerError(
        f"permission callback returned {type(result).__name__}, "
        "not PermissionAllow or PermissionDeny"
    )


_UPDATED_INPUT: list[str] = []


def _updated_input_key(codec: Codec) -> str:
    if not _UPDATED_INPUT:
        _UPDATED_INPUT.append(codec.wire_name(PermissionAllow, "updated_input"))
    return _UPDATED_INPUT[0]


def permission_failure_answer(exc: BaseException) -> PermissionDeny:
    """The deny for a callback that raised or timed out (``exc``), or whose answer did not fit
    (an `UnfitAnswerError`, whose message is the deny's)."""
    if isinstance(exc, UnfitAnswerError):
        return PermissionDeny(message=str(exc))
    return PermissionDeny(message=f"permission callback failed: {describe(exc)}")


def no_callback_denial() -> PermissionDeny:
    """The deny when no ``can_use_tool`` callback is configured."""
    return PermissionDeny(message="no can_use_tool callback is configured in the SDK")


def unfit_request_denial(error: object) -> PermissionDeny:
    """The deny for a ``can_use_tool`` request that does not fit the model (``error``)."""
    return PermissionDeny(message=f"the SDK could not read the permission request: {error}")


# ======================================================================================
# hook_callback: answers


def hook_answer(codec: Codec, event: str, result: object) -> HookOutput | AsyncHookOutput:
    """The answer to a hook of ``event`` for what its callback returned.

    Raises:
        UnfitAnswerError: ``result`` is not a `HookOutput`, `AsyncHookOutput`, dict or None,
            or is a dict that does not fit (`hook_output_of`).
    """
    if result is None:
        return HookOutput()
    if isinstance(result, (HookOutput, AsyncHookOutput)):
        return result
    if isinstance(result, Mapping):
        try:
            return hook_output_of(codec, event, result)
        except UnfitAnswerError as exc:
            raise UnfitAnswerError(f"{exc}; {hook_fix(event)}") from None
    raise UnfitAnswerError(
        f"hook returned {type(result).__name__}, not HookOutput, dict or None; {hook_fix(event)}"
    )


def hook_fix(event: str) -> str:
    """How a hook of ``event`` answers (said when its answer does not fit)."""
    cls = _SPECIFIC.get(event)
    if cls is None:
        return "return None (no opinion), a claude_sdk.HookOutput, or a dict in the CLI's form"
    example = (
        "permission_decision='deny', permission_decision_reason='why'"
        if event == "PreToolUse"
        else "..."
    )
    return (
        f"return None (no opinion), or claude_sdk.HookOutput(specific="
        f"claude_sdk.hooks.{cls.__name__}({example})), or the CLI's dict form "
        f"{{'hookSpecificOutput': {{'hookEventName': '{event}', ...}}}}"
    )


#: The event-specific output class of each hook event.
_SPECIFIC: Final = {
    cls.hook_event_name: cls
    for cls in typing.get_args(HookSpecificOutput)
    if issubclass(cls, BaseHookSpecificOutput)
}

#: The wire tag of an event-specific output (hooks.BaseHookSpecificOutput's spec: camelCase).
_TAG: Final = "hookEventName"


def _wire_keys(codec: Codec, cls: type, given: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``given`` with our field names (``permission_decision``) as wire keys; an unknown
    key is an error."""
    names = {f.name: codec.wire_name(cls, f.name) for f in attrs.fields(cls) if f.name != "extra"}
    wire = set(names.values())
    out: dict[str, Any] = {}
    for key, value in given.items():
        if key in wire:
            out[key] = value
        elif key in names:
            out[names[key]] = value
        elif key.rstrip("_") in names.values():  # ``continue`` written ``continue_``
            out[key.rstrip("_")] = value
        else:
            known = ", ".join(sorted(wire | set(names)))
            raise UnfitAnswerError(
                f"the hook answer has an unknown key {key!r} in {where} ({known})"
            )
    return out


def _camel(key: str) -> str:
    """Our spelling of a key as the wire's (``permission_decision`` -> ``permissionDecision``),
    the rule of every event-specific output."""
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest) if rest else key


def hook_output_of(
    codec: Codec, event: str, given: Mapping[str, Any]
) -> HookOutput | AsyncHookOutput:
    """A hook's dict answer as the typed output, checked: the wire form
    (``{"hookSpecificOutput": {"permissionDecision": "deny"}}``) or our field names
    (``{"specific": {"permission_decision": "deny"}}``), mixed freely.

    For an event this model does not know, ``hookSpecificOutput`` passes through as an
    `UnknownHookSpecificOutput`: its keys camelCased, ``hookEventName`` added.

    Raises:
        UnfitAnswerError: an unknown key, a value of the wrong type, an answer for another
            event (the hook then fails: `hook_failure_answer`).
    """
    cls: type = AsyncHookOutput if ("async" in given or "async_" in given) else HookOutput
    data = _wire_keys(codec, cls, given, "the answer")
    specific_key = codec.wire_name(HookOutput, "specific") if cls is HookOutput else None
    passed: UnknownHookSpecificOutput | None = None
    if specific_key is not None and data.get(specific_key) is not None:
        specific = _specific_of(codec, event, data[specific_key], specific_key)
        if event in _SPECIFIC:
            data[specific_key] = specific
        else:  # not typed, so not checked: passed as it is (the model cannot judge it)
            del data[specific_key]
            passed = UnknownHookSpecificOutput(raw=specific)
    value = codec.structure(data, cls)
    problems = codec.drift(value)
    if problems:
        raise UnfitAnswerError("the hook answer does not fit: " + "; ".join(problems))
    result: HookOutput | AsyncHookOutput = value
    if passed is not None:
        result = attrs.evolve(value, specific=passed)
    return result


def _specific_of(codec: Codec, event: str, given: object, where: str) -> dict[str, Any]:
    """The wire form of a dict answer's ``hookSpecificOutput`` for ``event``."""
    if isinstance(given, UnknownHookSpecificOutput):
        given = given.raw
    elif isinstance(given, BaseHookSpecificOutput):
        given = codec.unstructure(given)
    if not isinstance(given, Mapping):
        raise UnfitAnswerError(f"the hook answer's {where} is not an object: {given!r}")
    specific = dict(given)
    tag = specific.pop(_TAG, specific.pop("hook_event_name", event))
    if tag != event:
        raise UnfitAnswerError(f"a {event} hook answered for another event, {tag!r}")
    specific_cls = _SPECIFIC.get(event)
    if specific_cls is not None:
        specific = _wire_keys(codec, specific_cls, specific, where)
    elif event in HOOK_EVENTS:
        raise UnfitAnswerError(f"{event} hooks take no event-specific answer")
    else:  # an event newer than this model: its keys as the wire spells them
        specific = {_camel(key): value for key, value in specific.items()}
    return {_TAG: event, **specific}


# ======================================================================================
# hook_callback: failures


def _pre_tool_use_denial(reason: str) -> HookOutput:
    return HookOutput(
        specific=PreToolUseOutput(permission_decision="deny", permission_decision_reason=reason)
    )


def _permission_request_denial(reason: str) -> HookOutput:
    return HookOutput(specific=PermissionRequestOutput(decision=PermissionDeny(message=reason)))


def _skill_shell_command_denial(reason: str) -> HookOutput:
    return HookOutput(
        specific=PreSkillShellCommandOutput(
            permission_decision="deny", permission_decision_reason=reason
        )
    )


#: The events whose hook, failing, denies what it guards, and that deny. (Their matchers
#: default to ``onFailure: "block"`` too: ``_protocol/launch.py``.)
_DENIALS: Final[Mapping[str, Callable[[str], HookOutput]]] = {
    "PreToolUse": _pre_tool_use_denial,
    "PermissionRequest": _permission_request_denial,
    "PreSkillShellCommand": _skill_shell_command_denial,
}

#: The events whose failing hook denies (besides an unknown event's unfit deny).
DENY_ON_FAILURE: Final = frozenset(_DENIALS)


def hook_failure_answer(event: str, exc: BaseException, result: object = None) -> HookOutput | None:
    """The deny for a hook of ``event`` that failed with ``exc``, or None: answer an error.

    Args:
        event: the hook's event.
        exc: why it failed (it raised, timed out, or its answer did not fit).
        result: what the callback returned when its answer did not fit (None when it raised):
            for an event this model does not know, a deny-shaped one still denies.
    """
    reason = f"hook failed: {describe(exc)}"
    denial = _DENIALS.get(event)
    if denial is not None:
        return denial(reason)
    if event in HOOK_EVENTS or not isinstance(result, Mapping):
        return None
    return _unknown_event_denial(event, result, reason)


def _unknown_event_denial(event: str, given: Mapping[str, Any], reason: str) -> HookOutput | None:
    """A deny in the shape ``given`` used, if it was one, for an event the model lacks."""
    specific: Any = given.get("hookSpecificOutput", given.get("specific"))
    if isinstance(specific, UnknownHookSpecificOutput):
        specific = specific.raw
    if isinstance(specific, Mapping):
        decision = specific.get("permissionDecision", specific.get("permission_decision"))
        if decision == "deny":
            raw: dict[str, Any] = {
                _TAG: event,
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
            return HookOutput(specific=UnknownHookSpecificOutput(raw=raw))
        verdict = specific.get("decision")
        behavior = (
            verdict.get("behavior")
            if isinstance(verdict, Mapping)
            else getattr(verdict, "behavior", None)
        )
        if behavior == "deny":
            raw = {_TAG: event, "decision": {"behavior": "deny", "message": reason}}
            return HookOutput(specific=UnknownHookSpecificOutput(raw=raw))
    if given.get("decision") == "block":
        return HookOutput(decision="block", reason=reason)
    return None

"""Policy dry run: replay the tool calls of recordings through a permission policy.

`check_policy` reads cassettes, transcripts (``{"dir", "msg"}`` lines, no header) and plain
NDJSON files of frames, finds every tool call in them, asks a `Policy` what it would decide
about each, and compares that with what happened in the recording. ``python -m
claude_sdk.testing policy-check MODULE:NAME FILE...`` prints the result, call by call.

**A call** is a ``tool_use`` block of an ``assistant`` frame (a subagent's calls included),
at the line of that frame. Its recorded verdict is read, in this order, from:

1. the CLI's own record, the ``tool_result_meta`` entry of the ``tool_result`` with the
   call's id: ``permission_decision.decision`` ``accept`` is **allow** (the tool was let
   run), ``reject`` is **deny** (it did not run). Its ``source`` says who decided: ``hook``
   (a PreToolUse hook), ``user_temporary``, ``user_permanent`` or ``user_reject`` (the
   ``can_use_tool`` callback) or ``config`` (the CLI's own rules, mode and settings: source
   ``cli``, with the CLI's ``reason_type`` such as ``rule`` or ``mode`` as the reason; a
   ``config`` reject after a failed ``can_use_tool`` answer is the callback's);
2. failing that, the frames: a PreToolUse ``hook_callback`` answered with
   ``permissionDecision: "deny"`` (or a legacy ``decision: "block"``), a ``can_use_tool``
   answered ``allow``, ``deny`` or with an error (a deny), a ``system/permission_denied``
   frame (the CLI's deny), or a ``tool_result`` that is not an error (the tool ran: allow,
   from an unrecorded source);
3. otherwise **unknown**: the recording ends before the call's result, an interrupt stopped
   it before a permission verdict was recorded, or it failed without one (``No such tool``).
   An unknown call is never guessed and never counted as a difference.

**The policy** sees the call's input as recorded, with the placeholders of scrubbing
replaced in every string: ``<cwd>`` by ``cwd`` (by default the current directory),
``<home>`` by this user's home and ``<tmpdir>`` by the temporary directory. Its ``cwd`` is
the one the call's PreToolUse hook input gives, else the last ``system/init`` frame's, else
``cwd``, with the same replacements. A ``decide`` that raises, or returns something other
than a `Decision`, is an **error**, which fails closed: it counts as deny.

**Comparison.** A policy's ``continue`` has no opinion: as a hook, the CLI's own rules would
decide. It is **undecided**, never a difference, unless ``default`` (``"allow"`` or
``"deny"``) turns it into that verdict, as ``Policy.as_can_use_tool(default=...)`` does.
Otherwise the policy's verdict (allow, or deny for a deny or an error) **matches** the
recorded one or **differs** from it. ``updated_input`` is shown, not compared.

A `PolicyCanUseTool` (``policy.as_can_use_tool()``) or a `PolicyHook` is checked as its
policy; for a `PolicyCanUseTool` its own default applies when no ``default`` is given (None
denies, as the callback does).

**Hostile recordings.** Each line is parsed as the SDK parses the CLI's output
(`claude_sdk._protocol.codec.loads`): a line nested deeper than 500 levels, or one that is not
JSON, is a `CassetteFormatError` naming the file and line, never a ``RecursionError``.
Recorded text reaches a terminal only through `printable`: every character ``repr`` would
escape (control characters such as ESC, BEL and C1 CSI, format characters such as
right-to-left overrides, line separators, lone surrogates) is shown as an escape, so a
recording cannot move the cursor, set a title or hide text; and ``str()`` of a verdict cuts
each recorded field short, so one call is one short line.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal

import attrs

from .._attrs import define, frozen
from .._protocol.codec import loads
from ..errors import MessageDecodeError
from ..permissions import PermissionAllow
from ..policies import Decision, Policy, PolicyCanUseTool, PolicyHook
from .cassette import CLI_TO_SDK, SDK_TO_CLI, CassetteFormatError

__all__ = [
    "CallVerdict",
    "Outcome",
    "PolicyLike",
    "RecordedCall",
    "RecordedKind",
    "RecordedVerdict",
    "check_call",
    "check_policy",
    "load_policy",
    "printable",
    "printable_json",
    "read_calls",
]

#: What happened to a call in the recording.
RecordedKind = Literal["allow", "deny", "unknown"]
#: How the policy's verdict compares with the recorded one.
Outcome = Literal["match", "differ", "undecided", "unknown"]
#: What `check_policy` accepts as a policy.
PolicyLike = Policy | PolicyCanUseTool | PolicyHook

_JSON = dict[str, Any]
_CAN_USE_TOOL_SOURCES = frozenset({"user_temporary", "user_permanent", "user_reject"})
_SUMMARY_WIDTH = 60
#: The longest a recorded field (a tool name, a reason) is shown in a verdict's line.
_FIELD_WIDTH = 200


# ======================================================================================
# Text for a terminal

#: A character outside printable ASCII (the candidates for escaping).
_NOT_ASCII_PRINTABLE = re.compile(r"[^\x20-\x7e]")


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with every character ``repr`` would escape shown as an escape (``\\x1b``,
    ``\\x9b``, ``\\u202e``, ``\\ud800``): control and format characters, line and paragraph
    separators, surrogates, unassigned code points, spaces other than the space. A
    newline is escaped too: one field never breaks a line."""
    if text.isprintable():
        return text
    return _NOT_ASCII_PRINTABLE.sub(
        lambda m: m.group() if m.group().isprintable() else _escape(m.group()), text
    )


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def printable_json(value: Any) -> str:
    """``value`` as one line of JSON whose text is `printable` (non-ASCII letters stay as
    they are; what a terminal would act on is a ``\\uXXXX`` escape, the same JSON value)."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    if text.isprintable():
        return text
    # Outside strings, json.dumps writes only ASCII punctuation, digits and letters: every
    # character replaced here is inside a string, where an escape means the same.
    return _NOT_ASCII_PRINTABLE.sub(
        lambda m: m.group() if m.group().isprintable() else _json_escape(m.group()), text
    )


def _field(text: str, width: int = _FIELD_WIDTH) -> str:
    """A recorded field for a verdict's line: cut short, then `printable`."""
    if len(text) > width:
        text = text[: width - 3] + "..."
    return printable(text)


@frozen(kw_only=True)
class RecordedVerdict:
    """What happened to a tool call in the recording.

    Attributes:
        kind: ``allow`` (the tool was let run), ``deny`` (it was refused before it ran) or
            ``unknown`` (no verdict is visible).
        source: who decided: ``hook``, ``can_use_tool``, ``cli`` (the CLI's own rules, mode
            or settings); ``""`` when unknown or unrecorded.
        reason: the hook's reason, the callback's message, the CLI's ``reason_type``, or why
            the verdict is unknown.
        meta: the call's ``tool_result_meta`` entry (None when there is none).
    """

    kind: RecordedKind
    source: str = ""
    reason: str = ""
    meta: _JSON | None = None

    def __str__(self) -> str:
        detail = _field(": ".join(part for part in (self.source, self.reason) if part))
        return f"{self.kind} ({detail})" if detail else self.kind


@frozen(kw_only=True)
class RecordedCall:
    """One tool call found in a recording.

    Attributes:
        path: the file.
        line: the 1-based line of the ``assistant`` frame with the ``tool_use`` block.
        tool_use_id: the block's id.
        tool_name: the tool (``Bash``, ``Read``, ``mcp__server__tool``, ...).
        tool_input: the input, as recorded (placeholders not replaced).
        cwd: the CLI's working directory, as recorded (None when the file names none).
        recorded: what happened to it.
    """

    path: str
    line: int
    tool_use_id: str
    tool_name: str
    tool_input: _JSON = attrs.field(factory=dict)
    cwd: str | None = None
    recorded: RecordedVerdict

    @property
    def summary(self) -> str:
        """The input in short: a Bash command, a file path, or the input as JSON."""
        value: Any = None
        for key in ("command", "file_path", "notebook_path", "pattern", "path", "url"):
            if isinstance(self.tool_input.get(key), str):
                value = self.tool_input[key]
                break
        if value is not None and len(value) > _SUMMARY_WIDTH:
            value = value[:_SUMMARY_WIDTH]  # no need to encode more than is shown
        try:
            text = json.dumps(self.tool_input if value is None else value, ensure_ascii=False)
        except (ValueError, RecursionError):  # an input that JSON cannot hold
            text = "<input not shown: not JSON>"
        return _field(text, _SUMMARY_WIDTH)


@frozen(kw_only=True)
class CallVerdict:
    """A recorded call, what the policy decided about it, and how the two compare.

    Attributes:
        call: the recorded call.
        decision: the policy's decision (None when ``decide`` failed).
        error: why ``decide`` failed (``"ValueError: ..."``), else None.
        verdict: the policy's effective verdict: ``allow``, ``deny`` (an error included)
            or ``continue`` (no opinion, and no ``default``).
        outcome: ``match``, ``differ``, ``undecided`` (the policy has no opinion) or
            ``unknown`` (the recording shows no verdict).
    """

    call: RecordedCall
    decision: Decision | None
    error: str | None = None
    verdict: Literal["allow", "deny", "continue"]
    outcome: Outcome

    @property
    def differs(self) -> bool:
        """True when the policy would have decided otherwise than the recording shows."""
        return self.outcome == "differ"

    def policy_text(self) -> str:
        """The policy's verdict in words: ``deny (name: reason)``, ``continue (no opinion)``
        (each part cut short and `printable`: a reason may quote the recorded input)."""
        if self.error is not None:
            return f"error, so deny ({_field(self.error)})"
        decision = self.decision
        assert decision is not None
        detail = ": ".join(_field(part) for part in (decision.policy, decision.reason) if part)
        if decision.updated_input is not None and decision.kind == "allow":
            detail = f"{detail}; rewrites the input" if detail else "rewrites the input"
        if decision.kind == "continue":
            opinion = f"continue (no opinion{'; ' + detail if detail else ''})"
            if self.verdict == "continue":
                return opinion
            return f"{self.verdict} by default, {opinion}"
        return f"{decision.kind} ({detail})" if detail else decision.kind

    def __str__(self) -> str:
        call = self.call
        line = (
            f"{printable(call.path)}:{call.line}: {_field(call.tool_name)} {call.summary}: "
            f"recorded {call.recorded}; policy {self.policy_text()}"
        )
        return f"{line}  [DIFFERS]" if self.differs else line

    def to_dict(self) -> _JSON:
        """The verdict as a JSON object (``--json`` prints one per line)."""
        call, decision = self.call, self.decision
        return {
            "path": call.path,
            "line": call.line,
            "tool_use_id": call.tool_use_id,
            "tool_name": call.tool_name,
            "input": call.tool_input,
            "cwd": call.cwd,
            "recorded": {
                "verdict": call.recorded.kind,
                "source": call.recorded.source,
                "reason": call.recorded.reason,
            },
            "policy": {
                "verdict": self.verdict,
                "decision": None if decision is None else decision.kind,
                "name": None if decision is None else decision.policy,
                "reason": None if decision is None else decision.reason,
                "updated_input": None if decision is None else decision.updated_input,
                "error": self.error,
            },
            "outcome": self.outcome,
        }


# ======================================================================================
# Reading the calls of a recording


@define(eq=False)
class _Pending:
    """What the frames say about one call, while the file is read."""

    line: int
    tool_use_id: str
    tool_name: str
    tool_input: _JSON
    cwd: str | None
    hook: str | None = None  # "allow", "deny", "ask" or "error" (the strongest seen)
    hook_reason: str = ""
    permission: str | None = None  # can_use_tool: "allow", "deny", "error", "cancelled"
    permission_reason: str = ""
    cli_denial: str | None = None  # a system/permission_denied message
    result: _JSON | None = None
    meta: _JSON | None = None


_HOOK_STRENGTH = {None: 0, "ask": 1, "allow": 2, "error": 3, "deny": 4}


@define(eq=False)
class _Reader:
    """The calls of one recorded connection (a header starts another)."""

    path: str
    cwd: str | None = None
    calls: dict[str, _Pending] = attrs.field(factory=dict)
    requests: dict[str, tuple[str, str]] = attrs.field(factory=dict)

    def feed(self, msg: _JSON, line: int, direction: str) -> None:
        kind = msg.get("type")
        if kind == "assistant" and direction != SDK_TO_CLI:
            self._assistant(msg, line)
        elif kind == "user" and direction != SDK_TO_CLI:
            self._user(msg)
        elif kind == "system" and direction != SDK_TO_CLI:
            self._system(msg)
        elif kind == "control_request" and direction != SDK_TO_CLI:
            self._request(msg)
        elif kind == "control_cancel_request":
            found = self.requests.get(str(msg.get("request_id")))
            if found is not None and found[0] == "can_use_tool":
                call = self.calls.get(found[1])
                if call is not None and call.permission is None:
                    call.permission = "cancelled"
        elif kind == "control_response" and direction != CLI_TO_SDK:
            self._response(msg)

    def _assistant(self, msg: _JSON, line: int) -> None:
        message = msg.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            tool_use_id, name = block.get("id"), block.get("name")
            if not isinstance(tool_use_id, str) or not isinstance(name, str):
                continue
            if tool_use_id in self.calls:
                continue  # the same block again: the first one counts
            tool_input = block.get("input")
            self.calls[tool_use_id] = _Pending(
                line=line,
                tool_use_id=tool_use_id,
                tool_name=name,
                tool_input=dict(tool_input) if isinstance(tool_input, dict) else {},
                cwd=self.cwd,
            )

    def _user(self, msg: _JSON) -> None:
        message = msg.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        metas = msg.get("tool_result_meta")
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            call = self.calls.get(str(block.get("tool_use_id")))
            if call is None or call.result is not None:
                continue
            call.result = block
            for meta in metas if isinstance(metas, list) else ():
                if isinstance(meta, dict) and meta.get("id") == call.tool_use_id:
                    call.meta = meta
                    break

    def _system(self, msg: _JSON) -> None:
        subtype = msg.get("subtype")
        if subtype == "init" and isinstance(msg.get("cwd"), str):
            self.cwd = msg["cwd"]
        elif subtype == "permission_denied":
            call = self.calls.get(str(msg.get("tool_use_id")))
            if call is not None:
                call.cli_denial = str(msg.get("message") or "denied by the CLI")

    def _request(self, msg: _JSON) -> None:
        request, request_id = msg.get("request"), msg.get("request_id")
        if not isinstance(request, dict) or not isinstance(request_id, str):
            return
        subtype = request.get("subtype")
        if subtype == "can_use_tool":
            self.requests[request_id] = ("can_use_tool", str(request.get("tool_use_id")))
        elif subtype == "hook_callback":
            hook_input = request.get("input")
            if not isinstance(hook_input, dict):
                return
            if hook_input.get("hook_event_name") != "PreToolUse":
                return
            tool_use_id = str(hook_input.get("tool_use_id") or request.get("tool_use_id"))
            self.requests[request_id] = ("hook", tool_use_id)
            call = self.calls.get(tool_use_id)
            if call is not None and isinstance(hook_input.get("cwd"), str):
                call.cwd = hook_input["cwd"]

    def _response(self, msg: _JSON) -> None:
        response = msg.get("response")
        if not isinstance(response, dict):
            return
        found = self.requests.pop(str(response.get("request_id")), None)
        if found is None:
            return
        what, tool_use_id = found
        call = self.calls.get(tool_use_id)
        if call is None:
            return
        body = response.get("response")
        body = body if isinstance(body, dict) else {}
        failed = response.get("subtype") == "error"
        error = f"error: {response.get('error')}"
        if what == "can_use_tool":
            behavior = body.get("behavior")
            if failed:
                call.permission, call.permission_reason = "error", error
            elif behavior == "deny":
                call.permission, call.permission_reason = "deny", str(body.get("message") or "")
            elif behavior == "allow":
                updated = body.get("updatedInput")
                rewritten = isinstance(updated, dict) and updated != call.tool_input
                call.permission = "allow"
                call.permission_reason = "input rewritten" if rewritten else ""
            return
        verdict, reason = _hook_answer(body)
        if failed:
            verdict, reason = "error", error
        if _HOOK_STRENGTH[verdict] > _HOOK_STRENGTH[call.hook]:
            call.hook, call.hook_reason = verdict, reason

    def finish(self) -> list[RecordedCall]:
        return [
            RecordedCall(
                path=self.path,
                line=call.line,
                tool_use_id=call.tool_use_id,
                tool_name=call.tool_name,
                tool_input=call.tool_input,
                cwd=call.cwd,
                recorded=_classify(call),
            )
            for call in self.calls.values()
        ]


def _hook_answer(body: Mapping[str, Any]) -> tuple[str | None, str]:
    """A PreToolUse hook's permission answer: (``allow``/``deny``/``ask`` or None, reason)."""
    specific = body.get("hookSpecificOutput")
    if isinstance(specific, dict):
        decision = specific.get("permissionDecision")
        if decision in ("allow", "deny", "ask"):
            return str(decision), str(specific.get("permissionDecisionReason") or "")
    legacy = body.get("decision")
    if legacy in ("block", "approve"):
        return ("deny" if legacy == "block" else "allow"), str(body.get("reason") or "")
    return None, ""


def _classify(call: _Pending) -> RecordedVerdict:
    meta = call.meta
    record = meta.get("permission_decision") if meta is not None else None
    if isinstance(record, dict) and record.get("decision") in ("accept", "reject"):
        kind: RecordedKind = "allow" if record["decision"] == "accept" else "deny"
        source = record.get("source")
        if source == "hook":
            return RecordedVerdict(kind=kind, source="hook", reason=call.hook_reason, meta=meta)
        if source in _CAN_USE_TOOL_SOURCES or call.permission == "error":
            return RecordedVerdict(
                kind=kind, source="can_use_tool", reason=call.permission_reason, meta=meta
            )
        reason = record.get("reason_type") or ("" if source == "config" else source)
        if kind == "deny" and call.cli_denial is not None:
            reason = call.cli_denial
        return RecordedVerdict(kind=kind, source="cli", reason=str(reason or ""), meta=meta)
    # No record of the CLI's: what the frames show.
    if call.hook == "deny":
        return RecordedVerdict(kind="deny", source="hook", reason=call.hook_reason, meta=meta)
    if call.permission in ("allow", "deny", "error"):
        kind = "allow" if call.permission == "allow" else "deny"
        return RecordedVerdict(
            kind=kind, source="can_use_tool", reason=call.permission_reason, meta=meta
        )
    if call.cli_denial is not None:
        return RecordedVerdict(kind="deny", source="cli", reason=call.cli_denial, meta=meta)
    interrupted = call.permission == "cancelled" or (
        meta is not None and meta.get("non_execution_kind") == "user-rejected"
    )
    if interrupted:
        why = "interrupted before a permission verdict was recorded"
        return RecordedVerdict(kind="unknown", reason=why, meta=meta)
    if call.result is None:
        why = "no tool result: the recording ends first"
        return RecordedVerdict(kind="unknown", reason=why, meta=meta)
    if not call.result.get("is_error"):
        why = "the tool ran; no permission record"
        return RecordedVerdict(kind="allow", reason=why, meta=meta)
    why = f"not run, and no permission verdict recorded: {_excerpt(call.result.get('content'))}"
    return RecordedVerdict(kind="unknown", reason=why, meta=meta)


def _excerpt(content: Any) -> str:
    if isinstance(content, list):
        content = " ".join(
            str(block.get("text", "")) for block in content if isinstance(block, dict)
        )
    text = " ".join(str(content or "").split())
    return text if len(text) <= 80 else text[:77] + "..."


def _json_lines(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of an NDJSON file with their line numbers, parsed as the SDK parses
    the CLI's lines (`claude_sdk._protocol.codec.loads`: nesting deeper than 500 levels,
    ``NaN`` and text that is not JSON are refused, never a ``RecursionError``).

    Raises:
        OSError: the file cannot be read.
        UnicodeDecodeError: it is not UTF-8.
        CassetteFormatError: a line is not JSON the SDK reads, or not a JSON object.
    """
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            if not text.strip():
                continue
            try:
                obj = loads(text)
            except MessageDecodeError as exc:
                raise CassetteFormatError(path=path, line=number, reason=exc.reason) from None
            if not isinstance(obj, dict):
                raise CassetteFormatError(path=path, line=number, reason="not a JSON object")
            yield number, obj


def read_calls(path: str | os.PathLike[str]) -> list[RecordedCall]:
    """The tool calls of a cassette, a transcript or an NDJSON file of frames, in order.

    Headers, notes, lines that are not JSON frames of the wire (``raw``) and blank lines
    are skipped; a header starts a new connection.

    Raises:
        OSError: the file cannot be read.
        UnicodeDecodeError: it is not UTF-8.
        CassetteFormatError: a line is not JSON the SDK reads (nested deeper than 500
            levels, for one), not a JSON object, or a frame line's ``msg`` is not.
    """
    where = os.fspath(path)
    calls: list[RecordedCall] = []
    reader = _Reader(where)
    for number, obj in _json_lines(where):
        if "cassette" in obj:
            calls += reader.finish()
            reader = _Reader(where)
            continue
        direction = ""
        msg: Any = obj
        if "dir" in obj:
            direction = str(obj["dir"])
            if direction not in (CLI_TO_SDK, SDK_TO_CLI) or "msg" not in obj:
                continue  # a note, or a line of the wire that is not JSON
            msg = obj["msg"]
            if not isinstance(msg, dict):
                raise CassetteFormatError(
                    path=where, line=number, reason="'msg' is not a JSON object"
                )
        reader.feed(msg, number, direction)
    return calls + reader.finish()


# ======================================================================================
# Asking the policy


def _placeholders(cwd: str | os.PathLike[str] | None) -> tuple[tuple[str, str], ...]:
    here = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
    return (
        ("<cwd>", here),
        ("<home>", os.path.expanduser("~")),
        ("<tmpdir>", tempfile.gettempdir()),
    )


def _substitute(value: Any, pairs: Sequence[tuple[str, str]]) -> Any:
    """A copy of ``value`` with the placeholders replaced in every string (iterative: a
    recording nested hundreds of levels deep is no ``RecursionError``)."""

    def replace(text: str) -> str:
        for placeholder, real in pairs:
            text = text.replace(placeholder, real)
        return text

    if isinstance(value, str):
        return replace(value)
    if not isinstance(value, (list, dict)):
        return value
    root: Any = [] if isinstance(value, list) else {}
    todo: list[tuple[Any, Any]] = [(value, root)]
    while todo:
        source, target = todo.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            new: Any = item
            if isinstance(item, str):
                new = replace(item)
            elif isinstance(item, (list, dict)):
                new = [] if isinstance(item, list) else {}
                todo.append((item, new))
            if isinstance(target, dict):
                target[key] = new
            else:
                target.append(new)
    return root


def _unwrap(policy: PolicyLike) -> tuple[Policy, Literal["allow", "deny"] | None]:
    """The policy to ask, and the default its adapter applies (None for a bare policy)."""
    if isinstance(policy, PolicyHook):
        return policy.policy, None
    if isinstance(policy, PolicyCanUseTool):
        default = policy.default
        if default == "allow" or isinstance(default, PermissionAllow):
            return policy.policy, "allow"
        return policy.policy, "deny"
    if isinstance(policy, Policy):
        return policy, None
    raise TypeError(f"not a Policy, PolicyCanUseTool or PolicyHook: {policy!r}")


def check_call(
    policy: PolicyLike,
    call: RecordedCall,
    *,
    cwd: str | os.PathLike[str] | None = None,
    default: Literal["allow", "deny"] | None = None,
) -> CallVerdict:
    """Ask ``policy`` about one recorded call and compare (see the module docstring).

    Args:
        policy: the policy (or its hook or ``can_use_tool`` adapter).
        call: the call.
        cwd: what ``<cwd>`` stands for, and the working directory of a call whose recording
            names none (default: the current directory).
        default: the verdict a ``continue`` stands for (None: undecided).

    Raises:
        TypeError: ``policy`` is none of the accepted types.
    """
    target, adapter_default = _unwrap(policy)
    if default is None:
        default = adapter_default
    pairs = _placeholders(cwd)
    run_cwd = _substitute(call.cwd if call.cwd is not None else pairs[0][1], pairs)
    tool_input = _substitute(call.tool_input, pairs)
    decision: Decision | None = None
    error: str | None = None
    try:
        answer: object = target.decide(call.tool_name, tool_input, cwd=run_cwd)
    except Exception as exc:  # a policy's bug fails closed, reported per call
        error = f"{type(exc).__name__}: {exc}"
    else:
        if isinstance(answer, Decision) and answer.kind in ("allow", "deny", "continue"):
            decision = answer
        else:
            error = f"decide() returned {answer!r}, not a Decision"
    verdict: Literal["allow", "deny", "continue"]
    if decision is None:
        verdict = "deny"
    elif decision.kind == "continue":
        verdict = default if default is not None else "continue"
    else:
        verdict = decision.kind
    outcome: Outcome
    if call.recorded.kind == "unknown":
        outcome = "unknown"
    elif verdict == "continue":
        outcome = "undecided"
    else:
        outcome = "match" if verdict == call.recorded.kind else "differ"
    return CallVerdict(call=call, decision=decision, error=error, verdict=verdict, outcome=outcome)


def check_policy(
    policy: PolicyLike,
    paths: Iterable[str | os.PathLike[str]],
    *,
    cwd: str | os.PathLike[str] | None = None,
    default: Literal["allow", "deny"] | None = None,
) -> list[CallVerdict]:
    """Replay the tool calls recorded in ``paths`` through ``policy``, call by call.

    Args:
        policy: a `Policy`, or its `PolicyHook` or `PolicyCanUseTool` adapter.
        paths: cassettes, transcripts or NDJSON files of frames.
        cwd: what ``<cwd>`` in the recordings stands for (default: the current directory).
        default: the verdict a policy's ``continue`` stands for (None: undecided, never a
            difference; a `PolicyCanUseTool`'s own default when it is one).

    Returns:
        One `CallVerdict` per call, in file order; ``[v for v in result if v.differs]`` are
        the differences.

    Raises:
        OSError: a file cannot be read.
        UnicodeDecodeError: a file is not UTF-8.
        CassetteFormatError: a line is not a JSON object.
        TypeError: ``policy`` is none of the accepted types.
    """
    _unwrap(policy)
    return [
        check_call(policy, call, cwd=cwd, default=default)
        for path in paths
        for call in read_calls(path)
    ]


# ======================================================================================
# Loading a policy named on the command line


def load_policy(reference: str) -> PolicyLike:
    """The policy named by ``MODULE:NAME`` (MODULE: a dotted name or a ``.py`` file).

    NAME may be a `Policy`, a `PolicyHook` or `PolicyCanUseTool` made from one, or a
    callable that takes no arguments and returns one of those (a factory, or a `Policy`
    subclass). A plain ``can_use_tool`` or hook function is refused: it cannot be asked
    without a session.

    Raises:
        ValueError: the reference is malformed, the module cannot be imported, NAME is not
            there, or it is (or its factory returns) none of the accepted types.
    """
    # The user's module is imported by the test kit's one loader of code named on the
    # command line (`stdio.load_script`).
    from .stdio import load_script

    module_name, sep, name = reference.rpartition(":")
    if not sep or not module_name or not name:
        raise ValueError(f"the policy must be given as MODULE:NAME, not {reference!r}")
    try:
        found: Any = load_script(reference)
    except ValueError:  # not there, or not callable (then not a Policy either)
        module = sys.modules.get(module_name)
        if module is not None and hasattr(module, name):
            what = type(getattr(module, name)).__name__
            raise ValueError(f"{reference} is a {what}, not a Policy") from None
        raise ValueError(f"{module_name!r} has no {name!r}") from None
    except Exception as exc:  # the user's module failed to import: say how, in one line
        raise ValueError(f"cannot import {module_name!r}: {type(exc).__name__}: {exc}") from None
    if isinstance(found, (Policy, PolicyHook, PolicyCanUseTool)):
        return found
    try:
        inspect.signature(found).bind()
    except TypeError:
        raise ValueError(
            f"{reference} needs arguments: give a Policy, or a factory that takes none and "
            "returns one (a can_use_tool or hook function cannot be dry-run; wrap its rules "
            "in a Policy)"
        ) from None
    except ValueError:
        pass  # no signature to read (a builtin): try the call
    try:
        made = found()
    except Exception as exc:
        raise ValueError(f"{reference}() failed: {type(exc).__name__}: {exc}") from None
    if isinstance(made, (Policy, PolicyHook, PolicyCanUseTool)):
        return made
    if inspect.iscoroutine(made):
        made.close()  # an async function: never awaited, and not a policy
    raise ValueError(
        f"{reference}() returned {type(made).__name__}, not a Policy "
        "(or a PolicyHook or PolicyCanUseTool)"
    )

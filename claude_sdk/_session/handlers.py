"""What each request from the CLI is answered with: the host's callbacks, failing closed.

`dispatch` runs the handler of one `InboundRequest` and returns the body of the answer (a
model value, or a dict the user's callback gave), `NO_ANSWER` (the request is settled and
nothing is written), or raises `RejectedError` (an error answer with a code). Every answer is a
model value: nothing here writes wire keys by hand.

This module runs the callbacks, applies their timeouts (``callback_timeout``, a matcher's
``timeout``) and logs each failure once; the answers themselves, and which failure denies,
are built by ``_protocol/answers.py`` (sans-IO):

* ``can_use_tool``: no callback, a callback that raises, times out, or returns anything but
  `PermissionAllow` / `PermissionDeny`, and a request that does not fit the model: deny.
* ``hook_callback``: a PreToolUse, PermissionRequest or PreSkillShellCommand hook that
  raises, times out or returns something that is not an answer denies (so does an unknown
  event's hook whose unfit answer was a deny); any other hook's failure is an error answer.
* ``mcp_message``: a failing in-process server answers a JSON-RPC error, never silence.

While a hook or ``can_use_tool`` callback runs, `claude_sdk._cli_process.CURRENT` names the
CLI's process (its pid for a local subprocess, none for a remote or in-memory CLI), so that a
path policy resolves ``/proc/self/cwd`` in the CLI's real working directory.
"""

from __future__ import annotations

import inspect
import logging
import sys
import types
from typing import TYPE_CHECKING, Any, Final

import anyio

from .. import control as c
from .._cli_process import CURRENT, CLIProcess
from .._paths import canonical, project_slug
from .._permissions import PermissionSuspend
from .._protocol import answers
from .._protocol.answers import describe
from .._protocol.events import WITHDRAWN, InboundRequest
from ..hooks import (
    AsyncHookOutput,
    HookContext,
    HookOutput,
    PermissionRequestOutput,
    PreSkillShellCommandOutput,
    PreToolUseOutput,
    UnknownHookSpecificOutput,
)
from ..permissions import PermissionAllow, PermissionDeny, ToolPermissionContext
from ..transports.base import ConnectionWrapper

if TYPE_CHECKING:
    from .core import SessionCore

__all__ = [
    "NO_ANSWER",
    "RejectedError",
    "cli_process",
    "describe",
    "dispatch",
    "jsonrpc_error",
    "outcome",
    "summary",
]

logger = logging.getLogger("claude_sdk.session")

#: `dispatch` settled the request without an answer (a dialog the host does not show).
NO_ANSWER: Final[Any] = object()

_Coroutine: Final = types.CoroutineType


class RejectedError(Exception):
    """An inbound request answered with an error response (and its ``error_code``)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


# -- what the DEBUG log says of a request (names and decisions, never values) --------------

#: The longest name (tool, server, method) a DEBUG line quotes.
_NAME_CHARS: Final = 80


def _name(value: Any) -> str:
    return value[:_NAME_CHARS] if isinstance(value, str) else "?"


def summary(core: SessionCore, record: InboundRequest) -> str:
    """What ``record`` asks, for a DEBUG line: the tool, the hook and its callback, the MCP
    server and method; never an input's values."""
    request = record.request
    cls = request.__class__
    if cls is c.CanUseToolRequest:
        return f"tool {_name(request.tool_name)}"
    if cls is c.HookCallbackRequest:
        registration = core.hooks.get(request.callback_id)
        if registration is None:
            return f"unknown hook callback {_name(request.callback_id)}"
        text = (
            f"{registration.event} hook {registration.callback_id} "
            f"{_callback_name(registration.callback)}"
        )
        tool = getattr(request.input, "tool_name", None)
        return f"{text}, tool {_name(tool)}" if tool is not None else text
    if cls is c.McpMessageRequest:
        message: Any = request.message
        method = message.get("method") if isinstance(message, dict) else None
        text = f"server {_name(request.server_name)}, {_name(method) if method else 'reply'}"
        params = message.get("params") if method == "tools/call" else None
        if isinstance(params, dict) and "name" in params:
            text += f" {_name(params['name'])}"
        return text
    if cls is c.ElicitationRequest:
        return f"server {_name(request.mcp_server_name)}"
    return "no details"


def outcome(
    record: InboundRequest, body: Any, error: BaseException | None, line: bytes | None
) -> str:
    """How ``record`` was settled, for a DEBUG line: the decision, or why there was none."""
    if error is not None:
        if isinstance(error, RejectedError):
            return f"error ({error.code or 'rejected'})"
        if isinstance(error, anyio.get_cancelled_exc_class()):
            return "error (cancelled by the host)"
        return f"error ({type(error).__name__})"
    if body is NO_ANSWER:
        return "left unanswered"
    if line is None:
        return "withdrawn by the CLI" if record.state == WITHDRAWN else "cancelled"
    return _decision(body)


def _decision(body: Any) -> str:
    if isinstance(body, (PermissionAllow, PermissionDeny)):
        return body.behavior
    if isinstance(body, HookOutput):
        parts = []
        specific = body.specific
        if (
            isinstance(specific, (PreToolUseOutput, PreSkillShellCommandOutput))
            and specific.permission_decision
        ):
            parts.append(f"permission_decision {specific.permission_decision}")
        elif isinstance(specific, PermissionRequestOutput):
            parts.append(f"decision {getattr(specific.decision, 'behavior', '?')}")
        elif isinstance(specific, UnknownHookSpecificOutput):
            verdict = specific.raw.get("permissionDecision")
            if isinstance(verdict, str):
                parts.append(f"permission_decision {_name(verdict)}")
        if body.decision is not None:
            parts.append(f"decision {body.decision}")
        if body.continue_ is False:
            parts.append("stop")
        return ", ".join(parts) or "continue"
    if isinstance(body, AsyncHookOutput):
        return "async"
    if isinstance(body, c.McpMessageResponse):
        reply: Any = body.mcp_response
        error = reply.get("error") if isinstance(reply, dict) else None
        if isinstance(error, dict):
            return f"JSON-RPC error {error.get('code')}"
        return "JSON-RPC result"
    if isinstance(body, c.ElicitationResponse):
        return _name(body.action)
    if isinstance(body, dict):
        behavior = body.get("behavior")
        return _name(behavior) if behavior is not None else "answered"
    return "answered"


def jsonrpc_error(message_id: Any, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC 2.0 error response (the MCP payload the CLI relays to its client)."""
    return {"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": message}}


async def dispatch(core: SessionCore, record: InboundRequest) -> Any:
    """The body answering ``record`` (see the module docstring)."""
    request = record.request
    cls = request.__class__
    if cls is c.CanUseToolRequest:
        if core.telemetry.enabled:
            return await _permission_traced(core, request, record)
        return await _decide(core, request, record)
    if cls is c.HookCallbackRequest:
        return await _hook(core, request, record)
    if cls is c.McpMessageRequest:
        return await _mcp(core, request)
    if cls is c.ElicitationRequest:
        callback = core.options.on_elicitation
        if callback is None:
            return c.ElicitationResponse(action="decline")
        return dict(await callback(request))
    if cls is c.RequestUserDialogRequest:
        dialog = core.options.on_user_dialog
        if dialog is None:
            return NO_ANSWER
        answer = await dialog(request)
        return NO_ANSWER if answer is None else dict(answer)
    if record.subtype == "can_use_tool":  # a permission request that does not fit: deny
        error = getattr(request, "error", None)
        logger.warning("denied a can_use_tool request that does not fit the model: %s", error)
        return answers.unfit_request_denial(error)
    raise RejectedError(
        f"Unsupported control request subtype: {record.subtype}", "unsupported_request"
    )


async def _call(callback: Any, seconds: float | None, *args: Any) -> Any:
    if seconds is None:
        result = callback(*args)
        if result.__class__ is _Coroutine or inspect.isawaitable(result):
            result = await result
        return result
    with anyio.fail_after(seconds):
        result = callback(*args)
        if inspect.isawaitable(result):
            result = await result
        return result


def cli_process(core: SessionCore) -> CLIProcess:
    """The CLI's process as the callbacks see it (`claude_sdk._cli_process`): the pid of a
    local subprocess, None for any other connection (its pid is a client's, or none)."""
    conn = core.conn
    while isinstance(conn, ConnectionWrapper):
        conn = conn.inner
    # Not imported: a session on another transport never loads the subprocess transport.
    # Another thread may be importing it still (a partly run module): until the class exists,
    # no connection is one of it.
    local = sys.modules.get("claude_sdk.transports.subprocess")
    kind = getattr(local, "SubprocessConnection", None)
    if kind is not None and isinstance(conn, kind):
        return CLIProcess(conn.pid)
    return CLIProcess(None)


# -- can_use_tool ----------------------------------------------------------------------


async def _permission_traced(
    core: SessionCore, request: c.CanUseToolRequest, record: InboundRequest
) -> Any:
    telemetry = core.telemetry
    name = f"claude_sdk.permission {request.tool_name}"
    with telemetry.span(name, tool=request.tool_name) as span:
        answer = await _decide(core, request, record)
        behavior = answer.get("behavior") if isinstance(answer, dict) else answer.behavior
        telemetry.set(span, behavior=behavior)
        return answer


async def _decide(
    core: SessionCore, request: c.CanUseToolRequest, record: InboundRequest
) -> PermissionAllow | PermissionDeny | dict[str, Any]:
    if core.grants and (granted := _granted(core, request)) is not None:
        return granted
    callback = core.options.can_use_tool
    if callback is None:
        return answers.no_callback_denial()
    token = CURRENT.set(cli_process(core))
    try:
        context = ToolPermissionContext(
            tool_use_id=request.tool_use_id,
            suggestions=tuple(request.permission_suggestions or ()),
            blocked_path=request.blocked_path,
            decision_reason=request.decision_reason,
            agent_id=request.agent_id,
            request_id=record.request_id,
            request=request,
            cancel_scope=record,
        )
        seconds = core.options.callback_timeout
        if seconds is None:  # the usual case: no call in between (a round trip's hot path)
            result = callback(request.tool_name, dict(request.input), context)
            if result.__class__ is _Coroutine or inspect.isawaitable(result):
                result = await result
        else:
            result = await _call(callback, seconds, request.tool_name, dict(request.input), context)
    except Exception as exc:
        # Fail closed: a callback that raises or times out denies the tool.
        logger.warning(
            "can_use_tool for %s failed, so the tool is denied: %s",
            request.tool_name,
            describe(exc),
            exc_info=exc,
        )
        return answers.permission_failure_answer(exc)
    finally:
        CURRENT.reset(token)
    if result.__class__ is PermissionSuspend:
        return await _suspend(core, request, result)
    try:
        # An allow without an input gets the request's own, with no copy (the hot path).
        return answers.permission_answer(result, request, core.codec)
    except answers.UnfitAnswerError as exc:
        logger.warning(
            "can_use_tool for %s returned %s, not PermissionAllow or PermissionDeny; denying",
            request.tool_name,
            type(result).__name__,
        )
        return answers.permission_failure_answer(exc)


def _granted(core: SessionCore, request: c.CanUseToolRequest) -> PermissionAllow | None:
    """Allow a call a person allowed (`claude_sdk.answer`), once: same tool, same input."""
    for i, (name, tool_input) in enumerate(core.grants):
        if name == request.tool_name and tool_input == request.input:
            del core.grants[i]
            return PermissionAllow(updated_input=dict(request.input))
    return None


async def _suspend(
    core: SessionCore, request: c.CanUseToolRequest, decision: PermissionSuspend
) -> PermissionDeny:
    """Keep the question with the session, mark the turn's result, and end the turn
    (`claude_sdk.humans`). A second request in a turn already suspended is denied with it.

    Raises:
        OSError: this machine's file could not be written (the caller denies the tool
            without suspending, and says so).
    """
    from .._pending import SUSPENDED_NOTE, new_question  # on first use (import time)
    from .suspend import keep

    deny = PermissionDeny(message=SUSPENDED_NOTE, interrupt=True)
    if core.protocol.suspension is not None:
        return deny
    session_id = core.session_id
    if session_id is None:  # no id to resume it by: the question could never be answered
        logger.error(
            "could not suspend on %s: the session has no id yet; the tool is denied",
            request.tool_name,
        )
        return PermissionDeny(message="Could not wait for a person; not allowed.")
    options = core.options
    # The key every reader of the session computes (a resume, `claude_sdk.answer`).
    project_key = options.store_project_key or project_slug(canonical(options.cwd))
    pending = new_question(request, decision, session_id, project_key)
    # Taken before the first await: a request that comes meanwhile is denied with it.
    core.protocol.suspend(pending)
    try:
        await keep(core, pending)
    except OSError as exc:
        core.protocol.suspension = None
        logger.error(  # noqa: TRY400 - the reason is in the line; no traceback wanted
            "could not keep the question for %s (%s), so the session is not suspended: "
            "the tool is denied; give the session a session_store",
            request.tool_name,
            describe(exc),
        )
        return PermissionDeny(
            message=f"Could not wait for a person ({type(exc).__name__}); not allowed."
        )
    core.pending = pending
    logger.info(
        "session %s suspended on a %s for %s: question %s kept%s",
        session_id,
        pending.kind,
        request.tool_name,
        pending.id,
        " in the session store" if core.mirror is not None else " on this machine",
    )
    return deny


# -- hook_callback -----------------------------------------------------------------------


async def _hook(core: SessionCore, request: c.HookCallbackRequest, record: InboundRequest) -> Any:
    telemetry = core.telemetry
    if not telemetry.enabled:
        return await _run_hook(core, request, record)
    registration = core.hooks.get(request.callback_id)
    event = registration.event if registration is not None else "?"
    with telemetry.span(f"claude_sdk.hook {event}", callback_id=request.callback_id):
        return await _run_hook(core, request, record)


async def _run_hook(
    core: SessionCore, request: c.HookCallbackRequest, record: InboundRequest
) -> Any:
    registration = core.hooks.get(request.callback_id)
    if registration is None:
        raise RejectedError(f"unknown hook callback id {request.callback_id!r}")
    context = HookContext(
        callback_id=request.callback_id,
        tool_use_id=request.tool_use_id,
        request_id=record.request_id,
    )
    event = registration.event
    result: Any = None
    token = CURRENT.set(cli_process(core))
    try:
        result = await _call(
            registration.callback, registration.matcher.timeout, request.input, context
        )
        return answers.hook_answer(core.codec, event, result)
    except Exception as exc:  # fail closed on anything
        logger.warning(
            "the %s hook %s failed: %s",
            event,
            _callback_name(registration.callback),
            describe(exc),
            exc_info=exc,
        )
        denial = answers.hook_failure_answer(event, exc, result)
        if denial is not None:
            return denial  # fail closed: a failing permission hook denies
        raise
    finally:
        CURRENT.reset(token)


def _callback_name(callback: Any) -> str:
    return getattr(callback, "__qualname__", None) or type(callback).__name__


# -- mcp_message -------------------------------------------------------------------------


async def _mcp(core: SessionCore, request: c.McpMessageRequest) -> c.McpMessageResponse:
    message: Any = request.message  # the decoder does not check: a hostile CLI sends anything
    if not isinstance(message, dict):
        message = {}
    message_id = message.get("id")
    bridge = core.bridges.get(request.server_name)
    if bridge is not None:
        try:
            return c.McpMessageResponse(mcp_response=await bridge.handle(dict(message)))
        except Exception as exc:  # a broken bridge answers a JSON-RPC error, not silence
            logger.warning("in-process MCP server %r failed: %r", request.server_name, exc)
            return c.McpMessageResponse(
                mcp_response=jsonrpc_error(message_id, -32603, describe(exc))
            )
    if "id" not in message:  # a notification for a server we do not have: nothing to say
        return c.McpMessageResponse(mcp_response={"jsonrpc": "2.0", "result": {}})
    return c.McpMessageResponse(
        mcp_response=jsonrpc_error(
            message_id, -32601, f"SDK MCP server not found: {request.server_name}"
        )
    )

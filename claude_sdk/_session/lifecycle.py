"""How a session starts, finishes gracefully, and is left in a hurry.

* `start`: the in-process MCP servers, the reader, then ``initialize`` under
  ``initialize_timeout``. A CLI that refuses to start with an error result (a resume of a
  session that does not exist, a startup failure) raises `SessionNotFoundError` or
  `ResultError` rather than a bare closed session. `reinitialize` sends the same request
  again later (``Session.reinitialize``).
* `finish` (the ``async with`` body returned): the CLI keeps its stdin while it may still call
  back (hooks, ``can_use_tool``, in-process MCP servers) until every prompt is settled and it
  reports ``idle``; then stdin closes and the CLI exits. All of it within ONE
  ``shutdown_grace``: the connection's ``shutdown_deadline`` is set at the start, so the
  transport's teardown gives the CLI what is left of it, not a new grace, before SIGTERM.
* `abort` (the body raised, or was cancelled): the turn's output is unwanted. An interrupt is
  written if a turn is open (best effort, without waiting), and the deadline is now: the
  transport closes stdin and sends SIGTERM at once (the CLI saves its transcript on SIGTERM),
  then SIGKILL after its own bound. Deadline errors reach the caller without a grace.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING

import anyio

from .. import control as c
from .._paths import is_uuid
from .._protocol.launch import hook_support_warning
from ..errors import (
    ClaudeSDKError,
    ControlRequestError,
    InitializeTimeoutError,
    MessageDecodeError,
    SessionClosedError,
    SessionNotFoundError,
)
from .reader import run_reader

if TYPE_CHECKING:
    from .core import SessionCore
    from .inbound import InboundWorkers

__all__ = ["abort", "finish", "reinitialize", "start"]

logger = logging.getLogger("claude_sdk.session")

#: Seconds an abort may spend writing the interrupt (the pipe is full: give up).
ABORT_WRITE = 0.25


async def start(
    core: SessionCore, workers: InboundWorkers, initialize: c.InitializeRequest
) -> None:
    """Start the session's tasks and run ``initialize`` (see the module docstring)."""
    for name, server in core.options.sdk_mcp_servers.items():
        if server is not None:
            await start_bridge(core, name, server)
    core.tg.start_soon(run_reader, core, workers)
    timeout = core.options.initialize_timeout
    try:
        with anyio.fail_after(timeout):
            info = await core.request(initialize, None)
    except TimeoutError:
        raise InitializeTimeoutError(timeout=timeout) from None
    except SessionClosedError as exc:
        # The CLI can refuse to start with an error result and no initialize answer.
        refusal = core.protocol.refusal(core.options.resume)
        if refusal is None:
            raise
        raise refusal from exc
    _check_initialize(core, info)
    warning = hook_support_warning(core.options.hooks, info.claude_code_version)
    if warning is not None:
        logger.warning(warning)
    core.initialize_request = initialize
    core.server_info = info
    options = core.options
    if options.verify_resume and (options.resume is not None or options.continue_conversation):
        core.resumed = await confirm_resume(core)


async def confirm_resume(core: SessionCore) -> c.ResumeConfirmation:
    """Ask the CLI, before any prompt, which session it loaded and whether it holds history.

    The CLI refuses an unknown ``resume`` id itself; this catches the rest: another session
    than the one asked for, and a session with no conversation (``continue_conversation``
    with nothing to continue starts a new one silently). A CLI that does not know the
    requests (``unsupported``), or answers them in a shape the model does not know (a newer
    CLI), is not checked on that point.

    Raises:
        SessionNotFoundError: not the session asked for, or no history (unless
            ``resume_missing="start"`` asked for a new session in that case).
    """
    options = core.options
    timeout = options.control_timeout
    intended = options.resume if options.resume is not None and is_uuid(options.resume) else None
    loaded: str | None = None
    chars: int | None = None
    with contextlib.suppress(ControlRequestError, MessageDecodeError):
        status: c.GetStatusResponse = await core.request(c.GetStatusRequest(), timeout)
        loaded = status.session_id
    with contextlib.suppress(ControlRequestError, MessageDecodeError):
        export: c.ExportConversationResponse = await core.request(
            c.ExportConversationRequest(), timeout
        )
        text: object = export.text  # a hostile answer may hold anything
        chars = len(text.strip()) if isinstance(text, str) else None
    asked = f"session {options.resume!r}" if options.resume is not None else "the latest session"
    if intended is not None and loaded is not None:
        if options.fork_session:
            if loaded == intended:
                raise SessionNotFoundError(
                    f"fork_session: the CLI loaded {asked} itself, not a fork of it",
                    session_id=intended,
                )
        elif loaded != intended:
            raise SessionNotFoundError(
                f"asked to resume {asked}, the CLI loaded session {loaded!r}",
                session_id=intended,
            )
    started_new = False
    if chars == 0:
        # The store/disk check (prepare) turned a missing ``resume`` with "start" into a new
        # session id already; here only ``continue_conversation`` can still find nothing.
        if options.resume_missing == "start" and options.resume is None:
            started_new = True
        else:
            raise SessionNotFoundError(
                f"the CLI loaded no conversation for {asked} (cwd {options.cwd or '.'!r})",
                session_id=intended or loaded or options.resume or "",
            )
    logger.debug("resume confirmed: session %s, %s characters of history", loaded, chars)
    return c.ResumeConfirmation(session_id=loaded, history_chars=chars, started_new=started_new)


async def reinitialize(core: SessionCore) -> c.InitializeResponse:
    """Send the session's ``initialize`` request again; ``server_info`` becomes the answer.

    The request is the very one `start` sent (same hooks, same callback ids), so the hook
    table stays valid; the protocol treats it as any other request (the turn accounting
    is untouched). Bounded by ``initialize_timeout``.
    """
    request = core.initialize_request
    if request is None:  # only a core that never started
        raise SessionClosedError("the session has not been initialized")
    timeout = core.options.initialize_timeout
    try:
        with anyio.fail_after(timeout):
            info: c.InitializeResponse = await core.request(request, None)
    except TimeoutError:
        raise InitializeTimeoutError(timeout=timeout) from None
    core.server_info = info
    _check_initialize(core, info, first=False)
    return info


async def start_bridge(core: SessionCore, name: str, server: object) -> None:
    """Run an in-process MCP server for ``name`` in the session's task group."""
    from .._mcp_bridge import McpBridge  # only sessions with in-process servers load mcp

    async def relay(server_name: str, message: dict[str, object]) -> None:
        """A message the server sent on its own (a notification): pass it to the CLI."""
        if not core.closed:
            await core.request(
                c.McpMessageRequest(server_name=server_name, message=message),
                core.options.control_timeout,
            )

    bridge = McpBridge(name, server, relay)
    await core.tg.start(bridge.run)
    core.bridges[name] = bridge


def _check_initialize(core: SessionCore, info: c.InitializeResponse, *, first: bool = True) -> None:
    """Fail on an answer that cannot honour ``on_failure="block"`` (as the TS SDK: a
    re-initialize is judged on ``hook_on_failure_supported`` alone)."""
    options = core.options
    blocking = [
        m
        for matchers in options.hooks.values()
        for m in matchers
        if m.on_failure == "block"  # asked for explicitly (the SDK's default is softer)
    ]
    unsupported = info.hook_on_failure_supported is not True or (
        first and info.hooks_applied is False
    )
    if options.hooks and unsupported and not blocking and first:
        logger.warning(
            "this CLI does not report support for hook onFailure; a permission hook "
            "that fails may not block the action on the CLI's side"
        )
    if blocking and unsupported:
        raise ClaudeSDKError(
            "a hook matcher uses on_failure='block', which this CLI does not support "
            f"(hook_on_failure_supported={info.hook_on_failure_supported!r}, "
            f"hooks_applied={info.hooks_applied!r})",
            kind="unsupported",
        )


async def finish(core: SessionCore) -> None:
    """The body returned: let the CLI settle and exit, within one ``shutdown_grace``."""
    grace = core.options.shutdown_grace
    deadline = anyio.current_time() + grace
    core.conn.shutdown_deadline = deadline  # the transport gives only what is left
    protocol = core.protocol
    if not protocol.may_close_stdin:
        with anyio.CancelScope(deadline=deadline):
            await core.wait_for(lambda: protocol.may_close_stdin)
    with anyio.CancelScope(deadline=deadline):
        await core.close_stdin()
        await core.reader_done.wait()


async def abort(core: SessionCore) -> None:
    """The body raised or was cancelled: interrupt an open turn and end the CLI at once."""
    core.conn.shutdown_deadline = anyio.current_time()
    line = core.protocol.abort()
    if line is not None:
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(ABORT_WRITE),
            contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError),
        ):
            await core.conn.send(line)

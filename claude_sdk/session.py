"""`Session`: one CLI process, driven under structured concurrency.

``async with open_session(options) as session`` starts the CLI through a transport and opens
one task group, owned by that block, holding the reader (``claude_sdk._session.reader``), the
inbound workers that serve the CLI's requests (``_session.inbound``) and any in-process MCP
servers. The rules of the conversation (turns, the table of pending requests, what an exit
status means, what may be written when) belong to the sans-IO protocol object
(``claude_sdk._protocol.protocol.Protocol``); this module is the public facade over that
driver. See ``docs/architecture.md``.

* Consumers iterate the messages with plain async iterators (`MessageStream`): no task group
  or cancel scope is held across a ``yield``.
* Every host request goes through one typed path, `Session.request` (a request class knows
  its answer type); the typed methods (`Session.interrupt`, `Session.set_model`, ...) are
  sugar over it, and `Session.control` sends any request by its subtype.
* Leaving the block normally lets the CLI settle and exit within one ``shutdown_grace``;
  leaving it by an exception or a cancellation interrupts an open turn and terminates the CLI
  at once (``_session.lifecycle``).

Failure policy: a CLI that exits non-zero without an error result is a `ProcessError` (with
the stderr tail), delivered to the consumer (after the messages that came before it) and to
every waiting request; the exit 1 that follows an error result is not an error. A line over
``max_line_bytes`` ends the session with `LineTooLongError`. A failure nobody observed is
raised when the ``async with`` block exits. A single failure leaves the block as itself, not
as an ``ExceptionGroup`` of one.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import sys
import uuid as uuid_module
from collections.abc import AsyncIterable, AsyncIterator, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Literal, NoReturn, TypeVar, overload

import anyio
import attrs

from . import control as c
from ._base import replace as _replace
from ._protocol.launch import build_initialize, build_launch_spec, mcp_server_wire
from ._session import lifecycle, stored
from ._session.core import SessionCore
from ._session.inbound import InboundWorkers
from ._session.mirror import TranscriptMirror
from ._session.stream import MessageStream
from .errors import (
    ClaudeSDKError,
    QuestionNotPendingError,
    SessionClosedError,
    SessionNotFoundError,
    SessionStoreError,
)
from .messages import ContentBlock, UserMessage
from .options import Options
from .telemetry import Telemetry
from .transports.base import Transport

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

if TYPE_CHECKING:
    from ._pending import PendingQuestion

__all__ = ["MessageStream", "Session", "SessionContext", "open_session"]

logger: logging.Logger = logging.getLogger("claude_sdk.session")

_T = TypeVar("_T")

#: The capability a CLI lists when it honours ``mcp_call``'s ``soft_error_result``.
SOFT_ERROR_RESULT: Final = "mcp_call_soft_error_result_v1"
#: Seconds the CLI may wait for an MCP server to connect before an ``mcp_call`` runs.
_MCP_CONNECT_WAIT: Final = 30.0


class Session:
    """A running CLI session. Created by `open_session`; see the module docstring.

    Attributes:
        server_info: the CLI's answer to ``initialize`` (models, commands, account, ...).

    The control methods raise `ControlRequestError` (the CLI's ``error`` and ``error_code``)
    when the CLI refuses, `ControlTimeoutError` without an answer in time, and
    `SessionClosedError` (or the session's failure) once the CLI is gone.
    """

    def __init__(self, core: SessionCore) -> None:
        self._core = core

    # ---------------------------------------------------------------------------------
    # public facts

    @property
    def store_failures(self) -> list[SessionStoreError]:
        """What the session store is still missing (``session_store_errors="warn"``): one
        `SessionStoreError` per transcript whose lines wait to be appended again (``entries``:
        how many), then lines given up for good. Empty once the store has caught up."""
        mirror = self._core.mirror
        return list(mirror.failures) if mirror is not None else []

    @property
    def server_info(self) -> c.InitializeResponse:
        """The CLI's answer to ``initialize``: models, commands, agents, account, pid,
        ``capabilities``, ... (the latest one, after `reinitialize`).

        Always there on a session that `open_session` (or a pool) handed out: the block is
        entered only after the CLI answered ``initialize``.
        """
        info = self._core.server_info
        if info is None:  # only a Session built by hand, never started
            raise SessionClosedError("the session has not been initialized")
        return info

    @property
    def resumed(self) -> c.ResumeConfirmation | None:
        """What a session opened with ``resume`` or ``continue_conversation`` confirmed
        before its first prompt (``Options.verify_resume``), else None."""
        return self._core.resumed

    @property
    def session_id(self) -> str | None:
        """The session's id: the CLI's (``system/init``) once a turn has started; before,
        the one the CLI said it loaded (`resumed`), else the id the options chose
        (``session_id``, or ``resume`` without ``fork_session``), else None."""
        return self._core.session_id

    @property
    def last_activity(self) -> float:
        """``anyio.current_time()`` of the last line from the CLI (or of our last callback's
        end: the CLI owes us nothing while it waits for one)."""
        return self._core.last_activity

    @property
    def lines_undecodable(self) -> int:
        """Lines from the CLI that were not frames (logged and skipped)."""
        return self._core.protocol.lines_undecodable

    @property
    def options(self) -> Options:
        """The options the session was opened with."""
        return self._core.options

    @property
    def pid(self) -> int | None:
        """The CLI's process id, when there is one."""
        return self._core.conn.pid

    @property
    def returncode(self) -> int | None:
        """The CLI's exit code once it has exited."""
        return self._core.conn.returncode

    @property
    def stderr_tail(self) -> str:
        """The last lines the CLI wrote to stderr."""
        return self._core.conn.stderr_tail

    @property
    def state(self) -> str | None:
        """The last ``session_state_changed`` state (``running``, ``requires_action``, ``idle``)."""
        return self._core.protocol.state

    @property
    def closed(self) -> bool:
        """True once the CLI's output has ended or the session failed."""
        return self._core.closed

    @property
    def failure(self) -> BaseException | None:
        """The error that ended the session, if any."""
        return self._core.failure

    @property
    def pending_requests(self) -> list[str]:
        """Ids of host-to-CLI control requests still waiting for an answer."""
        return self._core.protocol.pending_requests

    @property
    def inbound_in_flight(self) -> list[str]:
        """Ids of CLI-to-host control requests not answered yet (their handlers run)."""
        return self._core.protocol.inbound_pending

    # ---------------------------------------------------------------------------------
    # conversation

    @overload
    async def send(self, prompt: str | Sequence[ContentBlock] | UserMessage) -> str: ...

    @overload
    async def send(self, prompt: AsyncIterable[UserMessage]) -> tuple[str, ...]: ...

    async def send(
        self,
        prompt: str | Sequence[ContentBlock] | UserMessage | AsyncIterable[UserMessage],
    ) -> str | tuple[str, ...]:
        """Write a prompt (a string, content blocks, a `UserMessage`, or a stream of them).

        Prompts sent while a turn runs are queued by the CLI; their replies come back in
        order (`receive_response`).

        Returns:
            The prompt's uuid (the one the `UserMessage` carries, or one made for it): pass
            it to ``receive_response(prompt)`` to read that prompt's reply whatever else
            was sent. For a stream of messages, the uuids of the messages sent.
        """
        if isinstance(prompt, str):
            return await self._send_user(UserMessage.prompt(prompt))
        if isinstance(prompt, UserMessage):
            return await self._send_user(prompt)
        if isinstance(prompt, AsyncIterable):
            return tuple([await self._send_user(_streamed(item)) async for item in prompt])
        return await self._send_user(UserMessage.prompt(list(prompt)))

    async def _send_user(self, message: UserMessage) -> str:
        core = self._core
        core.raise_if_closed()
        if core.before_prompt is not None:
            await core.before_prompt()  # a pool's budget and rate limit
            core.raise_if_closed()
        if core.options.verbatim_prompts and message.client_composed is None:
            message = _replace(message, client_composed=True)
        protocol = core.protocol
        line = protocol.send_prompt(message)
        core.debug = logger.isEnabledFor(logging.DEBUG)  # for this turn's callbacks
        if core.telemetry.enabled:
            core.telemetry.turn_started(message.text)
        await core.write(line)
        return protocol.last_prompt

    def receive_messages(self) -> MessageStream:
        """Every message, until the CLI's output ends (turns of the CLI's own included)."""
        return MessageStream(self._core)

    def receive_response(self, prompt: str | None = None) -> MessageStream:
        """The messages up to and including the `ResultMessage` that answers a prompt:
        ``prompt`` (a uuid `send` returned), or by default the oldest prompt whose reply
        no ``receive_response`` has handed out yet.

        Only a result that answers that prompt ends the stream. A turn the CLI runs on its
        own (a task notification when a background command or subagent ends, a scheduled
        wake-up) and a repeated result pass through on the way, marked
        (`ResultMessage.own_turn`), and do not end it. When the CLI answers several queued
        prompts in one turn, each prompt's ``receive_response`` ends with that one result.

        Raises:
            PromptWithdrawnError: the CLI withdrew the prompt (``interrupt`` with
                ``cancel_queued``, ``cancel_async_message``): no result will come. A
                withdrawn prompt is skipped when a later one still awaits its reply.
            SessionClosedError: the CLI's output ended before the result.
        """
        return MessageStream(self._core, self._core.protocol.claim(prompt))

    async def close(self) -> None:
        """Close the CLI's stdin: it finishes what it is doing and exits."""
        await self._core.close_stdin()

    async def wait_closed(self) -> None:
        """Wait until the CLI's output has ended (or the session failed)."""
        await self._core.reader_done.wait()

    async def wait_until_idle(self) -> bool:
        """Wait until every prompt is settled and the CLI reports ``idle``.

        A prompt is settled by its result, or when the CLI withdrew it from its queue
        (``interrupt(cancel_queued=True)``, ``cancel_async_message``). A CLI that does not
        report its state counts as idle once the prompts are settled. Returns False if the
        output ended first. Bound it with ``anyio.move_on_after``.
        """
        return await self._core.wait_until_idle()

    # ---------------------------------------------------------------------------------
    # host -> CLI control requests

    async def request(self, payload: c.HostRequest[_T]) -> _T:
        """Send a control request and return its typed answer.

        The one path every host request takes: the request class knows its answer type
        (``await session.request(c.InterruptRequest())`` is an `InterruptResponse`). The
        answer is awaited for ``Options.control_timeout``.

        Raises:
            ControlRequestError: the CLI answered with an error (``error_code`` kept).
            ControlTimeoutError: no answer in time.
            MessageDecodeError: the answer does not fit its type.
            ProcessError, SessionClosedError: the CLI is gone.
        """
        core = self._core
        answer: _T = await core.request(payload, core.options.control_timeout)
        return answer

    async def control(self, subtype: str, **fields: Any) -> Any:
        """Send any control request by its subtype; ``fields`` are its wire keys.

        Returns the typed answer where the model knows the subtype, else the answer's dict.
        """
        payload: Any = c.UnknownControlRequest(raw={"subtype": subtype, **fields})
        return await self.request(payload)

    async def interrupt(
        self, *, cancel_queued: bool | None = None, wait: float | None = None
    ) -> c.InterruptReceipt:
        """Stop the current turn; it ends with an error result. Returns a receipt that says
        what happened.

        After the CLI's answer, it waits for the frames that tell (the interrupted turn's
        result; the reader routes them whether or not anyone reads messages), at most
        ``wait`` seconds (default ``Options.control_timeout``). The receipt's ``outcome`` is
        ``"effective"`` (a running turn was cut short), ``"queued_cancelled"`` (queued prompts
        were withdrawn), ``"no_op"`` (nothing was running, or the turn finished first) or
        ``"undetermined"`` (see `InterruptReceipt`).

        With ``cancel_queued=True`` the CLI also withdraws the prompts queued behind it (they
        get no result; `wait_until_idle` counts them settled).

        Raises:
            ControlRequestError, ControlTimeoutError: the interrupt itself failed.
            ProcessError, SessionClosedError: the CLI is gone.
        """
        return await self._interrupt(cancel_queued, wait, None)

    async def _interrupt(
        self, cancel_queued: bool | None, wait: float | None, steer: str | None
    ) -> c.InterruptReceipt:
        core = self._core
        core.raise_if_closed()
        watch = core.protocol.watch_interrupt(steer)
        try:
            await self.request(c.InterruptRequest(cancel_queued=cancel_queued))
            seconds = core.options.control_timeout if wait is None else wait
            with anyio.move_on_after(seconds):
                await core.wait_for(lambda: watch.decided)
            return watch.receipt()
        finally:
            core.protocol.unwatch(watch)

    async def steer(
        self,
        prompt: str | Sequence[ContentBlock] | UserMessage,
        *,
        cancel_queued: bool | None = None,
        wait: float | None = None,
    ) -> c.SteerReceipt:
        """Cut the running turn short and send ``prompt`` into the same session instead.

        Interrupts (`interrupt`), waits for the receipt that says what the interrupt did,
        and only then sends ``prompt``. The turn it cut short ends as *cancelled*: its
        result carries ``steered_by`` (this prompt's uuid), marked before anyone reads it,
        so its reader can tell a steer from a failure (``ask`` raises a `ResultError` of
        kind ``"steered"``, not ``"aborted"``). The steering prompt's reply is read as any
        other: ``receive_response(receipt.prompt)``.

        Args:
            prompt: the new instruction.
            cancel_queued: also withdraw the prompts queued behind the running turn
                (``interrupt(cancel_queued=True)``); by default they stay queued and run
                before the new instruction.
            wait: seconds to wait for the interrupt's outcome (default
                ``Options.control_timeout``).

        Raises:
            ClaudeSDKError: ``kind="steer_undetermined"``: the interrupt's outcome did not
                show within ``wait`` (nothing was sent: the running turn may go on).
            ControlRequestError, ControlTimeoutError: the interrupt itself failed.
            ProcessError, SessionClosedError: the CLI is gone.
        """
        message = prompt if isinstance(prompt, UserMessage) else _as_prompt(prompt)
        if not message.uuid:
            message = _replace(message, uuid=str(uuid_module.uuid4()))
        uuid = message.uuid
        assert uuid is not None
        receipt = await self._interrupt(cancel_queued, wait, uuid)
        if receipt.outcome == "undetermined":
            raise ClaudeSDKError(
                "session.steer: the interrupt's outcome did not show in time, so the new "
                "instruction was not sent (the running turn may still go on); read the "
                "turn's messages, then send it, or steer again with a longer wait=",
                kind="steer_undetermined",
            )
        await self._send_user(message)
        return c.SteerReceipt(interrupt=receipt, prompt=uuid)

    @property
    def pending_question(self) -> PendingQuestion | None:
        """The question this session was suspended on and has not answered yet
        (`claude_sdk.humans`), or None."""
        return self._core.pending

    async def answer(
        self,
        answers: Mapping[str, Any] | None = None,
        *,
        allow: bool | None = None,
        message: str | None = None,
        pending: PendingQuestion | None = None,
    ) -> str:
        """Send a person's answer to the question this session was suspended on
        (`claude_sdk.humans`); returns the answer prompt's uuid, whose reply
        ``receive_response(uuid)`` reads. Across processes and hosts, use
        `claude_sdk.answer`, which resumes the session first.

        Args:
            answers: for a question (``AskUserQuestion``): question text -> answer.
            allow: for a permission: run the call (True) or not (False).
            message: a note from the person, sent with the answer.
            pending: the question (default: `pending_question`).

        Raises:
            QuestionNotPendingError: this session waits on no question.
            OptionsError: the answer does not fit the question.
        """
        from ._session.suspend import answer_text  # on first use (import time)

        core = self._core
        question = pending if pending is not None else core.pending
        if question is None:
            raise QuestionNotPendingError(
                f"session {self.session_id} waits on no question here (use "
                "claude_sdk.answer to answer one kept in the store)",
                session_id=self.session_id or "",
            )
        text = answer_text(question, answers, allow, message)
        if question.kind == "permission" and allow:
            # That very call runs once when the model makes it again (`_granted`).
            core.grants.append((question.tool_name, dict(question.tool_input)))
        if core.pending is not None and core.pending.id == question.id:
            core.pending = None
        return await self.send(UserMessage.prompt(text, uuid=question.answer_uuid))

    async def set_permission_mode(self, mode: str) -> c.SetPermissionModeResponse:
        """Change the permission mode (``default``, ``acceptEdits``, ``plan``, ...)."""
        return await self.request(c.SetPermissionModeRequest(mode=mode))

    async def set_model(self, model: str | None) -> c.SetModelResponse:
        """Change the model (None goes back to the default)."""
        return await self.request(c.SetModelRequest(model=model))

    async def set_max_thinking_tokens(
        self, max_thinking_tokens: int | None, *, thinking_display: str | None = None
    ) -> None:
        """Change the thinking budget (None resets it: the request carries ``null``)."""
        await self.request(
            c.SetMaxThinkingTokensRequest(
                max_thinking_tokens=max_thinking_tokens, thinking_display=thinking_display
            )
        )

    async def mcp_status(self) -> c.McpStatusResponse:
        """The status of every MCP server."""
        return await self.request(c.McpStatusRequest())

    async def mcp_reconnect(self, server_name: str) -> None:
        """Reconnect an MCP server."""
        await self.request(c.McpReconnectRequest(server_name=server_name))

    async def mcp_toggle(self, server_name: str, enabled: bool) -> None:
        """Enable or disable an MCP server."""
        await self.request(c.McpToggleRequest(server_name=server_name, enabled=enabled))

    async def mcp_set_servers(self, servers: Mapping[str, Any]) -> c.McpSetServersResponse:
        """Replace the dynamic MCP servers (per-server failures are in ``errors``).

        ``servers`` takes what ``Options.mcp_servers`` takes: `McpStdioServer`,
        `McpSSEServer`, `McpHttpServer`, a wire dict, or an in-process server (started in this
        session, as ``Options.mcp_servers`` would start it).
        """
        wire = {name: mcp_server_wire(name, config) for name, config in servers.items()}
        for name, config in servers.items():
            if wire[name].get("type") == "sdk" and name not in self._core.bridges:
                server = config.get("instance") if isinstance(config, Mapping) else config
                if server is not None:
                    await lifecycle.start_bridge(self._core, name, server)
        return await self.request(c.McpSetServersRequest(servers=wire))

    async def mcp_message(self, server_name: str, message: Mapping[str, Any]) -> None:
        """Relay a message from an in-process MCP server (a notification) to the CLI."""
        await self.request(c.McpMessageRequest(server_name=server_name, message=dict(message)))

    async def rewind_files(
        self, user_message_id: str, *, dry_run: bool | None = None
    ) -> c.RewindFilesResponse:
        """Rewind files to their state at a user message (needs file checkpointing)."""
        return await self.request(
            c.RewindFilesRequest(user_message_id=user_message_id, dry_run=dry_run)
        )

    async def get_context_usage(self, *, detail: str | None = None) -> c.ContextUsageResponse:
        """How the context window is used."""
        return await self.request(c.GetContextUsageRequest(detail=detail))

    async def get_usage(self) -> dict[str, Any]:
        """Usage, cost and rate limits of the session."""
        return await self.request(c.GetUsageRequest())

    async def get_session_cost(self) -> dict[str, Any]:
        """The ``/usage`` text."""
        return await self.request(c.GetSessionCostRequest())

    async def list_models(self) -> c.ListModelsResponse:
        """The models the CLI offers."""
        return await self.request(c.ListModelsRequest())

    async def get_status(self) -> c.GetStatusResponse:
        """The ``/status`` report (the loaded session's id, version, cwd, model, ...)."""
        return await self.request(c.GetStatusRequest())

    async def export_conversation(self) -> c.ExportConversationResponse:
        """The loaded conversation as text (``/export``; empty for a new session)."""
        return await self.request(c.ExportConversationRequest())

    async def get_binary_version(self) -> c.GetBinaryVersionResponse:
        """The CLI binary's version facts."""
        return await self.request(c.GetBinaryVersionRequest())

    async def file_suggestions(self, query: str) -> dict[str, Any]:
        """File path completions for ``query``."""
        return await self.request(c.FileSuggestionsRequest(query=query))

    async def rename_session(self, title: str) -> None:
        """Set the session's title."""
        await self.request(c.RenameSessionRequest(title=title))

    async def cancel_async_message(self, message_uuid: str) -> c.CancelAsyncMessageResponse:
        """Withdraw a queued user message by its uuid."""
        return await self.request(c.CancelAsyncMessageRequest(message_uuid=message_uuid))

    async def read_file(
        self, path: str, *, max_bytes: int | None = None, encoding: str | None = None
    ) -> c.ReadFileResponse:
        """Read a file through the CLI (subject to its Read rules)."""
        return await self.request(
            c.ReadFileRequest(path=path, max_bytes=max_bytes, encoding=encoding)
        )

    async def reload_plugins(self) -> dict[str, Any]:
        """Reload plugins."""
        return await self.request(c.ReloadPluginsRequest())

    async def reload_skills(self) -> dict[str, Any]:
        """Reload skills."""
        return await self.request(c.ReloadSkillsRequest())

    async def stop_task(self, task_id: str) -> None:
        """Stop a background task."""
        await self.request(c.StopTaskRequest(task_id=task_id))

    async def get_task_output(self, task_id: str) -> dict[str, Any]:
        """A background task's output."""
        return await self.request(c.GetTaskOutputRequest(task_id=task_id))

    async def apply_flag_settings(self, settings: Mapping[str, Any]) -> None:
        """Apply partial settings (None clears a key)."""
        await self.request(c.ApplyFlagSettingsRequest(settings=dict(settings)))

    async def get_settings(self) -> dict[str, Any]:
        """The effective settings and their sources."""
        return await self.request(c.GetSettingsRequest())

    async def list_permission_rules(self) -> dict[str, Any]:
        """The permission rules in effect."""
        return await self.request(c.ListPermissionRulesRequest())

    async def end_session(self) -> None:
        """Ask the CLI to end the session."""
        await self.request(c.EndSessionRequest())

    async def update_settings(
        self, source: Literal["localSettings", "userSettings"], settings: Mapping[str, Any]
    ) -> None:
        """Write settings to a settings file through the CLI's own writer, and apply them.

        ``localSettings`` (the project's ``.claude/settings.local.json``) takes
        ``outputStyle``; ``userSettings`` takes ``effortLevel``, saved as the default for the
        session's current model (it does not change the running session's level: use
        `apply_flag_settings` for that). String values only; anything else is refused.

        Raises:
            ControlRequestError: the CLI refused (a key outside the allowlist, a source
                that ``setting_sources`` excludes, a remote session).
        """
        await self.request(c.UpdateSettingsRequest(source=source, settings=dict(settings)))

    async def reload_output_styles(self) -> c.ReloadOutputStylesResponse:
        """Re-read the output-style directories (a style file written while the session
        runs is otherwise unseen); returns the style names now available."""
        return await self.request(c.ReloadOutputStylesRequest())

    async def get_hooks_listing(self) -> c.GetHooksListingResponse:
        """The hooks the CLI's ``/hooks`` menu lists (settings-file, session and plugin
        hooks; not this session's ``Options.hooks`` callbacks), with the policy state."""
        return await self.request(c.GetHooksListingRequest())

    async def background_tasks(self, tool_use_id: str | None = None) -> c.BackgroundTasksResponse:
        """Move running foreground tasks (Bash commands, subagents) to the background, as
        Ctrl+B does: all of them, or only the one started by ``tool_use_id``.

        The blocked tool call returns at once with a "running in the background" result and
        the turn goes on; the task reports its end with a ``task_notification``. With
        ``tool_use_id``, ``backgrounded`` says whether such a task was found.

        Raises:
            ControlRequestError: background tasks are disabled for the session.
        """
        return await self.request(c.BackgroundTasksRequest(tool_use_id=tool_use_id))

    async def mcp_call(
        self,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        # Replaces Options.control_timeout for this call: a tool may run longer than a
        # control request usually takes (a cancel scope of the caller's works too).
        timeout: float | None = None,  # noqa: ASYNC109
        timeout_ms: int | None = None,
        result_not_for_model: bool | None = None,
        check_permissions: bool | None = None,
        soft_error_result: bool | None = None,
    ) -> c.McpCallResponse:
        """Call a tool of an MCP server the CLI connected, without a model turn.

        ``tool`` is the full name, ``mcp__<server>__<tool>``. In-process (SDK) servers are
        refused by the CLI: call their tools directly. A server not connected yet is
        brought up first (the CLI waits up to 30 s for it).

        Args:
            tool: the tool's full name.
            arguments: the tool's arguments.
            timeout: seconds to wait for the answer (default: ``Options.control_timeout``,
                extended to cover ``timeout_ms``).
            timeout_ms: the CLI's own bound on the tool's run (clamped to 1 s .. 10 min).
                Sending it makes the call a *staged* one: the answer carries ``staging``,
                and a tool that fails answers ``staging.ok == False`` instead of a
                `ControlRequestError`.
            result_not_for_model: the result is for a program, not a model: ``content``
                is the server's own content blocks, unprocessed (capability
                ``mcp_call_result_not_for_model_v1``; ignored by a CLI without it).
            check_permissions: decide the call as the model's own call would be
                (permission rules, mode, hooks; ``can_use_tool`` asks the host)
                (capability ``mcp_call_check_permissions_v1``; a CLI without it runs the
                tool unchecked).
            soft_error_result: a tool that fails answers its own error result, as a
                success with ``is_error=True``, rather than a `ControlRequestError`
                carrying only its text. Needs capability ``mcp_call_soft_error_result_v1``
                (CLI 2.1.331 and later); without it nothing is sent (see Raises): an
                older CLI would ignore the field and answer a failure with an error.

        Raises:
            ClaudeSDKError: ``soft_error_result`` was asked of a CLI that does not list
                ``mcp_call_soft_error_result_v1`` (``kind="unsupported"``; the tool did
                not run).
            ControlRequestError: the call could not be made or the tool failed (unless
                ``soft_error_result`` or a staged call): the CLI's message (``MCP server
                not connected: x``, ``Unknown tool: y``, the tool's error text, ...) and
                ``error_code``.
            ControlTimeoutError: no answer within ``timeout``.
        """
        if soft_error_result and not self.server_info.supports(SOFT_ERROR_RESULT):
            raise ClaudeSDKError(
                f"mcp_call(soft_error_result=True): this CLI "
                f"({self.server_info.claude_code_version or 'version unknown'}) does not "
                f"list the capability {SOFT_ERROR_RESULT!r}, so it would answer a failing "
                "tool with a control error rather than its error result; the call was not "
                "sent (leave soft_error_result unset and catch ControlRequestError)",
                kind="unsupported",
            )
        payload = c.McpCallRequest(
            tool=tool,
            arguments=dict(arguments) if arguments is not None else None,
            timeout_ms=timeout_ms,
            result_not_for_model=result_not_for_model,
            check_permissions=check_permissions,
            soft_error_result=True if soft_error_result else None,
        )
        wait = timeout if timeout is not None else self._core.options.control_timeout
        if timeout is None and wait is not None and timeout_ms is not None:
            # The CLI may wait for the server to connect, then runs the tool for up to
            # timeout_ms: do not give up before it does.
            wait = max(wait, timeout_ms / 1000 + _MCP_CONNECT_WAIT)
        answer: c.McpCallResponse = await self._core.request(payload, wait)
        return answer

    async def mcp_read_resource(self, server_name: str, uri: str) -> c.McpReadResourceResponse:
        """Read a ``ui://`` resource (an MCP Apps widget) of an MCP server the CLI connected.

        The contents are untrusted third-party content (HTML): render them sandboxed.

        Raises:
            ControlRequestError: a URI that is not ``ui://``, an unknown or unconnected
                server, an SDK server, or the server's own error.
        """
        return await self.request(c.McpReadResourceRequest(server_name=server_name, uri=uri))

    async def seed_read_state(self, path: str, mtime: float) -> None:
        """Tell the CLI that its Read of ``path`` happened when the file's mtime was
        ``mtime`` (milliseconds since the epoch, as ``os.stat(path).st_mtime_ns //
        1_000_000``), so an Edit does not fail with "file not read yet" after that Read
        left the context.

        The CLI seeds nothing (and still answers) when the file changed since ``mtime``,
        is over 10 MiB, or the Read rules deny it: an Edit then needs a fresh Read.
        """
        await self.request(c.SeedReadStateRequest(path=path, mtime=mtime))

    async def register_repo_root(
        self,
        directory: str,
        *,
        reload_claude_md: bool | None = None,
        reload_plugins: bool | None = None,
        reload_skills: bool | None = None,
    ) -> c.RegisterRepoRootResponse:
        """Add ``directory`` as a working-directory root, optionally reloading CLAUDE.md,
        plugins and skills; returns the root as the CLI resolved it.

        Raises:
            ControlRequestError: ``directory`` is not a strict subdirectory of the working
                directory or of an ``add_dirs`` root, does not exist, or is already a
                root.
        """
        return await self.request(
            c.RegisterRepoRootRequest(
                directory=directory,
                reload_claude_md=reload_claude_md,
                reload_plugins=reload_plugins,
                reload_skills=reload_skills,
            )
        )

    async def set_mcp_permission_mode_override(
        self, server_name: str, mode: Literal["default", "auto"] | None
    ) -> c.SetMcpPermissionModeOverrideResponse:
        """Pin an MCP server's tools to permission mode ``"default"`` (ask per action) or
        ``"auto"`` (the auto-mode classifier), or clear the pin with None.

        Tighten-only: the pin applies only where the session's mode would allow the call
        anyway. ``warning`` is set when no known server has that name (the pin is kept and
        applies once one connects).

        Raises:
            ControlRequestError: any other mode.
        """
        return await self.request(
            c.SetMcpPermissionModeOverrideRequest(server_name=server_name, mode=mode)
        )

    async def reinitialize(self) -> c.InitializeResponse:
        """Send ``initialize`` again and return the CLI's fresh answer (``server_info``
        becomes it).

        The request is the one the session started with: the same hooks under the same
        callback ids, so this session's hook callbacks keep answering. The CLI re-registers
        them and settles any hook callback it was still waiting for itself (it withdraws
        the request here, denies a pending PreToolUse with a retry notice); a turn in
        progress goes on. Use it after the CLI's state changed under the session (settings,
        plugins) to read the new commands, models and agents.

        Raises:
            InitializeTimeoutError: no answer within ``initialize_timeout``.
            ClaudeSDKError: a hook matcher uses ``on_failure="block"`` and the CLI no
                longer reports support for it (``kind="unsupported"``).
        """
        return await lifecycle.reinitialize(self._core)


# -------------------------------------------------------------------------------------
# opening a session


def _single_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException | None:
    leaves: list[BaseException] = []

    def walk(g: BaseExceptionGroup[BaseException]) -> None:
        for exc in g.exceptions:
            if isinstance(exc, BaseExceptionGroup):
                walk(exc)
            else:
                leaves.append(exc)

    walk(group)
    return leaves[0] if len(leaves) == 1 else None


@contextlib.contextmanager
def _collapse_groups() -> Iterator[None]:
    """A lone failure leaves as itself, not as an ``ExceptionGroup`` of one."""
    try:
        yield
    except BaseExceptionGroup as group:
        leaf = _single_leaf(group)
        if leaf is None:
            raise
        raise leaf from leaf.__cause__


def default_transport() -> Transport:
    """The transport used when none is given (the local subprocess transport)."""
    module = importlib.import_module(".transports.subprocess", __package__)
    transport: Transport = module.SubprocessTransport()
    return transport


_OPEN_HINT = (
    "open_session() returns an async context manager, not a session: write "
    "`async with claude_sdk.open_session(options) as session:` and use `session` inside "
    "the block (the block starts the CLI and ends it when left)"
)


def _as_prompt(prompt: str | Sequence[ContentBlock]) -> UserMessage:
    """A prompt given as text or content blocks, as a `UserMessage`."""
    if isinstance(prompt, str):
        return UserMessage.prompt(prompt)
    return UserMessage.prompt(list(prompt))


def _streamed(item: object) -> UserMessage:
    """One item of a streamed prompt as a `UserMessage`: a `UserMessage`, a str, or the
    official SDK's ``{"type": "user", "message": {...}}`` dict."""
    if isinstance(item, UserMessage):
        return item
    if isinstance(item, str):
        return UserMessage.prompt(item)
    if isinstance(item, Mapping) and item.get("type") == "user":
        from . import wire
        from ._protocol.codec import dumps

        message = wire.decode(dumps(dict(item)))
        if isinstance(message, UserMessage):
            return message
    raise TypeError(
        "a streamed prompt yields claude_sdk.UserMessage (UserMessage.prompt('text')), str, "
        "or the official SDK's {'type': 'user', 'message': {'role': 'user', 'content': "
        f"...}}}} dict; not {type(item).__name__}"
    )


_V = TypeVar("_V")


class _BlockContext(AbstractAsyncContextManager[_V]):
    """An ``async with`` block around another async context manager (what `open_session`
    and `claude_sdk.query` return: their subclasses say how the block is misused)."""

    __slots__ = ("_cm",)

    def __init__(self, cm: AbstractAsyncContextManager[_V]) -> None:
        self._cm = cm

    async def __aenter__(self) -> _V:
        return await self._cm.__aenter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        return await self._cm.__aexit__(exc_type, exc, tb)


class SessionContext(_BlockContext[Session]):
    """What `open_session` returns: ``async with open_session(...) as session``.

    Awaiting it (the official SDK's ``await client.connect()``), calling a session method on
    it, or a plain ``with`` is a ``TypeError`` or ``AttributeError`` that shows the form
    above: the CLI's process and tasks live inside the block, so there is no session
    outside one.
    """

    __slots__ = ()

    if not TYPE_CHECKING:  # at run time only: type checkers reject these uses anyway

        def __await__(self) -> NoReturn:
            raise TypeError(f"{_OPEN_HINT}; it is not awaited (as ClaudeSDKClient.connect is)")

        def __enter__(self) -> NoReturn:
            raise TypeError(f"{_OPEN_HINT}; a plain `with` does not work (use `async with`)")

        def __exit__(self, *exc_info: object) -> None:  # never reached: __enter__ raises
            return None

        def __getattr__(self, name: str) -> NoReturn:
            if name.startswith("__") or not hasattr(Session, name):
                raise AttributeError(
                    f"{type(self).__name__!r} object has no attribute {name!r} ({_OPEN_HINT})"
                )
            raise AttributeError(
                f"{name!r} is an attribute of the session, not of what open_session() "
                f"returns: {_OPEN_HINT}, then call `session.{name}`"
            )


def open_session(
    options: Options | None = None, *, transport: Transport | None = None
) -> SessionContext:
    """Start a CLI and hold a `Session` on it for the duration of the block.

    ``async with open_session(options) as session:`` (see `SessionContext`).

    The CLI, the reader task and every callback handler live inside this block. Leaving it
    normally closes stdin and gives the CLI ``shutdown_grace`` (once) to settle and exit;
    leaving it by an exception or a cancellation interrupts an open turn and terminates the
    CLI at once. Either way SIGTERM, then SIGKILL follow, shielded and bounded.

    Raises:
        InitializeTimeoutError: no answer to ``initialize`` within ``initialize_timeout``.
        ProcessError: the CLI exited non-zero without an error result.
        LineTooLongError: a stdout line exceeded ``max_line_bytes``.
        SessionNotFoundError: ``resume`` names a session that exists nowhere (with
            ``resume_missing="error"``).
        SessionStoreError: the session store failed to answer a resume (``retryable``).
        SessionBusyError: another live owner holds the session in the store
            (``session_lease="raise"``, the default, with a store that keeps leases).
    """
    if options is not None and not isinstance(options, Options):
        raise TypeError(
            f"open_session() takes an Options, not {type(options).__name__} "
            "(open_session(claude_sdk.Options(...)), or open_session() for the defaults)"
        )
    return SessionContext(_open_session(options, transport))


@asynccontextmanager
async def _open_session(
    options: Options | None, transport: Transport | None
) -> AsyncIterator[Session]:
    options = options if options is not None else Options()
    transport = transport if transport is not None else default_transport()
    prepared = await stored.prepare(options, runs_here=getattr(transport, "runs_here", True))
    try:
        async with contextlib.AsyncExitStack() as stack:
            try:
                session = await stack.enter_async_context(_open(prepared, transport))
            except SessionNotFoundError as exc:
                started = prepared.options
                if options.resume_missing != "start" or started.resume is None:
                    raise
                if prepared.stored:
                    # Never a new conversation under an id the store holds: the store would
                    # then hold two conversations under one key.
                    raise SessionNotFoundError(
                        f"the session store holds session {started.resume}, but the CLI "
                        "found no transcript of it: the transcript was written on this "
                        "machine, and this CLI reads another disk (a custom transport: set "
                        "its runs_here = False and write LaunchSpec.transcripts on the "
                        "CLI's side, as the SSH and container transports do). A new "
                        "conversation is not started under an id the store holds",
                        session_id=started.resume,
                    ) from exc
                # Found nowhere we could look, and the CLI found nothing either: start it.
                logger.debug("session %s not found by the CLI: starting it", started.resume)
                prepared.options = attrs.evolve(
                    started, resume=None, resume_missing="error", session_id=started.resume
                )
                session = await stack.enter_async_context(_open(prepared, transport))
            yield session
    finally:
        await prepared.cleanup()


@asynccontextmanager
async def _open(prepared: stored.Prepared, transport: Transport) -> AsyncIterator[Session]:
    options = prepared.options
    spec = build_launch_spec(options)
    if prepared.transcripts:  # a CLI on another disk: the transport writes them there
        spec = attrs.evolve(spec, transcripts=prepared.transcripts)
    initialize, hooks = build_initialize(options)
    telemetry = Telemetry(options.telemetry)
    cores: list[SessionCore] = []
    with _collapse_groups(), telemetry.span("claude_sdk.session") as span:
        trace_env = telemetry.trace_env()
        if trace_env:  # the CLI joins the trace (an explicit Options.env value wins)
            spec = attrs.evolve(spec, env={**trace_env, **spec.env})
        async with transport.connect(spec) as conn, anyio.create_task_group() as tg:
            core = SessionCore(conn, options, spec, hooks, tg, telemetry)
            cores.append(core)
            mirror = _mirror(core, prepared)
            core.lease = prepared.lease
            if prepared.lease is not None:
                tg.start_soon(prepared.lease.keep, core.fail)
            try:
                await lifecycle.start(core, InboundWorkers(core), initialize)
                info = core.server_info
                version = info.claude_code_version if info is not None else None
                telemetry.set(span, cli_path=conn.cli_path, pid=conn.pid, cli_version=version)
                logger.debug("session started: pid %s, CLI %s", conn.pid, version or "?")
                yield Session(core)
                await lifecycle.finish(core)
                if mirror is not None:
                    await mirror.close()
            except BaseException:
                await lifecycle.abort(core)
                if mirror is not None:
                    await mirror.close(options.shutdown_grace)
                raise
            finally:
                tg.cancel_scope.cancel()
                telemetry.close()
        core = cores[0]
        failure = core.failure
        if failure is not None and not core.failure_observed:
            core.failure_observed = True
            raise failure


def _mirror(core: SessionCore, prepared: stored.Prepared) -> TranscriptMirror | None:
    """The session's transcript mirror (``Options.session_store``), its task started."""
    options = core.options
    if options.session_store is None:
        return None
    mirror = TranscriptMirror(
        options.session_store,
        projects_dir=prepared.projects_dir,
        project_key=options.store_project_key,
        eager=options.session_store_flush == "eager",
        fail=core.fail if options.session_store_errors == "raise" else None,
        lease=prepared.lease,
        end=core.fail,
    )
    core.mirror = mirror
    core.tg.start_soon(mirror.run)
    return mirror


def _build_before_the_first_session() -> None:
    """What every session builds before its CLI starts, built with this module rather than
    in the first session's time to first message (about 3 ms; the decoders of the first
    frames are made while the CLI starts, `claude_sdk._session.warmup`)."""
    from ._attrs import build
    from ._protocol.launch import LaunchSpec
    from .transports.base import StderrTail

    for cls in (stored.Prepared, LaunchSpec, c.HostRequest, c.InitializeRequest, StderrTail):
        build(cls)


_build_before_the_first_session()

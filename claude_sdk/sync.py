"""A synchronous facade: `ask`, `query` and sessions from plain (non-async) code.

Each call runs the async API on an event loop in a helper thread (an AnyIO blocking portal),
so it works from plain scripts, from worker threads, and from inside a thread that already
runs an event loop, such as a Jupyter notebook cell (that loop is blocked while the call
runs, as any blocking call would block it)::

    import claude_sdk

    reply = claude_sdk.sync.ask("What is 2 + 2?")
    print(reply.text)

    with claude_sdk.sync.open_session(options) as session:
        session.send("Summarise README.md")
        for message in session.receive_response():
            print(message)

Everything the async objects do happens on the portal's loop: the session, its reader and
its callbacks (``can_use_tool``, hooks) run there, so async callbacks work unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    # At run time these are imported by the first call: `claude_sdk.sync` itself is cheap.
    from anyio.from_thread import BlockingPortal

    from . import control as c
    from ._pending import PendingQuestion
    from .errors import SessionStoreError
    from .messages import ContentBlock, Message, UserMessage
    from .options import Options
    from .query import Prompt, Reply
    from .session import MessageStream, Session
    from .transports.base import Transport


def start_blocking_portal(backend: str) -> AbstractContextManager[BlockingPortal]:
    """``anyio.from_thread.start_blocking_portal``, imported on first use (import time)."""
    from anyio.from_thread import start_blocking_portal as start

    return start(backend)


__all__ = ["SyncQuery", "SyncSession", "answer", "ask", "open_session", "query"]

_T = TypeVar("_T")


def ask(
    prompt: Prompt,
    *,
    options: Options | None = None,
    transport: Transport | None = None,
    backend: str = "asyncio",
) -> Reply:
    """`claude_sdk.ask`, blocking: run one prompt and return the collected turn."""
    from .query import ask as _ask

    with start_blocking_portal(backend) as portal:
        return portal.call(functools.partial(_ask, prompt, options=options, transport=transport))


def answer(
    target: str | PendingQuestion,
    answers: Mapping[str, Any] | None = None,
    *,
    allow: bool | None = None,
    message: str | None = None,
    options: Options | None = None,
    transport: Transport | None = None,
    backend: str = "asyncio",
) -> Reply:
    """`claude_sdk.answer`, blocking: resume a suspended session with a person's answer."""
    from .humans import answer as _answer

    call = functools.partial(
        _answer,
        target,
        answers,
        allow=allow,
        message=message,
        options=options,
        transport=transport,
    )
    with start_blocking_portal(backend) as portal:
        return portal.call(call)


_END: Any = object()


async def _next(stream: MessageStream) -> Any:
    try:
        return await stream.__anext__()
    except StopAsyncIteration:
        return _END


def _iterate(portal: BlockingPortal, stream: MessageStream) -> Iterator[Message]:
    while (message := portal.call(_next, stream)) is not _END:
        yield message


def query(
    prompt: Prompt,
    *,
    options: Options | None = None,
    transport: Transport | None = None,
    backend: str = "asyncio",
) -> SyncQuery:
    """`claude_sdk.query`, blocking: iterate one turn's messages.

    Both forms work::

        for message in claude_sdk.sync.query("What is 2 + 2?"):
            print(message)

        with claude_sdk.sync.query("What is 2 + 2?") as messages:
            for message in messages:
                print(message)

    The session ends when the loop is done; leaving a bare ``for`` early ends it when the
    iterator is closed (at once in CPython, or ``close()`` it yourself); the ``with`` form
    ends it when the block ends.
    """
    return SyncQuery(prompt, options=options, transport=transport, backend=backend)


class SyncQuery:
    """What `query` returns: iterable, and a context manager giving the iterator."""

    def __init__(
        self,
        prompt: Prompt,
        *,
        options: Options | None,
        transport: Transport | None,
        backend: str,
    ) -> None:
        self._args = (prompt, options, transport, backend)
        self._cm: AbstractContextManager[Iterator[Message]] | None = None

    def __iter__(self) -> Iterator[Message]:
        with _query(*self._args) as messages:
            yield from messages

    def __enter__(self) -> Iterator[Message]:
        if self._cm is not None:
            raise RuntimeError("this query is already running: call query() again")
        self._cm = _query(*self._args)
        return self._cm.__enter__()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        cm, self._cm = self._cm, None
        assert cm is not None
        return cm.__exit__(exc_type, exc, tb)


@contextmanager
def _query(
    prompt: Prompt, options: Options | None, transport: Transport | None, backend: str
) -> Iterator[Iterator[Message]]:
    from .query import query as _async_query

    with (
        start_blocking_portal(backend) as portal,
        portal.wrap_async_context_manager(
            _async_query(prompt, options=options, transport=transport)
        ) as stream,
    ):
        yield _iterate(portal, stream)


class SyncSession:
    """A `Session` driven from blocking code: the same methods, without ``await``.

    ``receive_messages()`` and ``receive_response()`` return plain iterators; every other
    coroutine method of `Session` (``send``, ``interrupt``, ``set_model``, ``control``, ...)
    is a typed blocking method of the same name and signature, and every property of
    `Session` is a property here (a test checks that none is missing).
    """

    def __init__(self, session: Session, portal: BlockingPortal) -> None:
        self._session = session
        self._portal = portal

    @property
    def session(self) -> Session:
        """The underlying async session (use it only from the portal's loop)."""
        return self._session

    def send(self, prompt: Prompt) -> str | tuple[str, ...]:
        """Write a prompt; returns its uuid (`Session.send`)."""
        sent: str | tuple[str, ...] = self._portal.call(self._session.send, prompt)
        return sent

    def receive_response(self, prompt: str | None = None) -> Iterator[Message]:
        """The messages up to and including the result that answers ``prompt`` (default:
        the oldest prompt whose reply was not handed out yet); see
        `Session.receive_response`."""
        return _iterate(self._portal, self._session.receive_response(prompt))

    def receive_messages(self) -> Iterator[Message]:
        """Every message, until the CLI's output ends."""
        return _iterate(self._portal, self._session.receive_messages())

    def interrupt(
        self, *, cancel_queued: bool | None = None, wait: float | None = None
    ) -> c.InterruptReceipt:
        """Stop the current turn; returns the receipt (`Session.interrupt`)."""
        return self._portal.call(
            lambda: self._session.interrupt(cancel_queued=cancel_queued, wait=wait)
        )

    def steer(
        self,
        prompt: str | Sequence[ContentBlock] | UserMessage,
        *,
        cancel_queued: bool | None = None,
        wait: float | None = None,
    ) -> c.SteerReceipt:
        """Cut the running turn short and send ``prompt`` instead (`Session.steer`)."""
        return self._portal.call(
            lambda: self._session.steer(prompt, cancel_queued=cancel_queued, wait=wait)
        )

    @property
    def pending_question(self) -> PendingQuestion | None:
        """The question this session was suspended on (`Session.pending_question`)."""
        return self._session.pending_question

    def answer(
        self,
        answers: Mapping[str, Any] | None = None,
        *,
        allow: bool | None = None,
        message: str | None = None,
        pending: PendingQuestion | None = None,
    ) -> str:
        """Send a person's answer to the pending question (`Session.answer`)."""
        return self._portal.call(
            lambda: self._session.answer(answers, allow=allow, message=message, pending=pending)
        )

    @property
    def closed(self) -> bool:
        """True once the CLI's output has ended or the session failed (`Session.closed`)."""
        return self._session.closed

    @property
    def failure(self) -> BaseException | None:
        """The error that ended the session, if any (`Session.failure`)."""
        return self._session.failure

    @property
    def inbound_in_flight(self) -> list[str]:
        """Ids of CLI-to-host control requests not answered yet (their handlers run)
        (`Session.inbound_in_flight`).
        """
        return self._session.inbound_in_flight

    @property
    def last_activity(self) -> float:
        """``anyio.current_time()`` of the last line from the CLI (or of our last callback's end:
        the CLI owes us nothing while it waits for one) (`Session.last_activity`).
        """
        return self._session.last_activity

    @property
    def lines_undecodable(self) -> int:
        """Lines from the CLI that were not frames (logged and skipped)
        (`Session.lines_undecodable`).
        """
        return self._session.lines_undecodable

    @property
    def options(self) -> Options:
        """The options the session was opened with (`Session.options`)."""
        return self._session.options

    @property
    def pending_requests(self) -> list[str]:
        """Ids of host-to-CLI control requests still waiting for an answer
        (`Session.pending_requests`).
        """
        return self._session.pending_requests

    @property
    def pid(self) -> int | None:
        """The CLI's process id, when there is one (`Session.pid`)."""
        return self._session.pid

    @property
    def resumed(self) -> c.ResumeConfirmation | None:
        """What a session opened with ``resume`` or ``continue_conversation`` confirmed before its
        first prompt (``Options.verify_resume``), else None (`Session.resumed`).
        """
        return self._session.resumed

    @property
    def returncode(self) -> int | None:
        """The CLI's exit code once it has exited (`Session.returncode`)."""
        return self._session.returncode

    @property
    def server_info(self) -> c.InitializeResponse:
        """The CLI's answer to ``initialize``: models, commands, agents, account, pid,
        ``capabilities``,  (`Session.server_info`).
        """
        return self._session.server_info

    @property
    def session_id(self) -> str | None:
        """The session's id: the CLI's (``system/init``) once a turn has started; before, the one
        the CLI said it loaded (`resumed`), else the id the options chose (``session_id``, or
        ``resume`` without ``fork_session``), else None (`Session.session_id`).
        """
        return self._session.session_id

    @property
    def state(self) -> str | None:
        """The last ``session_state_changed`` state (``running``, ``requires_action``, ``idle``)
        (`Session.state`).
        """
        return self._session.state

    @property
    def stderr_tail(self) -> str:
        """The last lines the CLI wrote to stderr (`Session.stderr_tail`)."""
        return self._session.stderr_tail

    @property
    def store_failures(self) -> list[SessionStoreError]:
        """What the session store is still missing (``session_store_errors="warn"``): one
        `SessionStoreError` per transcript whose lines wait to be appended again (``entries``: how
        many), then lines given up for good (`Session.store_failures`).
        """
        return self._session.store_failures

    def apply_flag_settings(self, settings: Mapping[str, Any]) -> None:
        """Apply partial settings (None clears a key): `Session.apply_flag_settings`, blocking."""
        return self._portal.call(functools.partial(self._session.apply_flag_settings, settings))

    def background_tasks(self, tool_use_id: str | None = None) -> c.BackgroundTasksResponse:
        """Move running foreground tasks (Bash commands, subagents) to the background, as Ctrl+B
        does: all of them, or only the one started by ``tool_use_id``: `Session.background_tasks`,
        blocking.
        """
        return self._portal.call(functools.partial(self._session.background_tasks, tool_use_id))

    def cancel_async_message(self, message_uuid: str) -> c.CancelAsyncMessageResponse:
        """Withdraw a queued user message by its uuid: `Session.cancel_async_message`, blocking."""
        return self._portal.call(
            functools.partial(self._session.cancel_async_message, message_uuid)
        )

    def close(self) -> None:
        """Close the CLI's stdin (it finishes what it is doing and exits): `Session.close`,
        blocking.
        """
        return self._portal.call(self._session.close)

    def control(self, subtype: str, **fields: Any) -> Any:
        """Send any control request by its subtype; ``fields`` are its wire keys: `Session.control`,
        blocking.
        """
        return self._portal.call(functools.partial(self._session.control, subtype, **fields))

    def end_session(self) -> None:
        """Ask the CLI to end the session: `Session.end_session`, blocking."""
        return self._portal.call(self._session.end_session)

    def export_conversation(self) -> c.ExportConversationResponse:
        """The loaded conversation as text (``/export``; empty for a new session):
        `Session.export_conversation`, blocking.
        """
        return self._portal.call(self._session.export_conversation)

    def file_suggestions(self, query: str) -> dict[str, Any]:
        """File path completions for ``query``: `Session.file_suggestions`, blocking."""
        return self._portal.call(functools.partial(self._session.file_suggestions, query))

    def get_binary_version(self) -> c.GetBinaryVersionResponse:
        """The CLI binary's version facts: `Session.get_binary_version`, blocking."""
        return self._portal.call(self._session.get_binary_version)

    def get_context_usage(self, *, detail: str | None = None) -> c.ContextUsageResponse:
        """How the context window is used: `Session.get_context_usage`, blocking."""
        return self._portal.call(functools.partial(self._session.get_context_usage, detail=detail))

    def get_hooks_listing(self) -> c.GetHooksListingResponse:
        """The hooks the CLI's ``/hooks`` menu lists (settings-file, session and plugin hooks; not
        this session's ``Options.hooks`` callbacks), with the policy state:
        `Session.get_hooks_listing`, blocking.
        """
        return self._portal.call(self._session.get_hooks_listing)

    def get_session_cost(self) -> dict[str, Any]:
        """The ``/usage`` text: `Session.get_session_cost`, blocking."""
        return self._portal.call(self._session.get_session_cost)

    def get_settings(self) -> dict[str, Any]:
        """The effective settings and their sources: `Session.get_settings`, blocking."""
        return self._portal.call(self._session.get_settings)

    def get_status(self) -> c.GetStatusResponse:
        """The ``/status`` report (the loaded session's id, version, cwd, model, ...):
        `Session.get_status`, blocking.
        """
        return self._portal.call(self._session.get_status)

    def get_task_output(self, task_id: str) -> dict[str, Any]:
        """A background task's output: `Session.get_task_output`, blocking."""
        return self._portal.call(functools.partial(self._session.get_task_output, task_id))

    def get_usage(self) -> dict[str, Any]:
        """Usage, cost and rate limits of the session: `Session.get_usage`, blocking."""
        return self._portal.call(self._session.get_usage)

    def list_models(self) -> c.ListModelsResponse:
        """The models the CLI offers: `Session.list_models`, blocking."""
        return self._portal.call(self._session.list_models)

    def list_permission_rules(self) -> dict[str, Any]:
        """The permission rules in effect: `Session.list_permission_rules`, blocking."""
        return self._portal.call(self._session.list_permission_rules)

    def mcp_call(
        self,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        timeout_ms: int | None = None,
        result_not_for_model: bool | None = None,
        check_permissions: bool | None = None,
        soft_error_result: bool | None = None,
    ) -> c.McpCallResponse:
        """Call a tool of an MCP server the CLI connected, without a model turn: `Session.mcp_call`,
        blocking.
        """
        return self._portal.call(
            functools.partial(
                self._session.mcp_call,
                tool,
                arguments,
                timeout=timeout,
                timeout_ms=timeout_ms,
                result_not_for_model=result_not_for_model,
                check_permissions=check_permissions,
                soft_error_result=soft_error_result,
            )
        )

    def mcp_message(self, server_name: str, message: Mapping[str, Any]) -> None:
        """Relay a message from an in-process MCP server (a notification) to the CLI:
        `Session.mcp_message`, blocking.
        """
        return self._portal.call(functools.partial(self._session.mcp_message, server_name, message))

    def mcp_read_resource(self, server_name: str, uri: str) -> c.McpReadResourceResponse:
        """Read a ``ui://`` resource (an MCP Apps widget) of an MCP server the CLI connected:
        `Session.mcp_read_resource`, blocking.
        """
        return self._portal.call(
            functools.partial(self._session.mcp_read_resource, server_name, uri)
        )

    def mcp_reconnect(self, server_name: str) -> None:
        """Reconnect an MCP server: `Session.mcp_reconnect`, blocking."""
        return self._portal.call(functools.partial(self._session.mcp_reconnect, server_name))

    def mcp_set_servers(self, servers: Mapping[str, Any]) -> c.McpSetServersResponse:
        """Replace the dynamic MCP servers (per-server failures are in ``errors``):
        `Session.mcp_set_servers`, blocking.
        """
        return self._portal.call(functools.partial(self._session.mcp_set_servers, servers))

    def mcp_status(self) -> c.McpStatusResponse:
        """The status of every MCP server: `Session.mcp_status`, blocking."""
        return self._portal.call(self._session.mcp_status)

    def mcp_toggle(self, server_name: str, enabled: bool) -> None:
        """Enable or disable an MCP server: `Session.mcp_toggle`, blocking."""
        return self._portal.call(functools.partial(self._session.mcp_toggle, server_name, enabled))

    def read_file(
        self, path: str, *, max_bytes: int | None = None, encoding: str | None = None
    ) -> c.ReadFileResponse:
        """Read a file through the CLI (subject to its Read rules): `Session.read_file`,
        blocking.
        """
        return self._portal.call(
            functools.partial(self._session.read_file, path, max_bytes=max_bytes, encoding=encoding)
        )

    def register_repo_root(
        self,
        directory: str,
        *,
        reload_claude_md: bool | None = None,
        reload_plugins: bool | None = None,
        reload_skills: bool | None = None,
    ) -> c.RegisterRepoRootResponse:
        """Add ``directory`` as a working-directory root, optionally reloading CLAUDE.md, plugins
        and skills; returns the root as the CLI resolved it: `Session.register_repo_root`, blocking.
        """
        return self._portal.call(
            functools.partial(
                self._session.register_repo_root,
                directory,
                reload_claude_md=reload_claude_md,
                reload_plugins=reload_plugins,
                reload_skills=reload_skills,
            )
        )

    def reinitialize(self) -> c.InitializeResponse:
        """Send ``initialize`` again and return the CLI's fresh answer (``server_info`` becomes it):
        `Session.reinitialize`, blocking.
        """
        return self._portal.call(self._session.reinitialize)

    def reload_output_styles(self) -> c.ReloadOutputStylesResponse:
        """Re-read the output-style directories (a style file written while the session runs is
        otherwise unseen); returns the style names now available: `Session.reload_output_styles`,
        blocking.
        """
        return self._portal.call(self._session.reload_output_styles)

    def reload_plugins(self) -> dict[str, Any]:
        """Reload plugins: `Session.reload_plugins`, blocking."""
        return self._portal.call(self._session.reload_plugins)

    def reload_skills(self) -> dict[str, Any]:
        """Reload skills: `Session.reload_skills`, blocking."""
        return self._portal.call(self._session.reload_skills)

    def rename_session(self, title: str) -> None:
        """Set the session's title: `Session.rename_session`, blocking."""
        return self._portal.call(functools.partial(self._session.rename_session, title))

    def request(self, payload: c.HostRequest[_T]) -> _T:
        """Send a control request and return its typed answer: `Session.request`, blocking."""
        return self._portal.call(functools.partial(self._session.request, payload))

    def rewind_files(
        self, user_message_id: str, *, dry_run: bool | None = None
    ) -> c.RewindFilesResponse:
        """Rewind files to their state at a user message (needs file checkpointing):
        `Session.rewind_files`, blocking.
        """
        return self._portal.call(
            functools.partial(self._session.rewind_files, user_message_id, dry_run=dry_run)
        )

    def seed_read_state(self, path: str, mtime: float) -> None:
        """Tell the CLI that its Read of ``path`` happened when the file's mtime was ``mtime``
        (milliseconds since the epoch, as ``os.stat(path).st_mtime_ns // 1_000_000``), so an Edit
        does not fail with "file not read yet" after that Read left the context:
        `Session.seed_read_state`, blocking.
        """
        return self._portal.call(functools.partial(self._session.seed_read_state, path, mtime))

    def set_max_thinking_tokens(
        self, max_thinking_tokens: int | None, *, thinking_display: str | None = None
    ) -> None:
        """Change the thinking budget (None resets it: the request carries ``null``):
        `Session.set_max_thinking_tokens`, blocking.
        """
        return self._portal.call(
            functools.partial(
                self._session.set_max_thinking_tokens,
                max_thinking_tokens,
                thinking_display=thinking_display,
            )
        )

    def set_mcp_permission_mode_override(
        self, server_name: str, mode: Literal["default", "auto"] | None
    ) -> c.SetMcpPermissionModeOverrideResponse:
        """Pin an MCP server's tools to permission mode ``"default"`` (ask per action) or ``"auto"``
        (the auto-mode classifier), or clear the pin with None:
        `Session.set_mcp_permission_mode_override`, blocking.
        """
        return self._portal.call(
            functools.partial(self._session.set_mcp_permission_mode_override, server_name, mode)
        )

    def set_model(self, model: str | None) -> c.SetModelResponse:
        """Change the model (None goes back to the default): `Session.set_model`, blocking."""
        return self._portal.call(functools.partial(self._session.set_model, model))

    def set_permission_mode(self, mode: str) -> c.SetPermissionModeResponse:
        """Change the permission mode (``default``, ``acceptEdits``, ``plan``, ...):
        `Session.set_permission_mode`, blocking.
        """
        return self._portal.call(functools.partial(self._session.set_permission_mode, mode))

    def stop_task(self, task_id: str) -> None:
        """Stop a background task: `Session.stop_task`, blocking."""
        return self._portal.call(functools.partial(self._session.stop_task, task_id))

    def update_settings(
        self, source: Literal["localSettings", "userSettings"], settings: Mapping[str, Any]
    ) -> None:
        """Write settings to a settings file through the CLI's own writer, and apply them:
        `Session.update_settings`, blocking.
        """
        return self._portal.call(functools.partial(self._session.update_settings, source, settings))

    def wait_closed(self) -> None:
        """Wait until the CLI's output has ended (or the session failed): `Session.wait_closed`,
        blocking.
        """
        return self._portal.call(self._session.wait_closed)

    def wait_until_idle(self) -> bool:
        """Wait until every prompt is settled and the CLI reports ``idle``:
        `Session.wait_until_idle`, blocking.
        """
        return self._portal.call(self._session.wait_until_idle)


@contextmanager
def open_session(
    options: Options | None = None,
    *,
    transport: Transport | None = None,
    backend: str = "asyncio",
) -> Iterator[SyncSession]:
    """`claude_sdk.open_session`, blocking: a session for the duration of the block."""
    from .session import open_session as _open_session

    with (
        start_blocking_portal(backend) as portal,
        portal.wrap_async_context_manager(_open_session(options, transport=transport)) as session,
    ):
        yield SyncSession(session, portal)

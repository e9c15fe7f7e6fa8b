"""`FakeCLI`: a scripted Claude Code CLI, in memory, for testing code built on the SDK.

A `FakeCLI` is a `Transport` (a `MemoryTransport`). Each time the SDK connects, it runs your
script with a `ScriptedCLI`: the CLI's side of the conversation. The script reads like the
conversation it plays; the fake does the frame plumbing, with frames shaped like the ones CLI
2.1.330 writes (the recordings of ``tests/data/transcripts``)::

    import anyio
    from claude_sdk import Options, PermissionAllow, open_session
    from claude_sdk.testing import FakeCLI, ScriptedCLI, ToolCall


    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()                   # answer initialize like CLI 2.1.330
        prompt = await cli.next_prompt()        # the SDK's first user message
        assert prompt.text == "touch a file"
        await cli.turn(                         # running, init, assistant, can_use_tool,
            text="Done.",                       # tool result, assistant, result, idle
            tools=[ToolCall("Bash", {"command": "touch x"}, output="")],
        )
        await cli.serve_until_stdin_closes()    # answer control requests, exit 0 on EOF


    async def allow(tool, tool_input, context):
        return PermissionAllow()


    async def main() -> None:
        fake = FakeCLI(script)
        options = Options(can_use_tool=allow)
        async with open_session(options, transport=fake) as session:
            await session.send("touch a file")
            async for message in session.receive_response():
                print(message)
        print(fake.received)                    # every frame the SDK wrote, decoded


    anyio.run(main)

Contract:

* A background task per connection reads every line the SDK writes, decodes it
  (`claude_sdk.wire.decode`), records it (`ScriptedCLI.received`, and `ScriptedCLI.log`
  with arrival times; the same across connections on `FakeCLI`) and routes it: user messages
  go to the prompt queue (`ScriptedCLI.next_prompt`); ``control_response`` frames resolve
  the fake's own requests; host ``control_request`` frames are answered at once, as CLI
  2.1.330 answers them (override any answer with `ScriptedCLI.on_request`); a line that is
  not JSON is fatal, as for the real CLI (stderr message, exit 1).
* The SDK's ``initialize`` waits until the script calls `ScriptedCLI.handshake` (or
  ``auto_handshake=True``), so a script can serve in-process MCP servers first, or never
  answer (initialize timeouts). `ScriptedCLI.next_prompt`, `ScriptedCLI.wait_for_interrupt`,
  `ScriptedCLI.wait_for_stdin_close` and `ScriptedCLI.serve_until_stdin_closes` answer an
  ``initialize`` that waits or arrives while they wait.
* Like the real CLI, an ``interrupt`` first withdraws the fake's pending ``can_use_tool``
  requests (``control_cancel_request``); `ScriptedCLI.turn` then ends as an aborted turn.
  `ScriptedCLI.turn` asks permissions when the SDK passed ``--permission-prompt-tool=stdio``,
  streams when it passed ``--include-partial-messages``, and calls the hooks it registered.
* When the script returns, the fake behaves like an idle CLI: it keeps answering control
  requests until the SDK closes stdin, then exits 0 (1 if the last result it sent was an
  error), like CLI 2.1.330. `ScriptedCLI.exit` ends it sooner.
* When the script raises, the fake writes the error to stderr and exits 1, like a crashing
  CLI; with ``raise_script_errors`` (the default) the error also leaves the SDK's
  ``open_session`` block, so assertion failures inside scripts fail the test that ran them.
  `StdinClosedError` (the SDK closed stdin while the script waited) is a normal end.
* Every wait for the SDK takes a ``timeout`` (10 s by default; None waits for ever) and
  raises `AnswerTimeoutError` naming what it waited for. A test harness wants bounded waits
  with that message by default, hence the ``timeout`` parameters (``# noqa: ASYNC109``);
  ``anyio.fail_after`` around any call works as well. Nothing polls and nothing sleeps.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import inspect
import json
import os
import posixpath
import re
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Final, TypeVar, overload

import anyio
import anyio.abc
import attrs

from .. import wire
from .._attrs import define, frozen
from .._base import WireModel
from .._paths import project_slug
from ..control import (
    ControlCancelRequest,
    ControlError,
    ControlRequest,
    ControlResponse,
    ControlSuccess,
    HookMatcherConfig,
    InitializeRequest,
    KeepAlive,
    UpdateEnvironmentVariables,
)
from ..errors import MessageDecodeError
from ..messages import AssistantMessage, ResultMessage, UserMessage
from ..permissions import PermissionAllow, PermissionDeny
from ..transports.memory import TERMINATED, MemoryPeer, MemoryTransport
from ..wire import Frame

if TYPE_CHECKING:
    from .._protocol.launch import LaunchSpec
    from ..transports.base import Connection

__all__ = [
    "AnswerTimeoutError",
    "ErrorReply",
    "FakeCLI",
    "FakeCLIError",
    "InvalidAnswerError",
    "NO_ANSWER",
    "PermissionReply",
    "Received",
    "RequestCancelledError",
    "RequestHandler",
    "SOFT_ERROR_RESULT_CAPABILITY",
    "Script",
    "ScriptedCLI",
    "StdinClosedError",
    "ToolCall",
    "ToolSpec",
]

_JSON = dict[str, Any]
_H = TypeVar("_H", bound=Callable[[Any], Any])

#: Seconds every wait for the SDK gives it by default.
DEFAULT_TIMEOUT: Final = 10.0

# ======================================================================================
# Errors and sentinels


class FakeCLIError(Exception):
    """Base of the errors a `ScriptedCLI` raises in the script."""


class AnswerTimeoutError(FakeCLIError, TimeoutError):
    """The SDK did not do what the script waited for in time."""


class RequestCancelledError(FakeCLIError):
    """The request was withdrawn with ``control_cancel_request``; no answer will come."""


class StdinClosedError(FakeCLIError):
    """The SDK closed stdin while the script waited for it.

    Raised out of the script, it ends the fake like stdin EOF ends the real CLI (exit 0, or
    1 after an error result); it is not reported as a script error.
    """


class InvalidAnswerError(FakeCLIError):
    """The SDK answered with something the protocol does not allow."""


class ErrorReply(Exception):  # noqa: N818 - an answer, not a failure of the fake
    """Raised by a request handler: answer with an error ``control_response``.

    Available as ``FakeCLI.Error``.

    Attributes:
        message: the ``error`` text.
        code: the optional ``error_code`` token (``invalid_mode``, ``unsupported_request``).
    """

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class _NoAnswer:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_ANSWER"


#: Returned by a request handler: never answer this request (for timeout tests).
NO_ANSWER: Final = _NoAnswer()

PermissionReply = PermissionAllow | PermissionDeny | ControlError
"""The SDK's answer to ``can_use_tool``: its `PermissionResult`, or its error response."""

RequestHandler = Callable[[Any], Any]
"""``handler(request) -> body``, sync or async.

``request`` is the typed request payload (`SetModelRequest`, ..., or
`UnknownControlRequest`). Return the success body (a dict, a wire model, or None for an
empty success), return `NO_ANSWER` to never answer, or raise `ErrorReply` for an error
response.
"""

Script = Callable[["ScriptedCLI"], Awaitable[None]]
"""A script: ``async def script(cli: ScriptedCLI) -> None``."""


# ======================================================================================
# Records


@frozen(kw_only=True)
class Received:
    """One frame the SDK wrote.

    Attributes:
        frame: the decoded frame.
        line: the line as written (without its newline).
        at: ``anyio.current_time()`` when the fake read it.
        connection: the index of the connection (of `FakeCLI.clis`) it came on.
    """

    frame: Frame
    line: bytes
    at: float
    connection: int


@frozen
class ToolCall:
    """A tool call for `ScriptedCLI.turn`.

    Attributes:
        name: the tool (``"Bash"``, ``"mcp__calc__add"``).
        input: the input the model gives it.
        output: what the tool returns when it runs (the ``tool_result`` content). None (the
            default): a tool of an in-process server the SDK serves (``mcp__<server>__<tool>``
            of an ``Options.mcp_servers`` entry such as `claude_sdk.create_sdk_mcp_server`)
            runs for real, through the session and the server, as the CLI calls it
            (`ScriptedCLI.call_tool`); any other tool returns ``""``.
        id: the ``tool_use`` id (a fresh ``toolu_fake_...`` id when None).
        is_error: the tool fails with ``output`` as the error.
        ask: ask the SDK with ``can_use_tool`` first. None asks when the SDK started the CLI
            with ``--permission-prompt-tool=stdio`` (and no PreToolUse hook decided).
        tool_use_result: the structured ``tool_use_result`` (default: ``output``).
    """

    name: str
    input: _JSON = attrs.field(factory=dict)
    output: Any = None
    id: str | None = None
    is_error: bool = False
    ask: bool | None = None
    tool_use_result: Any = None


ToolSpec = ToolCall | tuple[str, Mapping[str, Any]] | tuple[str, Mapping[str, Any], Any]
"""A tool call for `ScriptedCLI.turn`: a `ToolCall`, or ``(name, input[, output])``."""


# ======================================================================================
# Realistic data (CLI 2.1.330, from the transcripts)

#: The variables a ``claim_session`` may set (as CLI 2.1.330 to 2.1.332).
CLAIM_ENV_KEYS: Final = frozenset(
    {"CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_SESSION_ACCESS_TOKEN", "CLAUDE_CODE_HOST_SESSION_ID"}
)
DEFAULT_MODEL: Final = "claude-opus-5-5"
PERMISSION_MODES: Final = ("acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan")

_MODELS: Final[list[_JSON]] = [
    {
        "value": value,
        "resolvedModel": resolved,
        "displayName": display,
        "description": description,
        "supportsEffort": True,
        "supportedEffortLevels": ["low", "medium", "high", "xhigh", "max"],
        "supportsAdaptiveThinking": True,
        **({"supportsFastMode": True} if fast else {}),
        "supportsAutoMode": True,
        "supportsThinkingOff": False,
    }
    for value, resolved, display, description, fast in [
        (
            "default",
            "claude-opus-5-5",
            "Default (recommended)",
            "Use the default model (currently Opus 5.5) · $4/$20 per Mtok",
            True,
        ),
        ("opus", "claude-opus-5-5", "Opus", "Opus 5.5 · Best for everyday, complex tasks", True),
        (
            "fable",
            "claude-fable-5-2",
            "Fable",
            "Fable 5.2 · Most capable for your hardest tasks",
            True,
        ),
        (
            "sonnet",
            "claude-sonnet-5-5",
            "Sonnet",
            "Sonnet 5.5 · Efficient for routine tasks",
            False,
        ),
        ("haiku", "claude-haiku-5-5", "Haiku", "Haiku 5.5 · Fastest for quick answers", False),
    ]
]
_ALIASES: Final = {m["value"]: m["resolvedModel"] for m in _MODELS}

_COMMANDS: Final[list[_JSON]] = [
    {
        "name": "debug",
        "description": "Enable debug logging for this session and help diagnose issues",
        "argumentHint": "[issue description]",
        "builtin": True,
    },
    {
        "name": "code-review",
        "description": "Review the current diff for correctness bugs",
        "argumentHint": "[low|medium|high|xhigh|max] [--fix]",
        "aliases": ["review"],
        "builtin": True,
    },
    {
        "name": "verify",
        "description": "Verify that a code change actually does what it's supposed to",
        "argumentHint": "",
        "builtin": True,
    },
    {
        "name": "compact",
        "description": "Clear conversation history but keep a summary in context",
        "argumentHint": "<optional custom summarization instructions>",
    },
    {
        "name": "context",
        "description": "Visualize current context usage as a colored grid",
        "argumentHint": "",
    },
    {
        "name": "cost",
        "description": "Show the total cost and duration of the current session",
        "argumentHint": "",
    },
]
_AGENTS: Final[list[_JSON]] = [
    {
        "name": "claude",
        "description": "Catch-all for any task that doesn't fit a more specific agent.",
    },
    {
        "name": "Explore",
        "description": "Fast read-only search agent for locating code.",
        "model": "inherit",
    },
    {
        "name": "general-purpose",
        "description": "General-purpose agent for researching complex questions.",
    },
    {
        "name": "Plan",
        "description": "Software architect agent for designing implementation plans.",
        "model": "inherit",
    },
    {
        "name": "statusline-setup",
        "description": "Use this agent to configure the user's Claude Code status line setting.",
        "model": "sonnet",
    },
]
_OUTPUT_STYLES: Final = ["default", "Proactive", "Concise", "Explanatory", "Learning"]
_INIT_CAPABILITIES: Final = [
    "ui_surface_v1",
    "mcp_call_result_not_for_model_v1",
    "mcp_call_check_permissions_v1",
    "voice_call_talk_line_v1",
    "ui_pane_widget_v1",
    "reload_plugins_refuse_if_busy_v1",
    "get_usage_detached_v1",
]
#: The capability CLI 2.1.331 adds to the initialize answer (``mcp_call``'s
#: ``soft_error_result``); ``FakeCLI(capabilities=...)`` can list it.
SOFT_ERROR_RESULT_CAPABILITY: Final = "mcp_call_soft_error_result_v1"
_HOOK_EVENT_CATALOG: Final[list[_JSON]] = [
    {"name": name, "summary": summary, "supportsMatcher": matcher}
    for name, summary, matcher in [
        ("PreToolUse", "Before tool execution", True),
        ("PostToolUse", "After tool execution", True),
        ("PostToolUseFailure", "After tool execution fails", True),
        ("Notification", "When notifications are sent", True),
        ("UserPromptSubmit", "When the user submits a prompt", False),
        ("SessionStart", "When a new session is started", True),
        ("Stop", "Right before Claude concludes its response", False),
        ("SubagentStart", "When a subagent (Agent tool call) is started", True),
        ("SubagentStop", "Right before a subagent (Agent tool call) concludes its response", True),
        ("PreCompact", "Before conversation compaction", True),
        ("SessionEnd", "When a session is ending", True),
        ("PermissionRequest", "When a permission dialog is displayed", True),
    ]
]
_UPDATE_SETTINGS_KEYS: Final = {"localSettings": ("outputStyle",), "userSettings": ("effortLevel",)}
_SYSTEM_CAPABILITIES: Final = [
    "interrupt_receipt_v1",
    "interrupt_cancel_queued_v1",
    "interrupt_send_now_v1",
    "interrupt_requeue_taken_v1",
    "msg_lifecycle_v1",
    "request_marker_lists_v1",
    "ask_user_question_unanswered_v1",
    "lifecycle_wakeup_source_v1",
    "sdk_mcp_tools_list_changed",
    "sdk_mcp_manifests",
    "mcp_read_resource_v1",
    "mcp_tool_ui_meta_v1",
    "mcp_call_result_not_for_model_v1",
    "mcp_call_check_permissions_v1",
    "ui_surface_v1",
    "ui_pane_widget_v1",
    "voice_call_talk_line_v1",
    "withdrawn_files_note_v2",
    "withdrawn_tools_v1",
    "reload_plugins_refuse_if_busy_v1",
    "get_usage_detached_v1",
    "silent_resend_files_v1",
]
_TOOLS: Final = [
    "Task", "Bash", "CronCreate", "CronDelete", "CronList", "Edit", "EnterPlanMode",
    "EnterWorktree", "ExitPlanMode", "ExitWorktree", "ListAgents", "Monitor", "NotebookEdit",
    "Read", "ReportFindings", "ScheduleWakeup", "SendMessage", "Skill", "TaskStop", "WebFetch",
    "WebSearch", "Workflow", "Write",
]  # fmt: skip
_PLUGINS: Final[list[_JSON]] = [
    {"name": name, "path": "builtin", "source": f"{name}@builtin"}
    for name in ("cc-plugin-agents-md", "cc-plugin-privacy", "cc-plugin-plugin-authoring")
]
_SKILLS: Final = ["deep-research", "dataviz", "update-config", "verify", "debug", "code-review"]
_TOOL_EVENTS: Final = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop"})
_SUBAGENT_STATS: Final[_JSON] = {
    "spawned": 0,
    "requested": {"background": 0, "foreground": 0, "unset": 0},
    "started_in_background": 0,
    "max_depth": 0,
    "spawned_by_subagents": 0,
    "completed": 0,
    "failed": 0,
    "killed": {"parent": 0, "user": 0, "system": 0},
    "refused": {"depth_limit": 0, "concurrency_limit": 0, "budget": 0},
    "by_type": {},
}
_ERROR_TERMINAL_REASONS: Final = {
    "error_during_execution": "aborted_streaming",
    "error_max_turns": "max_turns",
    "error_max_budget_usd": "budget_exhausted",
    "error_max_structured_output_retries": "structured_output_retry_exhausted",
}
_REJECTED_TOOL_TEXT: Final = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
_PRICE_PER_TOKEN: Final = (4e-6, 20e-6)  # Opus 5.5: $4 / $20 per million tokens


def _uuid() -> str:
    return str(uuid.uuid4())


def _hex(n: int) -> str:
    return secrets.token_hex(n)[: 2 * n]


def _now_iso() -> str:
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def _flag(argv: Sequence[str], name: str) -> str | None:
    """The value of ``--name=value`` or ``--name value`` in argv (the last one wins)."""
    value: str | None = None
    for i, arg in enumerate(argv):
        if arg.startswith(name + "="):
            value = arg[len(name) + 1 :]
        elif arg == name and i + 1 < len(argv):
            value = argv[i + 1]
    return value


def _matches(matcher: str | None, target: str) -> bool:
    if matcher in (None, "", "*"):
        return True
    assert matcher is not None
    try:
        return re.fullmatch(matcher, target) is not None
    except re.error:
        return matcher == target


def _chunks(text: str, size: int = 8) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _normalize_tool(spec: ToolSpec) -> ToolCall:
    if isinstance(spec, ToolCall):
        call = spec
    elif len(spec) == 2:
        call = ToolCall(spec[0], dict(spec[1]))
    else:
        call = ToolCall(spec[0], dict(spec[1]), output=spec[2])
    if call.id is None:
        call = attrs.evolve(call, id=f"toolu_fake_{_hex(10)}")
    return call


# ======================================================================================
# Bookkeeping of the fake's own requests


@define(eq=False)
class _Outbound:
    request_id: str
    subtype: str
    frame: _JSON
    response: ControlResponse | None = None
    cancelled: bool = False


@define(eq=False)
class _TurnContext:
    denials: list[_JSON] = attrs.field(factory=list)
    aborted: bool = False


class _PromptIterator(AsyncIterator[UserMessage]):
    """``async for prompt in cli.iter_prompts()``: prompts until the SDK closes stdin."""

    def __init__(self, cli: ScriptedCLI, timeout: float | None) -> None:
        self._cli = cli
        self._timeout = timeout

    def __aiter__(self) -> _PromptIterator:
        return self

    async def __anext__(self) -> UserMessage:
        try:
            return await self._cli.next_prompt(timeout=self._timeout)
        except StdinClosedError:
            raise StopAsyncIteration from None


# ======================================================================================
# The CLI side of one connection


class ScriptedCLI:
    """The CLI's side of one connection: what a `FakeCLI` script talks to.

    Attributes:
        fake: the `FakeCLI` this connection belongs to.
        peer: the raw `MemoryPeer` (bytes, stderr, exit code).
        index: the connection's index in `FakeCLI.clis`.
        argv: the command line the SDK asked for.
        env: the environment the SDK asked for.
        cwd: the working directory the CLI reports.
        session_id: the CLI's session id (``--resume``/``--session-id`` when given).
        version: the CLI version the fake reports.
        model: the model in use (``--model``, then ``set_model``).
        permission_mode: the permission mode (``--permission-mode``, then
            ``set_permission_mode``).
        current_state: the last ``session_state_changed`` state the fake sent.
        pid: the process id the fake reports in its initialize response.
        received: every frame the SDK wrote on this connection, decoded, in order.
        log: the same, as `Received` records with their arrival time.
        sent: every line the fake wrote with `send` (and the helpers), in order.
        prompts: every user message the SDK wrote.
        initialize: the SDK's `InitializeRequest`, once seen.
        hook_ids: callback ids per hook event, from the initialize request.
        interrupted: set when an interrupt arrives that `wait_for_interrupt` has not yet
            taken (a fresh event replaces it once every interrupt is taken).
        interrupt_count: how many interrupts arrived.
        results: every `ResultMessage` the fake sent.
        answers_after_cancel: answers the SDK wrote for requests the fake had cancelled.
        stray_answers: answers to ids the fake never asked (or answered twice).
        cancelled_by_sdk: ids of the SDK's own requests it withdrew.
        unanswered: ids of SDK requests a handler chose not to answer (`NO_ANSWER`).
        bad_lines: lines the SDK wrote that were not JSON (fatal for the CLI).
        errors: the script's failure and any handler failures.
        script_done: set when the script has returned or raised (the fake may go on
            answering requests until stdin closes).
        cancel_permissions_on_interrupt: on ``interrupt``, withdraw pending ``can_use_tool``
            requests first (``control_cancel_request``), as CLI 2.1.330 does. Default True.
        capabilities: what the initialize answer lists in ``capabilities`` (from
            ``FakeCLI(capabilities=...)``; change it before a re-initialize to change it).
        repo_roots: the directories ``register_repo_root`` registered, resolved.
        tool_results: the MCP ``CallToolResult`` of each in-process tool the fake ran
            (`call_tool`, and `turn` for a `ToolCall` without ``output``), by tool-use id.
    """

    def __init__(self, fake: FakeCLI, peer: MemoryPeer, index: int) -> None:
        self.fake = fake
        self.peer = peer
        self.index = index
        spec = peer.spec
        self.argv: tuple[str, ...] = tuple(spec.argv)
        self.env: dict[str, str] = dict(spec.env)
        # As the real CLI: the SDK's working directory when the options name none.
        self.cwd: str = spec.cwd or os.getcwd()
        self.version: str = fake.version
        resumed = _flag(self.argv, "--resume")
        forked = resumed is not None and "--fork-session" in self.argv
        self.session_id: str = (
            fake.session_id
            or _flag(self.argv, "--session-id")
            or (None if forked else resumed)
            or _uuid()
        )
        #: The conversation a ``--resume``/``--continue`` start loaded (``export_conversation``).
        self.loaded_history: str = ""
        if resumed is not None or "--continue" in self.argv:
            default = f"\n\u276f (the conversation of session {resumed or 'latest'})"
            self.loaded_history = default if fake.history is None else fake.history
        model = _flag(self.argv, "--model")
        self.model: str = self.resolve_model(model)
        mode = _flag(self.argv, "--permission-mode")
        self.permission_mode: str = "default" if mode in (None, "manual") else mode
        #: Started with ``--await-claim`` and not claimed yet (a spare, `claims`).
        self.parked: bool = "--await-claim" in self.argv
        #: The ``claim_session`` requests that claimed it (wire dicts).
        self.claims: list[_JSON] = []
        self.current_state: str = "idle"
        self.pid: int = 20000 + index
        self.received: list[Frame] = []
        self.log: list[Received] = []
        self.sent: list[bytes] = []
        self.prompts: list[UserMessage] = []
        self.initialize: InitializeRequest | None = None
        self.hook_ids: dict[str, list[str]] = {}
        self.interrupted: anyio.Event = anyio.Event()
        self.interrupt_count: int = 0
        self.results: list[ResultMessage] = []
        self.answers_after_cancel: list[ControlResponse] = []
        self.stray_answers: list[ControlResponse] = []
        self.cancelled_by_sdk: list[str] = []
        self.unanswered: list[str] = []
        self.bad_lines: list[bytes] = []
        self.errors: list[Exception] = []
        self.cancel_permissions_on_interrupt = True
        self.script_done: anyio.Event = anyio.Event()
        self.capabilities: list[str] = list(
            fake.capabilities if fake.capabilities is not None else _INIT_CAPABILITIES
        )
        self.repo_roots: list[str] = []
        self.tool_results: dict[str, _JSON] = {}

        self._handlers: dict[str, RequestHandler] = {}
        self._mcp_connected: set[str] = set()
        self._mcp_ids: dict[str, int] = {}
        self._changed = anyio.Event()
        self._prompt_queue: collections.deque[UserMessage] = collections.deque()
        self._outbound: dict[str, _Outbound] = {}
        self._inbound_scopes: dict[str, anyio.CancelScope] = {}
        self._parked_initialize: ControlRequest | None = None
        self._handshaken = False
        self._interrupts_taken = 0
        self._stdin_eof = False
        self._hanging = False
        self._mirror_leaf: str | None = None  # the last transcript line `turn` mirrored
        #: `turn` writes ``transcript_mirror`` frames when the SDK asked for them; a script
        #: that writes its own sets this False.
        self.mirror_turns = True
        self._prompt_id: str | None = None
        #: The uuids of the prompts taken (`next_prompt`) since the last result: the next
        #: `result` names them (``user_message_uuids``), as the real CLI does.
        self.answering: list[str] = []
        #: Name the prompts a turn answers, as CLI 2.1.330 does: ``command_lifecycle``
        #: frames for prompts with a uuid (`lifecycle`), ``user_message_uuids`` on the
        #: turn's ``system/init`` and ``result``. False: a CLI that names nothing (older
        #: CLIs; the SDK then matches results to prompts in order).
        self.names_prompts = True
        self._started: set[str] = set()
        self._cost = 0.0
        self._model_usage: dict[str, _JSON] = {}
        self._tg: anyio.abc.TaskGroup | None = None

    # ---------------------------------------------------------------------------------
    # facts

    @property
    def spec(self) -> LaunchSpec:
        """The launch spec the SDK asked for."""
        return self.peer.spec

    @property
    def stdin_closed(self) -> bool:
        """True once the SDK has closed stdin."""
        return self._stdin_eof

    @property
    def exited(self) -> bool:
        """True once the fake has exited."""
        return self.peer.returncode is not None

    @property
    def permission_prompt_stdio(self) -> bool:
        """True when the SDK asked for ``can_use_tool`` requests (``--permission-prompt-tool``)."""
        return _flag(self.argv, "--permission-prompt-tool") == "stdio"

    @property
    def partial_messages(self) -> bool:
        """True when the SDK asked for ``stream_event`` frames."""
        return "--include-partial-messages" in self.argv

    def resolve_model(self, model: str | None) -> str:
        """The model id the CLI would use for ``model`` (an alias, an id, or None)."""
        if model is None or model == "default":
            return DEFAULT_MODEL
        resolved: str = _ALIASES.get(model, model)
        return resolved

    def hook_id(self, event: str, index: int = 0) -> str:
        """The ``index``-th callback id the SDK registered for ``event``.

        Raises:
            FakeCLIError: no such hook was registered.
        """
        ids = self.hook_ids.get(event, [])
        if index >= len(ids):
            raise FakeCLIError(f"the SDK registered no hook #{index} for {event} ({self.hook_ids})")
        return ids[index]

    # ---------------------------------------------------------------------------------
    # waiting for the SDK

    def _notify(self) -> None:
        event = self._changed
        self._changed = anyio.Event()
        event.set()

    async def _wait_until(
        self,
        ready: Callable[[], bool],
        timeout: float | None,  # noqa: ASYNC109
        what: str,
        *,
        serve_initialize: bool = False,
    ) -> None:
        """Wait until ``ready()``; with ``serve_initialize``, answer an ``initialize`` that
        arrives meanwhile (a real CLI answers it before it reads prompts)."""

        def initialize_waiting() -> bool:
            return (
                serve_initialize
                and not self._handshaken
                and not self._hanging
                and self._parked_initialize is not None
            )

        try:
            with anyio.fail_after(timeout):
                while not ready():
                    if initialize_waiting():
                        await self.handshake(timeout=None)
                        continue
                    await self._changed.wait()
        except TimeoutError:
            raise AnswerTimeoutError(f"timed out after {timeout} s waiting for {what}") from None

    async def handshake(
        self,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109
        **fields: Any,
    ) -> InitializeRequest:
        """Wait for the SDK's ``initialize`` and answer it like CLI 2.1.330.

        Later ``initialize`` requests (a re-initialize) are answered automatically.

        Args:
            timeout: seconds to wait for the request.
            fields: wire keys to add to (or replace in) the realistic response body, e.g.
                ``hook_on_failure_supported=False``.

        Returns:
            The SDK's initialize request.

        Raises:
            AnswerTimeoutError: no initialize came in time.
            StdinClosedError: the SDK closed stdin first.
        """
        if not self._handshaken:
            await self._wait_until(
                lambda: self._parked_initialize is not None or self._stdin_eof,
                timeout,
                "the SDK's initialize request",
            )
            frame = self._parked_initialize
            if frame is None:
                raise StdinClosedError("the SDK closed stdin without sending initialize")
            self._parked_initialize = None
            self._handshaken = True
            await self._answer_host_request(frame, overrides=fields)
        assert self.initialize is not None
        return self.initialize

    async def next_prompt(self, *, timeout: float | None = DEFAULT_TIMEOUT) -> UserMessage:  # noqa: ASYNC109
        """The next user message the SDK writes (control requests are answered meanwhile).

        A waiting ``initialize`` is answered first.

        Raises:
            AnswerTimeoutError: no prompt came in time.
            StdinClosedError: the SDK closed stdin.
        """
        await self._wait_until(
            lambda: bool(self._prompt_queue) or self._stdin_eof,
            timeout,
            "a prompt from the SDK",
            serve_initialize=True,
        )
        if not self._prompt_queue:
            raise StdinClosedError("the SDK closed stdin while the script waited for a prompt")
        self._prompt_id = _uuid()
        prompt = self._prompt_queue.popleft()
        if isinstance(prompt.uuid, str):
            self.answering.append(prompt.uuid)
        return prompt

    async def lifecycle(self, command_uuid: str, state: str) -> None:
        """Write ``command_lifecycle`` for a prompt that carried a uuid, as CLI 2.1.330 does
        (``msg_lifecycle_v1``): ``queued`` when it arrives, ``started`` when its turn takes
        it (at the turn's `system_init`), ``completed`` after its result (``cancelled`` after
        an error result, or when an interrupt withdrew it)."""
        if not self.names_prompts:
            return
        await self._send_if_alive(
            {
                "type": "command_lifecycle",
                "command_uuid": command_uuid,
                "state": state,
                "uuid": _uuid(),
                "session_id": self.session_id,
            }
        )

    def iter_prompts(self, *, timeout: float | None = None) -> AsyncIterator[UserMessage]:
        """``async for prompt in cli.iter_prompts()``: every prompt until stdin closes."""
        return _PromptIterator(self, timeout)

    async def wait_for_interrupt(self, *, timeout: float | None = DEFAULT_TIMEOUT) -> int:  # noqa: ASYNC109
        """Wait for an interrupt the script has not taken yet; returns how many came so far.

        Raises:
            AnswerTimeoutError: no interrupt came in time.
            StdinClosedError: the SDK closed stdin first.
        """
        await self._wait_until(
            lambda: self.interrupt_count > self._interrupts_taken or self._stdin_eof,
            timeout,
            "an interrupt from the SDK",
            serve_initialize=True,
        )
        if self.interrupt_count <= self._interrupts_taken:
            raise StdinClosedError("the SDK closed stdin while the script waited for an interrupt")
        self._interrupts_taken += 1
        if self._interrupts_taken == self.interrupt_count:
            self.interrupted = anyio.Event()
        return self.interrupt_count

    async def wait_for_stdin_close(self, *, timeout: float | None = None) -> None:  # noqa: ASYNC109
        """Wait until the SDK closes stdin (control requests are answered meanwhile).

        Raises:
            AnswerTimeoutError: stdin was still open after ``timeout`` seconds.
        """
        await self._wait_until(
            lambda: self._stdin_eof, timeout, "the SDK to close stdin", serve_initialize=True
        )

    async def serve_until_stdin_closes(self) -> None:
        """Act like an idle CLI: answer control requests until stdin closes, then exit.

        The exit code is 0, or 1 when the last result the fake sent was an error.
        """
        await self.wait_for_stdin_close()
        await self.exit(self._eof_exit_code())

    def _eof_exit_code(self) -> int:
        return 1 if self.results and self.results[-1].is_error else 0

    async def hang(self) -> None:
        """Never answer anything again and never exit (until cancelled): for timeout tests."""
        self._hanging = True
        await anyio.sleep_forever()

    async def exit(self, code: int = 0, stderr: str = "") -> None:
        """Write ``stderr``, close stdout and exit with ``code``."""
        if stderr:
            self.peer.write_stderr(stderr)
        await self.peer.exit(code)

    # ---------------------------------------------------------------------------------
    # answering the SDK's requests

    @overload
    def on_request(self, subtype: str, handler: None = None) -> Callable[[_H], _H]: ...
    @overload
    def on_request(self, subtype: str, handler: _H) -> _H: ...

    def on_request(self, subtype: str, handler: _H | None = None) -> _H | Callable[[_H], _H]:
        """Answer SDK requests of ``subtype`` with ``handler`` (a `RequestHandler`).

        Usable as a decorator. `default_answer` gives the body the fake would send.
        """
        if handler is None:

            def register(fn: _H) -> _H:
                self._handlers[subtype] = fn
                return fn

            return register
        self._handlers[subtype] = handler
        return handler

    def default_answer(self, request: Any) -> _JSON | None:
        """The body the fake answers ``request`` (a typed payload) with, by default.

        Returns None for an acknowledgement without a body.

        Raises:
            ErrorReply: the default answer is an error response.
        """
        raw: _JSON = wire.to_dict(request)
        subtype = raw.get("subtype")
        if subtype == "initialize":
            return self._initialize_body(raw)
        if subtype == "interrupt":
            # As the real CLI: the prompts waiting behind a running turn are the queued ones
            # (the prompts the script has not taken yet; when no turn runs, the first of them
            # is about to start, so it is the one interrupted); ``cancel_queued`` withdraws
            # them (they never reach `next_prompt`).
            waiting = list(self._prompt_queue)[0 if self._prompt_id is not None else 1 :]
            queued = [p.uuid for p in waiting if isinstance(p.uuid, str)]
            if raw.get("cancel_queued") is True:
                self._prompt_queue = collections.deque(
                    p for p in self._prompt_queue if p.uuid not in queued
                )
                return {"still_queued": [], "cancelled": queued}
            return {"still_queued": queued}
        if subtype == "claim_session":
            return self._claim(raw)
        if subtype == "set_model":
            return {"model": self.resolve_model(raw.get("model"))}
        if subtype == "set_permission_mode":
            mode = raw.get("mode")
            if mode not in PERMISSION_MODES:
                raise ErrorReply(
                    "Cannot set permission mode: must be one of " + ", ".join(PERMISSION_MODES),
                    "invalid_mode",
                )
            return {"mode": mode}
        if subtype in (
            "set_max_thinking_tokens",
            "apply_flag_settings",
            "rename_session",
            "mcp_message",
            "seed_read_state",
            "set_has_subscribers",
        ):
            return None
        if subtype == "update_settings":
            self._check_update_settings(raw)
            return None
        if subtype in ("stop_task", "end_session"):
            return {}
        if subtype == "background_tasks":
            # Nothing runs in the foreground of a fake: a named task is never found.
            return {"backgrounded": False} if raw.get("tool_use_id") is not None else {}
        if subtype == "set_mcp_permission_mode_override":
            return self._mcp_permission_override(raw)
        if subtype == "mcp_status":
            return {"mcpServers": []}
        if subtype == "mcp_set_servers":
            servers = raw.get("servers") or {}
            return {"added": sorted(servers), "removed": [], "errors": {}}
        if subtype in ("mcp_reconnect", "mcp_toggle"):
            raise ErrorReply(f"Server not found: {raw.get('serverName')}")
        if subtype == "mcp_read_resource":
            if not str(raw.get("uri", "")).startswith("ui://"):
                raise ErrorReply("mcp_read_resource: uri must use the ui:// scheme")
            raise ErrorReply(f"Server not found: {raw.get('serverName')}")
        if subtype == "mcp_call":
            return self._mcp_call(raw)
        if subtype == "rewind_files":
            return {"canRewind": False, "error": "File rewinding is not enabled."}
        if subtype == "get_context_usage":
            return self._context_usage_body()
        if subtype == "get_usage":
            return {
                "session": {
                    "total_cost_usd": self._cost,
                    "total_api_duration_ms": 16 * len(self.results),
                    "total_duration_ms": 75 * len(self.results),
                    "total_lines_added": 0,
                    "total_lines_removed": 0,
                    "model_usage": self._model_usage,
                },
                "subscription_type": None,
                "rate_limits_available": False,
                "rate_limits": None,
                "behaviors": {},
            }
        if subtype == "get_session_cost":
            return {"text": f"Total cost: ${self._cost:.4f}"}
        if subtype == "list_models":
            return {"models": [dict(m) for m in _MODELS]}
        if subtype == "get_status":
            rows = [
                {"label": "Version", "value": self.version},
                {"label": "Session ID", "value": self.session_id},
                {"label": "cwd", "value": self.cwd},
            ]
            model = [{"label": "Model", "value": self.model}]
            return {
                "sections": [
                    {"title": "Session", "rows": rows},
                    {"title": "Environment", "rows": model},
                ]
            }
        if subtype == "export_conversation":
            lines = [self.loaded_history] if self.loaded_history else []
            # The CLI's /export text: a prompt line (U+276F) then an answer line (U+25CF).
            for prompt, result in zip(self.prompts, self.results, strict=False):
                lines.append(f"\n\u276f {prompt.text}\n\n\u25cf {result.result or ''}")
            return {"text": "".join(lines), "default_filename": "conversation.txt"}
        if subtype == "get_binary_version":
            return {
                "version": self.version,
                "buildTime": "2026-11-20T00:00:00Z",
                "oldestDesktopSdk": "0.3.280",
            }
        if subtype == "file_suggestions":
            return {"suggestions": [], "cwd": self.cwd}
        if subtype == "cancel_async_message":
            return {"cancelled": False}
        if subtype == "read_file":
            raise ErrorReply(f"read denied: {raw.get('path')}")
        if subtype == "register_repo_root":
            return self._register_repo_root(raw)
        if subtype == "reload_plugins":
            return {
                "commands": [dict(c) for c in _COMMANDS],
                "agents": [dict(a) for a in _AGENTS],
                "plugins": [],
                "mcpServers": [],
                "error_count": 0,
            }
        if subtype == "reload_skills":
            return {"skills": []}
        if subtype == "reload_output_styles":
            return {"available_output_styles": list(_OUTPUT_STYLES)}
        if subtype == "get_task_output":
            return {"output": "", "total_bytes": 0, "truncated": False}
        if subtype == "get_settings":
            return {
                "effective": {},
                "sources": [],
                "served_settings_state": "none",
                "applied": {"model": self.model, "effort": "medium"},
            }
        if subtype == "get_hooks_listing":
            # The host's own hooks (initialize) are not listed, as by the real CLI; a fake
            # has no settings files, so nothing is.
            return {
                "events": [],
                "hooks": [],
                "eventCatalog": [dict(e) for e in _HOOK_EVENT_CATALOG],
                "policy": {
                    "disabledByPolicy": False,
                    "managedOnly": False,
                    "pluginOnly": False,
                    "allDisabled": False,
                    "policyHookCount": 0,
                },
            }
        if subtype == "list_permission_rules":
            return {
                "state": {
                    "rules": [],
                    "workspaceDirectories": [{"path": self.cwd, "source": "session"}],
                    "originalCwd": self.cwd,
                    "managedOnly": False,
                }
            }
        raise ErrorReply(f"Unsupported control request subtype: {subtype}", "unsupported_request")

    def _check_update_settings(self, raw: _JSON) -> None:
        source = raw.get("source")
        allowed = _UPDATE_SETTINGS_KEYS.get(str(source))
        if allowed is None:
            raise ErrorReply(f"update_settings: unsupported source {source}")
        settings = raw.get("settings")
        if not isinstance(settings, dict):
            raise ErrorReply("update_settings requires settings to be an object")
        refused = [k for k in settings if k not in allowed]
        if refused:
            raise ErrorReply(f"update_settings keys not allowed: {', '.join(refused)}")

    def _mcp_permission_override(self, raw: _JSON) -> _JSON:
        mode = raw.get("mode")
        if mode not in ("default", "auto", None):
            raise ErrorReply(
                "Permission mode override over the control channel is tighten-only "
                f"('default', 'auto', or null); rejected {mode!r}"
            )
        name = raw.get("serverName")
        if mode is not None and name not in {s["name"] for s in self._mcp_servers()}:
            return {
                "warning": f"MCP server {name!r} is not yet known; override stored but will "
                "not apply until a server with that exact name connects."
            }
        return {}

    def _mcp_call(self, raw: _JSON) -> _JSON:
        """As the real CLI answers a tool it cannot reach: the fake connects no MCP server
        (script ``mcp_call`` with `on_request` to play one)."""
        tool = str(raw.get("tool", ""))
        parts = tool.split("__")
        if len(parts) < 3 or parts[0] != "mcp" or not parts[1] or not parts[2]:
            raise ErrorReply(f"Not a fully-qualified MCP tool name: {tool}")
        server = parts[1]
        if any(s["name"] == server and s["source"] == "sdk" for s in self._mcp_servers()):
            raise ErrorReply(
                "mcp_call does not support SDK MCP servers. SDK servers are caller-provided "
                f"\u2014 invoke {server} directly."
            )
        raise ErrorReply(f"MCP server not connected: {server}")

    def _register_repo_root(self, raw: _JSON) -> _JSON:
        """Lexical checks only: the fake's ``cwd`` need not exist."""
        given = str(raw.get("directory", ""))
        directory = posixpath.normpath(posixpath.join(self.cwd, given))
        cwd = posixpath.normpath(self.cwd)
        if not directory.startswith(cwd.rstrip("/") + "/"):
            raise ErrorReply(
                f"register_repo_root: {given} is not a subdirectory of the session's working "
                "directory or of a launch-time --add-dir root that still leads where it "
                "first did"
            )
        if directory in self.repo_roots:
            raise ErrorReply(
                f"register_repo_root: {directory} is already a registered working directory"
            )
        self.repo_roots.append(directory)
        return {"directory": directory}

    def _initialize_body(self, raw: _JSON) -> _JSON:
        body: _JSON = {
            "commands": [dict(c) for c in _COMMANDS],
            "agents": [dict(a) for a in _AGENTS],
            "output_style": "default",
            "available_output_styles": list(_OUTPUT_STYLES),
            "user_output_styles_dir": f"{self._home()}/.claude/output-styles",
            "models": [dict(m) for m in _MODELS],
            "account": {
                "tokenSource": "none",
                "apiKeySource": "ANTHROPIC_API_KEY",
                "apiProvider": "firstParty",
            },
            "pid": self.pid,
            "claude_code_version": self.version,
            "current_permission_mode": self.permission_mode,
        }
        if raw.get("hooks"):
            body["hooks_applied"] = True
        body.update(
            {
                "hook_on_failure_supported": True,
                "hooks_when_unanswered_kept": 0,
                "other_hook_ask_outranks_host": True,
                "feedback_mode": {"kind": "disabled"},
                "analytics_disabled": True,
                "remote_control_auto_enable": False,
                "remote_control_auto_connect_default": False,
                "remote_control_available": False,
                "remote_control_auto_on_by_default": False,
                "ide_rc_auto_enable_gate": False,
                "fast_mode_state": "off",
                "fast_mode_disabled_reason": "sdk_opt_in_required",
                "session_state": "idle",
                "capabilities": list(self.capabilities),
            }
        )
        return body

    def _context_usage_body(self) -> _JSON:
        categories = [
            {
                "id": "system_prompt",
                "name": "System prompt",
                "tokens": 7535,
                "color": "promptBorder",
                "kind": "used",
            },
            {
                "id": "system_tools",
                "name": "System tools",
                "tokens": 10265,
                "color": "inactive",
                "kind": "used",
            },
            {
                "id": "messages",
                "name": "Messages",
                "tokens": 25,
                "color": "purple_FOR_SUBAGENTS_ONLY",
                "kind": "used",
            },
            {
                "id": "free_space",
                "name": "Free space",
                "tokens": 182175,
                "color": "promptBorder",
                "kind": "free",
            },
        ]
        return {
            "categories": categories,
            "totalTokens": 17825,
            "maxTokens": 200000,
            "rawMaxTokens": 200000,
            "autocompactSource": "auto",
            "percentage": 9,
            "gridRows": [],
            "model": self.model,
            "memoryFiles": [],
            "mcpTools": [],
            "agents": [],
            "isAutoCompactEnabled": True,
            "apiUsage": None,
        }

    def _claim(self, raw: _JSON) -> _JSON:
        """``claim_session``, as CLI 2.1.330 to 2.1.332 answer it: a spare started with
        ``--await-claim`` moves to ``cwd`` (its session id kept); anything else is refused
        with the CLI's reason tokens, and the spare stays parked."""
        if not self.parked:
            raise ErrorReply(
                "not_a_spare: claim_session is only accepted by a process started with "
                "--await-claim that has not been claimed yet"
            )
        if self._prompt_id is not None or self.results:
            raise ErrorReply("turn_started: the spare already ran a turn and cannot be claimed")
        cwd = raw.get("cwd")
        if not isinstance(cwd, str) or not cwd:
            raise ErrorReply("invalid_request: cwd — must be a non-empty string")
        if not os.path.isabs(cwd) and not cwd.startswith("~"):
            raise ErrorReply("invalid_request: cwd — must be an absolute path (or ~/…)")
        path = os.path.expanduser(cwd)
        if not os.path.exists(path):
            raise ErrorReply("cwd_not_found: the claim cwd does not exist or is not accessible")
        if not os.path.isdir(path):
            raise ErrorReply("cwd_not_a_directory: the claim cwd is not a directory")
        env = raw.get("env") or {}
        for key in env:
            if key not in CLAIM_ENV_KEYS:
                raise ErrorReply(
                    f"env_key_not_claimable: {key} is read during start-up; pass it in the "
                    "spare's spawn env instead"
                )
        self.parked = False
        self.cwd = os.path.realpath(path)
        self.claims.append(dict(raw))
        mode = raw.get("permission_mode")
        if isinstance(mode, str):
            self.permission_mode = mode
        body: _JSON = {
            "status": "ok",
            "cwd": self.cwd,
            "session_id": self.session_id,
            "parked_ms": 1,
            "sdk_mcp_settled": True,
        }
        if raw.get("include_initialize"):
            body["initialize"] = self._initialize_body({})
        return body

    async def _answer_host_request(
        self, frame: ControlRequest, *, overrides: Mapping[str, Any] | None = None
    ) -> None:
        request_id = frame.request_id
        subtype = frame.subtype or "?"
        handler = self._handlers.get(subtype) or self.fake._handlers.get(subtype)
        if handler is None:
            try:
                body = self.default_answer(frame.request)
            except ErrorReply as exc:
                await self._reply_error(request_id, exc)
                return
            if subtype == "initialize" and body is not None and overrides:
                body.update(overrides)
            await self._reply(request_id, body, subtype=subtype)
            await self._default_effects(frame)
            return
        try:
            outcome = handler(frame.request)
        except ErrorReply as exc:
            await self._reply_error(request_id, exc)
            return
        except Exception as exc:
            await self._handler_failed(frame, exc)
            return
        if inspect.isawaitable(outcome):
            scope = anyio.CancelScope()
            self._inbound_scopes[request_id] = scope
            assert self._tg is not None
            self._tg.start_soon(self._finish_handler, frame, outcome, scope)
            return
        await self._send_handler_outcome(frame, outcome)

    async def _handler_failed(self, frame: ControlRequest, exc: Exception) -> None:
        """A handler that raises something else than `ErrorReply` is a test bug: record it,
        and answer like a CLI whose handler failed."""
        self.errors.append(exc)
        await self._reply_error(frame.request_id, ErrorReply(f"{type(exc).__name__}: {exc}"))

    async def _finish_handler(
        self, frame: ControlRequest, outcome: Awaitable[Any], scope: anyio.CancelScope
    ) -> None:
        with scope:
            try:
                result = await outcome
            except ErrorReply as exc:
                await self._reply_error(frame.request_id, exc)
                return
            except Exception as exc:
                await self._handler_failed(frame, exc)
                return
            finally:
                self._inbound_scopes.pop(frame.request_id, None)
            await self._send_handler_outcome(frame, result)

    async def _send_handler_outcome(self, frame: ControlRequest, outcome: Any) -> None:
        if outcome is NO_ANSWER:
            self.unanswered.append(frame.request_id)
            return
        if isinstance(outcome, WireModel):
            outcome = wire.to_dict(outcome)
        elif isinstance(outcome, Mapping):
            outcome = dict(outcome)
        elif outcome is not None:
            error = FakeCLIError(
                f"the {frame.subtype} handler returned {type(outcome).__name__}, not a dict, "
                "a wire model, None or NO_ANSWER"
            )
            await self._handler_failed(frame, error)
            return
        await self._reply(frame.request_id, outcome, subtype=frame.subtype)

    async def _reply(self, request_id: str, body: _JSON | None, *, subtype: str | None) -> None:
        response: _JSON = {"subtype": "success", "request_id": request_id}
        if body is not None:
            response["response"] = body
        if subtype == "initialize":
            response["pending_permission_requests"] = [
                p.frame for p in self._pending("can_use_tool")
            ]
            response["pending_user_dialog_requests"] = [
                p.frame for p in self._pending("request_user_dialog")
            ]
        await self._send_if_alive({"type": "control_response", "response": response})

    async def _reply_error(self, request_id: str, exc: ErrorReply) -> None:
        response: _JSON = {"subtype": "error", "request_id": request_id, "error": exc.message}
        if exc.code is not None:
            response["error_code"] = exc.code
        await self._send_if_alive({"type": "control_response", "response": response})

    async def _default_effects(self, frame: ControlRequest) -> None:
        """What the real CLI does after answering (state changes, notice frames)."""
        raw: _JSON = wire.to_dict(frame.request)
        subtype = raw.get("subtype")
        if subtype == "set_model":
            self.model = self.resolve_model(raw.get("model"))
        elif subtype == "set_permission_mode":
            self.permission_mode = str(raw["mode"])
            await self._send_if_alive(self._status_dict(None, permissionMode=self.permission_mode))
        elif subtype == "rename_session":
            await self._send_if_alive(
                {
                    "type": "system",
                    "subtype": "session_title_changed",
                    "title": raw.get("title"),
                    "session_id": self.session_id,
                    "uuid": _uuid(),
                }
            )

    async def _send_if_alive(self, frame: Mapping[str, Any]) -> None:
        if self.exited or self._hanging:
            return
        # The SDK may be tearing the connection down.
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self.send(frame)

    # ---------------------------------------------------------------------------------
    # the reader

    async def _read_loop(self) -> None:
        peer = self.peer
        try:
            while True:
                try:
                    line = await peer.read_line()
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    break
                if not line.strip():
                    continue
                try:
                    frame = wire.decode(line)
                except MessageDecodeError:
                    await self._fatal_input(line)
                    return
                self._record(frame, line)
                await self._route(frame)
        finally:
            self._stdin_eof = True
            self._notify()

    async def _fatal_input(self, line: bytes) -> None:
        """What CLI 2.1.330 does with a line that is not JSON: stderr, exit 1, nothing more."""
        self.bad_lines.append(line)
        n = len(line.decode("utf-8", "replace"))
        await self.exit(
            1, f"Error parsing streaming input line (type=unknown, {n} chars): SyntaxError\n"
        )
        assert self._tg is not None
        self._tg.cancel_scope.cancel()

    def _record(self, frame: Frame, line: bytes) -> None:
        record = Received(frame=frame, line=line, at=anyio.current_time(), connection=self.index)
        self.received.append(frame)
        self.log.append(record)
        self.fake.received.append(frame)
        self.fake.log.append(record)

    async def _route(self, frame: Frame) -> None:
        if isinstance(frame, UserMessage) and self.parked:
            # As the real CLI: a prompt to a spare not claimed yet is answered at once.
            self.prompts.append(frame)
            await self.result(
                subtype="error_during_execution",
                num_turns=0,
                errors=[
                    "not_claimed: this process was started with --await-claim and has not "
                    "been claimed; send claim_session before the first message"
                ],
                user_message_uuids=[frame.uuid] if isinstance(frame.uuid, str) else [],
            )
            return
        if isinstance(frame, UserMessage):
            self.prompts.append(frame)
            self._prompt_queue.append(frame)
            self._notify()
            if isinstance(frame.uuid, str):
                await self.lifecycle(frame.uuid, "queued")
        elif isinstance(frame, ControlResponse):
            self._on_answer(frame)
        elif isinstance(frame, ControlRequest):
            await self._on_host_request(frame)
        elif isinstance(frame, ControlCancelRequest):
            self.cancelled_by_sdk.append(frame.request_id)
            scope = self._inbound_scopes.pop(frame.request_id, None)
            if scope is not None:
                scope.cancel()
        elif isinstance(frame, UpdateEnvironmentVariables):
            if frame.request_id is not None:
                await self._reply(
                    frame.request_id, {"applied": sorted(frame.variables)}, subtype=None
                )
        elif isinstance(frame, KeepAlive):
            pass
        # Anything else (an unknown type) is ignored, as the real CLI ignores it.

    async def _on_host_request(self, frame: ControlRequest) -> None:
        subtype = frame.subtype
        if subtype == "initialize":
            if isinstance(frame.request, InitializeRequest):
                self.initialize = frame.request
                self.hook_ids = _hook_ids(frame.request.hooks)
            if not self._handshaken:
                self._parked_initialize = frame
                self._notify()
                return
        if self._hanging:
            return
        if subtype == "interrupt":
            # CLI 2.1.330 withdraws a pending permission request before it answers the
            # interrupt (e3); the script learns of both only afterwards, so a turn waiting
            # for that permission writes its aborted ending after the interrupt's response.
            if self.cancel_permissions_on_interrupt:
                for pending in self._pending("can_use_tool"):
                    pending.cancelled = True
                    await self._send_if_alive(
                        {"type": "control_cancel_request", "request_id": pending.request_id}
                    )
            await self._answer_host_request(frame)
            self.interrupt_count += 1
            self.interrupted.set()
            self._notify()
            return
        await self._answer_host_request(frame)

    def _on_answer(self, frame: ControlResponse) -> None:
        request_id = frame.request_id
        pending = self._outbound.get(request_id) if request_id is not None else None
        if pending is None or pending.response is not None:
            self.stray_answers.append(frame)
        elif pending.cancelled:
            self.answers_after_cancel.append(frame)
        else:
            pending.response = frame
            self._notify()

    def _pending(self, subtype: str) -> list[_Outbound]:
        return [
            p
            for p in self._outbound.values()
            if p.subtype == subtype and p.response is None and not p.cancelled
        ]

    # ---------------------------------------------------------------------------------
    # running a script

    async def _run(self, script: Script, auto_handshake: bool) -> None:
        try:
            await self._run_script(script, auto_handshake)
        except anyio.get_cancelled_exc_class():
            # Torn down while running (a hanging script): exit like a CLI killed by SIGTERM.
            # Exiting here also closes the peer's stdout stream, which MemoryTransport
            # leaves open when it cancels a peer (an unclosed stream warns when collected).
            with anyio.CancelScope(shield=True):
                if not self.exited:
                    await self.peer.exit(TERMINATED)
            raise

    async def _run_script(self, script: Script, auto_handshake: bool) -> None:
        failure: Exception | None = None
        async with anyio.create_task_group() as tg:
            self._tg = tg
            tg.start_soon(self._read_loop)
            try:
                try:
                    if auto_handshake:
                        await self.handshake()
                    await script(self)
                finally:
                    self.script_done.set()
                if not self.exited:
                    await self.serve_until_stdin_closes()
            except StdinClosedError:
                if not self.exited:
                    await self.exit(self._eof_exit_code())
            except Exception as exc:
                failure = exc
            finally:
                tg.cancel_scope.cancel()
        if failure is not None:
            self.errors.insert(0, failure)
            if not self.exited:
                await self.exit(1, f"{type(failure).__name__}: {failure}\n")

    # ---------------------------------------------------------------------------------
    # emitting

    async def send(self, frame: Frame | Mapping[str, Any]) -> None:
        """Write one frame (a typed frame or a dict of wire keys) as one line."""
        line = wire.dumps(dict(frame)) if isinstance(frame, Mapping) else wire.encode(frame)
        self.sent.append(line)
        await self.peer.send_line(line)

    async def send_raw(self, data: bytes) -> None:
        """Write raw bytes: garbage, partial lines, several lines at once."""
        await self.peer.write(data)

    async def keep_alive(self) -> None:
        """Write a ``keep_alive`` frame."""
        await self.send({"type": "keep_alive"})

    async def unknown_frame(self, type: str = "future_frame_kind", **fields: Any) -> None:
        """Write a frame of a kind no model knows (the SDK must tolerate it)."""
        await self.send({"type": type, "uuid": _uuid(), "session_id": self.session_id, **fields})

    async def rate_limit(self, status: str = "allowed_warning", **info: Any) -> None:
        """Write a ``rate_limit_event`` (``info`` keys as on the wire: ``resetsAt``, ...)."""
        await self.send(
            {
                "type": "rate_limit_event",
                "rate_limit_info": {"status": status, **info},
                "uuid": _uuid(),
                "session_id": self.session_id,
            }
        )

    async def subagent(
        self,
        description: str,
        prompt: str,
        text: str,
        *,
        subagent_type: str = "general-purpose",
        tool_use_id: str | None = None,
    ) -> str:
        """Play a subagent run inside the current turn; returns the Agent tool call's id.

        The main agent calls the ``Agent`` tool; ``system/task_started``; the subagent's own
        answer (an ``assistant`` frame whose ``parent_tool_use_id`` is that call);
        ``system/task_notification``; then the ``Agent`` tool's result for the main agent.
        """
        call_id = tool_use_id or f"toolu_fake_{_hex(10)}"
        task_id = f"a{_hex(8)}"
        agent_input = {"description": description, "prompt": prompt, "subagent_type": subagent_type}
        await self.assistant(tool_use=("Agent", agent_input, call_id))
        await self._task_frame(
            "task_started",
            task_id,
            tool_use_id=call_id,
            description=description,
            subagent_type=subagent_type,
            task_type="local_agent",
            prompt=prompt,
        )
        await self.assistant(text=text, parent_tool_use_id=call_id)
        await self._task_frame(
            "task_notification",
            task_id,
            tool_use_id=call_id,
            status="completed",
            output_file="",
            summary=text,
        )
        await self.user_tool_result(call_id, [{"type": "text", "text": text}])
        return call_id

    async def background_task(
        self,
        description: str,
        *,
        task_type: str = "local_bash",
        status: str = "completed",
        summary: str = "done",
    ) -> str:
        """Play a background task's life: started, progress, updated, notification."""
        task_id = f"b{_hex(8)}"
        await self._task_frame(
            "task_started",
            task_id,
            description=description,
            task_type=task_type,
            is_backgrounded=True,
        )
        await self._task_frame(
            "task_progress",
            task_id,
            description=description,
            usage={"total_tokens": 0, "tool_uses": 1, "duration_ms": 10},
        )
        await self._task_frame("task_updated", task_id, patch={"status": status})
        await self._task_frame(
            "task_notification", task_id, status=status, output_file="", summary=summary
        )
        return task_id

    async def own_turn(
        self,
        text: str = "The background task finished.",
        *,
        origin: Mapping[str, Any] | None = None,
        idle: bool = True,
        **result_fields: Any,
    ) -> ResultMessage:
        """Play a turn the CLI runs on its own, as CLI 2.1.330 does when a background task
        (a ``run_in_background`` Bash command, a background subagent) ends: ``running``,
        ``system/init``, the model's text, a ``result`` that names no prompt and carries
        ``origin`` (default ``{"kind": "task-notification", ...}``), then ``idle``.

        Prompts the script has taken and not answered yet stay for the next `result`.

        Args:
            text: the model's text and the result's ``result``.
            origin: the result's ``origin`` (an empty mapping: none).
            idle: write ``idle`` after the result.
            result_fields: wire keys for the ``result`` frame.
        """
        saved, self.answering = self.answering, []
        prompt_id, self._prompt_id = self._prompt_id, None
        try:
            await self.state("running")
            await self.system_init()
            await self.assistant(text)
            if origin is None:
                origin = {"kind": "task-notification", "producer": "session-task", "runId": _hex(8)}
            fields: dict[str, Any] = {"origin": dict(origin)} if origin else {}
            fields.update(result_fields)
            result = await self.result(text, **fields)
            if idle:
                await self.state("idle")
        finally:
            self.answering = saved + self.answering
            self._prompt_id = prompt_id
        return result

    async def compact(
        self, *, trigger: str = "manual", pre_tokens: int = 20000, summary: str = "Summary."
    ) -> None:
        """Play a compaction: ``status`` compacting, ``compact_boundary``, the synthetic
        summary user frame, and ``status`` back to null."""
        await self.status("compacting")
        await self.send(
            {
                "type": "system",
                "subtype": "compact_boundary",
                "compact_metadata": {
                    "trigger": trigger,
                    "pre_tokens": pre_tokens,
                    "post_tokens": pre_tokens // 10,
                    "duration_ms": 5,
                },
                "logical_parent_uuid": _uuid(),
                "session_id": self.session_id,
                "uuid": _uuid(),
            }
        )
        await self.user_note(summary, isSynthetic=True)
        await self.status(None, compact_result="success")

    async def _task_frame(self, subtype: str, task_id: str, **fields: Any) -> None:
        await self.send(
            {
                "type": "system",
                "subtype": subtype,
                "task_id": task_id,
                **fields,
                "session_id": self.session_id,
                "uuid": _uuid(),
            }
        )

    async def state(self, state: str) -> None:
        """Write ``system/session_state_changed`` (``running``, ``requires_action``, ``idle``)."""
        self.current_state = state
        await self.send(
            {
                "type": "system",
                "subtype": "session_state_changed",
                "state": state,
                "sdk_host_only": True,
                "uuid": _uuid(),
                "session_id": self.session_id,
            }
        )

    def _status_dict(self, status: str | None, **fields: Any) -> _JSON:
        return {
            "type": "system",
            "subtype": "status",
            "status": status,
            **fields,
            "uuid": _uuid(),
            "session_id": self.session_id,
        }

    async def status(self, status: str | None = "requesting", **fields: Any) -> None:
        """Write ``system/status`` (``requesting``, ``compacting``, or None with changes)."""
        await self.send(self._status_dict(status, **fields))

    def _mcp_servers(self) -> list[_JSON]:
        config = _flag(self.argv, "--mcp-config")
        if not config:
            return []
        try:
            servers = json.loads(config).get("mcpServers", {})
        except (ValueError, AttributeError):
            return []
        return [
            {
                "name": name,
                "status": "connected",
                "source": "sdk"
                if isinstance(cfg, dict) and cfg.get("type") == "sdk"
                else "dynamic",
            }
            for name, cfg in servers.items()
        ]

    async def system_init(self, **fields: Any) -> None:
        """Write ``system/init`` as CLI 2.1.330 does at the start of every turn.

        Args:
            fields: wire keys to add or replace (``model``, ``tools``, ``permissionMode``...).
        """
        tools = list(_TOOLS)
        if self.permission_prompt_stdio:
            tools.insert(1, "AskUserQuestion")
        frame: _JSON = {
            "type": "system",
            "subtype": "init",
            "cwd": self.cwd,
            "session_id": self.session_id,
            "tools": tools,
            "mcp_servers": self._mcp_servers(),
            "model": self.model,
            "permissionMode": self.permission_mode,
            "slash_commands": [c["name"] for c in _COMMANDS],
            "terminal_slash_commands": ["doctor", "color", "focus", "reload-plugins"],
            "apiKeySource": "ANTHROPIC_API_KEY",
            "claude_code_version": self.version,
            "output_style": "default",
            "agents": [a["name"] for a in _AGENTS],
            "skills": list(_SKILLS),
            "plugins": [dict(p) for p in _PLUGINS],
            "capabilities": list(_SYSTEM_CAPABILITIES),
            "analytics_disabled": True,
            "product_feedback_disabled": True,
            "served_by_anthropic": False,
            "uuid": _uuid(),
            "memory_paths": {"auto": f"{self._home()}/.claude/projects/{self._slug()}/memory/"},
            "original_cwd": self.cwd,
            "additional_directories": [],
            "messaging_socket_path": f"/tmp/cc-socks/{self.pid}.sock",
            "fast_mode_state": "off",
            "fast_mode_disabled_reason": "sdk_opt_in_required",
            "per_turn_effort_active": True,
            "ultrathink_available": False,
            "ultrathink_typed_raises": False,
            "view_mode": "default",
        }
        if self.answering and self.names_prompts:  # the first frame of a turn names them
            frame["user_message_uuids"] = list(self.answering)
            for prompt in self.answering:  # the turn takes them: started, before init
                if prompt not in self._started:
                    self._started.add(prompt)
                    await self.lifecycle(prompt, "started")
        frame.update(fields)
        await self.send(frame)

    def _inherited(self, name: str) -> str | None:
        # As the real CLI: the options' environment over the one it inherits.
        return self.env.get(name) or os.environ.get(name) or None

    def _home(self) -> str:
        return self._inherited("HOME") or "/home/fake"

    def _slug(self) -> str:
        return project_slug(self.cwd)  # the real CLI's project directory name

    def _transcript_path(self) -> str:
        config = self._inherited("CLAUDE_CONFIG_DIR") or f"{self._home()}/.claude"
        return f"{config}/projects/{self._slug()}/{self.session_id}.jsonl"

    @property
    def mirrors_transcript(self) -> bool:
        """The SDK asked for ``transcript_mirror`` frames (``--session-mirror``)."""
        return "--session-mirror" in self.spec.argv

    async def mirror(
        self, entries: Sequence[Mapping[str, Any]], *, subpath: str | None = None
    ) -> None:
        """Write a ``transcript_mirror`` frame: ``entries`` appended to the session's
        transcript (or to ``<session>/<subpath>.jsonl``), as the CLI does with
        ``--session-mirror``. `turn` does it by itself when the SDK asked for it."""
        path = self._transcript_path()
        if subpath is not None:
            path = f"{path[: -len('.jsonl')]}/{subpath}.jsonl"
        await self.send({"type": "transcript_mirror", "filePath": path, "entries": list(entries)})

    async def _mirror_turn(self, prompt: str, text: str | None) -> None:
        """The transcript lines of a turn: the prompt (with its uuid, as the real CLI keeps
        it) and the final answer (none for a turn cut short)."""
        sent = self.prompts[-1].uuid if self.prompts else None
        user = sent if isinstance(sent, str) and sent else _uuid()
        base = {"sessionId": self.session_id, "cwd": self.cwd, "isSidechain": False}
        line = {
            **base,
            "type": "user",
            "uuid": user,
            "parentUuid": self._mirror_leaf,
            "timestamp": _now_iso(),
            "message": {"role": "user", "content": prompt},
        }
        if text is None:
            await self.mirror([line])
            self._mirror_leaf = user
            return
        await self.mirror(
            [
                line,
                {
                    **base,
                    "type": "assistant",
                    "uuid": (answer := _uuid()),
                    "parentUuid": user,
                    "timestamp": _now_iso(),
                    "message": {
                        "id": f"msg_fake_{answer[:8]}",
                        "role": "assistant",
                        "type": "message",
                        "model": self.resolve_model(None),
                        "content": [{"type": "text", "text": text}],
                        "stop_reason": "end_turn",
                        "stop_sequence": None,
                        "usage": {"input_tokens": 10, "output_tokens": 5},
                    },
                },
            ]
        )
        self._mirror_leaf = answer

    def _blocks(
        self,
        text: str | None,
        thinking: str | None,
        tool_use: Any,
    ) -> list[_JSON]:
        blocks: list[_JSON] = []
        if thinking is not None:
            blocks.append(
                {"type": "thinking", "thinking": thinking, "signature": f"fake-signature-{_hex(8)}"}
            )
        if text is not None:
            blocks.append({"type": "text", "text": text})
        if tool_use is not None:
            calls = [tool_use] if tool_use and isinstance(tool_use[0], str) else list(tool_use)
            for call in calls:
                name, tool_input, *rest = call
                tool_id = rest[0] if rest else f"toolu_fake_{_hex(10)}"
                blocks.append(
                    {"type": "tool_use", "id": tool_id, "name": name, "input": dict(tool_input)}
                )
        return blocks

    def _assistant_dict(
        self, block: _JSON, message_id: str, model: str, fields: Mapping[str, Any]
    ) -> _JSON:
        frame: _JSON = {
            "type": "assistant",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [block],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 2561,
                    "output_tokens": 1,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                },
                "context_management": None,
            },
            "parent_tool_use_id": None,
            "session_id": self.session_id,
            "uuid": _uuid(),
            "timestamp": _now_iso(),
            "request_id": f"req_fake_{_hex(8)}",
        }
        if block["type"] == "thinking":
            frame["thinking_duration_ms"] = 1
            frame["thinking_display"] = "updates"
        frame.update(fields)
        return frame

    async def assistant(
        self,
        text: str | None = None,
        *,
        thinking: str | None = None,
        tool_use: Any = None,
        message_id: str | None = None,
        model: str | None = None,
        **fields: Any,
    ) -> list[AssistantMessage]:
        """Write one model response: one ``assistant`` frame per block, one ``message.id``.

        Blocks come in the API's order: thinking, text, tool calls.

        Args:
            text: a text block.
            thinking: a thinking block.
            tool_use: ``(name, input)`` or ``(name, input, id)``, or a list of them
                (parallel calls).
            message_id: the API message id (a fresh ``msg_fake_...`` by default).
            model: the model (the session's by default).
            fields: envelope keys to add to every frame (``aborted=True``,
                ``parent_tool_use_id=...``).

        Returns:
            The frames written.
        """
        blocks = self._blocks(text, thinking, tool_use)
        mid = message_id or f"msg_fake_{_hex(10)}"
        out: list[AssistantMessage] = []
        for block in blocks:
            frame = self._assistant_dict(block, mid, model or self.model, fields)
            await self.send(frame)
            out.append(wire.from_dict(frame))
        return out

    async def user_tool_result(
        self,
        tool_use_id: str,
        content: Any,
        is_error: bool = False,
        *,
        tool_use_result: Any = None,
        tool_result_meta: list[_JSON] | None = None,
        **fields: Any,
    ) -> None:
        """Write the ``user`` frame carrying a tool's result.

        Args:
            tool_use_id: the call it answers.
            content: a string or an MCP content array.
            is_error: the tool failed (or was refused).
            tool_use_result: the structured result (default: ``content``, or
                ``"Error: <content>"`` for an error).
            tool_result_meta: the ``tool_result_meta`` list (default: a plain entry).
            fields: envelope keys to add or replace.
        """
        if tool_use_result is None:
            tool_use_result = f"Error: {content}" if is_error else content
        frame: _JSON = {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "tool_use_id": tool_use_id,
                        "type": "tool_result",
                        "content": content,
                        "is_error": is_error,
                    }
                ],
            },
            "parent_tool_use_id": None,
            "session_id": self.session_id,
            "uuid": _uuid(),
            "timestamp": _now_iso(),
            "tool_use_result": tool_use_result,
            "tool_result_meta": tool_result_meta
            if tool_result_meta is not None
            else [{"id": tool_use_id}],
        }
        frame.update(fields)
        await self.send(frame)

    async def user_note(self, text: str, **fields: Any) -> None:
        """Write a synthetic user text frame (``"[Request interrupted by user]"``)."""
        frame: _JSON = {
            "type": "user",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": None,
            "session_id": self.session_id,
            "uuid": _uuid(),
            "timestamp": _now_iso(),
        }
        frame.update(fields)
        await self.send(frame)

    async def result(
        self,
        text: str = "",
        *,
        subtype: str = "success",
        is_error: bool | None = None,
        **fields: Any,
    ) -> ResultMessage:
        """Write a ``result`` frame shaped like CLI 2.1.330's.

        As the CLI does, it names the prompts the script took (`next_prompt`) since the last
        result (``user_message_uuid``, ``user_message_uuids``) and writes their
        ``command_lifecycle`` ``completed`` after it. Pass ``user_message_uuids`` to choose
        what it names (``[]``: none), or an ``origin`` whose ``kind`` is not ``"human"``
        for a turn of the CLI's own (it names none; the prompts taken wait for a later
        result; see `own_turn`).

        Args:
            text: the final text (``result``; error subtypes carry ``errors`` instead).
            subtype: ``success`` or an ``error_*`` subtype.
            is_error: defaults to ``subtype != "success"`` (an API error is ``success``
                with ``is_error=True``: pass it).
            fields: wire keys to add or replace (``num_turns``, ``total_cost_usd``,
                ``permission_denials``, ``terminal_reason``, ``usage``...).

        Returns:
            The result written.
        """
        error = subtype != "success" if is_error is None else is_error
        input_tokens, output_tokens = 2561, max(1, (len(text) + 3) // 4)
        cost = round(input_tokens * _PRICE_PER_TOKEN[0] + output_tokens * _PRICE_PER_TOKEN[1], 6)
        self._cost = round(self._cost + cost, 6)
        turn_usage = {
            "inputTokens": input_tokens,
            "outputTokens": output_tokens,
            "cacheReadInputTokens": 0,
            "cacheCreationInputTokens": 0,
            "webSearchRequests": 0,
            "costUSD": cost,
            "contextWindow": 1000000,
            "maxOutputTokens": 128000,
            "thinkingTokens": 0,
            "cacheCreationEphemeral5mInputTokens": 0,
            "cacheCreationEphemeral1hInputTokens": 0,
            "canonicalModel": self.model,
            "provider": "firstParty",
            "costBasis": "list",
        }
        total = self._model_usage.setdefault(
            self.model, {**turn_usage, "inputTokens": 0, "outputTokens": 0, "costUSD": 0.0}
        )
        total["inputTokens"] += input_tokens
        total["outputTokens"] += output_tokens
        total["costUSD"] = round(total["costUSD"] + cost, 6)
        frame: _JSON = {
            "type": "result",
            "subtype": subtype,
            "is_error": error,
            "duration_ms": 75,
            "duration_api_ms": 16,
            "num_turns": 1,
            "stop_reason": "end_turn" if subtype == "success" else None,
            "session_id": self.session_id,
            "total_cost_usd": self._cost,
            "usage": {
                "input_tokens": input_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": output_tokens,
                "output_tokens_details": {"thinking_tokens": 0},
                "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
                "service_tier": "standard",
                "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
                "inference_geo": "",
                "iterations": [],
                "speed": "standard",
                "fallback_credit": None,
            },
            "modelUsage": {m: dict(u) for m, u in self._model_usage.items()},
            "permission_denials": [],
            "terminal_reason": "completed"
            if subtype == "success"
            else _ERROR_TERMINAL_REASONS.get(subtype, "completed"),
            "fast_mode_state": "off",
            "fast_mode_disabled_reason": "sdk_opt_in_required",
            "subagent_stats": copy.deepcopy(_SUBAGENT_STATS),
            "safety_stops": 0,
            "uuid": _uuid(),
            "queued_turn_count": 0,
            "result_index": len(self.results),
            "model_usage_since_last_result": {self.model: turn_usage},
        }
        origin = fields.get("origin")
        if isinstance(origin, dict) and origin.get("kind") not in (None, "human"):
            # A turn of the CLI's own (a task notification): it names no prompt, and the
            # prompts taken wait for a later result.
            answered = []
        elif "user_message_uuids" in fields or "user_message_uuid" in fields:
            # The script says what the result names: the prompts taken that it names are
            # answered; the others wait for a later result.
            named = fields.get("user_message_uuids")
            named = list(named) if isinstance(named, list) else [fields.get("user_message_uuid")]
            answered = [u for u in self.answering if u in named]
            self.answering = [u for u in self.answering if u not in named]
        else:
            answered = self.answering if self.names_prompts else []
            self.answering = []
            if answered:
                # As CLI 2.1.330: a turn that answers prompts names them (all the prompts it
                # took, when it took several queued ones at once); a turn of its own does not.
                frame["user_message_uuid"] = answered[0]
                frame["user_message_uuids"] = list(answered)
        if subtype == "success":
            frame.update(
                {
                    "result": text,
                    "api_error_status": None,
                    "ttft_ms": 68,
                    "ttft_stream_ms": 67,
                    "time_to_request_ms": 58,
                    "first_content_frame_ms": 67,
                }
            )
        else:
            frame["errors"] = [
                "[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null"
            ]
        frame.update(fields)
        await self.send(frame)
        result: ResultMessage = wire.from_dict(frame)
        self.results.append(result)
        self._prompt_id = None  # the turn is over
        for prompt in answered:
            await self.lifecycle(prompt, "cancelled" if error else "completed")
        return result

    async def stream_events(
        self,
        text: str | None = None,
        *,
        thinking: str | None = None,
        tool_use: Any = None,
        message_id: str | None = None,
        stop_reason: str | None = None,
        with_assistant: bool = False,
    ) -> list[AssistantMessage]:
        """Write the ``stream_event`` frames of one streamed model response.

        ``message_start``, per block ``content_block_start`` / deltas /
        ``content_block_stop``, then ``message_delta`` and ``message_stop``. With
        ``with_assistant`` the complete ``assistant`` frame of each block goes just before
        its ``content_block_stop``, as the CLI interleaves them.

        Returns:
            The assistant frames written (none without ``with_assistant``).
        """
        mid = message_id or f"msg_fake_{_hex(10)}"
        blocks = self._blocks(text, thinking, tool_use)
        if stop_reason is None:
            stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        envelope: _JSON = {"session_id": self.session_id, "parent_tool_use_id": None}

        async def event(ev: _JSON, **extra: Any) -> None:
            await self.send(
                {
                    "type": "stream_event",
                    "event": ev,
                    **envelope,
                    "uuid": _uuid(),
                    **extra,
                    "api_message_id": mid,
                }
            )

        usage = {
            "input_tokens": 2561,
            "output_tokens": 1,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        start_message: _JSON = {
            "id": mid,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        await event(
            {"type": "message_start", "message": start_message},
            ttft_ms=10,
            thinking_display="updates",
        )
        out: list[AssistantMessage] = []
        for index, block in enumerate(blocks):
            kind = block["type"]
            if kind == "text":
                empty: _JSON = {"type": "text", "text": ""}
                deltas = [{"type": "text_delta", "text": c} for c in _chunks(block["text"])]
            elif kind == "thinking":
                empty = {"type": "thinking", "thinking": "", "signature": ""}
                deltas = [
                    {"type": "thinking_delta", "thinking": c} for c in _chunks(block["thinking"])
                ]
                deltas.append({"type": "signature_delta", "signature": block["signature"]})
            else:
                empty = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                deltas = [
                    {"type": "input_json_delta", "partial_json": c}
                    for c in _chunks(json.dumps(block["input"]), 16)
                ]
            await event({"type": "content_block_start", "index": index, "content_block": empty})
            for delta in deltas:
                await event({"type": "content_block_delta", "index": index, "delta": delta})
            if with_assistant:
                frame = self._assistant_dict(block, mid, self.model, {})
                await self.send(frame)
                out.append(wire.from_dict(frame))
            await event({"type": "content_block_stop", "index": index})
        output_tokens = max(1, sum(len(json.dumps(b)) for b in blocks) // 4)
        await event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            }
        )
        await event({"type": "message_stop"})
        return out

    async def _model_message(
        self, *, text: str | None, thinking: str | None, tool_use: Any, stream: bool
    ) -> None:
        if thinking is not None:
            n = max(1, len(thinking) // 4)
            await self.send(
                {
                    "type": "system",
                    "subtype": "thinking_tokens",
                    "estimated_tokens": n,
                    "estimated_tokens_delta": n,
                    "session_id": self.session_id,
                    "uuid": _uuid(),
                }
            )
        if stream:
            await self.status("requesting")
            await self.stream_events(
                text, thinking=thinking, tool_use=tool_use, with_assistant=True
            )
        else:
            await self.assistant(text, thinking=thinking, tool_use=tool_use)

    async def turn(
        self,
        text: str = "Done.",
        *,
        tools: Sequence[ToolSpec] = (),
        thinking: str | None = None,
        stream: bool | None = None,
        hooks: bool = True,
        timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109
        **result_fields: Any,
    ) -> ResultMessage:
        """Play one whole turn in CLI 2.1.330's order, ending ``idle``.

        ``running`` -> UserPromptSubmit hooks -> ``system/init`` -> [the tool round:
        assistant tool calls; per call PreToolUse hooks, ``requires_action`` +
        ``can_use_tool`` + ``running``, PostToolUse hooks, the tool result] -> the final
        assistant text -> Stop hooks -> ``result`` -> ``idle``.

        Hooks are called only for events and matchers the SDK registered. A PreToolUse
        ``allow`` skips the permission request, ``deny`` refuses the call. A refused call
        gets an error tool result and a ``permission_denials`` entry, with the texts the real
        CLI uses. If an interrupt withdraws a pending ``can_use_tool``, or the SDK denies it
        with ``interrupt``, the turn ends as an aborted one (``error_during_execution``,
        ``terminal_reason: aborted_tools``), as the real CLI ends it.

        Args:
            text: the final assistant text (and the result's ``result``).
            tools: `ToolCall` values or ``(name, input[, output])`` tuples, called in
                parallel in one model response.
            thinking: a thinking block before the first response.
            stream: write ``stream_event`` frames; None streams when the SDK asked for
                partial messages.
            hooks: call the SDK's registered hooks.
            timeout: seconds each hook or permission answer may take.
            result_fields: wire keys for the ``result`` frame.

        Returns:
            The result written.
        """
        stream = self.partial_messages if stream is None else stream
        prompt = self.prompts[-1].text if self.prompts else ""
        if self._prompt_id is None:
            self._prompt_id = _uuid()
        await self.state("running")
        if hooks:
            await self._run_hooks("UserPromptSubmit", {"prompt": prompt}, timeout=timeout)
        await self.system_init()
        ctx = _TurnContext()
        calls = [_normalize_tool(t) for t in tools]
        if calls:
            await self._model_message(
                text=None,
                thinking=thinking,
                tool_use=[(c.name, c.input, c.id) for c in calls],
                stream=stream,
            )
            thinking = None
            for call in calls:
                await self._run_tool(call, ctx, hooks=hooks, timeout=timeout)
                if ctx.aborted:
                    return await self._aborted_tools(call, ctx)
        await self._model_message(text=text, thinking=thinking, tool_use=None, stream=stream)
        if hooks:
            await self._run_hooks(
                "Stop",
                {
                    "stop_hook_active": False,
                    "last_assistant_message": text,
                    "background_tasks": [],
                    "session_crons": [],
                },
                timeout=timeout,
            )
        fields: _JSON = {"num_turns": 2 if calls else 1, "permission_denials": ctx.denials}
        fields.update(result_fields)
        if self.mirror_turns and self.mirrors_transcript:
            await self._mirror_turn(prompt, text)
        result = await self.result(text, **fields)
        await self.state("idle")
        self._prompt_id = None
        return result

    async def _run_tool(
        self,
        call: ToolCall,
        ctx: _TurnContext,
        *,
        hooks: bool,
        timeout: float | None,  # noqa: ASYNC109
    ) -> None:
        assert call.id is not None
        tool_input = dict(call.input)
        decision: str | None = None
        reason = ""
        if hooks:
            for out, matcher in await self._run_hooks(
                "PreToolUse",
                {"tool_name": call.name, "tool_input": tool_input, "tool_use_id": call.id},
                target=call.name,
                tool_use_id=call.id,
                timeout=timeout,
            ):
                if isinstance(out, ControlError):
                    if matcher.on_failure == "block":
                        decision, reason = "deny", out.error
                    continue
                specific = out.get("hookSpecificOutput") or {}
                if isinstance(specific.get("updatedInput"), dict):
                    tool_input = dict(specific["updatedInput"])
                verdict = specific.get("permissionDecision")
                if verdict == "deny":
                    decision = "deny"
                    reason = str(specific.get("permissionDecisionReason") or "")
                    break
                if verdict in ("allow", "ask") and decision is None:
                    decision = verdict
        denial = {"tool_name": call.name, "tool_use_id": call.id, "tool_input": tool_input}
        if decision == "deny":
            hook = {"decision": "reject", "source": "hook", "reason_type": "hook"}
            message = f"PreToolUse:{call.name} hook error: {reason}"
            await self._refuse(call, ctx, tool_input, message, "permission-rule", hook)
            return
        meta: _JSON = {"decision": "accept", "source": "config"}
        if decision == "allow":
            meta = {"decision": "accept", "source": "hook", "reason_type": "hook"}
        granted = decision == "allow" or self._allowed_by_rule(call.name)
        ask = call.ask if call.ask is not None else self.permission_prompt_stdio and not granted
        if (
            call.ask is None
            and not ask
            and not granted
            and self.in_process_tool(call.name) is not None
            and self.permission_mode in ("default", "plan", "dontAsk")
        ):
            await self._never_granted(call, tool_input, ctx)
            return
        if decision != "allow" and ask:
            await self.state("requires_action")
            try:
                reply = await self.can_use_tool(
                    call.name, tool_input, tool_use_id=call.id, timeout=timeout
                )
            except RequestCancelledError:
                ctx.denials.append(denial)
                ctx.aborted = True
                return
            await self.state("running")
            refusal: str | None = None
            if isinstance(reply, ControlError):
                refusal = f"Tool permission request failed: Error: {reply.error}"
                reject: _JSON = {"decision": "reject", "source": "config", "reason_type": "other"}
            elif isinstance(reply, PermissionDeny):
                if reply.interrupt:  # the real CLI ends the turn (aborted_tools)
                    ctx.denials.append(denial)
                    ctx.aborted = True
                    return
                refusal = reply.message
                reject = {"decision": "reject", "source": "user_reject"}
            if refusal is not None:
                await self._refuse(call, ctx, tool_input, refusal, "permission-rule", reject)
                return
            assert isinstance(reply, PermissionAllow)
            if reply.updated_input is not None:
                tool_input = dict(reply.updated_input)
            meta = {"decision": "accept", "source": "user_temporary"}
        output, is_error = call.output, call.is_error
        if output is None:
            output = ""
            if self.in_process_tool(call.name) is not None:
                ran = await self.call_tool(
                    call.name, tool_input, tool_use_id=call.id, timeout=timeout
                )
                output, is_error = ran.get("content", []), bool(ran.get("isError"))
        call = attrs.evolve(call, output=output, is_error=is_error)
        assert call.id is not None
        response = call.tool_use_result if call.tool_use_result is not None else call.output
        if hooks:
            if call.is_error:
                event, extra = "PostToolUseFailure", {"error": str(call.output)}
            else:
                event, extra = "PostToolUse", {"tool_response": response}
            await self._run_hooks(
                event,
                {"tool_name": call.name, "tool_input": tool_input, **extra, "tool_use_id": call.id},
                target=call.name,
                tool_use_id=call.id,
                timeout=timeout,
            )
        await self.user_tool_result(
            call.id,
            call.output,
            is_error=call.is_error,
            tool_use_result=call.tool_use_result,
            tool_result_meta=[{"id": call.id, "permission_decision": meta}],
        )

    def _allowed_by_rule(self, tool: str) -> bool:
        """An ``--allowedTools`` rule allows ``tool`` outright: its name, or for an MCP tool
        its server's rule ``mcp__<server>`` (the rules the fake models; others ask)."""
        rules = [r.strip() for r in (_flag(self.argv, "--allowedTools") or "").split(",")]
        if tool in rules or f"{tool}(*)" in rules:
            return True
        parts = tool.split("__")
        return len(parts) >= 3 and parts[0] == "mcp" and f"mcp__{parts[1]}" in rules

    async def _refuse(
        self,
        call: ToolCall,
        ctx: _TurnContext,
        tool_input: _JSON,
        text: str,
        kind: str,
        decision: _JSON,
    ) -> None:
        """Refuse ``call``: its error result (``text``), a denial in the turn's result."""
        assert call.id is not None
        ctx.denials.append(
            {"tool_name": call.name, "tool_use_id": call.id, "tool_input": tool_input}
        )
        await self.user_tool_result(
            call.id,
            text,
            is_error=True,
            tool_result_meta=[
                {"id": call.id, "non_execution_kind": kind, "permission_decision": decision}
            ],
        )

    async def _never_granted(self, call: ToolCall, tool_input: _JSON, ctx: _TurnContext) -> None:
        """Refuse ``call`` as CLI 2.1.332 refuses a tool no rule allows and nothing can be
        asked about: ``system/permission_denied``, an error result, a denial in the result."""
        text = f"Claude requested permissions to use {call.name}, but you haven't granted it yet."
        await self.send(
            {
                "type": "system",
                "subtype": "permission_denied",
                "tool_name": call.name,
                "tool_use_id": call.id,
                "message": text,
                "session_id": self.session_id,
                "uuid": _uuid(),
            }
        )
        config = {"decision": "reject", "source": "config"}
        await self._refuse(call, ctx, tool_input, text, "user-rejected", config)

    def in_process_tool(self, name: str) -> tuple[str, str] | None:
        """(server, tool) when ``name`` (``mcp__<server>__<tool>``) is a tool of an
        in-process server the SDK serves on this connection; else None."""
        for server in self._mcp_servers():
            if server["source"] != "sdk":
                continue
            prefix = "mcp__" + re.sub(r"[^a-zA-Z0-9_-]", "_", server["name"]) + "__"
            if name.startswith(prefix) and len(name) > len(prefix):
                return server["name"], name[len(prefix) :]
        return None

    async def _mcp_request(
        self,
        server: str,
        method: str,
        params: _JSON,
        timeout: float | None,  # noqa: ASYNC109
    ) -> _JSON:
        """One JSON-RPC request to the SDK's in-process ``server``; its ``result``."""
        self._mcp_ids[server] = request_id = self._mcp_ids.get(server, -1) + 1
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        answer = await self.mcp_message(server, message, timeout=timeout)
        if isinstance(answer, ControlError):
            raise FakeCLIError(f"the SDK refused {method} for server {server!r}: {answer.error}")
        response = answer.get("mcp_response")
        if not isinstance(response, dict) or not isinstance(response.get("result"), dict):
            raise FakeCLIError(f"server {server!r} answered {method} with {response!r}")
        result: _JSON = response["result"]
        return result

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        tool_use_id: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109
    ) -> _JSON:
        """Call a tool of an in-process server the SDK serves, as the CLI does: through
        ``mcp_message`` control requests to the session, which runs the server and the
        tool's function (``initialize`` and ``notifications/initialized`` first, once per
        server and connection, then ``tools/call``).

        Args:
            name: the tool as the model names it, ``mcp__<server>__<tool>``.
            arguments: the tool's arguments.
            tool_use_id: the call's tool-use id (``_meta["claudecode/toolUseId"]``).
            timeout: seconds each answer may take.

        Returns:
            The MCP ``CallToolResult`` (``content``, ``isError``, ``structuredContent``),
            also kept in `tool_results` under the tool-use id.

        Raises:
            FakeCLIError: ``name`` is not a tool of an in-process server of this session,
                or the session did not answer as an MCP server does.
        """
        found = self.in_process_tool(name)
        if found is None:
            servers = [s["name"] for s in self._mcp_servers() if s["source"] == "sdk"]
            raise FakeCLIError(
                f"{name!r} is not a tool of an in-process server of this session "
                f"(its in-process servers: {servers or 'none'}; a tool is named "
                "mcp__<server>__<tool>)"
            )
        server, tool = found
        if server not in self._mcp_connected:
            await self._mcp_request(
                server,
                "initialize",
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"roots": {}, "elicitation": {}},
                    "clientInfo": {"name": "claude-code", "version": self.version},
                },
                timeout,
            )
            await self.mcp_message(
                server, {"jsonrpc": "2.0", "method": "notifications/initialized"}, timeout=timeout
            )
            self._mcp_connected.add(server)
        use_id = tool_use_id or f"toolu_fake_{_hex(10)}"
        params: _JSON = {
            "name": tool,
            "arguments": dict(arguments or {}),
            "_meta": {
                "claudecode/toolUseId": use_id,
                "progressToken": self._mcp_ids.get(server, 0) + 1,
            },
        }
        result = await self._mcp_request(server, "tools/call", params, timeout)
        self.tool_results[use_id] = result
        return result

    async def _aborted_tools(self, call: ToolCall, ctx: _TurnContext) -> ResultMessage:
        """The end of a turn whose permission request an interrupt withdrew (e3), or the SDK
        denied with ``interrupt``."""
        assert call.id is not None
        if self.mirror_turns and self.mirrors_transcript:
            await self._mirror_turn(self.prompts[-1].text if self.prompts else "", None)
        await self.state("running")
        await self.user_tool_result(
            call.id,
            _REJECTED_TOOL_TEXT,
            is_error=True,
            tool_use_result="User rejected tool use",
            tool_result_meta=[{"id": call.id, "non_execution_kind": "user-rejected"}],
        )
        await self.user_note("[Request interrupted by user for tool use]")
        result = await self.result(
            subtype="error_during_execution",
            num_turns=1,
            stop_reason="tool_use",
            terminal_reason="aborted_tools",
            permission_denials=ctx.denials,
            errors=["[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=tool_use"],
        )
        await self.state("idle")
        self._prompt_id = None
        return result

    async def abort_turn(self, partial_text: str | None = None) -> ResultMessage:
        """End a turn the SDK interrupted while the model was answering (e1).

        Writes the partial text as an ``aborted`` assistant frame (when given),
        ``[Request interrupted by user]``, an ``error_during_execution`` result
        (``terminal_reason: aborted_streaming``) and ``idle``.
        """
        if partial_text is not None:
            await self.assistant(partial_text, aborted=True)
        await self.user_note("[Request interrupted by user]")
        result = await self.result(subtype="error_during_execution", num_turns=1)
        await self.state("idle")
        self._prompt_id = None
        return result

    async def _run_hooks(
        self,
        event: str,
        fields: Mapping[str, Any],
        *,
        target: str | None = None,
        tool_use_id: str | None = None,
        timeout: float | None,  # noqa: ASYNC109
    ) -> list[tuple[Any, HookMatcherConfig]]:
        """Call every registered callback of ``event`` whose matcher matches, in parallel."""
        hooks = self.initialize.hooks if self.initialize is not None else None
        started: list[tuple[str, HookMatcherConfig]] = []
        for matcher in (hooks or {}).get(event, []):
            if target is not None and not _matches(matcher.matcher, target):
                continue
            for callback_id in matcher.hook_callback_ids:
                rid = await self.start_hook_callback(
                    callback_id, dict(fields), tool_use_id=tool_use_id
                )
                started.append((rid, matcher))
        return [(await self.answer(rid, timeout=timeout), m) for rid, m in started]

    # ---------------------------------------------------------------------------------
    # asking the SDK

    async def start_request(self, subtype: str, **fields: Any) -> str:
        """Send a CLI -> host control request; returns its id (await it with `answer`)."""
        request_id = _uuid()
        frame: _JSON = {
            "type": "control_request",
            "request_id": request_id,
            "request": {"subtype": subtype, **fields},
        }
        self._outbound[request_id] = _Outbound(request_id=request_id, subtype=subtype, frame=frame)
        await self.send(frame)
        return request_id

    async def request(
        self,
        subtype: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109
        **fields: Any,
    ) -> Any:
        """Send a CLI -> host control request and wait for its answer (see `answer`)."""
        return await self.answer(await self.start_request(subtype, **fields), timeout=timeout)

    async def start_can_use_tool(
        self,
        tool_name: str,
        input: Mapping[str, Any],
        *,
        tool_use_id: str | None = None,
        suggestions: Sequence[Any] | None = None,
        **fields: Any,
    ) -> str:
        """Send ``can_use_tool`` as CLI 2.1.330 does; returns its request id.

        Args:
            tool_name: the tool.
            input: its input.
            tool_use_id: the call's id (a fresh ``toolu_fake_...`` by default).
            suggestions: ``permission_suggestions`` (`PermissionUpdate` values or dicts);
                None sends a realistic "always allow" rule for the tool.
            fields: other request keys (``blocked_path``, ``decision_reason``, ...).
        """
        if suggestions is None:
            rule: _JSON = {"toolName": tool_name}
            if isinstance(input.get("command"), str):
                rule["ruleContent"] = input["command"]
            wire_suggestions: list[Any] = [
                {
                    "type": "addRules",
                    "rules": [rule],
                    "behavior": "allow",
                    "destination": "localSettings",
                }
            ]
        else:
            wire_suggestions = [
                wire.to_dict(s) if isinstance(s, WireModel) else dict(s) for s in suggestions
            ]
        request: _JSON = {"tool_name": tool_name, "display_name": tool_name, "input": dict(input)}
        if isinstance(input.get("description"), str):
            request["description"] = input["description"]
        request["permission_suggestions"] = wire_suggestions
        request["tool_use_id"] = tool_use_id or f"toolu_fake_{_hex(10)}"
        request.update(fields)
        return await self.start_request("can_use_tool", **request)

    async def can_use_tool(
        self,
        tool_name: str,
        input: Mapping[str, Any],
        *,
        tool_use_id: str | None = None,
        suggestions: Sequence[Any] | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109
        **fields: Any,
    ) -> PermissionReply:
        """Ask the SDK whether a tool may run; returns its decoded answer.

        Returns:
            `PermissionAllow` / `PermissionDeny`, or the `ControlError` the SDK answered.

        Raises:
            AnswerTimeoutError: no answer within ``timeout`` seconds.
            RequestCancelledError: the request was cancelled (by `cancel_request` or an interrupt).
            StdinClosedError: the SDK closed stdin without answering.
            InvalidAnswerError: the answer is not a `PermissionResult`.
        """
        rid = await self.start_can_use_tool(
            tool_name, input, tool_use_id=tool_use_id, suggestions=suggestions, **fields
        )
        reply: PermissionReply = await self.answer(rid, timeout=timeout)
        return reply

    async def start_hook_callback(
        self, callback_id: str, hook_input: Mapping[str, Any], *, tool_use_id: str | None = None
    ) -> str:
        """Send ``hook_callback``; returns its request id.

        The input gets the base fields the real CLI sends when they are missing
        (``session_id``, ``transcript_path``, ``cwd``, ``prompt_id``, ``permission_mode``,
        ``effort`` on tool and Stop events) and ``hook_event_name`` from the event the
        callback id was registered for.
        """
        event = hook_input.get("hook_event_name") or next(
            (e for e, ids in self.hook_ids.items() if callback_id in ids), None
        )
        full: _JSON = {
            "session_id": self.session_id,
            "transcript_path": self._transcript_path(),
            "cwd": self.cwd,
        }
        if self._prompt_id is not None:
            full["prompt_id"] = self._prompt_id
        full["permission_mode"] = self.permission_mode
        if event in _TOOL_EVENTS:
            full["effort"] = {"level": "medium"}
        if event is not None:
            full["hook_event_name"] = event
        full.update(hook_input)
        if tool_use_id is None:
            found = full.get("tool_use_id")
            tool_use_id = found if isinstance(found, str) else _uuid()
        return await self.start_request(
            "hook_callback", callback_id=callback_id, input=full, tool_use_id=tool_use_id
        )

    async def hook_callback(
        self,
        callback_id: str,
        hook_input: Mapping[str, Any],
        tool_use_id: str | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109
    ) -> _JSON | ControlError:
        """Call a hook the SDK registered; returns its raw output dict or `ControlError`."""
        rid = await self.start_hook_callback(callback_id, hook_input, tool_use_id=tool_use_id)
        out: _JSON | ControlError = await self.answer(rid, timeout=timeout)
        return out

    async def skill_shell_command(
        self,
        command: str,
        *,
        command_name: str,
        tool_name: str = "Bash",
        command_source: str | None = "projectSettings",
        invoked_by: str = "user",
        timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109
    ) -> bool:
        """Play CLI 2.1.332 before a skill's or slash command's inline shell command
        (``!`cmd` `` in its markdown) runs: call the SDK's ``PreSkillShellCommand`` hooks
        whose matcher matches ``tool_name``, in parallel; returns whether the command runs.

        It does not run when a hook answers ``permissionDecision`` ``deny``, ``ask`` or
        ``defer``, any ``updatedInput``, ``decision: "block"`` or ``continue: false``, or
        fails (an error answer) under ``onFailure: "block"``. A CLI older than the event
        (`version` before 2.1.332) calls no hook, and the command runs.
        """
        from ..hooks import unsupported_hook_events

        event = "PreSkillShellCommand"
        if unsupported_hook_events((event,), self.version):
            return True
        fields: _JSON = {
            "effort": {"level": "medium"},
            "tool_name": tool_name,
            "tool_input": {"command": command},
            "tool_use_id": f"{_uuid()}:inner:preamble-0",
            "command_name": command_name,
            "invoked_by": invoked_by,
        }
        if command_source is not None:
            fields["command_source"] = command_source
        runs = True
        for out, matcher in await self._run_hooks(
            event, fields, target=tool_name, tool_use_id=fields["tool_use_id"], timeout=timeout
        ):
            if isinstance(out, ControlError):
                runs = runs and matcher.on_failure != "block"
                continue
            specific = out.get("hookSpecificOutput") or {}
            decision = specific.get("decision")
            refused = (
                specific.get("permissionDecision") in ("deny", "ask", "defer")
                or specific.get("updatedInput") is not None
                or (isinstance(decision, dict) and decision.get("behavior") == "deny")
                or out.get("decision") == "block"
                or out.get("continue") is False
            )
            runs = runs and not refused
        return runs

    async def start_mcp_message(self, server_name: str, message: Mapping[str, Any]) -> str:
        """Send a JSON-RPC message to an in-process MCP server; returns the request id."""
        return await self.start_request(
            "mcp_message", server_name=server_name, message=dict(message)
        )

    async def mcp_message(
        self,
        server_name: str,
        message: Mapping[str, Any],
        *,
        timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109
    ) -> _JSON | ControlError:
        """Send a JSON-RPC message to an in-process MCP server; returns the answer body
        (``{"mcp_response": ...}``) or `ControlError`."""
        rid = await self.start_mcp_message(server_name, message)
        out: _JSON | ControlError = await self.answer(rid, timeout=timeout)
        return out

    async def start_elicitation(self, mcp_server_name: str, message: str, **fields: Any) -> str:
        """Send ``elicitation`` (an MCP server asks the user); returns the request id."""
        return await self.start_request(
            "elicitation", mcp_server_name=mcp_server_name, message=message, **fields
        )

    async def elicitation(
        self,
        mcp_server_name: str,
        message: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109
        **fields: Any,
    ) -> _JSON | ControlError:
        """Send ``elicitation``; returns the ElicitResult dict (``{"action": ...}``) or
        `ControlError`."""
        rid = await self.start_elicitation(mcp_server_name, message, **fields)
        out: _JSON | ControlError = await self.answer(rid, timeout=timeout)
        return out

    async def answer(self, request_id: str, *, timeout: float | None = DEFAULT_TIMEOUT) -> Any:  # noqa: ASYNC109
        """Wait for the SDK's answer to a request the fake sent.

        Returns:
            For ``can_use_tool``: `PermissionAllow` / `PermissionDeny`. For other
            subtypes: the success body (``{}`` when absent). For an error response: the
            `ControlError`.

        Raises:
            AnswerTimeoutError: no answer within ``timeout`` seconds.
            RequestCancelledError: the request was cancelled.
            StdinClosedError: the SDK closed stdin without answering.
            InvalidAnswerError: the answer does not fit the request.
        """
        pending = self._outbound.get(request_id)
        if pending is None:
            raise FakeCLIError(f"the fake sent no request {request_id!r}")
        what = f"the SDK's answer to {pending.subtype} {request_id}"
        await self._wait_until(
            lambda: pending.response is not None or pending.cancelled or self._stdin_eof,
            timeout,
            what,
        )
        if pending.cancelled:
            raise RequestCancelledError(f"{pending.subtype} {request_id} was cancelled")
        if pending.response is None:
            raise StdinClosedError(
                f"the SDK closed stdin before answering {pending.subtype} {request_id}"
            )
        response = pending.response.response
        if isinstance(response, ControlError):
            return response
        if not isinstance(response, ControlSuccess):
            raise InvalidAnswerError(f"{what} has an unknown envelope: {dict(response.raw)!r}")
        body = response.response if response.response is not None else {}
        if pending.subtype != "can_use_tool":
            return body
        try:
            decision = wire.from_dict(body, PermissionAllow | PermissionDeny)
        except Exception as exc:
            raise InvalidAnswerError(f"{what} is not a PermissionResult: {body!r} ({exc})") from exc
        if not isinstance(decision, (PermissionAllow, PermissionDeny)):
            raise InvalidAnswerError(f"{what} is not a PermissionResult: {body!r}")
        return decision

    async def cancel_request(self, request_id: str) -> bool:
        """Withdraw a pending request with ``control_cancel_request`` (as an interrupt does).

        No answer is expected afterwards; any that comes is kept in `answers_after_cancel`.

        Returns:
            True if a cancel was sent; False if the request was already answered or
            cancelled.
        """
        pending = self._outbound.get(request_id)
        if pending is None:
            raise FakeCLIError(f"the fake sent no request {request_id!r}")
        if pending.cancelled or pending.response is not None:
            return False
        pending.cancelled = True
        await self._send_if_alive({"type": "control_cancel_request", "request_id": request_id})
        self._notify()
        return True


def _hook_ids(hooks: Mapping[str, Sequence[HookMatcherConfig]] | None) -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    for event, matchers in (hooks or {}).items():
        for matcher in matchers:
            table.setdefault(event, []).extend(matcher.hook_callback_ids)
    return table


# ======================================================================================
# The transport


def _replies_script(replies: Sequence[str]) -> Script:
    """A script that answers each prompt with the next of ``replies``, then ``"Done."``."""
    texts = tuple(replies)

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        queue = list(texts)
        async for _prompt in cli.iter_prompts():
            await cli.turn(text=queue.pop(0) if queue else "Done.")

    script.__name__ = "replies"
    return script


class FakeCLI(MemoryTransport):
    """A scripted CLI: a `Transport` whose every connection runs ``script(ScriptedCLI)``.

    ``FakeCLI(script)`` plays ``async def script(cli: ScriptedCLI)``; ``FakeCLI(replies=[...])``
    answers each prompt with the next text (then ``"Done."``); ``FakeCLI()`` answers every
    prompt with ``"Done."``.

    Attributes:
        version: the CLI version reported (``initialize``, ``system/init``).
        session_id: the session id every connection reports (None: one per connection).
        auto_handshake: answer ``initialize`` before the script runs.
        raise_script_errors: re-raise a script's failure out of the SDK's ``connect``.
        capabilities: what every initialize answer lists in ``capabilities`` (None: the 7
            of CLI 2.1.330; add `SOFT_ERROR_RESULT_CAPABILITY` to play CLI 2.1.331).
        history: the conversation a connection started with ``--resume`` or ``--continue``
            loaded, as ``export_conversation`` gives it (None: a line naming the session;
            ``""``: nothing, as a CLI that found nothing to continue).
        clis: the `ScriptedCLI` of every connection, in order.
        received: every frame the SDK wrote, on all connections, in order.
        log: the same, as `Received` records (with their arrival times).
    """

    #: Raise in a request handler to answer with an error response.
    Error = ErrorReply
    #: Return from a request handler to never answer.
    NO_ANSWER = NO_ANSWER

    def __init__(
        self,
        script: Script | None = None,
        *,
        replies: Sequence[str] | None = None,
        version: str = "2.1.330",
        session_id: str | None = None,
        auto_handshake: bool = False,
        raise_script_errors: bool = True,
        capabilities: Sequence[str] | None = None,
        history: str | None = None,
    ) -> None:
        super().__init__(self._run_peer)
        if script is not None and replies is not None:
            raise TypeError("FakeCLI: pass a script or replies=, not both")
        if isinstance(replies, str):
            raise TypeError("FakeCLI: replies= is a sequence of texts, one per turn, not a str")
        self.script: Script = script if script is not None else _replies_script(replies or ())
        self.version = version
        self.session_id = session_id
        self.auto_handshake = auto_handshake
        self.raise_script_errors = raise_script_errors
        self.capabilities: list[str] | None = (
            list(capabilities) if capabilities is not None else None
        )
        self.history = history
        self.clis: list[ScriptedCLI] = []
        self.received: list[Frame] = []
        self.log: list[Received] = []
        self._handlers: dict[str, RequestHandler] = {}

    @property
    def cli(self) -> ScriptedCLI:
        """The latest connection's `ScriptedCLI`.

        Raises:
            FakeCLIError: nothing has connected yet.
        """
        if not self.clis:
            raise FakeCLIError("the SDK has not connected to this FakeCLI")
        return self.clis[-1]

    @property
    def errors(self) -> list[Exception]:
        """Script and handler failures of every connection."""
        return [e for cli in self.clis for e in cli.errors]

    def check(self) -> None:
        """Raise the first script or handler failure, if any."""
        errors = self.errors
        if errors:
            raise errors[0]

    @overload
    def on_request(self, subtype: str, handler: None = None) -> Callable[[_H], _H]: ...
    @overload
    def on_request(self, subtype: str, handler: _H) -> _H: ...

    def on_request(self, subtype: str, handler: _H | None = None) -> _H | Callable[[_H], _H]:
        """Answer requests of ``subtype`` with ``handler`` on every connection (a
        connection's own `ScriptedCLI.on_request` wins)."""
        if handler is None:

            def register(fn: _H) -> _H:
                self._handlers[subtype] = fn
                return fn

            return register
        self._handlers[subtype] = handler
        return handler

    async def _run_peer(self, peer: MemoryPeer) -> None:
        cli = ScriptedCLI(self, peer, len(self.clis))
        self.clis.append(cli)
        await cli._run(self.script, self.auto_handshake)

    @asynccontextmanager
    async def connect(self, spec: LaunchSpec) -> AsyncIterator[Connection]:
        """Start one scripted CLI for ``spec`` (see `MemoryTransport.connect`).

        With ``raise_script_errors``, a failure of the script leaves this block as itself
        (chained to whatever the SDK raised because of it).
        """
        first = len(self.clis)
        try:
            async with super().connect(spec) as conn:
                yield conn
        except Exception as exc:
            failure = self._failure_since(first)
            if failure is None or failure is exc:
                raise
            raise failure from exc
        failure = self._failure_since(first)
        if failure is not None:
            raise failure

    def _failure_since(self, first: int) -> Exception | None:
        if not self.raise_script_errors:
            return None
        for cli in self.clis[first:]:
            if cli.errors:
                return cli.errors[0]
        return None

    def describe(self) -> str:
        return f"FakeCLI({getattr(self.script, '__name__', 'script')})"

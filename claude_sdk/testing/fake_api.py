"""`FakeMessagesAPI`: a scripted fake of the Anthropic Messages API, to run the CLI offline.

The server listens on ``127.0.0.1`` (an ephemeral port by default), speaks HTTP/1.1 through
h11 over AnyIO sockets (asyncio and Trio), and imitates the endpoints the Claude Code CLI
calls:

* ``POST /v1/messages`` (``?beta=true``): a streaming request (``"stream": true``) gets the
  Messages API's SSE sequence (``message_start``, ``ping``, ``content_block_start`` /
  ``_delta`` / ``_stop`` per block, ``message_delta``, ``message_stop``), a non-streaming one
  a plain message JSON.
* ``POST /v1/messages/count_tokens``: ``{"input_tokens": N}``.
* ``GET /v1/models``: a small model list. Anything else: 404 with an error JSON.

Example::

    async with FakeMessagesAPI() as api:
        api.reply(tool_use=("Bash", {"command": "ls"}))
        api.reply(text="Done.")
        env = {**api.env(), "HOME": str(tmp_home), "PATH": os.environ["PATH"]}
        ...  # run the CLI with env; it calls Bash, then answers "Done."
        assert api.main_requests[1].tool_results[0].tool_use_id == "toolu_fake_1"

Contract:

* Requests are classified on arrival (`RecordedRequest.kind`). Only **main-loop** requests
  (streaming ``/v1/messages`` with ``max_tokens`` other than 1) consume the rules queued by
  `FakeMessagesAPI.reply`; side calls (non-streaming or ``max_tokens: 1`` probes, and
  ``count_tokens``) have their own queues (`FakeMessagesAPI.probe_reply`,
  `FakeMessagesAPI.count_tokens_reply`) and automatic answers, so they can never take a reply
  meant for the model loop.
* Within a queue, rules are tried in the order they were added; the first one with uses left
  whose ``when`` predicate (if any) accepts the request answers it. With no such rule the
  request gets the automatic answer (for the main loop: a text reply of ``default_text``) and
  is recorded with ``used_default=True``.
* Every request is appended to `FakeMessagesAPI.requests` once its body has been read, before
  it is answered; its outcome fields are filled in as the answer is produced.
* Every connection is served by its own task in a task group owned by the ``async with``
  block; keep-alive connections serve any number of requests. Leaving the block cancels that
  task group: hanging and delayed responses end at once and every socket is closed, so
  shutdown is prompt and never waits on a client.
* Errors in user code (a ``when`` predicate that raises) are not swallowed: they propagate
  out of the ``async with`` block.

Run ``python -m claude_sdk.testing.fake_api --text "Hello"`` to serve a fixed reply by hand.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import itertools
import json
import math
import signal
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from types import TracebackType
from typing import Any, Literal, TypeAlias, cast

import anyio
import anyio.abc
import attrs
from typing_extensions import Self

from .._attrs import define, frozen

try:
    import h11
except ImportError:  # pragma: no cover - h11 is the optional "testing" extra
    # Importing claude_sdk.testing must not need h11 (FakeCLI does not); serving does.
    h11 = None  # type: ignore[assignment]

__all__ = [
    "FakeMessagesAPI",
    "RecordedRequest",
    "RequestKind",
    "ReplyRule",
    "ScriptedBlock",
    "ScriptedText",
    "ScriptedThinking",
    "ScriptedToolUse",
    "ToolUsePair",
    "RecordedToolResult",
    "DEFAULT_TEXT",
    "DUMMY_API_KEY",
    "ERROR_TYPES",
]

#: Text of the main-loop reply used when no queued rule matches.
DEFAULT_TEXT = "Hello from the fake API."
#: The API key `FakeMessagesAPI.env` hands to the CLI. The fake does not check it.
DUMMY_API_KEY = "sk-ant-test-dummy"
#: Error ``type`` the real API sends with each HTTP status.
ERROR_TYPES: Mapping[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
_ERROR_MESSAGES: Mapping[int, str] = {
    400: "fake bad request",
    401: "invalid x-api-key",
    429: "fake rate limit exceeded",
    500: "fake internal server error",
    529: "fake overloaded",
}
_MODELS = ("claude-opus-5-5", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001")
_PROBE_TEXT = "Hi"
_RECEIVE_SIZE = 65536
_CLOSE_GRACE = 1.0

#: What a request is, as far as scripting is concerned (see `RecordedRequest.kind`).
RequestKind: TypeAlias = Literal["main", "probe", "count_tokens", "models", "invalid", "other"]
#: A tool call as given to `FakeMessagesAPI.reply`: ``(tool name, input)``.
ToolUsePair: TypeAlias = tuple[str, Mapping[str, Any]]
_Target: TypeAlias = Literal["main", "probe", "count_tokens"]


# --------------------------------------------------------------------------- scripted content


@frozen
class ScriptedText:
    """A ``text`` content block of a scripted reply."""

    text: str


@frozen
class ScriptedThinking:
    """A ``thinking`` content block; ``signature`` defaults to a hash of the text."""

    thinking: str
    signature: str | None = None


@frozen
class ScriptedToolUse:
    """A ``tool_use`` content block; ``id`` defaults to ``toolu_fake_<n>`` (n counts per server)."""

    name: str
    input: Mapping[str, Any] = attrs.field(factory=dict)
    id: str | None = None


#: One content block of a scripted reply.
ScriptedBlock: TypeAlias = ScriptedText | ScriptedThinking | ScriptedToolUse


@frozen
class RecordedToolResult:
    """A ``tool_result`` block of a request's last user message.

    Attributes:
        tool_use_id: the id of the ``tool_use`` it answers.
        text: its content as text (text blocks joined by newlines).
        is_error: the block's ``is_error`` flag.
        raw: the block as received.
    """

    tool_use_id: str
    text: str
    is_error: bool
    raw: Mapping[str, Any] = attrs.field(repr=False)


@define(eq=False, kw_only=True)
class ReplyRule:
    """One scripted answer, returned by `FakeMessagesAPI.reply` and friends.

    Attributes:
        index: position in its queue (0 = the first ``reply``/``probe_reply``/... call).
        target: the queue: ``"main"``, ``"probe"`` or ``"count_tokens"``.
        blocks: content blocks of a message reply.
        stop_reason: ``stop_reason`` to send; ``None`` = ``tool_use`` if a tool_use block is
            present, else ``end_turn``.
        error_status: HTTP status of an error reply, or ``None``.
        error_type: the error JSON's ``error.type``.
        error_message: the error JSON's ``error.message``.
        input_tokens: ``usage.input_tokens`` (or count_tokens' answer); ``None`` = estimated.
        output_tokens: ``usage.output_tokens``; ``None`` = estimated.
        delay: seconds to wait before each SSE event but the first (before the whole answer
            for a JSON reply).
        hang: accept the request and never answer it.
        times: how many requests the rule answers; ``None`` = any number.
        when: predicate a request must satisfy, or ``None``.
        headers: extra response headers.
        used: how many requests it has answered so far.
    """

    index: int
    target: _Target
    blocks: tuple[ScriptedBlock, ...] = ()
    stop_reason: str | None = None
    error_status: int | None = None
    error_type: str | None = None
    error_message: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    delay: float = 0.0
    hang: bool = False
    times: int | None = 1
    when: Callable[[RecordedRequest], bool] | None = attrs.field(default=None, repr=False)
    headers: tuple[tuple[str, str], ...] = ()
    used: int = 0

    @property
    def exhausted(self) -> bool:
        """True once the rule has answered ``times`` requests."""
        return self.times is not None and self.used >= self.times

    @property
    def pending(self) -> bool:
        """True while the rule still expects a request (a ``times=None`` rule: until first use)."""
        return self.used == 0 if self.times is None else self.used < self.times

    def matches(self, request: RecordedRequest) -> bool:
        """Whether the rule has uses left and its ``when`` accepts ``request``."""
        return not self.exhausted and (self.when is None or self.when(request))


# --------------------------------------------------------------------------- recorded requests


@define(eq=False, kw_only=True)
class RecordedRequest:
    """One HTTP request the fake received, and how it was answered.

    Attributes:
        n: arrival number, from 1.
        method: ``"POST"``, ``"GET"``, ...
        path: the request target, query included (``/v1/messages?beta=true``).
        headers: request headers, lower-case names (repeated headers joined by ``", "``).
        body: the parsed JSON body, or ``None`` (no body or not JSON).
        raw_body: the body bytes.
        kind: ``"main"`` (streaming ``/v1/messages``, ``max_tokens`` not 1), ``"probe"``
            (other ``/v1/messages``), ``"count_tokens"``, ``"models"``, ``"invalid"`` (a
            ``/v1/messages`` body that is not a JSON object) or ``"other"``.
        connection_id: which connection carried it (from 1, in accept order).
        started: `time.monotonic` when the request had been read.
        rule: the rule that answered, or ``None`` (automatic or default answer).
        used_default: a main-loop request answered with the default reply.
        status: HTTP status sent, or ``None`` (not answered: hang, disconnect).
        response: the JSON answered (for SSE: the message the events assemble to).
        finished: `time.monotonic` when the answer was complete (or abandoned).
        client_disconnected: the client went away before the answer was complete.
    """

    n: int
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw_body: bytes = attrs.field(repr=False)
    kind: RequestKind
    connection_id: int
    started: float
    rule: ReplyRule | None = None
    used_default: bool = False
    status: int | None = None
    response: Any = attrs.field(default=None, repr=False)
    finished: float | None = None
    client_disconnected: bool = False

    @property
    def endpoint(self) -> str:
        """The path without its query string."""
        return self.path.partition("?")[0]

    @property
    def duration(self) -> float | None:
        """Seconds from `started` to `finished`, or ``None`` while unfinished."""
        return None if self.finished is None else self.finished - self.started

    @property
    def stream(self) -> bool:
        """The body asks for a streaming answer (``"stream": true``)."""
        return isinstance(self.body, dict) and self.body.get("stream") is True

    @property
    def model(self) -> str | None:
        """The body's ``model``."""
        model = self._get("model")
        return model if isinstance(model, str) else None

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The body's ``messages`` (only the dict entries)."""
        messages = self._get("messages")
        if not isinstance(messages, list):
            return []
        return [m for m in messages if isinstance(m, dict)]

    @property
    def last_user_message(self) -> dict[str, Any] | None:
        """The last message with ``role: "user"``, or ``None``."""
        for message in self.messages[::-1]:
            if message.get("role") == "user":
                return message
        return None

    @property
    def last_user_text(self) -> str:
        """Text blocks of the last user message, joined by newlines (tool results excluded).

        The CLI puts a ``<system-reminder>`` block before the prompt: match with ``in``.
        """
        message = self.last_user_message
        return "" if message is None else _text_of(message.get("content"))

    @property
    def tool_results(self) -> list[RecordedToolResult]:
        """The ``tool_result`` blocks of the last user message, in order."""
        message = self.last_user_message
        content = None if message is None else message.get("content")
        if not isinstance(content, list):
            return []
        return [
            RecordedToolResult(
                tool_use_id=str(block.get("tool_use_id", "")),
                text=_text_of(block.get("content")),
                is_error=block.get("is_error") is True,
                raw=block,
            )
            for block in content
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]

    @property
    def system_text(self) -> str:
        """The ``system`` prompt as text (blocks joined by newlines)."""
        return _text_of(self._get("system"))

    @property
    def tools(self) -> list[str]:
        """Names of the tools in the body's ``tools`` list."""
        tools = self._get("tools")
        if not isinstance(tools, list):
            return []
        return [str(t["name"]) for t in tools if isinstance(t, dict) and "name" in t]

    def summary(self) -> dict[str, Any]:
        """A short JSON-able digest for failure messages (like the ``outcome`` of ``*.api.jsonl``).

        Keys: ``n``, ``method``, ``path``, ``kind``, ``model``, ``last_user_text`` (its last 200
        characters), ``tool_results``, ``rule`` (index, or ``None``), ``used_default``,
        ``status``, ``stop_reason``, ``blocks`` (types, with the id and name of tool_use
        blocks), ``client_disconnected`` and ``ms``.
        """
        response = self.response if isinstance(self.response, dict) else {}
        content = response.get("content")
        blocks = [
            {k: v for k, v in block.items() if k in ("type", "id", "name")}
            for block in (content if isinstance(content, list) else [])
        ]
        duration = self.duration
        return {
            "n": self.n,
            "method": self.method,
            "path": self.path,
            "kind": self.kind,
            "model": self.model,
            "last_user_text": self.last_user_text[-200:],
            "tool_results": [
                {"tool_use_id": r.tool_use_id, "text": r.text[:200], "is_error": r.is_error}
                for r in self.tool_results
            ],
            "rule": None if self.rule is None else self.rule.index,
            "used_default": self.used_default,
            "status": self.status,
            "stop_reason": response.get("stop_reason"),
            "blocks": blocks,
            "client_disconnected": self.client_disconnected,
            "ms": None if duration is None else round(duration * 1000, 1),
        }

    def _get(self, key: str) -> Any:
        return self.body.get(key) if isinstance(self.body, dict) else None


def _text_of(content: Any) -> str:
    """Text of a ``content``/``system`` value: a string, or the text of its text blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        str(block.get("text", ""))
        for block in content
        if isinstance(block, dict) and block.get("type") == "text"
    )


# --------------------------------------------------------------------------- the server


class FakeMessagesAPI:
    """A scripted Messages API on 127.0.0.1, served for the duration of an ``async with``.

    Args:
        host: the address to bind.
        port: the port to bind; 0 picks a free one.
        default_text: text of the main-loop reply when no queued rule matches.

    Attributes:
        requests: every request received, in arrival order.
        rules: every rule added, in order (all queues).
        default_text: see above; may be changed at any time.
    """

    def __init__(
        self, *, host: str = "127.0.0.1", port: int = 0, default_text: str = DEFAULT_TEXT
    ) -> None:
        self._host = host
        self._port = port
        self.default_text = default_text
        self.requests: list[RecordedRequest] = []
        self.rules: list[ReplyRule] = []
        self._queues: dict[_Target, list[ReplyRule]] = {"main": [], "probe": [], "count_tokens": []}
        self._bound_port: int | None = None
        self._stack: AsyncExitStack | None = None
        self._arrived: anyio.Event | None = None
        self._tool_ids = itertools.count(1)
        self._connection_ids = itertools.count(1)

    # ---------------------------------------------------------------- lifecycle

    async def __aenter__(self) -> Self:
        """Bind the port and start serving in a task group owned by this block.

        Raises:
            ImportError: h11 is not installed.
            RuntimeError: already serving.
            OSError: the address cannot be bound.
        """
        if h11 is None:  # pragma: no cover - depends on the environment
            raise ImportError("FakeMessagesAPI needs h11: pip install 'claude-sdk-py[testing]'")
        if self._stack is not None:
            raise RuntimeError("FakeMessagesAPI is already serving")
        stack = AsyncExitStack()
        await stack.enter_async_context(self._serve())
        self._stack = stack
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        """Stop serving: end every connection, hanging ones included, and close the port."""
        stack, self._stack = self._stack, None
        if stack is None:
            return False
        return bool(await stack.__aexit__(exc_type, exc, tb))

    @asynccontextmanager
    async def _serve(self) -> AsyncIterator[None]:
        listener = await anyio.create_tcp_listener(local_host=self._host, local_port=self._port)
        self._arrived = anyio.Event()
        async with listener, anyio.create_task_group() as tg:
            self._bound_port = listener.extra(anyio.abc.SocketAttribute.local_port)
            tg.start_soon(listener.serve, self._serve_connection, tg)
            try:
                yield
            finally:
                # Cancelling ends hangs, delays and idle keep-alive connections at once; each
                # connection task then closes its socket forcefully, so this never blocks.
                self._bound_port = None
                self._arrived.set()  # waiters outside the block see the server stop
                tg.cancel_scope.cancel()

    # ---------------------------------------------------------------- addresses

    @property
    def port(self) -> int:
        """The bound port.

        Raises:
            RuntimeError: the server is not running.
        """
        if self._bound_port is None:
            raise RuntimeError("FakeMessagesAPI is not serving (use it with `async with`)")
        return self._bound_port

    @property
    def base_url(self) -> str:
        """``http://<host>:<port>``, the value for ``ANTHROPIC_BASE_URL``.

        Raises:
            RuntimeError: the server is not running.
        """
        return f"http://{self._host}:{self.port}"

    def env(self, *, max_retries: int = 0, api_key: str = DUMMY_API_KEY) -> dict[str, str]:
        """The environment that runs the CLI offline against this server.

        ``HOME`` (a fresh temporary directory) and ``PATH`` are the caller's to add.

        Args:
            max_retries: ``CLAUDE_CODE_MAX_RETRIES``; 0 keeps error-path tests fast.
            api_key: ``ANTHROPIC_API_KEY`` (never checked by the fake).

        Raises:
            RuntimeError: the server is not running.
        """
        return {
            "ANTHROPIC_BASE_URL": self.base_url,
            "ANTHROPIC_API_KEY": api_key,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_BUG_COMMAND": "1",
            "DISABLE_FEEDBACK_COMMAND": "1",
            "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
            "DISABLE_COST_WARNINGS": "1",
            "CLAUDE_CODE_MAX_RETRIES": str(max_retries),
            "TERM": "dumb",
            "LANG": "C.UTF-8",
        }

    # ---------------------------------------------------------------- scripting

    def reply(
        self,
        text: str | None = None,
        *,
        thinking: str | None = None,
        tool_use: ToolUsePair | Sequence[ToolUsePair] | None = None,
        blocks: Sequence[ScriptedBlock] | None = None,
        stop_reason: str | None = None,
        error: int | None = None,
        error_type: str | None = None,
        error_message: str | None = None,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        delay: float = 0.0,
        hang: bool = False,
        times: int | None = 1,
        when: Callable[[RecordedRequest], bool] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> ReplyRule:
        """Queue an answer for the next main-loop request(s).

        Content is either ``blocks`` or, in this order, ``thinking``, ``text`` and
        ``tool_use`` (one ``(name, input)`` pair or a list of them). With no content and no
        error the reply is a text block of ``default_text``.

        Args:
            text: a text block.
            thinking: a thinking block (streamed as thinking deltas plus a signature).
            tool_use: tool_use block(s); ids are ``toolu_fake_<n>``.
            blocks: explicit content blocks, instead of the three above.
            stop_reason: overrides ``tool_use``/``end_turn``.
            error: answer with this HTTP status and the matching error JSON instead.
            error_type: overrides the error type derived from ``error``.
            error_message: overrides the default error message.
            input_tokens: ``usage.input_tokens``; default estimated from the request.
            output_tokens: ``usage.output_tokens``; default estimated from the content.
            delay: seconds between SSE events (before the answer, for a JSON reply).
            hang: accept the request and never answer it (until the server closes or the
                client goes away).
            times: how many requests this rule answers; ``None`` = any number.
            when: only answer requests for which this returns true.
            headers: extra response headers (e.g. ``{"retry-after": "0"}``).

        Returns:
            The queued rule (its ``used`` counter tells how often it answered).

        Raises:
            ValueError: contradictory or invalid arguments.
        """
        return self._add(
            "main",
            text=text,
            thinking=thinking,
            tool_use=tool_use,
            blocks=blocks,
            stop_reason=stop_reason,
            error=error,
            error_type=error_type,
            error_message=error_message,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            delay=delay,
            hang=hang,
            times=times,
            when=when,
            headers=headers,
        )

    def probe_reply(
        self,
        text: str | None = None,
        *,
        thinking: str | None = None,
        tool_use: ToolUsePair | Sequence[ToolUsePair] | None = None,
        blocks: Sequence[ScriptedBlock] | None = None,
        stop_reason: str | None = None,
        error: int | None = None,
        error_type: str | None = None,
        error_message: str | None = None,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        delay: float = 0.0,
        hang: bool = False,
        times: int | None = 1,
        when: Callable[[RecordedRequest], bool] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> ReplyRule:
        """Queue an answer for side-call ``/v1/messages`` requests (non-streaming or
        ``max_tokens: 1``, such as the ``set_model`` probe).

        Arguments as for `reply`. Without a matching rule a probe is answered with a short
        text message (``"Hi"``).
        """
        return self._add(
            "probe",
            text=text,
            thinking=thinking,
            tool_use=tool_use,
            blocks=blocks,
            stop_reason=stop_reason,
            error=error,
            error_type=error_type,
            error_message=error_message,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            delay=delay,
            hang=hang,
            times=times,
            when=when,
            headers=headers,
        )

    def count_tokens_reply(
        self,
        input_tokens: int | None = None,
        *,
        error: int | None = None,
        error_type: str | None = None,
        error_message: str | None = None,
        delay: float = 0.0,
        hang: bool = False,
        times: int | None = 1,
        when: Callable[[RecordedRequest], bool] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> ReplyRule:
        """Queue an answer for ``POST /v1/messages/count_tokens``.

        Without a matching rule the answer is ``{"input_tokens": N}`` with N estimated from
        the body. Arguments as for `reply`; ``input_tokens`` is the number to answer.
        """
        return self._add(
            "count_tokens",
            error=error,
            error_type=error_type,
            error_message=error_message,
            input_tokens=input_tokens,
            delay=delay,
            hang=hang,
            times=times,
            when=when,
            headers=headers,
        )

    def _add(
        self,
        target: _Target,
        *,
        text: str | None = None,
        thinking: str | None = None,
        tool_use: ToolUsePair | Sequence[ToolUsePair] | None = None,
        blocks: Sequence[ScriptedBlock] | None = None,
        stop_reason: str | None = None,
        error: int | None,
        error_type: str | None,
        error_message: str | None,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        delay: float,
        hang: bool,
        times: int | None,
        when: Callable[[RecordedRequest], bool] | None,
        headers: Mapping[str, str] | None,
    ) -> ReplyRule:
        content = _content_blocks(text, thinking, tool_use)
        if blocks is not None:
            if content:
                raise ValueError("give either blocks= or text=/thinking=/tool_use=, not both")
            content = list(blocks)
        if error is not None:
            if content:
                raise ValueError("an error reply has no content blocks")
            if not 400 <= error <= 599:
                raise ValueError(f"error must be an HTTP error status, got {error}")
        if hang and (error is not None or content):
            raise ValueError("a hanging reply has neither content nor an error")
        if times is not None and times < 1:
            raise ValueError(f"times must be at least 1 (or None), got {times}")
        if delay < 0:
            raise ValueError(f"delay must not be negative, got {delay}")
        queue = self._queues[target]
        rule = ReplyRule(
            index=len(queue),
            target=target,
            blocks=tuple(content),
            stop_reason=stop_reason,
            error_status=error,
            error_type=None if error is None else error_type or _error_type(error),
            error_message=(
                None
                if error is None
                else error_message or _ERROR_MESSAGES.get(error, f"fake error {error}")
            ),
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            delay=delay,
            hang=hang,
            times=times,
            when=when,
            headers=tuple((headers or {}).items()),
        )
        queue.append(rule)
        self.rules.append(rule)
        return rule

    # ---------------------------------------------------------------- inspection

    @property
    def main_requests(self) -> list[RecordedRequest]:
        """The main-loop requests received, in order."""
        return [r for r in self.requests if r.kind == "main"]

    @property
    def pending_rules(self) -> list[ReplyRule]:
        """Rules that still expect requests (see `ReplyRule.pending`); empty when all were used."""
        return [r for r in self.rules if r.pending]

    async def wait_for_requests(
        self, n: int, *, kind: RequestKind | None = None
    ) -> list[RecordedRequest]:
        """Wait until ``n`` requests (of ``kind``, if given) have arrived.

        A request counts once its body has been read, before it is answered. Wrap the call
        in ``anyio.fail_after`` to bound it.

        Returns:
            The first ``n`` such requests.

        Raises:
            RuntimeError: the server is not serving (or stopped) and fewer have arrived.
        """
        while True:
            found = [r for r in self.requests if kind is None or r.kind == kind]
            if len(found) >= n:
                return found[:n]
            if self._arrived is None or self._bound_port is None:
                raise RuntimeError(
                    f"FakeMessagesAPI is not serving; {len(found)} of {n} requests arrived"
                )
            await self._arrived.wait()

    # ---------------------------------------------------------------- connections

    async def _serve_connection(self, stream: anyio.abc.SocketStream) -> None:
        connection_id = next(self._connection_ids)
        conn = h11.Connection(h11.SERVER)
        try:
            while True:
                request = await self._read_request(stream, conn, connection_id)
                if request is None:
                    return
                keep_going = await self._answer(stream, conn, request)
                if not keep_going or conn.our_state is not h11.DONE:
                    return
                if conn.their_state is not h11.DONE:
                    return
                conn.start_next_cycle()
        except (
            anyio.BrokenResourceError,
            anyio.ClosedResourceError,
            h11.ProtocolError,
            OSError,
        ):
            return
        finally:
            # Shielded (a Cancelled raised here would replace an exception in flight, losing
            # it) and bounded (closing a socket does not wait on the peer, but never trust it).
            with anyio.move_on_after(_CLOSE_GRACE, shield=True):
                await stream.aclose()

    async def _read_request(
        self, stream: anyio.abc.SocketStream, conn: h11.Connection, connection_id: int
    ) -> RecordedRequest | None:
        """Read one request; ``None`` when the client closed the connection cleanly."""
        head: h11.Request | None = None
        body = bytearray()
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                await _send_protocol_error(stream, conn, exc)
                return None
            if event is h11.NEED_DATA:
                if conn.they_are_waiting_for_100_continue:
                    await stream.send(
                        conn.send(h11.InformationalResponse(status_code=100, headers=[]))
                    )
                try:
                    data = await stream.receive(_RECEIVE_SIZE)
                except anyio.EndOfStream:
                    data = b""
                conn.receive_data(data)
            elif isinstance(event, h11.Request):
                head = event
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                assert head is not None  # h11 guarantees Request before EndOfMessage
                return self._record(head, bytes(body), connection_id)
            else:  # ConnectionClosed, or PAUSED (cannot happen before a request is read)
                return None

    def _record(self, head: h11.Request, body: bytes, connection_id: int) -> RecordedRequest:
        headers: dict[str, str] = {}
        for name, value in head.headers:
            key, val = name.decode("latin-1"), value.decode("latin-1")
            headers[key] = f"{headers[key]}, {val}" if key in headers else val
        parsed: Any = None
        if body:
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = None
        method = head.method.decode("ascii")
        path = head.target.decode("latin-1")
        request = RecordedRequest(
            n=len(self.requests) + 1,
            method=method,
            path=path,
            headers=headers,
            body=parsed,
            raw_body=body,
            kind=_classify(method, path.partition("?")[0], parsed),
            connection_id=connection_id,
            started=time.monotonic(),
        )
        self.requests.append(request)
        if self._arrived is not None:
            self._arrived.set()
            self._arrived = anyio.Event()
        return request

    # ---------------------------------------------------------------- answers

    async def _answer(
        self, stream: anyio.abc.SocketStream, conn: h11.Connection, request: RecordedRequest
    ) -> bool:
        """Answer ``request``; false when the connection must be closed afterwards."""
        try:
            return await self._answer_unguarded(stream, conn, request)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            request.client_disconnected = True
            return False
        finally:
            request.finished = time.monotonic()

    async def _answer_unguarded(
        self, stream: anyio.abc.SocketStream, conn: h11.Connection, request: RecordedRequest
    ) -> bool:
        kind = request.kind
        if kind in ("main", "probe", "count_tokens"):
            target: _Target = kind
            rule = next((r for r in self._queues[target] if r.matches(request)), None)
            if rule is not None:
                rule.used += 1
                request.rule = rule
            else:
                request.used_default = kind == "main"
                rule = self._automatic_rule(target)
            return await self._play(stream, conn, request, rule)
        if kind == "models":
            body = _models_body(request.endpoint)
            if body is None:
                return await self._send_json(stream, conn, request, 404, _not_found(request))
            return await self._send_json(stream, conn, request, 200, body)
        if kind == "invalid":
            error = _error_body("invalid_request_error", "request body is not a JSON object")
            return await self._send_json(stream, conn, request, 400, error)
        return await self._send_json(stream, conn, request, 404, _not_found(request))

    def _automatic_rule(self, target: _Target) -> ReplyRule:
        if target == "main":
            return ReplyRule(index=-1, target=target, blocks=(ScriptedText(self.default_text),))
        if target == "probe":
            return ReplyRule(index=-1, target=target, blocks=(ScriptedText(_PROBE_TEXT),))
        return ReplyRule(index=-1, target=target)

    async def _play(
        self,
        stream: anyio.abc.SocketStream,
        conn: h11.Connection,
        request: RecordedRequest,
        rule: ReplyRule,
    ) -> bool:
        extra = rule.headers
        if rule.hang:
            await _hang(stream, request)
            return False
        if rule.delay and (rule.error_status is not None or not request.stream):
            await anyio.sleep(rule.delay)
        if rule.error_status is not None:
            assert rule.error_type is not None
            assert rule.error_message is not None
            body = _error_body(rule.error_type, rule.error_message)
            return await self._send_json(stream, conn, request, rule.error_status, body, extra)
        input_tokens = rule.input_tokens
        if input_tokens is None:
            input_tokens = _estimate_input_tokens(request.body)
        if rule.target == "count_tokens":
            body = {"input_tokens": input_tokens}
            return await self._send_json(stream, conn, request, 200, body, extra)
        message = self._message(request, rule, input_tokens)
        if request.stream:
            return await self._send_sse(stream, conn, request, message, rule.delay, extra)
        return await self._send_json(stream, conn, request, 200, message, extra)

    def _message(
        self, request: RecordedRequest, rule: ReplyRule, input_tokens: int
    ) -> dict[str, Any]:
        """The complete message a rule answers with (ids assigned now)."""
        content: list[dict[str, Any]] = []
        for block in rule.blocks:
            if isinstance(block, ScriptedText):
                content.append({"type": "text", "text": block.text})
            elif isinstance(block, ScriptedThinking):
                signature = block.signature
                if signature is None:
                    digest = hashlib.sha256(block.thinking.encode()).digest()
                    signature = base64.b64encode(digest).decode("ascii")
                content.append(
                    {"type": "thinking", "thinking": block.thinking, "signature": signature}
                )
            else:
                tool_id = block.id if block.id is not None else f"toolu_fake_{next(self._tool_ids)}"
                tool_input = dict(block.input)
                content.append(
                    {"type": "tool_use", "id": tool_id, "name": block.name, "input": tool_input}
                )
        stop_reason = rule.stop_reason
        if stop_reason is None:
            has_tool = any(b["type"] == "tool_use" for b in content)
            stop_reason = "tool_use" if has_tool else "end_turn"
        output_tokens = rule.output_tokens
        if output_tokens is None:
            output_tokens = max(1, sum(math.ceil(len(json.dumps(b)) / 4) for b in content))
        return {
            "id": f"msg_fake_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": request.model or _MODELS[0],
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }

    async def _send_json(
        self,
        stream: anyio.abc.SocketStream,
        conn: h11.Connection,
        request: RecordedRequest,
        status: int,
        body: Any,
        extra: Sequence[tuple[str, str]] = (),
    ) -> bool:
        payload = json.dumps(body).encode()
        headers = [
            *_common_headers(extra),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
        ]
        data = conn.send(h11.Response(status_code=status, headers=headers))
        if request.method != "HEAD":  # h11 frames a HEAD response without a body
            data += conn.send(h11.Data(data=payload))
        data += conn.send(h11.EndOfMessage())
        request.status = status
        request.response = body
        await stream.send(data)
        return True

    async def _send_sse(
        self,
        stream: anyio.abc.SocketStream,
        conn: h11.Connection,
        request: RecordedRequest,
        message: dict[str, Any],
        delay: float,
        extra: Sequence[tuple[str, str]],
    ) -> bool:
        headers = [
            *_common_headers(extra),
            (b"content-type", b"text/event-stream; charset=utf-8"),
            (b"cache-control", b"no-cache"),
            (b"transfer-encoding", b"chunked"),
        ]
        request.status = 200
        request.response = message
        await stream.send(conn.send(h11.Response(status_code=200, headers=headers)))
        for i, (name, data) in enumerate(_sse_events(message)):
            if delay and i:
                await anyio.sleep(delay)
            event = f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
            await stream.send(conn.send(h11.Data(data=event.encode())))
        await stream.send(conn.send(h11.EndOfMessage()))
        return True


# --------------------------------------------------------------------------- helpers


def _content_blocks(
    text: str | None, thinking: str | None, tool_use: ToolUsePair | Sequence[ToolUsePair] | None
) -> list[ScriptedBlock]:
    blocks: list[ScriptedBlock] = []
    if thinking is not None:
        blocks.append(ScriptedThinking(thinking))
    if text is not None:
        blocks.append(ScriptedText(text))
    if tool_use is not None:
        single = len(tool_use) == 2 and isinstance(tool_use[0], str)  # one (name, input) pair
        calls = (
            [cast("ToolUsePair", tool_use)] if single else cast("Sequence[ToolUsePair]", tool_use)
        )
        for name, tool_input in calls:
            blocks.append(ScriptedToolUse(name, dict(tool_input)))
    return blocks


def _classify(method: str, endpoint: str, body: Any) -> RequestKind:
    if endpoint == "/v1/messages" and method == "POST":
        if not isinstance(body, dict):
            return "invalid"
        streaming = body.get("stream") is True
        return "main" if streaming and body.get("max_tokens") != 1 else "probe"
    if endpoint == "/v1/messages/count_tokens" and method == "POST":
        return "count_tokens"
    if (endpoint == "/v1/models" or endpoint.startswith("/v1/models/")) and method in (
        "GET",
        "HEAD",
    ):
        return "models"
    return "other"


def _error_type(status: int) -> str:
    return ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")


def _error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


def _not_found(request: RecordedRequest) -> dict[str, Any]:
    return _error_body("not_found_error", f"Not found: {request.method} {request.endpoint}")


def _models_body(endpoint: str) -> dict[str, Any] | None:
    models = [
        {
            "type": "model",
            "id": model,
            "display_name": model,
            "created_at": "2025-01-01T00:00:00Z",
        }
        for model in _MODELS
    ]
    if endpoint == "/v1/models":
        return {
            "data": models,
            "has_more": False,
            "first_id": models[0]["id"],
            "last_id": models[-1]["id"],
        }
    wanted = endpoint.removeprefix("/v1/models/")
    return next((m for m in models if m["id"] == wanted), None)


def _common_headers(extra: Sequence[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    headers = [(b"request-id", f"req_fake_{uuid.uuid4().hex[:24]}".encode())]
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in extra]
    return headers


def _estimate_input_tokens(body: Any) -> int:
    """About a token per four characters of the prompt (system, messages, tools)."""
    if not isinstance(body, dict):
        return 1
    prompt = [body.get("system"), body.get("messages"), body.get("tools")]
    return max(1, len(json.dumps(prompt)) // 4)


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _sse_events(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The SSE events (the Messages API's streaming sequence) that stream ``message``."""
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = {**usage, "output_tokens": 1}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        deltas: list[dict[str, Any]]
        if kind == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            text = block["text"]
            deltas = [{"type": "text_delta", "text": p} for p in _pieces(text, _piece(text, 8))]
        elif kind == "thinking":
            opening = {"type": "thinking", "thinking": "", "signature": ""}
            text = block["thinking"]
            deltas = [
                {"type": "thinking_delta", "thinking": p} for p in _pieces(text, _piece(text, 8))
            ]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        else:
            opening = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            text = json.dumps(block["input"])
            deltas = [
                {"type": "input_json_delta", "partial_json": p}
                for p in _pieces(text, _piece(text, 16))
            ]
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _piece(text: str, minimum: int) -> int:
    """Piece size: at least ``minimum`` characters, and at most about 16 pieces."""
    return max(minimum, math.ceil(len(text) / 16))


async def _hang(stream: anyio.abc.SocketStream, request: RecordedRequest) -> None:
    """Never answer; return when the client goes away (cancellation ends it otherwise)."""
    try:
        while await stream.receive(_RECEIVE_SIZE):
            pass  # a client that pipelines behind a hung request gets no answer either
    except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass
    request.client_disconnected = True


async def _send_protocol_error(
    stream: anyio.abc.SocketStream, conn: h11.Connection, exc: h11.RemoteProtocolError
) -> None:
    """Answer a malformed request with a 400 error JSON when h11 still allows a response."""
    if conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
        return
    payload = json.dumps(_error_body("invalid_request_error", f"bad HTTP request: {exc}"))
    data = payload.encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
        (b"connection", b"close"),
    ]
    try:
        out = conn.send(h11.Response(status_code=exc.error_status_hint, headers=headers))
        out += conn.send(h11.Data(data=data)) + conn.send(h11.EndOfMessage())
    except h11.LocalProtocolError:
        return
    await stream.send(out)


# --------------------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> int:
    """Serve a fixed text reply until interrupted; print the base URL on stdout."""
    parser = argparse.ArgumentParser(
        prog="python -m claude_sdk.testing.fake_api",
        description="Serve a fake Anthropic Messages API that always answers with --text.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind (0: a free one)")
    parser.add_argument("--text", default=DEFAULT_TEXT, help="the reply text")
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    args = parser.parse_args(argv)

    async def serve() -> None:
        # Stop on SIGINT/SIGTERM from inside the loop: KeyboardInterrupt surfaces differently
        # across Pythons and backends (as CancelledError on Python 3.10's asyncio).
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with FakeMessagesAPI(
                host=args.host, port=args.port, default_text=args.text
            ) as api:
                sys.stdout.write(f"{api.base_url}\n")
                sys.stdout.flush()
                async for _ in signals:
                    break

    with suppress(KeyboardInterrupt):
        anyio.run(serve, backend=args.backend)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One-turn helpers: ``async with query(prompt) as messages`` and ``await ask(prompt)``.

Both run one session for one prompt. ``query`` hands out the turn's messages as they stream
and ends with its `ResultMessage`; ``ask`` collects them into a `Reply` and raises
`ResultError` for an error result. There is deliberately no bare async generator that owns
the session: that shape cannot be made safe on Trio or asyncio (PEP 789).

stdin lifetime: when the CLI may still call back into the host (hooks, ``can_use_tool``,
in-process MCP servers), stdin stays open after the result until the CLI reports ``idle``
(background work such as subagents may still call hooks); the session's ``shutdown_grace``
bounds that wait when the CLI never reports it.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, NoReturn

import attrs

from ._attrs import frozen
from ._protocol.codec import default_codec
from ._retrying import TurnRetry
from ._schema import structure_output
from ._structured import flag as flag_structured
from .errors import (
    ClaudeSDKError,
    ResultError,
    SessionClosedError,
    StructuredOutputError,
    UsageLimitError,
    usage_limit,
)
from .messages import (
    AssistantMessage,
    ContentBlock,
    Message,
    PermissionDeniedMessage,
    RateLimitEvent,
    ResultMessage,
    StreamEvent,
    UserMessage,
)
from .options import Options
from .retry import RetryAttempt
from .session import MessageStream, _BlockContext, open_session
from .transports.base import Transport

if TYPE_CHECKING:
    from ._pending import PendingQuestion
    from .usage import UsageReport

__all__ = ["QueryContext", "Reply", "ask", "query", "text_deltas"]

Prompt = str | Sequence[ContentBlock] | UserMessage | AsyncIterable[UserMessage]


@frozen(kw_only=True)
class Reply:
    """The collected turn of `ask`.

    Attributes:
        messages: every message of the turn, the `ResultMessage` last.
        result: the turn's `ResultMessage`.
    """

    messages: tuple[Message, ...]
    result: ResultMessage
    output_type: type | None = None
    #: The attempts that failed before this reply (``Options.retry``), oldest first.
    attempts: tuple[RetryAttempt, ...] = ()

    @property
    def text(self) -> str:
        """The turn's final text."""
        return self.result.text

    @property
    def suspended(self) -> PendingQuestion | None:
        """The question the turn was suspended on, for a person to answer later with
        `claude_sdk.answer` (`claude_sdk.humans`); None when the turn was not suspended."""
        return self.result.suspended

    @property
    def own_turns(self) -> tuple[ResultMessage, ...]:
        """The results of turns the CLI ran on its own while this reply was read (a task
        notification when a background command or subagent ended; `ResultMessage.own_turn`),
        in order. Their messages are in ``messages`` too; ``result`` is never one of them."""
        return tuple(m for m in self.messages[:-1] if isinstance(m, ResultMessage) and m.own_turn)

    @property
    def permission_denials(self) -> tuple[PermissionDeniedMessage, ...]:
        """The tool calls the CLI refused without asking anyone in this turn (a permission
        never granted, a rule, the permission mode), each with what the CLI said and
        `PermissionDeniedMessage.explanation` (how to let it run). The model saw each
        refusal as the tool's error result; the session also logs a warning per tool."""
        return tuple(m for m in self.messages if isinstance(m, PermissionDeniedMessage))

    @property
    def structured_output(self) -> Any:
        """The structured output, when ``output_format`` asked for one.

        An instance of the class given as ``output_format`` (attrs, dataclass, pydantic model,
        TypedDict), else the JSON value.

        Raises:
            ValueError: the output does not fit that class.
        """
        data = self.result.structured_output
        if self.output_type is None or data is None:
            return data
        return structure_output(self.output_type, data, default_codec().converter)

    @property
    def usage_by_agent(self) -> UsageReport:
        """The turn's usage and cost by agent: the main agent, each subagent, and what the
        CLI's figures cannot split (`claude_sdk.usage`); the shares add up to the result's
        totals."""
        from .usage import usage_by_agent

        return usage_by_agent(self.messages)

    @property
    def session_id(self) -> str | None:
        """The CLI's session id (to resume the conversation later)."""
        return self.result.session_id

    @property
    def total_cost_usd(self) -> float | None:
        """The cost the CLI computed for the process so far."""
        return self.result.total_cost_usd


_ASYNC_FOR_HINT = (
    "query() opens a session, so it is an async context manager, not an async iterator: "
    "write `async with claude_sdk.query(prompt) as messages:` then "
    "`async for message in messages: ...` (or `reply = await claude_sdk.ask(prompt)`)"
)


class QueryContext(_BlockContext[MessageStream]):
    """What `query` returns: ``async with query(...) as messages`` runs the turn.

    It is not an async iterator (``async for m in query(...)``, the official SDK's form, is a
    ``TypeError`` that shows this form): a generator that owned the session could not end
    it safely when the loop is left early (PEP 789).
    """

    __slots__ = ()

    if not TYPE_CHECKING:  # at run time only: type checkers reject `async for` here anyway

        def __aiter__(self) -> NoReturn:
            raise TypeError(_ASYNC_FOR_HINT)

        def __await__(self) -> NoReturn:
            raise TypeError(_ASYNC_FOR_HINT)


def query(
    prompt: Prompt,
    *,
    options: Options | None = None,
    transport: Transport | None = None,
) -> QueryContext:
    """Run one prompt and iterate its messages, up to and including the `ResultMessage`::

        async with claude_sdk.query("Explain this repo") as messages:
            async for message in messages:
                ...

    An error result is not raised here: the stream ends with it (see `ask` for raising).
    """
    return QueryContext(_query(prompt, options, transport))


@asynccontextmanager
async def _query(
    prompt: Prompt, options: Options | None, transport: Transport | None
) -> AsyncIterator[MessageStream]:
    options = options if options is not None else Options()
    async with open_session(options, transport=transport) as session:
        sent = await session.send(prompt)
        # The reply to this very prompt: a turn the CLI runs on its own never ends it.
        yield session.receive_response(sent if isinstance(sent, str) else None)
        # Leaving the session waits for the CLI to settle while it may still call back
        # (see Session._finish): background work keeps its hooks.


async def ask(
    prompt: Prompt,
    *,
    options: Options | None = None,
    transport: Transport | None = None,
) -> Reply:
    """Run one prompt and return the collected turn.

    Raises:
        ResultError: the turn ended with an error result (``kind`` says which).
        StructuredOutputError: ``output_format`` asked for structured output and the
            result has none, or one that does not validate against the schema or class
            (a `ResultError` with ``kind="structured_output"``).
        SessionClosedError: the CLI's output ended before a result.
    """
    policy = options.retry if options is not None else None
    if policy is None or isinstance(prompt, AsyncIterable):
        return await _ask_once(prompt, options, transport, [])
    assert options is not None
    retry = TurnRetry(policy, options)
    message = as_message(prompt)
    while True:
        seen: list[Message] = []
        try:
            reply = await _ask_once(retry.prompt(message), retry.options, transport, seen)
        except ClaudeSDKError as exc:
            if not retry.refused(exc):
                await retry.failed(exc, seen)
            continue
        return attrs.evolve(reply, attempts=tuple(retry.attempts))


async def _ask_once(
    prompt: Prompt, options: Options | None, transport: Transport | None, seen: list[Message]
) -> Reply:
    """One attempt of `ask`; the messages read go to ``seen`` as they come."""
    async with query(prompt, options=options, transport=transport) as stream:
        async for message in stream:
            seen.append(message)  # noqa: PERF401 - one by one: a failure keeps what came
    if not seen or not isinstance(seen[-1], ResultMessage):
        raise SessionClosedError("the CLI's output ended before the turn's result")
    return reply_of(seen, options)


def as_message(prompt: Prompt) -> UserMessage:
    """A prompt that is not a stream, as the `UserMessage` `Session.send` would write."""
    if isinstance(prompt, UserMessage):
        return prompt
    if isinstance(prompt, str):
        return UserMessage.prompt(prompt)
    assert not isinstance(prompt, AsyncIterable)
    return UserMessage.prompt(list(prompt))


def reply_of(messages: Sequence[Message], options: Options | None) -> Reply:
    """The `Reply` of a turn's messages (the last one its `ResultMessage`), or the error
    `ask` raises for it (`ResultError`, `StructuredOutputError`)."""
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    if result.is_error and result.suspended is None:  # a suspended turn ended cleanly
        limit = usage_limit(result, [m for m in messages if isinstance(m, RateLimitEvent)])
        if limit is not None:
            raise UsageLimitError(result=result, resets_at=limit[0], limit_type=limit[1])
        raise ResultError(result=result)
    if options is not None:
        problem = result.structured_output_error or flag_structured(result, options)
        if problem is not None:
            raise StructuredOutputError(result=result, problem=problem)
    output_type = options.output_type if options is not None else None
    return Reply(messages=tuple(messages), result=result, output_type=output_type)


async def text_deltas(
    messages: AsyncIterable[Message], *, subagents: bool = False
) -> AsyncIterator[str]:
    """The model's text as it streams, piece by piece, from a session's messages.

    With ``Options(include_partial_messages=True)`` each ``text_delta`` of the model's
    responses comes as the CLI streams it; a response that came without any (partial
    messages off, or a CLI that did not stream it) comes whole, from its
    `AssistantMessage`, so no text is ever dropped. Only the main agent's text, unless
    ``subagents``. It reads ``messages`` to their end (one turn, for
    `Session.receive_response`)::

        options = Options(include_partial_messages=True)
        async with open_session(options) as session:
            await session.send("Tell me a story")
            async for piece in text_deltas(session.receive_response()):
                print(piece, end="", flush=True)
    """
    streamed: set[str] = set()  # ids of responses whose text came as deltas
    current: str | None = None  # the id of the response being streamed
    async for message in messages:
        if isinstance(message, StreamEvent):
            if message.parent_tool_use_id is not None and not subagents:
                continue
            event: object = message.event
            if not isinstance(event, dict):
                continue
            kind = event.get("type")
            if kind == "message_start":
                started = event.get("message")
                current = started.get("id") if isinstance(started, dict) else None
            elif kind == "content_block_delta":
                delta = event.get("delta")
                if isinstance(delta, dict) and delta.get("type") == "text_delta":
                    text = delta.get("text")
                    if isinstance(text, str) and text:
                        if current is not None:
                            streamed.add(current)
                        yield text
        elif isinstance(message, AssistantMessage):
            if message.parent_tool_use_id is not None and not subagents:
                continue
            if message.message.id in streamed:
                continue
            text = message.text
            if text:
                yield text

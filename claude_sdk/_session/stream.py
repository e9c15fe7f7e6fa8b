"""`MessageStream`: the consumer's async iterator over a session's messages.

It hands out what the protocol queued (decoding the lines left undecoded as it goes) without
a task switch per message, with a checkpoint every `CHECKPOINT_EVERY` messages or more (half
the backlog when it is large), and raises the session's failure (`ProcessError`,
`LineTooLongError`, ...) once the messages that came before it have been handed out. No task
group or cancel scope is held across a ``yield``: breaking out early or cancelling the
consumer is always safe.

Where a turn ends is not decided here: a stream for one turn holds the protocol's `Claim`
and asks it at each result (``claude_sdk._protocol.turns``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Final

from .._protocol.turns import END
from ..errors import ClaudeSDKError, MessageDecodeError
from ..messages import Message, ResultMessage

if TYPE_CHECKING:
    from .._protocol.turns import Claim
    from .core import SessionCore

__all__ = ["CHECKPOINT_EVERY", "MessageStream"]

#: Messages handed out between two checkpoints of a consumer that never waits (at least).
CHECKPOINT_EVERY: Final = 64


class MessageStream(AsyncIterator[Message]):
    """An async iterator over a session's messages.

    With a ``claim`` (one turn) it stops after the result that settles the claimed prompt
    (turns of the CLI's own pass through, marked ``own_turn``); without one it runs until
    the CLI's output ends.
    """

    __slots__ = ("_budget", "_buffer", "_claim", "_core", "_count", "_decode", "_done", "_fresh")

    def __init__(self, core: SessionCore, claim: Claim | None = None) -> None:
        self._core = core
        self._buffer = core.protocol.messages
        self._decode = core.protocol.decode_message
        self._claim = claim
        self._done = False
        # A claim looks before the first read: its reply may have been read past already.
        self._fresh = claim is not None
        self._count = 0
        self._budget = CHECKPOINT_EVERY

    @property
    def claim(self) -> Claim | None:
        """The protocol's claim this stream ends at (None: every message)."""
        return self._claim

    def __aiter__(self) -> MessageStream:
        return self

    async def __anext__(self) -> Message:
        # The fast path: a message is buffered and no checkpoint is due. It repeats the tail
        # of `_next` on purpose (one call less per message, issue 8); `_next` does the rest.
        buffer = self._buffer
        count = self._count + 1
        if buffer and count < self._budget and not self._done and not self._fresh:
            self._count = count
            item = buffer.popleft()
            if item.__class__ is bytes:
                try:
                    item = self._decode(item)
                except MessageDecodeError as exc:
                    self._core.protocol.skip_line(exc)
                    return await self._next()
            elif item.__class__ is ResultMessage:
                await self._at_result(item)
            message: Message = item
            return message
        return await self._next()

    async def _at_result(self, result: ResultMessage) -> None:
        """A result is handed out: does it end this stream's turn (the protocol says)?"""
        claim = self._claim
        if claim is None:
            self._core.protocol.taken(result)
        elif claim.at_result(result):
            self._done = True
        mirror = self._core.mirror
        if mirror is not None:
            await mirror.sync()  # the turn is stored before it is seen

    def _look(self) -> Any:
        """Ask the claim before reading: None, or a result to hand out now, or `END`."""
        claim = self._claim
        if claim is None:
            return None
        verdict = claim.check()  # raises PromptWithdrawnError for a withdrawn prompt
        if verdict is not None:
            self._done = True
        return verdict

    async def _next(self) -> Message:
        if self._done:
            raise StopAsyncIteration
        core = self._core
        buffer = self._buffer
        if self._fresh:
            self._fresh = False
            verdict = self._look()
            if verdict is END:
                raise StopAsyncIteration
            if verdict is not None:
                return await self._handed(verdict)
        while True:
            if buffer:
                self._count += 1
                if self._count >= self._budget:
                    # Let other tasks run (cancellation, fairness). The next checkpoint
                    # comes after half of what is buffered then: in a flood the reader
                    # splits a chunk per turn, and draining half the backlog per turn keeps
                    # it bounded (about two chunks) instead of letting it pile up.
                    self._count = 0
                    await core.primitives.checkpoint()
                    self._budget = max(CHECKPOINT_EVERY, len(buffer) // 2)
            if not buffer:
                await self._wait_alone(core)
                if not buffer:
                    # Woken without a message: a prompt was withdrawn, or the output ended.
                    verdict = self._look()
                    if verdict is END:
                        raise StopAsyncIteration
                    if verdict is not None:
                        return await self._handed(verdict)
                    if core.protocol.ended or core.reader_done.is_set():
                        # A cancellation of the scope around the session ends the reader
                        # too: let one pending for this task win over "the output ended".
                        await core.primitives.checkpoint()
                        self._done = True
                        core.raise_failure()
                        if self._claim is not None:
                            raise core.closed_error(
                                "the CLI's output ended before the turn's result"
                            )
                        raise StopAsyncIteration
                    continue
            item = buffer.popleft()
            if item.__class__ is bytes:
                try:
                    item = self._decode(item)
                except MessageDecodeError as exc:
                    core.protocol.skip_line(exc)
                    continue
            elif item.__class__ is ResultMessage:
                await self._at_result(item)
            message: Message = item
            return message

    async def _wait_alone(self, core: SessionCore) -> None:
        """Wait for a message as the one task reading the session's messages: two readers
        at once (``receive_messages``, ``receive_response``, ``ask`` on one session) would
        each get some of the messages of the other's turn, a quiet wrong answer."""
        other = core.reader_waiting
        if other is not None and other is not self:
            raise ClaudeSDKError(
                "two tasks read this session's messages at once (receive_messages, "
                "receive_response or ask): each message goes to one of them, so neither "
                "sees its whole turn. Read the messages in one task (send several prompts "
                "if you like, then read their replies one turn at a time), or give each "
                "task its own session (claude_sdk.SessionPool)",
                kind="concurrent_readers",
            )
        core.reader_waiting = self
        try:
            await core.wait_for_messages()
        finally:
            if core.reader_waiting is self:
                core.reader_waiting = None

    async def _handed(self, result: ResultMessage) -> Message:
        """The claimed prompt's result was read past already (one result answered several
        prompts): it is this turn's reply too."""
        await self._core.primitives.checkpoint()
        return result

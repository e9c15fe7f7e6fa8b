"""`MessageStream`: the consumer's async iterator over a session's messages.

It hands out what the protocol queued (decoding the lines left undecoded as it goes) without
a task switch per message, with a checkpoint every `CHECKPOINT_EVERY` messages or more (half
the backlog when it is large), and raises the session's failure (`ProcessError`,
`LineTooLongError`, ...) once the messages that came before it have been handed out. No task
group or cancel scope is held across a ``yield``: breaking out early or cancelling the
consumer is always safe.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Final

from ..errors import MessageDecodeError
from ..messages import Message, ResultMessage

if TYPE_CHECKING:
    from .core import SessionCore

__all__ = ["CHECKPOINT_EVERY", "MessageStream"]

#: Messages handed out between two checkpoints of a consumer that never waits (at least).
CHECKPOINT_EVERY: Final = 64


class MessageStream(AsyncIterator[Message]):
    """An async iterator over a session's messages.

    With ``until_result`` it stops after the next `ResultMessage` (one turn); otherwise it
    runs until the CLI's output ends.
    """

    __slots__ = ("_budget", "_buffer", "_core", "_count", "_decode", "_done", "_until_result")

    def __init__(self, core: SessionCore, *, until_result: bool) -> None:
        self._core = core
        self._buffer = core.protocol.messages
        self._decode = core.protocol.decode_message
        self._until_result = until_result
        self._done = False
        self._count = 0
        self._budget = CHECKPOINT_EVERY

    def __aiter__(self) -> MessageStream:
        return self

    async def __anext__(self) -> Message:
        # The fast path: a message is buffered and no checkpoint is due. It repeats the tail
        # of `_next` on purpose (one call less per message, issue 8); `_next` does the rest.
        buffer = self._buffer
        count = self._count + 1
        if buffer and count < self._budget and not self._done:
            self._count = count
            item = buffer.popleft()
            if item.__class__ is bytes:
                try:
                    item = self._decode(item)
                except MessageDecodeError as exc:
                    self._core.protocol.skip_line(exc)
                    return await self._next()
            elif item.__class__ is ResultMessage:
                self._done = self._until_result
                if self._core.mirror is not None:
                    await self._core.mirror.sync()  # the turn is stored before it is seen
            message: Message = item
            return message
        return await self._next()

    async def _next(self) -> Message:
        if self._done:
            raise StopAsyncIteration
        core = self._core
        buffer = self._buffer
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
                await core.wait_for_messages()
                if not buffer:
                    self._done = True
                    if self._until_result:
                        raise core.closed_error("the CLI's output ended before the turn's result")
                    raise StopAsyncIteration
            item = buffer.popleft()
            if item.__class__ is bytes:
                try:
                    item = self._decode(item)
                except MessageDecodeError as exc:
                    core.protocol.skip_line(exc)
                    continue
            elif item.__class__ is ResultMessage:
                self._done = self._until_result
                if core.mirror is not None:
                    await core.mirror.sync()  # the turn is stored before it is seen
            message: Message = item
            return message

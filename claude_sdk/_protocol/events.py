"""What `Protocol.receive_lines` and `Protocol.receive_eof` give the driver (besides messages).

Messages (every frame the consumer reads) are not events: they go to the protocol's
``messages`` queue, in order, as they came. These are the things the driver must act on.
Plain classes with ``__slots__``: one is made for each control frame, on the path of every
permission round trip.
"""

from __future__ import annotations

from typing import Any, Final

from ..errors import LineTooLongError
from ..messages import ResultMessage

__all__ = [
    "ANSWERED",
    "PENDING",
    "WITHDRAWN",
    "Answer",
    "Ended",
    "Event",
    "InboundRequest",
    "Mirrored",
    "StateChanged",
    "StreamFailed",
    "TurnEnded",
    "Withdrawn",
]

#: `InboundRequest.state`: handed to the driver, not answered yet.
PENDING: Final = "pending"
#: `InboundRequest.state`: the answer was written (`Protocol.answer`).
ANSWERED: Final = "answered"
#: `InboundRequest.state`: the CLI withdrew it (``control_cancel_request``); nothing is sent.
WITHDRAWN: Final = "withdrawn"


class InboundRequest:
    """A request from the CLI (``can_use_tool``, ``hook_callback``, ``mcp_message``, ...).

    It is both the event and the protocol's record of the request: its ``state`` moves from
    `PENDING` to `ANSWERED` (by `Protocol.answer` / `Protocol.reject`) or to `WITHDRAWN` (by
    the CLI), exactly once. ``handle`` is the driver's, to keep what it runs the request in;
    a driver may also give the protocol a subclass (``Protocol(request_class=...)``).

    Attributes:
        request_id: the CLI's id of the request.
        request: the typed payload (``CanUseToolRequest``, ..., or ``UnknownControlRequest``).
        state: `PENDING`, `ANSWERED` or `WITHDRAWN`.
        handle: anything the driver attaches (the protocol never reads it).
    """

    __slots__ = ("handle", "request", "request_id", "state")

    def __init__(self, request_id: str, request: Any) -> None:
        self.request_id: str = request_id
        self.request: Any = request
        self.state: str = PENDING
        self.handle: Any = None

    @property
    def subtype(self) -> str:
        """The request's subtype (``"?"`` when it has none)."""
        subtype = getattr(self.request, "subtype", None)
        return subtype if isinstance(subtype, str) else "?"

    def __repr__(self) -> str:
        return f"InboundRequest({self.request_id!r}, {self.subtype}, {self.state})"


class Withdrawn:
    """The CLI withdrew a pending request: stop its handler; nothing may be written for it."""

    __slots__ = ("request",)

    def __init__(self, request: InboundRequest) -> None:
        self.request = request

    def __repr__(self) -> str:
        return f"Withdrawn({self.request!r})"


class Answer:
    """The outcome of one of the host's requests: ``value`` (typed), or ``error``.

    Exactly one `Answer` is given for each request `Protocol.send_request` started and the
    caller did not abandon: from the CLI's response, or at the end of the stream.
    """

    __slots__ = ("error", "request_id", "subtype", "value")

    def __init__(
        self, request_id: str, subtype: str, value: Any = None, error: BaseException | None = None
    ) -> None:
        self.request_id = request_id
        self.subtype = subtype
        self.value = value
        self.error = error

    def __repr__(self) -> str:
        outcome = f"error={self.error!r}" if self.error is not None else f"value={self.value!r}"
        return f"Answer({self.request_id!r}, {self.subtype}, {outcome})"


class TurnEnded:
    """A ``result`` arrived: a turn ended (the result is also in the messages).

    Attributes:
        result: the result.
        settled: the host's prompts (uuids) it settled, in the order the CLI named them;
            empty for a turn of the CLI's own (a task notification, a background
            completion) or a repeated result: such a result ends no caller's turn.
    """

    __slots__ = ("result", "settled")

    def __init__(self, result: ResultMessage, settled: tuple[str, ...] = ()) -> None:
        self.result = result
        self.settled = settled

    @property
    def own_turn(self) -> bool:
        """The result settled none of the host's prompts."""
        return not self.settled

    def __repr__(self) -> str:
        return f"TurnEnded({self.result.subtype!r}, settled={self.settled!r})"


class Mirrored:
    """Transcript entries the CLI mirrored (``transcript_mirror``, with ``--session-mirror``).

    Given instead of a message when the protocol was told to peel them off
    (``Protocol(mirror=True)``): they are for the session's store, not the consumer.
    """

    __slots__ = ("entries", "file_path", "size")

    def __init__(self, file_path: str, entries: list[Any], size: int = 0) -> None:
        self.file_path = file_path
        self.entries = entries
        self.size = size


class StateChanged:
    """The CLI reported its state (``running``, ``requires_action``, ``idle``)."""

    __slots__ = ("state",)

    def __init__(self, state: str | None) -> None:
        self.state = state


class StreamFailed:
    """The stream cannot be read on (a line over the limit): the session ends with ``error``.

    Lines after it are not read; every waiting request gets ``error`` at the end of stream.
    """

    __slots__ = ("error",)

    def __init__(self, error: LineTooLongError) -> None:
        self.error = error


class Ended:
    """The end of the CLI's output; ``error`` is how the session failed (None: it did not)."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException | None) -> None:
        self.error = error


Event = InboundRequest | Withdrawn | Answer | TurnEnded | StateChanged | StreamFailed | Ended

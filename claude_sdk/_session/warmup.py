"""The decoders of a session's first frames, generated while the CLI starts (issue 8)."""

from __future__ import annotations

from .. import control as c
from .._protocol.codec import default_codec
from ..messages import (
    AssistantMessage,
    InitMessage,
    ResultMessage,
    SessionStateChangedMessage,
    TextBlock,
    ToolUseBlock,
    UserMessage,
)

__all__ = ["warm_up"]

_warmed: list[bool] = []


def warm_up() -> None:
    """Generate (once per process) what the first frames of a session need."""
    if _warmed:
        return
    default_codec().warm_up(
        decode=[
            c.ControlResponse,
            c.InitializeResponse,
            InitMessage,
            AssistantMessage,
            TextBlock,
            ToolUseBlock,
            UserMessage,
            ResultMessage,
            SessionStateChangedMessage,
        ],
        encode=[UserMessage, c.ControlRequest, c.ControlResponse, c.ControlSuccess],
        verify=[ResultMessage],
    )
    _warmed.append(True)  # after: a thread that comes meanwhile warms up too

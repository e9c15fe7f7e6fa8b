"""`Options`: everything a session is configured with.

A frozen attrs class (derive variants with ``attrs.evolve``). Field names follow the official
Python SDK where it has one; the deadlines and limits are ours, each raising its own typed
error. Invalid values fail at construction with a clear message.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import attrs

from ._protocol.framing import DEFAULT_MAX_LINE_BYTES
from .hooks import HookMatcher
from .permissions import CanUseTool

__all__ = ["ElicitationCallback", "Options", "UserDialogCallback"]

ElicitationCallback = Callable[[Any], Awaitable[Mapping[str, Any]]]
"""``on_elicitation(request) -> {"action": "accept"|"decline"|"cancel", "content"?: ...}``."""

UserDialogCallback = Callable[[Any], Awaitable[Mapping[str, Any] | None]]
"""``on_user_dialog(request) -> {"behavior": "completed", "result": ...}`` or None (no answer)."""


def _positive(instance: object, attribute: attrs.Attribute[Any], value: float | None) -> None:
    if value is None:
        return
    if math.isnan(value) or value <= 0:
        raise ValueError(f"Options.{attribute.name} must be positive, not {value!r}")


def _max_line(instance: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if value < 1024:
        raise ValueError(f"Options.max_line_bytes must be an integer >= 1024, not {value!r}")


@attrs.frozen(kw_only=True)
class Options:
    """How to start and drive a CLI session.

    Deadlines and limits (ours):

    =====================  ========  ===================================================
    ``initialize_timeout`` 60 s      spawn plus the initialize handshake
                                     (`InitializeTimeoutError`)
    ``control_timeout``    60 s      each host-to-CLI control request
                                     (`ControlTimeoutError`)
    ``inactivity_timeout`` None      silence on stdout while a consumer waits
                                     (`InactivityTimeoutError`); ``session.last_activity``
                                     lets callers decide otherwise
    ``callback_timeout``   None      a ``can_use_tool`` callback running longer is denied
    ``shutdown_grace``     5 s       after stdin closes, time to exit before SIGTERM
    ``max_line_bytes``     256 MiB   a longer stdout line ends the session
                                     (`LineTooLongError`)
    =====================  ========  ===================================================
    """

    # -- process --------------------------------------------------------------------
    cli_path: str | None = None
    cwd: str | None = None
    env: Mapping[str, str] = attrs.field(factory=dict)
    extra_args: Mapping[str, str | None] = attrs.field(factory=dict)
    stderr: Callable[[str], object] | None = None

    # -- model and conversation -----------------------------------------------------
    model: str | None = None
    system_prompt: str | None = None
    permission_mode: str | None = None
    allowed_tools: Sequence[str] = ()
    disallowed_tools: Sequence[str] = ()
    max_turns: int | None = None
    include_partial_messages: bool = False
    resume: str | None = None

    # -- callbacks ------------------------------------------------------------------
    can_use_tool: CanUseTool | None = None
    hooks: Mapping[str, Sequence[HookMatcher]] = attrs.field(factory=dict)
    on_elicitation: ElicitationCallback | None = None
    on_user_dialog: UserDialogCallback | None = None

    # -- deadlines and limits (ours) --------------------------------------------------
    initialize_timeout: float = attrs.field(default=60.0, validator=_positive)
    control_timeout: float | None = attrs.field(default=60.0, validator=_positive)
    inactivity_timeout: float | None = attrs.field(default=None, validator=_positive)
    callback_timeout: float | None = attrs.field(default=None, validator=_positive)
    shutdown_grace: float = attrs.field(default=5.0, validator=_positive)
    max_line_bytes: int = attrs.field(default=DEFAULT_MAX_LINE_BYTES, validator=_max_line)

    @property
    def has_callbacks(self) -> bool:
        """True when the CLI may call back into the host (so stdin must stay open)."""
        return self.can_use_tool is not None or any(self.hooks.values())

"""Telemetry: OpenTelemetry spans for sessions, turns, tools, hooks and control requests.

Off by default and free when off. With ``Options(telemetry=True)`` and the optional
``opentelemetry-api`` package installed (``pip install 'claude-sdk-py[otel]'``), a session emits:

=====================================  ==================================================
``claude_sdk.session``                 the whole session (cli path, pid, CLI version)
``claude_sdk.turn``                    from ``send()`` to the turn's result (cost, turns,
                                       subtype, is_error)
``claude_sdk.tool <name>``             from a tool call in an assistant message to its
                                       result (tool_use_id, is_error)
``claude_sdk.permission <tool>``       a ``can_use_tool`` callback (the decision)
``claude_sdk.hook <event>``            a hook callback
``claude_sdk.control <subtype>``       a host-to-CLI control request
=====================================  ==================================================

The active trace context is passed on to the CLI (``TRACEPARENT`` / ``TRACESTATE`` in its
environment), so the CLI's own spans join the trace. Logging is separate and always on: the
``claude_sdk`` logger (quiet at the default WARNING level; DEBUG shows the lifecycle).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["Telemetry", "available"]

logger = logging.getLogger("claude_sdk.telemetry")
_TRACER_NAME = "claude_sdk"


def available() -> bool:
    """True when ``opentelemetry-api`` can be imported."""
    try:
        import opentelemetry.trace  # noqa: F401
    except ImportError:
        return False
    return True


def _clean(attributes: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        if value is None:
            continue
        out[key] = value if isinstance(value, (str, bool, int, float)) else str(value)
    return out


class Telemetry:
    """The spans of one session; every method is a no-op when disabled."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and available()
        if enabled and not self.enabled:
            logger.warning(
                "Options.telemetry is on but opentelemetry-api is not installed; "
                "no spans will be emitted (pip install 'claude-sdk-py[otel]')"
            )
        self._tracer: Any = None
        if self.enabled:
            from opentelemetry import trace

            self._tracer = trace.get_tracer(_TRACER_NAME)
        self._turns: list[Any] = []
        self._tools: dict[str, Any] = {}

    @contextlib.contextmanager
    def span(self, name: str, **attributes: Any) -> Iterator[Any]:
        """A span around a block (the current span inside it)."""
        if not self.enabled:
            yield None
            return
        with self._tracer.start_as_current_span(name, attributes=_clean(attributes)) as span:
            yield span

    def trace_env(self) -> dict[str, str]:
        """``TRACEPARENT`` / ``TRACESTATE`` of the current context, for the CLI."""
        if not self.enabled:
            return {}
        from opentelemetry import propagate

        carrier: dict[str, str] = {}
        propagate.inject(carrier)
        return {key.upper(): value for key, value in carrier.items()}

    def set(self, span: Any, **attributes: Any) -> None:
        """Add attributes to a span (None: no-op)."""
        if span is not None:
            span.set_attributes(_clean(attributes))

    # turns and tools span several calls: they are started and ended explicitly

    def turn_started(self, prompt_preview: str) -> None:
        """A prompt was sent."""
        if self.enabled:
            span = self._tracer.start_span(
                "claude_sdk.turn", attributes=_clean({"prompt.preview": prompt_preview[:200]})
            )
            self._turns.append(span)

    def turn_ended(self, **attributes: Any) -> None:
        """The oldest open turn got its result."""
        if self.enabled and self._turns:
            span = self._turns.pop(0)
            span.set_attributes(_clean(attributes))
            span.end()

    def tool_started(self, tool_use_id: str, name: str) -> None:
        """An assistant message called a tool."""
        if self.enabled and tool_use_id not in self._tools:
            self._tools[tool_use_id] = self._tracer.start_span(
                f"claude_sdk.tool {name}",
                attributes=_clean({"tool.name": name, "tool.use_id": tool_use_id}),
            )

    def tool_ended(self, tool_use_id: str, is_error: bool | None) -> None:
        """A tool result arrived."""
        span = self._tools.pop(tool_use_id, None) if self.enabled else None
        if span is not None:
            span.set_attributes(_clean({"tool.is_error": bool(is_error)}))
            span.end()

    def close(self) -> None:
        """End every span still open (the session ended)."""
        for span in [*self._turns, *self._tools.values()]:
            span.end()
        self._turns.clear()
        self._tools.clear()

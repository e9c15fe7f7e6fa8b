"""Telemetry: OpenTelemetry spans for sessions, turns, tools, hooks and control requests.

Off by default and free when off. With ``Options(telemetry=True)`` and the optional
``opentelemetry-api`` package installed (``pip install 'claude-sdk-py[otel]'``), a session emits
the spans of `SPANS`, each with only the attributes listed there:

=====================================  ==================================================
``claude_sdk.session``                 the whole session (cli path, pid, CLI version)
``claude_sdk.turn``                    from ``send()`` to the turn's result (the prompt's
                                       length, cost, turns, subtype, is_error)
``claude_sdk.tool <name>``             from a tool call in an assistant message to its
                                       result (tool_use_id, is_error)
``claude_sdk.permission <tool>``       a ``can_use_tool`` callback (the decision)
``claude_sdk.hook <event>``            a hook callback
``claude_sdk.control <subtype>``       a host-to-CLI control request
``claude_sdk.retry``                   a failed turn's report and backoff (`RetryPolicy`)
=====================================  ==================================================

**No secret in a span.** A span carries no text of a prompt, a tool's input or output, a
permission's message, or an exception's message: a span that an exception leaves gets the
exception's type (``error.type``) and an error status, nothing more (OpenTelemetry's own
recording of the exception, with its message and traceback, is off). Every string that
is exported (attribute values and span names) passes through the credential scrubber
(`claude_sdk._secrets`), and an attribute not listed in `SPANS` is never exported.
``tests/session/test_telemetry.py`` checks both over generated credentials and every kind of
span, with a real OpenTelemetry SDK.

The active trace context is passed on to the CLI (``TRACEPARENT`` / ``TRACESTATE`` in its
environment), so the CLI's own spans join the trace. Logging is separate and always on: the
``claude_sdk`` logger (quiet at the default WARNING level; DEBUG shows the lifecycle).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping
from typing import Any

from ._secrets import scrub_text

__all__ = ["SPANS", "Telemetry", "available"]

logger: logging.Logger = logging.getLogger("claude_sdk.telemetry")
_TRACER_NAME = "claude_sdk"

#: The attribute a span gets when an exception leaves it: the exception's type (its name).
ERROR_TYPE = "error.type"

#: Every span the SDK emits (by kind: the name up to its first space) and every attribute it
#: may carry besides `ERROR_TYPE`; the observability guide lists the same (a test compares).
SPANS: Mapping[str, tuple[str, ...]] = {
    "claude_sdk.session": ("cli_path", "pid", "cli_version"),
    "claude_sdk.turn": (
        "prompt.chars",
        "subtype",
        "is_error",
        "num_turns",
        "duration_ms",
        "total_cost_usd",
        "session_id",
    ),
    "claude_sdk.tool": ("tool.name", "tool.use_id", "tool.is_error"),
    "claude_sdk.permission": ("tool", "behavior"),
    "claude_sdk.hook": ("callback_id",),
    "claude_sdk.control": ("subtype",),
    "claude_sdk.retry": ("attempt", "reason", "delay_s", "session_id"),
}


def available() -> bool:
    """True when ``opentelemetry-api`` can be imported."""
    try:
        import opentelemetry.trace  # noqa: F401
    except ImportError:
        return False
    return True


def _kind(name: str) -> str:
    return name.split(" ", 1)[0]


def _clean(name: str, attributes: Mapping[str, Any]) -> dict[str, Any]:
    """The attributes of span ``name`` that `SPANS` lists (and `ERROR_TYPE`), strings
    scrubbed, None dropped."""
    allowed = SPANS.get(_kind(name), ())
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        if value is None or (key not in allowed and key != ERROR_TYPE):
            continue
        if isinstance(value, (bool, int, float)):
            out[key] = value
        else:
            out[key] = scrub_text(value if isinstance(value, str) else str(value))
    return out


class Telemetry:
    """The spans of one session; every method is a no-op when disabled."""

    def __init__(self, enabled: bool) -> None:
        self.enabled: bool = enabled and available()
        if enabled and not self.enabled:
            logger.warning(
                "Options.telemetry is on but opentelemetry-api is not installed; "
                "no spans will be emitted (pip install 'claude-sdk-py[otel]')"
            )
        self._tracer: Any = None
        self._error: Any = None
        if self.enabled:
            from opentelemetry import trace

            self._tracer = trace.get_tracer(_TRACER_NAME)
            self._error = trace.Status(trace.StatusCode.ERROR)
        self._turns: list[Any] = []
        self._tools: dict[str, Any] = {}

    @contextlib.contextmanager
    def span(self, name: str, **attributes: Any) -> Iterator[Any]:
        """A span around a block (the current span inside it). An exception that leaves
        the block marks the span an error with the exception's type only."""
        if not self.enabled:
            yield None
            return
        name = scrub_text(name)
        with self._tracer.start_as_current_span(
            name,
            attributes=_clean(name, attributes),
            record_exception=False,  # its message and traceback may hold secrets
            set_status_on_exception=False,
        ) as span:
            try:
                yield span
            except Exception as exc:
                span.set_attributes(_clean(name, {ERROR_TYPE: type(exc).__qualname__}))
                span.set_status(self._error)
                raise

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
            span.set_attributes(_clean(getattr(span, "name", ""), attributes))

    # turns and tools span several calls: they are started and ended explicitly

    def turn_started(self, prompt: str | None = None) -> None:
        """A prompt was sent. Only its length is recorded (``prompt.chars``), never its
        text: a prompt may hold anything, credentials of shapes no scrubber knows included."""
        if self.enabled:
            chars = len(prompt) if isinstance(prompt, str) else None
            span = self._tracer.start_span(
                "claude_sdk.turn", attributes=_clean("claude_sdk.turn", {"prompt.chars": chars})
            )
            self._turns.append(span)

    def turn_ended(self, **attributes: Any) -> None:
        """The oldest open turn got its result."""
        if self.enabled and self._turns:
            span = self._turns.pop(0)
            span.set_attributes(_clean("claude_sdk.turn", attributes))
            span.end()

    def tool_started(self, tool_use_id: str, name: str) -> None:
        """An assistant message called a tool."""
        if self.enabled and tool_use_id not in self._tools:
            attributes = {"tool.name": name, "tool.use_id": tool_use_id}
            self._tools[tool_use_id] = self._tracer.start_span(
                scrub_text(f"claude_sdk.tool {name}"),
                attributes=_clean("claude_sdk.tool", attributes),
            )

    def tool_ended(self, tool_use_id: str, is_error: bool | None) -> None:
        """A tool result arrived."""
        span = self._tools.pop(tool_use_id, None) if self.enabled else None
        if span is not None:
            span.set_attributes(_clean("claude_sdk.tool", {"tool.is_error": bool(is_error)}))
            span.end()

    def close(self) -> None:
        """End every span still open (the session ended)."""
        for span in [*self._turns, *self._tools.values()]:
            span.end()
        self._turns.clear()
        self._tools.clear()

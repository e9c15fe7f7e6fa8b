"""What ``python -m claude_sdk`` writes: the transcript, the CLI's progress, JSON frames.

`Console` owns the command line's two streams:

* **stdout** is the transcript (``you>``, ``claude>``, ``[tool call]``, ``[result]``, ...), or
  with ``--json`` exactly the frames, one JSON line each and nothing else (the transcript's
  notes then go to stderr).
* **stderr** carries progress, taken from what the CLI reports (`progress_label`): API
  retries (``API retry attempt 2 of 10 in 1.2 s (HTTP 529, overloaded)``), status changes
  (``compacting the conversation``), the running tool and its elapsed time, background tasks
  and subagents. On a terminal one progress line is rewritten in place (``\\r``, then erase
  to the end of the line) with a spinner; anywhere else each new label is one plain line,
  ``[progress] <label>``, with no control characters. ``--json`` writes no progress.

When the reader of either stream goes away (``python -m claude_sdk demo | head -1``) a write
fails with `BrokenPipeError`: the console then sets `Console.broken`, points both streams at
the null device (so that no later flush, not even the interpreter's last one, fails again)
and swallows the error, so that a permission callback or a hook that writes is not failed by
it; the command line checks `Console.broken` and ends the run quietly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any, TextIO

import anyio

from . import wire
from .messages import (
    ApiRetryMessage,
    AssistantMessage,
    CompactBoundaryMessage,
    HookProgressMessage,
    HookStartedMessage,
    InformationalMessage,
    Message,
    ModelRefusalFallbackMessage,
    NotificationMessage,
    RateLimitEvent,
    ResultMessage,
    StatusMessage,
    StreamEvent,
    TaskNotificationMessage,
    TaskProgressMessage,
    TaskStartedMessage,
    TextBlock,
    ToolProgressMessage,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

__all__ = ["WORKING", "Console", "OutputClosedError", "duration", "event_line", "progress_label"]

#: The label while the CLI works and has reported nothing more specific.
WORKING = "working"
#: Seconds between two frames of the spinner on a terminal.
TICK = 0.1
_SPINNER = "|/-\\"
_ERASE_LINE = "\r\x1b[K"


def duration(seconds: float) -> str:
    """``0.5 s``, ``12 s``, ``3 min 22 s``, ``1 h 5 min``."""
    if seconds < 9.95:
        return f"{max(seconds, 0.0):.1f} s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def _retry_label(
    attempt: Any, max_retries: Any, delay_ms: Any, status: Any, kind: Any, no_response: Any
) -> str:
    text = f"API retry attempt {attempt} of {max_retries}"
    if isinstance(delay_ms, (int, float)):
        text += f" in {duration(delay_ms / 1000)}"
    why = []
    if isinstance(no_response, Mapping) and isinstance(no_response.get("waited_ms"), (int, float)):
        why.append(f"no response after {duration(no_response['waited_ms'] / 1000)}")
    if status is not None:
        why.append(f"HTTP {status}")
    if kind:
        why.append(str(kind))
    return f"{text} ({', '.join(why)})" if why else text


_STATUS_LABELS = {
    "requesting": "requesting a model response",
    "compacting": "compacting the conversation",
}


def progress_label(message: Message) -> str | None:
    """The progress a CLI frame reports, as one short line; None for any other frame.

    ``system/status`` with a null status (the CLI is back to plain work) is `WORKING`.
    """
    if isinstance(message, ApiRetryMessage):
        return _retry_label(
            message.attempt,
            message.max_retries,
            message.retry_delay_ms,
            message.error_status,
            message.error,
            message.no_response,
        )
    if isinstance(message, StatusMessage):
        if message.status is None:
            return WORKING
        return _STATUS_LABELS.get(message.status, f"status: {message.status}")
    if isinstance(message, ToolProgressMessage):
        text = f"{message.tool_name} running"
        if message.elapsed_time_seconds is not None:
            text += f" for {duration(message.elapsed_time_seconds)}"
        if message.subagent_type:
            text += f" (subagent {message.subagent_type})"
        retry = message.subagent_retry
        if isinstance(retry, Mapping) and "attempt" in retry:
            text += "; " + _retry_label(
                retry.get("attempt"),
                retry.get("max_retries"),
                retry.get("retry_delay_ms"),
                retry.get("error_status"),
                retry.get("error_category"),
                None,
            )
        return text
    if isinstance(message, TaskProgressMessage):
        return _task_progress(message)
    if isinstance(message, (HookStartedMessage, HookProgressMessage)):
        return f"hook {message.hook_name} running"
    return None


def _task_progress(message: TaskProgressMessage) -> str:
    name = message.description or message.subagent_type or message.task_id
    facts: list[str] = []
    usage = message.usage if isinstance(message.usage, Mapping) else {}
    tool_uses = usage.get("tool_uses")
    if isinstance(tool_uses, int):
        facts.append(f"{tool_uses} tool use{'' if tool_uses == 1 else 's'}")
    tokens = usage.get("total_tokens")
    if isinstance(tokens, int) and tokens:
        facts.append(f"{tokens:,} tokens")
    ms = usage.get("duration_ms")
    if isinstance(ms, (int, float)):
        facts.append(duration(ms / 1000))
    if message.last_tool_name:
        facts.append(f"last tool {message.last_tool_name}")
    text = f"task {name}"
    if facts:
        text += ": " + ", ".join(facts)
    if message.summary:
        text += f" ({message.summary})"
    return text


def event_line(message: Message, tasks: Mapping[str, str] | None = None) -> str | None:
    """A transcript line for a CLI frame worth keeping on screen, or None.

    Args:
        message: the frame.
        tasks: task id -> description, from the ``task_started`` frames seen so far (a
            ``task_notification`` does not repeat the description).
    """
    if isinstance(message, CompactBoundaryMessage):
        meta = message.compact_metadata
        text = f"[compacted] {meta.trigger} compaction"
        if meta.pre_tokens is not None and meta.post_tokens is not None:
            text += f": {meta.pre_tokens:,} -> {meta.post_tokens:,} tokens"
        return text
    if isinstance(message, StatusMessage):
        if message.compact_result == "failed":
            return f"[status] compaction failed: {message.compact_error or 'no reason given'}"
        return None
    if isinstance(message, TaskStartedMessage):
        kind = message.subagent_type or message.task_type
        name = message.description or message.task_id
        return f"[task] started: {name}" + (f" ({kind})" if kind else "")
    if isinstance(message, TaskNotificationMessage):
        name = (tasks or {}).get(message.task_id) or message.task_id
        text = f"[task] {message.status}: {name}"
        return text + (f": {message.summary}" if message.summary else "")
    if isinstance(message, RateLimitEvent):
        info = message.rate_limit_info
        if info.status == "allowed":
            return None
        text = f"[rate limit] {info.status}"
        if info.rate_limit_type:
            text += f" ({info.rate_limit_type})"
        return text
    if isinstance(message, ModelRefusalFallbackMessage):
        return (
            f"[model] {message.original_model or 'the model'} refused; "
            f"using {message.fallback_model or 'a fallback model'}"
        )
    if isinstance(message, InformationalMessage):
        return f"[{message.level or 'info'}] {message.content}"
    if isinstance(message, NotificationMessage):
        return f"[notification] {message.text}"
    return None


class OutputClosedError(Exception):
    """The reader of the command line's output went away (raised by `Console.check`)."""


def _result_text(content: Any) -> str:
    """A tool result's text: a string, or the text parts of a content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [part.text for part in content if isinstance(part, TextBlock)]
        if texts and len(texts) == len(content):
            return " ".join(texts)
    return "..."


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _silence(stream: TextIO) -> None:
    """Point the file descriptor under ``stream`` at the null device."""
    try:
        fd = stream.fileno()
    except (AttributeError, ValueError, OSError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


class Console:
    """The command line's output: the transcript, progress, or JSON frames.

    Attributes:
        json: stdout carries exactly the frames (``--json``); notes go to stderr.
        live: progress is one line rewritten in place (stderr is a terminal).
        broken: a reader went away; nothing more is written.
    """

    def __init__(
        self, *, json: bool = False, stdout: TextIO | None = None, stderr: TextIO | None = None
    ) -> None:
        self.stdout = stdout if stdout is not None else sys.stdout
        self.stderr = stderr if stderr is not None else sys.stderr
        self.json = json
        self.live = not json and _isatty(self.stderr)
        # stdout on the same terminal: a progress line must not overwrite streamed text.
        self._shared_terminal = self.live and _isatty(self.stdout)
        self.broken = False
        self._label = ""  # the progress shown (live) or due; "" when idle
        self._drawn = False  # a live progress line is on the screen
        self._spin = 0
        self._last_plain = ""  # the last plain progress line (no repeats)
        self._mid_line = False  # stdout is in the middle of streamed text
        self._streamed = False  # this turn's text streamed (do not print it again)
        self._tasks: dict[str, str] = {}

    # ---------------------------------------------------------------------------------
    # writing

    def _write(self, stream: TextIO, text: str) -> None:
        if self.broken:
            return
        try:
            stream.write(text)
            stream.flush()
        except BrokenPipeError:
            self.close_quietly()

    def close_quietly(self) -> None:
        """The reader went away: write nothing more, and let no later flush fail."""
        self.broken = True
        _silence(self.stdout)
        _silence(self.stderr)

    def check(self) -> None:
        """Raise `OutputClosedError` once a reader went away (ends a session at once)."""
        if self.broken:
            raise OutputClosedError

    def flush(self) -> None:
        """Flush both streams (a reader that went away sets `broken`)."""
        for stream in (self.stdout, self.stderr):
            if self.broken:
                return
            try:
                stream.flush()
            except BrokenPipeError:
                self.close_quietly()

    def _end_streamed_line(self) -> None:
        if self._mid_line:
            self._mid_line = False
            self._write(self.stdout, "\n")

    def say(self, text: str) -> None:
        """One transcript line (on stderr with ``--json``: stdout holds only frames)."""
        self._erase()
        self._last_plain = ""
        if self.json:
            self._write(self.stderr, text + "\n")
            return
        self._end_streamed_line()
        self._write(self.stdout, text + "\n")

    def error(self, text: str) -> None:
        """One line on stderr."""
        self._erase()
        self._end_streamed_line()
        self._write(self.stderr, text + "\n")

    def frame(self, message: Any) -> None:
        """One frame as a JSON line on stdout."""
        if self.broken:
            return
        line = wire.encode(message) + b"\n"
        try:
            buffer = getattr(self.stdout, "buffer", None)
            if buffer is None:
                self.stdout.write(line.decode())
            else:
                self.stdout.flush()
                buffer.write(line)
                buffer.flush()
        except BrokenPipeError:
            self.close_quietly()

    # ---------------------------------------------------------------------------------
    # progress

    def progress(self, label: str, *, plain: bool = True) -> None:
        """Show ``label`` as the current progress.

        Args:
            label: one short line.
            plain: also write it as a line when stderr is not a terminal (False for what
                the transcript shows anyway, such as the tools being run).
        """
        if self.json or self.broken:
            return
        if self.live:
            self._label = label
            self._draw()
        elif not plain:
            self._last_plain = ""
        elif label != self._last_plain:
            self._last_plain = label
            self._write(self.stderr, f"[progress] {label}\n")

    def idle(self) -> None:
        """Nothing in progress: remove the progress line."""
        self._label = ""
        self._erase()

    def _draw(self) -> None:
        if not self._label or self.broken:
            return
        if self._shared_terminal:
            self._end_streamed_line()
        try:
            width = os.get_terminal_size(self.stderr.fileno()).columns
        except (AttributeError, ValueError, OSError):
            width = 80
        text = f"{_SPINNER[self._spin % len(_SPINNER)]} {self._label}"[: max(width - 1, 10)]
        self._write(self.stderr, _ERASE_LINE + text)
        self._drawn = True

    def _erase(self) -> None:
        if self._drawn:
            self._drawn = False
            self._write(self.stderr, _ERASE_LINE)

    async def animate(self) -> None:
        """Turn the spinner while something is in progress (returns at once off a terminal).

        Runs until cancelled.
        """
        if not self.live:
            return
        while True:
            await anyio.sleep(TICK)
            self._spin += 1
            self._draw()

    # ---------------------------------------------------------------------------------
    # messages

    def show(self, message: Message) -> None:
        """Render one message: a frame with ``--json``; else transcript and progress."""
        if self.json:
            self.frame(message)
            return
        if isinstance(message, StreamEvent):
            if message.parent_tool_use_id is None:  # a subagent's text shows when complete
                self._stream(message.event)
            return
        label = progress_label(message)
        if label is not None:
            self.progress(label, plain=label != WORKING)
        if isinstance(message, TaskStartedMessage) and message.description:
            self._tasks[message.task_id] = message.description
        line = event_line(message, self._tasks)
        if line is not None:
            self.say(line)
        if isinstance(message, AssistantMessage):
            self._assistant(message)
        elif isinstance(message, UserMessage) and not isinstance(message.content, str):
            results = [b for b in message.content if isinstance(b, ToolResultBlock)]
            for block in results:
                content = _result_text(block.content)
                status = "error" if block.is_error else "ok"
                self.say(f"[tool result, {status}] {content}")
            if results:
                self.progress(WORKING, plain=False)
        elif isinstance(message, ResultMessage):
            self._streamed = False
            self.idle()
            cost = f"${message.total_cost_usd:.4f}" if message.total_cost_usd else "$0"
            # An API error ends as subtype "success" with is_error set: say "error".
            outcome = "error" if message.is_error and message.subtype == "success" else None
            self.say(
                f"[result] {outcome or message.subtype}, {message.num_turns} model turn(s), "
                f"cost {cost}"
            )
            if message.is_error:
                detail = message.result or "; ".join(message.errors or [])
                self.say(f"[error] {detail}")

    def _stream(self, event: Mapping[str, Any]) -> None:
        if event.get("type") != "content_block_delta":
            return
        delta = event.get("delta", {})
        if delta.get("type") != "text_delta":
            return
        self.idle()  # no progress line while text streams
        if not self._mid_line:
            self._write(self.stdout, "claude> ")
            self._mid_line = True
        self._streamed = True
        self._write(self.stdout, str(delta.get("text", "")))

    def _assistant(self, message: AssistantMessage) -> None:
        sub = message.parent_tool_use_id is not None  # a subagent's message
        tools = [b for b in message.content if isinstance(b, ToolUseBlock)]
        for block in tools:
            self.say(f"[{'subagent ' if sub else ''}tool call] {block.name} {block.input}")
        text = message.text
        if text and sub:
            self.say(f"[subagent] {text}")
        elif text and not self._streamed:
            self.say(f"claude> {text}")
        if tools:
            names = ", ".join(dict.fromkeys(b.name for b in tools))
            self.progress(f"running {names}", plain=False)
        elif self._label:
            self.progress(WORKING, plain=False)

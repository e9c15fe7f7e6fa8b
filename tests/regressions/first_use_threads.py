"""Run in a fresh interpreter: first uses of the SDK from several threads at once (issue 26).

Dask and Ray workers open sessions from several threads of a fresh process: every lazily built
thing (the codec and its generated functions, the lazy exports, the schema parts, the typed
views, the first-use caches of the model) is first built while other threads use it.

``python first_use_threads.py --threads N`` starts N threads behind a barrier. Each one, in its
own order (the thread's index rotates the steps, so the first uses differ from thread to
thread), touches every public name of the package and of its subpackages, opens a session with
`FakeCLI` (asyncio for even threads, Trio for odd ones: hooks, ``can_use_tool``, tool calls
and results, system frames), decodes and re-encodes every recorded frame of the reference
transcripts and the lines of the recorded session files, and builds and encodes typed tool
inputs and outputs. A thread's *fingerprint* is what it saw, in a form that does not depend
on ids or timing (the class of every frame, what ``wire.drift`` says of it, each typed view).

It prints one JSON object, ``{"errors": [...], "fingerprint": {...}}`` (thread 0's), and exits
1 when a thread raised, saw a frame that was not typed (an ``Unknown*`` value,
``decode_issues``), a warning of the SDK's loggers (a frame kept raw, a callback that failed)
or a round trip that did not give back what came, or when the threads' fingerprints differ.
The test compares the fingerprint with that of one thread alone (``--threads 1``).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data"
TRANSCRIPTS = DATA / "transcripts"
SESSION_FILES = DATA / "history" / "config" / "projects"
#: Threads of a run (the issue's count).
THREADS_DEFAULT = 8

#: (tool, input, result text, structured result) of the tool calls of the session's turn.
TOOL_CALLS: list[tuple[str, dict[str, Any], str, Any]] = [
    (
        "Bash",
        {"command": "ls", "dangerouslyDisableSandbox": False},
        "a\nb",
        {"stdout": "a\nb", "stderr": "", "interrupted": False, "isImage": False},
    ),
    (
        "Grep",
        {"pattern": "def", "-n": True, "-C": 2},
        "a.py:1:def",
        {"mode": "content", "numFiles": 1, "filenames": ["a.py"], "numLines": 1},
    ),
    (
        "TodoWrite",
        {"todos": [{"content": "x", "status": "pending", "activeForm": "X"}]},
        "ok",
        {"oldTodos": [], "newTodos": [{"content": "x", "status": "pending", "activeForm": "X"}]},
    ),
    ("mcp__calc__add", {"a": 1, "b": 2}, "3", [{"type": "text", "text": "3"}]),
]


def recorded_frames() -> list[dict[str, Any]]:
    """Every frame the CLI wrote in the reference transcripts, in order."""
    frames = []
    for path in sorted(TRANSCRIPTS.glob("*.jsonl")):
        if path.name.endswith(".api.jsonl"):
            continue
        for raw in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(raw)
            if record.get("dir") == "cli>sdk" and isinstance(record.get("msg"), dict):
                frames.append(record["msg"])
    return frames


def _session_file_lines() -> list[dict[str, Any]]:
    return [
        json.loads(raw)
        for path in sorted(SESSION_FILES.rglob("*.jsonl"))
        for raw in path.read_text(encoding="utf-8").splitlines()
        if raw.strip()
    ]


class FailureError(Exception):
    """What a thread saw that it should not have."""


def _check_frame(frame: Any, where: str) -> None:
    import claude_sdk as cs

    if isinstance(frame, (bytes, bytearray, memoryview, dict)):
        raise FailureError(f"{where}: not decoded: {frame!r:.200}")
    if isinstance(frame, cs.UnknownMessage):
        raise FailureError(f"{where}: UnknownMessage: {frame.error} {frame.raw!r:.200}")
    issues = getattr(frame, "decode_issues", ())
    if issues:
        raise FailureError(f"{where}: {type(frame).__name__} decode_issues: {issues}")
    for block in getattr(getattr(frame, "message", None), "content", None) or ():
        if isinstance(block, (dict, cs.UnknownBlock)):
            raise FailureError(f"{where}: a block not decoded: {block!r:.200}")


def step_exports() -> list[Any]:
    """Every public name of the package and its subpackages (first access imports it)."""
    import claude_sdk as cs
    import claude_sdk.stores
    import claude_sdk.testing
    import claude_sdk.transports

    seen = []
    for package in (cs, claude_sdk.testing, claude_sdk.transports, claude_sdk.stores):
        for name in package.__all__:
            if name == "RedisStore":
                continue  # needs the optional redis client
            value = getattr(package, name)
            if value is None:
                raise FailureError(f"{package.__name__}.{name} is None")
            seen.append(f"{package.__name__}.{name}")
    return [len(seen)]


def step_transcripts() -> list[Any]:
    """Decode every recorded frame, check it and encode it back."""
    import orjson

    from claude_sdk import wire

    out: list[Any] = []
    for n, data in enumerate(recorded_frames()):
        line = orjson.dumps(data)
        frame = wire.decode(line)
        _check_frame(frame, f"transcript frame {n}")
        if orjson.loads(wire.encode(frame)) != data:
            raise FailureError(f"transcript frame {n}: does not encode back: {data!r:.200}")
        if wire.from_dict(data) != frame:
            raise FailureError(f"transcript frame {n}: from_dict differs from decode")
        out.append([type(frame).__qualname__, wire.drift(frame)])
    return out


def step_session_files() -> list[Any]:
    """Type the lines of the recorded session files (the codec's ``_entries`` part)."""
    from claude_sdk import history, wire

    out: list[Any] = []
    for n, data in enumerate(_session_file_lines()):
        entry = history.decode_entry(data)
        if type(entry).__name__ == "UnknownEntry":
            raise FailureError(f"session file line {n}: UnknownEntry: {entry!r:.300}")
        if wire.to_dict(entry) != data:
            raise FailureError(f"session file line {n}: does not encode back")
        out.append(type(entry).__qualname__)
    return out


def step_views() -> list[Any]:
    """Typed tool inputs and outputs, hook inputs, and their codec round trips."""
    from claude_sdk import tool_inputs, tool_outputs, wire
    from claude_sdk.hooks import HookInput

    out: list[Any] = []
    for tool, tool_input, _, result in TOOL_CALLS:
        view = tool_inputs.typed_input(tool, tool_input)
        if view is None:
            raise FailureError(f"typed_input({tool!r}) is None")
        if wire.to_dict(view) != tool_input:
            raise FailureError(f"{tool}: to_dict of its input view: {wire.to_dict(view)!r}")
        if wire.from_dict(tool_input, type(view)) != view:
            raise FailureError(f"{tool}: from_dict of its input differs from the view")
        typed = tool_outputs.typed_output(tool, result)
        if typed is None:
            raise FailureError(f"typed_output({tool!r}) is None")
        if wire.to_dict(typed) != result:
            raise FailureError(f"{tool}: to_dict of its output view: {wire.to_dict(typed)!r}")
        out.append([type(view).__qualname__, type(typed).__qualname__])
    hook_input = {
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "transcript_path": "/t",
        "cwd": "/",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_1",
    }
    typed_hook = wire.from_dict(hook_input, HookInput)
    out.append([type(typed_hook).__qualname__, type(typed_hook.typed_input).__qualname__])
    if wire.to_dict(typed_hook) != hook_input:
        raise FailureError(f"hook input does not encode back: {wire.to_dict(typed_hook)!r}")
    return out


def step_session(backend: str) -> list[Any]:
    """One session with `FakeCLI`: hooks, permission requests, tool calls and results."""
    import anyio

    return anyio.run(_session, backend=backend)


async def _session() -> list[Any]:
    import claude_sdk as cs
    from claude_sdk import tool_inputs
    from claude_sdk.hooks import UnknownHookInput
    from claude_sdk.testing import FakeCLI, ScriptedCLI, ToolCall

    messages: list[Any] = []
    callbacks: list[Any] = []  # in the order the fake CLI calls them
    received: list[Any] = []
    failures: list[str] = []  # what the callbacks saw (the session answers for them)

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        if prompt.text != "go":
            raise FailureError(f"the fake CLI read the prompt {prompt.text!r}")
        calls = [
            ToolCall(name, data, output=text, tool_use_result=result)
            for name, data, text, result in TOOL_CALLS
        ]
        await cli.turn(text="Done.", tools=calls)
        await cli.serve_until_stdin_closes()

    async def can_use_tool(
        tool: str, tool_input: dict[str, Any], context: cs.ToolPermissionContext
    ) -> cs.PermissionAllow:
        callbacks.append(["can_use_tool", tool, type(context.typed_input).__qualname__])
        return cs.PermissionAllow(updated_input=tool_input)

    async def hook(hook_input: Any, context: cs.HookContext) -> cs.HookOutput:
        if isinstance(hook_input, UnknownHookInput):
            failures.append(f"a hook input was not typed: {hook_input.raw!r:.200}")
        entry = [type(hook_input).__qualname__]
        if hasattr(hook_input, "typed_input"):
            entry.append(type(hook_input.typed_input).__qualname__)
        callbacks.append(entry)
        return cs.HookOutput()

    matcher = [cs.HookMatcher(hooks=[hook])]
    events = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
    options = cs.Options(can_use_tool=can_use_tool, hooks=dict.fromkeys(events, matcher))
    fake = FakeCLI(script)
    async with cs.open_session(options, transport=fake) as session:
        await session.send("go")
        tools: dict[str, str] = {}
        async for message in session.receive_response():
            _check_frame(message, "session message")
            entry = [type(message).__qualname__, cs.wire.drift(message)]
            if isinstance(message, cs.AssistantMessage):
                for block in message.message.content:
                    if isinstance(block, cs.ToolUseBlock):
                        tools[block.id] = block.name
                        view = tool_inputs.typed_input(block.name, block.input)
                        entry.append(type(view).__qualname__)
            elif isinstance(message, cs.UserMessage):
                entry.append(type(message.typed_output(tools)).__qualname__)
            messages.append(entry)
    for frame in fake.received:
        _check_frame(frame, "a frame the fake CLI read")
        received.append(type(frame).__qualname__)
    if failures:
        raise FailureError("; ".join(failures))
    return [messages, callbacks, received]


STEPS: list[tuple[str, Callable[[str], list[Any]]]] = [
    ("exports", lambda backend: step_exports()),
    ("session", step_session),
    ("transcripts", lambda backend: step_transcripts()),
    ("views", lambda backend: step_views()),
    ("session files", lambda backend: step_session_files()),
]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=THREADS_DEFAULT)
    args = parser.parse_args()
    n = args.threads
    barrier = threading.Barrier(n)
    errors: list[str] = []

    class Collect(logging.Handler):
        """A warning of the SDK (a frame kept raw, a callback that failed) is an error."""

        def emit(self, record: logging.LogRecord) -> None:
            errors.append(f"{record.name}: {self.format(record)}")

    logging.getLogger("claude_sdk").addHandler(Collect(logging.WARNING))
    fingerprints: list[dict[str, Any] | None] = [None] * n

    def work(index: int) -> None:
        backend = "asyncio" if index % 2 == 0 else "trio"
        order = STEPS[index % len(STEPS) :] + STEPS[: index % len(STEPS)]
        barrier.wait()
        found: dict[str, Any] = {}
        for name, step in order:
            try:
                found[name] = step(backend)
            except BaseException as exc:  # noqa: PERF203  (every step runs; each error is kept)
                text = "".join(traceback.format_exception(exc))
                errors.append(f"thread {index} ({backend}), step {name}: {text}")
                found[name] = type(exc).__name__
        # The session is the same on both backends: one fingerprint for every thread.
        fingerprints[index] = found

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first = fingerprints[0]
    for index, found in enumerate(fingerprints):
        if found != first:
            errors.append(f"thread {index} saw something else than thread 0")
    json.dump({"errors": errors, "fingerprint": first}, sys.stdout)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

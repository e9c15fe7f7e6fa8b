"""Regressions of issue 14: hostile frames, bad ids, turn accounting, leaving a session, timeouts.

One section per bullet of the issue (what was seen before the fix is in its heading). Every
async test runs on asyncio and on Trio (tests/conftest.py) and is bounded with
``anyio.fail_after``. The CLI is a `FakeCLI` (frames written raw with ``send_raw`` where the
test is about the bytes), a real process (``tests/support/fake_claude.py``, and
``tests/support/stuck_claude.py`` for a turn that never ends by itself) or a real sshd.
"""

from __future__ import annotations

import json
import logging
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.control import ControlRequest, ControlResponse
from claude_sdk.testing import FakeCLI, ScriptedCLI, ToolCall
from claude_sdk.testing.fake_cli import Script
from claude_sdk.transports import memory as memory_transport
from claude_sdk.transports import subprocess as subprocess_transport
from claude_sdk.transports.ssh import SSHTransport
from claude_sdk.transports.subprocess import SubprocessTransport

from ..support.procs import descendants, wait_dead
from ..support.sshd import SSHServer, serve_for_tests

SUPPORT = Path(__file__).resolve().parent.parent / "support"
FAKE_CLAUDE = SUPPORT / "fake_claude.py"
STUCK_CLAUDE = SUPPORT / "stuck_claude.py"
SIGTERM_STATUS = -signal.SIGTERM
#: A grace no test outlives (the hang guards and pytest-timeout end it first): where a rule
#: must not wait out ``shutdown_grace``, the grace is this long, so that the wrong rule fails
#: the test instead of passing slowly. No test here measures how long anything took: which
#: rule acted, never how fast (that is a benchmark's job).
FOREVER = 3600.0


# ======================================================================================
# shared helpers


@pytest.fixture(scope="module")
def launchers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Executables that run the fake CLIs with this interpreter (no PATH, no shim)."""
    directory = tmp_path_factory.mktemp("launchers")
    made: dict[str, Path] = {}
    for name, script in (("fake", FAKE_CLAUDE), ("stuck", STUCK_CLAUDE)):
        path = directory / f"claude-{name}"
        path.write_text(f"#!/bin/sh\nexec '{sys.executable}' -I -S '{script}' \"$@\"\n")
        path.chmod(0o755)
        made[name] = path
    return made


def fake_claude(launchers: dict[str, Path], behaviour: str, **kwargs: Any) -> cs.Options:
    """Options that run tests/support/fake_claude.py with ``FAKE_CLAUDE=behaviour``."""
    return cs.Options(cli_path=str(launchers["fake"]), env={"FAKE_CLAUDE": behaviour}, **kwargs)


def stuck_claude(launchers: dict[str, Path], conf: str, **kwargs: Any) -> cs.Options:
    """Options that run tests/support/stuck_claude.py with ``STUCK_CLAUDE=conf``."""
    return cs.Options(cli_path=str(launchers["stuck"]), env={"STUCK_CLAUDE": conf}, **kwargs)


def line_of(frame: Any, *, compact: bool) -> bytes:
    """One JSON line: compact as the CLI writes it, or with spaces (the reader decodes it)."""
    if compact:
        return json.dumps(frame, separators=(",", ":")).encode()
    return json.dumps(frame).encode()


def assistant_frame(text: str, *, message_id: str = "msg_marker") -> dict[str, Any]:
    return {
        "type": "assistant",
        "message": {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-5-5",
            "content": [{"type": "text", "text": text}],
            "stop_reason": None,
            "stop_sequence": None,
        },
        "parent_tool_use_id": None,
        "session_id": "sess-edges",
    }


def texts(messages: list[cs.Message]) -> list[str]:
    return [m.text for m in messages if isinstance(m, cs.AssistantMessage)]


def sdk_answers(fake: FakeCLI) -> list[Any]:
    """The request ids of every ``control_response`` the SDK wrote."""
    return [f.request_id for f in fake.received if isinstance(f, ControlResponse)]


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        r
        for r in caplog.records
        if r.name.startswith("claude_sdk") and r.levelno == logging.WARNING
    ]


def errors_of(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        r for r in caplog.records if r.name.startswith("claude_sdk") and r.levelno >= logging.ERROR
    ]


async def collect(stream: AsyncIterator[cs.Message]) -> list[cs.Message]:
    return [m async for m in stream]


# ======================================================================================
# 1. A result that does not fit the model still ends the turn
#    [before: UnknownMessage; ask/query/receive_response never returned]

RESULT_BASE: dict[str, Any] = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "duration_ms": 1234,
    "duration_api_ms": 987,
    "num_turns": 2,
    "result": "forty-two",
    "stop_reason": "end_turn",
    "session_id": "sess-misfit",
    "total_cost_usd": 0.25,
    "uuid": "result-uuid-1",
}


class Misfit:
    """A result frame: ``misfits`` are keys whose values do not fit (kept in ``extra``),
    ``dropped`` required keys left out, ``fitting`` keys set to values that do fit."""

    def __init__(
        self,
        misfits: dict[str, Any],
        *,
        dropped: tuple[str, ...] = (),
        fitting: dict[str, Any] | None = None,
        compact: bool = False,
    ) -> None:
        self.misfits = misfits
        self.dropped = dropped
        self.fitting = fitting or {}
        self.compact = compact

    @property
    def is_error(self) -> bool:
        return self.fitting.get("is_error") is True

    def line(self) -> bytes:
        frame = {**RESULT_BASE, **self.fitting, **self.misfits}
        for key in self.dropped:
            del frame[key]
        return line_of(frame, compact=self.compact)


MISFITS = [
    pytest.param(Misfit({"modelUsage": {"claude-opus-5-5": "lots", "haiku": "12"}}), id="mu-str"),
    pytest.param(Misfit({"usage": "a great deal"}, compact=True), id="usage-str"),
    pytest.param(Misfit({"permission_denials": [{}]}), id="denial-empty"),
    pytest.param(Misfit({}, dropped=("subtype",), compact=True), id="no-subtype"),
    pytest.param(Misfit({"usage": [1, 2, 3], "modelUsage": ["m"]}), id="lists-for-objects"),
    pytest.param(Misfit({"permission_denials": {"tool_name": "Bash"}}, compact=True), id="den-obj"),
    pytest.param(Misfit({"permission_denials": [{"tool_use_id": "t"}, 7]}), id="denials-mixed"),
    pytest.param(Misfit({"model_usage_since_last_result": "none"}, compact=True), id="musl-str"),
    pytest.param(
        Misfit({"usage": 0, "modelUsage": {"m": None}}, dropped=("subtype",)),
        id="many-at-once",
    ),
    pytest.param(
        Misfit(
            {"usage": "x", "modelUsage": {"m": "y"}, "permission_denials": [{}]},
            dropped=("subtype",),
            fitting={"is_error": True, "result": "forty-two"},
            compact=True,
        ),
        id="error-result-with-misfits",
    ),
    pytest.param(
        Misfit({"permission_denials": [[]]}, fitting={"is_error": True, "subtype": "error_x"}),
        id="error-subtype-with-misfit",
    ),
]


def ending_with(line: bytes) -> Script:
    """A turn that ends with ``line`` (written raw, naming no prompt), then ``idle``: the
    result answers the prompt whose turn the CLI started (``command_lifecycle``)."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.system_init()
        await cli.assistant("thinking it over")
        await cli.send_raw(line + b"\n")
        await cli.state("idle")

    return script


#: The attribute of each wire key the misfits use.
MISFIT_FIELDS = {
    "modelUsage": "model_usage",
    "usage": "usage",
    "permission_denials": "permission_denials",
    "model_usage_since_last_result": "model_usage_since_last_result",
}


def check_misfit_result(result: cs.Message, misfit: Misfit) -> None:
    assert isinstance(result, cs.ResultMessage), result
    issues = " | ".join(result.decode_issues)
    for key, value in misfit.misfits.items():
        assert result.extra[key] == value
        assert key in issues, issues
        assert getattr(result, MISFIT_FIELDS[key]) is None  # the field reads as its default
    for key in misfit.dropped:
        assert key in issues, issues
        assert key not in result.extra
    if "subtype" in misfit.dropped:
        assert result.subtype == ""  # a required field stands in with an empty value
    assert result.result == "forty-two"
    assert result.session_id == "sess-misfit"
    assert result.num_turns == 2
    assert result.is_error is misfit.is_error


@pytest.mark.parametrize("entry", ["receive_response", "query", "ask"])
@pytest.mark.parametrize("misfit", MISFITS)
async def test_a_result_that_does_not_fit_still_ends_the_turn(misfit: Misfit, entry: str) -> None:
    fake = FakeCLI(ending_with(misfit.line()))
    with anyio.fail_after(10):
        if entry == "receive_response":
            async with cs.open_session(transport=fake) as session:
                await session.send("what is six times seven?")
                messages = await collect(session.receive_response())
                assert not session.closed  # the session goes on after the turn
            result: cs.Message = messages[-1]
            assert texts(messages) == ["thinking it over"]
        elif entry == "query":
            async with cs.query("what is six times seven?", transport=fake) as stream:
                messages = await collect(stream)
            result = messages[-1]
            assert sum(isinstance(m, cs.ResultMessage) for m in messages) == 1
        elif misfit.is_error:
            with pytest.raises(cs.ResultError) as info:
                await cs.ask("what is six times seven?", transport=fake)
            result = info.value.result
        else:
            reply = await cs.ask("what is six times seven?", transport=fake)
            result = reply.result
            assert reply.text == "forty-two"
            assert reply.messages[-1] is result
    check_misfit_result(result, misfit)


SCALAR_MISFITS = [
    pytest.param({"is_error": "false"}, id="is_error-false-string"),
    pytest.param({"is_error": "true"}, id="is_error-true-string"),
    pytest.param({"errors": {"code": 1}}, id="errors-object"),
    pytest.param({"num_turns": [1, 2]}, id="num_turns-list"),
    pytest.param({"duration_ms": "1234"}, id="duration-string"),
    pytest.param({"result": 42}, id="result-number"),
    pytest.param({"total_cost_usd": "0.25"}, id="cost-string"),
]


@pytest.mark.parametrize("misfits", SCALAR_MISFITS)
async def test_a_result_with_scalar_misfits_keeps_them_in_extra(misfits: dict[str, Any]) -> None:
    misfit = Misfit(misfits)
    with anyio.fail_after(10):
        reply = await cs.ask("hi", transport=FakeCLI(ending_with(misfit.line())))
    result = reply.result
    issues = " | ".join(result.decode_issues)
    for key, value in misfits.items():
        assert result.extra[key] == value
        assert key in issues
    assert result.is_error is False
    assert isinstance(result.text, str)


# ======================================================================================
# 2. Frames nested 1,000+ levels deep are skipped lines, never a RecursionError
#    [before: the session ended with RecursionError; the following result was lost]


def nested(depth: int, shape: str) -> str:
    """A JSON value nested ``depth`` levels deep: arrays, objects, or both alternating."""
    if shape == "arrays":
        return "[" * depth + "]" * depth
    if shape == "objects":
        return '{"k":' * depth + "0" + "}" * depth
    opens = ['{"k":' if i % 2 == 0 else "[" for i in range(depth)]
    closes = ["}" if i % 2 == 0 else "]" for i in range(depth)]
    return "".join(opens) + "0" + "".join(reversed(closes))


#: Where a deep value goes: in a known message (compact lines are decoded by the consumer,
#: spaced ones by the reader), as the ``type`` tag itself, in a control request, alone.
DEEP_PLACES: dict[str, str] = {
    "assistant-compact": '{"type":"assistant","message":{"id":"msg_deep","type":"message",'
    '"role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_deep",'
    '"name":"Bash","input":{"command":DEEP}}]},"parent_tool_use_id":null,"session_id":"s"}',
    "assistant-spaced": '{"type": "assistant", "message": {"id": "msg_deep", "type": "message", '
    '"role": "assistant", "model": "m", "content": [{"type": "text", "text": "deep"}]}, '
    '"context_usage": DEEP}',
    "user-compact": '{"type":"user","message":{"role":"user","content":[{"type":"tool_result",'
    '"tool_use_id":"toolu_deep","content":DEEP}]},"parent_tool_use_id":null}',
    "stream-event-compact": '{"type":"stream_event","event":DEEP,"session_id":"s"}',
    "type-tag": '{"type": DEEP, "session_id": "s"}',
    "type-tag-compact": '{"type":DEEP}',
    "control-request": '{"type":"control_request","request_id":"req-deep","request":'
    '{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":DEEP},'
    '"tool_use_id":"toolu_deep"}}',
    "control-request-id": '{"type": "control_request", "request_id": DEEP, "request": '
    '{"subtype": "can_use_tool", "tool_name": "Bash", "input": {}, "tool_use_id": "t"}}',
    "control-response": '{"type":"control_response","response":{"subtype":"success",'
    '"request_id":"req-x","response":DEEP}}',
    "result": '{"type":"result","subtype":"success","is_error":false,"result":"deep",'
    '"structured_output":DEEP}',
    "system": '{"type":"system","subtype":"status","status":DEEP}',
    # Alone: a deep object is an undecodable line; a deep array does not start with "{", and
    # the framing drops it as noise (logged, not counted in lines_undecodable).
    "bare": "DEEP",
}


def reaching_the_decoder(places: list[str], shape: str) -> int:
    """How many of the lines at ``places`` reach the decoder (see "bare")."""
    return len(places) - (1 if "bare" in places and shape == "arrays" else 0)


@pytest.mark.parametrize(
    ("depth", "shape", "one_write"),
    [
        (1024, "arrays", False),
        (1025, "objects", True),
        (1500, "mixed", False),
        (4096, "arrays", True),
        (100_000, "arrays", False),
        (100_000, "objects", True),
        (100_001, "mixed", False),
    ],
)
async def test_a_deeply_nested_frame_is_a_skipped_line(
    depth: int, shape: str, one_write: bool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="claude_sdk")
    deep = nested(depth, shape)
    lines = [DEEP_PLACES[p].replace("DEEP", deep).encode() for p in DEEP_PLACES]
    markers = [f"after {place}" for place in DEEP_PLACES]

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        chunks = []
        for line, marker in zip(lines, markers, strict=True):
            chunks.append(line + b"\n" + line_of(assistant_frame(marker), compact=True) + b"\n")
        if one_write:
            await cli.send_raw(b"".join(chunks))
        else:
            for chunk in chunks:
                await cli.send_raw(chunk)
        await cli.result("the turn survived")
        await cli.state("idle")

    fake = FakeCLI(script)
    with anyio.fail_after(30):
        async with cs.open_session(transport=fake) as session:
            await session.send("go deep")
            messages = await collect(session.receive_response())
            skipped = session.lines_undecodable
            assert session.failure is None
            assert not session.closed
    assert texts(messages) == markers  # every message around the deep lines, in order
    results = [m for m in messages if isinstance(m, cs.ResultMessage)]
    assert len(results) == 1
    assert results[0].result == "the turn survived"
    assert not any(isinstance(m, cs.UnknownMessage) for m in messages)
    assert skipped == reaching_the_decoder(list(DEEP_PLACES), shape)
    assert len(warnings_of(caplog)) >= len(DEEP_PLACES)  # one per line, "bare" included
    assert errors_of(caplog) == []
    assert "req-deep" not in sdk_answers(fake)  # the deep control request was not served


@pytest.mark.parametrize("depth", [480, 499, 500, 501, 520, 990, 1000])
async def test_a_frame_near_the_depth_limit_never_raises(
    depth: int, caplog: pytest.LogCaptureFixture
) -> None:
    """Around the decoder's limit (MAX_DEPTH, 500 levels in all) a frame may be kept or
    skipped; it never ends the session, and every line is accounted for."""
    caplog.set_level(logging.WARNING, logger="claude_sdk")
    deep = nested(depth, "mixed")
    places = [p for p in DEEP_PLACES if not p.startswith("control-")]
    lines = [DEEP_PLACES[p].replace("DEEP", deep).encode() for p in places]

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        for line in lines:
            await cli.send_raw(line + b"\n")
        await cli.assistant("still here")
        await cli.result("the turn survived")

    fake = FakeCLI(script)
    kept = 0
    with anyio.fail_after(30):
        async with cs.open_session(transport=fake) as session:
            await session.send("go deep")
            async for message in session.receive_messages():
                if isinstance(message, cs.ResultMessage) and message.result == "the turn survived":
                    break
                if not (isinstance(message, cs.AssistantMessage) and message.text == "still here"):
                    kept += 1
            skipped = session.lines_undecodable
            assert session.failure is None
    assert errors_of(caplog) == []
    assert kept + skipped == reaching_the_decoder(places, "mixed")


# ======================================================================================
# 3. Control frames whose request_id is not a string are logged and ignored
#    [before: TypeError: unhashable type ended the session]

_MISSING = object()
BAD_IDS = [
    pytest.param(["req-1", "req-2"], id="list"),
    pytest.param([], id="empty-list"),
    pytest.param({"id": "req-1"}, id="object"),
    pytest.param({}, id="empty-object"),
    pytest.param(42, id="int"),
    pytest.param(-0.5, id="float"),
    pytest.param(1e300, id="huge-float"),
    pytest.param(True, id="true"),
    pytest.param(False, id="false"),
    pytest.param(None, id="null"),
    pytest.param(_MISSING, id="missing"),
]

BAD_REQUEST_BODIES: list[Any] = [
    {
        "subtype": "can_use_tool",
        "tool_name": "Bash",
        "input": {"command": "rm -rf /"},
        "tool_use_id": "toolu_bad",
    },
    {"subtype": "hook_callback", "callback_id": "hook_0", "input": {}, "tool_use_id": None},
    {"subtype": "mcp_message", "server_name": "x", "message": {"jsonrpc": "2.0", "id": 1}},
    {"subtype": "elicitation", "mcp_server_name": "x", "message": "give me a secret"},
    {"subtype": "future_request_kind", "x": 1},
    {"subtype": "can_use_tool"},  # does not fit the model either
    "not an object",
]


def with_id(frame: dict[str, Any], request_id: Any) -> dict[str, Any]:
    if request_id is not _MISSING:
        frame["request_id"] = request_id
    return frame


@pytest.mark.parametrize("bad_id", BAD_IDS)
async def test_a_control_request_with_a_bad_id_is_ignored(
    bad_id: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="claude_sdk")
    asked: list[dict[str, Any]] = []
    good: list[str] = []

    async def allow(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        asked.append(tool_input)
        return cs.PermissionAllow()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        await cli.state("running")
        bad = [
            line_of(with_id({"type": "control_request", "request": body}, bad_id), compact=c)
            for c in (True, False)
            for body in BAD_REQUEST_BODIES
        ]
        await cli.send_raw(b"\n".join(bad[:3]) + b"\n")  # several in one write
        for line in bad[3:]:
            await cli.send_raw(line + b"\n")
        request_id = await cli.start_can_use_tool("Bash", {"command": "echo good"})
        good.append(request_id)
        reply = await cli.answer(request_id)
        assert isinstance(reply, cs.PermissionAllow)
        await cli.result("served", user_message_uuids=[prompt.uuid])
        await cli.state("idle")

    fake = FakeCLI(script)
    with anyio.fail_after(10):
        async with cs.open_session(cs.Options(can_use_tool=allow), transport=fake) as session:
            await session.send("do it")
            messages = await collect(session.receive_response())
            assert session.failure is None
            assert session.inbound_in_flight == []
    result = messages[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.result == "served"
    assert asked == [{"command": "echo good"}]  # no callback ran for a bad one
    assert sdk_answers(fake) == good  # nothing written back for the bad ones
    ignored = [r for r in warnings_of(caplog) if "request_id" in r.getMessage()]
    assert len(ignored) >= 2 * len(BAD_REQUEST_BODIES)
    assert errors_of(caplog) == []


@pytest.mark.parametrize("bad_id", BAD_IDS)
async def test_a_control_cancel_request_with_a_bad_id_cancels_nothing(
    bad_id: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="claude_sdk")
    started = anyio.Event()
    release = anyio.Event()
    finished: list[str] = []
    good: list[str] = []

    async def slow_allow(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        started.set()
        await release.wait()
        finished.append(str(tool_input["command"]))
        return cs.PermissionAllow()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        request_id = await cli.start_can_use_tool("Bash", {"command": "make"})
        good.append(request_id)
        await started.wait()
        # Hostile: the bad ids may even hold the pending request's id.
        ids = [bad_id, [request_id], {"request_id": request_id}]
        for rid in ids:
            for compact in (True, False):
                frame = with_id({"type": "control_cancel_request"}, rid)
                await cli.send_raw(line_of(frame, compact=compact) + b"\n")
        await cli.send(assistant_frame("cancels sent"))
        reply = await cli.answer(request_id)  # not withdrawn: the answer comes
        assert isinstance(reply, cs.PermissionAllow)
        await cli.result("served", user_message_uuids=[prompt.uuid])
        await cli.state("idle")

    fake = FakeCLI(script)
    with anyio.fail_after(10):
        async with cs.open_session(cs.Options(can_use_tool=slow_allow), transport=fake) as session:
            await session.send("build it")
            messages: list[cs.Message] = []
            async for message in session.receive_response():
                messages.append(message)
                if isinstance(message, cs.AssistantMessage) and message.text == "cancels sent":
                    release.set()  # every bad cancel was read before this message
            assert session.failure is None
    assert finished == ["make"]  # the handler was not cancelled
    assert sdk_answers(fake) == good
    assert isinstance(messages[-1], cs.ResultMessage)
    assert errors_of(caplog) == []


@pytest.mark.parametrize("bad_id", BAD_IDS)
async def test_a_control_response_with_a_bad_id_is_ignored(
    bad_id: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="claude_sdk")

    async def script(cli: ScriptedCLI) -> None:
        async def set_model(request: Any) -> dict[str, Any]:
            real = [
                f.request_id
                for f in cli.received
                if isinstance(f, ControlRequest) and f.subtype == "set_model"
            ][-1]
            for rid in (bad_id, [real], {"request_id": real}):
                for body in (
                    {"subtype": "success", "response": {"model": "WRONG"}},
                    {"subtype": "error", "error": "WRONG"},
                    {"subtype": "success"},
                ):
                    response = with_id(dict(body), rid)
                    frame = {"type": "control_response", "response": response}
                    await cli.send_raw(line_of(frame, compact=True) + b"\n")
                    await cli.send_raw(line_of(frame, compact=False) + b"\n")
            return {"model": "claude-survivor"}

        cli.on_request("set_model", set_model)
        await cli.handshake()
        prompt = await cli.next_prompt()
        await cli.turn("a turn after the bad answers", user_message_uuids=[prompt.uuid])

    fake = FakeCLI(script)
    with anyio.fail_after(10):
        async with cs.open_session(transport=fake) as session:
            answer = await session.set_model("opus")
            assert answer.model == "claude-survivor"
            assert session.pending_requests == []
            await session.send("still there?")
            messages = await collect(session.receive_response())
            assert session.failure is None
    result = messages[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.result == "a turn after the bad answers"
    assert sdk_answers(fake) == []
    assert errors_of(caplog) == []


# ======================================================================================
# 4. Invalid UTF-8 keeps the message; NaN/Infinity are refused the same way on both paths;
#    AssistantMessage.text copes with non-string text
#    [before: the whole assistant message was dropped]

COMPACT_PREFIX = b'{"type":"assistant",'
SPACED_PREFIX = b'{"type": "assistant", '


def assistant_line(prefix: bytes, body: bytes) -> bytes:
    """An assistant frame: ``prefix`` (compact: decoded by the consumer; spaced: by the
    reader) then ``body`` (the rest of the object, without its opening brace)."""
    return prefix + body


def _msg(content: bytes, *, model: bytes = b'"claude-opus-5-5"', mid: bytes = b'"msg_x"') -> bytes:
    return (
        b'"message":{"id":' + mid + b',"type":"message","role":"assistant","model":' + model
        + b',"content":' + content + b',"stop_reason":null,"stop_sequence":null}'
    )  # fmt: skip


BAD_UTF8 = [
    pytest.param(b"\xff", id="ff"),
    pytest.param(b"\xc3\x28", id="bad-continuation"),
    pytest.param(b"\xe2\x82", id="truncated"),
    pytest.param(b"\xc0\xaf", id="overlong"),
    pytest.param(b"\xf8\x88\x80\x80\x80", id="five-bytes"),
    pytest.param(b"\x80\x80\xbf", id="lone-continuations"),
]


@pytest.mark.parametrize("bad", BAD_UTF8)
async def test_invalid_utf8_keeps_the_message_on_both_paths(bad: bytes) -> None:
    bodies = [
        # in the text, among valid multi-byte characters
        _msg(b'[{"type":"text","text":"caf\xc3\xa9 ' + bad + b' \xe2\x98\x83 end"}]') + b"}",
        # in the model, in an unknown key, and in a tool input
        _msg(
            b'[{"type":"text","text":"plain"},{"type":"tool_use","id":"t","name":"Bash",'
            b'"input":{"command":"ls ' + bad + b'"}}]',
            model=b'"claude-' + bad + b'"',
        )
        + b',"future_'
        + bad
        + b'":1}',
    ]
    lines = [assistant_line(p, b) for b in bodies for p in (COMPACT_PREFIX, SPACED_PREFIX)]

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        for line in lines:
            await cli.send_raw(line + b"\n")
        await cli.result("done")

    with anyio.fail_after(10):
        async with cs.open_session(transport=FakeCLI(script)) as session:
            await session.send("hi")
            messages = await collect(session.receive_response())
            assert session.lines_undecodable == 0
    kept = [m for m in messages if isinstance(m, cs.AssistantMessage)]
    assert len(kept) == len(lines)
    for compact, spaced in zip(kept[0::2], kept[1::2], strict=True):
        assert compact.text == spaced.text  # the consumer and the reader decode alike
        assert compact.model == spaced.model
        assert compact.decode_issues == spaced.decode_issues
        assert any("UTF-8" in issue for issue in compact.decode_issues), compact.decode_issues
    assert kept[0].text.startswith("café ")
    assert kept[0].text.endswith(" ☃ end")
    assert "\ufffd" in kept[0].text
    assert kept[2].text == "plain"
    assert "\ufffd" in kept[2].model
    tool = kept[2].content[1]
    assert isinstance(tool, cs.ToolUseBlock)
    assert "\ufffd" in tool.input["command"]


@pytest.mark.parametrize(
    "bad",
    [b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xed\xa0\xbd\xed\xb8\x80"],
    ids=["high", "low", "pair"],
)
async def test_utf8_encoded_surrogates_are_replaced_too(bad: bytes) -> None:
    body = _msg(b'[{"type":"text","text":"a ' + bad + b' b"}]') + b"}"
    lines = [assistant_line(p, body) for p in (COMPACT_PREFIX, SPACED_PREFIX)]

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        for line in lines:
            await cli.send_raw(line + b"\n")
        await cli.result("done")

    with anyio.fail_after(10):
        async with cs.open_session(transport=FakeCLI(script)) as session:
            await session.send("hi")
            messages = await collect(session.receive_response())
    kept = [m for m in messages if isinstance(m, cs.AssistantMessage)]
    assert len(kept) == 2
    for message in kept:
        assert "\ufffd" in message.text
        assert message.text.encode("utf-8")
        assert any("UTF-8" in issue for issue in message.decode_issues)


NON_FINITE = [b"NaN", b"Infinity", b"-Infinity"]


@pytest.mark.parametrize("constant", NON_FINITE, ids=lambda c: c.decode())
async def test_nan_and_infinity_are_refused_on_both_paths(
    constant: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="claude_sdk")
    text = b'[{"type":"text","text":"NONFINITE"}]'
    bodies = [
        _msg(text, mid=b'"msg_nan"') + b',"context_usage":' + constant + b"}",
        _msg(b'[{"type":"text","text":"NONFINITE","citations":[' + constant + b"]}]")
        + b',"uuid":"u"}',
        _msg(
            b'[{"type":"tool_use","id":"t","name":"Bash","input":{"n":' + constant + b"}}]",
            mid=b'"msg_nan"',
        )
        + b"}",
        _msg(b'[{"type":"text","text":' + constant + b"}]") + b"}",
    ]
    others = [
        b'{"type": "result", "subtype": "success", "is_error": false, "result": "NONFINITE", '
        b'"total_cost_usd": ' + constant + b"}",
        b'{"type":"result","subtype":"success","is_error":false,"result":"NONFINITE",'
        b'"total_cost_usd":' + constant + b"}",
        b'{"type":"system","subtype":"status","status":"NONFINITE","x":' + constant + b"}",
        b'{"type":"control_request","request_id":"req-nan","request":{"subtype":"can_use_tool",'
        b'"tool_name":"Bash","input":{"n":' + constant + b'},"tool_use_id":"t"}}',
        b'{"type":"user","message":{"role":"user","content":"NONFINITE"},"n":' + constant + b"}",
        b'{"type":"stream_event","event":{"type":"NONFINITE","v":' + constant + b"}}",
    ]
    lines = [assistant_line(p, b) for b in bodies for p in (COMPACT_PREFIX, SPACED_PREFIX)]
    lines += others

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        for i, line in enumerate(lines):
            await cli.send_raw(line + b"\n")
            await cli.assistant(f"marker {i}")
        await cli.result("the real result")

    fake = FakeCLI(script)
    with anyio.fail_after(10):
        async with cs.open_session(transport=fake) as session:
            await session.send("hi")
            messages = await collect(session.receive_response())
            skipped = session.lines_undecodable
    assert texts(messages) == [f"marker {i}" for i in range(len(lines))]  # none half-accepted
    assert [m.result for m in messages if isinstance(m, cs.ResultMessage)] == ["the real result"]
    assert not any("NONFINITE" in repr(m) for m in messages)
    assert skipped == len(lines)
    assert len(warnings_of(caplog)) >= len(lines)
    assert "req-nan" not in sdk_answers(fake)


@pytest.mark.parametrize(
    "value",
    [b"null", b"5", b"-1.5e3", b"true", b'{"a":"b"}', b'["x", "y"]'],
    ids=["null", "int", "float", "bool", "object", "list"],
)
async def test_assistant_text_copes_with_a_text_that_is_not_a_string(value: bytes) -> None:
    content = (
        b'[{"type":"text","text":"before "},{"type":"text","text":' + value + b"},"
        b'{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"after"}]'
    )
    lines = [assistant_line(p, _msg(content) + b"}") for p in (COMPACT_PREFIX, SPACED_PREFIX)]

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        for line in lines:
            await cli.send_raw(line + b"\n")
        await cli.result("done")

    with anyio.fail_after(10):
        async with cs.open_session(transport=FakeCLI(script)) as session:
            await session.send("hi")
            messages = await collect(session.receive_response())
            assert session.lines_undecodable == 0
    assert texts(messages) == ["before after", "before after"]


# ======================================================================================
# 5. set_max_thinking_tokens(None) sends an explicit null
#    [before: the key was omitted]


def serving(cli_script: Script | None = None) -> FakeCLI:
    async def idle(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.serve_until_stdin_closes()

    return FakeCLI(cli_script or idle)


@pytest.mark.parametrize(
    ("tokens", "display"),
    [(None, None), (None, "summarized"), (0, None), (31_999, "omitted")],
)
async def test_set_max_thinking_tokens_writes_the_key_even_when_null(
    tokens: int | None, display: str | None
) -> None:
    fake = serving()
    with anyio.fail_after(10):
        async with cs.open_session(transport=fake) as session:
            await session.set_max_thinking_tokens(tokens, thinking_display=display)
    sent = [
        r.line
        for r in fake.log
        if isinstance(r.frame, ControlRequest) and r.frame.subtype == "set_max_thinking_tokens"
    ]
    assert len(sent) == 1
    request = json.loads(sent[0])["request"]
    expected: dict[str, Any] = {"subtype": "set_max_thinking_tokens", "max_thinking_tokens": tokens}
    if display is not None:
        expected["thinking_display"] = display
    assert request == expected
    assert "max_thinking_tokens" in request  # present, null included


# ======================================================================================
# 6. mcp_set_servers takes what Options.mcp_servers takes and sends the wire form
#    [before: TypeError: Object of type McpStdioServer is not JSON serializable]


def mcp_servers() -> tuple[dict[str, Any], dict[str, Any]]:
    """Servers of every kind, and their wire form (written out by hand)."""
    servers: dict[str, Any] = {
        "files": cs.McpStdioServer(
            command="npx",
            args=["-y", "@acme/files", "--root=/tmp/a b", "☃"],
            env={"TOKEN": "s3=cr'et\"", "EMPTY": ""},
            timeout=15_000,
            always_load=True,
        ),
        "bare": cs.McpStdioServer(command="/usr/local/bin/mcp-bare"),
        "events": cs.McpSSEServer(
            url="https://sse.example/mcp?x=1&y=ü",
            headers={"Authorization": "Bearer abc"},
            tools=[{"name": "search", "permission_policy": "ask"}],
            always_load=False,
        ),
        "api": cs.McpHttpServer(url="https://api.example/mcp", timeout=2_000),
        "raw-dict": {"type": "http", "url": "https://raw.example", "futureKey": [1, {"a": None}]},
        "ünï cøde": {"type": "stdio", "command": "srv", "args": []},
    }
    wire: dict[str, Any] = {
        "files": {
            "type": "stdio",
            "command": "npx",
            "args": ["-y", "@acme/files", "--root=/tmp/a b", "☃"],
            "env": {"TOKEN": "s3=cr'et\"", "EMPTY": ""},
            "timeout": 15_000,
            "alwaysLoad": True,
        },
        "bare": {"type": "stdio", "command": "/usr/local/bin/mcp-bare", "args": []},
        "events": {
            "type": "sse",
            "url": "https://sse.example/mcp?x=1&y=ü",
            "headers": {"Authorization": "Bearer abc"},
            "tools": [{"name": "search", "permission_policy": "ask"}],
            "alwaysLoad": False,
        },
        "api": {"type": "http", "url": "https://api.example/mcp", "timeout": 2_000},
        "raw-dict": {"type": "http", "url": "https://raw.example", "futureKey": [1, {"a": None}]},
        "ünï cøde": {"type": "stdio", "command": "srv", "args": []},
    }
    return servers, wire


@pytest.mark.parametrize("subset", ["all", "files", "events", "api", "raw-dict"])
async def test_mcp_set_servers_sends_the_wire_form_of_every_server_kind(subset: str) -> None:
    servers, wire = mcp_servers()
    if subset != "all":
        servers, wire = {subset: servers[subset]}, {subset: wire[subset]}
    fake = serving()
    with anyio.fail_after(10):
        async with cs.open_session(transport=fake) as session:
            answer = await session.mcp_set_servers(servers)
    assert sorted(answer.added or []) == sorted(wire)
    sent = [
        r.line
        for r in fake.log
        if isinstance(r.frame, ControlRequest) and r.frame.subtype == "mcp_set_servers"
    ]
    assert len(sent) == 1
    assert json.loads(sent[0])["request"] == {"subtype": "mcp_set_servers", "servers": wire}
    # The same values in Options.mcp_servers give the same wire form in initialize (their
    # headers and env are kept off the command line).
    launched = serving()
    with anyio.fail_after(10):
        async with cs.open_session(cs.Options(mcp_servers=servers), transport=launched):
            pass
    assert "--await-initialize" in launched.cli.argv
    assert not [a for a in launched.cli.argv if a.startswith("--mcp-config")]
    init = [
        json.loads(r.line)["request"]
        for r in launched.log
        if isinstance(r.frame, ControlRequest) and r.frame.subtype == "initialize"
    ]
    assert init[0]["mcpServers"] == wire


class EchoHandler:
    """An in-process server that answers JSON-RPC itself (no ``mcp`` package involved)."""

    async def handle_mcp_message(self, message: dict[str, Any]) -> dict[str, Any] | None:
        if "id" not in message:
            return None
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"echo": message.get("method")}}


async def test_mcp_set_servers_starts_in_process_servers_like_options_does() -> None:
    @cs.tool(description="Add two numbers")
    async def add(a: int, b: int) -> str:
        return str(a + b)

    servers: dict[str, Any] = {
        "calc": cs.create_sdk_mcp_server("calc", tools=[add]),
        "echo": {"type": "sdk", "instance": EchoHandler()},  # the official SDKs' shape
        "remote": cs.McpHttpServer(url="https://remote.example/mcp"),
    }
    answers: dict[str, Any] = {}
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        asked = anyio.Event()

        def on_set_servers(request: Any) -> dict[str, Any]:
            asked.set()
            return {"added": sorted(request.servers), "removed": [], "errors": {}}

        cli.on_request("mcp_set_servers", on_set_servers)
        await cli.handshake()
        await asked.wait()
        init = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "claude-code", "version": "2.1.330"},
        }
        await cli.mcp_message(
            "calc", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}
        )
        await cli.mcp_message("calc", {"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"name": "add", "arguments": {"a": 40, "b": 2}}
        answers["calc"] = await cli.mcp_message(
            "calc", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
        )
        answers["echo"] = await cli.mcp_message(
            "echo", {"jsonrpc": "2.0", "id": 7, "method": "ping"}
        )
        done.set()

    fake = FakeCLI(script)
    with anyio.fail_after(15):
        async with cs.open_session(transport=fake) as session:
            answer = await session.mcp_set_servers(servers)
            await done.wait()
    assert answer.added == ["calc", "echo", "remote"]
    sent = [
        r.line
        for r in fake.log
        if isinstance(r.frame, ControlRequest) and r.frame.subtype == "mcp_set_servers"
    ]
    assert json.loads(sent[0])["request"]["servers"] == {
        "calc": {"type": "sdk", "name": "calc"},
        "echo": {"type": "sdk", "name": "echo"},
        "remote": {"type": "http", "url": "https://remote.example/mcp"},
    }
    assert answers["calc"]["mcp_response"]["result"]["content"][0]["text"] == "42"
    assert answers["echo"]["mcp_response"] == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {"echo": "ping"},
    }


# ======================================================================================
# 7. wait_until_idle: prompts settled by uuid, not by counting results
#    [before: never returned after interrupt(cancel_queued=True)]


def prompt_uuids(fake: FakeCLI) -> list[str]:
    uuids = [p.uuid for p in fake.cli.prompts]
    assert all(isinstance(u, str) and u for u in uuids), uuids  # every prompt carries one
    assert len(set(uuids)) == len(uuids)
    return [u for u in uuids if u is not None]


@pytest.mark.parametrize(("queued", "own_uuids"), [(1, False), (2, True), (3, False)])
async def test_wait_until_idle_returns_after_interrupt_cancel_queued(
    queued: int, own_uuids: bool
) -> None:
    interrupts: list[dict[str, Any]] = []

    async def script(cli: ScriptedCLI) -> None:
        def on_interrupt(request: Any) -> dict[str, Any]:
            interrupts.append(cs.wire.to_dict(request))
            return {"still_queued": [], "cancelled": [p.uuid for p in cli.prompts[1:]]}

        cli.on_request("interrupt", on_interrupt)
        await cli.handshake()
        first = await cli.next_prompt()
        await cli.state("running")
        await cli.system_init()
        await cli.assistant("working on the first prompt")
        for _ in range(queued):
            await cli.next_prompt()
        await cli.wait_for_interrupt()
        await cli.user_note("[Request interrupted by user]")
        await cli.result(subtype="error_during_execution", user_message_uuids=[first.uuid])
        await cli.state("idle")

    fake = FakeCLI(script)
    with anyio.fail_after(10):
        async with cs.open_session(transport=fake) as session:
            for i in range(queued + 1):
                if own_uuids:
                    await session.send(cs.UserMessage.prompt(f"prompt {i}", uuid=f"mine-{i}"))
                else:
                    await session.send(f"prompt {i}")
            async for message in session.receive_response():
                if isinstance(message, cs.AssistantMessage):
                    break  # mid-turn, the others queued
            receipt = await session.interrupt(cancel_queued=True)
            uuids = prompt_uuids(fake)
            assert receipt.cancelled == uuids[1:]
            assert await session.wait_until_idle() is True
            assert session.state == "idle"
            rest = await collect(session.receive_response())
    if own_uuids:
        assert uuids == [f"mine-{i}" for i in range(queued + 1)]
    assert interrupts == [{"subtype": "interrupt", "cancel_queued": True}]
    result = rest[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.is_error
    assert result.user_message_uuids == uuids[:1]


@pytest.mark.parametrize("order", ["in-order", "reversed", "with-a-foreign-uuid"])
async def test_wait_until_idle_returns_when_one_result_answers_two_queued_prompts(
    order: str,
) -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        first = await cli.next_prompt()
        await cli.state("running")
        await cli.assistant("first")
        second, third = await cli.next_prompt(), await cli.next_prompt()
        await cli.result("one", user_message_uuids=[first.uuid])
        await cli.assistant("second and third together")
        named = [second.uuid, third.uuid]
        if order == "reversed":
            named.reverse()
        elif order == "with-a-foreign-uuid":
            named.insert(1, "a-task-notification")
        await cli.result("two and three", user_message_uuids=named)
        await cli.state("idle")

    fake = FakeCLI(script)
    with anyio.fail_after(10):
        async with cs.open_session(transport=fake) as session:
            for i in range(3):
                await session.send(f"prompt {i}")
            assert await session.wait_until_idle() is True
            # it returned only once the second result was read
            first = await collect(session.receive_response())
            second = await collect(session.receive_response())
    assert [m.result for m in first + second if isinstance(m, cs.ResultMessage)] == [
        "one",
        "two and three",
    ]
    prompt_uuids(fake)


async def _own_turn_then_ours(*, named_turn_first: bool) -> None:
    go_on = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        if named_turn_first:
            first = await cli.next_prompt()
            await cli.turn("our first turn", user_message_uuids=[first.uuid])
        ours = await cli.next_prompt()
        # A turn of the CLI's own (a task notification) runs before it takes our prompt.
        await cli.state("running")
        await cli.assistant("a background task finished")
        await cli.result("own turn", user_message_uuids=["task-notification-uuid"])
        await cli.state("idle")
        await go_on.wait()
        await cli.turn("our turn", user_message_uuids=[ours.uuid])

    fake = FakeCLI(script)
    with anyio.fail_after(10):
        async with cs.open_session(transport=fake) as session:
            if named_turn_first:
                await session.send("first")
                await collect(session.receive_response())
                assert await session.wait_until_idle() is True
            await session.send("ours")
            seen_own = False
            async for message in session.receive_messages():
                if isinstance(message, cs.ResultMessage):
                    assert message.result == "own turn"
                    seen_own = True
                if seen_own and isinstance(message, cs.SessionStateChangedMessage):
                    assert message.state == "idle"
                    break
            returned = False
            with anyio.move_on_after(0.3):
                returned = await session.wait_until_idle()
            assert not returned, "wait_until_idle returned while our prompt was open"
            go_on.set()
            assert await session.wait_until_idle() is True
            rest = await collect(session.receive_response())
    assert isinstance(rest[-1], cs.ResultMessage)
    assert rest[-1].result == "our turn"


async def test_a_result_of_the_clis_own_turn_does_not_settle_our_prompt() -> None:
    await _own_turn_then_ours(named_turn_first=True)


async def test_a_first_result_of_the_clis_own_turn_does_not_settle_our_prompt() -> None:
    await _own_turn_then_ours(named_turn_first=False)


# ======================================================================================
# 8. Leaving a session mid-turn
#    [before: 10.5 s with the default 5 s grace]


async def allow_all(
    name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
) -> cs.PermissionResult:
    return cs.PermissionAllow()


async def mid_turn(session: cs.Session, prompt: str = "start a turn that never ends") -> None:
    await session.send(prompt)
    async for message in session.receive_messages():
        if isinstance(message, cs.AssistantMessage):
            return


def log_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


@dataclass
class Teardown:
    """One call of a transport's ``graceful_end``: when its teardown began, the connection's
    ``shutdown_deadline`` then, and when the graceful part of the teardown ends."""

    began: float
    deadline: float | None
    end: float


def watch_teardowns(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[Teardown]:
    """Record each teardown of ``module``'s connections (its ``graceful_end``)."""
    seen: list[Teardown] = []
    real = module.graceful_end

    def graceful_end(grace: float, deadline: float | None) -> float:
        end: float = real(grace, deadline)
        seen.append(Teardown(anyio.current_time(), deadline, end))
        return end

    monkeypatch.setattr(module, "graceful_end", graceful_end)
    return seen


def check_one_grace(teardowns: list[Teardown], left: float, grace: float) -> None:
    """The one grace rule, from what the code computed (no duration is measured): the
    session set the deadline one grace after the body left; the transport's teardown began
    only once that deadline had passed (the session waited for the CLI until then) and gave
    no new grace (its graceful part ends at that deadline: SIGTERM at once)."""
    assert len(teardowns) == 1
    (teardown,) = teardowns
    assert teardown.deadline is not None  # the session's deadline reached the transport
    assert teardown.deadline >= left + grace  # a whole grace, counted from leaving
    assert teardown.began >= teardown.deadline  # spent before the teardown began
    assert teardown.end == teardown.deadline  # not a second grace


def interrupts_in(lines: list[str]) -> list[dict[str, Any]]:
    out = []
    for line in lines:
        if line.startswith("{"):
            frame = json.loads(line)
            request = frame.get("request")
            if frame.get("type") == "control_request" and request.get("subtype") == "interrupt":
                out.append(frame)
    return out


@pytest.mark.parametrize("callbacks", [False, True], ids=["plain", "with-callbacks"])
async def test_a_normal_exit_mid_turn_waits_the_grace_once_real_process(
    launchers: dict[str, Path], tmp_path: Path, callbacks: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "stdin.log"
    grace = 1.0
    teardowns = watch_teardowns(monkeypatch, subprocess_transport)
    extra: dict[str, Any] = {"can_use_tool": allow_all} if callbacks else {}
    opts = stuck_claude(launchers, f"on_eof=ignore,log={log}", shutdown_grace=grace, **extra)
    with anyio.fail_after(15):
        async with cs.open_session(opts, transport=SubprocessTransport()) as session:
            await mid_turn(session)
            left = anyio.current_time()
    check_one_grace(teardowns, left, grace)  # once, not twice
    assert session.returncode == SIGTERM_STATUS  # ignored EOF, so it was terminated
    lines = log_lines(log)
    assert lines[-2:] == ["EOF", "SIGTERM"]  # stdin was closed first (the graceful part)
    assert interrupts_in(lines) == []  # a normal exit does not interrupt


@pytest.mark.parametrize("callbacks", [False, True], ids=["plain", "with-callbacks"])
async def test_a_normal_exit_mid_turn_waits_the_grace_once_fake_cli(
    callbacks: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    grace = 1.0
    teardowns = watch_teardowns(monkeypatch, memory_transport)

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.assistant("working")
        await anyio.sleep_forever()  # ignores stdin EOF

    fake = FakeCLI(script)
    extra: dict[str, Any] = {"can_use_tool": allow_all} if callbacks else {}
    with anyio.fail_after(10):
        async with cs.open_session(
            cs.Options(shutdown_grace=grace, **extra), transport=fake
        ) as session:
            await mid_turn(session)
            left = anyio.current_time()
    check_one_grace(teardowns, left, grace)  # once, not twice
    assert fake.cli.stdin_closed
    assert session.returncode == SIGTERM_STATUS


class BoomError(Exception):
    pass


async def leave(how: str, session: cs.Session, scope: anyio.CancelScope) -> None:
    """Leave the session's block mid-turn: by cancellation or by an exception."""
    if how == "cancel":
        scope.cancel()
        await anyio.sleep_forever()
    elif how == "deadline":
        scope.deadline = anyio.current_time() + 0.05
        async for _ in session.receive_messages():  # blocked mid-turn when the deadline hits
            pass
        raise AssertionError("the output ended")
    else:
        raise BoomError("the body failed mid-turn")


HOW = ["cancel", "deadline", "exception"]


@pytest.mark.parametrize("how", HOW)
async def test_leaving_by_cancel_or_error_is_prompt_real_process(
    launchers: dict[str, Path], tmp_path: Path, how: str
) -> None:
    log = tmp_path / "stdin.log"
    # Leaving in a hurry does not wait the grace: an hour's would fail the test (the hang
    # guard, or pytest-timeout past the shielded teardown).
    opts = stuck_claude(launchers, f"on_eof=ignore,log={log}", shutdown_grace=FOREVER)
    with anyio.fail_after(15):
        with anyio.CancelScope() as scope:
            try:
                async with cs.open_session(opts, transport=SubprocessTransport()) as session:
                    await mid_turn(session)
                    await leave(how, session, scope)
            except BoomError:
                assert how == "exception"
    assert session.returncode == SIGTERM_STATUS
    lines = log_lines(log)
    assert len(interrupts_in(lines)) == 1  # written before the CLI was terminated
    assert lines[-1] == "SIGTERM"


async def leave_fake_cli_mid_turn(how: str) -> tuple[FakeCLI, cs.Session]:
    """Leave mid-turn by ``how``, with a grace of an hour: a hasty exit must not wait it."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.assistant("working")
        await anyio.sleep_forever()  # ignores stdin EOF (the fake still answers requests)

    fake = FakeCLI(script)
    with anyio.fail_after(15):
        with anyio.CancelScope() as scope:
            try:
                opts = cs.Options(shutdown_grace=FOREVER)
                async with cs.open_session(opts, transport=fake) as session:
                    await mid_turn(session)
                    await leave(how, session, scope)
            except BoomError:
                assert how == "exception"
    return fake, session


@pytest.mark.parametrize("how", HOW)
async def test_leaving_by_cancel_or_error_is_prompt_fake_cli(how: str) -> None:
    fake, session = await leave_fake_cli_mid_turn(how)
    assert session.returncode == SIGTERM_STATUS  # the fake was torn down, not exited
    if how == "exception":
        assert fake.cli.interrupt_count == 1


@pytest.mark.parametrize("how", ["cancel", "deadline"])
async def test_the_fake_cli_sees_the_interrupt_when_left_by_cancellation(how: str) -> None:
    fake, _ = await leave_fake_cli_mid_turn(how)
    assert fake.cli.interrupt_count == 1


async def test_a_normal_exit_keeps_the_graceful_wait_real_process(
    launchers: dict[str, Path], tmp_path: Path
) -> None:
    log = tmp_path / "stdin.log"
    # The CLI finishes 0.4 s after EOF; the session waits for that, not for the whole grace
    # (an hour: waiting it out would fail the test).
    opts = stuck_claude(
        launchers, f"on_eof=finish,finish_delay=0.4,log={log}", shutdown_grace=FOREVER
    )
    with anyio.fail_after(15):
        async with cs.open_session(opts, transport=SubprocessTransport()) as session:
            await mid_turn(session)
    assert session.returncode == 0  # not signalled: it was given the time to finish
    lines = log_lines(log)
    assert lines[-2:] == ["EOF", "FINISHED"]  # the late result came after stdin closed
    assert interrupts_in(lines) == []


@pytest.mark.parametrize("callbacks", [False, True], ids=["plain", "with-callbacks"])
async def test_a_normal_exit_keeps_the_graceful_wait_fake_cli(callbacks: bool) -> None:
    events: list[str] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        await cli.state("running")
        await cli.assistant("working")
        if not callbacks:
            await cli.wait_for_stdin_close()
            events.append("stdin closed")
        await anyio.sleep(0.3)  # the turn ends a little later
        await cli.result("finished", user_message_uuids=[prompt.uuid])
        await cli.state("idle")
        events.append("idle")
        await cli.wait_for_stdin_close()
        if callbacks:
            events.append("stdin closed")
        await cli.exit(0)

    fake = FakeCLI(script)
    extra: dict[str, Any] = {"can_use_tool": allow_all} if callbacks else {}
    # The grace is an hour: the session waits for the CLI's own exit, not for the grace.
    with anyio.fail_after(10):
        async with cs.open_session(
            cs.Options(shutdown_grace=FOREVER, **extra), transport=fake
        ) as session:
            await mid_turn(session)
    assert session.returncode == 0  # it exited on its own, after its late result
    # With callbacks, stdin stays open until the turn has settled (the CLI may still call
    # back); without, it closes at once and the CLI finishes after.
    assert events == (["idle", "stdin closed"] if callbacks else ["stdin closed", "idle"])
    assert fake.cli.interrupt_count == 0


# ======================================================================================
# 9. Cancelling mid-turn over SSH raises nothing
#    [before: SessionClosedError: the CLI's output ended before the turn's result (asyncio)]


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SSHServer]:
    yield from serve_for_tests(tmp_path_factory.mktemp("sshd"))


async def cancel_mid_turn(transport: Any, opts: cs.Options, how: str) -> int:
    """Leave a session mid-turn by cancelling the scope around it: from inside the consumer's
    loop (``cancel``) or by a deadline that expires while it waits (``deadline``)."""
    seen = 0
    with anyio.CancelScope() as scope:
        async with cs.open_session(opts, transport=transport) as session:
            await session.send("go")
            if how == "deadline":
                scope.deadline = anyio.current_time() + 0.3
            async for _ in session.receive_response():
                seen += 1
                if how == "cancel" and seen == 1:
                    scope.cancel()
            raise AssertionError("the turn ended")
    assert scope.cancelled_caught
    assert session.failure is None
    return seen


@pytest.mark.parametrize(
    ("cli", "how"), [("stuck", "cancel"), ("stuck", "deadline"), ("flood", "deadline")]
)
async def test_cancelling_mid_turn_over_ssh_raises_nothing(
    sshd: SSHServer,
    launchers: dict[str, Path],
    cli: str,
    how: str,
) -> None:
    if cli == "stuck":
        opts = stuck_claude(launchers, "on_eof=ignore", initialize_timeout=20)
    else:
        opts = fake_claude(launchers, "flood=100000", initialize_timeout=20)
    ssh = SSHTransport(sshd.host, **sshd.transport_kwargs(remote_python=sys.executable))
    with anyio.fail_after(20):
        seen = await cancel_mid_turn(ssh, opts, how)
    assert seen >= 1
    assert await wait_dead(descendants(sshd.pid), timeout=6) == []


@pytest.mark.parametrize("how", ["cancel", "deadline"])
@pytest.mark.parametrize("cli", ["fake-cli", "process"])
async def test_cancelling_mid_turn_raises_nothing(
    launchers: dict[str, Path],
    cli: str,
    how: str,
) -> None:
    """The same, without SSH (the bug was not SSH's: FakeCLI showed it every time)."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.system_init()
        await cli.assistant("working")
        await anyio.sleep_forever()

    transport: Any = FakeCLI(script) if cli == "fake-cli" else SubprocessTransport()
    opts = cs.Options() if cli == "fake-cli" else stuck_claude(launchers, "on_eof=ignore")
    with anyio.fail_after(10):
        assert await cancel_mid_turn(transport, opts, how) >= 1


# ======================================================================================
# 10. Deadline errors reach the caller without waiting the grace
#     (the grace is an hour: waiting it would fail the test; the error tells which rule acted)


async def test_initialize_timeout_is_prompt_fake_cli() -> None:
    async def never_answers(cli: ScriptedCLI) -> None:
        await cli.hang()

    opts = cs.Options(initialize_timeout=0.5, shutdown_grace=FOREVER)
    with anyio.fail_after(10), pytest.raises(cs.InitializeTimeoutError) as info:
        async with cs.open_session(opts, transport=FakeCLI(never_answers)):
            pytest.fail("the session must not start")
    assert info.value.timeout == 0.5  # the timeout acted, not the grace


async def test_initialize_timeout_is_prompt_real_process(launchers: dict[str, Path]) -> None:
    opts = stuck_claude(
        launchers,
        "no_initialize,on_eof=ignore",
        initialize_timeout=0.5,
        shutdown_grace=FOREVER,
    )
    with anyio.fail_after(10), pytest.raises(cs.InitializeTimeoutError) as info:
        async with cs.open_session(opts, transport=SubprocessTransport()):
            pytest.fail("the session must not start")
    assert info.value.timeout == 0.5  # the timeout acted, not the grace


async def test_control_timeout_is_prompt_fake_cli() -> None:
    async def hangs_after_initialize(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.hang()

    opts = cs.Options(control_timeout=0.5, shutdown_grace=FOREVER)
    with anyio.fail_after(10), pytest.raises(cs.ControlTimeoutError) as info:
        async with cs.open_session(opts, transport=FakeCLI(hangs_after_initialize)) as session:
            await session.set_model("opus")
    assert info.value.subtype == "set_model"
    assert not isinstance(info.value, cs.InitializeTimeoutError)


async def test_control_timeout_is_prompt_real_process(launchers: dict[str, Path]) -> None:
    opts = stuck_claude(
        launchers,
        "ignore=set_model,on_eof=ignore",
        control_timeout=0.5,
        shutdown_grace=FOREVER,
    )
    with anyio.fail_after(10), pytest.raises(cs.ControlTimeoutError) as info:
        async with cs.open_session(opts, transport=SubprocessTransport()) as session:
            await session.set_model("opus")
    assert info.value.subtype == "set_model"
    assert session.returncode == SIGTERM_STATUS


# ======================================================================================
# 11. A CLI that fails at once keeps its message (exit status and stderr)
#     [before: 4 of 5 runs said only "the CLI's stdin is closed (exit code 1)"]


def check_process_error(error: BaseException, code: int, stderr: str) -> str | None:
    """None if ``error`` is the `ProcessError` expected, else what it is."""
    if not isinstance(error, cs.ProcessError):
        return f"{type(error).__name__}: {error}"
    if error.exit_code != code or stderr not in error.stderr_tail or stderr not in str(error):
        return f"ProcessError without the facts: {error!r} {error.stderr_tail!r}"
    return None


async def test_a_cli_that_exits_at_once_is_a_process_error_every_time(
    launchers: dict[str, Path],
) -> None:
    problems: list[str] = []
    for run in range(10):
        opts = fake_claude(launchers, "exit_now=1")
        try:
            with anyio.fail_after(10):
                async with cs.open_session(opts, transport=SubprocessTransport()) as session:
                    if run % 2:
                        await session.set_model("opus")
                    else:
                        await session.send("hello?")
                    problems.append(f"run {run}: no error")
        except Exception as exc:
            problem = check_process_error(exc, 1, "fake claude refuses to start")
            if problem is not None:
                problems.append(f"run {run}: {problem}")
    assert problems == []


async def test_a_cli_that_exits_on_the_first_prompt_is_a_process_error_every_time(
    launchers: dict[str, Path],
) -> None:
    problems: list[str] = []
    for run in range(10):
        opts = fake_claude(launchers, "exit=3")
        try:
            with anyio.fail_after(10):
                async with cs.open_session(opts, transport=SubprocessTransport()) as session:
                    await session.send("please exit")
                    if run % 3 == 1:
                        # wait until the CLI is gone, then write to its closed stdin
                        pid = session.pid
                        assert pid is not None
                        assert await wait_dead([pid]) == []
                    for _ in range(1000):  # until the write meets the broken pipe
                        if run % 3 == 2:
                            await session.set_model("opus")
                        else:
                            await session.send("again")
                    problems.append(f"run {run}: no error")
        except Exception as exc:
            problem = check_process_error(exc, 3, "boom")
            if problem is not None:
                problems.append(f"run {run}: {problem}")
    assert problems == []


# ======================================================================================
# 12. inactivity_timeout does not count the time the CLI waits for our callbacks
#     [before: a 2.5 s can_use_tool with inactivity_timeout=1 aborted the session]


async def test_a_slow_permission_callback_is_not_inactivity() -> None:
    decided: list[str] = []

    async def slow_allow(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        await anyio.sleep(2.5)  # longer than inactivity_timeout: anyio never wakes early
        decided.append(name)
        return cs.PermissionAllow()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        await cli.turn(
            "ran after a slow decision",
            tools=[ToolCall("Bash", {"command": "make test"})],
            user_message_uuids=[prompt.uuid],
        )

    opts = cs.Options(can_use_tool=slow_allow, inactivity_timeout=1)
    with anyio.fail_after(15):
        async with cs.open_session(opts, transport=FakeCLI(script)) as session:
            await session.send("run the tests")
            messages = await collect(session.receive_response())
    result = messages[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.result == "ran after a slow decision"
    assert not result.permission_denials
    assert decided == ["Bash"]  # the slow decision ran to its end, once


async def test_a_slow_hook_is_not_inactivity() -> None:
    calls: list[str] = []

    async def slow_hook(hook_input: cs.PreToolUseInput, context: cs.HookContext) -> None:
        await anyio.sleep(1.2)
        calls.append(hook_input.tool_name)

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        await cli.turn(
            "hooked",
            tools=[ToolCall("Read", {"file_path": "/etc/hosts"}, ask=False)],
            user_message_uuids=[prompt.uuid],
        )

    opts = cs.Options(
        hooks={"PreToolUse": [cs.HookMatcher(hooks=[slow_hook])]}, inactivity_timeout=0.5
    )
    with anyio.fail_after(15):
        async with cs.open_session(opts, transport=FakeCLI(script)) as session:
            await session.send("read it")
            messages = await collect(session.receive_response())
    assert calls == ["Read"]
    result = messages[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.result == "hooked"


async def test_a_slow_in_process_mcp_tool_is_not_inactivity() -> None:
    @cs.tool(description="Add slowly")
    async def slow_add(a: int, b: int) -> str:
        await anyio.sleep(1.2)
        return str(a + b)

    server = cs.create_sdk_mcp_server("calc", tools=[slow_add])
    answers: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        init = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "claude-code", "version": "2.1.330"},
        }
        await cli.mcp_message(
            "calc", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}
        )
        await cli.handshake()
        await cli.mcp_message("calc", {"jsonrpc": "2.0", "method": "notifications/initialized"})
        prompt = await cli.next_prompt()
        await cli.state("running")
        await cli.assistant("calling the tool")
        answers.append(
            await cli.mcp_message(
                "calc",
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "slow_add", "arguments": {"a": 2, "b": 3}},
                },
            )
        )
        await cli.result("5", user_message_uuids=[prompt.uuid])
        await cli.state("idle")

    opts = cs.Options(mcp_servers={"calc": server}, inactivity_timeout=0.5)
    with anyio.fail_after(20):
        async with cs.open_session(opts, transport=FakeCLI(script)) as session:
            await session.send("add 2 and 3")
            messages = await collect(session.receive_response())
    assert isinstance(messages[-1], cs.ResultMessage)
    assert messages[-1].result == "5"
    response = answers[0]["mcp_response"]
    assert response["id"] == 1
    assert response["result"]["content"][0]["text"] == "5"


@pytest.mark.parametrize("callback_first", [False, True], ids=["silent", "callback-then-silent"])
async def test_silence_of_the_cli_is_still_inactivity(callback_first: bool) -> None:
    timeout = 0.5
    events: list[str] = []

    async def slow_allow(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        await anyio.sleep(1.0)  # twice the inactivity timeout
        events.append("callback answered")
        return cs.PermissionAllow()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.assistant("about to go quiet")
        if callback_first:
            await cli.can_use_tool("Bash", {"command": "ls"})
        await cli.hang()  # silent from now on

    opts = cs.Options(can_use_tool=slow_allow, inactivity_timeout=timeout)
    with anyio.fail_after(10), pytest.raises(cs.InactivityTimeoutError) as info:
        async with cs.open_session(opts, transport=FakeCLI(script)) as session:
            await session.send("go")
            try:
                async for message in session.receive_response():
                    if isinstance(message, cs.AssistantMessage):
                        events.append("assistant")
            finally:
                events.append("inactivity")
    assert info.value.timeout == timeout
    # Counted from the last sign of life: the callback's answer (it took twice the timeout,
    # so a clock that ran while the CLI waited for it would have failed before it), then
    # the silence (the fail_after above guards against never).
    expected = ["assistant", "callback answered"] if callback_first else ["assistant"]
    assert events == [*expected, "inactivity"]

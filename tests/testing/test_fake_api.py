"""`FakeMessagesAPI` driven by a real HTTP/1.1 client (h11) over loopback."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import attrs
import h11
import pytest

from claude_sdk.testing import fake_api
from claude_sdk.testing.fake_api import (
    DEFAULT_TEXT,
    FakeMessagesAPI,
    RecordedRequest,
    ScriptedText,
    ScriptedThinking,
    ScriptedToolUse,
)

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

REPO = Path(__file__).resolve().parents[2]
TRANSCRIPTS = REPO / "tests" / "data" / "transcripts"
MESSAGES = "/v1/messages?beta=true"
COUNT_TOKENS = "/v1/messages/count_tokens?beta=true"


# --------------------------------------------------------------------------- a tiny client


@attrs.frozen
class Response:
    status: int
    headers: dict[str, str]
    body: bytes
    chunks: int  # Data events received: more than one for a streamed body

    def json(self) -> Any:
        return json.loads(self.body)

    def events(self) -> list[tuple[str, dict[str, Any]]]:
        """The SSE events of the body, as (event name, parsed data)."""
        events: list[tuple[str, dict[str, Any]]] = []
        text = self.body.decode()
        assert text.endswith("\n\n")
        for raw in text.split("\n\n")[:-1]:
            fields = dict(line.split(": ", 1) for line in raw.split("\n"))
            assert set(fields) == {"event", "data"}
            data = json.loads(fields["data"])
            assert data["type"] == fields["event"]
            events.append((fields["event"], data))
        return events


class Client:
    """One keep-alive HTTP/1.1 connection, driven by h11."""

    def __init__(self, stream: anyio.abc.SocketStream) -> None:
        self.stream = stream
        self.conn = h11.Connection(h11.CLIENT)

    async def send_request(
        self,
        method: str,
        target: str,
        body: Any = None,
        headers: Sequence[tuple[str, str]] = (),
        *,
        raw: bytes | None = None,
    ) -> None:
        payload = raw if raw is not None else b"" if body is None else json.dumps(body).encode()
        all_headers = [("host", "127.0.0.1"), *headers]
        if method not in ("GET", "HEAD"):
            all_headers += [
                ("content-type", "application/json"),
                ("content-length", str(len(payload))),
            ]
        data = self.conn.send(h11.Request(method=method, target=target, headers=all_headers))
        if payload:
            data += self.conn.send(h11.Data(data=payload))
        data += self.conn.send(h11.EndOfMessage())
        await self.stream.send(data)

    async def _next_event(self) -> Any:
        while True:
            event = self.conn.next_event()
            if event is not h11.NEED_DATA:
                return event
            try:
                data = await self.stream.receive()
            except anyio.EndOfStream:
                data = b""
            self.conn.receive_data(data)

    async def read_head(self) -> h11.Response:
        event = await self._next_event()
        assert isinstance(event, h11.Response), event
        return event

    async def read_response(self, head: h11.Response | None = None) -> Response:
        if head is None:
            head = await self.read_head()
        body = bytearray()
        chunks = 0
        while True:
            event = await self._next_event()
            if isinstance(event, h11.Data):
                body += event.data
                chunks += 1
            else:
                assert isinstance(event, h11.EndOfMessage), event
                break
        if self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE:
            self.conn.start_next_cycle()
        headers = {k.decode(): v.decode() for k, v in head.headers}
        return Response(status=head.status_code, headers=headers, body=bytes(body), chunks=chunks)

    async def request(
        self,
        method: str,
        target: str,
        body: Any = None,
        headers: Sequence[tuple[str, str]] = (),
    ) -> Response:
        await self.send_request(method, target, body, headers)
        return await self.read_response()

    async def read_raw_until_eof(self) -> bytes:
        """Everything the server still sends, until it closes the connection."""
        data = bytearray()
        try:
            while chunk := await self.stream.receive():
                data += chunk
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            pass
        return bytes(data)


@asynccontextmanager
async def connect(api: FakeMessagesAPI) -> AsyncIterator[Client]:
    async with await anyio.connect_tcp("127.0.0.1", api.port) as stream:
        yield Client(stream)


async def post(api: FakeMessagesAPI, target: str, body: Any) -> Response:
    async with connect(api) as client:
        return await client.request("POST", target, body)


def main_body(prompt: str = "hello", **extra: Any) -> dict[str, Any]:
    """A main-loop request shaped like the CLI's (§12.2), much shortened."""
    body: dict[str, Any] = {
        "model": "claude-opus-5-5",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "<system-reminder>\nbe nice\n</system-reminder>"},
                    {"type": "text", "text": prompt},
                ],
            },
            {"role": "system", "content": "# Environment\n…", "output_config": {}},
        ],
        "system": [
            {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.330.d01;"},
            {"type": "text", "text": "You are a Claude agent."},
        ],
        "tools": [{"name": "Bash", "input_schema": {}}, {"name": "Read", "input_schema": {}}],
        "max_tokens": 128000,
        "thinking": {"type": "adaptive", "display": "updates"},
        "stream": True,
    }
    body.update(extra)
    return body


def tool_result_body(tool_use_id: str, text: str, *, is_error: bool = False) -> dict[str, Any]:
    body = main_body()
    body["messages"] += [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": tool_use_id, "name": "Bash", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {
                    "tool_use_id": tool_use_id,
                    "type": "tool_result",
                    "content": [{"type": "text", "text": text}],
                    "is_error": is_error,
                }
            ],
        },
    ]
    return body


PROBE_BODY: dict[str, Any] = {
    "model": "claude-sonnet-4-5-20250929",
    "max_tokens": 1,
    "system": [{"type": "text", "text": "You are Claude Code."}],
    "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
}


def names(events: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [name for name, _ in events]


def text_of(events: list[tuple[str, dict[str, Any]]]) -> str:
    return "".join(
        d["delta"]["text"]
        for name, d in events
        if name == "content_block_delta" and d["delta"]["type"] == "text_delta"
    )


# --------------------------------------------------------------------------- streaming


async def test_streams_text_in_the_shapes_of_12_3() -> None:
    async with FakeMessagesAPI() as api:
        api.reply(text="Hello there, this is a longer reply.")
        response = await post(api, MESSAGES, main_body(model="claude-haiku-x"))

    assert response.status == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["transfer-encoding"] == "chunked"
    assert response.headers["request-id"].startswith("req_")
    assert response.chunks > 1
    events = response.events()
    deltas = sum(1 for name in names(events) if name == "content_block_delta")
    assert deltas > 1
    assert names(events) == [
        "message_start",
        "ping",
        "content_block_start",
        *["content_block_delta"] * deltas,
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = events[0][1]["message"]
    assert start["id"].startswith("msg_")
    assert start["model"] == "claude-haiku-x"  # echoed
    assert start["content"] == []
    assert start["stop_reason"] is None
    assert start["stop_sequence"] is None
    assert start["usage"]["input_tokens"] > 0
    assert start["usage"]["output_tokens"] == 1
    assert start["usage"]["cache_creation_input_tokens"] == 0
    assert start["usage"]["cache_read_input_tokens"] == 0
    assert events[2][1] == {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    assert all(d["index"] == 0 for name, d in events[2:-2])
    assert text_of(events) == "Hello there, this is a longer reply."
    delta = events[-2][1]
    assert delta["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}
    assert delta["usage"]["output_tokens"] > 1
    assert events[-1][1] == {"type": "message_stop"}
    (recorded,) = api.requests
    assert recorded.response["content"] == [
        {"type": "text", "text": "Hello there, this is a longer reply."}
    ]


async def test_thinking_then_text() -> None:
    async with FakeMessagesAPI() as api:
        api.reply(thinking="Let me think about this carefully.", text="ok")
        api.reply(blocks=[ScriptedText("first"), ScriptedThinking("then", signature="c2ln")])
        response = await post(api, MESSAGES, main_body())
        explicit = await post(api, MESSAGES, main_body())

    events = response.events()
    starts = [d for name, d in events if name == "content_block_start"]
    assert [s["content_block"] for s in starts] == [
        {"type": "thinking", "thinking": "", "signature": ""},
        {"type": "text", "text": ""},
    ]
    assert [s["index"] for s in starts] == [0, 1]
    block0 = [d["delta"] for name, d in events if name == "content_block_delta" and d["index"] == 0]
    assert [d["type"] for d in block0] == ["thinking_delta"] * (len(block0) - 1) + [
        "signature_delta"
    ]
    assert len(block0) > 2
    assert "".join(d["thinking"] for d in block0[:-1]) == "Let me think about this carefully."
    assert block0[-1]["signature"]
    assert block0[-1]["signature"] == api.requests[0].response["content"][0]["signature"]
    assert text_of(events) == "ok"
    stops = [d["index"] for name, d in events if name == "content_block_stop"]
    assert stops == [0, 1]
    assert events[-2][1]["delta"]["stop_reason"] == "end_turn"
    deltas = [d["delta"] for name, d in explicit.events() if name == "content_block_delta"]
    assert deltas == [
        {"type": "text_delta", "text": "first"},
        {"type": "thinking_delta", "thinking": "then"},
        {"type": "signature_delta", "signature": "c2ln"},
    ]


async def test_tool_use_streams_input_json_in_pieces() -> None:
    tool_input = {"command": "touch marker.txt", "description": "Create marker file"}
    async with FakeMessagesAPI() as api:
        api.reply(tool_use=("Bash", tool_input))
        api.reply(text="two tools", tool_use=[("Read", {"file_path": "/x"}), ("Bash", {})])
        api.reply(blocks=[ScriptedToolUse("Bash", {"command": "ls"}, id="toolu_mine")])
        first = (await post(api, MESSAGES, main_body())).events()
        second = (await post(api, MESSAGES, main_body())).events()
        third = (await post(api, MESSAGES, main_body())).events()

    start = first[2][1]["content_block"]
    assert start == {"type": "tool_use", "id": "toolu_fake_1", "name": "Bash", "input": {}}
    pieces = [
        d["delta"]["partial_json"]
        for name, d in first
        if name == "content_block_delta" and d["delta"]["type"] == "input_json_delta"
    ]
    assert len(pieces) > 1
    assert json.loads("".join(pieces)) == tool_input
    assert first[-2][1]["delta"]["stop_reason"] == "tool_use"

    blocks = [d["content_block"] for name, d in second if name == "content_block_start"]
    assert [(b["type"], b.get("id"), b.get("name")) for b in blocks] == [
        ("text", None, None),
        ("tool_use", "toolu_fake_2", "Read"),
        ("tool_use", "toolu_fake_3", "Bash"),
    ]
    empty = [
        d["delta"]["partial_json"]
        for name, d in second
        if name == "content_block_delta" and d["index"] == 2
    ]
    assert json.loads("".join(empty)) == {}
    assert second[-2][1]["delta"]["stop_reason"] == "tool_use"
    assert third[2][1]["content_block"]["id"] == "toolu_mine"


async def test_stop_reason_and_usage_can_be_overridden() -> None:
    async with FakeMessagesAPI() as api:
        api.reply(text="cut", stop_reason="max_tokens", input_tokens=2561, output_tokens=13)
        events = (await post(api, MESSAGES, main_body())).events()
    assert events[0][1]["message"]["usage"]["input_tokens"] == 2561
    assert events[-2][1]["delta"]["stop_reason"] == "max_tokens"
    assert events[-2][1]["usage"] == {"output_tokens": 13}


# --------------------------------------------------------------------------- connections


async def test_keep_alive_serves_several_requests_on_one_connection() -> None:
    async with FakeMessagesAPI() as api:
        api.reply(text="one")
        api.reply(text="two")
        async with connect(api) as client:
            first = await client.request("POST", MESSAGES, main_body())
            probe = await client.request("POST", MESSAGES, PROBE_BODY)
            count = await client.request("POST", COUNT_TOKENS, {"messages": [], "tools": []})
            second = await client.request("POST", MESSAGES, main_body())

    assert text_of(first.events()) == "one"
    assert probe.json()["type"] == "message"
    assert count.json()["input_tokens"] >= 1
    assert text_of(second.events()) == "two"
    assert [r.kind for r in api.requests] == ["main", "probe", "count_tokens", "main"]
    assert {r.connection_id for r in api.requests} == {api.requests[0].connection_id}


async def test_serves_several_connections_at_once() -> None:
    async with FakeMessagesAPI() as api:
        api.reply(hang=True)  # the first main request never ends: others must not wait on it
        async with connect(api) as stuck:
            await stuck.send_request("POST", MESSAGES, main_body())
            await api.wait_for_requests(1)
            results: list[int] = []

            async def count(i: int) -> None:
                body = {"messages": [{"role": "user", "content": "x" * 400 * i}], "tools": []}
                results.append((await post(api, COUNT_TOKENS, body)).json()["input_tokens"])

            async with anyio.create_task_group() as tg:
                for i in range(1, 6):
                    tg.start_soon(count, i)

    assert len(results) == 5
    assert len({r.connection_id for r in api.requests}) == 6


# --------------------------------------------------------------------------- side calls


async def test_probe_does_not_consume_main_loop_rules() -> None:
    async with FakeMessagesAPI() as api:
        main_rule = api.reply(text="for the main loop")
        probe = await post(api, MESSAGES, PROBE_BODY)
        streaming_probe = await post(api, MESSAGES, {**PROBE_BODY, "stream": True})
        assert main_rule.used == 0
        main = await post(api, MESSAGES, main_body())

    message = probe.json()
    assert probe.status == 200
    assert probe.headers["content-type"] == "application/json"
    assert probe.headers["request-id"].startswith("req_")
    assert message["model"] == "claude-sonnet-4-5-20250929"
    assert message["type"] == "message"
    assert message["role"] == "assistant"
    assert message["content"] == [{"type": "text", "text": "Hi"}]
    assert message["stop_reason"] == "end_turn"
    assert message["stop_sequence"] is None
    assert set(message["usage"]) >= {"input_tokens", "output_tokens"}
    assert text_of(streaming_probe.events()) == "Hi"
    assert text_of(main.events()) == "for the main loop"
    assert main_rule.used == 1
    assert [r.kind for r in api.requests] == ["probe", "probe", "main"]
    assert [r.rule for r in api.requests] == [None, None, main_rule]
    assert not api.requests[0].used_default


async def test_probe_reply_scripts_side_calls() -> None:
    async with FakeMessagesAPI() as api:
        rule = api.probe_reply(text="scripted probe", tool_use=("Bash", {"command": "ls"}))
        api.probe_reply(error=500)
        first = await post(api, MESSAGES, PROBE_BODY)
        second = await post(api, MESSAGES, PROBE_BODY)

    assert first.json()["content"] == [
        {"type": "text", "text": "scripted probe"},
        {"type": "tool_use", "id": "toolu_fake_1", "name": "Bash", "input": {"command": "ls"}},
    ]
    assert first.json()["stop_reason"] == "tool_use"
    assert api.requests[0].rule is rule
    assert second.status == 500
    assert api.pending_rules == []


async def test_count_tokens() -> None:
    small = {"model": "m", "messages": [{"role": "user", "content": "foo"}], "tools": []}
    large = {"model": "m", "messages": [{"role": "user", "content": "foo " * 1000}], "tools": []}
    async with FakeMessagesAPI() as api:
        api.reply(text="main")
        auto_small = await post(api, COUNT_TOKENS, small)
        auto_large = await post(api, COUNT_TOKENS, large)
        api.count_tokens_reply(1234)
        scripted = await post(api, COUNT_TOKENS, small)

    assert auto_small.status == 200
    assert set(auto_small.json()) == {"input_tokens"}
    assert 1 <= auto_small.json()["input_tokens"] < auto_large.json()["input_tokens"]
    assert scripted.json() == {"input_tokens": 1234}
    assert [r.kind for r in api.requests] == ["count_tokens"] * 3
    assert api.rules[0].used == 0  # the main-loop rule is untouched


# --------------------------------------------------------------------------- errors


ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


async def test_error_replies() -> None:
    # One server for all statuses (async tests cannot be parametrized beside anyio_backend).
    async with FakeMessagesAPI() as api:
        for status in ERRORS:
            api.reply(error=status)
        async with connect(api) as client:
            responses = [await client.request("POST", MESSAGES, main_body()) for _ in ERRORS]

    for (status, error_type), response, request in zip(
        ERRORS.items(), responses, api.requests, strict=True
    ):
        assert response.status == status
        assert response.headers["content-type"] == "application/json"
        assert response.headers["request-id"].startswith("req_")
        body = response.json()
        assert set(body) == {"type", "error"}
        assert body["type"] == "error"
        assert body["error"]["type"] == error_type
        assert isinstance(body["error"]["message"], str)
        assert body["error"]["message"]
        assert request.status == status
        assert request.response == body


async def test_error_times_and_custom_message() -> None:
    async with FakeMessagesAPI() as api:
        overloaded = api.reply(error=529, times=2, headers={"retry-after": "0"})
        api.reply(error=400, error_message="fake bad request")
        api.reply(text="recovered")
        async with connect(api) as client:
            responses = [await client.request("POST", MESSAGES, main_body()) for _ in range(4)]

    assert [r.status for r in responses] == [529, 529, 400, 200]
    assert responses[0].headers["retry-after"] == "0"
    assert responses[2].json()["error"] == {
        "type": "invalid_request_error",
        "message": "fake bad request",
    }
    assert text_of(responses[3].events()) == "recovered"
    assert overloaded.used == 2
    assert overloaded.exhausted
    assert api.pending_rules == []


async def test_unknown_paths_models_and_bad_bodies() -> None:
    async with FakeMessagesAPI() as api, connect(api) as client:
        missing = await client.request("GET", "/nope")
        hello = await client.request("HEAD", "/api/hello")
        models = await client.request("GET", "/v1/models?limit=20")
        model = await client.request("GET", "/v1/models/claude-opus-5-5")
        await client.send_request("POST", MESSAGES, raw=b"}{x")
        bad = await client.read_response()

    assert missing.status == 404
    assert missing.json()["error"]["type"] == "not_found_error"
    assert hello.status == 404
    assert hello.body == b""
    assert models.status == 200
    assert "claude-opus-5-5" in [m["id"] for m in models.json()["data"]]
    assert model.json()["id"] == "claude-opus-5-5"
    assert bad.status == 400
    assert bad.json()["error"]["type"] == "invalid_request_error"
    assert [r.kind for r in api.requests] == ["other", "other", "models", "models", "invalid"]


def test_reply_rejects_contradictions() -> None:
    api = FakeMessagesAPI()
    with pytest.raises(ValueError):
        api.reply(text="x", error=500)
    with pytest.raises(ValueError):
        api.reply(hang=True, text="x")
    with pytest.raises(ValueError):
        api.reply(text="x", blocks=[ScriptedText("y")])
    with pytest.raises(ValueError):
        api.reply(error=200)
    with pytest.raises(ValueError):
        api.reply(times=0)
    with pytest.raises(RuntimeError):
        _ = api.base_url


# --------------------------------------------------------------------------- timing


class SleepSpy:
    """``anyio`` as `claude_sdk.testing.fake_api` sees it, with each ``sleep`` recorded (and
    slept): the fake API's pauses, read from what it did rather than from a clock."""

    def __init__(self) -> None:
        self.pauses: list[float] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(anyio, name)

    async def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        await anyio.sleep(seconds)


async def test_delay_between_events(monkeypatch: pytest.MonkeyPatch) -> None:
    delay = 0.02
    spy = SleepSpy()
    monkeypatch.setattr(fake_api, "anyio", spy)
    async with FakeMessagesAPI() as api:
        api.reply(text="slow", delay=delay)
        async with connect(api) as client:
            response = await client.request("POST", MESSAGES, main_body())

    events = response.events()
    assert text_of(events) == "slow"
    assert response.chunks == len(events)  # one chunk per event: each was sent on its own
    # one pause between each two events: none before the first, none after the last
    assert spy.pauses == [delay] * (len(events) - 1)
    assert api.requests[0].finished is not None


async def test_closing_ends_a_hanging_request_promptly() -> None:
    """A request that hangs forever: a close that waited for it would never end."""
    with anyio.fail_after(30):  # a hang guard, not a measure
        async with FakeMessagesAPI() as api:
            rule = api.reply(hang=True)
            stream = await anyio.connect_tcp("127.0.0.1", api.port)
            client = Client(stream)
            await client.send_request("POST", MESSAGES, main_body())
            await api.wait_for_requests(1)
        async with stream:
            leftover = await client.read_raw_until_eof()

    assert leftover == b""  # never answered, and the connection was closed
    (request,) = api.requests
    assert request.rule is rule
    assert request.status is None
    assert request.finished is not None


async def test_closing_ends_a_slow_stream_promptly() -> None:
    """An hour between events: a close that waited for the stream would never end."""
    with anyio.fail_after(30):  # a hang guard, not a measure
        async with FakeMessagesAPI() as api:
            api.reply(text="x" * 100, delay=3600)
            stream = await anyio.connect_tcp("127.0.0.1", api.port)
            client = Client(stream)
            await client.send_request("POST", MESSAGES, main_body())
            head = await client.read_head()
        async with stream:
            with pytest.raises(h11.RemoteProtocolError):  # the chunked body never ended
                await client.read_response(head)

    assert head.status_code == 200
    (request,) = api.requests
    assert request.finished is not None  # abandoned at the close


# --------------------------------------------------------------------------- matching


async def test_when_picks_rules_by_request_content() -> None:
    async with FakeMessagesAPI() as api:
        secret = api.reply(text="found it", when=lambda r: "secret" in r.last_user_text)
        api.reply(
            text="tool said 42",
            when=lambda r: any(t.text == "42" and not t.is_error for t in r.tool_results),
        )
        api.reply(text="sonnet", when=lambda r: (r.model or "").startswith("claude-sonnet"))
        api.reply(text="plain", when=lambda r: "Bash" in r.tools and "agent" in r.system_text)
        async with connect(api) as client:
            plain = await client.request("POST", MESSAGES, main_body("hello"))
            found = await client.request("POST", MESSAGES, main_body("the secret word"))
            tool = await client.request("POST", MESSAGES, tool_result_body("toolu_fake_9", "42"))
            sonnet = await client.request("POST", MESSAGES, main_body(model="claude-sonnet-4"))
            again = await client.request("POST", MESSAGES, main_body("another secret"))

    assert text_of(plain.events()) == "plain"
    assert text_of(found.events()) == "found it"
    assert text_of(tool.events()) == "tool said 42"
    assert text_of(sonnet.events()) == "sonnet"
    assert text_of(again.events()) == DEFAULT_TEXT  # the secret rule was used up
    assert secret.used == 1
    assert [r.rule.index if r.rule else None for r in api.requests] == [3, 0, 1, 2, None]
    assert api.requests[-1].used_default


async def test_a_failing_when_predicate_is_not_swallowed() -> None:
    def boom(request: RecordedRequest) -> bool:
        raise ZeroDivisionError

    async def run() -> None:
        async with FakeMessagesAPI() as api:
            api.reply(text="never", when=boom)
            await post(api, MESSAGES, main_body())

    with pytest.raises(BaseExceptionGroup) as info:
        await run()
    assert info.value.subgroup(ZeroDivisionError) is not None


# --------------------------------------------------------------------------- recording


async def test_requests_are_recorded() -> None:
    async with FakeMessagesAPI() as api:
        rule = api.reply(text="hi")
        async with connect(api) as client:
            await client.request(
                "POST", MESSAGES, main_body("please add 2 and 3"), headers=[("x-app", "cli")]
            )
            await client.request(
                "POST", MESSAGES, tool_result_body("toolu_1", "boom", is_error=True)
            )
        waited = await api.wait_for_requests(2, kind="main")

    first, second = api.requests
    assert waited == [first, second]
    assert api.main_requests == [first, second]
    assert (first.n, second.n) == (1, 2)
    assert first.method == "POST"
    assert first.path == MESSAGES
    assert first.endpoint == "/v1/messages"
    assert first.headers["x-app"] == "cli"
    assert first.headers["content-type"] == "application/json"
    assert first.body == main_body("please add 2 and 3")
    assert json.loads(first.raw_body) == first.body
    assert first.kind == "main"
    assert first.stream
    assert first.model == "claude-opus-5-5"
    assert "please add 2 and 3" in first.last_user_text
    assert "<system-reminder>" in first.last_user_text
    assert first.tool_results == []
    assert first.tools == ["Bash", "Read"]
    assert "You are a Claude agent." in first.system_text
    assert first.rule is rule
    assert not first.used_default
    assert first.status == 200
    assert first.response["content"] == [{"type": "text", "text": "hi"}]
    assert first.duration is not None
    assert first.duration >= 0
    assert second.started >= first.started
    assert not first.client_disconnected

    (result,) = second.tool_results
    assert (result.tool_use_id, result.text, result.is_error) == ("toolu_1", "boom", True)
    assert second.last_user_text == ""
    assert second.rule is None
    assert second.used_default

    summary = first.summary()
    assert json.loads(json.dumps(summary)) == summary
    assert summary["kind"] == "main"
    assert summary["rule"] == 0
    assert summary["status"] == 200
    assert summary["stop_reason"] == "end_turn"
    assert summary["blocks"] == [{"type": "text"}]
    assert "please add 2 and 3" in summary["last_user_text"]
    assert second.summary()["tool_results"] == [
        {"tool_use_id": "toolu_1", "text": "boom", "is_error": True}
    ]


async def test_wait_for_requests_wakes_on_arrival() -> None:
    async with FakeMessagesAPI() as api, anyio.create_task_group() as tg:
        seen: list[RecordedRequest] = []

        async def waiter() -> None:
            seen.extend(await api.wait_for_requests(2, kind="count_tokens"))

        tg.start_soon(waiter)
        await post(api, MESSAGES, main_body())
        await post(api, COUNT_TOKENS, {"messages": []})
        assert seen == []
        await post(api, COUNT_TOKENS, {"messages": []})
    assert [r.n for r in seen] == [2, 3]


async def test_wait_for_requests_fails_once_the_server_stops() -> None:
    failures: list[RuntimeError] = []
    api = FakeMessagesAPI()

    async def waiter(*, task_status: anyio.abc.TaskStatus[None]) -> None:
        task_status.started()
        try:
            await api.wait_for_requests(1)
        except RuntimeError as exc:
            failures.append(exc)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg, api:
            await tg.start(waiter)
    assert len(failures) == 1
    with pytest.raises(RuntimeError):
        await api.wait_for_requests(1)


async def test_default_reply_when_the_queue_is_empty() -> None:
    async with FakeMessagesAPI(default_text="Fallback") as api:
        api.reply(text="scripted")
        async with connect(api) as client:
            scripted = await client.request("POST", MESSAGES, main_body())
            fallback = await client.request("POST", MESSAGES, main_body())
            api.default_text = "Changed"
            changed = await client.request("POST", MESSAGES, main_body())

    assert text_of(scripted.events()) == "scripted"
    assert text_of(fallback.events()) == "Fallback"
    assert text_of(changed.events()) == "Changed"
    assert [r.used_default for r in api.requests] == [False, True, True]
    assert [r.rule is None for r in api.requests] == [False, True, True]
    assert fallback.events()[-2][1]["delta"]["stop_reason"] == "end_turn"


async def test_recorded_cli_requests_replay() -> None:
    """Real CLI 2.1.330 requests (tests/data/transcripts) are classified and read correctly."""

    def load(name: str) -> list[dict[str, Any]]:
        lines = (TRANSCRIPTS / name).read_text().splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    skip = {"host", "content-length", "connection", "accept-encoding"}
    recorded = load("d_sdk_mcp.api.jsonl") + load("e2_set_model_and_mode.api.jsonl")[:3]
    async with FakeMessagesAPI() as api:
        api.reply(tool_use=("mcp__calc__add", {"a": 2, "b": 3}))
        api.reply(text="The sum is 5.")
        async with connect(api) as client:
            responses = []
            for entry in recorded:
                body = entry["body"]
                if "tools" in body:  # the logs keep tool names only
                    body["tools"] = [{"name": n, "input_schema": {}} for n in body["tools"]]
                headers = [(k, v) for k, v in entry["headers"].items() if k not in skip]
                responses.append(
                    await client.request(entry["method"], entry["path"], body, headers)
                )

    first, second, probe, _, count = api.requests
    assert [r.kind for r in api.requests] == ["main", "main", "probe", "probe", "count_tokens"]
    assert "please add 2 and 3" in first.last_user_text
    assert "x-anthropic-billing-header" in first.system_text
    assert "Bash" in first.tools
    assert first.headers["anthropic-version"] == "2023-06-01"
    (result,) = second.tool_results
    assert result.text == "5"
    assert result.tool_use_id.startswith("toolu_fake_")
    assert not result.is_error
    assert responses[0].events()[0][1]["message"]["model"] == "claude-opus-5-5"
    assert text_of(responses[1].events()) == "The sum is 5."
    assert probe.last_user_text == "Hi"
    assert responses[2].json()["model"] == "claude-haiku-4-5-20251001"
    assert responses[3].json()["model"] == "claude-sonnet-4-5-20250929"
    assert responses[4].json()["input_tokens"] >= 1
    assert count.rule is None


async def test_env_runs_the_cli_offline() -> None:
    async with FakeMessagesAPI() as api:
        env = api.env()
        retrying = api.env(max_retries=1)
        assert api.base_url == f"http://127.0.0.1:{api.port}"

    assert env["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:")
    assert env["ANTHROPIC_API_KEY"]
    for name in (
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
        "DISABLE_TELEMETRY",
        "DISABLE_AUTOUPDATER",
        "DISABLE_ERROR_REPORTING",
        "DISABLE_BUG_COMMAND",
        "DISABLE_FEEDBACK_COMMAND",
        "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY",
        "DISABLE_COST_WARNINGS",
    ):
        assert env[name] == "1"
    assert env["CLAUDE_CODE_MAX_RETRIES"] == "0"
    assert retrying["CLAUDE_CODE_MAX_RETRIES"] == "1"
    assert env["TERM"] == "dumb"
    assert env["LANG"] == "C.UTF-8"
    assert "HOME" not in env
    assert "PATH" not in env


# --------------------------------------------------------------------------- command line


def test_command_line_serves_a_fixed_reply() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "claude_sdk.testing.fake_api", "--port", "0", "--text", "Hey"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:")
        conn = http.client.HTTPConnection(base_url.removeprefix("http://"), timeout=10)
        conn.request("POST", MESSAGES, json.dumps(main_body()))
        response = conn.getresponse()
        body = response.read()
        conn.close()
        events = Response(status=response.status, headers={}, body=body, chunks=0).events()
        assert text_of(events) == "Hey"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()

"""Session throughput: streamed messages and control round trips, the SDK against a bare loop.

Usage (from the repository root)::

    python benchmarks/bench_session.py [--messages N] [--roundtrips N] [--repeat R]
                                       [--backend asyncio|trio|both] [--json PATH]

Every measurement runs in a fresh process (``bench_session.py --one VARIANT --backend X``,
which prints one ``RESULT {json}`` line), so no run inherits another's caches, heap or
generated decoders. The variants run interleaved (A B C ... A B C ...) ``--repeat`` times;
the tables give medians and minimums over the runs.

Scenarios (the CLI's side is a peer function on a `MemoryTransport`, all its lines built
before anything is timed):

(1) ``stream``: the peer answers ``initialize``, reads the prompt, then writes N assistant
    frames (the recorded CLI 2.1.330 text frame with fresh ids and a ~200-character text,
    ~750 bytes a line), many lines per ``peer.write`` (64 KiB chunks), then a ``result``.
    The SDK side is ``await session.send(...)`` then ``async for m in
    session.receive_response()``. Wall rate: N / (send() to the result); steady rate:
    N / (first message received to the result).
(2) ``permission``: N sequential ``can_use_tool`` requests (each answered before the next is
    sent) to an SDK callback that returns ``PermissionAllow()``: once with `FakeCLI`
    (``cli.can_use_tool`` in a script) and once with a raw peer that writes a pre-built
    request line and reads the answer line.
(3) ``hook``: N sequential ``hook_callback`` requests (PreToolUse) from a raw peer to one
    registered hook returning ``HookOutput()``.

Reference (``bare``): the same peer functions on the same `MemoryPeer` and AnyIO memory
streams, but the consumer is a plain loop with no SDK: receive a chunk, split lines,
``orjson.loads`` each, and for a control request write an ``orjson.dumps``-ed answer.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.metadata
import json
import math
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Awaitable, Callable, Sequence, Sized
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import orjson
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

REPO = Path(__file__).resolve().parent.parent
# Benchmark the checkout next to this script, installed or not.
sys.path.insert(0, str(REPO))

import claude_sdk  # noqa: E402
from claude_sdk import (  # noqa: E402
    HookContext,
    HookMatcher,
    HookOutput,
    Options,
    PermissionAllow,
    ResultMessage,
    open_session,
)
from claude_sdk._protocol.launch import build_launch_spec  # noqa: E402
from claude_sdk.permissions import ToolPermissionContext  # noqa: E402
from claude_sdk.testing import FakeCLI, ScriptedCLI  # noqa: E402
from claude_sdk.transports.base import StderrTail  # noqa: E402
from claude_sdk.transports.memory import MemoryPeer, MemoryTransport  # noqa: E402

TRANSCRIPTS = REPO / "tests" / "data" / "transcripts"
SCRIPT = Path(__file__).resolve()
DEFAULT_MESSAGES = 100_000
DEFAULT_ROUNDTRIPS = 5_000
DEFAULT_REPEAT = 3
CHUNK_BYTES = 64 * 1024  # bytes per peer.write in the stream scenario (whole lines)
WARMUP_MESSAGES = 2_000  # a warm-up session in the same process before the timed one
WARMUP_ROUNDTRIPS = 200
SEED = 20251122
NOISY_SPREAD = 0.10  # (median - min) / min above this is reported as noise
PROMPT = "Summarise the repository."

_MICRO = "\u00b5"  # the micro sign, spelled out for linters
_ELIDED = re.compile(r"^\.\.\.\[\d+ more of \d+\]$")  # the transcripts' list-cut marker
_WORDS = (
    "the", "function", "returns", "a", "value", "when", "file", "is", "missing", "test",
    "fails", "because", "config", "path", "should", "be", "relative", "to", "project", "root",
    "I'll", "update", "module", "and", "run", "suite", "again", "now", "it", "passes", "let",
    "me", "check", "output", "of", "this", "command", "first", "then", "change", "handler",
    "so", "error", "raised", "earlier", "caller", "sees", "result", "`parse_args()`", "line",
    "42", "in", "`src/app/main.py`", "—", "→", "looks", "correct", "here's", "summary:",
    "edited", "two", "files", "added", "one", "case", "for", "empty", "input", "(see", "above)",
)  # fmt: skip
_B62 = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_B62_TABLE = bytes(_B62[i % len(_B62)] for i in range(256))  # random byte -> base62 digit


@dataclass(frozen=True)
class Variant:
    key: str
    scenario: str
    label: str
    sdk: bool


VARIANTS = (
    Variant("stream/sdk", "stream", "Session + raw peer", True),
    Variant("stream/bare", "stream", "bare loop + raw peer", False),
    Variant("permission/fake", "permission", "Session + FakeCLI", True),
    Variant("permission/sdk", "permission", "Session + raw peer", True),
    Variant("permission/bare", "permission", "bare loop + raw peer", False),
    Variant("hook/sdk", "hook", "Session + raw peer", True),
    Variant("hook/bare", "hook", "bare loop + raw peer", False),
)
BY_KEY = {v.key: v for v in VARIANTS}
BACKENDS = ("asyncio", "trio")

Json = dict[str, Any]
PeerFunction = Callable[[MemoryPeer], Awaitable[None]]


# --------------------------------------------------------------------------------------
# Recorded frames (the transcripts cut long lists; the cut markers are dropped)


def _clean(value: Any) -> Any:
    if isinstance(value, list):
        return [
            _clean(x) for x in value if not (isinstance(x, str) and _ELIDED.match(x) is not None)
        ]
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value


def _cli_frames(name: str) -> list[Json]:
    frames = []
    with (TRANSCRIPTS / name).open(encoding="utf-8") as fh:
        for raw in fh:
            record = json.loads(raw)
            if record.get("dir") == "cli>sdk" and isinstance(record.get("msg"), dict):
                frames.append(_clean(record["msg"]))
    if not frames:
        raise SystemExit(f"no cli>sdk frames in {TRANSCRIPTS / name}")
    return frames


@dataclass
class Recorded:
    init_body: Json  # the success body of the initialize answer
    result_line: bytes  # a result frame, newline included
    assistant: Json  # an assistant text frame
    request: Json  # a control_request frame (can_use_tool or hook_callback)


def _recorded(name: str, request_subtype: str | None) -> Recorded:
    frames = _cli_frames(name)
    init = next(
        f["response"]["response"]
        for f in frames
        if f.get("type") == "control_response" and "commands" in f["response"].get("response", {})
    )
    result = next(f for f in frames if f.get("type") == "result")
    assistant = next(
        (
            f
            for f in frames
            if f.get("type") == "assistant" and f["message"]["content"][0]["type"] == "text"
        ),
        {},
    )
    request: Json = {}
    if request_subtype is not None:
        request = next(
            f
            for f in frames
            if f.get("type") == "control_request"
            and f["request"].get("subtype") == request_subtype
            and f["request"].get("input", {}).get("hook_event_name", "PreToolUse") == "PreToolUse"
        )
    return Recorded(init, orjson.dumps(result) + b"\n", assistant, request)


# --------------------------------------------------------------------------------------
# Building the CLI's lines (before timing)


class _Gen:
    """Cheap deterministic ids and prose: every frame differs."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        # A pool of texts; each frame prefixes its own step number, so none repeats.
        self.texts = [" ".join(self.rng.choices(_WORDS, k=48)) for _ in range(997)]

    def hex(self, n: int) -> str:
        return f"{self.rng.getrandbits(4 * n):0{n}x}"

    def b62(self, n: int) -> str:
        return self.rng.randbytes(n).translate(_B62_TABLE).decode("ascii")

    def uuid(self) -> str:
        h = self.hex(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def text(self, i: int, length: int = 200) -> str:
        body = f"Step {i}: {self.texts[i % len(self.texts)]}"
        return body[: length - 1].rstrip() + "."


@dataclass
class StreamData:
    n: int
    chunks: list[bytes]
    result_line: bytes
    init_body: Json
    mean_bytes: float


def build_stream(n: int, gen: _Gen) -> StreamData:
    rec = _recorded("a_plain_text.jsonl", None)
    template = rec.assistant
    session = gen.uuid()
    chunks: list[bytes] = []
    pending: list[bytes] = []
    size = total = 0
    dumps = orjson.dumps
    for i in range(n):
        message = {
            **template["message"],
            "id": "msg_01" + gen.b62(22),
            "content": [{"type": "text", "text": gen.text(i)}],
            "usage": {
                "input_tokens": 2561 + i,
                "output_tokens": 1 + i % 4000,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": i % 200_000,
            },
        }
        frame = {
            **template,
            "message": message,
            "session_id": session,
            "uuid": gen.uuid(),
            "timestamp": f"2026-11-22T01:{i // 60_000 % 60:02d}:{i // 1000 % 60:02d}."
            f"{i % 1000:03d}Z",
            "request_id": "req_011C" + gen.b62(18),
        }
        line = dumps(frame)
        pending.append(line)
        size += len(line) + 1
        total += len(line)
        if size >= CHUNK_BYTES:
            chunks.append(b"\n".join(pending) + b"\n")
            pending, size = [], 0
    if pending:
        chunks.append(b"\n".join(pending) + b"\n")
    return StreamData(n, chunks, rec.result_line, rec.init_body, total / max(n, 1))


@dataclass
class RoundTripData:
    """Pre-built request lines (newline included) and their ids, for a raw peer."""

    n: int
    requests: list[tuple[bytes, str]]
    result_line: bytes
    init_body: Json
    #: True when the answer body is what the SDK should answer.
    check: Callable[[Any], bool]
    #: Raises when the SDK's initialize does not match the requests.
    check_init: Callable[[Json], None]
    mean_bytes: float


def _bash_input(i: int) -> Json:
    return {"command": f"touch marker_{i}.txt", "description": f"Create marker file {i}"}


def build_permission(n: int, gen: _Gen) -> RoundTripData:
    rec = _recorded("b1_can_use_tool_allow.jsonl", "can_use_tool")
    base = rec.request["request"]
    requests = []
    for i in range(n):
        rid = gen.uuid()
        tool_input = _bash_input(i)
        suggestions = [dict(s) for s in base["permission_suggestions"]]
        suggestions[0] = {
            **suggestions[0],
            "rules": [{"toolName": "Bash", "ruleContent": tool_input["command"]}],
        }
        request = {
            **base,
            "input": tool_input,
            "description": tool_input["description"],
            "permission_suggestions": suggestions,
            "blocked_path": f"<cwd>/marker_{i}.txt",
            "tool_use_id": "toolu_01" + gen.b62(22),
        }
        line = orjson.dumps({"type": "control_request", "request_id": rid, "request": request})
        requests.append((line + b"\n", rid))

    def check(body: Any) -> bool:
        return isinstance(body, dict) and body.get("behavior") == "allow"

    def check_init(init: Json) -> None:
        return None

    mean = sum(len(r) for r, _ in requests) / max(n, 1)
    return RoundTripData(n, requests, rec.result_line, rec.init_body, check, check_init, mean)


HOOK_ID = "hook_0"  # the SDK numbers callbacks hook_0, hook_1, ... in registration order


def build_hook(n: int, gen: _Gen) -> RoundTripData:
    rec = _recorded("c_hooks.jsonl", "hook_callback")
    base = rec.request["request"]
    session = gen.uuid()
    requests = []
    for i in range(n):
        rid = gen.uuid()
        tool_use_id = "toolu_01" + gen.b62(22)
        hook_input = {
            **base["input"],
            "session_id": session,
            "transcript_path": f"<home>/.claude/projects/<cwd-slug>/{session}.jsonl",
            "tool_input": _bash_input(i),
            "tool_use_id": tool_use_id,
        }
        request = {
            **base,
            "callback_id": HOOK_ID,
            "input": hook_input,
            "tool_use_id": tool_use_id,
        }
        line = orjson.dumps({"type": "control_request", "request_id": rid, "request": request})
        requests.append((line + b"\n", rid))

    def check(body: Any) -> bool:
        return isinstance(body, dict)

    def check_init(init: Json) -> None:
        hooks = init.get("hooks") or {}
        ids = [i for m in hooks.get("PreToolUse", ()) for i in m.get("hookCallbackIds", ())]
        if ids != [HOOK_ID]:
            raise RuntimeError(f"expected one PreToolUse callback {HOOK_ID!r}, got {hooks!r}")

    mean = sum(len(r) for r, _ in requests) / max(n, 1)
    return RoundTripData(n, requests, rec.result_line, rec.init_body, check, check_init, mean)


@dataclass
class FakeData:
    n: int
    calls: list[tuple[Json, str]]  # (tool input, tool_use_id)


def build_fake(n: int, gen: _Gen) -> FakeData:
    return FakeData(n, [(_bash_input(i), "toolu_01" + gen.b62(22)) for i in range(n)])


# --------------------------------------------------------------------------------------
# The CLI's side: raw peer functions, shared by the SDK and the bare variants


async def _handshake(peer: MemoryPeer, init_body: Json) -> Json:
    frame = orjson.loads(await peer.read_line())
    request = frame.get("request") or {}
    if frame.get("type") != "control_request" or request.get("subtype") != "initialize":
        raise RuntimeError(f"expected initialize, got {frame!r}")
    answer = {"subtype": "success", "request_id": frame["request_id"], "response": init_body}
    await peer.send_line(orjson.dumps({"type": "control_response", "response": answer}))
    return dict(request)


async def _expect_prompt(peer: MemoryPeer) -> None:
    frame = orjson.loads(await peer.read_line())
    if frame.get("type") != "user":
        raise RuntimeError(f"expected the prompt, got {frame!r}")


async def _drain(peer: MemoryPeer) -> None:
    """Read until the other side closes stdin (an idle CLI), then return (exit 0)."""
    with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError):
        while True:
            await peer.read_line()


def stream_peer(data: StreamData) -> PeerFunction:
    async def peer_fn(peer: MemoryPeer) -> None:
        await _handshake(peer, data.init_body)
        await _expect_prompt(peer)
        write = peer.write
        for chunk in data.chunks:
            await write(chunk)
        await write(data.result_line)
        await _drain(peer)

    return peer_fn


def roundtrip_peer(data: RoundTripData) -> PeerFunction:
    async def peer_fn(peer: MemoryPeer) -> None:
        data.check_init(await _handshake(peer, data.init_body))
        await _expect_prompt(peer)
        loads, check = orjson.loads, data.check
        for line, rid in data.requests:
            await peer.write(line)
            frame = loads(await peer.read_line())
            response = frame.get("response") or {}
            if (
                frame.get("type") != "control_response"
                or response.get("request_id") != rid
                or response.get("subtype") != "success"
                or not check(response.get("response"))
            ):
                raise RuntimeError(f"unexpected answer to {rid}: {frame!r}")
        await peer.write(data.result_line)
        await _drain(peer)

    return peer_fn


def fake_script(data: FakeData) -> Callable[[ScriptedCLI], Awaitable[None]]:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        for tool_input, tool_use_id in data.calls:
            reply = await cli.can_use_tool("Bash", tool_input, tool_use_id=tool_use_id)
            if not isinstance(reply, PermissionAllow):
                raise TypeError(f"expected PermissionAllow, got {reply!r}")
        await cli.result("done")
        # Returning: the fake answers control requests until stdin closes, then exits 0.

    return script


# --------------------------------------------------------------------------------------
# The consumers (what is timed)

clock = time.perf_counter


async def _allow(tool: str, tool_input: dict[str, Any], context: ToolPermissionContext) -> Any:
    return PermissionAllow()


async def _hook(hook_input: Any, context: HookContext) -> HookOutput:
    return HookOutput()


def _options(scenario: str) -> Options:
    if scenario == "permission":
        return Options(can_use_tool=_allow)
    if scenario == "hook":
        return Options(hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[_hook])]})
    return Options()


async def sdk_run(scenario: str, transport: MemoryTransport, n: int) -> Json:
    """One session: send the prompt, consume the turn up to its result."""
    t_open = clock()
    async with open_session(_options(scenario), transport=transport) as session:
        t0 = clock()
        await session.send(PROMPT)
        # Diagnostics only: how far the reader ran ahead of this consumer (sampled).
        backlog: Sized = getattr(session, "_buffer", ())
        peak = 0
        first = 0.0
        count = 0
        last: Any = None
        async for message in session.receive_response():
            if not count:
                first = clock()
            elif not count & 1023:
                peak = max(peak, len(backlog))
            count += 1
            last = message
        t1 = clock()
    t_closed = clock()
    expected = n + 1 if scenario == "stream" else 1
    if count != expected or not isinstance(last, ResultMessage):
        raise RuntimeError(f"got {count} messages ending in {type(last).__name__}, not {expected}")
    return {
        "wall_s": t1 - t0,
        "steady_s": t1 - first if scenario == "stream" else None,
        "open_s": t0 - t_open,
        "close_s": t_closed - t1,
        "peak_backlog": peak,
    }


class _BareReader:
    """Chunks from the memory stream, split into lines (no SDK code)."""

    def __init__(self, stream: MemoryObjectReceiveStream[bytes]) -> None:
        self._stream = stream
        self._rest = b""

    async def lines(self) -> list[bytes]:
        while True:
            chunk = await self._stream.receive()
            if self._rest:
                chunk = self._rest + chunk
            parts = chunk.split(b"\n")
            self._rest = parts.pop()
            if parts:
                return parts


INIT_LINE = (
    b'{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize",'
    b'"hooks":null}}\n'
)
HOOKS_INIT_LINE = (
    b'{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize",'
    b'"hooks":{"PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"]}]}}}\n'
)
PROMPT_LINE = orjson.dumps(
    {
        "type": "user",
        "message": {"role": "user", "content": PROMPT},
        "parent_tool_use_id": None,
        "session_id": "default",
    }
)


async def bare_run(scenario: str, peer_fn: PeerFunction, n: int) -> Json:
    """The same peer on the same kind of streams, consumed by a plain loop."""
    stdin_send: MemoryObjectSendStream[bytes]
    stdout_recv: MemoryObjectReceiveStream[bytes]
    stdin_send, stdin_recv = anyio.create_memory_object_stream[bytes](math.inf)
    stdout_send, stdout_recv = anyio.create_memory_object_stream[bytes](math.inf)
    peer = MemoryPeer(build_launch_spec(Options()), stdin_recv, stdout_send, StderrTail())

    async def run_peer() -> None:
        try:
            await peer_fn(peer)
        finally:
            with anyio.CancelScope(shield=True):
                await peer.exit(0)

    loads, dumps = orjson.loads, orjson.dumps
    out: Json = {}
    t_open = clock()
    async with anyio.create_task_group() as tg:
        tg.start_soon(run_peer)
        async with stdin_send, stdout_recv:
            reader = _BareReader(stdout_recv)
            send = stdin_send.send
            await send(HOOKS_INIT_LINE if scenario == "hook" else INIT_LINE)
            (init,) = await reader.lines()
            if loads(init)["type"] != "control_response":
                raise RuntimeError(f"expected the initialize answer, got {init!r}")
            t0 = clock()
            await send(PROMPT_LINE + b"\n")
            first = 0.0
            count = 0
            done = False
            if scenario == "stream":
                while not done:
                    for line in await reader.lines():
                        frame = loads(line)
                        if not count:
                            first = clock()
                        count += 1
                        if frame["type"] == "result":
                            done = True
                            break
            else:
                permission = scenario == "permission"
                while not done:
                    for line in await reader.lines():
                        frame = loads(line)
                        kind = frame["type"]
                        if kind == "control_request":
                            request = frame["request"]
                            body = (
                                {"behavior": "allow", "updatedInput": request["input"]}
                                if permission
                                else {}
                            )
                            answer = {
                                "subtype": "success",
                                "request_id": frame["request_id"],
                                "response": body,
                            }
                            frame = {"type": "control_response", "response": answer}
                            await send(dumps(frame) + b"\n")
                        elif kind == "result":
                            count += 1
                            done = True
                            break
            t1 = clock()
        out = {"wall_s": t1 - t0, "steady_s": t1 - first if scenario == "stream" else None}
    out["open_s"] = t0 - t_open
    out["close_s"] = clock() - t1
    expected = n + 1 if scenario == "stream" else 1
    if count != expected:
        raise RuntimeError(f"got {count} messages, not {expected}")
    return out


# --------------------------------------------------------------------------------------
# One measurement (the child process)


def _run_variant(variant: Variant, data: Any, n: int) -> Callable[[], Awaitable[Json]]:
    scenario = variant.scenario
    if variant.key == "permission/fake":
        return lambda: sdk_run(scenario, FakeCLI(fake_script(data)), n)
    peer = stream_peer(data) if scenario == "stream" else roundtrip_peer(data)
    if variant.sdk:
        return lambda: sdk_run(scenario, MemoryTransport(peer), n)
    return lambda: bare_run(scenario, peer, n)


def _build(variant: Variant, n: int, gen: _Gen) -> Any:
    if variant.scenario == "stream":
        return build_stream(n, gen)
    if variant.key == "permission/fake":
        return build_fake(n, gen)
    if variant.scenario == "permission":
        return build_permission(n, gen)
    return build_hook(n, gen)


def run_one(
    variant: Variant, backend: str, messages: int, roundtrips: int, deadline: float
) -> Json:
    n = messages if variant.scenario == "stream" else roundtrips
    n_warm = min(n, WARMUP_MESSAGES if variant.scenario == "stream" else WARMUP_ROUNDTRIPS)
    gen = _Gen(SEED)
    t_build = clock()
    warm = _build(variant, n_warm, gen)
    data = _build(variant, n, gen)
    build_s = clock() - t_build
    warm_run = _run_variant(variant, warm, n_warm)
    timed_run = _run_variant(variant, data, n)

    async def main() -> Json:
        with anyio.fail_after(deadline):
            await warm_run()
            gc.collect()
            before = [s["collections"] for s in gc.get_stats()]
            out = await timed_run()
            after = [s["collections"] for s in gc.get_stats()]
            out["gc_collections"] = [b - a for a, b in zip(before, after, strict=True)]
            return out

    result = anyio.run(main, backend=backend)
    try:
        import resource

        maxrss_kb: int | None = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    except ImportError:  # pragma: no cover - not POSIX
        maxrss_kb = None
    mean_bytes = getattr(data, "mean_bytes", None)
    return {
        "variant": variant.key,
        "backend": backend,
        "n": n,
        "warmup_n": n_warm,
        "build_s": build_s,
        "mean_bytes": mean_bytes,
        "maxrss_kb": maxrss_kb,
        **result,
    }


# --------------------------------------------------------------------------------------
# The parent: spawn, collect, report


@dataclass
class Series:
    variant: Variant
    backend: str
    n: int
    runs: list[Json] = field(default_factory=list)

    def times(self, key: str) -> list[float]:
        return [float(r[key]) for r in self.runs if r.get(key) is not None]

    def median(self, key: str = "wall_s") -> float:
        return float(statistics.median(self.times(key)))

    def best(self, key: str = "wall_s") -> float:
        return min(self.times(key))

    def rate(self, seconds: float) -> float:
        return self.n / seconds

    def us_per(self, seconds: float) -> float:
        return seconds / self.n * 1e6

    @property
    def spread(self) -> float:
        return (self.median() - self.best()) / self.best()


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def environment() -> Json:
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "packages": {
            "claude_sdk": claude_sdk.__version__,
            "anyio": _version("anyio"),
            "trio": _version("trio"),
            "orjson": _version("orjson"),
            "attrs": _version("attrs"),
            "cattrs": _version("cattrs"),
        },
        "claude_sdk_path": str(Path(claude_sdk.__file__).parent),
    }


def print_header(env: Json, args: argparse.Namespace, backends: Sequence[str]) -> None:
    pk = env["packages"]
    print(f"Python {env['python']} ({env['implementation']}) on {env['platform']}")
    print(f"cpu: {env['cpu']}, machine: {env['machine']}, cpus: {env['cpu_count']}")
    print(
        f"claude_sdk {pk['claude_sdk']} ({env['claude_sdk_path']}), anyio {pk['anyio']}, "
        f"trio {pk['trio']}, orjson {pk['orjson']}, attrs {pk['attrs']}, cattrs {pk['cattrs']}"
    )
    print(
        f"{args.messages:,} streamed messages, {args.roundtrips:,} round trips; "
        f"backends: {', '.join(backends)}; {args.repeat} interleaved runs per variant"
    )
    print(
        f"each run a fresh process: a warm-up session ({WARMUP_MESSAGES:,} messages or "
        f"{WARMUP_ROUNDTRIPS} round trips), gc.collect(), then the timed session; gc on"
    )
    if env["loadavg"] is not None:
        print("load average at start: " + " ".join(f"{x:.2f}" for x in env["loadavg"]))


def spawn(variant: Variant, backend: str, args: argparse.Namespace, timeout: float) -> Json:
    cmd = [
        sys.executable,
        str(SCRIPT),
        "--one",
        variant.key,
        "--backend",
        backend,
        "--messages",
        str(args.messages),
        "--roundtrips",
        str(args.roundtrips),
        "--deadline",
        str(timeout - 10),
    ]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        partial: object = exc.stderr  # bytes, whatever ``text`` says
        err = partial.decode(errors="replace") if isinstance(partial, bytes) else str(partial or "")
        return {"error": f"killed after {timeout:.0f} s (hung?)", "stderr": err}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("RESULT "):
            result: Json = json.loads(line[len("RESULT ") :])
            if proc.stderr.strip():
                result["stderr"] = proc.stderr
            return result
    return {"error": f"exit code {proc.returncode}, no RESULT line", "stderr": proc.stderr}


def _gc(s: Series) -> str:
    counts = [r.get("gc_collections") or [0, 0, 0] for r in s.runs]
    return "/".join(f"{statistics.median(c[g] for c in counts):.0f}" for g in range(3))


def _ratio(a: float, b: float) -> str:
    return f"{a / b:>6.2f}x"


def print_stream(series: dict[tuple[str, str], Series], backends: Sequence[str]) -> None:
    any_s = next(s for (k, _), s in series.items() if k == "stream/sdk")
    mean = any_s.runs[0].get("mean_bytes") or 0
    print()
    print(
        f"(1) stream: {any_s.n:,} assistant text frames (~200-char text, {mean:,.0f} B/line, "
        f"{CHUNK_BYTES // 1024} KiB per peer.write) + result; send() -> result"
    )
    head = (
        f"  {'backend':<9}{'variant':<22}{'wall msg/s':>12}{'(best)':>11}{'steady msg/s':>14}"
        f"{'(best)':>11}{'spread':>8}{'/bare wall':>11}{'/bare steady':>13}{'RSS MiB':>9}"
    )
    print(head)
    print("  " + "-" * (len(head) - 2))
    for backend in backends:
        bare = series[("stream/bare", backend)]
        for key in ("stream/sdk", "stream/bare"):
            s = series[(key, backend)]
            rss = max(r.get("maxrss_kb") or 0 for r in s.runs) / 1024
            print(
                f"  {backend:<9}{s.variant.label:<22}"
                f"{s.rate(s.median()):>12,.0f}{s.rate(s.best()):>11,.0f}"
                f"{s.rate(s.median('steady_s')):>14,.0f}{s.rate(s.best('steady_s')):>11,.0f}"
                f"{s.spread:>8.1%}{_ratio(s.median(), bare.median()):>11}"
                f"{_ratio(s.median('steady_s'), bare.median('steady_s')):>13}{rss:>9,.0f}"
            )
    for backend in backends:
        sdk, bare = series[("stream/sdk", backend)], series[("stream/bare", backend)]
        print(
            f"  {backend}: peak backlog (decoded, not yet consumed) "
            f"{statistics.median(r.get('peak_backlog', 0) for r in sdk.runs):,.0f} messages; "
            f"gc collections gen0/1/2 Session {_gc(sdk)}, bare {_gc(bare)}"
        )


def print_roundtrips(
    series: dict[tuple[str, str], Series], backends: Sequence[str], scenario: str
) -> None:
    keys = [v.key for v in VARIANTS if v.scenario == scenario]
    n = series[(keys[0], backends[0])].n
    print()
    if scenario == "permission":
        print(
            f"(2) can_use_tool: {n:,} sequential requests, callback returns PermissionAllow(); "
            "send() -> result"
        )
    else:
        print(
            f"(3) hook_callback: {n:,} sequential PreToolUse requests, one hook returning "
            "HookOutput(); send() -> result"
        )
    head = (
        f"  {'backend':<9}{'variant':<22}{'round trips/s':>14}{'(best)':>11}"
        f"{_MICRO + 's/rt':>9}{'(min)':>8}{'spread':>8}{'/bare':>9}"
    )
    print(head)
    print("  " + "-" * (len(head) - 2))
    for backend in backends:
        bare = series[(f"{scenario}/bare", backend)]
        for key in keys:
            s = series[(key, backend)]
            print(
                f"  {backend:<9}{s.variant.label:<22}"
                f"{s.rate(s.median()):>14,.0f}{s.rate(s.best()):>11,.0f}"
                f"{s.us_per(s.median()):>9.1f}{s.us_per(s.best()):>8.1f}"
                f"{s.spread:>8.1%}{_ratio(s.median(), bare.median()):>9}"
            )
    for backend in backends:
        sdk = series[(f"{scenario}/sdk", backend)]
        bare = series[(f"{scenario}/bare", backend)]
        parts = [
            f"SDK {sdk.us_per(sdk.median()) - bare.us_per(bare.median()):.1f} "
            f"{_MICRO}s/rt (raw peer: Session - bare)"
        ]
        if (f"{scenario}/fake", backend) in series:
            fake = series[(f"{scenario}/fake", backend)]
            parts.append(
                f"FakeCLI {fake.us_per(fake.median()) - sdk.us_per(sdk.median()):.1f} "
                f"{_MICRO}s/rt (FakeCLI - raw peer)"
            )
        print(f"  own cost, {backend}: " + "; ".join(parts))


def print_summary(series: dict[tuple[str, str], Series], backends: Sequence[str]) -> None:
    rows = [
        ("stream, wall", "stream/sdk", "stream/bare", "wall_s"),
        ("stream, steady", "stream/sdk", "stream/bare", "steady_s"),
        ("can_use_tool, FakeCLI", "permission/fake", "permission/bare", "wall_s"),
        ("can_use_tool, raw peer", "permission/sdk", "permission/bare", "wall_s"),
        ("hook_callback, raw peer", "hook/sdk", "hook/bare", "wall_s"),
    ]
    print()
    print("SDK / bare (median time per item; 3.00x = the SDK takes three times as long)")
    head = f"  {'':<26}" + "".join(f"{b:>10}" for b in backends)
    if len(backends) == 2:
        head += f"{'SDK trio/asyncio':>18}"
    print(head)
    for label, sdk_key, bare_key, key in rows:
        line = f"  {label:<26}"
        for backend in backends:
            sdk, bare = series[(sdk_key, backend)], series[(bare_key, backend)]
            line += f"{_ratio(sdk.median(key), bare.median(key)):>10}"
        if len(backends) == 2:
            a, t = series[(sdk_key, backends[0])], series[(sdk_key, backends[1])]
            line += f"{_ratio(t.median(key), a.median(key)):>18}"
        print(line)


def run_all(args: argparse.Namespace) -> int:
    backends = BACKENDS if args.backend == "both" else (args.backend,)
    started = time.perf_counter()
    env = environment()
    print_header(env, args, backends)
    # A generous bound per process: a hang is reported, not waited on for ever.
    timeout = 60 + args.messages * 200e-6 + args.roundtrips * 4e-3
    plan = [(v, b) for v in VARIANTS for b in backends]
    series = {(v.key, b): Series(v, b, 0) for v, b in plan}
    failures: list[str] = []
    stderr_notes: dict[str, list[str]] = {}
    for rep in range(args.repeat):
        t_rep = time.perf_counter()
        for variant, backend in plan:
            result = spawn(variant, backend, args, timeout)
            tag = f"{variant.key} ({backend}) run {rep + 1}"
            if "error" in result:
                stderr = str(result.get("stderr", "")).rstrip()[-3000:]
                failures.append(f"{tag}: {result['error']}\n{stderr}")
                print(f"  FAILED {tag}: {result['error']}", flush=True)
                continue
            if result.get("stderr"):
                stderr_notes.setdefault(result["stderr"].strip(), []).append(tag)
            s = series[(variant.key, backend)]
            s.n = int(result["n"])
            s.runs.append(result)
        print(
            f"  run {rep + 1}/{args.repeat}: {len(plan)} processes, "
            f"{time.perf_counter() - t_rep:.1f} s",
            flush=True,
        )

    complete = all(s.runs for s in series.values())
    if complete:
        print_stream(series, backends)
        print_roundtrips(series, backends, "permission")
        print_roundtrips(series, backends, "hook")
        print_summary(series, backends)
        noisy = [
            f"{k} ({b}) {s.spread:.0%}" for (k, b), s in series.items() if s.spread > NOISY_SPREAD
        ]
        print()
        if noisy:
            print(f"note: median more than {NOISY_SPREAD:.0%} above min (a noisy machine?):")
            print(textwrap.fill(", ".join(noisy), 96, initial_indent="  ", subsequent_indent="  "))
    for text, tags in stderr_notes.items():
        print(f"\nstderr of {', '.join(tags[:3])}{' ...' if len(tags) > 3 else ''}:")
        print("  " + text[-2000:].replace("\n", "\n  "))
    for failure in failures:
        print(f"\nFAILED {failure}")
    elapsed = time.perf_counter() - started
    if hasattr(os, "getloadavg"):
        print("load average at end: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"total {elapsed:.1f} s")
    if args.json is not None:
        data = {
            "environment": env,
            "config": {
                "messages": args.messages,
                "roundtrips": args.roundtrips,
                "repeat": args.repeat,
                "backends": list(backends),
                "chunk_bytes": CHUNK_BYTES,
                "warmup_messages": WARMUP_MESSAGES,
                "warmup_roundtrips": WARMUP_ROUNDTRIPS,
            },
            "series": [
                {
                    "variant": k,
                    "backend": b,
                    "label": s.variant.label,
                    "n": s.n,
                    "runs": s.runs,
                    "median_wall_s": s.median() if s.runs else None,
                    "min_wall_s": s.best() if s.runs else None,
                    "median_steady_s": s.median("steady_s") if s.times("steady_s") else None,
                    "min_steady_s": s.best("steady_s") if s.times("steady_s") else None,
                }
                for (k, b), s in series.items()
            ],
            "failures": failures,
            "elapsed_s": round(elapsed, 2),
        }
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"results written to {args.json}")
    return 1 if failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--messages", type=int, default=DEFAULT_MESSAGES, help="streamed messages (%(default)s)"
    )
    parser.add_argument(
        "--roundtrips", type=int, default=DEFAULT_ROUNDTRIPS, help="round trips (%(default)s)"
    )
    parser.add_argument(
        "--repeat", type=int, default=DEFAULT_REPEAT, help="runs per variant (%(default)s)"
    )
    parser.add_argument(
        "--backend", choices=(*BACKENDS, "both"), default="both", help="AnyIO backend(s)"
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results here")
    parser.add_argument("--one", choices=sorted(BY_KEY), help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, default=600.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.messages < 1 or args.roundtrips < 1 or args.repeat < 1:
        parser.error("--messages, --roundtrips and --repeat must be at least 1")
    if args.one is not None:
        if args.backend == "both":
            parser.error("--one needs --backend asyncio or --backend trio")
        result = run_one(
            BY_KEY[args.one], args.backend, args.messages, args.roundtrips, args.deadline
        )
        print("RESULT " + json.dumps(result), flush=True)
        return 0
    return run_all(args)


if __name__ == "__main__":
    raise SystemExit(main())

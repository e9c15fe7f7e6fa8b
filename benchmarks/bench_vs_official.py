"""claude_sdk against the official claude-agent-sdk and the raw limit, on one fake CLI.

Usage (from the repository root; ``nox -s bench`` runs it in an environment that also has
``claude-agent-sdk==0.2.187`` and trio)::

    python benchmarks/bench_vs_official.py [--quick] [--repeat R] [--only 1,2,...]
                                           [--backend asyncio|trio|both] [--write PATH]
                                           [--json PATH]

Every SDK, and the raw readers, drive the same executable, ``benchmarks/fake_cli_bench.py``,
which builds all its output before it writes anything and writes it in 1 MiB writes (it is
measured alone into a drained pipe, to show that it is not the bottleneck). The variants:

* ``claude_sdk``: ``claude_sdk.open_session`` (``session.send``, ``receive_response``);
* ``claude-agent-sdk``: ``ClaudeSDKClient`` (``client.query``, ``receive_response``);
* ``bare AnyIO``: the raw limit on an event loop: ``anyio.open_process``, 256 KiB reads,
  lines split by hand and parsed with ``orjson.loads``, answers written with ``orjson.dumps``;
* ``blocking``: the raw limit without an event loop: ``subprocess.Popen`` and a blocking
  ``readline`` loop with ``orjson.loads``.

Scenarios (the issue's numbering):

1. stream: N = 100,000 assistant frames of ~200 characters (~760 B a line) and a result;
   wall rate N / (send to result), steady rate N / (first message to result);
2. can_use_tool: 5,000 sequential requests, each answered by a callback that allows;
3. hook_callback: 5,000 sequential PreToolUse callbacks to the id registered in initialize;
4. one 50 MB assistant frame: time from send to result, peak RSS; the official SDK with its
   buffer raised (``max_buffer_size``), and once with its default, to record what happens;
5. import time: ``python -X importtime -c "import X"``, fresh processes, median; and
   ``from X import <what a session needs>`` (``import claude_sdk`` is lazy);
6. time to first message: from entering the session (spawn, initialize) to the first frame,
   the first session of a fresh process (cold) and a second one in it (warm);
7. RSS across a 1,000,000-frame stream: sampled every 1% of the frames;
8. 100 concurrent sessions, each a short turn (10 frames): wall time, then every CLI pid is
   checked gone and no child of the measuring process may remain.

Method: one fresh process per measurement (``--one SCENARIO --variant V --backend B``,
printing one ``RESULT {json}`` line); in scenarios 1-4 and 7 a small warm-up turn of the
same variant runs first in that process (first-use costs are what scenario 6 measures);
variants interleaved (A B C ... A B C ...), ``--repeat`` runs each (5; ``--quick``: 2), the
tables give medians. The results, the machine, the versions and the commands go to
``benchmarks/RESULTS.md`` (a ``--quick`` run writes only with ``--write``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib.metadata
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# Benchmark the checkout next to this script, installed or not.
sys.path.insert(0, str(REPO))

SCRIPT = Path(__file__).resolve()
FAKE_CLI = SCRIPT.with_name("fake_cli_bench.py")
RESULTS = SCRIPT.with_name("RESULTS.md")
PROMPT = "Summarise the repository."
#: Seconds to wait before each run of scenario 8 (the previous run's processes wind down).
SETTLE_S = 1.0
READ_BYTES = 256 * 1024  # the raw readers' read size (claude_sdk reads 256 KiB too)
OFFICIAL_DIST = "claude-agent-sdk"
OFFICIAL_PIN = "0.2.187"
OFFICIAL_RAISED_BUFFER = 128 * 1024 * 1024  # max_buffer_size for the 50 MB frame
NOISY_SPREAD = 0.10
MiB = 1024 * 1024
_MICRO = "\u00b5"

Json = dict[str, Any]
clock = time.perf_counter


@dataclass(frozen=True)
class Sizes:
    stream: int = 100_000
    roundtrips: int = 5_000
    big_bytes: int = 50_000_000
    rss_frames: int = 1_000_000
    sessions: int = 100
    session_frames: int = 10
    repeat: int = 5
    import_repeat: int = 9
    rss_repeat: int = 1


FULL = Sizes()
QUICK = Sizes(
    stream=20_000,
    roundtrips=1_000,
    rss_frames=200_000,
    sessions=100,
    repeat=2,
    import_repeat=3,
)

WARMUP_FRAMES = 2_000
RSS_UNIQUE_FRAMES = 100_000  # scenario 7: distinct frames, repeated up to the length
WARMUP_ROUNDTRIPS = 200


# ======================================================================================
# Variants and scenarios


@dataclass(frozen=True)
class Variant:
    key: str
    label: str
    is_async: bool


VARIANTS = {
    v.key: v
    for v in (
        Variant("ours", "claude_sdk", True),
        Variant("ours-nosup", "claude_sdk, no watchdog", True),
        Variant("official", "claude-agent-sdk", True),
        Variant("official-default", "claude-agent-sdk, default buffer", True),
        Variant("anyio", "bare AnyIO + orjson", True),
        Variant("blocking", "blocking readline + orjson", False),
        Variant("fake", "fake CLI alone, drained pipe", False),
    )
}
BACKENDS = ("asyncio", "trio")

SCENARIO_TITLES = {
    "stream": "1. Stream throughput",
    "can_use_tool": "2. can_use_tool round trips",
    "hook_callback": "3. hook_callback round trips",
    "big": "4. One 50 MB assistant frame",
    "import": "5. Import time",
    "first": "6. Time to first message",
    "rss": "7. RSS across a long stream",
    "concurrent": "8. Concurrent sessions",
}
SCENARIO_NUMBERS = {str(i): key for i, key in enumerate(SCENARIO_TITLES, start=1)}


def scenario_variants(scenario: str) -> list[str]:
    if scenario == "stream":
        return ["ours", "official", "anyio", "blocking", "fake"]
    if scenario in ("can_use_tool", "hook_callback", "rss"):
        return ["ours", "official", "anyio", "blocking"]
    if scenario == "big":
        return ["ours", "official", "anyio", "blocking", "fake", "official-default"]
    if scenario == "first":
        return ["ours", "ours-nosup", "official", "anyio", "blocking"]
    if scenario == "concurrent":
        return ["ours", "official", "anyio"]
    raise ValueError(scenario)


# ======================================================================================
# The measuring child: one turn through one variant


@dataclass
class TurnSpec:
    kind: str  # the fake CLI's scenario: stream, can_use_tool, hook_callback, big
    n: int
    big_bytes: int = 0
    sample_every: int = 0  # sample RSS every so many messages (0: never)
    max_buffer: int | None = None  # the official SDK's max_buffer_size
    supervise: bool = True  # claude_sdk's watchdog (SubprocessTransport(supervise=...))
    unique: int = 0  # distinct frames the fake builds (0: all)

    def cli_env(self) -> dict[str, str]:
        return {
            "BENCH_CLI_SCENARIO": self.kind,
            "BENCH_CLI_N": str(self.n),
            "BENCH_CLI_BIG_BYTES": str(self.big_bytes),
            "BENCH_CLI_UNIQUE": str(self.unique),
            "PATH": _cli_path_env(),
        }

    def full_env(self) -> dict[str, str]:
        return {**os.environ, **self.cli_env()}


@dataclass
class Turn:
    """The timestamps (``perf_counter``) and counts of one turn."""

    t_open: float = 0.0  # before spawning / entering the session
    t_entered: float = 0.0  # session open: spawned and initialized
    t_sent: float = 0.0  # before the prompt is sent
    t_first: float = 0.0  # first message received
    t_end: float = 0.0  # result received
    t_closed: float = 0.0  # session closed
    count: int = 0  # messages received, result included
    callbacks: int = 0
    t_first_cb: float = 0.0
    pid: int | None = None  # the CLI's pid, from its initialize answer
    samples: list[tuple[int, float, int]] = field(default_factory=list)  # (count, t, rss)
    result_ok: bool = False
    cpu_sent: float = 0.0  # this process's CPU time (all threads) at t_sent
    cpu_end: float = 0.0  # ... and at t_end

    def hit(self) -> None:
        if not self.callbacks:
            self.t_first_cb = clock()
        self.callbacks += 1


def _cli_path_env() -> str:
    """PATH for the fake CLI: its ``#!/usr/bin/env python3`` must find this interpreter."""
    here = os.path.dirname(sys.executable)
    path = os.environ.get("PATH", "")
    if os.path.exists(os.path.join(here, "python3")):
        return here + os.pathsep + path
    shim = Path(tempfile.gettempdir()) / f"bench_vs_official_{os.getuid()}"
    shim.mkdir(exist_ok=True)
    exe = shim / "python3"
    text = f'#!/bin/sh\nexec "{sys.executable}" "$@"\n'
    if not exe.exists() or exe.read_text() != text:
        exe.write_text(text)
        exe.chmod(0o755)
    return str(shim) + os.pathsep + path


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss() -> int:
    """Resident set size of this process now, in bytes (Linux /proc)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except OSError:
        return 0


cpu = time.process_time  # CPU time of this process, all its threads (not its children)


def maxrss() -> int:
    """Peak resident set size of this process so far, in bytes."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# --------------------------------------------------------------------------------------
# claude_sdk


async def ours_turn(spec: TurnSpec) -> Turn:
    import claude_sdk as cs
    from claude_sdk.transports.subprocess import SubprocessTransport

    # What a program imports before it starts (``import claude_sdk`` itself is lazy).
    open_session, result_type = cs.open_session, cs.ResultMessage
    turn = Turn()

    async def allow(tool: str, tool_input: dict[str, Any], context: Any) -> cs.PermissionAllow:
        turn.hit()
        return cs.PermissionAllow()

    async def hook(hook_input: Any, context: cs.HookContext) -> cs.HookOutput:
        turn.hit()
        return cs.HookOutput()

    extra: dict[str, Any] = {}
    if spec.kind == "can_use_tool":
        extra["can_use_tool"] = allow
    elif spec.kind == "hook_callback":
        extra["hooks"] = {"PreToolUse": [cs.HookMatcher(matcher="Bash", hooks=[hook])]}
    options = cs.Options(cli_path=str(FAKE_CLI), env=dict(spec.cli_env()), **extra)
    transport = None if spec.supervise else SubprocessTransport(supervise=False)
    sample_every, samples = spec.sample_every, turn.samples
    count = 0
    first = 0.0
    message: Any = None
    turn.t_open = clock()
    async with open_session(options, transport=transport) as session:
        turn.t_entered = clock()
        turn.pid = session.server_info.pid
        turn.t_sent, turn.cpu_sent = clock(), cpu()
        await session.send(PROMPT)
        async for message in session.receive_response():  # noqa: B007 (checked after)
            if not count:
                first = clock()
            count += 1
            if sample_every and not count % sample_every:
                samples.append((count, clock(), rss()))
        turn.t_end, turn.cpu_end = clock(), cpu()
        turn.result_ok = isinstance(message, result_type)
    turn.t_closed = clock()
    turn.t_first, turn.count = first, count
    return turn


# --------------------------------------------------------------------------------------
# claude-agent-sdk (imported only in its own measuring processes)


async def official_turn(spec: TurnSpec) -> Turn:
    from claude_agent_sdk import (  # type: ignore[import-not-found, unused-ignore]
        ClaudeAgentOptions,
        ClaudeSDKClient,
        HookMatcher,
        PermissionResultAllow,
        ResultMessage,
    )

    turn = Turn()

    async def allow(tool: str, tool_input: dict[str, Any], context: Any) -> Any:
        turn.hit()
        return PermissionResultAllow()

    async def hook(hook_input: Any, tool_use_id: str | None, context: Any) -> Any:
        turn.hit()
        return {}

    extra: dict[str, Any] = {}
    if spec.kind == "can_use_tool":
        extra["can_use_tool"] = allow
    elif spec.kind == "hook_callback":
        extra["hooks"] = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook])]}
    if spec.max_buffer is not None:
        extra["max_buffer_size"] = spec.max_buffer
    options = ClaudeAgentOptions(cli_path=str(FAKE_CLI), env=spec.cli_env(), **extra)
    sample_every, samples = spec.sample_every, turn.samples
    count = 0
    first = 0.0
    message: Any = None
    turn.t_open = clock()
    async with ClaudeSDKClient(options) as client:
        turn.t_entered = clock()
        info = await client.get_server_info()
        turn.pid = info.get("pid") if isinstance(info, dict) else None
        turn.t_sent, turn.cpu_sent = clock(), cpu()
        await client.query(PROMPT)
        async for message in client.receive_response():  # noqa: B007 (checked after)
            if not count:
                first = clock()
            count += 1
            if sample_every and not count % sample_every:
                samples.append((count, clock(), rss()))
        turn.t_end, turn.cpu_end = clock(), cpu()
        turn.result_ok = isinstance(message, ResultMessage)
    turn.t_closed = clock()
    turn.t_first, turn.count = first, count
    return turn


# --------------------------------------------------------------------------------------
# The raw limit: no SDK


def _init_line(kind: str) -> bytes:
    hooks: Json | None = None
    if kind == "hook_callback":
        hooks = {"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}]}
    frame = {
        "type": "control_request",
        "request_id": "req_1",
        "request": {"subtype": "initialize", "hooks": hooks},
    }
    return json.dumps(frame, separators=(",", ":")).encode() + b"\n"


PROMPT_LINE = (
    json.dumps(
        {
            "type": "user",
            "message": {"role": "user", "content": PROMPT},
            "parent_tool_use_id": None,
            "session_id": "default",
        },
        separators=(",", ":"),
    ).encode()
    + b"\n"
)


def _answer(frame: Json) -> Json:
    """The success answer to a control request from the CLI (allow for can_use_tool)."""
    request = frame["request"]
    body: Json = {}
    if request.get("subtype") == "can_use_tool":
        body = {"behavior": "allow", "updatedInput": request["input"]}
    return {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": frame["request_id"], "response": body},
    }


class _Lines:
    """Complete lines out of chunks (pieces of a partial line joined once)."""

    def __init__(self) -> None:
        self.pieces: list[bytes] = []

    def feed(self, chunk: bytes) -> list[bytes]:
        if b"\n" not in chunk:
            self.pieces.append(chunk)
            return []
        parts = chunk.split(b"\n")
        if self.pieces:
            self.pieces.append(parts[0])
            parts[0] = b"".join(self.pieces)
            self.pieces = []
        rest = parts.pop()
        if rest:
            self.pieces.append(rest)
        return parts


async def anyio_turn(spec: TurnSpec) -> Turn:
    import anyio
    import orjson

    turn = Turn()
    loads, dumps = orjson.loads, orjson.dumps
    sample_every, samples = spec.sample_every, turn.samples
    turn.t_open = clock()
    process = await anyio.open_process(
        [str(FAKE_CLI)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=spec.full_env()
    )
    assert process.stdin is not None
    assert process.stdout is not None
    stdin, stdout = process.stdin, process.stdout
    splitter = _Lines()

    async def lines() -> list[bytes]:
        while True:
            got = splitter.feed(await stdout.receive(READ_BYTES))
            if got:
                return got

    try:
        await stdin.send(_init_line(spec.kind))
        answered = False
        while not answered:
            for line in await lines():
                frame = loads(line)
                if frame["type"] == "control_response":
                    turn.pid = frame["response"]["response"].get("pid")
                    answered = True
        turn.t_entered = clock()
        turn.t_sent, turn.cpu_sent = clock(), cpu()
        await stdin.send(PROMPT_LINE)
        count = 0
        first = 0.0
        done = False
        while not done:
            for line in await lines():
                frame = loads(line)
                kind = frame["type"]
                if kind == "control_request":
                    turn.hit()
                    await stdin.send(dumps(_answer(frame)) + b"\n")
                    continue
                if not count:
                    first = clock()
                count += 1
                if sample_every and not count % sample_every:
                    samples.append((count, clock(), rss()))
                if kind == "result":
                    done = True
                    turn.result_ok = True
                    break
        turn.t_end, turn.cpu_end = clock(), cpu()
        turn.t_first, turn.count = first, count
        await stdin.aclose()
        await process.wait()
    finally:
        with anyio.CancelScope(shield=True):
            await process.aclose()
    turn.t_closed = clock()
    return turn


def blocking_turn(spec: TurnSpec) -> Turn:
    import orjson

    turn = Turn()
    loads, dumps = orjson.loads, orjson.dumps
    sample_every, samples = spec.sample_every, turn.samples
    turn.t_open = clock()
    with subprocess.Popen(
        [str(FAKE_CLI)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=spec.full_env(),
        bufsize=READ_BYTES,
    ) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        stdin, stdout = process.stdin, process.stdout
        stdin.write(_init_line(spec.kind))
        stdin.flush()
        while True:
            frame = loads(stdout.readline())
            if frame["type"] == "control_response":
                turn.pid = frame["response"]["response"].get("pid")
                break
        turn.t_entered = clock()
        turn.t_sent, turn.cpu_sent = clock(), cpu()
        stdin.write(PROMPT_LINE)
        stdin.flush()
        count = 0
        first = 0.0
        for line in stdout:
            frame = loads(line)
            kind = frame["type"]
            if kind == "control_request":
                turn.hit()
                stdin.write(dumps(_answer(frame)) + b"\n")
                stdin.flush()
                continue
            if not count:
                first = clock()
            count += 1
            if sample_every and not count % sample_every:
                samples.append((count, clock(), rss()))
            if kind == "result":
                turn.result_ok = True
                break
        turn.t_end, turn.cpu_end = clock(), cpu()
        turn.t_first, turn.count = first, count
        stdin.close()
        process.wait()
    turn.t_closed = clock()
    return turn


def fake_alone(spec: TurnSpec) -> Json:
    """The fake CLI with nobody but a drained pipe on its stdout: its own ceiling."""
    env = {**spec.full_env(), "BENCH_CLI_STATS": "1"}
    with subprocess.Popen(
        [str(FAKE_CLI)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as process:
        assert process.stdin
        assert process.stdout
        assert process.stderr
        process.stdin.write(_init_line(spec.kind) + PROMPT_LINE)
        process.stdin.close()  # it reads both lines, streams, then sees the end of stdin
        fd = process.stdout.fileno()
        newlines = 0
        total = 0
        t_first = 0.0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            if newlines >= 1 and not t_first:
                t_first = clock()  # the first read after the initialize answer
            newlines += chunk.count(b"\n")
            total += len(chunk)
        t_end = clock()
        stderr = process.stderr.read().decode("utf-8", "replace")
        process.wait()
    stats: Json = {}
    for line in stderr.splitlines():
        if line.startswith("BENCH_CLI_STATS "):
            stats = json.loads(line.split(" ", 1)[1])
    frames = newlines - 1  # the initialize answer is not a frame
    expected = spec.n + 1 if spec.kind == "stream" else 2
    if frames != expected:
        raise RuntimeError(f"the fake wrote {frames} lines, not {expected}: {stderr[-2000:]}")
    return {
        "steady_s": t_end - t_first,
        "wall_s": t_end - t_first,
        "fake_write_s": stats.get("write_s"),
        "fake_build_s": stats.get("build_s"),
        "bytes": total,
        "count": frames,
    }


# --------------------------------------------------------------------------------------
# The child's scenarios


AsyncTurn = Callable[[TurnSpec], Any]


def _async_driver(variant: str) -> AsyncTurn:
    if variant in ("ours", "ours-nosup"):
        return ours_turn
    if variant in ("official", "official-default"):
        return official_turn
    if variant == "anyio":
        return anyio_turn
    raise ValueError(variant)


def _spec(variant: str, kind: str, n: int, **kw: Any) -> TurnSpec:
    spec = TurnSpec(kind, n, **kw)
    if variant == "official":
        spec.max_buffer = OFFICIAL_RAISED_BUFFER if kind == "big" else None
    if variant == "ours-nosup":
        spec.supervise = False
    return spec


def _check(turn: Turn, spec: TurnSpec) -> None:
    if spec.kind == "stream":
        expected = spec.n + 1
    elif spec.kind == "big":
        expected = 2
    else:
        expected = 1
    if turn.count != expected or not turn.result_ok:
        raise RuntimeError(f"got {turn.count} messages (result: {turn.result_ok}), not {expected}")
    if spec.kind in ("can_use_tool", "hook_callback") and turn.callbacks != spec.n:
        raise RuntimeError(f"{turn.callbacks} callbacks ran, not {spec.n}")


def _turn_figures(turn: Turn, spec: TurnSpec) -> Json:
    out: Json = {
        "wall_s": turn.t_end - turn.t_sent,
        "open_s": turn.t_entered - turn.t_open,
        "close_s": turn.t_closed - turn.t_end,
        "count": turn.count,
        "pid": turn.pid,
        "cpu_s": turn.cpu_end - turn.cpu_sent,
    }
    if spec.kind in ("can_use_tool", "hook_callback"):
        out["steady_s"] = turn.t_end - turn.t_first_cb
    else:
        out["steady_s"] = turn.t_end - turn.t_first
    return out


def _warm_spec(variant: str, scenario: str, args: argparse.Namespace) -> TurnSpec:
    if scenario in ("can_use_tool", "hook_callback"):
        return _spec(variant, scenario, min(args.n, WARMUP_ROUNDTRIPS))
    return _spec(variant, "stream", WARMUP_FRAMES if scenario != "big" else 10)


def _main_spec(variant: str, scenario: str, args: argparse.Namespace) -> TurnSpec:
    if scenario == "big":
        return _spec(variant, "big", 1, big_bytes=args.big_bytes)
    if scenario == "rss":
        # The fake repeats 100,000 distinct frames: the same bytes for every reader, built in
        # a fraction of the time 1,000,000 would take.
        return _spec(
            variant,
            "stream",
            args.n,
            sample_every=max(args.n // 100, 1),
            unique=RSS_UNIQUE_FRAMES,
        )
    return _spec(variant, scenario, args.n)


async def run_async(variant: str, scenario: str, args: argparse.Namespace) -> Json:
    import anyio

    driver = _async_driver(variant)
    with anyio.fail_after(args.deadline):
        if scenario == "first":
            spec = _spec(variant, "stream", 1)
            cold = await driver(spec)
            _check(cold, spec)
            warm = await driver(spec)
            _check(warm, spec)
            return {
                "cold_s": cold.t_first - cold.t_open,
                "warm_s": warm.t_first - warm.t_open,
                "cold_open_s": cold.t_entered - cold.t_open,
                "warm_open_s": warm.t_entered - warm.t_open,
                "warm_frame_s": warm.t_first - warm.t_sent,
            }
        if scenario == "concurrent":
            spec = _spec(variant, "stream", args.session_frames)
            _check(await driver(spec), spec)  # warm-up: one session
            turns: list[Turn] = []

            async def one() -> None:
                turns.append(await driver(spec))

            t0 = clock()
            async with anyio.create_task_group() as tg:
                for _ in range(args.sessions):
                    tg.start_soon(one)
            wall = clock() - t0
            for turn in turns:
                _check(turn, spec)
            alive = [pid for pid in (t.pid for t in turns) if pid is not None and _alive(pid)]
            return {
                "wall_s": wall,
                "sessions": len(turns),
                "pids": len({t.pid for t in turns if t.pid is not None}),
                "alive_cli": alive,
                "children_left": _children(),
                "maxrss": maxrss(),
            }
        warm = _warm_spec(variant, scenario, args)
        _check(await driver(warm), warm)
        spec = _main_spec(variant, scenario, args)
        rss_before = rss()
        if variant == "official-default":
            t0 = clock()
            try:
                turn = await driver(spec)
            except Exception as exc:
                return {
                    "failed_as": f"{type(exc).__name__}: {str(exc)[:300]}",
                    "fail_s": clock() - t0,
                    "rss_before": rss_before,
                    "maxrss": maxrss(),
                }
            _check(turn, spec)
            return {**_turn_figures(turn, spec), "rss_before": rss_before, "maxrss": maxrss()}
        turn = await driver(spec)
        _check(turn, spec)
        out = _turn_figures(turn, spec)
        out.update(rss_before=rss_before, maxrss=maxrss(), samples=turn.samples)
        return out


def run_blocking(variant: str, scenario: str, args: argparse.Namespace) -> Json:
    if variant == "fake":
        kind = "big" if scenario == "big" else "stream"
        return fake_alone(TurnSpec(kind, args.n, big_bytes=args.big_bytes))
    if scenario == "first":
        spec = TurnSpec("stream", 1)
        cold = blocking_turn(spec)
        _check(cold, spec)
        warm = blocking_turn(spec)
        _check(warm, spec)
        return {
            "cold_s": cold.t_first - cold.t_open,
            "warm_s": warm.t_first - warm.t_open,
            "cold_open_s": cold.t_entered - cold.t_open,
            "warm_open_s": warm.t_entered - warm.t_open,
            "warm_frame_s": warm.t_first - warm.t_sent,
        }
    warm_spec = _warm_spec(variant, scenario, args)
    _check(blocking_turn(warm_spec), warm_spec)
    spec = _main_spec(variant, scenario, args)
    rss_before = rss()
    turn = blocking_turn(spec)
    _check(turn, spec)
    out = _turn_figures(turn, spec)
    out.update(rss_before=rss_before, maxrss=maxrss(), samples=turn.samples)
    return out


def _alive(pid: int) -> bool:
    """True if ``pid`` still exists (a zombie counts: nobody reaped it)."""
    return os.path.exists(f"/proc/{pid}")


def _children() -> list[int]:
    """Pids of the processes whose parent is this one (none should remain)."""
    me = os.getpid()
    found = []
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    stat = fh.read()
            except OSError:
                continue
            fields = stat[stat.rindex(b")") + 2 :].split()
            if int(fields[1]) == me:
                found.append(int(entry))
    return found


def run_one(args: argparse.Namespace) -> Json:
    variant, scenario = args.variant, args.one
    if VARIANTS[variant].is_async:
        import anyio

        async def main() -> Json:
            return await run_async(variant, scenario, args)

        result: Json = anyio.run(main, backend=args.backend)
    else:
        result = run_blocking(variant, scenario, args)
    result.setdefault("maxrss", maxrss())
    return result


# ======================================================================================
# The parent: plan, spawn, collect


@dataclass
class Series:
    scenario: str
    variant: str
    backend: str
    n: int
    runs: list[Json] = field(default_factory=list)

    @property
    def label(self) -> str:
        return VARIANTS[self.variant].label

    @property
    def where(self) -> str:
        return self.backend if VARIANTS[self.variant].is_async else "-"

    def values(self, key: str) -> list[float]:
        return [float(r[key]) for r in self.runs if r.get(key) is not None]

    def median(self, key: str) -> float:
        values = self.values(key)
        return float(statistics.median(values)) if values else float("nan")

    def best(self, key: str) -> float:
        values = self.values(key)
        return min(values) if values else float("nan")

    def spread(self, key: str) -> float:
        m, b = self.median(key), self.best(key)
        return (m - b) / b if b else float("nan")


@dataclass
class Plan:
    scenario: str
    n: int
    entries: list[tuple[str, str]]  # (variant, backend)
    repeat: int


def make_plans(args: argparse.Namespace, sizes: Sizes, backends: Sequence[str]) -> list[Plan]:
    plans = []
    for scenario in args.scenarios:
        if scenario == "import":
            continue
        entries: list[tuple[str, str]] = []
        for variant in scenario_variants(scenario):
            if VARIANTS[variant].is_async:
                entries.extend((variant, b) for b in backends)
            else:
                entries.append((variant, "-"))
        n = {
            "stream": sizes.stream,
            "can_use_tool": sizes.roundtrips,
            "hook_callback": sizes.roundtrips,
            "big": 1,
            "first": 1,
            "rss": sizes.rss_frames,
            "concurrent": sizes.sessions,
        }[scenario]
        repeat = sizes.rss_repeat if scenario == "rss" else sizes.repeat
        plans.append(Plan(scenario, n, entries, repeat))
    return plans


def child_command(
    scenario: str, variant: str, backend: str, n: int, sizes: Sizes, deadline: float
) -> list[str]:
    cmd = [sys.executable, str(SCRIPT), "--one", scenario, "--variant", variant]
    if backend != "-":
        cmd += ["--backend", backend]
    cmd += ["--n", str(n), "--deadline", f"{deadline:g}"]
    if scenario == "big":
        cmd += ["--big-bytes", str(sizes.big_bytes)]
    if scenario == "concurrent":
        cmd += ["--sessions", str(sizes.sessions), "--session-frames", str(sizes.session_frames)]
    return cmd


def deadline_for(scenario: str, n: int) -> float:
    per = {
        "stream": 100e-6,
        "can_use_tool": 2e-3,
        "hook_callback": 2e-3,
        "rss": 100e-6,
        "concurrent": 0.5,
    }.get(scenario, 0.0)
    return 60.0 + n * per


def child_env() -> dict[str, str]:
    """The environment of the measuring processes: bytecode caching on, as installs have it
    (with ``PYTHONDONTWRITEBYTECODE`` set and no ``.pyc`` written, every import would compile
    its sources again, which is not what users see)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compile_bytecode() -> None:
    """Import everything once in a throw-away process, so the ``.pyc`` files exist."""
    for mods in ("claude_sdk", "claude_agent_sdk", "anyio, orjson, trio"):
        subprocess.run(
            [sys.executable, "-c", f"import {mods}"],
            cwd=REPO,
            env=child_env(),
            capture_output=True,
            check=False,
        )


def spawn(cmd: list[str], deadline: float) -> Json:
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=deadline + 30,
            check=False,
            cwd=REPO,
            env=child_env(),
        )
    except subprocess.TimeoutExpired as exc:
        raw: object = exc.stderr
        stderr = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw or "")
        return {"error": f"timed out after {deadline + 30:.0f} s", "stderr": stderr}
    result: Json | None = None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT ") :])
    if proc.returncode != 0 or result is None:
        return {"error": f"exit status {proc.returncode}", "stderr": proc.stderr}
    if proc.stderr.strip():
        result["stderr"] = proc.stderr
    return result


def measure_imports(repeat: int) -> dict[str, list[Json]]:
    """``python -X importtime -c STATEMENT`` in fresh processes, interleaved.

    Each row is one statement: a bare ``import`` and, since ``import claude_sdk`` is lazy
    (PEP 562), what a program needs to run a session. ``import_s``: the cumulative time of
    everything the statement imports (the top-level importtime entries after a marker the
    process writes first, which lazily imported submodules are, too); ``process_s``: the
    wall time of the process.
    """
    statements = {  # row name -> statement (the session rows: the target)
        "claude_sdk": "import claude_sdk",
        "claude_agent_sdk": "import claude_agent_sdk",
        "claude_sdk: session": "from claude_sdk import open_session, Options",
        "claude_agent_sdk: session": (
            "from claude_agent_sdk import ClaudeSDKClient, ClaudeAgentOptions"
        ),
        # Issue 29, item 4: the names an everyday program imports, on both sides.
        "claude_sdk: everyday": (
            "from claude_sdk import ask, query, open_session, Options, AssistantMessage, "
            "ResultMessage, tool"
        ),
        "claude_agent_sdk: everyday": (
            "from claude_agent_sdk import query, ClaudeSDKClient, ClaudeAgentOptions, "
            "AssistantMessage, ResultMessage, tool"
        ),
        "anyio + orjson": "import anyio, orjson",
    }
    marker = "-- measured --"
    out: dict[str, list[Json]] = {name: [] for name in statements}
    env = child_env()
    for statement in statements.values():  # warm-up: .pyc files written, the page cache filled
        subprocess.run(
            [sys.executable, "-c", statement],
            cwd=REPO,
            env=env,
            capture_output=True,
            check=False,
        )
    for _ in range(repeat):
        for name, statement in statements.items():
            code = f"import os; os.write(2, b'{marker}\\n'); {statement}"
            t0 = clock()
            proc = subprocess.run(
                [sys.executable, "-X", "importtime", "-c", code],
                cwd=REPO,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            wall = clock() - t0
            if proc.returncode != 0 or marker not in proc.stderr:
                out[name].append({"error": proc.stderr[-500:], "statement": statement})
                continue
            total = 0
            cumulative: dict[str, int] = {}
            for line in proc.stderr.split(marker, 1)[1].splitlines():
                m = re.match(r"import time:\s+(\d+)\s+\|\s+(\d+)\s+\|( *)(\S+)", line)
                if m:
                    cumulative.setdefault(m.group(4), int(m.group(2)))
                    if len(m.group(3)) == 1:  # top level: imported by the statement itself
                        total += int(m.group(2))
            out[name].append(
                {
                    "statement": statement,
                    "import_s": total / 1e6,
                    "mcp_s": cumulative.get("mcp", 0) / 1e6,
                    "process_s": wall,
                }
            )
    t_pass = []
    for _ in range(repeat):
        t0 = clock()
        subprocess.run([sys.executable, "-c", "pass"], env=env, capture_output=True, check=False)
        t_pass.append(clock() - t0)
    out["(python -c pass)"] = [{"import_s": 0.0, "mcp_s": 0.0, "process_s": t} for t in t_pass]
    return out


# ======================================================================================
# Report


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _ours_version() -> str:
    text = (REPO / "claude_sdk" / "_version.py").read_text()
    m = re.search(r"__version__\s*=\s*['\"]([^'\"]+)", text)
    return m.group(1) if m else "unknown"


def _git(*args: str) -> str:
    try:
        out = subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, check=False, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.strip()


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _mem_total() -> str:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    return "unknown"


def environment() -> Json:
    commit = _git("rev-parse", "--short", "HEAD")
    dirty = bool(_git("status", "--porcelain", "--", "claude_sdk"))
    return {
        "python": f"{sys.version.split()[0]} ({platform.python_implementation()})",
        "executable": sys.executable,
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "memory": _mem_total(),
        "claude_sdk": f"{_ours_version()} (checkout {commit or '?'}"
        + (", claude_sdk/ modified)" if dirty else ")"),
        "packages": {
            dist: _version(dist)
            for dist in (OFFICIAL_DIST, "anyio", "trio", "orjson", "attrs", "cattrs", "mcp")
        },
    }


def _fmt_rate(x: float) -> str:
    if x != x:
        return "-"
    return f"{x:,.0f}"


def _fmt_ratio(x: float) -> str:
    if x != x or x in (float("inf"), float("-inf")):
        return "-"
    return f"{x:.2f}x"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> list[str]:
    align = align or "l" + "r" * (len(head) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


class Report:
    def __init__(self, series: dict[tuple[str, str, str], Series], backends: Sequence[str]):
        self.series = series
        self.backends = list(backends)
        self.targets: list[tuple[str, str, str, str]] = []  # (target, backend, value, verdict)

    def get(self, scenario: str, variant: str, backend: str) -> Series | None:
        s = self.series.get((scenario, variant, backend))
        return s if s is not None and s.runs else None

    def rate(self, scenario: str, variant: str, backend: str, key: str) -> float:
        s = self.get(scenario, variant, backend)
        if s is None:
            return float("nan")
        return s.n / s.median(key)

    def target(self, name: str, backend: str, value: float, ok: bool | None, text: str) -> None:
        verdict = "-" if ok is None or value != value else ("met" if ok else "NOT met")
        self.targets.append((name, backend, text, verdict))

    # ---- 1-3, 7: rates

    def rates(self, scenario: str, unit: str) -> list[str]:
        rows = []
        for (sc, _variant, _backend), s in self.series.items():
            if sc != scenario or not s.runs:
                continue
            cpu_us = s.median("cpu_s") / s.n * 1e6
            rss_mib = s.median("maxrss") / MiB
            rows.append(
                [
                    s.label,
                    s.where,
                    _fmt_rate(s.n / s.median("wall_s")),
                    _fmt_rate(s.n / s.median("steady_s")),
                    _fmt_rate(s.n / s.best("steady_s")),
                    f"{s.median('wall_s') / s.n * 1e6:.2f}",
                    f"{cpu_us:.2f}" if cpu_us == cpu_us else "-",
                    f"{s.spread('steady_s'):.0%}",
                    f"{rss_mib:.0f}" if rss_mib == rss_mib and s.variant != "fake" else "-",
                ]
            )
        head = [
            "variant",
            "backend",
            f"wall {unit}/s",
            f"steady {unit}/s",
            "(best steady)",
            f"{_MICRO}s/{unit}",
            f"CPU {_MICRO}s/{unit}",
            "spread",
            "peak RSS MiB",
        ]
        return [*_table(head, rows), "", *self.rate_ratios(scenario)]

    def cpu(self, scenario: str, variant: str, backend: str) -> float:
        s = self.get(scenario, variant, backend)
        return s.median("cpu_s") / s.n if s is not None else float("nan")

    def rate_ratios(self, scenario: str) -> list[str]:
        rows = []
        for backend in self.backends:
            for key, label in (("steady_s", "steady rate"), ("wall_s", "wall rate"), ("", "CPU")):
                if key:
                    ours = self.rate(scenario, "ours", backend, key)
                    official = self.rate(scenario, "official", backend, key)
                    bare = self.rate(scenario, "anyio", backend, key)
                    blocking = self.rate(scenario, "blocking", "-", key)
                else:  # CPU per unit, inverted so that higher still means claude_sdk is better
                    ours = 1 / self.cpu(scenario, "ours", backend)
                    official = 1 / self.cpu(scenario, "official", backend)
                    bare = 1 / self.cpu(scenario, "anyio", backend)
                    blocking = 1 / self.cpu(scenario, "blocking", "-")
                    label = "CPU per unit (other / claude_sdk)"
                rows.append(
                    [
                        f"{backend}, {label}",
                        _fmt_ratio(ours / official),
                        _fmt_ratio(ours / bare),
                        _fmt_ratio(ours / blocking),
                        _fmt_ratio(official / bare),
                    ]
                )
                if key != "steady_s":
                    continue
                r_off, r_bare = ours / official, ours / bare
                if scenario == "stream":
                    self.target(
                        "stream >= 3x official", backend, r_off, r_off >= 3, _fmt_ratio(r_off)
                    )
                    self.target(
                        "stream >= 0.5x bare AnyIO",
                        backend,
                        r_bare,
                        r_bare >= 0.5,
                        _fmt_ratio(r_bare),
                    )
                elif scenario in ("can_use_tool", "hook_callback"):
                    self.target(
                        f"{scenario} >= 0.75x bare AnyIO",
                        backend,
                        r_bare,
                        r_bare >= 0.75,
                        _fmt_ratio(r_bare),
                    )
                    self.target(
                        f"{scenario} >= 1x official", backend, r_off, r_off >= 1, _fmt_ratio(r_off)
                    )
        head = [
            "ratio (higher: claude_sdk better)",
            "claude_sdk / official",
            "claude_sdk / bare AnyIO",
            "claude_sdk / blocking",
            "official / bare AnyIO",
        ]
        return _table(head, rows)

    # ---- 4: the big frame

    def big(self) -> list[str]:
        rows = []
        for (sc, _variant, _backend), s in self.series.items():
            if sc != "big" or not s.runs:
                continue
            failed = [r for r in s.runs if "failed_as" in r]
            if failed:
                run = failed[0]
                rows.append(
                    [
                        s.label,
                        s.where,
                        f"fails after {run['fail_s']:.2f} s",
                        "-",
                        f"{run['maxrss'] / MiB:.0f}",
                        f"{run['rss_before'] / MiB:.0f}",
                        "-",
                        f"`{run['failed_as'][:160]}`",
                    ]
                )
                continue
            t = s.median("wall_s")
            peak = s.median("maxrss")
            before = s.median("rss_before")
            rows.append(
                [
                    s.label,
                    s.where,
                    f"{t:.3f}",
                    f"{s.runs[0].get('bytes', 0) / MiB / t:.0f}" if s.variant == "fake" else "-",
                    f"{peak / MiB:.0f}" if s.variant != "fake" else "-",
                    f"{before / MiB:.0f}" if before == before else "-",
                    f"{(peak - before) / MiB:.0f}" if before == before else "-",
                    "ok",
                ]
            )
        for backend in self.backends:
            ours, official = self.get("big", "ours", backend), self.get("big", "official", backend)
            bare = self.get("big", "anyio", backend)
            if ours and bare:
                r = ours.median("maxrss") / bare.median("maxrss")
                self.target(
                    "50 MB frame: peak RSS <= 1.2x bare reader", backend, r, r <= 1.2, _fmt_ratio(r)
                )
            if ours and official:
                r = official.median("wall_s") / ours.median("wall_s")
                self.target(
                    "50 MB frame: throughput >= official (raised)",
                    backend,
                    r,
                    r >= 1,
                    _fmt_ratio(r),
                )
        head = [
            "variant",
            "backend",
            "send to result, s",
            "MiB/s",
            "peak RSS MiB",
            "RSS before MiB",
            "peak - before",
            "outcome",
        ]
        return _table(head, rows, "llrrrrrl")

    # ---- 5: imports

    def imports(self, data: dict[str, list[Json]]) -> list[str]:
        def ratio(x: float) -> str:  # a lazy import is a few thousandths of the official one
            return f"{x:.4f}x" if 0 < x < 0.01 else _fmt_ratio(x)

        rows = []
        med: dict[str, float] = {}
        for name, runs in data.items():
            ok = [r for r in runs if "error" not in r]
            if ok:
                med[name] = statistics.median(r["import_s"] for r in ok)
        official = med.get("claude_agent_sdk", 0.0)
        for name, runs in data.items():
            ok = [r for r in runs if "error" not in r]
            statement = next((r["statement"] for r in runs if "statement" in r), None)
            label = f"`{statement}`" if statement else name
            if not ok:
                rows.append([label, "failed", "-", "-", "-", "-"])
                continue
            imp = med[name]
            mcp = statistics.median(r["mcp_s"] for r in ok)
            proc = statistics.median(r["process_s"] for r in ok)
            rows.append(
                [
                    label,
                    f"{imp * 1e3:.1f}" if imp else "-",
                    f"{min(r['import_s'] for r in ok) * 1e3:.1f}" if imp else "-",
                    ratio(imp / official) if imp and official else "-",
                    f"{mcp * 1e3:.1f}" if mcp else "-",
                    f"{proc * 1e3:.0f}",
                ]
            )
        # The target compares what a program imports to run a session, on both sides (a
        # bare ``import claude_sdk`` is lazy and would flatter us).
        ours_key, theirs_key = "claude_sdk: session", "claude_agent_sdk: session"
        if ours_key in med and theirs_key in med:
            r = med[ours_key] / med[theirs_key]
            self.target("import time <= 0.25x official", "-", r, r <= 0.25, ratio(r))
        ours_key, theirs_key = "claude_sdk: everyday", "claude_agent_sdk: everyday"
        if ours_key in med and theirs_key in med:
            r = med[ours_key] / med[theirs_key]
            self.target("everyday names' import <= 0.12x official", "-", r, r <= 0.12, ratio(r))
        head = [
            "statement",
            "importtime cumulative ms (median)",
            "(min)",
            "/ `import claude_agent_sdk`",
            "of which mcp, ms",
            "whole process ms",
        ]
        note = (
            "`import claude_sdk` imports its names on first access (PEP 562), so it is "
            "measured next to `from claude_sdk import open_session, Options`, what a "
            "program needs to run a session (the official SDK imports everything at once). "
            "importtime: everything the statement imports, lazily imported submodules "
            "included. The target compares the two session statements "
            "(`from claude_sdk import open_session, Options` against `from claude_agent_sdk "
            "import ClaudeSDKClient, ClaudeAgentOptions`), not the bare imports; a second one "
            "(issue 29) the two statements of the everyday names (`ask`, `query`, "
            "`open_session`, `Options`, `AssistantMessage`, `ResultMessage`, `tool`, and the "
            "official SDK's equivalents)."
        )
        return [*_table(head, rows), "", note]

    # ---- 6: first message

    def first(self) -> list[str]:
        rows = []
        for (sc, _variant, _backend), s in self.series.items():
            if sc != "first" or not s.runs:
                continue
            rows.append(
                [
                    s.label,
                    s.where,
                    f"{s.median('cold_s') * 1e3:.1f}",
                    f"{s.median('cold_open_s') * 1e3:.1f}",
                    f"{s.median('warm_s') * 1e3:.1f}",
                    f"{s.median('warm_open_s') * 1e3:.1f}",
                    f"{s.median('warm_frame_s') * 1e3:.2f}",
                ]
            )
        ratio_rows = []
        for backend in self.backends:
            ours, bare = self.get("first", "ours", backend), self.get("first", "anyio", backend)
            official = self.get("first", "official", backend)
            nosup = self.get("first", "ours-nosup", backend)
            if not (ours and bare):
                continue
            for key, label in (("cold_s", "cold"), ("warm_s", "warm")):
                r = ours.median(key) / bare.median(key)
                ro = ours.median(key) / official.median(key) if official else float("nan")
                rn = nosup.median(key) / bare.median(key) if nosup else float("nan")
                ratio_rows.append(
                    [f"{backend}, {label}", _fmt_ratio(r), _fmt_ratio(rn), _fmt_ratio(ro)]
                )
                self.target(
                    f"first message ({label}) <= 1.1x bare reader",
                    backend,
                    r,
                    r <= 1.1,
                    _fmt_ratio(r),
                )
        head = [
            "variant",
            "backend",
            "cold ms",
            "of which open (spawn + initialize)",
            "warm ms",
            "of which open",
            "first frame after send, warm",
        ]
        lines = _table(head, rows)
        head = [
            "time ratio (lower: claude_sdk faster)",
            "claude_sdk / bare AnyIO",
            "claude_sdk no watchdog / bare AnyIO",
            "claude_sdk / official",
        ]
        return [*lines, "", *_table(head, ratio_rows)]

    # ---- 7: RSS over a long stream

    def rss(self) -> list[str]:
        rows = []
        for (sc, variant, backend), s in self.series.items():
            if sc != "rss" or not s.runs:
                continue
            run = s.runs[0]
            samples = run.get("samples") or []
            if not samples:
                continue
            rss_at = [x[2] for x in samples]
            start, tenth = rss_at[0], rss_at[min(9, len(rss_at) - 1)]
            middle, end = rss_at[len(rss_at) // 2 - 1], rss_at[-1]
            growth = end - tenth
            flat = growth <= max(16 * MiB, tenth // 10)
            if variant == "ours":
                self.target(
                    "RSS flat over the long stream",
                    backend,
                    growth,
                    flat,
                    f"{growth / MiB:+.1f} MiB from 10% to the end",
                )
            rows.append(
                [
                    s.label,
                    s.where,
                    f"{run['rss_before'] / MiB:.0f}",
                    f"{start / MiB:.0f}",
                    f"{tenth / MiB:.0f}",
                    f"{middle / MiB:.0f}",
                    f"{end / MiB:.0f}",
                    f"{max(rss_at) / MiB:.0f}",
                    f"{run['maxrss'] / MiB:.0f}",
                    f"{growth / MiB:+.1f}",
                    "flat" if flat else "GROWS",
                    _fmt_rate(s.n / s.median("steady_s")),
                ]
            )
        head = [
            "variant",
            "backend",
            "before",
            "at 1%",
            "at 10%",
            "at 50%",
            "at 100%",
            "max sampled",
            "peak (ru_maxrss)",
            "10% to end",
            "verdict",
            "steady frames/s",
        ]
        return [
            "RSS in MiB, sampled in the consumer every 1% of the frames.",
            "",
            *_table(head, rows, "llrrrrrrrrlr"),
        ]

    # ---- 8: concurrent sessions

    def concurrent(self) -> list[str]:
        rows = []
        for (sc, variant, backend), s in self.series.items():
            if sc != "concurrent" or not s.runs:
                continue
            leaked = sum(len(r.get("alive_cli", [])) for r in s.runs)
            children = sum(len(r.get("children_left", [])) for r in s.runs)
            if variant == "ours":
                ok = leaked == 0 and children == 0
                self.target(
                    "concurrent sessions: no process left",
                    backend,
                    leaked,
                    ok,
                    f"{leaked} CLI(s), {children} child(ren) left",
                )
            wall = s.median("wall_s")
            rows.append(
                [
                    s.label,
                    s.where,
                    f"{wall:.2f}",
                    f"{s.best('wall_s'):.2f}",
                    f"{s.n / wall:.0f}",
                    f"{s.median('maxrss') / MiB:.0f}",
                    f"{leaked}",
                    f"{children}",
                ]
            )
        ratio_rows = []
        for backend in self.backends:
            ours = self.get("concurrent", "ours", backend)
            official = self.get("concurrent", "official", backend)
            bare = self.get("concurrent", "anyio", backend)
            if ours and official and bare:
                ratio_rows.append(
                    [
                        backend,
                        _fmt_ratio(ours.median("wall_s") / official.median("wall_s")),
                        _fmt_ratio(ours.median("wall_s") / bare.median("wall_s")),
                    ]
                )
        head = [
            "variant",
            "backend",
            "wall s (median)",
            "(best)",
            "sessions/s",
            "peak RSS MiB",
            "CLIs alive after",
            "children left",
        ]
        lines = _table(head, rows)
        head = [
            "time ratio (lower: claude_sdk faster)",
            "claude_sdk / official",
            "claude_sdk / bare AnyIO",
        ]
        return [*lines, "", *_table(head, ratio_rows)]


def render(
    report: Report,
    imports: dict[str, list[Json]] | None,
    plans: Sequence[Plan],
    sizes: Sizes,
    notes: Sequence[str],
) -> list[str]:
    out: list[str] = []
    done = {p.scenario for p in plans} | ({"import"} if imports is not None else set())
    for scenario, title in SCENARIO_TITLES.items():
        if scenario not in done:
            continue
        plan = next((p for p in plans if p.scenario == scenario), None)
        out += [f"### {title}", ""]
        if scenario == "stream":
            out += [
                f"{sizes.stream:,} assistant frames (~760 B a line) and a result; "
                f"{plan.repeat if plan else 0} runs each. Wall: N / (send to result); "
                "steady: N / (first message to result).",
                "",
            ]
            out += report.rates("stream", "msg")
        elif scenario in ("can_use_tool", "hook_callback"):
            out += [
                f"{sizes.roundtrips:,} sequential requests, each answered before the next "
                f"is sent; {plan.repeat if plan else 0} runs each. Wall: N / (send to "
                "result); steady: N / (first callback to result).",
                "",
            ]
            out += report.rates(scenario, "rt")
        elif scenario == "big":
            out += [
                f"One assistant frame with a {sizes.big_bytes:,}-byte text block, then a "
                f"result; {plan.repeat if plan else 0} runs each (the official SDK with its "
                f"default buffer once per backend). The official SDK's raised buffer: "
                f"`max_buffer_size={OFFICIAL_RAISED_BUFFER}`. claude_sdk runs with its "
                "defaults.",
                "",
            ]
            out += report.big()
        elif scenario == "import" and imports is not None:
            n_runs = max((len(v) for v in imports.values()), default=0)
            out += [
                f'`python -X importtime -c "import X"` in {n_runs} fresh processes each, '
                "interleaved, after one unmeasured warm-up each; the cumulative time of the "
                "named top-level modules. `whole process`: the wall time of that process.",
                "",
            ]
            out += report.imports(imports)
        elif scenario == "first":
            out += [
                "From entering the session (before the spawn) to the first message of a "
                "1-frame turn: spawn, initialize, send, first frame. Cold: the first "
                "session of a fresh process (lazy imports included); warm: a second "
                f"session in the same process. {plan.repeat if plan else 0} processes each.",
                "",
            ]
            out += report.first()
        elif scenario == "rss":
            out += [
                f"{sizes.rss_frames:,} frames in one turn; {plan.repeat if plan else 0} "
                "run(s) each. Flat: at most max(16 MiB, 10%) of growth from the 10% sample "
                "to the end.",
                "",
            ]
            out += report.rss()
        elif scenario == "concurrent":
            out += [
                f"{sizes.sessions} sessions at once in one process, each spawning its CLI, "
                f"initializing, and a {sizes.session_frames}-frame turn; wall time of the "
                "lot, after one warm-up session. After it: each CLI pid (from its "
                "initialize answer) must be gone, and no child of the measuring process may "
                f"remain. {plan.repeat if plan else 0} runs each.",
                "",
            ]
            out += report.concurrent()
        out.append("")
    if report.targets:
        out += ["### Targets of the issue (ratios from this run)", ""]
        out += _table(
            ["target", "backend", "measured", "verdict"],
            [list(t) for t in report.targets],
            "llrl",
        )
        out.append("")
    if notes:
        out += ["### Notes from this run", ""]
        out += [f"- {note}" for note in notes]
        out.append("")
    return out


def render_results_md(
    body: Sequence[str], env: Json, argv: Sequence[str], elapsed: float, load: str
) -> str:
    pk = env["packages"]
    if os.environ.get("NOX_CURRENT_SESSION"):
        cmd = shlex.join(["nox", "-s", "bench", *(["--", *argv] if argv else [])])
    else:
        cmd = shlex.join(["python", "benchmarks/bench_vs_official.py", *argv])
    lines = [
        "# claude_sdk against claude-agent-sdk and the raw limit",
        "",
        "Written by `benchmarks/bench_vs_official.py`; the method, the fake CLI and how to "
        "read the figures are in [README.md](README.md#bench_vs_officialpy-claude_sdk-"
        "against-the-official-sdk-and-the-raw-limit). Compare ratios within this run: "
        "absolute figures drift 10-15% between runs on this shared 2-core VM, more when "
        "other work runs (see the spread columns and the load average). Round-trip rates "
        "carry the VM's cross-CPU wake-up latency (~80 us for a bare pipe ping-pong "
        "between two processes); the CPU-per-unit rows show each SDK's own cost.",
        "",
        "## Machine and versions",
        "",
        f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"total run time {elapsed / 60:.1f} min",
        f"- CPU: {env['cpu']}, {env['cpu_count']} cores; memory {env['memory']}",
        f"- Load average: {load}",
        f"- Platform: {env['platform']}",
        f"- Python: {env['python']}",
        f"- claude_sdk: {env['claude_sdk']}",
        f"- claude-agent-sdk: {pk[OFFICIAL_DIST]} (on asyncio and on trio, which it "
        f"supports); mcp {pk['mcp']}",
        f"- anyio {pk['anyio']}, trio {pk['trio']}, orjson {pk['orjson']}, attrs "
        f"{pk['attrs']}, cattrs {pk['cattrs']}",
        "- The CLI: `benchmarks/fake_cli_bench.py` (standard library only, all output built "
        "before the first write, 1 MiB writes)",
        "",
        "## Commands",
        "",
        "```sh",
        f"{cmd}",
        "# = python benchmarks/bench_vs_official.py in the bench environment; --quick for a "
        "quick look",
        "# one measurement as the harness runs it (one fresh process each), e.g.:",
        "python benchmarks/bench_vs_official.py --one stream --variant ours --backend asyncio "
        "--n 100000",
        "python benchmarks/bench_vs_official.py --one can_use_tool --variant official "
        "--backend trio --n 5000",
        "python -X importtime -c 'import claude_sdk'   # scenario 5 (and claude_agent_sdk)",
        "```",
        "",
        "## Results",
        "",
        *body,
    ]
    return "\n".join(lines).rstrip() + "\n"


# ======================================================================================
# Main


def run_all(args: argparse.Namespace, argv: Sequence[str]) -> int:
    sizes = QUICK if args.quick else FULL
    overrides = {
        k: v
        for k, v in {
            "repeat": args.repeat,
            "stream": args.stream,
            "roundtrips": args.roundtrips,
            "rss_frames": args.rss_frames,
            "sessions": args.sessions,
        }.items()
        if v is not None
    }
    sizes = dataclasses.replace(sizes, **overrides)
    backends: tuple[str, ...] = BACKENDS if args.backend == "both" else (args.backend,)
    if not os.access(FAKE_CLI, os.X_OK):
        FAKE_CLI.chmod(FAKE_CLI.stat().st_mode | 0o111)
    started = clock()
    load_start = os.getloadavg() if hasattr(os, "getloadavg") else None
    compile_bytecode()
    env = environment()
    print(f"Python {env['python']} on {env['platform']}; {env['cpu']}, {env['cpu_count']} cores")
    print(
        f"claude_sdk {env['claude_sdk']}; "
        + ", ".join(f"{k} {v}" for k, v in env["packages"].items())
    )
    if env["packages"][OFFICIAL_DIST] != OFFICIAL_PIN:
        print(f"warning: {OFFICIAL_DIST} {env['packages'][OFFICIAL_DIST]}, not {OFFICIAL_PIN}")
    official_ok = env["packages"][OFFICIAL_DIST] != "not installed"
    trio_ok = env["packages"]["trio"] != "not installed"
    if not trio_ok and "trio" in backends:
        backends = tuple(b for b in backends if b != "trio")
        print("trio is not installed: asyncio only")
    plans = make_plans(args, sizes, backends)
    if not official_ok:
        print(f"{OFFICIAL_DIST} is not installed: its variants are skipped (use nox -s bench)")
        for plan in plans:
            plan.entries = [e for e in plan.entries if not e[0].startswith("official")]
    series: dict[tuple[str, str, str], Series] = {}
    failures: list[str] = []
    stderr_notes: dict[str, list[str]] = {}
    imports = None
    if "import" in args.scenarios:
        print(f"\n{SCENARIO_TITLES['import']}: {sizes.import_repeat} runs each", flush=True)
        imports = measure_imports(sizes.import_repeat)
        if not official_ok:
            imports.pop("claude_agent_sdk", None)
    for plan in plans:
        t_plan = clock()
        print(
            f"\n{SCENARIO_TITLES[plan.scenario]}: {len(plan.entries)} variants x "
            f"{plan.repeat} runs",
            flush=True,
        )
        for variant, backend in plan.entries:
            series[(plan.scenario, variant, backend)] = Series(
                plan.scenario, variant, backend, plan.n
            )
        deadline = deadline_for(plan.scenario, plan.n)
        for rep in range(plan.repeat):
            # Interleaved, and rotated each round (A B C, B C A, C A B, ...): no variant
            # always runs first, or always right after the same one.
            shift = rep % len(plan.entries)
            for variant, backend in plan.entries[shift:] + plan.entries[:shift]:
                if plan.scenario == "concurrent":
                    time.sleep(SETTLE_S)  # the last run's 100 CLIs are still being cleaned up
                if variant == "official-default" and rep > 0:
                    continue  # recorded once: it fails, then waits for the CLI to be killed
                cmd = child_command(plan.scenario, variant, backend, plan.n, sizes, deadline)
                result = spawn(cmd, deadline)
                tag = f"{plan.scenario}/{variant} ({backend}) run {rep + 1}"
                if "error" in result:
                    stderr = str(result.get("stderr", "")).rstrip()[-3000:]
                    failures.append(f"{tag}: {result['error']}\n{stderr}")
                    print(f"  FAILED {tag}: {result['error']}", flush=True)
                    continue
                note = result.pop("stderr", None)
                if note:
                    stderr_notes.setdefault(note.strip()[-1500:], []).append(tag)
                series[(plan.scenario, variant, backend)].runs.append(result)
            print(f"  run {rep + 1}/{plan.repeat}: {clock() - t_plan:.0f} s", flush=True)
    elapsed = clock() - started
    notes = []
    if not official_ok:
        notes.append(f"{OFFICIAL_DIST} not installed: its rows are missing.")
    for text, tags in stderr_notes.items():
        shown = ", ".join(tags[:3]) + (" ..." if len(tags) > 3 else "")
        tail = " / ".join(line.strip() for line in text.splitlines()[-2:])
        notes.append(f"stderr of {shown} (last lines): `{tail[-400:]}`")
    notes.extend("FAILED " + failure.replace("\n", " / ")[:1500] for failure in failures)
    load = "unknown"
    if load_start is not None:
        load = (
            "(1, 5, 15 min) "
            + " ".join(f"{x:.2f}" for x in load_start)
            + " at the start, "
            + " ".join(f"{x:.2f}" for x in os.getloadavg())
            + " at the end (scenario 8 itself runs 100 CLIs at once)"
        )
        notes.append(f"load average {load}")
    report = Report(series, backends)
    body = render(report, imports, plans, sizes, notes)
    print()
    print("\n".join(body))
    print(f"total {elapsed:.0f} s")
    write = args.write if args.write is not None else (None if args.quick else RESULTS)
    if write is not None:
        text = render_results_md(body, env, argv, elapsed, load)
        kept = _kept_sections(write)
        write.write_text(
            text.rstrip("\n") + ("\n\n" + kept if kept else "") + "\n", encoding="utf-8"
        )
        print(f"written to {write}")
    if args.json is not None:
        data = {
            "environment": env,
            "sizes": dataclasses.asdict(sizes),
            "imports": imports,
            "series": [
                {"scenario": k[0], "variant": k[1], "backend": k[2], "n": s.n, "runs": s.runs}
                for k, s in series.items()
            ],
            "targets": report.targets,
            "failures": failures,
            "elapsed_s": elapsed,
        }
        args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"every run written to {args.json}")
    return 1 if failures else 0


def _kept_sections(path: Path) -> str:
    """The sections other scripts write into RESULTS.md (``bench_policies.py``,
    ``bench_coordinator.py``), kept."""
    if not path.exists():
        return ""
    text = path.read_text(encoding="utf-8")
    kept = []
    for name in ("policies", "coordinator"):
        start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
        if start in text and end in text:
            kept.append(start + text.split(start, 1)[1].split(end, 1)[0] + end)
    return "\n\n".join(kept)


def _scenarios(text: str) -> list[str]:
    chosen = []
    for part in text.split(","):
        part = part.strip()
        key = SCENARIO_NUMBERS.get(part, part)
        if key not in SCENARIO_TITLES:
            raise argparse.ArgumentTypeError(f"unknown scenario {part!r}")
        chosen.append(key)
    return chosen


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, 2 runs each")
    parser.add_argument("--repeat", type=int, help="runs per variant (5; --quick: 2)")
    parser.add_argument(
        "--only",
        type=_scenarios,
        dest="scenarios",
        default=list(SCENARIO_TITLES),
        metavar="LIST",
        help="scenarios to run, by number or name (1,2,...; default all)",
    )
    parser.add_argument("--backend", choices=(*BACKENDS, "both"), default="both")
    parser.add_argument("--stream", type=int, help="frames in scenario 1 (100,000)")
    parser.add_argument("--roundtrips", type=int, help="round trips in 2 and 3 (5,000)")
    parser.add_argument("--rss-frames", type=int, help="frames in scenario 7 (1,000,000)")
    parser.add_argument("--sessions", type=int, help="sessions at once in scenario 8 (100)")
    parser.add_argument(
        "--write", type=Path, metavar="PATH", help="write the report (default RESULTS.md)"
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write every run here")
    # The measuring child:
    parser.add_argument("--one", choices=sorted(SCENARIO_TITLES), help=argparse.SUPPRESS)
    parser.add_argument("--variant", choices=sorted(VARIANTS), help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--big-bytes", type=int, default=FULL.big_bytes, help=argparse.SUPPRESS)
    parser.add_argument("--session-frames", type=int, default=10, help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, default=600.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one is not None:
        if args.variant is None:
            parser.error("--one needs --variant")
        if VARIANTS[args.variant].is_async and args.backend == "both":
            parser.error("--one with an async variant needs --backend asyncio or trio")
        if args.sessions is None:
            args.sessions = FULL.sessions
        result = run_one(args)
        print("RESULT " + json.dumps(result), flush=True)
        return 0
    return run_all(args, argv)


if __name__ == "__main__":
    raise SystemExit(main())

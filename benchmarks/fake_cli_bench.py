#!/usr/bin/env python3
"""A fake Claude Code CLI for benchmarks: it answers fast and writes big, so SDKs are measured.

It speaks the stream-json protocol on stdin/stdout well enough for any SDK (claude_sdk, the
official ``claude-agent-sdk``, or a bare reader): it ignores every command-line flag except
its own ``--bench-*`` ones, answers every ``control_request`` with a success (``initialize``
with the answer recorded from CLI 2.1.330, its ``pid`` replaced by its own), and on the first
``user`` message runs one scenario:

``stream``         N ``assistant`` frames (the recorded text frame with fresh ids, usage,
                   timestamps and a ~200-character text: ~760 bytes a line), then a
                   ``result``;
``can_use_tool``   N sequential ``can_use_tool`` requests (write one, read its answer, check
                   it is a success with ``behavior: allow``), then a ``result``;
``hook_callback``  N sequential ``hook_callback`` requests (PreToolUse, Bash) to the first
                   callback id the SDK registered in ``initialize``, each answer checked,
                   then a ``result``;
``big``            one ``assistant`` frame whose text block is ``--bench-big-bytes`` long
                   (50,000,000 by default), then a ``result``.

Every later ``user`` message gets a short turn (one assistant frame and a result). At the end
of stdin it exits 0. A wrong answer is reported on stderr and ends it with exit status 3.

**All output is built before the first byte is written** (at start-up, before it even reads
``initialize``), and written with ``os.write`` in large writes (whole lines joined into
chunks of ``--bench-write-bytes``, 1 MiB by default), so producing a frame costs it almost
nothing: ``bench_vs_official.py`` measures it alone into a drained pipe to show it is not
the bottleneck. It needs only the standard library (``json`` parses the SDK's lines, which
are few and short) and starts in ~20 ms. It reads stdin with a buffered ``readline``.

Configuration: ``--bench-scenario=NAME``, ``--bench-n=N``, ``--bench-big-bytes=N``,
``--bench-write-bytes=N``, ``--bench-unique=N`` and ``--bench-stats`` on the command line, or
the environment variables ``BENCH_CLI_SCENARIO``, ``BENCH_CLI_N``, ``BENCH_CLI_BIG_BYTES``,
``BENCH_CLI_WRITE_BYTES``, ``BENCH_CLI_UNIQUE`` and ``BENCH_CLI_STATS=1`` (the command line
wins). ``unique`` (0: all) caps the distinct ``stream`` frames built: a longer stream repeats
them (the same chunks written again), which keeps a 1,000,000-frame stream's build to a
fraction of a second and its memory to ~80 MB. With stats on,
it writes one ``BENCH_CLI_STATS {json}`` line to stderr when it exits: how long the build
took and how long the scenario's writes took.

The recorded frames come from ``tests/data/transcripts/`` of this repository (the
transcripts' ``"...[K more of N]"`` list-cut markers are dropped).
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from typing import Any

T_START = time.perf_counter()
# Only the standard library, and little of it: a fake that starts in milliseconds keeps the
# spawn figures about the SDKs (orjson, for one, takes ~20 ms to import).
TRANSCRIPTS = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "transcripts"
)
SCENARIOS = ("stream", "can_use_tool", "hook_callback", "big")
Json = dict[str, Any]

_WORDS = (
    "the", "function", "returns", "a", "value", "when", "file", "is", "missing", "test",
    "fails", "because", "config", "path", "should", "be", "relative", "to", "project", "root",
    "I'll", "update", "module", "and", "run", "suite", "again", "now", "it", "passes", "let",
    "me", "check", "output", "of", "this", "command", "first", "then", "change", "handler",
    "so", "error", "raised", "earlier", "caller", "sees", "result", "`parse_args()`", "line",
    "42", "in", "`src/app/main.py`", "—", "→", "looks", "correct", "here's", "summary:",
    "edited", "two", "files", "added", "one", "case", "for", "empty", "input", "(see", "above)",
)  # fmt: skip


def _dumps(value: Any) -> str:
    """Compact JSON with raw UTF-8, as the CLI's ``JSON.stringify`` writes it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# --------------------------------------------------------------------------------------
# Configuration


class Config:
    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        values = {
            "scenario": env.get("BENCH_CLI_SCENARIO", "stream"),
            "n": env.get("BENCH_CLI_N", "100"),
            "big-bytes": env.get("BENCH_CLI_BIG_BYTES", "50000000"),
            "write-bytes": env.get("BENCH_CLI_WRITE_BYTES", str(1 << 20)),
            "unique": env.get("BENCH_CLI_UNIQUE", "0"),
        }
        self.stats = env.get("BENCH_CLI_STATS") == "1"
        for arg in argv:
            if arg == "--bench-stats":
                self.stats = True
            elif arg.startswith("--bench-") and "=" in arg:
                key, value = arg[len("--bench-") :].split("=", 1)
                if key not in values:
                    raise SystemExit(f"fake_cli_bench: unknown option {arg}")
                values[key] = value
        self.scenario = values["scenario"]
        if self.scenario not in SCENARIOS:
            raise SystemExit(f"fake_cli_bench: unknown scenario {self.scenario!r}")
        self.n = int(values["n"])
        self.big_bytes = int(values["big-bytes"])
        self.write_bytes = max(int(values["write-bytes"]), 4096)
        self.unique = int(values["unique"])


# --------------------------------------------------------------------------------------
# Recorded frames


def _clean(value: Any) -> Any:
    if isinstance(value, list):
        return [
            _clean(x)
            for x in value
            if not (isinstance(x, str) and x.startswith("...[") and x.endswith("]"))
        ]
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value


def _cli_frames(name: str) -> list[Json]:
    frames = []
    with open(os.path.join(TRANSCRIPTS, name), encoding="utf-8") as fh:
        for raw in fh:
            record = json.loads(raw)
            if record.get("dir") == "cli>sdk" and isinstance(record.get("msg"), dict):
                frames.append(_clean(record["msg"]))
    return frames


class Recorded:
    """The recorded CLI 2.1.330 frames this fake is built from."""

    def __init__(self, scenario: str) -> None:
        plain = _cli_frames("a_plain_text.jsonl")
        self.assistant = next(
            f
            for f in plain
            if f.get("type") == "assistant" and f["message"]["content"][0]["type"] == "text"
        )
        self.result = next(f for f in plain if f.get("type") == "result")
        hooks = _cli_frames("c_hooks.jsonl")
        # This answer has hooks_applied and hook_on_failure_supported: both SDKs check them.
        self.init_body: Json = next(
            f["response"]["response"]
            for f in hooks
            if f.get("type") == "control_response"
            and "commands" in f["response"].get("response", {})
        )
        self.request: Json = {}
        if scenario == "can_use_tool":
            self.request = self._request(_cli_frames("b1_can_use_tool_allow.jsonl"), scenario)
        elif scenario == "hook_callback":
            self.request = self._request(hooks, scenario)

    @staticmethod
    def _request(frames: list[Json], subtype: str) -> Json:
        return next(
            f["request"]
            for f in frames
            if f.get("type") == "control_request"
            and f["request"].get("subtype") == subtype
            and f["request"].get("input", {}).get("hook_event_name", "PreToolUse") == "PreToolUse"
        )


# --------------------------------------------------------------------------------------
# Building the output (before anything is written)


class Gen:
    """Cheap deterministic ids and prose: every frame differs."""

    def __init__(self, seed: int = 20251122) -> None:
        self.rng = random.Random(seed)
        self.texts = [" ".join(self.rng.choices(_WORDS, k=48)) for _ in range(997)]

    def hex(self, n: int) -> str:
        return f"{self.rng.getrandbits(4 * n):0{n}x}"

    def uuid(self) -> str:
        h = self.hex(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def text(self, i: int, length: int = 200) -> str:
        body = f"Step {i}: {self.texts[i % len(self.texts)]}"
        return body[: length - 1].rstrip() + "."


class AssistantTemplate:
    """The recorded assistant frame as a ``%`` template: one string format per frame."""

    _STR = ("@@ID@@", "@@TEXT@@", "@@UUID@@", "@@TS@@", "@@REQ@@")
    _INT = ("@@IN@@", "@@OUT@@", "@@CACHE@@")

    def __init__(self, recorded: Json) -> None:
        message = {
            **recorded["message"],
            "id": "@@ID@@",
            "content": [{"type": "text", "text": "@@TEXT@@"}],
            "usage": {
                "input_tokens": "@@IN@@",
                "output_tokens": "@@OUT@@",
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": "@@CACHE@@",
            },
        }
        frame = {**recorded, "message": message, "uuid": "@@UUID@@"}
        if "timestamp" in frame:
            frame["timestamp"] = "@@TS@@"
        if "request_id" in frame:
            frame["request_id"] = "@@REQ@@"
        text = _dumps(frame).replace("%", "%%")
        order: list[tuple[int, str]] = []
        for mark in self._STR:
            if mark in text:
                order.append((text.index(mark), mark))
                text = text.replace(mark, "%s")
        for mark in self._INT:
            quoted = f'"{mark}"'
            order.append((text.index(quoted), mark))
            text = text.replace(quoted, "%d")
        self.template = text
        self.marks = [mark for _, mark in sorted(order)]

    def line(self, i: int, text: str, h: str) -> bytes:
        """Frame ``i`` with this text; ``h``: 64 random hex digits for its ids."""
        values = {
            "@@ID@@": "msg_01" + h[:24],
            "@@TEXT@@": text,
            "@@UUID@@": f"{h[24:32]}-{h[32:36]}-4{h[37:40]}-a{h[41:44]}-{h[44:56]}",
            "@@IN@@": 2561 + i,
            "@@OUT@@": 1 + i % 4000,
            "@@CACHE@@": i % 200_000,
            "@@REQ@@": "req_011C" + h[46:64],
            "@@TS@@": f"2026-11-22T01:{i // 60_000 % 60:02d}:{i // 1000 % 60:02d}.{i % 1000:03d}Z",
        }
        return (self.template % tuple([values[m] for m in self.marks])).encode() + b"\n"


def build_stream(template: AssistantTemplate, gen: Gen, n: int, size: int) -> list[bytes]:
    """N frames, whole lines joined into chunks of about ``size`` bytes."""
    chunks: list[bytes] = []
    pending: list[bytes] = []
    filled = 0
    line = template.line
    text = gen.text
    batch = 4096
    for start in range(0, n, batch):
        count = min(batch, n - start)
        hexes = gen.rng.randbytes(32 * count).hex()  # one draw per batch: cheaper than per frame
        for k in range(count):
            i = start + k
            raw = line(i, text(i), hexes[64 * k : 64 * k + 64])
            pending.append(raw)
            filled += len(raw)
            if filled >= size:
                chunks.append(b"".join(pending))
                pending, filled = [], 0
    if pending:
        chunks.append(b"".join(pending))
    return chunks


def build_big(template: AssistantTemplate, gen: Gen, size: int) -> bytes:
    unit = " ".join(gen.texts[:50]) + " "
    text = (unit * (size // len(unit) + 1))[:size]
    return template.line(0, text, gen.hex(64))


def build_requests(recorded: Recorded, gen: Gen, n: int, subtype: str) -> list[tuple[bytes, str]]:
    """(line, request_id) for each request; hook requests name ``@@HOOK@@`` (set later)."""
    base = recorded.request
    session = gen.uuid()
    out = []
    for i in range(n):
        rid = gen.uuid()
        tool_input = {"command": f"touch marker_{i}.txt", "description": f"Create marker {i}"}
        tool_use_id = "toolu_01" + gen.hex(24)
        request: Json
        if subtype == "can_use_tool":
            suggestions = [dict(s) for s in base.get("permission_suggestions", [])]
            if suggestions:
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
                "tool_use_id": tool_use_id,
            }
        else:
            hook_input = {
                **base["input"],
                "session_id": session,
                "transcript_path": f"<home>/.claude/projects/<cwd-slug>/{session}.jsonl",
                "tool_input": tool_input,
                "tool_use_id": tool_use_id,
            }
            request = {
                **base,
                "callback_id": "@@HOOK@@",
                "input": hook_input,
                "tool_use_id": tool_use_id,
            }
        frame = {"type": "control_request", "request_id": rid, "request": request}
        out.append(((_dumps(frame) + "\n").encode(), rid))
    return out


# --------------------------------------------------------------------------------------
# Running


class FakeCLI:
    def __init__(self, config: Config) -> None:
        self.config = config
        recorded = Recorded(config.scenario)
        self.gen = Gen()
        self.template = AssistantTemplate(recorded.assistant)
        self.init_body = {**recorded.init_body, "pid": os.getpid()}
        self.result_line = (_dumps(recorded.result) + "\n").encode()
        self.chunks: list[bytes] = []
        self.requests: list[tuple[bytes, str]] = []
        size = config.write_bytes
        if config.scenario == "stream":
            unique = config.n if config.unique <= 0 else min(config.unique, config.n)
            block = build_stream(self.template, self.gen, unique, size)
            self.chunks = block * (config.n // unique)
            if config.n % unique:
                self.chunks += build_stream(self.template, self.gen, config.n % unique, size)
        elif config.scenario == "big":
            line = build_big(self.template, self.gen, config.big_bytes)
            self.chunks = [line[i : i + size] for i in range(0, len(line), size)]
        else:
            self.requests = build_requests(recorded, self.gen, config.n, config.scenario)
        self.short_turn = self.template.line(0, "Done.", self.gen.hex(64)) + self.result_line
        self.hook_ids: list[str] = []
        self.turns = 0
        self.stdin = sys.stdin.buffer
        self.stats: Json = {
            "scenario": config.scenario,
            "n": config.n,
            "build_s": time.perf_counter() - T_START,
        }

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(1, view)
            view = view[written:]

    def answer(self, frame: Json) -> None:
        """Answer a control request of the SDK's with a success."""
        request = frame.get("request") or {}
        body: Json = {}
        if request.get("subtype") == "initialize":
            body = self.init_body
            for matchers in (request.get("hooks") or {}).values():
                for matcher in matchers or ():
                    self.hook_ids.extend(matcher.get("hookCallbackIds") or ())
        answer = {"subtype": "success", "request_id": frame.get("request_id"), "response": body}
        self.write((_dumps({"type": "control_response", "response": answer}) + "\n").encode())

    def run(self) -> int:
        while True:
            raw = self.stdin.readline()
            if not raw:
                return 0
            if not raw.strip():
                continue
            frame = json.loads(raw)
            kind = frame.get("type")
            if kind == "control_request":
                self.answer(frame)
            elif kind == "user":
                self.turns += 1
                if self.turns == 1:
                    code = self.scenario()
                    if code:
                        return code
                else:
                    self.write(self.short_turn)

    def scenario(self) -> int:
        t0 = time.perf_counter()
        total = 0
        if self.chunks:
            write = self.write
            for chunk in self.chunks:
                write(chunk)
                total += len(chunk)
        else:
            code = self.round_trips()
            if code:
                return code
        self.write(self.result_line)
        self.stats["write_s"] = time.perf_counter() - t0
        self.stats["bytes"] = total
        return 0

    def round_trips(self) -> int:
        requests = self.requests
        allow = self.config.scenario == "can_use_tool"
        if not allow:
            if not self.hook_ids:
                print("fake_cli_bench: no hook callback registered in initialize", file=sys.stderr)
                return 3
            hook = self.hook_ids[0].encode()
            requests = [(line.replace(b"@@HOOK@@", hook), rid) for line, rid in requests]
        readline = self.stdin.readline
        for line, rid in requests:
            self.write(line)
            while True:
                raw = readline()
                if not raw:
                    print(
                        f"fake_cli_bench: stdin closed before {rid} was answered", file=sys.stderr
                    )
                    return 3
                frame = json.loads(raw)
                kind = frame.get("type")
                if kind == "control_response":
                    break
                if kind == "control_request":
                    self.answer(frame)
            response = frame.get("response") or {}
            body = response.get("response")
            ok = (
                response.get("request_id") == rid
                and response.get("subtype") == "success"
                and isinstance(body, dict)
                and (not allow or body.get("behavior") == "allow")
            )
            if not ok:
                print(f"fake_cli_bench: bad answer to {rid}: {raw[:500]!r}", file=sys.stderr)
                return 3
        return 0


def main() -> int:
    config = Config(sys.argv[1:], dict(os.environ))
    cli = FakeCLI(config)
    code = 1
    try:
        code = cli.run()
    except BrokenPipeError:
        code = 1
    finally:
        if config.stats:
            sys.stderr.write("BENCH_CLI_STATS " + json.dumps(cli.stats) + "\n")
            sys.stderr.flush()
    return code


if __name__ == "__main__":
    raise SystemExit(main())

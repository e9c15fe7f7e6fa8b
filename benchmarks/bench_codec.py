"""Decode throughput of CLI stdout frames: stdlib json, orjson, the typed codec, the pipeline.

Usage (from the repository root)::

    python benchmarks/bench_codec.py [--frames N] [--repeat R] [--json PATH]

Four streams of N frames each (all lines are built before anything is timed):

(a) ``assistant_text_200``: assistant frames with one text block of ~200 characters, the keys
    the CLI sends (message id/type/role/model/content/stop_reason/stop_sequence/usage/
    context_management, parent_tool_use_id, session_id, uuid); text, ids and token counts
    differ in every frame.
(b) ``assistant_recorded_600``: the recorded assistant text frame of ``a_plain_text.jsonl``
    (with ``timestamp`` and ``request_id``) with fresh ids and text, ~600 bytes per line.
(c) ``assistant_tool_use``: the recorded tool_use frame of ``b1_can_use_tool_allow.jsonl``
    with fresh ids, cycling through Bash, Read, Grep and Edit calls with varied inputs.
(d) ``transcripts_mixed``: every ``cli>sdk`` frame of every reference transcript, in order,
    repeated up to N frames (init, control, stream_event, result, ... as the CLI sends them).

Each stream is timed four ways, in interleaved order (A B C D A B C D ...) ``--repeat``
times, with ``gc.collect()`` before each run and the garbage collector otherwise left on:

* ``json.loads``: the standard library on each line (bytes, as read from the pipe);
* ``orjson.loads``: orjson on each line;
* ``wire.decode``: ``claude_sdk.wire.decode`` on each line, giving typed frames;
* ``split+decode``: ``LineSplitter.feed`` over the whole stream in 64 KiB chunks, then
  ``wire.decode`` of every line it returns: what the SDK does with the CLI's stdout.

The decoded values are dropped at once, as a consumer that handles each frame and moves on.
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import json
import os
import platform
import random
import statistics
import string
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parent.parent
# Benchmark the checkout next to this script, installed or not.
sys.path.insert(0, str(REPO))

import claude_sdk  # noqa: E402
from claude_sdk import wire  # noqa: E402
from claude_sdk._protocol.framing import LineSplitter  # noqa: E402
from claude_sdk.errors import LineTooLongError  # noqa: E402

TRANSCRIPTS = REPO / "tests" / "data" / "transcripts"
CHUNK_SIZE = 64 * 1024
DEFAULT_FRAMES = 25_000
DEFAULT_REPEAT = 7
WARMUP_FRAMES = 500
SEED = 20251122
NOISY_SPREAD = 0.10  # (median - min) / min above this is reported as noise

VARIANTS = ("json.loads", "orjson.loads", "wire.decode", "split+decode")

_WORDS = (
    "the", "function", "returns", "a", "value", "when", "file", "is", "missing", "test",
    "fails", "because", "config", "path", "should", "be", "relative", "to", "project", "root",
    "I'll", "update", "module", "and", "run", "suite", "again", "now", "it", "passes", "let",
    "me", "check", "output", "of", "this", "command", "first", "then", "change", "handler",
    "so", "error", "raised", "earlier", "caller", "sees", "result", "`parse_args()`", "line",
    "42", "in", "`src/app/main.py`", "—", "→", "looks", "correct", "here's", "summary:",
    "edited", "two", "files", "added", "one", "case", "for", "empty", "input", "(see", "above)",
)  # fmt: skip

_B62 = string.ascii_letters + string.digits
_MICRO = "\u00b5"  # the micro sign, spelled out for linters


# --------------------------------------------------------------------------------------
# Building the streams


@dataclass
class Scenario:
    key: str
    title: str
    lines: list[bytes]
    #: Leading lines checked with ``wire.drift`` (slow) before timing.
    check: int = 40

    @property
    def mean_bytes(self) -> float:
        return sum(map(len, self.lines)) / len(self.lines)


class _Gen:
    """Deterministic generator of ids and prose (nothing repeats across frames)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.clock = 1_763_770_000.0

    def ident(self, prefix: str, n: int = 22) -> str:
        return prefix + "".join(self.rng.choices(_B62, k=n))

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def text(self, i: int, length: int) -> str:
        words = [f"Step {i}:"]
        size = len(words[0])
        while size < length:
            word = self.rng.choice(_WORDS)
            words.append(word)
            size += len(word) + 1
        return " ".join(words)[: max(length - 1, 1)].rstrip() + "."

    def timestamp(self) -> str:
        self.clock += self.rng.uniform(0.01, 0.4)
        whole = int(self.clock)
        ms = int((self.clock - whole) * 1000)
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{ms:03d}Z"

    def usage(self) -> dict[str, int]:
        rng = self.rng
        return {
            "input_tokens": rng.randint(1, 40_000),
            "output_tokens": rng.randint(1, 4_000),
            "cache_creation_input_tokens": rng.randint(0, 20_000),
            "cache_read_input_tokens": rng.randint(0, 200_000),
        }


def _transcript_frames() -> Iterator[tuple[str, dict[str, Any]]]:
    """(file name, frame) for every cli>sdk line of the reference transcripts, in order."""
    files = sorted(p for p in TRANSCRIPTS.glob("*.jsonl") if not p.name.endswith(".api.jsonl"))
    if not files:
        raise SystemExit(f"no transcripts found in {TRANSCRIPTS}")
    for path in files:
        with path.open(encoding="utf-8") as fh:
            for raw in fh:
                record = json.loads(raw)
                if record.get("dir") == "cli>sdk" and isinstance(record.get("msg"), dict):
                    yield path.name, record["msg"]


def _recorded_assistant(file: str, block_type: str) -> dict[str, Any]:
    for name, frame in _transcript_frames():
        if name != file or frame.get("type") != "assistant":
            continue
        content = frame["message"]["content"]
        if content and content[0].get("type") == block_type:
            return frame
    raise SystemExit(f"no assistant {block_type} frame in {file}")


def build_text_200(n: int, gen: _Gen) -> list[bytes]:
    session = gen.uuid()
    lines = []
    for i in range(n):
        frame = {
            "type": "assistant",
            "message": {
                "id": gen.ident("msg_01"),
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "text", "text": gen.text(i, 200)}],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": gen.usage(),
                "context_management": None,
            },
            "parent_tool_use_id": None,
            "session_id": session,
            "uuid": gen.uuid(),
        }
        lines.append(orjson.dumps(frame))
    return lines


def _fresh_ids(frame: dict[str, Any], gen: _Gen, session: str) -> None:
    frame["message"]["id"] = gen.ident("msg_01")
    frame["message"]["usage"] = gen.usage()
    frame["session_id"] = session
    frame["uuid"] = gen.uuid()
    if "timestamp" in frame:
        frame["timestamp"] = gen.timestamp()
    if "request_id" in frame:
        frame["request_id"] = gen.ident("req_011C", 18)


def build_recorded_600(n: int, gen: _Gen, target: int = 600) -> list[bytes]:
    template = orjson.dumps(_recorded_assistant("a_plain_text.jsonl", "text"))
    session = gen.uuid()
    lines = []
    for i in range(n):
        frame = orjson.loads(template)
        _fresh_ids(frame, gen, session)
        block = frame["message"]["content"][0]
        block["text"] = ""
        room = target - len(orjson.dumps(frame))
        block["text"] = gen.text(i, max(room, 16))
        lines.append(orjson.dumps(frame))
    return lines


def _tool_call(i: int, gen: _Gen) -> tuple[str, dict[str, Any]]:
    rng = gen.rng
    kind = i % 4
    path = f"src/pkg_{rng.randint(0, 99)}/mod_{i}.py"
    if kind == 0:
        cmd = rng.choice(("pytest -q", "git status", "ls -la", "python -m mypy", "rg -n TODO"))
        return "Bash", {"command": f"{cmd} {path}", "description": gen.text(i, 40)}
    if kind == 1:
        return "Read", {"file_path": f"<cwd>/{path}"}
    if kind == 2:
        return "Grep", {
            "pattern": rng.choice(("def \\w+_handler", "TODO", "import orjson")) + f"{i}",
            "path": f"<cwd>/{path.rsplit('/', 1)[0]}",
            "output_mode": "content",
            "-n": True,
        }
    return "Edit", {
        "file_path": f"<cwd>/{path}",
        "old_string": gen.text(i, 80),
        "new_string": gen.text(i, 90),
        "replace_all": False,
    }


def build_tool_use(n: int, gen: _Gen) -> list[bytes]:
    template = orjson.dumps(_recorded_assistant("b1_can_use_tool_allow.jsonl", "tool_use"))
    session = gen.uuid()
    lines = []
    for i in range(n):
        frame = orjson.loads(template)
        _fresh_ids(frame, gen, session)
        name, tool_input = _tool_call(i, gen)
        block = frame["message"]["content"][0]
        block["id"] = gen.ident("toolu_01")
        block["name"] = name
        block["input"] = tool_input
        lines.append(orjson.dumps(frame))
    return lines


def build_mixed(n: int) -> tuple[list[bytes], int]:
    """The stream, and how many distinct frames it cycles through."""
    # orjson.dumps writes what the CLI's JSON.stringify writes: compact, UTF-8, no escapes.
    base = [orjson.dumps(frame) for _, frame in _transcript_frames()]
    # A fresh copy per line, as each read from the pipe is: no object is shared or hot in cache.
    return [bytes(bytearray(base[i % len(base)])) for i in range(n)], len(base)


def build_scenarios(n: int) -> list[Scenario]:
    gen = _Gen(SEED)
    mixed, distinct = build_mixed(n)
    return [
        Scenario("assistant_text_200", "(a) assistant, ~200-char text", build_text_200(n, gen)),
        Scenario(
            "assistant_recorded_600",
            "(b) assistant text, recorded shape, ~600 B",
            build_recorded_600(n, gen),
        ),
        Scenario("assistant_tool_use", "(c) assistant tool_use", build_tool_use(n, gen)),
        Scenario("transcripts_mixed", "(d) mixed stream from the transcripts", mixed, distinct),
    ]


def check_scenario(sc: Scenario) -> list[str]:
    """Problems with a stream: frames the model does not fully know would skew the figures."""
    problems = []
    seen = set()
    for line in sc.lines[: sc.check]:
        if line in seen:
            continue
        seen.add(line)
        frame = wire.decode(line)
        findings = wire.drift(frame)
        name = type(frame).__name__
        if name.startswith("Unknown") or findings:
            problems.append(f"{sc.key}: {name} {findings[:3]}")
    return problems


# --------------------------------------------------------------------------------------
# The timed variants

Runner = Callable[[], int]  # processes the whole stream, returns the frame count


def make_runners(lines: Sequence[bytes]) -> dict[str, Runner]:
    stream = b"".join(line + b"\n" for line in lines)
    chunks = [stream[i : i + CHUNK_SIZE] for i in range(0, len(stream), CHUNK_SIZE)]
    count = len(lines)

    def run_json() -> int:
        loads = json.loads
        for line in lines:
            loads(line)
        return count

    def run_orjson() -> int:
        loads = orjson.loads
        for line in lines:
            loads(line)
        return count

    def run_typed() -> int:
        decode = wire.decode
        for line in lines:
            decode(line)
        return count

    def run_pipeline() -> int:
        decode = wire.decode
        splitter = LineSplitter()
        done = 0
        for chunk in chunks:
            items = splitter.feed(chunk)
            done += len(items)
            for item in items:
                if isinstance(item, LineTooLongError):
                    raise item
                decode(item)
        for item in splitter.close():
            if isinstance(item, LineTooLongError):
                raise item
            decode(item)
            done += 1
        return done

    runners = dict(zip(VARIANTS, (run_json, run_orjson, run_typed, run_pipeline), strict=True))
    assert list(runners) == list(VARIANTS)
    return runners


@dataclass
class VariantResult:
    name: str
    frames: int
    runs_ns: list[int] = field(default_factory=list)

    @property
    def median_ns(self) -> float:
        return float(statistics.median(self.runs_ns))

    @property
    def min_ns(self) -> int:
        return min(self.runs_ns)

    def us_per_frame(self, ns: float) -> float:
        return ns / self.frames / 1000

    def frames_per_s(self, ns: float) -> float:
        return self.frames / (ns / 1e9)

    @property
    def spread(self) -> float:
        return (self.median_ns - self.min_ns) / self.min_ns


def measure(sc: Scenario, repeat: int) -> dict[str, VariantResult]:
    n = len(sc.lines)
    # Warm-up on a prefix: the typed decoder generates its hooks on first use.
    for run in make_runners(sc.lines[:WARMUP_FRAMES]).values():
        run()
    runners = make_runners(sc.lines)
    results = {name: VariantResult(name, n) for name in runners}
    clock = time.perf_counter_ns
    for _ in range(repeat):
        for name, run in runners.items():
            gc.collect()
            t0 = clock()
            done = run()
            t1 = clock()
            if done != n:
                raise RuntimeError(f"{sc.key}/{name}: processed {done} frames, not {n}")
            results[name].runs_ns.append(t1 - t0)
    return results


# --------------------------------------------------------------------------------------
# Report


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def environment() -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or "unknown",
        "cpu_count": os.cpu_count(),
        "packages": {
            "claude_sdk": claude_sdk.__version__,
            "orjson": _version("orjson"),
            "attrs": _version("attrs"),
            "cattrs": _version("cattrs"),
        },
        "claude_sdk_path": str(Path(claude_sdk.__file__).parent),
    }


def print_header(env: dict[str, Any], frames: int, repeat: int) -> None:
    pk = env["packages"]
    print(f"Python {env['python']} ({env['implementation']}) on {env['platform']}")
    print(f"processor: {env['processor']}, machine: {env['machine']}, cpus: {env['cpu_count']}")
    print(
        f"claude_sdk {pk['claude_sdk']} ({env['claude_sdk_path']}), orjson {pk['orjson']}, "
        f"attrs {pk['attrs']}, cattrs {pk['cattrs']}"
    )
    print(
        f"{frames:,} frames per stream, {repeat} interleaved runs per variant, "
        f"{CHUNK_SIZE // 1024} KiB chunks, gc on (collected between runs)"
    )


def print_table(sc: Scenario, results: dict[str, VariantResult]) -> None:
    base_json = results["json.loads"].median_ns
    base_orjson = results["orjson.loads"].median_ns
    print()
    print(f"{sc.title}: {len(sc.lines):,} frames, {sc.mean_bytes:,.0f} B/frame mean")
    head = (
        f"  {'variant':<14}{_MICRO + 's/frame':>10}{'(min)':>9}{'frames/s':>12}{'(best)':>12}"
        f"{'spread':>8}{'/json':>8}{'/orjson':>9}"
    )
    print(head)
    print("  " + "-" * (len(head) - 2))
    for r in results.values():
        med, low = r.median_ns, r.min_ns
        print(
            f"  {r.name:<14}{r.us_per_frame(med):>10.2f}{r.us_per_frame(low):>9.2f}"
            f"{r.frames_per_s(med):>12,.0f}{r.frames_per_s(low):>12,.0f}"
            f"{r.spread:>8.1%}{med / base_json:>7.2f}x{med / base_orjson:>8.2f}x"
        )


def to_json(
    env: dict[str, Any],
    args: argparse.Namespace,
    scenarios: list[Scenario],
    all_results: list[dict[str, VariantResult]],
    elapsed: float,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "environment": env,
        "config": {"frames": args.frames, "repeat": args.repeat, "chunk_size": CHUNK_SIZE},
        "scenarios": [],
        "elapsed_s": round(elapsed, 2),
    }
    for sc, results in zip(scenarios, all_results, strict=True):
        base_json = results["json.loads"].median_ns
        base_orjson = results["orjson.loads"].median_ns
        out["scenarios"].append(
            {
                "key": sc.key,
                "title": sc.title,
                "frames": len(sc.lines),
                "mean_bytes": round(sc.mean_bytes, 1),
                "variants": {
                    r.name: {
                        "runs_ns": r.runs_ns,
                        "median_us_per_frame": r.us_per_frame(r.median_ns),
                        "min_us_per_frame": r.us_per_frame(r.min_ns),
                        "median_frames_per_s": r.frames_per_s(r.median_ns),
                        "best_frames_per_s": r.frames_per_s(r.min_ns),
                        "spread": r.spread,
                        "ratio_to_json_loads": r.median_ns / base_json,
                        "ratio_to_orjson_loads": r.median_ns / base_orjson,
                    }
                    for r in results.values()
                },
            }
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--frames", type=int, default=DEFAULT_FRAMES, help="frames per stream (%(default)s)"
    )
    parser.add_argument(
        "--repeat", type=int, default=DEFAULT_REPEAT, help="runs per variant (%(default)s)"
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results here")
    args = parser.parse_args(argv)
    if args.frames < 1 or args.repeat < 1:
        parser.error("--frames and --repeat must be at least 1")

    started = time.perf_counter()
    env = environment()
    print_header(env, args.frames, args.repeat)
    scenarios = build_scenarios(args.frames)
    problems = [p for sc in scenarios for p in check_scenario(sc)]
    for problem in problems:
        print(f"warning: frame not fully known to the model: {problem}", file=sys.stderr)

    all_results = []
    for sc in scenarios:
        results = measure(sc, args.repeat)
        all_results.append(results)
        print_table(sc, results)

    elapsed = time.perf_counter() - started
    print()
    noisy = [
        f"{sc.key}/{r.name} {r.spread:.0%}"
        for sc, results in zip(scenarios, all_results, strict=True)
        for r in results.values()
        if r.spread > NOISY_SPREAD
    ]
    if noisy:
        print(f"note: median more than {NOISY_SPREAD:.0%} above min (a noisy machine?):")
        for item in noisy:
            print(f"  {item}")
    print(f"total {elapsed:.1f} s")
    if args.json is not None:
        data = to_json(env, args, scenarios, all_results, elapsed)
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

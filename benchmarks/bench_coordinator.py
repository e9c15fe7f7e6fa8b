"""The coordinator at scale: one process drives N concurrent sessions, next to the official SDK.

Usage (from the repository root; the official SDK's rows need the ``bench`` nox environment,
which has ``claude-agent-sdk==0.2.187`` and trio)::

    python benchmarks/bench_coordinator.py [--sessions 200] [--turns 5] [--asks 3]
                                           [--frames 10] [--repeat 3]
                                           [--backend asyncio|trio|both] [--write] [--json PATH]

One measuring process opens N sessions at once, each with its own fake CLI process
(``benchmarks/fake_cli_coordinator.py``), runs one warm-up turn in each, waits until all N
are ready, then runs ``--turns`` turns in every session concurrently. In every turn the fake
CLI writes ``--asks`` times ``--frames`` assistant frames and one ``can_use_tool`` request,
whose answer it waits for, then a result. The variants:

* ``claude_sdk``: one ``SessionPool(options, max_sessions=N)``; a task per key leases
  ``pool.session(key)`` for each turn (``send``, ``receive_response``); ``can_use_tool``
  returns ``PermissionAllow()``;
* ``claude-agent-sdk``: N ``ClaudeSDKClient`` (it has no pool), one per task, each held open
  for the whole run (``query``, ``receive_response``); ``can_use_tool`` returns
  ``PermissionResultAllow()``;
* ``bare AnyIO``: the raw limit: N ``anyio.open_process`` with lines split by hand,
  ``orjson``, answers written at once (the readers of ``bench_vs_official.py``).

Figures (the measured turns only, between two barriers where all N sessions are open):
the measuring process's CPU time (``time.process_time``: all its threads, not the CLIs) per
message delivered; its RSS growth per session (``/proc/self/statm`` with all N open after
the turns, minus the RSS after one complete warm-up session, divided by N); p50 / p99 of the
``can_use_tool`` round trip as the fake CLI times it (from writing the request to reading the
answer, monotonic clock); the wall time. One fresh process per measurement, variants
interleaved and rotated each round, ``--repeat`` rounds, medians. ``--write`` puts the
tables into ``benchmarks/RESULTS.md`` between the ``coordinator`` markers.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve()
sys.path.insert(0, str(SCRIPT.parent))  # the sibling harness; it puts the checkout first too

import bench_vs_official as harness  # noqa: E402
from bench_vs_official import (  # noqa: E402
    _MICRO,
    BACKENDS,
    OFFICIAL_DIST,
    PROMPT,
    PROMPT_LINE,
    READ_BYTES,
    Json,
    _cli_path_env,
    _fmt_ratio,
    _init_line,
    _Lines,
    _table,
    child_env,
    compile_bytecode,
    cpu,
    environment,
    maxrss,
    rss,
)

FAKE_CLI = SCRIPT.with_name("fake_cli_coordinator.py")
RESULTS = SCRIPT.with_name("RESULTS.md")
START = "<!-- coordinator:start -->"
END = "<!-- coordinator:end -->"
MiB = 1024 * 1024
clock = time.perf_counter

TITLE = "## The coordinator at scale: N concurrent sessions in one process"
VARIANTS = {
    "ours": "claude_sdk (SessionPool)",
    "official": "claude-agent-sdk",
    "anyio": "bare AnyIO + orjson",
}
#: Seconds between two measuring processes: the last one's N CLIs are still being reaped.
SETTLE_S = 2.0


# ======================================================================================
# The measuring process


class Run:
    """What one measuring process counts, and its two barriers."""

    def __init__(self, args: argparse.Namespace) -> None:
        import anyio

        self.n: int = args.sessions
        self.turns: int = args.turns
        self.expected = args.asks * args.frames + 1  # messages of a turn, result included
        self.ready = 0
        self.finished = 0
        self.all_ready = anyio.Event()
        self.go = anyio.Event()
        self.all_done = anyio.Event()
        self.close = anyio.Event()
        self.messages = 0
        self.callbacks = 0
        self.bad_turns: list[str] = []

    def cli_env(self, out: str, args: argparse.Namespace) -> dict[str, str]:
        return {
            "BENCH_COORD_ASKS": str(args.asks),
            "BENCH_COORD_FRAMES": str(args.frames),
            "BENCH_COORD_THINK_MS": str(args.think),
            "BENCH_COORD_TURNS": str(args.turns + 1),
            "BENCH_COORD_OUT": out,
            "PATH": _cli_path_env(),
        }

    def counted(self, count: int, result_ok: bool) -> None:
        if self.go.is_set():
            self.messages += count
        if count != self.expected or not result_ok:
            self.bad_turns.append(f"{count} messages (result: {result_ok}), not {self.expected}")

    def hit(self) -> None:
        if self.go.is_set():
            self.callbacks += 1

    async def arrive(self) -> None:
        """The warm-up turn is done: wait for the others, then for the start."""
        self.ready += 1
        if self.ready == self.n:
            self.all_ready.set()
        await self.go.wait()

    def done(self) -> None:
        self.finished += 1
        if self.finished == self.n:
            self.all_done.set()


async def ours(run: Run, env: dict[str, str]) -> None:
    import anyio

    import claude_sdk as cs

    async def allow(tool: str, tool_input: dict[str, Any], context: Any) -> cs.PermissionAllow:
        run.hit()
        return cs.PermissionAllow()

    options = cs.Options(cli_path=str(FAKE_CLI), env=env, can_use_tool=allow)
    result_type = cs.ResultMessage

    async def turn(pool: cs.SessionPool, key: str) -> None:
        async with pool.session(key) as session:
            await session.send(PROMPT)
            count = 0
            message: Any = None
            async for message in session.receive_response():  # noqa: B007 (checked after)
                count += 1
        run.counted(count, isinstance(message, result_type))

    async def worker(pool: cs.SessionPool, key: str) -> None:
        await turn(pool, key)  # the first lease starts the key's CLI
        await run.arrive()
        for _ in range(run.turns):
            await turn(pool, key)
        run.done()

    # Leaving the pool closes the N sessions (after the task group: every worker is done).
    async with cs.SessionPool(options, max_sessions=run.n) as pool, anyio.create_task_group() as tg:
        for i in range(run.n):
            tg.start_soon(worker, pool, f"session-{i}")
        await control(run)


async def official(run: Run, env: dict[str, str]) -> None:
    import anyio
    from claude_agent_sdk import (  # type: ignore[import-not-found, unused-ignore]
        ClaudeAgentOptions,
        ClaudeSDKClient,
        PermissionResultAllow,
        ResultMessage,
    )

    async def allow(tool: str, tool_input: dict[str, Any], context: Any) -> Any:
        run.hit()
        return PermissionResultAllow()

    options = ClaudeAgentOptions(cli_path=str(FAKE_CLI), env=env, can_use_tool=allow)

    async def turn(client: Any) -> None:
        await client.query(PROMPT)
        count = 0
        message: Any = None
        async for message in client.receive_response():  # noqa: B007 (checked after)
            count += 1
        run.counted(count, isinstance(message, ResultMessage))

    async def worker() -> None:
        async with ClaudeSDKClient(options) as client:
            await turn(client)
            await run.arrive()
            for _ in range(run.turns):
                await turn(client)
            run.done()
            await run.close.wait()  # held open until all are done, as the pool holds them

    async with anyio.create_task_group() as tg:
        for _ in range(run.n):
            tg.start_soon(worker)
        await control(run)


async def bare(run: Run, env: dict[str, str]) -> None:
    import anyio
    import orjson

    loads, dumps = orjson.loads, orjson.dumps
    full_env = {**os.environ, **env}

    async def worker() -> None:
        process = await anyio.open_process(
            [str(FAKE_CLI)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=full_env
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

        async def turn() -> None:
            await stdin.send(PROMPT_LINE)
            count = 0
            while True:
                for line in await lines():
                    frame = loads(line)
                    if frame["type"] == "control_request":
                        run.hit()
                        request = frame["request"]
                        answer = {
                            "type": "control_response",
                            "response": {
                                "subtype": "success",
                                "request_id": frame["request_id"],
                                "response": {"behavior": "allow", "updatedInput": request["input"]},
                            },
                        }
                        await stdin.send(dumps(answer) + b"\n")
                        continue
                    count += 1
                    if frame["type"] == "result":
                        run.counted(count, True)
                        return

        try:
            await stdin.send(_init_line("can_use_tool"))
            answered = False
            while not answered:
                for line in await lines():
                    answered = answered or loads(line)["type"] == "control_response"
            await turn()
            await run.arrive()
            for _ in range(run.turns):
                await turn()
            run.done()
            await run.close.wait()
            await stdin.aclose()
            await process.wait()
        finally:
            with anyio.CancelScope(shield=True):
                await process.aclose()

    async with anyio.create_task_group() as tg:
        for _ in range(run.n):
            tg.start_soon(worker)
        await control(run)


FIGURES: dict[str, float] = {}


async def control(run: Run) -> None:
    """Between the barriers: the measured turns of all N sessions."""
    await run.all_ready.wait()
    FIGURES["t_ready"] = clock()
    gc.collect()
    FIGURES["rss_open"] = rss()
    FIGURES["cpu0"], FIGURES["t0"] = cpu(), clock()
    run.go.set()
    await run.all_done.wait()
    FIGURES["cpu1"], FIGURES["t1"] = cpu(), clock()
    FIGURES["rss_end"] = rss()
    run.close.set()


def _raise_fd_limit(sessions: int) -> tuple[int, int]:
    """Raise the soft limit on open files if N sessions' pipes could exceed it."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 8 * sessions + 256  # three pipes a CLI, pidfds, the event loop, a margin
    if soft != resource.RLIM_INFINITY and soft < need:
        new = need if hard == resource.RLIM_INFINITY else min(need, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        soft = new
    return soft, hard


def _latencies(out: str) -> tuple[list[float], int]:
    """Round trips (microseconds) of the measured turns (turn 1 is the warm-up); files read."""
    values: list[float] = []
    files = 0
    for name in os.listdir(out):
        files += 1
        with open(os.path.join(out, name), encoding="utf-8") as fh:
            for line in fh:
                record = json.loads(line)
                if record["turn"] > 1:
                    values.extend(record["rt_us"])
    return values, files


def _pct(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return float(sorted_values[k])


def measure(args: argparse.Namespace) -> Json:
    """One measuring process: one variant, one backend."""
    import resource

    import anyio

    soft, _hard = _raise_fd_limit(args.sessions)
    drive = {"ours": ours, "official": official, "anyio": bare}[args.one]
    out = tempfile.mkdtemp(prefix="bench_coord_")
    try:

        async def main() -> Json:
            # Warm-up: one complete session (imports, generated decoders, the first spawn),
            # then the baseline RSS.
            warm = argparse.Namespace(**{**vars(args), "sessions": 1, "turns": 1})
            warm_run = Run(warm)
            warm_out = tempfile.mkdtemp(prefix="bench_coord_warm_")
            try:
                await drive(warm_run, warm_run.cli_env(warm_out, warm))
            finally:
                shutil.rmtree(warm_out, ignore_errors=True)
            FIGURES.clear()
            gc.collect()
            rss_base = rss()
            run = Run(args)
            t_start = clock()
            with anyio.fail_after(args.deadline):
                await drive(run, run.cli_env(out, args))
            t_closed = clock()
            if run.bad_turns:
                raise RuntimeError(f"{len(run.bad_turns)} bad turns: {run.bad_turns[:3]}")
            return {
                "rss_base": rss_base,
                "t_start": t_start,
                "t_closed": t_closed,
                "messages": run.messages,
                "callbacks": run.callbacks,
            }

        got = anyio.run(main, backend=args.backend)
        rt, files = _latencies(out)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    rt.sort()
    f = FIGURES
    n = args.sessions
    expected_rt = n * args.turns * args.asks
    if len(rt) != expected_rt or files != n:
        raise RuntimeError(f"{len(rt)} round trips from {files} CLIs, not {expected_rt} from {n}")
    if got["messages"] != n * args.turns * (args.asks * args.frames + 1):
        raise RuntimeError(f"{got['messages']} messages in the measured turns")
    if got["callbacks"] != expected_rt:
        raise RuntimeError(f"{got['callbacks']} callbacks ran in the measured turns")
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "wall_s": f["t1"] - f["t0"],
        "cpu_s": f["cpu1"] - f["cpu0"],
        "messages": got["messages"],
        "round_trips": len(rt),
        "callbacks": got["callbacks"],
        "rt_p50_us": _pct(rt, 0.50),
        "rt_p90_us": _pct(rt, 0.90),
        "rt_p99_us": _pct(rt, 0.99),
        "rt_max_us": rt[-1],
        "rt_mean_us": statistics.fmean(rt),
        "rss_base": got["rss_base"],
        "rss_open": f["rss_open"],
        "rss_end": f["rss_end"],
        "maxrss": maxrss(),
        "open_s": f["t_ready"] - got["t_start"],
        "close_s": got["t_closed"] - f["t1"],
        "children_cpu_s": children.ru_utime + children.ru_stime,
        "nofile_soft": soft,
    }


# ======================================================================================
# The parent: interleaved measuring processes, then the tables


def spawn(cmd: list[str], timeout: float) -> Json:
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            cwd=harness.REPO,
            env=child_env(),
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    result: Json | None = None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT ") :])
    if proc.returncode != 0 or result is None:
        return {"error": f"exit status {proc.returncode}", "stderr": proc.stderr[-3000:]}
    if proc.stderr.strip():
        result["stderr"] = proc.stderr[-1500:]
    return result


def med(runs: list[Json], key: str, scale: float = 1.0) -> float:
    values = [float(r[key]) * scale for r in runs if r.get(key) is not None]
    return float(statistics.median(values)) if values else float("nan")


def _f(x: float, digits: int = 0) -> str:
    return "-" if x != x else f"{x:,.{digits}f}"


def _section_tables(series: dict[tuple[str, str], list[Json]], n: int, msgs: int) -> list[str]:
    out: list[str] = []
    head = [
        "variant",
        "backend",
        "wall s",
        "msg/s",
        f"CPU {_MICRO}s/msg",
        "CPU s",
        f"rt p50 {_MICRO}s",
        f"rt p99 {_MICRO}s",
        "(worst p99)",
        "RSS/session KiB",
        "RSS base MiB",
        "open N s",
        "close N s",
    ]
    rows = []
    for (variant, backend), runs in series.items():
        if not runs:
            rows.append([VARIANTS[variant], backend, *(["FAILED"] + ["-"] * (len(head) - 3))])
            continue
        per_session = [(r["rss_end"] - r["rss_base"]) / n / 1024 for r in runs]
        rows.append(
            [
                VARIANTS[variant],
                backend,
                _f(med(runs, "wall_s"), 2),
                _f(msgs / med(runs, "wall_s")),
                _f(med(runs, "cpu_s", 1e6) / msgs, 1),
                _f(med(runs, "cpu_s"), 2),
                _f(med(runs, "rt_p50_us")),
                _f(med(runs, "rt_p99_us")),
                _f(max(r["rt_p99_us"] for r in runs)),
                _f(statistics.median(per_session)),
                _f(med(runs, "rss_base") / MiB),
                _f(med(runs, "open_s"), 2),
                _f(med(runs, "close_s"), 2),
            ]
        )
    out += _table(head, rows, "ll" + "r" * (len(head) - 2))
    out += [
        "",
        "`CPU`: the measuring process's CPU time over the measured turns (the CLIs' not "
        "included) per message delivered (assistant frames and results; the round trips of "
        "the same turns are in it too). `rt`: the `can_use_tool` round trip timed by the fake "
        "CLI, from writing the request to reading the answer (median of the runs' p50 / p99; "
        "worst: the highest p99 of the runs). `RSS/session`: (RSS with all N open after the "
        "turns - RSS after one complete warm-up session) / N. `open N`: spawn, initialize "
        "and the warm-up turn of all N; `close N`: leaving the pool or the N clients.",
        "",
    ]
    ratio_head = ["ratio (higher: claude_sdk better)", "backend", "CPU/msg", "rt p50", "rt p99"]
    ratio_head += ["RSS/session", "wall"]
    ratio_rows = []
    for backend in [b for b in BACKENDS if any(k[1] == b for k in series)]:
        ours_runs = series.get(("ours", backend)) or []
        if not ours_runs:
            continue
        for other, label in (("official", "official / claude_sdk"), ("anyio", "bare / claude_sdk")):
            runs = series.get((other, backend)) or []
            if not runs:
                continue

            def ratio(key: str, runs: list[Json] = runs, base: list[Json] = ours_runs) -> str:
                return _fmt_ratio(med(runs, key) / med(base, key))

            def rss_ratio(runs: list[Json] = runs, base: list[Json] = ours_runs) -> str:
                a = statistics.median([(r["rss_end"] - r["rss_base"]) for r in runs])
                b = statistics.median([(r["rss_end"] - r["rss_base"]) for r in base])
                return _fmt_ratio(a / b)

            ratio_rows.append(
                [
                    label,
                    backend,
                    ratio("cpu_s"),
                    ratio("rt_p50_us"),
                    ratio("rt_p99_us"),
                    rss_ratio(),
                    ratio("wall_s"),
                ]
            )
    if ratio_rows:
        out += _table(ratio_head, ratio_rows, "ll" + "r" * (len(ratio_head) - 2))
        out += [
            "",
            "Each ratio is the other variant's median over claude_sdk's: 1.50x means the other "
            "costs 1.5 times as much (below 1.00x: the other is cheaper, as the bare reader "
            "should be).",
            "",
        ]
    return out


Key = tuple[int, str, str]  # (think ms, variant, backend)


def render(
    series: dict[Key, list[Json]],
    args: argparse.Namespace,
    env: Json,
    argv: Sequence[str],
    elapsed: float,
    load: str,
    notes: list[str],
    date: str,
) -> list[str]:
    n = args.sessions
    msgs = n * args.turns * (args.asks * args.frames + 1)
    rts = n * args.turns * args.asks
    pk = env["packages"]
    if os.environ.get("NOX_CURRENT_SESSION"):
        nox_session = os.environ["NOX_CURRENT_SESSION"]
        cmd = shlex.join(["nox", "-s", nox_session, *(["--", *argv] if argv else [])])
    else:
        cmd = shlex.join(["python", "benchmarks/bench_coordinator.py", *argv])
    out = [
        f"### The run of {date}",
        "",
        "Written by `benchmarks/bench_coordinator.py` (the method is in "
        "[README.md](README.md#bench_coordinatorpy-the-coordinator-at-scale)). One process "
        f"drives N = {n} sessions at once, each with its own fake CLI process "
        "(`benchmarks/fake_cli_coordinator.py`); after one warm-up turn in every session and a "
        f"barrier, each runs {args.turns} turns concurrently; a turn is {args.asks} x "
        f"({args.frames} assistant frames, then one `can_use_tool` request answered by an "
        f"allowing callback) and a result: {msgs:,} messages and {rts:,} round trips a run. "
        f"{args.repeat} runs each, one fresh process per run, interleaved; medians. "
        "*Saturated*: the fake CLIs answer at once, so the N sessions keep the measuring "
        "process busy and a round trip waits behind the other sessions' work (by Little's "
        "law its latency is about N / the rate). *Paced*: each fake CLI pauses a random "
        "0.5-1.5 x THINK ms before each ask, as a model would: the offered load is fixed and "
        "the same for every variant.",
        "",
        f"- Date: {date}; total run time {elapsed / 60:.1f} min",
        f"- Machine: {env['cpu']}, {env['cpu_count']} cores, {env['memory']}, shared with "
        "other work: the N fake CLIs and the measuring process share the 2 cores, so wall "
        "times and latencies carry scheduling delays (the bare row is the floor they set); "
        "figures move 10-20% between runs, ratios within a run less",
        f"- Load average: {load}",
        f"- Python {env['python']}; claude_sdk {env['claude_sdk']}; claude-agent-sdk "
        f"{pk[OFFICIAL_DIST]}; anyio {pk['anyio']}, trio {pk['trio']}, orjson {pk['orjson']}",
        f"- Command: `{cmd}`",
        "",
    ]
    for think in sorted({k[0] for k in series}):
        part: dict[tuple[str, str], list[Json]] = {
            (v, b): runs for (t, v, b), runs in series.items() if t == think
        }
        title = "saturated (no pause)" if not think else f"paced (THINK = {think} ms)"
        out += [f"#### N = {n}, {title}", ""]
        out += _section_tables(part, n, msgs)
    cli_cpu = [
        (t, VARIANTS[v], b, med(runs, "children_cpu_s"))
        for (t, v, b), runs in series.items()
        if runs
    ]
    if cli_cpu:
        notes.append(
            "CPU of the N fake CLIs over their whole life (spawn included), median per run: "
            + ", ".join(f"{label} ({b}, THINK {t}) {s:.1f} s" for t, label, b, s in cli_cpu)
        )
    if notes:
        out += ["Notes:", ""] + [f"- {note}" for note in notes] + [""]
    return out


def write_section(section: list[str], path: Path = RESULTS) -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    block = "\n".join([START, *section, END])
    if START in text and END in text:
        before, rest = text.split(START, 1)
        text = before + block + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def run_all(args: argparse.Namespace, argv: Sequence[str]) -> int:
    if not os.access(FAKE_CLI, os.X_OK):
        FAKE_CLI.chmod(FAKE_CLI.stat().st_mode | 0o111)
    started = clock()
    load_start = os.getloadavg()
    compile_bytecode()
    env = environment()
    print(
        f"Python {env['python']}; {env['cpu']}, {env['cpu_count']} cores; claude_sdk "
        f"{env['claude_sdk']}; {OFFICIAL_DIST} {env['packages'][OFFICIAL_DIST]}"
    )
    backends: tuple[str, ...] = BACKENDS if args.backend == "both" else (args.backend,)
    if env["packages"]["trio"] == "not installed":
        backends = tuple(b for b in backends if b != "trio")
    variants = ["ours", "official", "anyio"]
    notes: list[str] = []
    if env["packages"][OFFICIAL_DIST] == "not installed":
        variants.remove("official")
        notes.append(f"{OFFICIAL_DIST} is not installed here: its rows are missing.")
        print(notes[-1])
    entries = [(t, v, b) for t in args.think for v in variants for b in backends]
    series: dict[Key, list[Json]] = {e: [] for e in entries}
    failures = 0
    timeout = args.deadline + 60
    for rep in range(args.repeat):
        # Interleaved and rotated each round (A B C, B C A, ...), every THINK in each round.
        shift = rep % len(entries)
        for think, variant, backend in entries[shift:] + entries[:shift]:
            time.sleep(SETTLE_S)
            cmd = [sys.executable, str(SCRIPT), "--one", variant, "--backend", backend]
            cmd += ["--sessions", str(args.sessions), "--turns", str(args.turns)]
            cmd += ["--asks", str(args.asks), "--frames", str(args.frames)]
            cmd += ["--think", str(think)]
            cmd += ["--deadline", f"{args.deadline:g}"]
            t = clock()
            result = spawn(cmd, timeout)
            tag = f"{VARIANTS[variant]} ({backend}, THINK {think}) run {rep + 1}"
            if "error" in result:
                failures += 1
                notes.append(f"FAILED {tag}: {result['error']} / {result.get('stderr', '')[-500:]}")
                print(f"  FAILED {tag}: {result['error']}\n{result.get('stderr', '')}", flush=True)
                continue
            note = result.pop("stderr", None)
            if note:
                notes.append(f"stderr of {tag}: `{note.strip().splitlines()[-1][:300]}`")
            series[(think, variant, backend)].append(result)
            n = args.sessions
            print(
                f"  {tag}: {clock() - t:.0f} s; wall {result['wall_s']:.2f} s, CPU "
                f"{result['cpu_s'] * 1e6 / result['messages']:.1f} {_MICRO}s/msg, rt p50 "
                f"{result['rt_p50_us']:.0f} p99 {result['rt_p99_us']:.0f} {_MICRO}s, RSS/session "
                f"{(result['rss_end'] - result['rss_base']) / n / 1024:.0f} KiB",
                flush=True,
            )
    elapsed = clock() - started
    load = (
        "(1, 5, 15 min) "
        + " ".join(f"{x:.2f}" for x in load_start)
        + " at the start, "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
        + " at the end"
    )
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    section = [TITLE, "", *render(series, args, env, argv, elapsed, load, notes, date)]
    print()
    print("\n".join(section))
    if args.write:
        write_section(section)
        print(f"written to {RESULTS}")
    if args.json is not None:
        data = {
            "environment": env,
            "args": {k: v for k, v in vars(args).items() if k != "json"},
            "series": [
                {"think_ms": t, "variant": v, "backend": b, "runs": runs}
                for (t, v, b), runs in series.items()
            ],
            "elapsed_s": elapsed,
            "argv": list(argv),
            "load": load,
            "notes": notes,
            "date": date,
        }
        args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"every run written to {args.json}")
    return 1 if failures else 0


def from_json(paths: Sequence[Path], write: bool) -> int:
    """Render saved runs (``--json`` files), one after the other, into one section."""
    section = [TITLE, ""]
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        args = argparse.Namespace(**data["args"])
        if isinstance(args.think, int):
            args.think = [args.think]
        series: dict[Key, list[Json]] = {
            (int(e.get("think_ms", 0)), e["variant"], e["backend"]): e["runs"]
            for e in data["series"]
        }
        argv = data.get("argv") or []
        load = data.get("load") or "not recorded"
        date = data.get("date") or time.strftime(
            "%Y-%m-%d %H:%M UTC", time.gmtime(path.stat().st_mtime)
        )
        notes = list(data.get("notes") or [])
        section += render(
            series, args, data["environment"], argv, data["elapsed_s"], load, notes, date
        )
    print("\n".join(section))
    if write:
        write_section(section)
        print(f"written to {RESULTS}")
    return 0


def _think(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=200, help="sessions at once (200)")
    parser.add_argument("--turns", type=int, default=5, help="measured turns a session (5)")
    parser.add_argument("--asks", type=int, default=3, help="can_use_tool requests a turn (3)")
    parser.add_argument("--frames", type=int, default=10, help="assistant frames per ask (10)")
    parser.add_argument(
        "--think",
        type=_think,
        default=[0],
        metavar="MS[,MS...]",
        help="ms the fake CLI pauses before each ask; several: one table each (0)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per variant (3)")
    parser.add_argument("--backend", choices=(*BACKENDS, "both"), default="both")
    parser.add_argument("--deadline", type=float, default=300.0, help="seconds a run may take")
    parser.add_argument("--write", action="store_true", help=f"write the section into {RESULTS}")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write every run here")
    parser.add_argument(
        "--from-json",
        type=Path,
        nargs="+",
        metavar="PATH",
        help="render saved --json runs (one block each) instead of running",
    )
    parser.add_argument("--one", choices=sorted(VARIANTS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one is not None:
        if args.backend == "both" or len(args.think) != 1:
            parser.error("--one needs --backend asyncio or trio and one --think")
        args.think = args.think[0]
        print("RESULT " + json.dumps(measure(args)), flush=True)
        return 0
    if args.from_json:
        return from_json(args.from_json, args.write)
    return run_all(args, argv)


if __name__ == "__main__":
    raise SystemExit(main())

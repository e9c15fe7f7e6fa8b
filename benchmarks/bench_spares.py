"""The start-up time a spare CLI saves: ``SessionPool(prewarm=1, claimable=True)`` against a
cold start, for a key whose folder was not known when the pool started.

The real CLI (``CLAUDE_SDK_TEST_CLI``, else the pinned one of ``tests/support/fetch_cli.py``)
runs against a `FakeMessagesAPI` on 127.0.0.1 that answers at once, so a turn's time is the
CLI's and the SDK's own. Each trial makes a new folder and a new pool, and times
``pool.ask(key, prompt)`` from the call to the reply:

* **cold**: no spare; the key's CLI is started for its folder (spawn, start-up, initialize)
  and then runs the turn;
* **spare**: one spare was started (``--await-claim``, parked) and is ready before the key is
  known; the lease claims it for the folder (``claim_session``), then the turn runs;
* **open**: a second prompt to the same key (the CLI is running): the floor.

Trials alternate cold and spare, ``--repeat`` times each; medians and the 25th-75th
percentiles, in milliseconds. Run it offline, in a loopback-only namespace:

    tests/support/netns_run.sh python benchmarks/bench_spares.py [--repeat 12] [--write]

``--write`` puts the table into ``benchmarks/RESULTS.md`` between the ``spares`` markers
(``nox -s bench_spares`` does both).
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import anyio
import attrs

import claude_sdk as cs
from claude_sdk.testing import FakeMessagesAPI

sys.path.insert(0, str(Path(__file__).parent))
from _sections import run_section, write_section

RESULTS = Path(__file__).with_name("RESULTS.md")
START = "<!-- spares:start -->"
END = "<!-- spares:end -->"
ROOT = Path(__file__).resolve().parents[1]


def cli_path() -> str:
    given = os.environ.get("CLAUDE_SDK_TEST_CLI")
    if given:
        return given
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "support" / "fetch_cli.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


async def trial(cli: str, api: FakeMessagesAPI, base: Path, *, spare: bool) -> tuple[float, float]:
    """One new folder served cold or by a spare: (first reply ms, second reply ms)."""
    folder = Path(tempfile.mkdtemp(prefix="repo-", dir=base))
    home = Path(tempfile.mkdtemp(prefix="home-", dir=base))
    options = cs.Options(cli_path=cli, env={**api.env(), "HOME": str(home)}, initialize_timeout=60)
    key_options = attrs.evolve(options, cwd=str(folder))
    pool = cs.SessionPool(
        options,
        prewarm=1 if spare else 0,
        claimable=spare,
        key_options=lambda key: key_options,
    )
    async with pool:
        if spare:
            await pool.wait_until(lambda p: p.warm == 1)
        start = time.perf_counter()
        await pool.ask("job", "Say hi.")
        first = time.perf_counter() - start
        start = time.perf_counter()
        await pool.ask("job", "Again.")
        second = time.perf_counter() - start
    if spare and pool.stats.claimed != 1:
        raise SystemExit(f"the spare was not claimed: {pool.stats}")
    return first * 1000, second * 1000


def _row(name: str, values: list[float]) -> str:
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return f"| {name} | {statistics.median(values):.0f} | {q[0]:.0f}-{q[2]:.0f} |"


async def measure(repeat: int) -> list[str]:
    cli = cli_path()
    version = await anyio.run_process([cli, "--version"], check=False)
    cold: list[float] = []
    spare: list[float] = []
    floor: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-spares-") as tmp:
        async with FakeMessagesAPI() as api:
            api.default_text = "hi"
            await trial(cli, api, Path(tmp), spare=False)  # warm the disk cache
            for _ in range(repeat):
                first, second = await trial(cli, api, Path(tmp), spare=False)
                cold.append(first)
                floor.append(second)
                first, second = await trial(cli, api, Path(tmp), spare=True)
                spare.append(first)
                floor.append(second)
    saved = statistics.median(cold) - statistics.median(spare)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return [
        "## Spare CLIs for any folder: the start-up time saved",
        "",
        f"Written by `benchmarks/bench_spares.py` ({when}; CLI {version.stdout.decode().strip()}, "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs; {repeat} trials each, "
        "alternating). A new folder's first reply through `SessionPool.ask`, timed from the "
        "call: cold (the key's CLI starts for the folder) against a spare started before the "
        "folder was known and claimed for it (`prewarm=1, claimable=True`). The fake API "
        "answers at once.",
        "",
        "| first reply of a new folder | median ms | 25th-75th |",
        "| --- | ---: | ---: |",
        _row("cold start", cold),
        _row("claimed spare", spare),
        _row("a later prompt (CLI running: the floor)", floor),
        "",
        f"Start-up time saved by a spare: {saved:.0f} ms a folder "
        f"({saved / statistics.median(cold):.0%} of the cold first reply).",
    ]


def write(section: list[str], path: Path = RESULTS) -> None:
    write_section(path, START, END, section)


def main(argv: list[str] | None = None) -> int:
    return run_section(
        __doc__,
        lambda repeat: anyio.run(measure, repeat),
        repeat=12,
        path=RESULTS,
        start=START,
        end=END,
        argv=argv,
    )


if __name__ == "__main__":
    raise SystemExit(main())

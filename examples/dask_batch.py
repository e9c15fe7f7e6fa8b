"""A batch of agent tasks on Dask: one function call per task, each going on from the store.

The driver submits one ``run_agent_task(task)`` per task to a ``dask.distributed`` cluster
(a ``LocalCluster`` on 127.0.0.1 here, or the scheduler at ``DASK_SCHEDULER_ADDRESS``). A
task runs in a worker thread, on its own event loop (``anyio.run``), and owns one Claude
session for all its steps: the session of its key (``cs.session_id_for(key)``), opened with
``Options.resume_or_start(key)`` over a session store every worker shares (a
`DirectoryStore` here; `RedisStore` across machines).

* **Where to go on is read from the store.** Every run starts with ``cs.read_steps``: the
  steps whose answer is stored are done, and ``cs.run_step`` runs the others in the resumed
  conversation. A finished step is never sent again; a step cut mid-way is asked to be
  finished. So a retry, wherever it lands, goes on where the last run stopped.
* **Retries.** A transient failure (``ClaudeSDKError.retryable``: API 429/529/5xx, a killed
  CLI, a dropped connection) raises ``TransientAgentError``, which Dask retries
  (``retries=MAX_RETRIES``). A worker that dies (killed, out of memory) is noticed by the
  scheduler, which runs its tasks again on another worker (the nanny starts a new one), up
  to ``distributed.scheduler.allowed-failures`` times, then fails them with ``KilledWorker``.
  A permanent failure (authentication, bad options) is reported, not retried.
* **The summary** reports each task: done or failed, and whether it resumed work an earlier
  run had stored.
* **Nothing leaks.** Each task's ``async with`` ends its CLI; if a worker process dies, the
  SDK's watchdog ends the CLIs it ran.

No finished step runs twice; a step cut mid-way runs at least once more, in the resumed
conversation, which may hold part of its work. Make tools idempotent.

Run (a logged-in CLI; ``pip install 'dask[distributed]'``)::

    python examples/dask_batch.py --tasks 8 --workers 2 --sessions-per-worker 4 --store ./store

``--store`` (default ``$AGENT_STORE_DIR``, else ``./agent-store``) is the `DirectoryStore`
root: on a shared filesystem when the workers run on several machines. ``--diskless``: CLIs
keep no transcript on local disk, the store is the only record. ``AGENT_CWD``: the agents'
working directory.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import anyio
import dask
from distributed import Client, LocalCluster, get_worker
from distributed.client import Future
from distributed.scheduler import KilledWorker

import claude_sdk as cs
from claude_sdk.stores import DirectoryStore

#: Times Dask runs a task again after it raised `TransientAgentError`.
MAX_RETRIES = 3
#: Times the scheduler runs a task again after the worker running it died.
ALLOWED_FAILURES = 3


@dataclass
class AgentTask:
    """One agent task: its key (which names its session) and its steps (prompts, in order)."""

    key: str
    steps: list[str]


@dataclass
class TaskOutcome:
    """How one task ended."""

    key: str
    session_id: str
    answers: list[str]
    #: The worker that ran it to the end (its name), or "-".
    worker: str
    #: "done" or "failed".
    status: str = "done"
    #: The run found work of an earlier run in the store (a retry, or a lost worker's task).
    resumed: bool = False
    error: str | None = None


class TransientAgentError(Exception):
    """A failure worth retrying (`ClaudeSDKError.retryable`): Dask retries the task."""


def agent_options(store_dir: str, *, diskless: bool) -> cs.Options:
    """The options every agent session shares (the session itself is chosen per task)."""
    return cs.Options(
        cwd=os.environ.get("AGENT_CWD") or None,
        session_store=DirectoryStore(store_dir),
        diskless=diskless,
    )


async def _run(task: AgentTask, store_dir: str, diskless: bool) -> TaskOutcome:
    options = agent_options(store_dir, diskless=diskless).resume_or_start(task.key)
    outcome = TaskOutcome(
        key=task.key,
        session_id=cs.session_id_for(task.key),
        answers=[],
        worker=str(get_worker().name),
    )
    try:
        async with cs.open_session(options) as session:
            # Read once the session is open (one owner at a time): the steps whose answer
            # is stored are done; run the others.
            steps = await cs.read_steps(options, task.steps)
            outcome.resumed = steps.started
            answers = {s.index: s.answer or "" for s in steps.done}
            for state in steps.todo:
                answers[state.index] = await cs.run_step(session, state)
        outcome.answers = [answers[i] for i in sorted(answers)]
    except cs.ClaudeSDKError as exc:
        if exc.retryable:
            raise TransientAgentError(f"{task.key}: {exc}") from exc
        outcome.status, outcome.error = "failed", f"{exc.kind}: {exc}"
    return outcome


def run_agent_task(task: AgentTask, store_dir: str, diskless: bool) -> TaskOutcome:
    """Run the task's steps that have no stored answer (in a worker thread: its own loop)."""
    return anyio.run(_run, task, store_dir, diskless)


def make_tasks(name: str, tasks: int, steps: int) -> list[AgentTask]:
    """A demo batch: ``tasks`` tasks of ``steps`` prompts each."""
    return [
        AgentTask(
            key=f"{name}/task-{i}",
            steps=[f"{name}/task-{i}:step{j + 1} Do step {j + 1}." for j in range(steps)],
        )
        for i in range(tasks)
    ]


def _outcome(task: AgentTask, future: Future[TaskOutcome]) -> TaskOutcome:
    """The task's outcome; a task Dask gave up on (retries spent, workers lost) as failed."""
    try:
        outcome: TaskOutcome = future.result()
    except KilledWorker as exc:
        error = f"gave up: the workers running it died ({exc})"
    except TransientAgentError as exc:
        error = f"gave up after {MAX_RETRIES} retries: {exc}"
    except Exception as exc:  # the task's own bug: reported, the batch goes on
        error = f"{type(exc).__name__}: {exc}"
    else:
        return outcome
    return TaskOutcome(
        key=task.key,
        session_id=cs.session_id_for(task.key),
        answers=[],
        worker="-",
        status="failed",
        error=error,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A batch of agent tasks on Dask.")
    parser.add_argument("--batch", default="demo", help="batch name (task keys derive from it)")
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--sessions-per-worker", type=int, default=4, help="threads (so CLIs) per worker"
    )
    parser.add_argument(
        "--store",
        default=os.environ.get("AGENT_STORE_DIR") or "agent-store",
        help="the DirectoryStore root every worker shares",
    )
    parser.add_argument(
        "--diskless", action="store_true", help="no transcript on local disk: the store only"
    )
    args = parser.parse_args(argv)
    store_dir = os.path.abspath(args.store)  # the workers' working directory may differ
    started = time.monotonic()
    tasks = make_tasks(args.batch, args.tasks, args.steps)
    with dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES}):
        address = os.environ.get("DASK_SCHEDULER_ADDRESS")
        cluster = None
        if not address:  # worker processes (each with a nanny) on the loopback interface
            cluster = LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=args.workers,
                threads_per_worker=args.sessions_per_worker,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            )
        try:
            with Client(address or cluster) as client:  # type: ignore[no-untyped-call]
                futures = [
                    client.submit(
                        run_agent_task,
                        task,
                        store_dir,
                        args.diskless,
                        key=f"agent-{task.key}",
                        retries=MAX_RETRIES,
                        pure=False,
                    )
                    for task in tasks
                ]
                outcomes = [
                    _outcome(task, future) for task, future in zip(tasks, futures, strict=True)
                ]
        finally:
            if cluster is not None:
                cluster.close()
    for outcome in outcomes:
        last = outcome.answers[-1] if outcome.answers else "-"
        verdict = f"FAILED {outcome.error}" if outcome.error else f"done: {last}"
        resumed = ", resumed" if outcome.resumed else ""
        print(f"{outcome.key} ({outcome.worker}{resumed}) {verdict}")
    summary = {
        "tasks": len(outcomes),
        "succeeded": sum(o.status == "done" for o in outcomes),
        "failed": sum(o.status == "failed" for o in outcomes),
        "resumed": sum(o.resumed for o in outcomes),
        "seconds": round(time.monotonic() - started, 1),
        "outcomes": [asdict(o) for o in outcomes],
    }
    print("summary:", json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

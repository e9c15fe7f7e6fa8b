"""A batch of agent tasks on Ray: async actors, each owning a `SessionPool` for its lifetime.

The driver spreads N tasks over a few ``AgentWorker`` actors. Each actor owns one
``SessionPool(options, max_sessions=..., resume_keys=True)``: at most ``max_sessions`` CLIs
run at once on its node, and each task is the session of its key (``cs.session_id_for(key)``)
that runs the task's steps in order.

* **One owner.** A pool's ``async with`` must be entered and left by one task, and Ray runs
  every call of an async actor as its own asyncio task (all on the actor's one event loop).
  So the driver starts ``serve()`` once per actor: that call owns the pool (every CLI lives in
  its task group) until ``stop()``, and returns the pool's counters once every CLI has ended.
  ``run(task)`` calls lease a session from it (``pool.session(key)``); a lease belongs to the
  task that takes it, so a cancelled ``run`` ends only its own lease.
* **Retries resume by key.** A transient failure (``ClaudeSDKError.retryable``: API
  429/529/5xx, a killed CLI, a dropped connection) raises ``TransientAgentError``, which Ray
  retries (``retry_exceptions`` with ``max_task_retries``). The retry leases the same key: a
  session whose CLI is still running (an API error) goes on as it is; one whose CLI died (or
  was evicted to make room) is started again with ``Options.resume_or_start(key)``, so it
  resumes the conversation from the session store (a `DirectoryStore` every actor shares;
  `RedisStore` across machines) and goes on from the first step without an answer. A
  permanent failure is reported, not retried; so is a task still failing after
  ``MAX_RETRIES`` retries.
* **Nothing leaks.** ``stop()`` ends each pool before ``ray.shutdown()``; if the driver or an
  actor dies first, the SDK's supervisor ends every CLI whose parent is gone.

At least once: a step whose CLI died mid-turn runs again in the resumed conversation, which
may already hold that step's prompt and some of its work. Make tools idempotent. A retry
lands on the same actor (Ray retries actor tasks there), so the answers so far are kept in
the actor; if the actor itself may die, keep progress outside it (see
``examples/durable_temporal.py``).

Run (a logged-in CLI; Ray starts a local cluster, or set ``RAY_ADDRESS`` to join one)::

    python examples/ray_batch.py --tasks 20 --actors 2 --max-sessions 4 --store ./agent-store

``--store`` (default ``$AGENT_STORE_DIR``, else ``./agent-store``) is the `DirectoryStore`
root: on a shared filesystem when the actors run on several machines. ``--diskless``: CLIs
keep no transcript on local disk, the store is the only record. ``AGENT_CWD``: the agents'
working directory.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report from this demo

import anyio
import attrs
import ray
import ray.exceptions

import claude_sdk as cs
from claude_sdk.stores import DirectoryStore

#: Times Ray retries a task that raised `TransientAgentError`.
MAX_RETRIES = 3


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
    attempts: int
    actor: str
    error: str | None = None


class TransientAgentError(Exception):
    """A failure worth retrying (`ClaudeSDKError.retryable`): Ray retries the task."""


class WorkerClosedError(Exception):
    """The actor's pool is not open (``serve()`` ended or failed): not retried."""


@dataclass
class _Progress:
    attempts: int = 0
    answers: list[str] = field(default_factory=list)


def agent_options(store_dir: str, *, diskless: bool) -> cs.Options:
    """The options of every session (each key's session is chosen by the pool)."""
    return cs.Options(
        cwd=os.environ.get("AGENT_CWD") or None,
        session_store=DirectoryStore(store_dir),
        diskless=diskless,
    )


async def _turn(session: cs.Session, prompt: str) -> str:
    """Send one prompt; return the turn's text (an error result raises `ResultError`)."""
    await session.send(prompt)
    result = None
    async for message in session.receive_response():
        if isinstance(message, cs.ResultMessage):
            result = message
    assert result is not None  # receive_response ends with the turn's result
    if result.is_error:
        raise cs.ResultError(result=result)
    return result.text


@ray.remote(max_restarts=0, max_task_retries=MAX_RETRIES)
class AgentWorker:
    """Owns a `SessionPool` (in ``serve()``) and runs agent tasks in its sessions."""

    def __init__(self, name: str, max_sessions: int, store_dir: str, diskless: bool) -> None:
        self.name = name
        self.max_sessions = max_sessions
        # Built here, not shipped: a store holds locks and open files, which do not pickle.
        self.options = agent_options(store_dir, diskless=diskless)
        self.progress: dict[str, _Progress] = {}
        self.pool: cs.SessionPool | None = None
        self._opened: anyio.Event | None = None
        self._stop: anyio.Event | None = None

    def _events(self) -> tuple[anyio.Event, anyio.Event]:
        """(pool opened or failed, stop requested), made on the actor's event loop on first
        use: whichever call runs first makes them (no ``await`` between test and set)."""
        if self._opened is None or self._stop is None:
            self._opened, self._stop = anyio.Event(), anyio.Event()
        return self._opened, self._stop

    @ray.method(max_task_retries=0)
    async def serve(self) -> dict[str, Any]:
        """Own the pool until `stop`; return its counters once every CLI has ended."""
        opened, stop = self._events()
        pool = cs.SessionPool(self.options, max_sessions=self.max_sessions, resume_keys=True)
        try:
            async with pool:
                self.pool = pool
                opened.set()
                await stop.wait()
        finally:
            self.pool = None
            opened.set()  # wakes a `run` waiting for a pool that never opened
        return {"actor": self.name, **attrs.asdict(pool.stats)}

    @ray.method(max_task_retries=0)
    async def stop(self) -> None:
        """End ``serve()``: the pool closes its sessions and ends their CLIs."""
        self._events()[1].set()

    @ray.method(retry_exceptions=[TransientAgentError])
    async def run(self, task: AgentTask) -> TaskOutcome:
        """Run the task's remaining steps in the session of its key (resumed on a retry)."""
        opened, _ = self._events()
        await opened.wait()
        pool = self.pool
        if pool is None:
            raise WorkerClosedError(f"{self.name}: the session pool is closed")
        progress = self.progress.setdefault(task.key, _Progress())
        progress.attempts += 1
        outcome = TaskOutcome(
            key=task.key,
            session_id=cs.session_id_for(task.key),
            answers=progress.answers,
            attempts=progress.attempts,
            actor=self.name,
        )
        try:
            async with pool.session(task.key) as session:
                outcome.session_id = session.session_id or outcome.session_id
                for step in task.steps[len(progress.answers) :]:
                    progress.answers.append(await _turn(session, step))
        except cs.ClaudeSDKError as exc:
            if exc.retryable:
                raise TransientAgentError(f"{task.key}: {exc}") from exc
            outcome.error = f"{exc.kind}: {exc}"
        return outcome


def make_tasks(name: str, tasks: int, steps: int) -> list[AgentTask]:
    """A demo batch: ``tasks`` tasks of ``steps`` prompts each."""
    return [
        AgentTask(
            key=f"{name}/task-{i}",
            steps=[f"{name}/task-{i}:step{j + 1} Do step {j + 1}." for j in range(steps)],
        )
        for i in range(tasks)
    ]


def _collect(task: AgentTask, ref: Any, actor: str) -> TaskOutcome:
    """The task's outcome; a task Ray gave up on (retries spent, actor lost) as a failure."""
    try:
        outcome: TaskOutcome = ray.get(ref)
    except ray.exceptions.RayError as exc:
        cause = exc.cause if isinstance(exc, ray.exceptions.RayTaskError) else None
        return TaskOutcome(
            key=task.key,
            session_id=cs.session_id_for(task.key),
            answers=[],
            attempts=MAX_RETRIES + 1 if isinstance(cause, TransientAgentError) else 1,
            actor=actor,
            error=f"gave up: {type(exc).__name__}: {str(exc).splitlines()[0]}",
        )
    return outcome


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A batch of agent tasks on Ray actors.")
    parser.add_argument("--batch", default="demo", help="batch name (task keys derive from it)")
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--max-sessions", type=int, default=4, help="CLIs per actor at once")
    parser.add_argument(
        "--store",
        default=os.environ.get("AGENT_STORE_DIR") or "agent-store",
        help="the DirectoryStore root every actor shares",
    )
    parser.add_argument(
        "--diskless", action="store_true", help="no transcript on local disk: the store only"
    )
    args = parser.parse_args(argv)
    store_dir = os.path.abspath(args.store)  # the actors' working directory may differ
    started = time.monotonic()
    if os.environ.get("RAY_ADDRESS"):
        ray.init()
    else:  # a local, single-node cluster on the loopback interface, no dashboard
        ray.init(
            num_cpus=args.actors,
            include_dashboard=False,
            _node_ip_address="127.0.0.1",
            configure_logging=False,
        )
    try:
        actors = [
            AgentWorker.remote(  # type: ignore[attr-defined]
                f"actor-{i}", args.max_sessions, store_dir, args.diskless
            )
            for i in range(args.actors)
        ]
        serving = [actor.serve.remote() for actor in actors]
        try:
            tasks = make_tasks(args.batch, args.tasks, args.steps)
            refs = [actors[i % len(actors)].run.remote(task) for i, task in enumerate(tasks)]
            outcomes = [
                _collect(task, refs[i], f"actor-{i % len(actors)}") for i, task in enumerate(tasks)
            ]
        finally:
            for actor in actors:
                actor.stop.remote()
            # serve() returns once its pool has ended every CLI it ran.
            pools: list[dict[str, Any]] = ray.get(serving, timeout=120)
    finally:
        ray.shutdown()
    for outcome in outcomes:
        last = outcome.answers[-1] if outcome.answers else "-"
        verdict = f"FAILED {outcome.error}" if outcome.error else f"ok: {last}"
        print(f"{outcome.key} ({outcome.actor}, attempts {outcome.attempts}) {verdict}")
    summary = {
        "tasks": len(outcomes),
        "succeeded": sum(o.error is None for o in outcomes),
        "failed": sum(o.error is not None for o in outcomes),
        "retries": sum(o.attempts - 1 for o in outcomes),
        "clis_started": sum(p["started"] for p in pools),
        "seconds": round(time.monotonic() - started, 1),
        "pools": pools,
        "outcomes": [asdict(o) for o in outcomes],
    }
    print("summary:", json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

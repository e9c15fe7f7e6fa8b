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
* **Retries resume by key, from the store.** A transient failure
  (``ClaudeSDKError.retryable``: API 429/529/5xx, a killed CLI, a dropped connection) raises
  ``TransientAgentError``, which Ray retries on the same actor (``retry_exceptions`` with
  ``max_task_retries``). Every run starts with ``cs.read_steps``: the session store (a
  `DirectoryStore` every actor shares; `RedisStore` across machines) says which steps have
  their answer, and ``cs.run_step`` runs only the others, in the session of the key (a CLI
  still running after an API error, or one started with ``resume_or_start(key)`` that
  resumes the conversation). A finished step is never sent again. A permanent failure is
  reported, not retried; so is a task still failing after ``MAX_RETRIES`` retries.
* **An actor's death is a retry, not the driver's end.** Ray fails every call of a dead
  actor (``ActorDiedError``, a ``RayActorError``). The driver starts a replacement actor (at
  most ``MAX_ACTOR_DEATHS`` times per task) and sends it the dead actor's tasks, which go on
  from the store like any retry. The summary reports each task: done or failed, retried or
  not, how many attempts, on which actors.
* **Nothing leaks.** ``stop()`` ends each pool before ``ray.shutdown()``; if the driver or an
  actor dies first, the SDK's watchdog ends every CLI whose parent is gone.

No finished step runs twice; a step cut mid-way (its CLI or actor died after its prompt)
runs at least once more, in the resumed conversation, which may hold part of its work: it is
asked to finish it (``claude_sdk.steps``). Make tools idempotent.

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
#: Times the driver sends a task to a new actor after the one running it died.
MAX_ACTOR_DEATHS = 2


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
    #: "done" or "failed".
    status: str = "done"
    #: The run found work of an earlier attempt in the store (and went on from it).
    resumed: bool = False
    #: The actors that died while running it.
    lost_on: list[str] = field(default_factory=list)
    error: str | None = None


class TransientAgentError(Exception):
    """A failure worth retrying (`ClaudeSDKError.retryable`): Ray retries the task."""


class WorkerClosedError(Exception):
    """The actor's pool is not open (``serve()`` ended or failed): not retried."""


def agent_options(store_dir: str, *, diskless: bool) -> cs.Options:
    """The options of every session (each key's session is chosen by the pool)."""
    return cs.Options(
        cwd=os.environ.get("AGENT_CWD") or None,
        session_store=DirectoryStore(store_dir),
        diskless=diskless,
    )


@ray.remote(max_restarts=0, max_task_retries=MAX_RETRIES)
class AgentWorker:
    """Owns a `SessionPool` (in ``serve()``) and runs agent tasks in its sessions."""

    def __init__(self, name: str, max_sessions: int, store_dir: str, diskless: bool) -> None:
        self.name = name
        self.max_sessions = max_sessions
        # Built here, not shipped: a store holds locks and open files, which do not pickle.
        self.options = agent_options(store_dir, diskless=diskless)
        self.attempts: dict[str, int] = {}
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
        """Run the task's steps that have no stored answer, in the session of its key."""
        opened, _ = self._events()
        await opened.wait()
        pool = self.pool
        if pool is None:
            raise WorkerClosedError(f"{self.name}: the session pool is closed")
        self.attempts[task.key] = self.attempts.get(task.key, 0) + 1
        outcome = TaskOutcome(
            key=task.key,
            session_id=cs.session_id_for(task.key),
            answers=[],
            attempts=self.attempts[task.key],
            actor=self.name,
        )
        try:
            async with pool.session(task.key) as session:
                # Read once the session is ours: the steps whose answer is stored are done.
                options = self.options.resume_or_start(task.key)
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


def make_tasks(name: str, tasks: int, steps: int) -> list[AgentTask]:
    """A demo batch: ``tasks`` tasks of ``steps`` prompts each."""
    return [
        AgentTask(
            key=f"{name}/task-{i}",
            steps=[f"{name}/task-{i}:step{j + 1} Do step {j + 1}." for j in range(steps)],
        )
        for i in range(tasks)
    ]


def _first_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"


def _served(name: str, ref: Any) -> dict[str, Any]:
    """What an actor's ``serve()`` returned: its pool's counters once every CLI it ran has
    ended; for an actor that died, ``died``."""
    try:
        found: dict[str, Any] = ray.get(ref, timeout=120)
    except ray.exceptions.RayActorError:
        return {"actor": name, "died": True}
    return found


@attrs.define
class Driver:
    """Sends tasks to actors, replaces an actor that died and sends its tasks again."""

    args: argparse.Namespace
    store_dir: str
    #: slot -> (generation, actor); slot i's actor is named actor-i (actor-i.g after a death)
    actors: dict[int, tuple[int, Any]] = attrs.field(factory=dict)
    serving: dict[str, Any] = attrs.field(factory=dict)
    died: list[str] = attrs.field(factory=list)

    @staticmethod
    def name(slot: int, generation: int) -> str:
        return f"actor-{slot}" if generation == 0 else f"actor-{slot}.{generation}"

    def start_actor(self, slot: int, generation: int) -> None:
        actor = AgentWorker.remote(  # type: ignore[attr-defined]
            self.name(slot, generation),
            self.args.max_sessions,
            self.store_dir,
            self.args.diskless,
        )
        self.actors[slot] = (generation, actor)
        self.serving[self.name(slot, generation)] = actor.serve.remote()

    def submit(self, task: AgentTask, slot: int) -> tuple[Any, int, int]:
        generation, actor = self.actors[slot]
        return actor.run.remote(task), slot, generation

    def run(self, tasks: list[AgentTask]) -> list[TaskOutcome]:
        for slot in range(self.args.actors):
            self.start_actor(slot, 0)
        pending: dict[Any, tuple[AgentTask, int, int]] = {}
        for i, task in enumerate(tasks):
            ref, slot, generation = self.submit(task, i % self.args.actors)
            pending[ref] = (task, slot, generation)
        outcomes: dict[str, TaskOutcome] = {}
        lost: dict[str, list[str]] = {}
        while pending:
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            task, slot, generation = pending.pop(ref)
            name = self.name(slot, generation)
            try:
                outcome: TaskOutcome = ray.get(ref)
            except ray.exceptions.RayActorError as exc:
                # The actor died (ActorDiedError): its tasks fail, the driver goes on.
                lost.setdefault(task.key, []).append(name)
                if name not in self.died:
                    self.died.append(name)
                if len(lost[task.key]) > MAX_ACTOR_DEATHS:
                    outcome = self.failed(task, name, f"actor died: {_first_line(exc)}")
                else:
                    if self.actors[slot][0] == generation:  # the first to see it replaces it
                        self.start_actor(slot, generation + 1)
                    ref, slot, generation = self.submit(task, slot)
                    pending[ref] = (task, slot, generation)
                    continue
            except ray.exceptions.RayError as exc:  # retries spent, or the pool closed
                cause = exc.cause if isinstance(exc, ray.exceptions.RayTaskError) else None
                attempts = MAX_RETRIES + 1 if isinstance(cause, TransientAgentError) else 1
                outcome = self.failed(task, name, f"gave up: {_first_line(exc)}", attempts)
            outcome.lost_on = lost.get(task.key, [])
            outcome.attempts += len(outcome.lost_on)
            outcomes[task.key] = outcome
        return [outcomes[task.key] for task in tasks]

    def failed(self, task: AgentTask, actor: str, error: str, attempts: int = 1) -> TaskOutcome:
        return TaskOutcome(
            key=task.key,
            session_id=cs.session_id_for(task.key),
            answers=[],
            attempts=attempts,
            actor=actor,
            status="failed",
            error=error,
        )

    def stop(self) -> list[dict[str, Any]]:
        """Stop every live actor's pool; each pool's counters (a dead actor's: ``died``)."""
        for _, actor in self.actors.values():
            actor.stop.remote()
        return [_served(name, ref) for name, ref in self.serving.items()]


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
            num_cpus=args.actors,  # a dead actor's CPU goes to its replacement
            include_dashboard=False,
            _node_ip_address="127.0.0.1",
            configure_logging=False,
        )
    driver = Driver(args, store_dir)
    try:
        try:
            outcomes = driver.run(make_tasks(args.batch, args.tasks, args.steps))
        finally:
            pools = driver.stop()
    finally:
        ray.shutdown()
    for outcome in outcomes:
        last = outcome.answers[-1] if outcome.answers else "-"
        verdict = f"FAILED {outcome.error}" if outcome.error else f"done: {last}"
        retried = f", retried ({outcome.attempts} attempts)" if outcome.attempts > 1 else ""
        lost = f", actors lost: {', '.join(outcome.lost_on)}" if outcome.lost_on else ""
        print(f"{outcome.key} ({outcome.actor}{retried}{lost}) {verdict}")
    summary = {
        "tasks": len(outcomes),
        "succeeded": sum(o.status == "done" for o in outcomes),
        "failed": sum(o.status == "failed" for o in outcomes),
        "retried": sum(o.attempts > 1 for o in outcomes),
        "retries": sum(o.attempts - 1 for o in outcomes),
        "actors_died": driver.died,
        "clis_started": sum(p.get("started", 0) for p in pools),
        "seconds": round(time.monotonic() - started, 1),
        "pools": pools,
        "outcomes": [asdict(o) for o in outcomes],
    }
    print("summary:", json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

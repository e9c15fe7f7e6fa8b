"""Durable agent tasks on Temporal: one activity per task, one session per activity.

A workflow (``AgentBatch``) runs N agent tasks side by side. Each task is one activity that
owns one Claude session for all its steps (prompts):

* The session id comes from the task's key (``cs.session_id_for(key)``, a stable UUID), and
  the activity opens it with ``Options.resume_or_start(key)``: resumed if a transcript
  exists (in ``session_store``, or on this machine), else started with that very id.
* Where to go on is read from the transcript, not from a heartbeat: ``cs.read_steps``
  says which steps have their answer stored (in ``session_store``, else in the CLI's file on
  this machine), and ``cs.run_step`` runs the others in the *same* conversation (a finished
  step is never sent again; a step cut mid-way is asked to be finished). A heartbeat may lag
  the store by seconds (Temporal throttles them): a retry that trusted the last heartbeat
  ran again a step that had finished 2.5 s before its worker was killed.
* The activity heartbeats its progress (``activity.heartbeat``): the session id, the next
  step, the answers so far. That is what the Temporal UI and ``describe()`` show, and how a
  cancellation reaches the activity.
* Errors go through ``ClaudeSDKError.retryable``: a transient failure (API 429/529/5xx, a
  killed CLI, a dropped connection) is retried by the retry policy; a permanent one
  (authentication, bad options, a missing CLI) becomes ``ApplicationError(non_retryable=True)``
  and fails that task at once. A failed task is reported, and the others go on.
* Cancelling the workflow cancels the activities (delivered through their heartbeats); the
  cancellation leaves the session's ``async with``, which ends the CLI. The workflow waits
  until every activity has finished cancelling (``WAIT_CANCELLATION_COMPLETED``), so when it
  reports "cancelled" no CLI is left.

No finished step runs twice; a step cut mid-way runs at least once more: its worker (or
CLI) died after its prompt, and the retry asks the model to finish it in the resumed
conversation, which may hold part of its work (tool calls that ran). Make tools idempotent
(write files whole, key external side effects by task and step), or check the state before
acting.

Run (a Temporal server, e.g. ``temporal server start-dev``, and a logged-in CLI)::

    python examples/durable_temporal.py --tasks 4
    python examples/durable_temporal.py --role worker   # on each worker machine
    python examples/durable_temporal.py --role start    # start a batch and wait for it

A worker killed (SIGKILL) mid-batch: its activities time out (``--heartbeat-timeout``) and
are retried on another worker, each going on from its store.

Environment: ``TEMPORAL_ADDRESS`` (default ``127.0.0.1:7233``); ``AGENT_STORE_DIR``: a
directory shared by the workers (``DirectoryStore``; use ``RedisStore`` across machines
without a shared filesystem), so a retry on another machine resumes the session;
``AGENT_DISKLESS=1``: with a store, keep no transcript on the worker's disk;
``AGENT_CWD``: the agents' working directory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from typing import Any

from temporalio import activity, workflow
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.worker import Worker
from temporalio.workflow import ActivityCancellationType

with workflow.unsafe.imports_passed_through():
    import anyio

    import claude_sdk as cs

TASK_QUEUE = "claude-agents"
#: How often a running activity heartbeats (cancellation arrives with a heartbeat's answer).
HEARTBEAT_EVERY = 1.0


@dataclass
class AgentTask:
    """One agent task: its key (which names its session) and its steps (prompts, in order)."""

    key: str
    steps: list[str]


@dataclass
class Progress:
    """What an activity heartbeats, and what its retry starts from."""

    session_id: str
    next_step: int = 0
    answers: list[str] = field(default_factory=list)
    attempt: int = 1
    pid: int | None = None  #: the CLI's process id (visibility)


@dataclass
class TaskOutcome:
    """How one task ended."""

    key: str
    session_id: str
    answers: list[str]
    attempts: int
    error: str | None = None


@dataclass
class Batch:
    """The workflow's input."""

    tasks: list[AgentTask]
    max_attempts: int = 5
    heartbeat_timeout_s: float = 20.0


def agent_options() -> cs.Options:
    """The options every agent session shares (the session itself is chosen per task)."""
    store = None
    if os.environ.get("AGENT_STORE_DIR"):
        from claude_sdk.stores import DirectoryStore

        store = DirectoryStore(os.environ["AGENT_STORE_DIR"])
    return cs.Options(
        cwd=os.environ.get("AGENT_CWD") or None,
        session_store=store,
        # With a store, keep no transcript on local disk: a retry resumes from the store.
        diskless=store is not None and os.environ.get("AGENT_DISKLESS") == "1",
    )


async def _heartbeat(progress: Progress) -> None:
    """Heartbeat ``progress`` (updated in place by the steps) until cancelled."""
    while True:
        activity.heartbeat(asdict(progress))
        await anyio.sleep(HEARTBEAT_EVERY)


@activity.defn
async def run_agent_task(task: AgentTask) -> TaskOutcome:
    """Run the task's steps that have no stored answer, in its session (resumed on a retry)."""
    progress = Progress(session_id=cs.session_id_for(task.key), attempt=activity.info().attempt)
    options = agent_options().resume_or_start(task.key)
    try:
        async with cs.open_session(options) as session, anyio.create_task_group() as tg:
            progress.pid = session.pid
            tg.start_soon(_heartbeat, progress)  # updated in place by what follows
            # Read once the session is open (a session is one owner's at a time): the steps
            # whose answer is stored are done, whatever the last heartbeat said.
            steps = await cs.read_steps(options, task.steps)
            if steps.started:
                activity.logger.info(
                    "%s: attempt %d resumes session %s: steps done %s, to run %s",
                    task.key,
                    progress.attempt,
                    progress.session_id,
                    [s.step.id for s in steps.done],
                    [f"{s.step.id} ({s.status})" for s in steps.todo],
                )
            answers = {s.index: s.answer or "" for s in steps.done}
            progress.answers = steps.answers
            progress.next_step = steps.todo[0].index if steps.todo else len(task.steps)
            for state in steps.todo:
                answers[state.index] = await cs.run_step(session, state)
                progress.answers = [answers[i] for i in sorted(answers)]
                progress.next_step = state.index + 1
                activity.heartbeat(asdict(progress))
            tg.cancel_scope.cancel()
    except cs.ClaudeSDKError as exc:
        # Transient: Temporal retries (and the retry resumes). Permanent: fail the task now.
        raise ApplicationError(
            f"{task.key}: {exc}",
            asdict(progress),  # how far it got: the workflow reports it
            type=exc.kind or type(exc).__name__,
            non_retryable=not exc.retryable,
        ) from exc
    return TaskOutcome(
        key=task.key,
        session_id=progress.session_id,
        answers=progress.answers,
        attempts=progress.attempt,
    )


@workflow.defn
class AgentBatch:
    """Run every task of a batch side by side; a failed task does not stop the others."""

    @workflow.run
    async def run(self, batch: Batch) -> list[TaskOutcome]:
        runs = [self._one(task, batch) for task in batch.tasks]
        # return_exceptions=True: gather waits for every run. Without it, the first run to
        # end by cancellation ends the workflow while other activities still run their CLIs.
        outcomes = await asyncio.gather(*runs, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        return [o for o in outcomes if isinstance(o, TaskOutcome)]

    async def _one(self, task: AgentTask, batch: Batch) -> TaskOutcome:
        try:
            return await workflow.execute_activity(
                run_agent_task,
                task,
                start_to_close_timeout=timedelta(hours=2),
                heartbeat_timeout=timedelta(seconds=batch.heartbeat_timeout_s),
                retry_policy=RetryPolicy(
                    initial_interval=timedelta(seconds=1),
                    backoff_coefficient=2.0,
                    maximum_interval=timedelta(minutes=1),
                    maximum_attempts=batch.max_attempts,
                ),
                cancellation_type=ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
            )
        except ActivityError as exc:
            failure = exc.cause
            if not isinstance(failure, ApplicationError) or not failure.details:
                raise  # cancelled or timed out: the workflow's own fate
            progress = Progress(**failure.details[0])
            return TaskOutcome(
                key=task.key,
                session_id=progress.session_id,
                answers=progress.answers,
                attempts=progress.attempt,
                error=f"{failure.type}: {failure.message}",
            )


def make_batch(name: str, tasks: int, steps: int) -> Batch:
    """A demo batch: ``tasks`` tasks of ``steps`` prompts each."""
    return Batch(
        tasks=[
            AgentTask(
                key=f"{name}/task-{i}",
                steps=[f"{name}/task-{i}:step{j + 1} Do step {j + 1}." for j in range(steps)],
            )
            for i in range(tasks)
        ]
    )


async def running_agents(handle: WorkflowHandle[Any, Any]) -> list[Progress]:
    """The last heartbeat of every running activity (what the Temporal UI shows too)."""
    description = await handle.describe()
    converter = handle._client.data_converter.payload_converter
    found = []
    for pending in description.raw_description.pending_activities:
        payloads = pending.heartbeat_details.payloads
        if payloads:
            found.append(Progress(**converter.from_payloads(payloads)[0]))
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def start(client: Client, args: argparse.Namespace) -> int:
    """Start a batch, wait for it (or cancel it), print what happened."""
    batch = make_batch(args.batch, args.tasks, args.steps)
    batch.max_attempts = args.max_attempts
    batch.heartbeat_timeout_s = args.heartbeat_timeout
    handle = await client.start_workflow(
        AgentBatch.run, batch, id=f"agents-{args.batch}", task_queue=TASK_QUEUE
    )
    print(f"started workflow {handle.id} with {args.tasks} tasks")
    if args.cancel_when_running:
        # describe() is a poll: Temporal pushes no progress to a client.
        while len(running := await running_agents(handle)) < args.tasks:  # noqa: ASYNC110
            await anyio.sleep(0.2)
        pids = [p.pid for p in running if p.pid is not None]
        print(f"{len(running)} agents are mid-turn (CLI pids {pids}); cancelling the workflow")
        await handle.cancel()
        try:
            await handle.result()
        except WorkflowFailureError as exc:
            left = [pid for pid in pids if _alive(pid)]
            print(f"cancelled ({type(exc.cause).__name__}); CLIs still running: {len(left)}")
            return 0
        print("the workflow finished before the cancellation reached it")
        return 1
    outcomes: list[TaskOutcome] = await handle.result()
    for outcome in outcomes:
        last = outcome.answers[-1] if outcome.answers else "-"
        verdict = f"FAILED {outcome.error}" if outcome.error else f"ok: {last}"
        where = f"session {outcome.session_id}, attempts {outcome.attempts}"
        print(f"{outcome.key} ({where}) {verdict}")
    summary = {
        "tasks": len(outcomes),
        "succeeded": sum(o.error is None for o in outcomes),
        "failed": sum(o.error is not None for o in outcomes),
        "retried": sum(o.attempts > 1 for o in outcomes),
        "outcomes": [asdict(o) for o in outcomes],
    }
    print("summary:", json.dumps(summary))
    return 0


async def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Durable agent tasks on Temporal.")
    parser.add_argument("--role", choices=("both", "worker", "start"), default="both")
    parser.add_argument("--address", default=os.environ.get("TEMPORAL_ADDRESS", "127.0.0.1:7233"))
    parser.add_argument("--batch", default="demo", help="batch name (task keys derive from it)")
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--max-attempts", type=int, default=5)
    parser.add_argument(
        "--heartbeat-timeout",
        type=float,
        default=20.0,
        help="seconds without a heartbeat before Temporal retries an activity (a lost worker)",
    )
    parser.add_argument("--concurrency", type=int, default=8, help="activities per worker")
    parser.add_argument(
        "--cancel-when-running",
        action="store_true",
        help="cancel the workflow once every agent is running (shows that no CLI is left)",
    )
    args = parser.parse_args(argv)
    client = await Client.connect(args.address)
    if args.role == "start":
        return await start(client, args)
    worker = Worker(
        client,
        task_queue=TASK_QUEUE,
        workflows=[AgentBatch],
        activities=[run_agent_task],
        max_concurrent_activities=args.concurrency,
        # Heartbeats reach the server at least this often, so a cancellation arrives soon.
        max_heartbeat_throttle_interval=timedelta(seconds=HEARTBEAT_EVERY),
    )
    if args.role == "worker":
        await worker.run()
        return 0
    async with worker:
        return await start(client, args)


if __name__ == "__main__":
    code = asyncio.run(main())
    # temporalio's Rust bridge keeps threads that can call into Python while the interpreter
    # finalizes, which aborts the process at exit now and then ("PyGILState_Release: thread
    # state ... must be current", temporalio/sdk-python#300, open). Everything is done and
    # every CLI has ended here: flush and leave without the interpreter's teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)

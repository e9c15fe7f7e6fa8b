"""``examples/durable_temporal.py`` on a real Temporal dev server, with the scripted agent CLI.

One batch: a task whose CLI is killed mid-step is retried by Temporal and resumes its
session (the conversation goes on: its prompt count does not start again; the cut step is
asked to be finished, not sent again), a task whose API answers 401 fails at once without
a retry, the others succeed. A second batch is cancelled while every agent is mid-turn: the
workflow ends cancelled and no CLI is left. A third runs on a worker process that is killed
(SIGKILL) with one task mid-step and one just after a step's answer was stored: a second
worker finishes both, and no finished step runs twice (the store's prompts say so).
"""

from __future__ import annotations

import json
import signal

import claude_sdk as cs
from claude_sdk import history

from ..support.procs import alive
from .conftest import AgentWorld, parent_of, prompt_label, stored_answers, stored_prompts
from .fake_agent import fault_file

EXAMPLE = "durable_temporal.py"


def test_a_retried_task_resumes_its_session(temporal_server: str, world: AgentWorld) -> None:
    killed = cs.session_id_for("b1/task-1")
    refused = cs.session_id_for("b1/task-2")
    fault_file(world.faults, killed, 2, "kill")  # its CLI dies when step 2 arrives
    fault_file(world.faults, refused, 1, "401")  # a permanent failure: no retry

    run = world.run(
        EXAMPLE, "--batch", "b1", "--tasks", "4", "--steps", "3",
        env={"TEMPORAL_ADDRESS": temporal_server},
    )  # fmt: skip

    assert run.returncode == 0, run.output
    summary = run.summary()
    assert (summary["tasks"], summary["succeeded"], summary["failed"]) == (4, 3, 1)
    assert summary["retried"] == 1
    outcomes = {o["key"]: o for o in summary["outcomes"]}
    for key in ("b1/task-0", "b1/task-3"):
        assert outcomes[key]["attempts"] == 1
        assert outcomes[key]["session_id"] == cs.session_id_for(key)
        assert outcomes[key]["answers"] == [
            f"{key}:step{n} done (prompt {n} of this conversation)" for n in (1, 2, 3)
        ]
    # The retry resumed the conversation: step 1 was not sent again (its answer is in the
    # transcript); step 2 had been recorded by the killed CLI, so it was asked to be
    # finished (the cut note: at least once), and the prompt count went on from there.
    resumed = outcomes["b1/task-1"]
    assert resumed["attempts"] == 2
    assert resumed["session_id"] == killed
    assert resumed["answers"] == [
        "b1/task-1:step1 done (prompt 1 of this conversation)",
        "Continue done (prompt 3 of this conversation)",
        "b1/task-1:step3 done (prompt 4 of this conversation)",
    ]
    entries = history.read_session(killed, cwd=world.work, config_dir=world.home / ".claude")
    prompts = [
        e.message.content
        for e in entries
        if isinstance(e, history.UserEntry) and isinstance(e.message.content, str)
    ]
    assert [prompt_label(p) for p in prompts] == ["step1", "step2", "cut 2", "step3"]
    failed = outcomes["b1/task-2"]
    assert failed["attempts"] == 1
    assert failed["answers"] == []
    assert failed["error"].startswith("auth: b1/task-2: ")
    assert list(world.faults.iterdir()) == []  # both faults fired
    assert len(run.pids) == 5  # 4 tasks + 1 retry
    assert run.left_alive() == []
    print(json.dumps({"temporal_batch_seconds": round(run.seconds, 1)}))


def test_a_cancelled_workflow_ends_every_cli(temporal_server: str, world: AgentWorld) -> None:
    run = world.run(
        EXAMPLE, "--batch", "b2", "--tasks", "3", "--cancel-when-running",
        # an hour a turn: had the cancellation not cut them short, the run would outlast the
        # test's timeout (a rule, not a duration, is checked)
        env={"TEMPORAL_ADDRESS": temporal_server, "FAKE_AGENT_TURN_SECONDS": "3600"},
    )  # fmt: skip

    assert run.returncode == 0, run.output
    assert "3 agents are mid-turn" in run.output
    assert "cancelled (CancelledError); CLIs still running: 0" in run.output
    assert len(run.pids) == 3
    assert run.left_alive() == []
    print(json.dumps({"temporal_cancel_seconds": round(run.seconds, 1)}))


def test_a_retry_resumes_from_the_session_store(temporal_server: str, world: AgentWorld) -> None:
    """With a DirectoryStore and diskless CLIs the retry can only resume from the store."""
    killed = cs.session_id_for("b3/task-1")
    fault_file(world.faults, killed, 2, "kill")
    store = world.root / "store"

    run = world.run(
        EXAMPLE, "--batch", "b3", "--tasks", "2", "--steps", "3",
        env={
            "TEMPORAL_ADDRESS": temporal_server,
            "AGENT_STORE_DIR": str(store),
            "AGENT_DISKLESS": "1",
        },
    )  # fmt: skip

    assert run.returncode == 0, run.output
    outcomes = {o["key"]: o for o in run.summary()["outcomes"]}
    assert outcomes["b3/task-1"]["attempts"] == 2
    assert outcomes["b3/task-1"]["answers"][-1] == (
        "b3/task-1:step3 done (prompt 4 of this conversation)"
    )
    assert outcomes["b3/task-0"]["answers"][-1] == (
        "b3/task-0:step3 done (prompt 3 of this conversation)"
    )
    stored = sorted(p.name for p in store.rglob("*.jsonl"))
    assert stored == sorted(f"{cs.session_id_for(f'b3/task-{i}')}.jsonl" for i in (0, 1))
    assert not (world.home / ".claude" / "projects").exists()  # nothing on local disk
    assert len(run.pids) == 3
    assert run.left_alive() == []


def test_a_killed_worker_runs_no_finished_step_twice(
    temporal_server: str, world: AgentWorld
) -> None:
    """SIGKILL the worker process while task-0 is mid-step 2 and task-1 has just stored
    step 2's answer (its step 3 is running); a second worker gets the retries."""
    mid, after = cs.session_id_for("k1/task-0"), cs.session_id_for("k1/task-1")
    fault_file(world.faults, mid, 2, "hang")
    fault_file(world.faults, after, 3, "hang")
    store = world.root / "store"
    env = {
        "TEMPORAL_ADDRESS": temporal_server,
        "AGENT_STORE_DIR": str(store),
        "AGENT_DISKLESS": "1",
    }
    first = world.start(EXAMPLE, "--role", "worker", env=env)
    starter = world.start(
        EXAMPLE, "--role", "start", "--batch", "k1", "--tasks", "2", "--steps", "3",
        "--heartbeat-timeout", "3", env=env,
    )  # fmt: skip
    try:
        mid_cli = world.wait_for_prompt(mid, 2)
        after_cli = world.wait_for_prompt(after, 3)
        # The worker runs both CLIs; step 2 of task-1 has its answer in the store (stored
        # before the result was handed out, and step 3 was sent after that result).
        assert parent_of(mid_cli) == parent_of(after_cli) == first.process.pid
        assert stored_answers(store, after)[-1] == (
            "k1/task-1:step2 done (prompt 2 of this conversation)"
        )
        assert stored_prompts(store, mid)[:1] == ["step1"]
        first.stop(signal.SIGKILL)
        assert first.finish().returncode == -signal.SIGKILL
        second = world.start(EXAMPLE, "--role", "worker", env=env)
        try:
            run = starter.finish()
        finally:
            second.stop(signal.SIGTERM)
            second.finish()
    finally:
        first.stop(signal.SIGKILL)
        starter.stop(signal.SIGKILL)

    assert run.returncode == 0, run.output
    summary = run.summary()
    assert (summary["tasks"], summary["succeeded"], summary["failed"]) == (2, 2, 0)
    outcomes = {o["key"]: o for o in summary["outcomes"]}
    assert outcomes["k1/task-0"]["attempts"] == outcomes["k1/task-1"]["attempts"] == 2
    after_prompts = stored_prompts(store, after)
    mid_prompts = stored_prompts(store, mid)
    # No finished step ran twice. The step that was mid-way ran again: as the cut note if
    # the store had its prompt, else as written (the batched mirror lost it with the worker).
    assert after_prompts in (["step1", "step2", "step3", "cut 3"], ["step1", "step2", "step3"])
    assert mid_prompts in (["step1", "step2", "cut 2", "step3"], ["step1", "step2", "step3"])
    assert outcomes["k1/task-1"]["answers"][:2] == [
        "k1/task-1:step1 done (prompt 1 of this conversation)",
        "k1/task-1:step2 done (prompt 2 of this conversation)",
    ]
    assert outcomes["k1/task-0"]["answers"][0] == (
        "k1/task-0:step1 done (prompt 1 of this conversation)"
    )
    assert list(world.faults.iterdir()) == []
    assert [p for p in world.pids.iterdir() if alive(int(p.name))] == []
    print(json.dumps({"temporal_kill": {"mid": mid_prompts, "after": after_prompts,
                                        "seconds": round(run.seconds, 1)}}))  # fmt: skip

"""``examples/ray_batch.py`` on a local Ray cluster (127.0.0.1, no dashboard), scripted CLI.

Two actors, each owning a ``SessionPool(resume_keys=True)`` over a shared `DirectoryStore`,
with diskless CLIs (the store is the only record): a task whose CLI is killed and one whose
API answers 529 are retried by Ray and go on with their conversations (the killed one
resumed from the store by a new CLI, the other in the CLI that is still running; each cut
step asked to be finished, no finished step sent again); a 401 is not retried; every pool
ends its CLIs before ``ray.shutdown()`` and no CLI process is left. An actor process killed
(SIGKILL) with one task mid-step and one just after a step's answer was stored: the driver
survives, a new actor finishes both, and no finished step runs twice.

Ray's start takes 10-40 s on the 2-core machine: the batch tests are marked ``slow``
(``-m "not slow"`` leaves them out); the kill test runs in ``nox -s engines``.
"""

from __future__ import annotations

import json
import os
import signal

import pytest

import claude_sdk as cs

from .conftest import AgentWorld, parent_of, require, stored_answers, stored_prompts
from .fake_agent import fault_file

pytestmark = pytest.mark.timeout(300)


@pytest.mark.slow
def test_ray_batch_retries_resume_and_nothing_leaks(world: AgentWorld) -> None:
    require("ray")
    fault_file(world.faults, cs.session_id_for("r/task-1"), 2, "kill")
    fault_file(world.faults, cs.session_id_for("r/task-2"), 1, "529")
    fault_file(world.faults, cs.session_id_for("r/task-3"), 1, "401")
    store = world.root / "store"

    run = world.run(
        "ray_batch.py", "--batch", "r", "--tasks", "6", "--steps", "2", "--actors", "2",
        "--max-sessions", "4", "--store", str(store), "--diskless",
        timeout=240,
    )  # fmt: skip

    assert run.returncode == 0, run.output
    summary = run.summary()
    assert (summary["tasks"], summary["succeeded"], summary["failed"]) == (6, 5, 1)
    assert summary["retries"] == 2
    outcomes = {o["key"]: o for o in summary["outcomes"]}
    for key, outcome in outcomes.items():
        assert outcome["session_id"] == cs.session_id_for(key)  # known before the first turn
        assert outcome["actor"] == f"actor-{int(key.rsplit('-', 1)[1]) % 2}"
    for key in ("r/task-0", "r/task-4", "r/task-5"):
        assert outcomes[key]["attempts"] == 1
        assert outcomes[key]["answers"][-1] == f"{key}:step2 done (prompt 2 of this conversation)"
    # Resumed from the store, not restarted: the prompt count goes on after the retry (step 2
    # was recorded by the killed CLI: the cut note asked for it to be finished).
    assert outcomes["r/task-1"]["attempts"] == 2
    assert outcomes["r/task-1"]["resumed"]
    assert outcomes["r/task-1"]["answers"] == [
        "r/task-1:step1 done (prompt 1 of this conversation)",
        "Continue done (prompt 3 of this conversation)",
    ]
    assert stored_prompts(store, cs.session_id_for("r/task-1")) == ["step1", "step2", "cut 2"]
    # An API error leaves the CLI running: the retry goes on in the same session.
    assert outcomes["r/task-2"]["attempts"] == 2
    assert outcomes["r/task-2"]["answers"] == [
        "Continue done (prompt 2 of this conversation)",
        "r/task-2:step2 done (prompt 3 of this conversation)",
    ]
    assert stored_prompts(store, cs.session_id_for("r/task-2")) == ["step1", "cut 1", "step2"]
    assert outcomes["r/task-3"]["attempts"] == 1
    assert outcomes["r/task-3"]["answers"] == []
    assert outcomes["r/task-3"]["error"].startswith("auth: ")
    assert list(world.faults.iterdir()) == []  # every fault fired

    # Each actor's pool: 3 keys, nothing running or leased once serve() returned.
    pools = {p["actor"]: p for p in summary["pools"]}
    assert sorted(pools) == ["actor-0", "actor-1"]
    for pool in pools.values():
        assert (pool["running"], pool["leased"], pool["evicted"], pool["waited"]) == (0, 0, 0, 0)
        assert pool["peak"] <= 4
    # actor-1 ran task-1: its CLI was killed, and the retry started one more (resuming).
    assert (pools["actor-1"]["started"], pools["actor-1"]["failed"]) == (4, 1)
    # actor-0 ran task-2: its retry reused the running CLI.
    assert (pools["actor-0"]["started"], pools["actor-0"]["reused"]) == (3, 1)
    assert summary["clis_started"] == len(run.pids) == 7  # 6 tasks + 1 resumed after the kill
    assert run.left_alive() == []

    # The store holds every conversation; the diskless CLIs left none on local disk.
    stored = sorted(p.name for p in store.rglob("*.jsonl"))
    assert stored == sorted(f"{cs.session_id_for(f'r/task-{i}')}.jsonl" for i in range(6))
    assert not (world.home / ".claude" / "projects").exists()
    print(
        json.dumps(
            {
                "ray_batch_seconds": round(run.seconds, 1),
                "ray": summary["seconds"],
                "clis_started": summary["clis_started"],
                "retries": summary["retries"],
                "left_alive": len(run.left_alive()),
            }
        )
    )


@pytest.mark.slow
def test_ray_batch_one_cli_per_actor_evicts_and_resumes(world: AgentWorld) -> None:
    """``--max-sessions 1``: each actor's tasks wait for its one CLI and evict the idle
    session before them; the retried task goes on with its conversation either way (in its
    running CLI, or resumed from the store if another task evicted it in between). A task
    whose API keeps failing is given up after Ray's retries."""
    require("ray")
    fault_file(world.faults, cs.session_id_for("e/task-0"), 1, "529")
    for prompt in (1, 2, 3, 4):  # every attempt of task-1 (1 + MAX_RETRIES) gets a 529
        fault_file(world.faults, cs.session_id_for("e/task-1"), prompt, "529")
    store = world.root / "store"

    run = world.run(
        "ray_batch.py", "--batch", "e", "--tasks", "4", "--steps", "2", "--actors", "2",
        "--max-sessions", "1", "--store", str(store), "--diskless",
        timeout=240,
    )  # fmt: skip

    assert run.returncode == 0, run.output
    summary = run.summary()
    assert (summary["tasks"], summary["succeeded"], summary["failed"]) == (4, 3, 1)
    assert summary["retries"] == 1 + 3
    outcomes = {o["key"]: o for o in summary["outcomes"]}
    assert outcomes["e/task-1"]["attempts"] == 4
    assert outcomes["e/task-1"]["error"].startswith("gave up: RayTaskError")
    assert "529" in run.output
    assert list(world.faults.iterdir()) == []  # every fault fired
    assert outcomes["e/task-0"]["answers"] == [
        "Continue done (prompt 2 of this conversation)",
        "e/task-0:step2 done (prompt 3 of this conversation)",
    ]
    for key in ("e/task-2", "e/task-3"):
        assert outcomes[key]["answers"][-1] == f"{key}:step2 done (prompt 2 of this conversation)"
    pools = {p["actor"]: p for p in summary["pools"]}
    for pool in pools.values():
        assert pool["peak"] == 1  # the bound held
        assert pool["evicted"] >= 1
        assert pool["waited"] >= 1
        assert (pool["running"], pool["leased"], pool["failed"]) == (0, 0, 0)
    # actor-1: task-1 and task-3, plus one per retry of task-1 that found it evicted.
    assert 2 <= pools["actor-1"]["started"] <= 5
    # actor-0: 2 if task-0's retry found its session still running (Ray may also start
    # task-2 first), 3 if task-2 evicted it between the 529 and the retry.
    assert pools["actor-0"]["started"] in (2, 3)
    assert summary["clis_started"] == len(run.pids)
    assert run.left_alive() == []
    stored = sorted(p.name for p in store.rglob("*.jsonl"))
    assert stored == sorted(f"{cs.session_id_for(f'e/task-{i}')}.jsonl" for i in range(4))
    print(
        json.dumps(
            {
                "ray_evict_seconds": round(run.seconds, 1),
                "clis_started": summary["clis_started"],
                "pools": [(p["started"], p["evicted"], p["waited"]) for p in summary["pools"]],
            }
        )
    )


def test_a_killed_actor_runs_no_finished_step_twice(world: AgentWorld) -> None:
    """SIGKILL the actor process while task-0 is mid-step 2 and task-1 has just stored step
    2's answer (its step 3 is running): the driver starts a new actor and sends it both."""
    require("ray")
    mid, after = cs.session_id_for("a/task-0"), cs.session_id_for("a/task-1")
    fault_file(world.faults, mid, 2, "hang")
    fault_file(world.faults, after, 3, "hang")
    store = world.root / "store"
    driver = world.start(
        "ray_batch.py", "--batch", "a", "--tasks", "2", "--steps", "3", "--actors", "1",
        "--max-sessions", "2", "--store", str(store), "--diskless",
    )  # fmt: skip
    try:
        actor = parent_of(world.wait_for_prompt(mid, 2, timeout=240))
        assert parent_of(world.wait_for_prompt(after, 3)) == actor
        assert actor != driver.process.pid
        assert stored_answers(store, after)[-1] == (
            "a/task-1:step2 done (prompt 2 of this conversation)"
        )
        os.kill(actor, signal.SIGKILL)
        run = driver.finish(timeout=240)
    finally:
        driver.stop(signal.SIGKILL)

    assert run.returncode == 0, run.output
    summary = run.summary()
    assert (summary["tasks"], summary["succeeded"], summary["failed"]) == (2, 2, 0)
    assert summary["actors_died"] == ["actor-0"]
    assert summary["retried"] == 2
    for outcome in summary["outcomes"]:
        assert (outcome["status"], outcome["lost_on"]) == ("done", ["actor-0"])
        assert (outcome["actor"], outcome["attempts"], outcome["resumed"]) == ("actor-0.1", 2, True)
    pools = {p["actor"]: p for p in summary["pools"]}
    assert pools["actor-0"] == {"actor": "actor-0", "died": True}
    assert pools["actor-0.1"]["running"] == 0
    after_prompts = stored_prompts(store, after)
    mid_prompts = stored_prompts(store, mid)
    # No finished step ran twice (see test_durable_temporal.py for the two forms).
    assert after_prompts in (["step1", "step2", "step3", "cut 3"], ["step1", "step2", "step3"])
    assert mid_prompts in (["step1", "step2", "cut 2", "step3"], ["step1", "step2", "step3"])
    assert "a/task-0 (actor-0.1, retried (2 attempts), actors lost: actor-0) done" in run.output
    assert list(world.faults.iterdir()) == []
    assert run.left_alive() == []
    print(json.dumps({"ray_kill": {"mid": mid_prompts, "after": after_prompts,
                                   "seconds": round(run.seconds, 1)}}))  # fmt: skip

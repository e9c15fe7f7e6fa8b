"""``examples/dask_batch.py`` on a ``dask.distributed`` LocalCluster (127.0.0.1), scripted CLI.

A batch over two worker processes, with a shared `DirectoryStore` and diskless CLIs: a task
whose CLI is killed and one whose API answers 529 are retried by Dask and go on from the
store (each cut step asked to be finished, no finished step sent again); a 401 is not
retried; no CLI process is left. Then a worker process killed (SIGKILL) with one task
mid-step and one just after a step's answer was stored: the scheduler runs both again on
the worker the nanny starts, and no finished step runs twice.
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

EXAMPLE = "dask_batch.py"


def test_dask_batch_retries_resume_and_nothing_leaks(world: AgentWorld) -> None:
    require("distributed")
    fault_file(world.faults, cs.session_id_for("d/task-1"), 2, "kill")
    fault_file(world.faults, cs.session_id_for("d/task-2"), 1, "529")
    fault_file(world.faults, cs.session_id_for("d/task-3"), 1, "401")
    store = world.root / "store"

    run = world.run(
        EXAMPLE, "--batch", "d", "--tasks", "5", "--steps", "2", "--workers", "2",
        "--sessions-per-worker", "2", "--store", str(store), "--diskless",
    )  # fmt: skip

    assert run.returncode == 0, run.output
    summary = run.summary()
    assert (summary["tasks"], summary["succeeded"], summary["failed"]) == (5, 4, 1)
    outcomes = {o["key"]: o for o in summary["outcomes"]}
    for key in ("d/task-0", "d/task-4"):
        assert not outcomes[key]["resumed"]
        assert outcomes[key]["answers"] == [
            f"{key}:step{n} done (prompt {n} of this conversation)" for n in (1, 2)
        ]
    # The killed CLI's task: Dask ran it again; step 1 was not sent again, step 2 (recorded
    # by the killed CLI) was asked to be finished.
    assert outcomes["d/task-1"]["resumed"]
    assert outcomes["d/task-1"]["answers"] == [
        "d/task-1:step1 done (prompt 1 of this conversation)",
        "Continue done (prompt 3 of this conversation)",
    ]
    assert stored_prompts(store, cs.session_id_for("d/task-1")) == ["step1", "step2", "cut 2"]
    assert outcomes["d/task-2"]["resumed"]
    assert stored_prompts(store, cs.session_id_for("d/task-2")) == ["step1", "cut 1", "step2"]
    assert outcomes["d/task-3"]["status"] == "failed"
    assert outcomes["d/task-3"]["error"].startswith("auth: ")
    assert "d/task-3 (" in run.output
    assert list(world.faults.iterdir()) == []
    assert len(run.pids) == 7  # 5 tasks + 2 retries (each in a new task run, a new CLI)
    assert run.left_alive() == []
    print(json.dumps({"dask_batch_seconds": round(run.seconds, 1)}))


def test_a_killed_worker_runs_no_finished_step_twice(world: AgentWorld) -> None:
    """SIGKILL the worker process while task-0 is mid-step 2 and task-1 has just stored step
    2's answer (its step 3 is running): the scheduler runs both on the worker that the
    nanny starts again."""
    require("distributed")
    mid, after = cs.session_id_for("k/task-0"), cs.session_id_for("k/task-1")
    fault_file(world.faults, mid, 2, "hang")
    fault_file(world.faults, after, 3, "hang")
    store = world.root / "store"
    driver = world.start(
        EXAMPLE, "--batch", "k", "--tasks", "2", "--steps", "3", "--workers", "1",
        "--sessions-per-worker", "2", "--store", str(store), "--diskless",
    )  # fmt: skip
    try:
        worker = parent_of(world.wait_for_prompt(mid, 2))
        assert parent_of(world.wait_for_prompt(after, 3)) == worker
        assert worker != driver.process.pid
        assert stored_answers(store, after)[-1] == (
            "k/task-1:step2 done (prompt 2 of this conversation)"
        )
        os.kill(worker, signal.SIGKILL)
        run = driver.finish()
    finally:
        driver.stop(signal.SIGKILL)

    assert run.returncode == 0, run.output
    summary = run.summary()
    assert (summary["tasks"], summary["succeeded"], summary["failed"]) == (2, 2, 0)
    assert summary["resumed"] == 2
    after_prompts = stored_prompts(store, after)
    mid_prompts = stored_prompts(store, mid)
    # No finished step ran twice (see test_durable_temporal.py for the two forms).
    assert after_prompts in (["step1", "step2", "step3", "cut 3"], ["step1", "step2", "step3"])
    assert mid_prompts in (["step1", "step2", "cut 2", "step3"], ["step1", "step2", "step3"])
    outcomes = {o["key"]: o for o in summary["outcomes"]}
    assert outcomes["k/task-1"]["answers"][:2] == [
        "k/task-1:step1 done (prompt 1 of this conversation)",
        "k/task-1:step2 done (prompt 2 of this conversation)",
    ]
    assert list(world.faults.iterdir()) == []
    assert run.left_alive() == []
    print(json.dumps({"dask_kill": {"mid": mid_prompts, "after": after_prompts,
                                    "seconds": round(run.seconds, 1)}}))  # fmt: skip

"""``examples/k8s/agent-job.yaml``: the manifest parses and says what the guide says, and its
task script (``run_task.py`` in the ConfigMap) runs as a pod would run it (no cluster here).

The script runs as a child process against the scripted agent CLI and a real Redis
(``RedisStore``, as in the Job), with diskless CLIs (the store is the only record):

* SIGTERM mid-step (what the kubelet sends to PID 1): the script exits 143 within seconds,
  far inside ``terminationGracePeriodSeconds``, with the cut step's prompt in the store and
  no CLI left; the retried pod asks the cut step to be finished and sends no finished step.
* SIGKILL mid-step (the grace ran out, the node died): the retried pod sends no finished
  step again.
* As PID 1 of a PID namespace (``unshare --pid --fork``, as root): the same SIGTERM is not
  ignored (PID 1 has no default action for it), and the retry goes on from the store.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import signal
import sys
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.stores import RedisStore, SessionKey

from ..stores.conftest import RedisServer, redis_server  # noqa: F401  (the fixture)
from .conftest import AgentWorld, Started, wait_for
from .fake_agent import fault_file

yaml = pytest.importorskip("yaml", reason="PyYAML (the 'engines' dependency group)")

JOB = Path(__file__).resolve().parents[2] / "examples" / "k8s" / "agent-job.yaml"


def _documents() -> dict[str, Any]:
    docs = [d for d in yaml.safe_load_all(JOB.read_text(encoding="utf-8")) if d is not None]
    return {d["kind"]: d for d in docs}


def test_the_job_is_an_indexed_job_with_limits_secrets_and_retries() -> None:
    job = _documents()["Job"]
    assert job["apiVersion"] == "batch/v1"
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    assert spec["backoffLimitPerIndex"] >= 1
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] == "Never"  # required by podFailurePolicy
    (container,) = pod["containers"]
    env = {e["name"]: e for e in container["env"]}
    assert env["ANTHROPIC_API_KEY"]["valueFrom"]["secretKeyRef"]["name"] == "claude-agent"
    assert (
        "job-completion-index" in env["JOB_COMPLETION_INDEX"]["valueFrom"]["fieldRef"]["fieldPath"]
    )
    assert env["REDIS_URL"]["value"].startswith("redis://")
    limits = container["resources"]["limits"]
    assert {"cpu", "memory"} <= set(limits)
    rules = spec["podFailurePolicy"]["rules"]
    assert rules[0]["action"] == "FailIndex"
    assert rules[0]["onExitCodes"]["values"] == [1]  # run_task.py: 1 = not retryable
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    assert {"/opt/task", "/work", "/tmp"} <= mounts


def test_the_task_script_is_python_that_uses_the_recipe() -> None:
    script = _documents()["ConfigMap"]["data"]["run_task.py"]
    tree = ast.parse(script)  # a syntax error fails here
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert {"resume_or_start", "retryable", "open_session"} <= names
    assert "RedisStore" in script
    assert "return 75 if exc.retryable else 1" in script


# --------------------------------------------------------------------------------------
# The task script, run as a pod runs it

STEP_TEXTS = {
    "plan": "Read the ticket and plan the change.",
    "change": "Make the change.",
    "test": "Run the tests.",
}
needs_unshare = pytest.mark.skipif(
    shutil.which("unshare") is None or os.geteuid() != 0,
    reason="a PID namespace needs unshare and root",
)


@pytest.fixture
def redis(redis_server: RedisServer) -> RedisServer:  # noqa: F811  (the imported fixture)
    """A real redis-server on 127.0.0.1 (``tests/stores/conftest.py``), as the Job's Redis."""
    return redis_server


def _script(world: AgentWorld) -> Path:
    path = world.root / "run_task.py"
    path.write_text(_documents()["ConfigMap"]["data"]["run_task.py"], encoding="utf-8")
    return path


def _pod(world: AgentWorld, redis: RedisServer, batch: str, *, pid1: bool = False) -> Started:
    """One pod of the Job: task 0 of ``batch`` (``unshare``: the script is PID 1)."""
    argv = [sys.executable, str(_script(world))]
    if pid1:
        argv = ["unshare", "--pid", "--fork", "--kill-child", *argv]
    env = {
        "BATCH": batch,
        "JOB_COMPLETION_INDEX": "0",
        "REDIS_URL": redis.url,
        "AGENT_CWD": str(world.work),
    }
    return world.start("run_task.py", env=env, argv=argv)


def _stored(redis: RedisServer, batch: str) -> list[dict[str, Any]]:
    key: SessionKey = {"project_key": batch, "session_id": cs.session_id_for(f"{batch}/task-0")}
    return anyio.run(RedisStore(redis.url).load, key) or []


def _prompts(redis: RedisServer, batch: str) -> list[str]:
    """The stored prompts as step names (``cut change``: the note for a cut step)."""
    found = []
    for entry in _stored(redis, batch):
        content = entry["message"]["content"] if entry["type"] == "user" else None
        if not isinstance(content, str):
            continue
        if content.startswith("Continue step "):
            found.append("cut " + content.removeprefix("Continue step ").split(":")[0])
        else:
            found += [name for name, text in STEP_TEXTS.items() if content.endswith(text)]
    return found


def _signal_pod(pod: Started, how: signal.Signals, *, pid1: bool) -> None:
    """Send ``how`` to the pod's PID 1 (the script, or unshare's child)."""
    target = pod.process.pid
    if pid1:
        children = Path(f"/proc/{target}/task/{target}/children").read_text().split()
        target = int(children[0])
    os.kill(target, how)


def _sigterm_mid_step_then_retry(
    world: AgentWorld, redis: RedisServer, *, pid1: bool
) -> dict[str, Any]:
    batch = f"k8s-{uuid.uuid4().hex[:8]}"
    session_id = cs.session_id_for(f"{batch}/task-0")
    fault_file(world.faults, session_id, 2, "hang")  # step "change" never ends by itself
    pod = _pod(world, redis, batch, pid1=pid1)
    try:
        world.wait_for_prompt(session_id, 2)
        _signal_pod(pod, signal.SIGTERM, pid1=pid1)
        # The Job's grace: past it the test fails (the kubelet would SIGKILL). Which rule
        # ended the pod is its exit status (143: it acted on the SIGTERM), not how fast.
        first = pod.finish(timeout=30)
    finally:
        pod.stop(signal.SIGKILL)
    # Flushed on the way out: the cut step's prompt is in the store.
    after_stop = _prompts(redis, batch)
    left = first.left_alive()
    retry = _pod(world, redis, batch, pid1=pid1).finish()
    return {
        "first": first,
        "after_stop": after_stop,
        "left": left,
        "retry": retry,
        "final": _prompts(redis, batch),
    }


def test_sigterm_mid_step_exits_143_with_the_step_stored_and_the_retry_finishes_it(
    world: AgentWorld, redis: RedisServer
) -> None:
    found = _sigterm_mid_step_then_retry(world, redis, pid1=False)
    first, retry = found["first"], found["retry"]
    assert first.returncode == 128 + signal.SIGTERM, first.output
    assert found["after_stop"] == ["plan", "change"]
    assert found["left"] == []  # the CLI ended with the pod's process
    assert retry.returncode == 0, retry.output
    # The finished step was not sent again; the cut one was asked to be finished.
    assert found["final"] == ["plan", "change", "cut change", "test"]
    print(json.dumps({"k8s_sigterm": {"final": found["final"]}}))


@needs_unshare
def test_as_pid_1_sigterm_is_not_ignored_and_the_retry_goes_on(
    world: AgentWorld, redis: RedisServer
) -> None:
    found = _sigterm_mid_step_then_retry(world, redis, pid1=True)
    first, retry = found["first"], found["retry"]
    assert first.returncode == 128 + signal.SIGTERM, first.output  # unshare passes it on
    assert found["after_stop"] == ["plan", "change"]
    assert retry.returncode == 0, retry.output
    assert found["final"] == ["plan", "change", "cut change", "test"]
    print(json.dumps({"k8s_pid1": {"final": found["final"]}}))


def test_sigkill_mid_step_then_retry_sends_no_finished_step(
    world: AgentWorld, redis: RedisServer
) -> None:
    batch = f"k8s-{uuid.uuid4().hex[:8]}"
    session_id = cs.session_id_for(f"{batch}/task-0")
    fault_file(world.faults, session_id, 3, "hang")  # step "test"
    pod = _pod(world, redis, batch)
    try:
        world.wait_for_prompt(session_id, 3)
        wait_for(lambda: _prompts(redis, batch)[:2] == ["plan", "change"], "steps 1-2")
        _signal_pod(pod, signal.SIGKILL, pid1=False)
        first = pod.finish(timeout=30)
    finally:
        pod.stop(signal.SIGKILL)
    assert first.returncode == -signal.SIGKILL
    retry = _pod(world, redis, batch).finish()
    assert retry.returncode == 0, retry.output
    final = _prompts(redis, batch)
    # plan and change were done: not sent again. test ran again (cut, or lost with the pod).
    assert final in (["plan", "change", "test", "cut test"], ["plan", "change", "test"])
    assert f"{batch}/task-0: plan: " in retry.output  # its stored answer, reported
    wait_for(lambda: first.left_alive() == [], "the killed pod's CLI to end (the watchdog)")
    assert retry.left_alive() == []
    print(json.dumps({"k8s_sigkill": {"final": final}}))

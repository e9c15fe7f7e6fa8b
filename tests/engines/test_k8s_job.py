"""``examples/k8s/agent-job.yaml`` parses and says what the guide says (no cluster here)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

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

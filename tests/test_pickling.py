"""What distributed engines need: a function shipped by value (cloudpickle: Ray, Dask, ...)
that uses ``claude_sdk`` runs on the other side, and `Options` pickle.

Issue 17 found that ``import claude_sdk as cs`` in a function Ray ships failed: the package's
own module type (it keeps ``claude_sdk.query`` the function) was not picklable.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import claude_sdk as cs
from claude_sdk.policies import deny_commands

cloudpickle = pytest.importorskip("cloudpickle")

SHIP = textwrap.dedent(
    """
    import sys
    import cloudpickle
    import claude_sdk as cs
    import claude_sdk.sync

    def task(prompt):  # defined in __main__: cloudpickle ships it by value, globals included
        from claude_sdk.testing import FakeCLI
        reply = claude_sdk.sync.ask(prompt, transport=FakeCLI(replies=["shipped " + prompt]))
        return cs.__name__, reply.text

    sys.stdout.buffer.write(cloudpickle.dumps(task))
    """
)

RUN = textwrap.dedent(
    """
    import pickle, sys
    task = pickle.loads(sys.stdin.buffer.read())  # a fresh process: claude_sdk not imported yet
    print(task("hi"))
    """
)


def test_a_function_shipped_by_value_uses_the_package_on_the_other_side(tmp_path: Path) -> None:
    shipped = subprocess.run(
        [sys.executable, "-c", SHIP], capture_output=True, check=True, timeout=60
    ).stdout
    done = subprocess.run(
        [sys.executable, "-c", RUN],
        input=shipped,
        capture_output=True,
        check=False,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == "('claude_sdk', 'shipped hi')"


def test_the_package_pickles_by_name() -> None:
    assert pickle.loads(pickle.dumps(cs)) is cs
    assert pickle.loads(cloudpickle.dumps(cs)) is cs


async def allow(
    tool_name: str, tool_input: dict[str, object], context: cs.ToolPermissionContext
) -> cs.PermissionResult:
    return cs.PermissionAllow()


def test_options_pickle_with_callbacks_policies_and_secrets() -> None:
    options = cs.Options(
        model="claude-sonnet-4-5",
        env={"MY_TOKEN": "sk-ant-secret"},
        can_use_tool=allow,
        hooks={"PreToolUse": [deny_commands("rm -rf")]},
        output_format={"type": "object", "properties": {"a": {"type": "integer"}}},
        system_prompt="be brief",
        max_turns=3,
    )
    for dumps in (pickle.dumps, cloudpickle.dumps):
        copy = pickle.loads(dumps(options))
        assert copy == options
        assert copy.env == {"MY_TOKEN": "sk-ant-secret"}
        assert copy.output_schema == options.output_schema

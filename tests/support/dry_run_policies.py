"""Policies for the dry-run tests: ``python -m claude_sdk.testing policy-check
tests.support.dry_run_policies:NAME ...`` (run from the repository root).

``tests/data/cassettes/permission_and_hook.jsonl`` records a hook denying ``rm -rf build``
and ``can_use_tool`` allowing ``touch marker.txt``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from claude_sdk.policies import (
    Decision,
    Policy,
    chain,
    deny_commands,
    deny_paths,
    require_command,
)

#: Decides both calls of the cassette as they were decided.
REPRODUCES = chain(deny_commands("rm -rf"), require_command("touch", allow=True))

#: Changes one decision: ``touch`` is denied too.
DENIES_TOUCH = chain(deny_commands("rm -rf", "touch"), require_command("touch", allow=True))

#: No opinion about either call (``continue``).
NO_OPINION = deny_commands("git push --force")

#: A ``can_use_tool`` adapter: its ``continue`` (``touch``) denies.
AS_CAN_USE_TOOL = deny_commands("rm -rf").as_can_use_tool()

#: Denies the file tools ``secret/`` below the current directory (the recordings of
#: ``test_a_policy_hook_stops_what_the_model_asks_for_Read_*`` denied it below theirs).
DENIES_SECRET = deny_paths("secret")

#: Not a policy.
NOT_A_POLICY = "rm -rf"


def make_policy() -> Policy:
    """A factory: `REPRODUCES`."""
    return REPRODUCES


class Broken(Policy):
    """A policy with a bug: ``decide`` raises for ``touch``, and denies everything else."""

    name = "broken"

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        if "touch" in str(tool_input.get("command")):
            raise RuntimeError("boom")
        return Decision.deny("no", policy=self.name)


BROKEN = Broken()


async def can_use_tool(tool_name: str, tool_input: dict[str, Any], context: Any) -> Any:
    """A plain ``can_use_tool`` function: the dry run refuses it."""
    raise AssertionError("never called")

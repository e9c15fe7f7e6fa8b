"""Policy dry run: what would a new permission policy have decided in recorded sessions?

Before changing the rules an agent runs under, replay the tool calls of sessions you
recorded (cassettes; see docs/testing.md) through the new policy. `check_policy` reads each
call and what happened to it (allowed or denied, and by whom: a hook, ``can_use_tool`` or
the CLI's own rules), asks the policy what it would decide, and marks the calls where the
two differ. This script checks two policies against the committed cassette
``tests/data/cassettes/permission_and_hook.jsonl``, in which a PreToolUse hook denied
``rm -rf build`` and ``can_use_tool`` allowed ``touch marker.txt``:

* ``CURRENT`` makes both decisions as they were made;
* ``PROPOSED`` denies ``touch`` as well: one difference.

No CLI and no network are needed. The same check from a shell, for CI (exit status 1 when a
call differs)::

    python -m claude_sdk.testing policy-check examples/policy_dry_run.py:PROPOSED \\
        tests/data/cassettes/permission_and_hook.jsonl

Run: ``python examples/policy_dry_run.py [CASSETTE...]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from claude_sdk.policies import chain, deny_commands, require_command
from claude_sdk.testing import check_policy

CASSETTE = Path(__file__).resolve().parents[1] / "tests/data/cassettes/permission_and_hook.jsonl"

CURRENT = chain(deny_commands("rm -rf"), require_command("touch", "ls", allow=True))
PROPOSED = chain(deny_commands("rm -rf", "touch"), require_command("ls", allow=True))


def main(paths: list[str]) -> None:
    for label, policy in (("current", CURRENT), ("proposed", PROPOSED)):
        verdicts = check_policy(policy, paths)
        differences = [v for v in verdicts if v.differs]
        print(f"{label}: {len(verdicts)} calls, {len(differences)} differ  ({policy.name})")
        for verdict in differences:
            call = verdict.call
            print(f"  {Path(call.path).name}:{call.line}: {call.tool_name} {call.summary}")
            print(f"    recorded {call.recorded}")
            print(f"    policy   {verdict.policy_text()}")


if __name__ == "__main__":
    main(sys.argv[1:] or [str(CASSETTE)])

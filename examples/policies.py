"""Permission policies: rules for tool calls, composed into a chain and checked offline.

`claude_sdk.policies` builds permission rules from small parts. This example chains two:

* ``deny_commands("rm -rf", "git push --force")`` refuses Bash calls that may run one of
  those commands anywhere in them (the command is parsed with tree-sitter's bash grammar):
  after ``&&`` or ``;``, inside ``$(...)``, behind any wrapper (``sudo``, ``taskset 1``),
  with the flags spelled another way (``-Rf``, ``--recursive --force``), inside a string a
  program runs as code (``bash -c -- '...'``), and code computed at run time
  (``$(echo rm) -rf``, ``base64 -d x | sh``) is denied because no list can check it;
* ``allow_paths(".")`` lets the file tools (Read, Write, Edit, Glob, ...) touch only the
  current directory's tree; ``..``, ``~``, symlinks and ``/proc/self/cwd`` are resolved as
  the CLI's process sees them before the check.

The chain decides in order: the first deny wins, an allow stops it, and a call no policy
decides continues. The script prints the decision for a few tool calls (no CLI needed), then
what the chain answers the CLI when it runs as a PreToolUse hook
(``Options(hooks={"PreToolUse": [POLICY]})``): a deny with its reason, or ``{}`` (no
decision: the CLI's own permission rules apply). Used as the permission callback instead, a
policy denies what it does not decide (see `claude_sdk.policies`).

Run: ``python examples/policies.py``.
"""

from __future__ import annotations

import json
import os
from typing import Any

import claude_sdk as cs
from claude_sdk.policies import PolicyHook, allow_paths, chain, deny_commands

POLICY = chain(deny_commands("rm -rf", "git push --force"), allow_paths("."))

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("Bash", {"command": "ls -la && git status"}),
    ("Bash", {"command": "make clean; sudo rm -fr /tmp/build"}),
    ("Bash", {"command": "echo \"$(FOO=1 'rm' -rf ~)\""}),
    ("Bash", {"command": "git push origin main --force"}),
    ("Bash", {"command": "taskset 1 rm --recursive --force build"}),
    ("Bash", {"command": "bash -c -- 'rm -Rf build'"}),
    ("Bash", {"command": "echo cm0gLXJmIGJ1aWxkCg== | base64 -d | sh"}),
    ("Bash", {"command": "$(echo rm) -rf build"}),
    ("Bash", {"command": "git commit -m \"$(cat <<'EOF'\nTidy the build\nEOF\n)\""}),
    ("Bash", {"command": "echo 'unbalanced"}),
    ("Read", {"file_path": "README.md"}),
    ("Read", {"file_path": "../../etc/passwd"}),
    ("Read", {"file_path": "/proc/self/root/etc/passwd"}),
    ("Write", {"file_path": "~/.bashrc", "content": "..."}),
    ("Glob", {"pattern": "/etc/*"}),
    ("WebSearch", {"query": "structured concurrency"}),
]


def main() -> None:
    print(f"policy: {POLICY.name}\n")
    for tool_name, tool_input in CALLS:
        decision = POLICY.decide(tool_name, tool_input)
        print(f"{decision.kind:>8}  {tool_name} {tool_input}")
        if decision.kind != "continue":
            print(f"          {decision.reason}  [{decision.policy}]")

    # The same chain as a PreToolUse hook: what the CLI would be told.
    hook = PolicyHook(POLICY)
    print("\nas a PreToolUse hook:")
    for tool_name, tool_input in CALLS[1:2] + CALLS[11:12]:
        hook_input = cs.PreToolUseInput(
            session_id="example",
            transcript_path="/dev/null",
            cwd=os.getcwd(),
            tool_name=tool_name,
            tool_input=tool_input,
        )
        answer = cs.wire.to_dict(hook.output(hook_input))
        print(f"  {tool_name} {tool_input}\n    -> {json.dumps(answer)}")


if __name__ == "__main__":
    main()

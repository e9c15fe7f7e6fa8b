"""Skill shell commands: check the shell commands that skills and slash commands embed.

A slash command's (or a skill's) markdown may hold an inline shell command, ``!`cmd` ``: the
CLI runs it when the command is loaded, before the model sees the text, and no PreToolUse hook
sees it. CLI 2.1.332 and later ask ``PreSkillShellCommand`` hooks first. Here one policy,
``deny_commands("rm -rf")``, given once as a PreToolUse hook, guards both the model's own Bash
calls and the commands inside slash commands: ``Options`` registers it for
PreSkillShellCommand too. The project's ``/cleanup`` command would run ``rm -rf build``, and
the hook keeps it from running. On an older CLI, which never calls the hook (the session logs
a warning at open), the example says so and sends nothing.

Run: ``python examples/skill_shell_hooks.py`` (needs a logged-in Claude Code CLI). It runs in
a fresh temporary directory, so nothing of yours is touched.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import anyio

import claude_sdk as cs
from claude_sdk.hooks import unsupported_hook_events
from claude_sdk.messages import InformationalMessage
from claude_sdk.policies import deny_commands

CLEANUP = """---
description: Remove the build directory
allowed-tools: Bash(rm:*), Bash(echo:*)
---
Cleanup: !`rm -rf build && echo cleaned`
"""


async def main() -> None:
    with tempfile.TemporaryDirectory() as workdir:
        project = Path(workdir)
        (project / "build").mkdir()
        commands = project / ".claude" / "commands"
        commands.mkdir(parents=True)
        (commands / "cleanup.md").write_text(CLEANUP)

        policy = deny_commands("rm -rf")
        options = cs.Options(
            cwd=workdir,
            setting_sources=("project",),  # where the /cleanup command lives
            hooks={"PreToolUse": [policy]},  # PreSkillShellCommand too, by Options
        )
        async with cs.open_session(options) as session:
            version = session.server_info.claude_code_version
            missing = unsupported_hook_events(options.hooks, version)
            if missing:
                print(f"CLI {version} has no {', '.join(missing)} hooks: /cleanup would run")
                print("its shell command unchecked, so it is not sent; update the CLI")
                return
            await session.send("/cleanup")
            async for message in session.receive_response():
                if isinstance(message, InformationalMessage):  # "Not run in /cleanup: ..."
                    print("CLI:", message.content)
        kept = (project / "build").exists()
        print(f"PreSkillShellCommand hook ran; build/ {'kept' if kept else 'removed'}")


if __name__ == "__main__":
    anyio.run(main)

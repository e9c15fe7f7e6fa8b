"""Issue 27, item 5, against the real CLI: a command policy given only as the PreToolUse hook
also keeps a slash command's embedded shell command (``!`cmd` ``) from running.

On CLI 2.1.332 (which has ``PreSkillShellCommand``) the command does not run and the model
sees the policy's reason. On CLI 2.1.330 (which does not) the command runs, as it must there,
and the session warned at open, naming the ways to close the gap.
"""

from __future__ import annotations

import logging

import pytest

import claude_sdk as cs
from claude_sdk import hooks
from claude_sdk.messages import InformationalMessage
from claude_sdk.policies import deny_commands

from .conftest import E2E


@pytest.mark.parametrize("how", ["bare", "matcher"])
async def test_a_pre_tool_use_policy_keeps_a_skill_shell_command_from_running(
    e2e: E2E, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="claude_sdk.session")
    commands = e2e.cwd / ".claude" / "commands"
    commands.mkdir(parents=True)
    # allowed-tools: the CLI's own permission check of the command passes, so the hook decides
    (commands / "mk.md").write_text(
        "---\nallowed-tools: Bash(touch:*), Bash(echo:*)\n---\n"
        "Made: !`touch made.txt && echo made-it`\n"
    )
    policy = deny_commands("touch")
    given = policy if how == "bare" else policy.as_hook_matcher("Bash")
    e2e.api.reply(text="ok")
    options = e2e.options(hooks={"PreToolUse": [given]}, setting_sources=("project",))
    async with cs.open_session(options, transport=e2e.transport()) as session:
        version = session.server_info.claude_code_version
        await session.send("/mk")
        messages = [m async for m in session.receive_response()]
    assert isinstance(messages[-1], cs.ResultMessage)
    gap = [r.getMessage() for r in caplog.records if "PreSkillShellCommand" in r.getMessage()]
    if hooks.unsupported_hook_events(("PreSkillShellCommand",), version):
        # CLI 2.1.330: no such event; the command runs, and the session said so at open
        assert (e2e.cwd / "made.txt").exists()
        assert len(gap) == 1, gap
        assert "load no commands or skills" in gap[0]
        assert "sandbox" in gap[0]
        return
    assert gap == []
    assert not (e2e.cwd / "made.txt").exists()
    prompt = str(e2e.api.main_requests[0].messages)
    assert "made-it" not in prompt.replace("echo made-it", "")
    assert "matches the denied pattern 'touch'" in prompt
    notices = [m.content for m in messages if isinstance(m, InformationalMessage)]
    assert any(n.startswith("Not run in /mk: touch made.txt") for n in notices), notices

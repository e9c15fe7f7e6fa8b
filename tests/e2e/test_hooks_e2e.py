"""Hooks and permission callbacks against the real CLI (offline, FakeMessagesAPI)."""

from __future__ import annotations

from typing import Any

import pytest

import claude_sdk as cs
from claude_sdk import hooks
from claude_sdk.hooks import (
    HookContext,
    PostToolUseInput,
    PreSkillShellCommandInput,
    StopInput,
    UserPromptSubmitInput,
    UserPromptSubmitOutput,
)
from claude_sdk.messages import InformationalMessage
from claude_sdk.policies import deny_commands

from .conftest import E2E


async def test_post_tool_use_sees_the_tool_response(e2e: E2E) -> None:
    seen: list[PostToolUseInput] = []

    async def post(hook_input: PostToolUseInput, context: HookContext) -> None:
        seen.append(hook_input)

    e2e.api.reply(tool_use=("Bash", {"command": "echo hooked-output"}))
    e2e.api.reply(text="done")
    options = e2e.options(hooks={"PostToolUse": [cs.HookMatcher(matcher="Bash", hooks=[post])]})
    await cs.ask("run it", options=options, transport=e2e.transport())
    assert len(seen) == 1
    assert seen[0].tool_input == {"command": "echo hooked-output"}
    assert "hooked-output" in str(seen[0].tool_response)
    assert seen[0].tool_use_id


async def test_user_prompt_submit_adds_context_the_api_sees(e2e: E2E) -> None:
    prompts: list[str] = []

    async def add_context(hook_input: UserPromptSubmitInput, context: HookContext) -> cs.HookOutput:
        prompts.append(hook_input.prompt)
        return cs.HookOutput(
            specific=UserPromptSubmitOutput(additional_context="The secret word is PAPAYA.")
        )

    e2e.api.reply(text="ok")
    hooks = {"UserPromptSubmit": [cs.HookMatcher(hooks=[add_context])]}
    await cs.ask("what is the word?", options=e2e.options(hooks=hooks), transport=e2e.transport())
    assert prompts == ["what is the word?"]
    request = e2e.api.main_requests[0]
    assert "PAPAYA" in str(request.messages)


async def test_a_stop_hook_fires(e2e: E2E) -> None:
    stops: list[StopInput] = []

    async def on_stop(hook_input: StopInput, context: HookContext) -> None:
        stops.append(hook_input)

    e2e.api.reply(text="the final answer")
    hooks = {"Stop": [cs.HookMatcher(hooks=[on_stop])]}
    await cs.ask("hi", options=e2e.options(hooks=hooks), transport=e2e.transport())
    assert len(stops) == 1
    assert stops[0].last_assistant_message == "the final answer"
    assert stops[0].stop_hook_active is False


async def test_can_use_tool_rewrites_a_bash_command(e2e: E2E) -> None:
    async def rewrite(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        return cs.PermissionAllow(
            updated_input={
                **tool_input,
                "command": "echo rewritten-by-the-host > out.txt; cat out.txt",
            }
        )

    e2e.api.reply(tool_use=("Bash", {"command": "echo original > out.txt; cat out.txt"}))
    e2e.api.reply(text="done")
    await cs.ask("write", options=e2e.options(can_use_tool=rewrite), transport=e2e.transport())
    result = e2e.api.main_requests[1].tool_results[0]
    assert "rewritten-by-the-host" in result.text
    assert "original" not in result.text
    assert (e2e.cwd / "out.txt").read_text().strip() == "rewritten-by-the-host"


async def test_a_policy_chain_blocks_rm_rf_and_lets_ls_run(e2e: E2E) -> None:
    from claude_sdk.policies import allow_paths, chain, deny_commands

    (e2e.cwd / "build").mkdir()
    (e2e.cwd / "build" / "artifact.o").write_text("x")
    policy = chain(deny_commands("rm -rf"), allow_paths(str(e2e.cwd)))
    e2e.api.reply(
        tool_use=[("Bash", {"command": "rm -rf build"}), ("Bash", {"command": "ls build"})]
    )
    e2e.api.reply(text="done")
    # Hooked for every tool it decides: hooked for Bash only, the path policy inside would be
    # left to can_use_tool, which the CLI skips for reads in its directory (and `Options`
    # warns so).
    options = e2e.options(
        hooks={"PreToolUse": [policy.as_hook_matcher()]},
        can_use_tool=policy.as_can_use_tool(default="allow"),
    )
    await cs.ask("clean up", options=options, transport=e2e.transport())
    results = {r.tool_use_id: r for r in e2e.api.main_requests[1].tool_results}
    assert len(results) == 2
    rm, ls = sorted(results.values(), key=lambda r: "artifact" in r.text)
    assert rm.is_error
    assert "rm -rf" in rm.text
    assert not ls.is_error
    assert "artifact.o" in ls.text
    assert (e2e.cwd / "build" / "artifact.o").exists()


def _deny_by_dict(seen: list[Any]) -> Any:
    async def hook(hook_input: Any, context: HookContext) -> Any:
        seen.append(hook_input)
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreSkillShellCommand",
                "permissionDecision": "deny",
                "permissionDecisionReason": "no shell in skills",
            }
        }

    return hook


def _raising(seen: list[Any]) -> Any:
    async def hook(hook_input: Any, context: HookContext) -> Any:
        seen.append(hook_input)
        raise RuntimeError("the hook broke")

    return hook


def _policy(seen: list[Any]) -> Any:
    policy = deny_commands("touch")

    async def hook(hook_input: Any, context: HookContext) -> Any:
        seen.append(hook_input)
        return await policy(hook_input, context)

    return hook


#: How the hook refuses: (its factory, what the model is then shown).
_REFUSALS: dict[str, tuple[Any, str]] = {
    "dict": (_deny_by_dict, "no shell in skills"),
    "failing": (_raising, "hook failed: RuntimeError: the hook broke"),
    "policy": (_policy, "matches the denied pattern 'touch'"),
}


@pytest.mark.parametrize("how", sorted(_REFUSALS))
async def test_a_skill_shell_command_hook_keeps_the_command_from_running(
    e2e: E2E, how: str
) -> None:
    """Issue 26, item 6: a slash command's inline shell command (``!`cmd` ``) goes to the
    PreSkillShellCommand hook (CLI 2.1.332 and later), whose deny (or failure) keeps it from
    running. Before, the SDK refused the deny with a TypeError and the command ran. A CLI
    without the event never calls the hook, and the SDK says so."""
    commands = e2e.cwd / ".claude" / "commands"
    commands.mkdir(parents=True)
    # allowed-tools: the CLI's own permission check of the command passes, so the hook decides
    (commands / "mk.md").write_text(
        "---\nallowed-tools: Bash(touch:*), Bash(echo:*)\n---\n"
        "Made: !`touch made.txt && echo made-it`\n"
    )
    make_hook, says = _REFUSALS[how]
    seen: list[Any] = []
    e2e.api.reply(text="ok")
    options = e2e.options(
        hooks={"PreSkillShellCommand": [cs.HookMatcher(matcher="Bash", hooks=[make_hook(seen)])]},
        setting_sources=("project",),
    )
    async with cs.open_session(options, transport=e2e.transport()) as session:
        missing = hooks.unsupported_hook_events(
            options.hooks, session.server_info.claude_code_version
        )
        await session.send("/mk")
        messages = [m async for m in session.receive_response()]
    assert isinstance(messages[-1], cs.ResultMessage)
    if missing:  # an older CLI: no such event, the command ran unchecked
        assert missing == ("PreSkillShellCommand",)
        assert seen == []
        assert (e2e.cwd / "made.txt").exists()
        return
    (hook_input,) = seen
    assert isinstance(hook_input, PreSkillShellCommandInput)
    assert hook_input.tool_name == "Bash"
    assert hook_input.tool_input == {"command": "touch made.txt && echo made-it"}
    assert hook_input.command_name == "mk"
    assert hook_input.invoked_by == "user"
    assert not (e2e.cwd / "made.txt").exists()
    # the model sees the placeholder, not the command's output
    prompt = str(e2e.api.main_requests[0].messages)
    assert "made-it" not in prompt.replace("echo made-it", "")
    assert says in prompt
    notices = [m.content for m in messages if isinstance(m, InformationalMessage)]
    assert any(n.startswith("Not run in /mk: touch made.txt") for n in notices), notices

"""Hooks and permission callbacks against the real CLI (offline, FakeMessagesAPI)."""

from __future__ import annotations

from typing import Any

import claude_sdk as cs
from claude_sdk.hooks import (
    HookContext,
    PostToolUseInput,
    StopInput,
    UserPromptSubmitInput,
    UserPromptSubmitOutput,
)

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
    options = e2e.options(
        hooks={"PreToolUse": [policy.as_hook_matcher(matcher="Bash")]},
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

"""Every hook event, including the ones a newer CLI adds (issue 26, item 6), through FakeCLI.

* ``PreSkillShellCommand`` (CLI 2.1.332: a shell command embedded in a skill or slash command,
  ``!`cmd` ``, before it runs): typed input and output, accepted by ``HookRegistry.on``,
  ``Options(hooks=...)`` and the policies; a failing hook of it denies, like a permission hook.
* An event the SDK does not know is registered with a warning, its input reaches the callback
  raw, and its callback can still deny.
* A CLI older than the event is said not to have it.

Every test runs on asyncio and Trio.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk import hooks
from claude_sdk.hooks import (
    HookContext,
    PreSkillShellCommandInput,
    PreSkillShellCommandOutput,
    UnknownHookInput,
)
from claude_sdk.policies import deny_commands
from claude_sdk.testing import FakeCLI, ScriptedCLI
from claude_sdk.tool_inputs import BashInput

BASE = {"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/w"}


def skill_shell_input(command: str) -> dict[str, Any]:
    """A PreSkillShellCommand input as CLI 2.1.332 sends it (recorded, values replaced)."""
    return {
        **BASE,
        "prompt_id": "2e7ebe17-3f2d-4418-b20c-1e1e62328c1f",
        "permission_mode": "default",
        "effort": {"level": "medium"},
        "hook_event_name": "PreSkillShellCommand",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "312563f0-24b6-4b69-a77f-872353f63c76:inner:preamble-0",
        "command_name": "mk",
        "command_source": "projectSettings",
        "invoked_by": "user",
    }


async def answers_to(
    options: cs.Options, event: str, inputs: list[dict[str, Any]], *, version: str = "2.1.332"
) -> list[Any]:
    """What the session answers one ``hook_callback`` per input, for the first ``event`` hook."""
    replies: list[Any] = []
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        for hook_input in inputs:
            replies.append(await cli.hook_callback(cli.hook_id(event), hook_input))
        done.set()
        await cli.serve_until_stdin_closes()

    async with cs.open_session(options, transport=FakeCLI(script, version=version)):
        with anyio.fail_after(10):
            await done.wait()
    return replies


def returning(value: Any, seen: list[Any] | None = None) -> Callable[..., Any]:
    async def hook(hook_input: Any, context: HookContext) -> Any:
        if seen is not None:
            seen.append(hook_input)
        return value

    return hook


DENY_WIRE = {
    "hookSpecificOutput": {
        "hookEventName": "PreSkillShellCommand",
        "permissionDecision": "deny",
        "permissionDecisionReason": "no shell in skills",
    }
}


# ======================================================================================
# PreSkillShellCommand


async def test_a_skill_shell_command_hook_gets_its_input_typed_and_its_deny_is_sent() -> None:
    """Before: ``HookRegistry.on`` refused the event (ValueError); through ``Options`` the
    deny answer was refused with a TypeError, the CLI got an error and ran the command."""
    seen: list[Any] = []
    registry = cs.HookRegistry()
    registry.on("PreSkillShellCommand", matcher="Bash")(returning(DENY_WIRE, seen))
    (reply,) = await answers_to(
        cs.Options(hooks=registry), "PreSkillShellCommand", [skill_shell_input("touch made")]
    )
    assert reply == DENY_WIRE
    (hook_input,) = seen
    assert isinstance(hook_input, PreSkillShellCommandInput)
    assert hook_input.tool_input == {"command": "touch made"}
    assert hook_input.command_name == "mk"
    assert hook_input.command_source == "projectSettings"
    assert hook_input.invoked_by == "user"
    assert isinstance(hook_input.typed_input, BashInput)
    assert hook_input.typed_input.command == "touch made"


async def test_a_typed_skill_shell_command_answer() -> None:
    answer = cs.HookOutput(
        specific=PreSkillShellCommandOutput(
            permission_decision="deny", permission_decision_reason="no shell in skills"
        )
    )
    hooks_ = {"PreSkillShellCommand": [cs.HookMatcher(hooks=[returning(answer)])]}
    (reply,) = await answers_to(
        cs.Options(hooks=hooks_), "PreSkillShellCommand", [skill_shell_input("ls")]
    )
    assert reply == DENY_WIRE


@pytest.mark.parametrize(
    "failure",
    ["raises", "times out", "answers something unfit"],
)
async def test_a_failing_skill_shell_command_hook_denies(
    failure: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Before: an error answer, and the CLI (onFailure unset: ``continue``) ran the command."""

    async def hook(hook_input: Any, context: HookContext) -> Any:
        if failure == "raises":
            raise ValueError("the hook broke")
        if failure == "times out":
            await anyio.sleep_forever()
        return {"hookSpecificOutput": {"permissionDecision": "perhaps"}}

    matcher = cs.HookMatcher(hooks=[hook], timeout=0.05 if failure == "times out" else None)
    options = cs.Options(hooks={"PreSkillShellCommand": [matcher]})
    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        (reply,) = await answers_to(options, "PreSkillShellCommand", [skill_shell_input("ls")])
    assert isinstance(reply, dict), reply
    specific = reply["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreSkillShellCommand"
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"].startswith("hook failed: ")
    assert any("PreSkillShellCommand hook" in r.getMessage() for r in caplog.records)


async def test_a_skill_shell_command_hook_blocks_on_failure_by_default() -> None:
    """Before: no ``onFailure`` was sent for it (the CLI's default lets the command run)."""
    registered: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        init = await cli.handshake()
        registered.append(init.hooks)

    options = cs.Options(hooks={"PreSkillShellCommand": [cs.HookMatcher(hooks=[returning(None)])]})
    async with cs.open_session(options, transport=FakeCLI(script, version="2.1.332")):
        pass
    (config,) = registered[0]["PreSkillShellCommand"]
    assert config.on_failure == "block"


async def test_a_policy_guards_skill_shell_commands() -> None:
    """Before: ``Options`` refused a policy for any event but PreToolUse, and the policy's hook
    refused a PreSkillShellCommand input."""
    options = cs.Options(hooks={"PreSkillShellCommand": [deny_commands("rm -rf")]})
    denied, passed = await answers_to(
        options,
        "PreSkillShellCommand",
        [skill_shell_input("rm -rf build"), skill_shell_input("ls")],
    )
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "rm -rf" in denied["hookSpecificOutput"]["permissionDecisionReason"]
    assert passed == {}


async def test_the_fake_cli_runs_a_skill_shell_command_as_the_real_one_decides() -> None:
    """ScriptedCLI.skill_shell_command plays CLI 2.1.332: a deny, or a hook that fails under
    ``onFailure: "block"``, keeps the command from running; ``{}`` lets it run; an older CLI
    calls no hook at all."""
    runs: dict[str, bool] = {}
    calls: list[str] = []

    async def hook(hook_input: PreSkillShellCommandInput, context: HookContext) -> Any:
        command = hook_input.tool_input["command"]
        calls.append(command)
        if command == "broken":
            raise ValueError("broke")
        return DENY_WIRE if command.startswith("rm") else None

    def script_for(version: str, done: anyio.Event) -> Any:
        async def script(cli: ScriptedCLI) -> None:
            await cli.handshake()
            for command in ("rm -rf x", "ls", "broken"):
                runs[f"{version} {command}"] = await cli.skill_shell_command(
                    command, command_name="mk"
                )
            done.set()
            await cli.serve_until_stdin_closes()

        return script

    options = cs.Options(hooks={"PreSkillShellCommand": [cs.HookMatcher(hooks=[hook])]})
    for version in ("2.1.332", "2.1.330"):
        done = anyio.Event()
        fake = FakeCLI(script_for(version, done), version=version)
        async with cs.open_session(options, transport=fake):
            with anyio.fail_after(10):
                await done.wait()
    assert runs == {
        "2.1.332 rm -rf x": False,
        "2.1.332 ls": True,
        "2.1.332 broken": False,
        "2.1.330 rm -rf x": True,  # no such event: nothing asked, the command ran
        "2.1.330 ls": True,
        "2.1.330 broken": True,
    }
    assert calls == ["rm -rf x", "ls", "broken"]


# ======================================================================================
# An event the SDK does not know


async def test_an_unknown_event_is_passed_through_and_its_callback_can_deny() -> None:
    """Before: ``HookRegistry.on`` refused the event, and a dict answer could not carry its
    ``hookSpecificOutput`` (a TypeError: an error answer)."""
    seen: list[Any] = []
    deny = {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}
    registry = cs.HookRegistry()
    registry.on("FutureEvent")(returning(deny, seen))  # type: ignore[arg-type]
    with pytest.warns(cs.ClaudeSDKWarning, match="FutureEvent"):
        options = cs.Options(hooks=registry)
    raw = {**BASE, "hook_event_name": "FutureEvent", "thing": 1}
    (reply,) = await answers_to(options, "FutureEvent", [raw])
    assert reply == {
        "hookSpecificOutput": {
            "hookEventName": "FutureEvent",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        }
    }
    (hook_input,) = seen
    assert isinstance(hook_input, UnknownHookInput)
    assert hook_input.raw.items() >= raw.items()  # (the fake adds permission_mode)
    assert hook_input.hook_event_name == "FutureEvent"


async def test_an_unknown_events_unfit_deny_still_denies() -> None:
    """Before: the unfit answer was an error answer; the CLI's default let the action go on."""
    unfit = {"decision": "block", "reason": "no", "colour": "red"}
    with pytest.warns(cs.ClaudeSDKWarning, match="FutureEvent"):
        options = cs.Options(hooks={"FutureEvent": [cs.HookMatcher(hooks=[returning(unfit)])]})
    raw = {**BASE, "hook_event_name": "FutureEvent"}
    (reply,) = await answers_to(options, "FutureEvent", [raw])
    assert isinstance(reply, dict), reply
    assert reply["decision"] == "block"
    assert reply["reason"].startswith("hook failed: ")


# ======================================================================================
# A CLI older than the event


def test_which_cli_has_which_event() -> None:
    registered = {"PreToolUse": (), "PreSkillShellCommand": (), "FutureEvent": ()}
    assert hooks.HOOK_EVENT_SINCE == {"PreSkillShellCommand": "2.1.332"}
    assert hooks.unsupported_hook_events(registered, "2.1.330") == ("PreSkillShellCommand",)
    assert hooks.unsupported_hook_events(registered, "2.1.331") == ("PreSkillShellCommand",)
    assert hooks.unsupported_hook_events(registered, "2.1.332") == ()
    assert hooks.unsupported_hook_events(registered, "2.2.0") == ()
    assert hooks.unsupported_hook_events(registered, "10.0.1 (Claude Code)") == ()
    # a version it cannot read says nothing (it cannot tell)
    assert hooks.unsupported_hook_events(registered, None) == ()
    assert hooks.unsupported_hook_events(registered, "dev") == ()


async def test_an_older_cli_is_said_not_to_have_the_event() -> None:
    options = cs.Options(hooks={"PreSkillShellCommand": [cs.HookMatcher(hooks=[returning(None)])]})
    found: dict[str, tuple[str, ...]] = {}
    for version in ("2.1.330", "2.1.332"):
        async with cs.open_session(options, transport=FakeCLI(version=version)) as session:
            assert session.server_info is not None
            found[version] = hooks.unsupported_hook_events(
                options.hooks, session.server_info.claude_code_version
            )
    assert found == {"2.1.330": ("PreSkillShellCommand",), "2.1.332": ()}


async def test_an_older_cli_gets_a_warning_at_start(caplog: pytest.LogCaptureFixture) -> None:
    options = cs.Options(hooks={"PreSkillShellCommand": [cs.HookMatcher(hooks=[returning(None)])]})
    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        async with cs.open_session(options, transport=FakeCLI(version="2.1.332")):
            pass
        assert not [r for r in caplog.records if "PreSkillShellCommand" in r.getMessage()]
        async with cs.open_session(options, transport=FakeCLI(version="2.1.330")):
            pass
    (record,) = [r for r in caplog.records if "PreSkillShellCommand" in r.getMessage()]
    assert record.levelno == logging.WARNING
    assert "2.1.330" in record.getMessage()
    assert "2.1.332" in record.getMessage()

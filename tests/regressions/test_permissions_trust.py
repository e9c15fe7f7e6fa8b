"""Issue 15, items 3, 4, 6 and 7: rule options that cannot widen, hook answers that fail
closed, a warning for a path policy that only sees what the CLI asks, and callback failures
that are visible. Async tests run on asyncio and trio (conftest)."""

from __future__ import annotations

import logging
import threading
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.hooks import HookContext, PreToolUseInput
from claude_sdk.policies import Decision, Policy, deny_commands, deny_paths
from claude_sdk.testing import FakeCLI, ScriptedCLI

# --------------------------------------------------------------------------------------
# Item 3: one entry, one rule


@pytest.mark.parametrize(
    "entry",
    [
        "Bash(git status:*),Bash",
        "Bash,Read",
        "Bash Read",
        "Read\tWrite",
        "Bash(git log:*) Bash",
        "Bash(npm test:*),WebFetch",
        " Bash",
        "Bash(x",
        "Bash)x(",
        "mcp__a__b,mcp__c__d",
    ],
)
@pytest.mark.parametrize("option", ["allowed_tools", "disallowed_tools"])
def test_a_rule_entry_the_cli_would_split_is_refused(option: str, entry: str) -> None:
    with pytest.raises(cs.OptionsError) as info:
        cs.Options(**{option: [entry]})  # type: ignore[arg-type]
    assert info.value.option == option
    assert repr(entry) in str(info.value)


@pytest.mark.parametrize(
    "entry",
    ["Bash", "Bash(git status:*)", "Bash(git commit -m x:*)", "Read(/a b/**)", "mcp__srv__tool",
     "WebFetch(domain:example.com)", "Bash(printf a,b)"],
)  # fmt: skip
def test_one_rule_per_entry_is_accepted(entry: str) -> None:
    assert cs.Options(allowed_tools=[entry]).allowed_tools == (entry,)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("betas", ["a,b"]),
        ("betas", ["a b"]),
        ("fallback_model", ["m1,m2"]),
        ("tools", ["Read,Bash"]),
        ("tools", ["Read Bash"]),
    ],
)
def test_a_joined_list_value_with_a_separator_is_refused(option: str, value: list[str]) -> None:
    with pytest.raises(cs.OptionsError) as info:
        cs.Options(**{option: value})  # type: ignore[arg-type]
    assert info.value.option == option


# --------------------------------------------------------------------------------------
# Item 4: hook answers fail closed; wrong hooks fail at Options(...)


async def _pre_tool_use_answer(hook: Any) -> dict[str, Any]:
    """What the session answers a PreToolUse hook_callback with, ``hook`` registered."""
    outcome: dict[str, Any] = {}
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        base = {"session_id": "s", "transcript_path": "/t", "cwd": "/"}
        outcome["answer"] = await cli.hook_callback(
            cli.hook_id("PreToolUse"),
            {
                **base,
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "rm -rf x"},
            },
        )
        done.set()
        await cli.serve_until_stdin_closes()

    options = cs.Options(hooks={"PreToolUse": [cs.HookMatcher(matcher="Bash", hooks=[hook])]})
    async with cs.open_session(options, transport=FakeCLI(script)):
        with anyio.fail_after(10):
            await done.wait()
    answer: dict[str, Any] = outcome["answer"]
    return answer


def _returning(value: Any) -> Any:
    async def hook(hook_input: PreToolUseInput, context: HookContext) -> Any:
        return value

    return hook


@pytest.mark.parametrize(
    "answer",
    [
        {"permission_decision": "allow"},  # our field name, but at the top level
        {"permissionDecision": "allow"},
        {"hookSpecificOutput": {"permissionDecision": "yes"}},
        {"hookSpecificOutput": {"permission_decision": "allow", "colour": "red"}},
        {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "x"}},
        {"hookSpecificOutput": "allow"},
        {"continue": "no"},
        {"decision": "allow"},
        {"specific": {"permission_decision": "allow", "updated_input": "not an object"}},
    ],
    ids=repr,
)
async def test_a_dict_answer_that_does_not_fit_denies(
    answer: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        reply = await _pre_tool_use_answer(_returning(answer))
    specific = reply["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert "hook failed" in specific["permissionDecisionReason"]
    failures = [r for r in caplog.records if "PreToolUse hook" in r.getMessage()]
    assert len(failures) == 1
    assert failures[0].exc_info is not None


@pytest.mark.parametrize(
    ("answer", "decision"),
    [
        ({"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}},
         "deny"),
        ({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}},
         "allow"),
        ({"specific": {"permission_decision": "deny", "permission_decision_reason": "no"}},
         "deny"),
        ({"hookSpecificOutput": {"permission_decision": "ask"}}, "ask"),
        ({"specific": cs.PreToolUseOutput(permission_decision="deny")}, "deny"),
    ],
    ids=repr,
)  # fmt: skip
async def test_a_dict_answer_in_either_form_is_sent_as_typed(
    answer: dict[str, Any], decision: str
) -> None:
    reply = await _pre_tool_use_answer(_returning(answer))
    assert reply["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    assert reply["hookSpecificOutput"]["permissionDecision"] == decision


async def test_a_policy_in_the_hook_list_is_a_hook() -> None:
    reply = await _pre_tool_use_answer(deny_commands("rm -rf"))
    assert reply["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "rm -rf" in reply["hookSpecificOutput"]["permissionDecisionReason"]


def _three(hook_input: Any, tool_use_id: Any, context: Any) -> None:
    return None


def _none() -> None:
    return None


def _two(name: str, tool_input: Any) -> None:
    return None


@pytest.mark.parametrize(
    ("hooks", "says"),
    [
        ({"PreToolUse": [cs.HookMatcher(hooks=[_three])]}, "two arguments"),  # type: ignore[list-item]
        ({"PreToolUse": [cs.HookMatcher(hooks=[_none])]}, "two arguments"),  # type: ignore[list-item]
        ({"PreToolUse": [cs.HookMatcher(hooks=["not callable"])]}, "must be callable"),  # type: ignore[list-item]
        ({"PreToolUse": [cs.HookMatcher(hooks=[None])]}, "must be callable"),  # type: ignore[list-item]
        ({"Stop": [deny_commands("rm -rf")]}, "answers PreToolUse"),
        ({"PreToolUse": ["Bash"]}, "HookMatcher"),
    ],
    # names, not reprs: a repr holds addresses and set orders, which differ between the
    # processes of a pytest-xdist run (whose ids must agree)
    ids=["three-arguments", "no-arguments", "a-string", "none", "a-policy-on-stop", "a-name"],
)
def test_a_wrong_hook_fails_at_options(hooks: dict[str, Any], says: str) -> None:
    with pytest.raises(cs.OptionsError) as info:
        cs.Options(hooks=hooks)
    assert says in str(info.value)


def test_a_policy_or_a_wrong_signature_as_can_use_tool_fails_at_options() -> None:
    with pytest.raises(cs.OptionsError, match="is a policy"):
        cs.Options(can_use_tool=deny_commands("rm -rf"))  # type: ignore[arg-type]
    with pytest.raises(cs.OptionsError, match="cannot be called"):
        cs.Options(can_use_tool=_two)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# Item 6: a path policy only as can_use_tool


def test_a_path_policy_only_as_can_use_tool_warns() -> None:
    policy = deny_paths("/secret")
    with pytest.warns(cs.ClaudeSDKWarning, match="never asks can_use_tool"):
        cs.Options(can_use_tool=policy.as_can_use_tool())


def test_a_path_policy_as_a_hook_too_does_not_warn(recwarn: pytest.WarningsRecorder) -> None:
    policy = deny_paths("/secret")
    cs.Options(can_use_tool=policy.as_can_use_tool(), hooks={"PreToolUse": [policy]})
    assert not [w for w in recwarn if "never asks" in str(w.message)]


# --------------------------------------------------------------------------------------
# Item 7: failures in user callbacks are visible


async def test_a_failing_can_use_tool_is_logged_once_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    replies: list[Any] = []
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        replies.append(await cli.can_use_tool("Bash", {"command": "ls"}))
        replies.append(await cli.can_use_tool("Bash", {"command": "ls"}))
        done.set()
        await cli.serve_until_stdin_closes()

    calls = 0

    async def flaky(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("callback broke")
        return "allow"  # the wrong type

    fake = FakeCLI(script)
    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        async with cs.open_session(cs.Options(can_use_tool=flaky), transport=fake):
            with anyio.fail_after(10):
                await done.wait()
    assert len(replies) == 2
    assert all(isinstance(r, cs.PermissionDeny) for r in replies)
    broke = [r for r in caplog.records if "callback broke" in r.getMessage()]
    assert len(broke) == 1
    assert broke[0].levelno == logging.WARNING
    assert broke[0].exc_info is not None
    wrong = [r for r in caplog.records if "returned str" in r.getMessage()]
    assert len(wrong) == 1


# --------------------------------------------------------------------------------------
# Item 2: paths as the CLI's process sees them


SECRET = "the-secret-value"


def _tree(tmp_path: Any) -> Any:
    """proj/ (the CLI's working directory) with proj/secret/key, a hard link to the key,
    symlinks into /proc, and the SDK process's own working directory elsewhere."""
    import os

    proj = tmp_path / "proj"
    (proj / "secret").mkdir(parents=True)
    (proj / "secret" / "key").write_text(SECRET)
    (proj / "notes.txt").write_text("notes")
    os.link(proj / "secret" / "key", proj / "linked")
    os.symlink("/proc/self/cwd", proj / "self")
    os.symlink("/proc/thread-self/root", proj / "root")
    (tmp_path / "elsewhere").mkdir()
    return proj


_CANDIDATES = [
    "/proc/self/cwd/secret/key",
    "/proc/thread-self/cwd/secret/key",
    "/proc/self/task/{tid}/cwd/secret/key",
    "/proc/self/root{proj}/secret/key",
    "/proc/thread-self/root{proj}/secret/key",
    "self/secret/key",
    "root{proj}/secret/key",
    "./self/../self/secret/key",
    "linked",
    "secret/key",
    "{proj}/secret/./key",
    "notes.txt",
    "/proc/self/cwd/notes.txt",
    "/dev/stdin",
    "/dev/fd/0",
    "/proc/self/fd/0",
    "/proc/{pid}/cwd/secret/key",
]


def _read_as_the_cli(path: str, proj: Any) -> str | None:
    """Read ``path`` from a process whose working directory is ``proj`` (as the CLI's is)."""
    import subprocess
    import sys

    code = "import sys\ntry: print(open(sys.argv[1]).read(), end='')\nexcept OSError: pass"
    done = subprocess.run(
        [sys.executable, "-c", code, path],
        cwd=proj,
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return done.stdout


@pytest.mark.parametrize("template", _CANDIDATES)
def test_a_path_that_reads_the_secret_in_the_clis_process_is_denied(
    template: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import threading

    proj = _tree(tmp_path)
    monkeypatch.chdir(tmp_path / "elsewhere")  # the SDK's own cwd is not the CLI's
    path = template.format(proj=proj, pid=os.getpid(), tid=threading.get_native_id())
    policy = deny_paths(proj / "secret")
    decision = policy.decide("Read", {"file_path": path}, cwd=str(proj))
    seen = _read_as_the_cli(path, proj)  # (a task id of this process means nothing there)
    if seen == SECRET:
        assert decision.kind == "deny", (path, decision)
    if template in ("notes.txt", "/proc/self/cwd/notes.txt"):
        assert decision.kind == "continue", decision
    if template.startswith(("/dev/", "/proc/self/fd", "/proc/{pid}")):
        assert decision.kind == "deny", decision
    if template.startswith("/proc/self/task"):
        assert decision.kind == "deny", decision


# --------------------------------------------------------------------------------------
# callback_timeout holds for policies too


class SlowPolicy(Policy):
    """A policy of the user's own that blocks (a network call, say)."""

    name = "slow"

    def __init__(self) -> None:
        #: Set once the test has its answer: the decision ends only after the timeout did.
        self.released = threading.Event()

    def decide(self, tool_name: str, tool_input: Any, *, cwd: str | None = None) -> Decision:
        self.released.wait(30)
        return Decision.allow("too late")


async def test_a_slow_policy_of_your_own_runs_off_the_loop_and_times_out() -> None:
    replies: list[Any] = []
    done = anyio.Event()
    ticks = 0

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        replies.append(await cli.can_use_tool("Bash", {"command": "ls"}))
        done.set()
        await cli.serve_until_stdin_closes()

    async def ticker() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await anyio.sleep(0.01)

    policy = SlowPolicy()
    options = cs.Options(can_use_tool=policy.as_can_use_tool(), callback_timeout=0.3)
    try:
        async with (
            cs.open_session(options, transport=FakeCLI(script)),
            anyio.create_task_group() as tg,
        ):
            tg.start_soon(ticker)
            # the policy blocks until released: only the timeout can answer (ordering, not a
            # measure; the fail_after guards against a hang)
            with anyio.fail_after(20):
                await done.wait()
    finally:
        policy.released.set()
    assert isinstance(replies[0], cs.PermissionDeny)
    assert "TimeoutError" in replies[0].message
    assert ticks > 5  # the event loop went on while the policy ran


# --------------------------------------------------------------------------------------
# Item 5: reprs


def test_reprs_show_no_secret_values() -> None:
    from claude_sdk._protocol.launch import build_launch_spec

    secrets = ["env-value-1", "header-value-2", "server-env-3", "settings-env-4", "managed-5"]
    options = cs.Options(
        env={"OPENAI_KEY": secrets[0]},
        mcp_servers={
            "h": cs.McpHttpServer(url="http://x", headers={"Authorization": secrets[1]}),
            "s": cs.McpStdioServer(command="srv", env={"TOKEN": secrets[2]}),
            "d": {"type": "stdio", "command": "srv", "env": {"T": secrets[2]}},
        },
        settings={"env": {"S": secrets[3]}, "model": "kept"},
        managed_settings={"env": {"M": secrets[4]}},
    )
    spec = build_launch_spec(options)
    for text in (repr(options), repr(spec), " ".join(spec.argv)):
        assert not [s for s in secrets if s in text], text
    assert "OPENAI_KEY" in repr(options)
    assert "'model': 'kept'" in repr(options)

"""Policy dry run: ``python -m claude_sdk.testing policy-check`` and `check_policy`.

The command runs for real (a subprocess, from the repository root) over the committed
cassettes, with the policies of ``tests/support/dry_run_policies.py``. The classification of
recorded calls is checked on real CLI traffic: the e2e recordings of every CLI version in
``tests/data/e2e/`` and the reference transcripts. Nothing here is async.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claude_sdk.policies import Decision, Policy, PolicyHook, deny_paths
from claude_sdk.testing import (
    CallVerdict,
    CassetteFormatError,
    RecordedCall,
    check_policy,
    load_policy,
    read_calls,
)
from claude_sdk.testing.__main__ import main as run_main

from ..support import dry_run_policies

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
CASSETTES = sorted((DATA / "cassettes").glob("*.jsonl"))
COMMITTED = DATA / "cassettes" / "permission_and_hook.jsonl"
E2E_VERSIONS = sorted(p.name for p in (DATA / "e2e").iterdir() if p.is_dir())
TRANSCRIPTS = DATA / "transcripts"
POLICIES = "tests.support.dry_run_policies"


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "claude_sdk.testing", "policy-check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )


def _line_of(path: Path, needle: str) -> int:
    """The 1-based line of the assistant frame whose tool_use holds ``needle``."""
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if '"type": "tool_use"' in text and needle in text and '"type": "assistant"' in text:
            return number
    raise AssertionError(f"no tool_use with {needle!r} in {path}")


def _e2e(version: str, name: str) -> Path:
    path = DATA / "e2e" / version / f"{name}.jsonl"
    if not path.exists():
        pytest.skip(f"CLI {version} has no recording {name}")
    return path


def _verdicts(path: Path) -> list[tuple[str, str, str, str]]:
    return [
        (c.tool_name, c.recorded.kind, c.recorded.source, c.recorded.reason)
        for c in read_calls(path)
    ]


# ---------------------------------------------------------------------------------------
# The command over the committed cassettes


def test_a_policy_that_reproduces_every_decision_exits_0() -> None:
    done = _run(f"{POLICIES}:REPRODUCES", *map(str, CASSETTES))
    assert done.returncode == 0, done.stderr
    rm, touch = done.stdout.splitlines()
    assert rm.startswith(f"{COMMITTED}:{_line_of(COMMITTED, 'rm -rf build')}: Bash ")
    assert 'Bash "rm -rf build": recorded deny (hook: destructive); policy deny (' in rm
    assert 'Bash "touch marker.txt": recorded allow (can_use_tool); policy allow (' in touch
    assert "[DIFFERS]" not in done.stdout
    assert "2 calls in 1 file: 0 differ, 2 match, 0 undecided, 0 unknown" in done.stderr


def test_a_factory_is_called_for_its_policy() -> None:
    done = _run(f"{POLICIES}:make_policy", str(COMMITTED))
    assert done.returncode == 0, done.stderr
    assert "0 differ, 2 match" in done.stderr


def test_a_policy_that_changes_one_decision_prints_it_and_exits_1() -> None:
    done = _run(f"{POLICIES}:DENIES_TOUCH", *map(str, CASSETTES))
    assert done.returncode == 1, done.stderr
    differing = [line for line in done.stdout.splitlines() if line.endswith("[DIFFERS]")]
    assert differing == [
        f'{COMMITTED}:{_line_of(COMMITTED, "touch marker.txt")}: Bash "touch marker.txt": '
        "recorded allow (can_use_tool); policy deny (deny_commands('rm -rf', 'touch'): the "
        "command 'touch marker.txt' matches the denied pattern 'touch')  [DIFFERS]"
    ]
    assert "2 calls in 1 file: 1 differ, 1 match" in done.stderr


def test_a_policy_that_raises_fails_closed_per_call() -> None:
    done = _run(f"{POLICIES}:BROKEN", str(COMMITTED))
    assert done.returncode == 1, done.stderr
    rm, touch = done.stdout.splitlines()
    assert rm.endswith("policy deny (broken: no)")
    assert touch.endswith("policy error, so deny (RuntimeError: boom)  [DIFFERS]")
    assert "Traceback" not in done.stderr


def test_continue_is_undecided_unless_a_default_decides_it() -> None:
    done = _run(f"{POLICIES}:NO_OPINION", str(COMMITTED))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("policy continue (no opinion; deny_commands(") == 2
    assert "0 differ, 0 match, 2 undecided" in done.stderr

    allow = _run(f"{POLICIES}:NO_OPINION", str(COMMITTED), "--default", "allow")
    assert allow.returncode == 1
    [differs] = [line for line in allow.stdout.splitlines() if "[DIFFERS]" in line]
    assert '"rm -rf build"' in differs
    assert "policy allow by default, continue (no opinion" in differs

    deny = _run(f"{POLICIES}:NO_OPINION", str(COMMITTED), "--default", "deny")
    assert deny.returncode == 1
    [differs] = [line for line in deny.stdout.splitlines() if "[DIFFERS]" in line]
    assert '"touch marker.txt"' in differs


def test_a_can_use_tool_adapter_applies_its_own_default() -> None:
    """``as_can_use_tool()`` denies what its policy does not decide: ``touch`` differs."""
    done = _run(f"{POLICIES}:AS_CAN_USE_TOOL", str(COMMITTED))
    assert done.returncode == 1
    [differs] = [line for line in done.stdout.splitlines() if "[DIFFERS]" in line]
    assert '"touch marker.txt"' in differs
    assert "policy deny by default" in differs
    assert _run(f"{POLICIES}:AS_CAN_USE_TOOL", str(COMMITTED), "--default", "allow").returncode == 0


def test_cwd_is_what_the_recorded_cwd_stands_for(tmp_path: Path) -> None:
    """``<cwd>`` is the current directory unless ``--cwd`` says otherwise."""
    reads = [
        str(_e2e(E2E_VERSIONS[-1], f"test_a_policy_hook_stops_what_the_model_asks_for_Read_{n}"))
        for n in ("-file_path-secret-key-11d84528bf", "-file_path-proc-self-cwd-s-33277b7feb")
    ]
    here = _run(f"{POLICIES}:DENIES_SECRET", *reads)
    assert here.returncode == 0, here.stdout + here.stderr
    assert "2 calls in 2 files: 0 differ, 2 match" in here.stderr
    elsewhere = _run(f"{POLICIES}:DENIES_SECRET", *reads, "--cwd", str(tmp_path))
    assert elsewhere.returncode == 0
    assert "0 differ, 0 match, 2 undecided" in elsewhere.stderr
    allowed = _run(
        f"{POLICIES}:DENIES_SECRET", *reads, "--cwd", str(tmp_path), "--default", "allow"
    )
    assert allowed.returncode == 1
    assert allowed.stdout.count("[DIFFERS]") == 2


def test_json_prints_one_object_per_call() -> None:
    done = _run(f"{POLICIES}:DENIES_TOUCH", str(COMMITTED), "--json")
    assert done.returncode == 1
    rm, touch = (json.loads(line) for line in done.stdout.splitlines())
    assert rm["tool_name"] == "Bash"
    assert rm["input"]["command"] == "rm -rf build"
    assert rm["recorded"] == {"verdict": "deny", "source": "hook", "reason": "destructive"}
    assert rm["outcome"] == "match"
    assert touch["line"] == _line_of(COMMITTED, "touch marker.txt")
    assert touch["recorded"]["verdict"] == "allow"
    assert touch["policy"]["verdict"] == "deny"
    assert touch["policy"]["name"] == "deny_commands('rm -rf', 'touch')"
    assert touch["policy"]["error"] is None
    assert touch["outcome"] == "differ"


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ("no_such_module:POLICY", "cannot import 'no_such_module': ModuleNotFoundError"),
        (f"{POLICIES}:MISSING", f"'{POLICIES}' has no 'MISSING'"),
        (f"{POLICIES}:NOT_A_POLICY", f"{POLICIES}:NOT_A_POLICY is a str, not a Policy"),
        (f"{POLICIES}:can_use_tool", "needs arguments: give a Policy, or a factory"),
        ("claude_sdk.policies:deny_commands", "deny_commands() failed: ValueError"),
        ("no-colon", "the policy must be given as MODULE:NAME"),
    ],
)
def test_a_policy_that_cannot_be_loaded_exits_2_with_one_line(policy: str, message: str) -> None:
    done = _run(policy, str(COMMITTED))
    assert done.returncode == 2
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("policy-check: ")
    assert message in line


def test_unreadable_input_exits_2_and_the_rest_is_still_checked(tmp_path: Path) -> None:
    bad_json = tmp_path / "bad.jsonl"
    bad_json.write_text('{"dir": "cli>sdk", "msg": {}}\n{not json\n', encoding="utf-8")
    array = tmp_path / "array.jsonl"
    array.write_text("[1, 2]\n", encoding="utf-8")
    bad_msg = tmp_path / "msg.jsonl"
    bad_msg.write_text('{"dir": "cli>sdk", "msg": "text"}\n', encoding="utf-8")
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"x": "\xe9"}\n')
    missing = tmp_path / "missing.jsonl"
    inputs = [bad_json, array, bad_msg, latin, missing, tmp_path]
    done = _run(f"{POLICIES}:REPRODUCES", *map(str, inputs), str(COMMITTED))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if "cannot read" in line]
    assert [line.split(": cannot read")[0] for line in errors] == [
        f"policy-check: {path}" for path in inputs
    ]
    assert f"{bad_json}:2: not JSON" in errors[0]
    assert "not a JSON object" in errors[1]
    assert "'msg' is not a JSON object" in errors[2]
    assert "No such file or directory" in errors[4]
    assert len(done.stdout.splitlines()) == 2  # the committed cassette's calls
    assert "2 calls in 1 file" in done.stderr


def test_usage_errors_exit_2() -> None:
    assert _run(f"{POLICIES}:REPRODUCES").returncode == 2  # no file
    assert _run(f"{POLICIES}:REPRODUCES", str(COMMITTED), "--default", "maybe").returncode == 2


def test_main_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(["policy-check", f"{POLICIES}:REPRODUCES", str(COMMITTED)]) == 0
    assert run_main(["policy-check", f"{POLICIES}:DENIES_TOUCH", str(COMMITTED)]) == 1
    out = capsys.readouterr().out
    assert out.count("[DIFFERS]") == 1


# ---------------------------------------------------------------------------------------
# What the recordings say happened (real CLI traffic)


@pytest.mark.parametrize("version", E2E_VERSIONS)
def test_a_hook_deny(version: str) -> None:
    path = _e2e(version, "test_a_pre_tool_use_hook_that_denies")
    [call] = read_calls(path)
    assert (call.tool_name, call.tool_input) == ("Bash", {"command": "rm -rf build"})
    assert (call.recorded.kind, call.recorded.source) == ("deny", "hook")
    assert call.recorded.reason == "destructive"
    assert call.recorded.meta is not None
    assert call.recorded.meta["non_execution_kind"] == "permission-rule"
    assert call.cwd == "<cwd>"
    assert call.line == _line_of(path, "rm -rf build")


@pytest.mark.parametrize("version", E2E_VERSIONS)
def test_a_failing_hook_denies(version: str) -> None:
    path = _e2e(version, "test_a_dict_hook_answer_with_a_bad_key_denies")
    [(tool, kind, source, reason)] = _verdicts(path)
    assert (tool, kind, source) == ("Bash", "deny", "hook")
    assert reason.startswith("hook failed: TypeError")


@pytest.mark.parametrize("version", E2E_VERSIONS)
def test_can_use_tool_deny_and_allow(version: str) -> None:
    denied = _e2e(version, "test_can_use_tool_on_a_bash_write_False")
    assert _verdicts(denied) == [("Bash", "deny", "can_use_tool", "Denied by the test")]
    allowed = _e2e(version, "test_can_use_tool_on_a_bash_write_True")
    assert _verdicts(allowed) == [("Bash", "allow", "can_use_tool", "")]
    rewritten = _e2e(version, "test_can_use_tool_rewrites_a_bash_command")
    assert _verdicts(rewritten) == [("Bash", "allow", "can_use_tool", "input rewritten")]


@pytest.mark.parametrize("version", E2E_VERSIONS)
def test_a_hook_deny_then_a_rule_allow(version: str) -> None:
    path = _e2e(version, "test_a_policy_chain_blocks_rm_rf_and_lets_ls_run")
    rm, ls = read_calls(path)
    assert (rm.recorded.kind, rm.recorded.source) == ("deny", "hook")
    assert "matches the denied pattern 'rm -rf'" in rm.recorded.reason
    assert (ls.tool_input, ls.recorded.kind, ls.recorded.source) == (
        {"command": "ls build"},
        "allow",
        "cli",
    )
    assert ls.recorded.reason == "subcommandResults"
    assert rm.line < ls.line


@pytest.mark.parametrize("version", E2E_VERSIONS)
def test_rule_and_mode_allows_and_a_call_that_never_reached_permissions(version: str) -> None:
    path = _e2e(version, "test_a_tool_added_between_turns_reaches_the_next_request")
    first, second = read_calls(path)
    assert (first.tool_name, first.recorded.kind, first.recorded.source) == (
        "mcp__calc__mul",
        "allow",
        "cli",
    )
    assert first.recorded.reason == "rule"
    assert second.recorded.kind == "unknown"  # "No such tool": no permission verdict
    assert "No such tool available" in second.recorded.reason
    mode = _e2e(version, "test_seed_read_state_lets_a_notebook_edit_through_without_a_read_1")
    assert _verdicts(mode) == [("NotebookEdit", "allow", "cli", "mode")]


@pytest.mark.parametrize("version", E2E_VERSIONS)
def test_an_interrupt_leaves_the_verdict_unknown(version: str) -> None:
    pending = _e2e(version, "test_interrupt_while_a_permission_request_is_pending")
    [(tool, kind, source, reason)] = _verdicts(pending)
    assert (tool, kind, source) == ("Bash", "unknown", "")
    assert "interrupted" in reason
    running = _e2e(version, "test_an_interrupt_cancels_a_running_tool_and_says_so")
    assert [v[1] for v in _verdicts(running)] == ["unknown"]


@pytest.mark.parametrize("version", E2E_VERSIONS)
def test_a_subagent_s_calls_are_calls(version: str) -> None:
    path = _e2e(version, "test_a_subagent_scenario")
    assert [(tool, kind, source) for tool, kind, source, _ in _verdicts(path)] == [
        ("Agent", "allow", "cli"),
        ("Bash", "allow", "cli"),
    ]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("b2_can_use_tool_deny", ("Bash", "deny", "can_use_tool", "Denied by the test SDK")),
        ("b5_can_use_tool_error", ("Bash", "deny", "can_use_tool", "error: callback exploded")),
        ("c_hooks", ("Bash", "allow", "hook", "approved by SDK hook")),
        ("c2_hook_blocks", ("Bash", "deny", "hook", "blocked by SDK hook")),
        ("h_thinking_multiblock", ("Bash", "allow", "cli", "subcommandResults")),
    ],
)
def test_the_reference_transcripts(name: str, expected: tuple[str, str, str, str]) -> None:
    assert _verdicts(TRANSCRIPTS / f"{name}.jsonl") == [expected]


def test_a_cli_deny_without_a_permission_tool() -> None:
    [call] = read_calls(TRANSCRIPTS / "b4_no_permission_tool.jsonl")
    assert (call.recorded.kind, call.recorded.source) == ("deny", "cli")
    assert call.recorded.reason.startswith("touch in '<cwd>/marker.txt' needs approval")


ALL_RECORDINGS = sorted(
    [*CASSETTES, *(DATA / "e2e").glob("*/*.jsonl"), *TRANSCRIPTS.glob("*.jsonl")]
)


def test_every_committed_recording_reads_and_no_verdict_is_guessed() -> None:
    """The CLI's own record decides when there is one; a call with no result is unknown."""
    total = 0
    for path in ALL_RECORDINGS:
        results: set[str] = set()
        for text in path.read_text(encoding="utf-8").splitlines():
            if '"tool_result"' in text:
                results.update(
                    c["tool_use_id"]
                    for c in json.loads(text).get("msg", {}).get("message", {}).get("content", [])
                    if isinstance(c, dict) and c.get("type") == "tool_result"
                )
        for call in read_calls(path):
            total += 1
            meta = call.recorded.meta or {}
            record = meta.get("permission_decision")
            if isinstance(record, dict):
                expected = {"accept": "allow", "reject": "deny"}[record["decision"]]
                assert call.recorded.kind == expected, (path, call)
            if call.tool_use_id not in results:
                assert call.recorded.kind == "unknown", (path, call)
    assert total > 50


# ---------------------------------------------------------------------------------------
# The library


def test_a_truncated_recording_is_unknown_and_never_a_difference(tmp_path: Path) -> None:
    cut = _line_of(COMMITTED, "touch marker.txt")
    lines = COMMITTED.read_text(encoding="utf-8").splitlines(keepends=True)
    truncated = tmp_path / "truncated.jsonl"
    truncated.write_text("".join(lines[:cut]), encoding="utf-8")
    rm, touch = check_policy(dry_run_policies.DENIES_TOUCH, [truncated])
    assert rm.outcome == "match"
    assert touch.call.recorded.kind == "unknown"
    assert touch.call.recorded.reason == "no tool result: the recording ends first"
    assert touch.verdict == "deny"
    assert (touch.outcome, touch.differs) == ("unknown", False)


def test_plain_frames_and_many_connections_read_alike(tmp_path: Path) -> None:
    text = COMMITTED.read_text(encoding="utf-8")
    frames = tmp_path / "frames.jsonl"
    with frames.open("w", encoding="utf-8") as f:
        for line in text.splitlines():
            obj = json.loads(line)
            if "msg" in obj:
                f.write(json.dumps(obj["msg"]) + "\n")
    expected = _verdicts(COMMITTED)
    assert _verdicts(frames) == expected
    twice = tmp_path / "twice.jsonl"
    twice.write_text(text + text, encoding="utf-8")
    calls = read_calls(twice)
    pairs = [(tool, kind) for tool, kind, _, _ in expected]
    assert [(c.tool_name, c.recorded.kind) for c in calls] == pairs * 2
    offset = len(text.splitlines())
    assert [c.line for c in calls[2:]] == [c.line + offset for c in calls[:2]]


def test_read_calls_raises_the_format_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n[]\n", encoding="utf-8")
    with pytest.raises(CassetteFormatError) as caught:
        read_calls(bad)
    assert caught.value.line == 2


class _Recorder(Policy):
    """A policy that notes what it is asked, and has no opinion."""

    name = "recorder"

    def __init__(self) -> None:
        self.asked: list[tuple[str, dict[str, Any], str | None]] = []

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        self.asked.append((tool_name, dict(tool_input), cwd))
        return Decision.continue_(policy=self.name)


def test_placeholders_are_replaced_before_the_policy_sees_the_call(tmp_path: Path) -> None:
    recorder = _Recorder()
    write = _e2e(E2E_VERSIONS[-1], "test_a_rewind_scenario")
    verdicts = check_policy(recorder, [COMMITTED, write], cwd=tmp_path)
    assert [v.outcome for v in verdicts] == ["undecided"] * 3
    assert [cwd for _, _, cwd in recorder.asked] == [str(tmp_path)] * 3
    tool, tool_input, _ = recorder.asked[2]
    assert (tool, tool_input["file_path"]) == ("Write", f"{tmp_path}/made.txt")
    assert verdicts[2].call.tool_input["file_path"] == "<cwd>/made.txt"  # as recorded

    recorder.asked.clear()
    check_policy(recorder, [COMMITTED])
    assert [cwd for _, _, cwd in recorder.asked] == [os.getcwd()] * 2


@pytest.mark.parametrize(
    "name",
    [
        "test_a_policy_hook_stops_what_the_model_asks_for_Read_-file_path-secret-key-11d84528bf",
        "test_a_policy_hook_stops_what_the_model_asks_for_Read_-file_path-proc-self-cwd-s-33277b7feb",
    ],
)
def test_a_path_policy_resolves_against_the_recorded_cwd(name: str, tmp_path: Path) -> None:
    """``deny_paths("secret")`` in the recorded session's directory denies as it did."""
    path = _e2e(E2E_VERSIONS[-1], name)
    policy = deny_paths("secret", cwd=tmp_path)
    [verdict] = check_policy(policy, [path], cwd=tmp_path)
    assert (verdict.call.recorded.kind, verdict.verdict, verdict.outcome) == (
        "deny",
        "deny",
        "match",
    )
    elsewhere = tmp_path / "elsewhere"
    [moved] = check_policy(policy, [path], cwd=elsewhere, default="allow")
    assert moved.outcome == "differ"


def test_adapters_are_checked_as_their_policy() -> None:
    policy = dry_run_policies.REPRODUCES
    direct = check_policy(policy, [COMMITTED])
    assert [v.outcome for v in direct] == ["match", "match"]
    assert [v.outcome for v in check_policy(PolicyHook(policy), [COMMITTED])] == [
        "match",
        "match",
    ]
    lenient = dry_run_policies.NO_OPINION.as_can_use_tool(default="allow")
    assert [v.outcome for v in check_policy(lenient, [COMMITTED])] == ["differ", "match"]
    with pytest.raises(TypeError):
        check_policy("rm -rf", [COMMITTED])  # type: ignore[arg-type]


class _Sloppy(Policy):
    name = "sloppy"

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        return "allow"  # type: ignore[return-value]


def test_a_decide_that_returns_no_decision_is_an_error() -> None:
    rm, touch = check_policy(_Sloppy(), [COMMITTED])
    assert rm.decision is None
    assert rm.error == "decide() returned 'allow', not a Decision"
    assert (rm.verdict, rm.outcome, touch.outcome) == ("deny", "match", "differ")
    assert str(touch).endswith("[DIFFERS]")


def test_load_policy_from_a_file(tmp_path: Path) -> None:
    module = tmp_path / "my_policy.py"
    module.write_text(
        "from claude_sdk.policies import deny_commands\nPOLICY = deny_commands('rm -rf')\n",
        encoding="utf-8",
    )
    policy = load_policy(f"{module}:POLICY")
    assert isinstance(policy, Policy)
    assert policy.name == "deny_commands('rm -rf')"
    with pytest.raises(ValueError, match="has no 'OTHER'"):
        load_policy(f"{module}:OTHER")


def test_a_verdict_and_its_call_are_values() -> None:
    [rm, _] = check_policy(dry_run_policies.REPRODUCES, [COMMITTED])
    assert isinstance(rm, CallVerdict)
    assert isinstance(rm.call, RecordedCall)
    assert rm.call.summary == '"rm -rf build"'
    assert rm == check_policy(dry_run_policies.REPRODUCES, [COMMITTED])[0]


# ---------------------------------------------------------------------------------------
# Issue 27, item 9: hostile recordings


class Echo(Policy):
    """Denies with the input in its reason; raises with it for the tool ``Boom``."""

    name = "echo"

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        if tool_name == "Boom":
            raise ValueError(f"cannot read {tool_input!r} in {cwd}")
        return Decision.deny(f"{tool_name} {tool_input} in {cwd}", policy=f"echo {tool_name}")


ECHO = Echo()
ECHO_REF = f"{__name__}:ECHO"


def _deep(depth: int) -> str:
    return '{"a":' * (depth - 1) + "{}" + "}" * (depth - 1)


@pytest.mark.parametrize("depth", [501, 1000, 100_000])
@pytest.mark.parametrize("where", ["line", "msg", "tool input"])
def test_a_recording_nested_too_deep_is_unreadable(tmp_path: Path, depth: int, where: str) -> None:
    """Exit 2 (not 1, "calls differ", nor a traceback), one line naming the file and line;
    the other files are still checked."""
    nested = _deep(depth)
    line = {
        "line": nested,
        "msg": f'{{"dir": "cli>sdk", "msg": {nested}}}',
        "tool input": (
            '{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t1", '
            f'"name": "Bash", "input": {{"command": "ls", "x": {nested}}}}}]}}}}'
        ),
    }[where]
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"type": "keep_alive"}\n' + line + "\n", encoding="utf-8")
    done = _run(f"{POLICIES}:REPRODUCES", str(deep), str(COMMITTED))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    [error, summary] = done.stderr.splitlines()
    assert error.startswith(f"policy-check: {deep}: cannot read: ")
    assert f"{deep}:2: " in error
    assert "nested deeper than 500 levels" in error
    assert "2 calls in 1 file" in summary
    assert len(done.stdout.splitlines()) == 2  # the committed cassette's calls


def test_nesting_within_the_limit_is_read_and_decided(tmp_path: Path) -> None:
    path = tmp_path / "nested.jsonl"
    frame = {
        "type": "assistant",
        "message": {"content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
    }
    tool_input: dict[str, Any] = {"command": "rm -rf /"}
    inner = tool_input
    for _ in range(490):
        inner["x"] = {}
        inner = inner["x"]
    frame["message"]["content"][0]["input"] = tool_input  # type: ignore[index]
    path.write_text(json.dumps(frame) + "\n", encoding="utf-8")
    [verdict] = check_policy(dry_run_policies.REPRODUCES, [path])
    assert verdict.verdict == "deny"
    done = _run(f"{POLICIES}:REPRODUCES", str(path), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["policy"]["verdict"] == "deny"


#: Terminal control sequences and other text a terminal must never get raw.
HOSTILE = [
    "\x1b[2J\x1b[H",  # ESC CSI: clear the screen
    "\x1b]0;pwned\x07",  # OSC: set the title, ended by BEL
    "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x9b31m",  # C1 CSI
    "\x9d0;t\x9c",  # C1 OSC and ST
    "\x07\x08\x7f\x00",  # BEL, BS, DEL, NUL
    "a\rb",  # carriage return
    "x\ny",  # a newline inside a field
    "\u202eevil\u202c",  # right-to-left override
    "\u2028\u2029\x85",  # line and paragraph separators, NEL
    "\ud800",  # a lone surrogate (JSON can hold one)
]

hostile_text = st.lists(
    st.one_of(st.sampled_from(HOSTILE), st.text(max_size=4)), min_size=1, max_size=4
).map("".join)


def _recording(texts: list[str]) -> str:
    """A recording whose every printed field holds hostile text: the tool name and input,
    a hook's reason, a can_use_tool message, the CLI's denial, a tool result, an error."""
    a, b, c, d = texts

    def use(tool_use_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        block = {"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input}
        return {"type": "assistant", "message": {"content": [block]}}

    def request(rid: str, body: dict[str, Any]) -> dict[str, Any]:
        return {"type": "control_request", "request_id": rid, "request": body}

    def response(rid: str, body: dict[str, Any], error: str | None = None) -> dict[str, Any]:
        inner: dict[str, Any] = {"subtype": "success", "request_id": rid, "response": body}
        if error is not None:
            inner = {"subtype": "error", "request_id": rid, "error": error}
        return {"type": "control_response", "response": inner}

    hook_input = {"hook_event_name": "PreToolUse", "tool_use_id": "t1", "cwd": f"/w/{d}"}
    frames = [
        {"type": "system", "subtype": "init", "cwd": f"/w/{c}"},
        use("t1", f"Bash{a}", {"command": f"rm -rf {b}"}),
        request("r1", {"subtype": "hook_callback", "callback_id": "h", "input": hook_input}),
        response(
            "r1",
            {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": c}},
        ),
        use("t2", "Read", {"file_path": f"/etc/{a}"}),
        request("r2", {"subtype": "can_use_tool", "tool_name": "Read", "tool_use_id": "t2"}),
        response("r2", {"behavior": "deny", "message": b}),
        use("t3", "Boom", {"pattern": d}),
        {"type": "system", "subtype": "permission_denied", "tool_use_id": "t3", "message": c},
        use("t4", "Write", {"file_path": f"/x/{d}", "content": a}),
        {
            "type": "user",
            "message": {
                "content": [
                    {"type": "tool_result", "tool_use_id": "t4", "is_error": True, "content": b}
                ]
            },
        },
        use("t5", d or "T", {"url": c}),
        request("r5", {"subtype": "can_use_tool", "tool_name": d, "tool_use_id": "t5"}),
        response("r5", {}, error=a),
    ]
    return "".join(json.dumps(f) + "\n" for f in frames)  # ASCII: lone surrogates escaped


def _raw_controls(text: str) -> list[str]:
    """The characters of ``text`` that are not printable, except the newline (``repr``'s
    rule: control and format characters, separators, surrogates, unassigned code points)."""
    return sorted({ch for ch in text if ch != "\n" and not ch.isprintable()})


@settings(max_examples=40, deadline=None)
@given(st.lists(hostile_text, min_size=4, max_size=4), st.booleans())
def test_recorded_text_is_printed_with_control_characters_escaped(
    texts: list[str], as_json: bool
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        name = f"rec{texts[0][:20]}.jsonl".replace("/", "_").replace("\x00", "_")
        try:
            path = Path(directory) / name
            path.write_text(_recording(texts), encoding="utf-8")
        except (OSError, UnicodeEncodeError):  # a name the file system refuses
            path = Path(directory) / "rec.jsonl"
            path.write_text(_recording(texts), encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        args = ["policy-check", ECHO_REF, str(path), str(path) + "\x1b[31m-missing"]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = run_main([*args, "--json"] if as_json else args)
    assert status == 2  # the missing file
    assert _raw_controls(out.getvalue()) == []
    assert _raw_controls(err.getvalue()) == []
    lines = out.getvalue().splitlines()
    assert len(lines) == 5  # one line per call, whatever the fields hold
    if as_json:
        calls = [json.loads(line) for line in lines]
        assert calls[0]["tool_name"] == f"Bash{texts[0]}"  # the data, unchanged
        assert calls[1]["recorded"]["reason"] == texts[1]


def test_control_characters_are_escaped_by_the_command(tmp_path: Path) -> None:
    path = tmp_path / "hostile.jsonl"
    path.write_text(_recording(["\x1b]0;pwned\x07", "\x9b2J", "\x1b[2J", "\u202e"]), "utf-8")
    done = _run(ECHO_REF, str(path))
    assert done.returncode == 0  # Echo denies what was denied
    assert _raw_controls(done.stdout + done.stderr) == []
    assert "\\x1b]0;pwned\\x07" in done.stdout
    assert "\\x9b2J" in done.stdout
    assert "\\u202e" in done.stdout


def test_huge_fields_print_as_short_lines(tmp_path: Path) -> None:
    big = "A" * 2_000_000
    path = tmp_path / "huge.jsonl"
    path.write_text(_recording([big, big, big, big]), encoding="utf-8")
    done = _run(ECHO_REF, str(path))
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) == 5
    assert max(len(line) for line in lines) < 2000
    as_json = _run(ECHO_REF, str(path), "--json")
    assert json.loads(as_json.stdout.splitlines()[1])["recorded"]["reason"] == big

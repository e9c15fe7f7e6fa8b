"""Cassettes: recording the wire, replaying it strictly or leniently, and the drift command.

The committed cassette ``tests/data/cassettes/permission_and_hook.jsonl`` is a real CLI
2.1.330 session (recorded by ``tests/e2e/test_cassette_e2e.py``, offline); replaying it here
checks replay in every run, without the CLI. The other cassettes are recorded from `FakeCLI`
scripts within the tests. Every async test runs on asyncio and Trio; the few timeouts are
fractions of a second.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest

import claude_sdk as cs
from claude_sdk._protocol.launch import LaunchSpec
from claude_sdk.hooks import HookContext, PreToolUseInput, PreToolUseOutput
from claude_sdk.testing import (
    Cassette,
    CassetteExhaustedError,
    CassetteFormatError,
    CassetteMismatchError,
    FakeCLI,
    FakeMessagesAPI,
    RecordingTransport,
    ReplayTransport,
    ScriptedCLI,
    Scrubber,
    ToolCall,
    check_drift,
)
from claude_sdk.testing.__main__ import main as run_main
from claude_sdk.testing.cassette import TOKEN_PATTERNS, machine_replacements
from claude_sdk.transports.base import Transport

DATA = Path(__file__).resolve().parents[1] / "data"
CASSETTES = DATA / "cassettes"
COMMITTED = CASSETTES / "permission_and_hook.jsonl"
ROOT = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------------------------------
# The scenario of the committed cassette (shared with tests/e2e/test_cassette_e2e.py)

PROMPT = "Clean the build directory, then leave a marker file."
RM = {"command": "rm -rf build", "description": "Delete build"}
TOUCH = {"command": "touch marker.txt", "description": "Leave a marker"}
FINAL = "I kept the build directory and left a marker."


def script_api(api: FakeMessagesAPI) -> None:
    """What the model does: a destructive Bash call, a harmless one, then the answer."""
    api.reply(tool_use=("Bash", RM))
    api.reply(tool_use=("Bash", TOUCH))
    api.reply(text=FINAL)


@attrs.define
class Seen:
    """The code under test's callbacks, and what they saw.

    The PreToolUse hook denies ``rm -rf``; ``can_use_tool`` allows the rest. The flags make
    them answer differently (for the mismatch tests).
    """

    hooks: list[str] = attrs.field(factory=list)
    permissions: list[tuple[str, dict[str, Any]]] = attrs.field(factory=list)
    deny_everything: bool = attrs.field(default=False, eq=False)
    hook_reason: str = attrs.field(default="destructive", eq=False)

    @classmethod
    def expected(cls) -> Seen:
        return cls(hooks=[RM["command"], TOUCH["command"]], permissions=[("Bash", TOUCH)])

    def callbacks(self) -> dict[str, Any]:
        async def guard(
            tool_name: str, tool_input: dict[str, Any], context: cs.ToolPermissionContext
        ) -> cs.PermissionResult:
            self.permissions.append((tool_name, dict(tool_input)))
            if self.deny_everything:
                return cs.PermissionDeny(message="not today")
            return cs.PermissionAllow()

        async def no_rm(hook_input: PreToolUseInput, context: HookContext) -> cs.HookOutput:
            command = str(hook_input.tool_input.get("command", ""))
            self.hooks.append(command)
            if "rm -rf" in command:
                return cs.HookOutput(
                    specific=PreToolUseOutput(
                        permission_decision="deny", permission_decision_reason=self.hook_reason
                    )
                )
            return cs.HookOutput()

        return {
            "can_use_tool": guard,
            "hooks": {"PreToolUse": [cs.HookMatcher(matcher="Bash", hooks=[no_rm])]},
        }


@attrs.frozen
class Outcome:
    """What the code under test got from the session."""

    texts: tuple[str, ...]
    result: str | None
    is_error: bool
    tool_errors: tuple[bool | None, ...]
    mode_receipt: Any
    returncode: int | None


async def run_scenario(options: cs.Options, transport: Transport) -> Outcome:
    """The code under test: one turn, then a permission mode change."""
    async with cs.open_session(options, transport=transport) as session:
        await session.send(PROMPT)
        messages = [m async for m in session.receive_response()]
        receipt = await session.set_permission_mode("acceptEdits")
    result = messages[-1]
    assert isinstance(result, cs.ResultMessage)
    tool_results = [
        block
        for m in messages
        if isinstance(m, cs.UserMessage) and isinstance(m.content, list)
        for block in m.content
        if isinstance(block, cs.ToolResultBlock)
    ]
    return Outcome(
        texts=tuple(m.text for m in messages if isinstance(m, cs.AssistantMessage) and m.text),
        result=result.result,
        is_error=result.is_error,
        tool_errors=tuple(b.is_error for b in tool_results),
        mode_receipt=cs.wire.to_dict(receipt),
        returncode=session.returncode,
    )


# ---------------------------------------------------------------------------------------
# Replaying the committed real-CLI cassette


async def test_the_committed_cassette_replays_strictly_with_the_callbacks_checked() -> None:
    seen = Seen()
    replay = ReplayTransport(COMMITTED)
    outcome = await run_scenario(cs.Options(**seen.callbacks()), replay)
    assert seen == Seen.expected()  # the callbacks ran again, on the recorded requests
    assert outcome.result == FINAL
    assert outcome.tool_errors == (True, False)
    assert outcome.returncode == 0
    assert replay.errors == []
    # The SDK's own request ids are new; the recorded answers were mapped onto them.
    recorded = [
        m["request_id"]
        for m in Cassette.load(COMMITTED).recordings[0].frames("sdk>cli")
        if m["type"] == "control_request"
    ]
    sent = [m["request_id"] for m in replay.received if m["type"] == "control_request"]
    assert len(sent) == len(recorded) == 2
    assert not set(sent) & set(recorded)


def test_the_committed_cassette_has_a_header_and_no_machine_paths() -> None:
    [recording] = Cassette.load(COMMITTED).recordings
    assert recording.header["cassette"] == 1
    assert recording.cli_version == "2.1.330"
    assert recording.options is not None
    assert "--permission-prompt-tool=stdio" in recording.options
    assert recording.returncode == 0
    assert recording.complete
    text = COMMITTED.read_text(encoding="utf-8")
    for machine in ("pytest-of-", "/root", "/home/", "/tmp/", "127.0.0.1", "sk-ant-test"):
        assert machine not in text, machine
    assert "<cwd>" in text
    assert "<home>" in text
    subtypes = [
        m["request"]["subtype"]
        for m in recording.frames("cli>sdk")
        if m["type"] == "control_request"
    ]
    assert subtypes == ["hook_callback", "hook_callback", "can_use_tool"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"deny_everything": True}, '"behavior": "deny"'),
        ({"hook_reason": "not in my house"}, '"permissionDecisionReason": "not in my house"'),
    ],
    ids=["can_use_tool", "hook"],
)
async def test_a_callback_that_answers_differently_is_a_mismatch_with_a_diff(
    change: dict[str, Any], field: str
) -> None:
    seen = attrs.evolve(Seen(), **change)
    with anyio.fail_after(10), pytest.raises(CassetteMismatchError) as caught:
        await run_scenario(cs.Options(**seen.callbacks()), ReplayTransport(COMMITTED))
    error = caught.value
    assert error.line > 0
    assert "differs from the recording" in error.reason
    text = str(error)
    assert "--- recorded (line" in text
    assert "+++ sent by the SDK" in text
    assert any(line.startswith("+") and field in line for line in text.splitlines())
    assert error.actual != error.expected


async def test_lenient_mode_only_feeds_frames() -> None:
    seen = Seen(deny_everything=True)  # answers differently: not compared
    outcome = await run_scenario(
        cs.Options(**seen.callbacks()), ReplayTransport(COMMITTED, mode="lenient")
    )
    assert outcome.result == FINAL  # the recorded CLI goes on as recorded
    assert seen.permissions == [("Bash", TOUCH)]


async def test_other_launch_flags_are_a_mismatch_in_strict_mode() -> None:
    options = cs.Options(**Seen().callbacks(), include_partial_messages=True)
    with anyio.fail_after(10), pytest.raises(CassetteMismatchError) as caught:
        await run_scenario(options, ReplayTransport(COMMITTED))
    assert "other flags" in caught.value.reason
    assert '+  "--include-partial-messages"' in str(caught.value)
    # The frames themselves still match.
    await run_scenario(options, ReplayTransport(COMMITTED, check_options=False))


#: A bound no test outlives: a rule that waited it out instead of failing at once would hit
#: the test's ``fail_after`` (a hang guard), and the test fails. No test measures time.
FOREVER = 3600.0


async def test_an_unexpected_request_is_a_mismatch_at_once() -> None:
    seen = Seen()
    # Neither the replay nor the SDK's control request has a bound the test could outlast.
    options = cs.Options(**seen.callbacks(), control_timeout=FOREVER)
    with anyio.fail_after(10), pytest.raises(CassetteMismatchError) as caught:
        replay = ReplayTransport(COMMITTED, timeout=FOREVER)
        async with cs.open_session(options, transport=replay) as session:
            await session.set_model("claude-haiku-4-5")
    assert "a set_model control request" in caught.value.reason
    assert "does not have at this point" in caught.value.reason


def _cut(tmp_path: Path, *, keep_the_result: bool) -> Path:
    """The committed cassette cut just before (or just after) its result frame."""
    lines = COMMITTED.read_text(encoding="utf-8").splitlines(keepends=True)
    result = next(i for i, line in enumerate(lines) if '"type": "result"' in line)
    path = tmp_path / "truncated.jsonl"
    path.write_text("".join(lines[: result + keep_the_result]), encoding="utf-8")
    return path


async def test_a_truncated_cassette_fails_within_its_bound(tmp_path: Path) -> None:
    # The SDK waits for the turn's result, which is not there.
    path = _cut(tmp_path, keep_the_result=False)
    assert not Cassette.load(path).recordings[0].complete
    with anyio.fail_after(10), pytest.raises(CassetteExhaustedError) as caught:
        await run_scenario(cs.Options(**Seen().callbacks()), ReplayTransport(path, timeout=0.3))
    assert "the SDK waited 0.3 s for more" in caught.value.reason  # the replay's bound acted
    assert "truncated" in str(caught.value)
    assert caught.value.line > 0


async def test_a_request_past_the_end_of_the_cassette_fails_at_once(tmp_path: Path) -> None:
    # The turn completes; the SDK's set_permission_mode goes past the end.
    path = _cut(tmp_path, keep_the_result=True)
    # No bound to wait out: the replay's is an hour (the fail_after would end the test).
    replay = ReplayTransport(path, timeout=FOREVER)
    with anyio.fail_after(10), pytest.raises(CassetteExhaustedError) as caught:
        await run_scenario(cs.Options(**Seen().callbacks()), replay)
    assert "set_permission_mode control request past the end" in str(caught.value)


async def test_more_connections_than_recorded_is_exhaustion() -> None:
    replay = ReplayTransport(COMMITTED)
    await run_scenario(cs.Options(**Seen().callbacks()), replay)
    with anyio.fail_after(10), pytest.raises(CassetteExhaustedError) as caught:
        await run_scenario(cs.Options(**Seen().callbacks()), replay)
    assert "connection #2" in str(caught.value)


# ---------------------------------------------------------------------------------------
# Recording (from FakeCLI scripts) and replaying


async def _tool_script(cli: ScriptedCLI) -> None:
    await cli.handshake()
    await cli.next_prompt()
    await cli.turn(text="Listed.", tools=[ToolCall("Bash", {"command": "ls"}, output="a b")])
    await cli.serve_until_stdin_closes()


def _allow_all() -> cs.Options:
    async def allow(
        tool_name: str, tool_input: dict[str, Any], context: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        return cs.PermissionAllow()

    return cs.Options(can_use_tool=allow)


async def test_two_connections_record_into_one_cassette_and_replay_in_order(
    tmp_path: Path,
) -> None:
    path = tmp_path / "two.jsonl"
    recorder = RecordingTransport(FakeCLI(_tool_script), path)
    for _ in range(2):
        reply = await cs.ask("list", options=_allow_all(), transport=recorder)
        assert reply.text == "Listed."
    cassette = Cassette.load(path)
    assert len(cassette.recordings) == 2
    assert cassette.dumps() == path.read_text(encoding="utf-8")
    assert [r.returncode for r in cassette.recordings] == [0, 0]
    notes = [e.note for e in cassette.recordings[0].entries if e.dir == "note"]
    assert notes == ["close stdin", "end of output", "exit"]

    replay = ReplayTransport(path, timeout=2)
    for _ in range(2):
        reply = await cs.ask("list", options=_allow_all(), transport=replay)
        assert reply.text == "Listed."
    with anyio.fail_after(10), pytest.raises(CassetteExhaustedError):
        await cs.ask("list", options=_allow_all(), transport=replay)


def _record_then_replay(fake: FakeCLI, path: Path) -> Iterator[Transport]:
    """A recorder of ``fake`` into ``path``, then (once it has been used) a strict replay."""
    yield RecordingTransport(fake, path)
    yield ReplayTransport(path, timeout=2)


async def test_the_recorded_exit_code_and_stderr_are_replayed(tmp_path: Path) -> None:
    async def crash(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.exit(3, stderr="fatal: out of cheese\n")

    path = tmp_path / "crash.jsonl"
    for transport in _record_then_replay(FakeCLI(crash), path):
        lines: list[str] = []
        options = cs.Options(stderr=lines.append)
        with anyio.fail_after(10), pytest.raises(cs.ProcessError) as caught:
            await cs.ask("hi", options=options, transport=transport)
        assert caught.value.exit_code == 3
        assert "out of cheese" in caught.value.stderr_tail
        assert lines == ["fatal: out of cheese"]
    assert Cassette.load(path).recordings[0].returncode == 3


async def test_garbage_lines_are_recorded_raw_and_replayed(tmp_path: Path) -> None:
    async def noisy(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.send_raw(b"{this is not json\n")
        await cli.turn(text="ok")
        await cli.serve_until_stdin_closes()

    path = tmp_path / "noisy.jsonl"
    for transport in _record_then_replay(FakeCLI(noisy), path):
        async with cs.open_session(transport=transport) as session:
            await session.send("hi")
            [m async for m in session.receive_response()]
        assert session.lines_undecodable == 1
    raws = [e.raw for e in Cassette.load(path).recordings[0].entries if e.raw is not None]
    assert raws == ["{this is not json"]


async def test_scrubbing_replaces_secrets_and_paths_before_writing(tmp_path: Path) -> None:
    secret = "sk-ant-api03-very-secret-value"
    cwd = tmp_path / "project"
    cwd.mkdir()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        cli.peer.write_stderr(f"using key {secret} in {cwd}\n")
        await cli.turn(text=f"I am in {cwd} and know {secret}; ticket T-1234.")
        await cli.serve_until_stdin_closes()

    def no_tickets(direction: str, frame: dict[str, Any]) -> dict[str, Any]:
        scrubbed: dict[str, Any] = json.loads(json.dumps(frame).replace("T-1234", "T-XXXX"))
        return scrubbed

    path = tmp_path / "scrubbed.jsonl"
    recorder = RecordingTransport(FakeCLI(script), path, scrub=[no_tickets, {"ticket": "issue"}])
    options = cs.Options(cwd=str(cwd), env={"ANTHROPIC_API_KEY": secret})
    reply = await cs.ask("where are you?", options=options, transport=recorder)
    assert secret in reply.text  # the code under test sees the real values
    text = path.read_text(encoding="utf-8")
    assert secret not in text
    assert str(cwd) not in text
    assert "T-1234" not in text
    assert "I am in <cwd> and know <ANTHROPIC_API_KEY>; issue T-XXXX." in text
    assert "using key <ANTHROPIC_API_KEY> in <cwd>" in Cassette.load(path).recordings[0].stderr

    # Replayed with the same launch: the SDK's frames are scrubbed the same way to compare.
    replayed = await cs.ask("where are you?", options=options, transport=ReplayTransport(path))
    assert replayed.text == "I am in <cwd> and know <ANTHROPIC_API_KEY>; issue T-XXXX."


async def test_secrets_are_scrubbed_by_value_and_by_shape(tmp_path: Path) -> None:
    """Issue 15: values of Options.env whatever their names, MCP headers and env, settings
    env, and token shapes never reach the cassette; the replay still matches."""
    values = {
        "OPENAI_KEY": "openai-value-1a2b3c4d",
        "PRIVATE_KEY": "private-value-5e6f",
        "GH_PAT": "pat-value-9a8b7c",
        "DATABASE_URL": "postgres://admin:pw-secret-42@db.internal/app",
        "PLAIN_NAME": "plain-but-given-7777",
    }
    header = "Bearer mcp-header-value-31415"
    server_env = "mcp-env-value-27182"
    settings_env = "settings-env-value-16180"
    shapes = [
        "sk-ant-api03-AbCdEf0123456789",
        "ghp_0123456789abcdefghijABCDEFGHIJ",
        "AKIAABCDEFGHIJKLMNOP",
        "xoxb-1234567890-abcdefghij",
        "https://user:hunter2-pass@example.com/x",
    ]

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="seen: " + " ".join([*values.values(), *shapes]))
        await cli.serve_until_stdin_closes()

    options = cs.Options(
        env=values,
        mcp_servers={
            "remote": cs.McpHttpServer(url="http://127.0.0.1:9", headers={"Authorization": header}),
            "local": cs.McpStdioServer(command="srv", env={"TOKEN": server_env}),
        },
        settings={"env": {"S": settings_env}},
    )
    path = tmp_path / "secrets.jsonl"
    await cs.ask("go", options=options, transport=RecordingTransport(FakeCLI(script), path))
    text = path.read_text(encoding="utf-8")
    for secret in [*values.values(), "pw-secret-42", header, "mcp-header-value-31415",
                   server_env, settings_env, *shapes, "hunter2-pass"]:  # fmt: skip
        assert secret not in text, secret
    assert "<OPENAI_KEY>" in text
    assert "<Authorization>" in text
    replayed = await cs.ask("go", options=options, transport=ReplayTransport(path))
    assert "<OPENAI_KEY>" in replayed.text


def test_scrubber_rules() -> None:
    def upper(direction: str, frame: dict[str, Any]) -> dict[str, Any]:
        return {k.upper(): v for k, v in frame.items()}

    scrubber = Scrubber.coerce([{"/a": "<a>"}, ("/a/b", "<b>"), upper])
    assert scrubber.replacements == (("/a/b", "<b>"), ("/a", "<a>"))  # longest first
    # hooks first (keys upper-cased), then the replacements, on keys and values
    assert scrubber.frame("cli>sdk", {"p": ["/a/b/c", "/a/x"], "k/a": 1}) == {
        "P": ["<b>/c", "<a>/x"],
        "K/A": 1,
    }
    assert scrubber.text("/a/b and /a") == "<b> and <a>"
    assert Scrubber.coerce(None) == Scrubber()
    assert Scrubber.coerce(scrubber) is scrubber
    with pytest.raises(TypeError):
        Scrubber.coerce([42])  # type: ignore[list-item]
    machine = machine_replacements()
    assert machine[str(Path.cwd())] == "<cwd>"


@pytest.mark.parametrize(
    ("text", "scrubbed"),
    [
        ("Authorization: Bearer mcp-header-value-31415", "Authorization: Bearer <token>"),
        ("Basic dXNlcjpwYXNzd29yZA==", "Basic <token>"),
        ("token ghxAbCdEfGhIjKlMnOpQrStUv", "token <token>"),  # long, letters only
        ("bearer abcdefg1", "bearer <token>"),
        # prose: a word after "token" is no credential (the CLI's skill descriptions say it)
        ("caching, token counting, model migration", "caching, token counting, model migration"),
        ("Token budgets per request", "Token budgets per request"),
    ],
)
def test_token_shapes_leave_prose_alone(text: str, scrubbed: str) -> None:
    for pattern, replacement in TOKEN_PATTERNS:
        text = pattern.sub(replacement, text)
    assert text == scrubbed


def test_a_home_given_in_options_env_is_labelled_home(tmp_path: Path) -> None:
    # Options.env values are scrubbed by name (<NAME>), but the paths keep their labels.
    home = tmp_path / "home"
    spec = LaunchSpec(argv=("claude",), env={"HOME": str(home), "OTHER": "value-123"})
    machine = machine_replacements(spec)
    assert machine[str(home)] == "<home>"
    assert machine["value-123"] == "<OTHER>"


async def test_a_transcript_replays_leniently() -> None:
    # The e2e recordings have no cassette header: one connection, note lines skipped.
    path = DATA / "e2e" / "2.1.330" / "test_can_use_tool_on_a_bash_write_True.jsonl"
    reply = await cs.ask(
        "make a marker", options=_allow_all(), transport=ReplayTransport(path, mode="lenient")
    )
    assert reply.result.result


def test_unreadable_cassettes_raise_format_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"cassette": 1}\nnot json\n', encoding="utf-8")
    with pytest.raises(CassetteFormatError) as caught:
        Cassette.load(bad)
    assert caught.value.line == 2
    bad.write_text('{"cassette": 99}\n', encoding="utf-8")
    with pytest.raises(CassetteFormatError, match="newer"):
        Cassette.load(bad)
    bad.write_text('{"dir": "sideways", "msg": {}}\n', encoding="utf-8")
    with pytest.raises(CassetteFormatError, match="not a cassette line"):
        ReplayTransport(bad)
    with pytest.raises(FileNotFoundError):
        ReplayTransport(tmp_path / "missing.jsonl")
    with pytest.raises(ValueError, match="mode"):
        ReplayTransport(COMMITTED, mode="sloppy")  # type: ignore[arg-type]


def test_cassette_errors_pickle_with_their_facts() -> None:
    error = CassetteMismatchError(
        path="x.jsonl", line=3, reason="r", expected={"a": 1}, actual={"a": 2}
    )
    clone = pickle.loads(pickle.dumps(error))
    assert (clone.path, clone.line, clone.expected, clone.actual) == (
        "x.jsonl",
        3,
        {"a": 1},
        {"a": 2},
    )
    assert str(clone) == str(error)
    assert isinstance(clone, cs.ClaudeSDKError)
    exhausted = pickle.loads(pickle.dumps(CassetteExhaustedError(path="y", line=2, reason="z")))
    assert (exhausted.path, exhausted.line, exhausted.reason) == ("y", 2, "z")


# ---------------------------------------------------------------------------------------
# Drift


def _drift(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "claude_sdk.testing", "drift", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def test_drift_finds_nothing_unknown_in_the_recorded_cassettes_and_e2e_logs() -> None:
    files = sorted(str(p) for p in [*CASSETTES.glob("*"), *(DATA / "e2e").glob("*/*.jsonl")])
    assert str(COMMITTED) in files
    done = _drift(*files)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "nothing unknown" in done.stderr


def test_drift_lists_unknown_fields_and_kinds(tmp_path: Path) -> None:
    frames = tmp_path / "frames.ndjson"
    frames.write_text(
        json.dumps({"type": "keep_alive"})
        + "\n"
        + json.dumps({"type": "keep_alive", "new_field": 1})
        + "\n"
        + json.dumps({"type": "brand_new_frame"})
        + "\n",
        encoding="utf-8",
    )
    findings = check_drift(frames)
    assert [(f.line, f.frame) for f in findings] == [(2, "keep_alive"), (3, "brand_new_frame")]
    assert "new_field: unknown field" in findings[0].problem
    assert "unknown message kind" in findings[1].problem
    done = _drift(str(frames))
    assert done.returncode == 1
    assert "new_field" in done.stdout
    assert "brand_new_frame" in done.stdout
    assert run_main(["drift", "-v", str(frames)]) == 1


def test_drift_reads_transcripts_and_types_answers(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    request = {"type": "control_request", "request_id": "r1", "request": {"subtype": "mcp_status"}}
    answer = {
        "type": "control_response",
        "response": {
            "subtype": "success",
            "request_id": "r1",
            "response": {"mcpServers": [], "brandNewKey": True},
        },
    }
    markers = {"type": "system", "subtype": "init", "tools": ["Bash", "...[3 more of 4]"]}
    transcript.write_text(
        "".join(
            json.dumps(line) + "\n"
            for line in [
                {"dir": "note", "note": "spawn"},
                {"dir": "sdk>cli", "msg": request},
                {"dir": "cli>sdk", "msg": answer},
                {"dir": "sdk>cli", "msg": {"type": "user", "surprise": 1}},
            ]
        ),
        encoding="utf-8",
    )
    [finding] = check_drift(transcript)
    assert finding.line == 3
    assert finding.direction == "cli>sdk"
    assert "$.response.response.brandNewKey: unknown field" in finding.problem
    both = check_drift(transcript, directions=("cli>sdk", "sdk>cli"))
    assert [f.line for f in both] == [3, 4]
    marked = tmp_path / "m.jsonl"
    marked.write_text(json.dumps({"dir": "cli>sdk", "msg": markers}) + "\n", encoding="utf-8")
    assert all("tools" not in f.problem for f in check_drift(marked))


def test_drift_exit_status_two_for_unreadable_input(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    assert run_main(["drift", str(bad)]) == 2
    assert run_main(["drift", str(tmp_path / "missing.jsonl"), str(COMMITTED)]) == 2
    assert run_main(["drift", str(COMMITTED)]) == 0

"""The pytest plugin: its fixtures used here directly (dogfooding), and its behaviour in
whole pytest runs of a user's suite (``pytester``).

The plugin is active in this repository's runs through its ``pytest11`` entry point (the
editable install registers it); the first test checks exactly that.
"""

from __future__ import annotations

import importlib.metadata
import sys
import textwrap
from pathlib import Path

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.testing import Cassette, FakeMessagesAPI, ReplayTransport, ScriptedCLI
from claude_sdk.testing import pytest_plugin as plugin
from claude_sdk.testing.pytest_plugin import CassetteFixture, FakeCLIFactory

from .test_cassette import FINAL, Seen, run_scenario

pytest_plugins = ["pytester"]


def test_the_plugin_is_active_through_its_entry_point(pytestconfig: pytest.Config) -> None:
    [entry] = [
        e for e in importlib.metadata.entry_points(group="pytest11") if e.name == "claude_sdk"
    ]
    assert entry.value == "claude_sdk.testing.pytest_plugin"
    assert pytestconfig.pluginmanager.get_plugin("claude_sdk") is plugin


# ---------------------------------------------------------------------------------------
# The fixtures, used by this project's own tests


async def test_fake_cli_runs_a_script(fake_cli: FakeCLIFactory) -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        await cli.turn(text=f"You said: {prompt.text}")

    reply = await cs.ask("ping", transport=fake_cli(script))
    assert reply.text == "You said: ping"
    assert len(fake_cli.created) == 1


async def test_fake_cli_answers_with_replies(fake_cli: FakeCLIFactory) -> None:
    fake = fake_cli(replies=["One.", "Two."])
    async with cs.open_session(transport=fake) as session:
        answers = []
        for prompt in ("a", "b", "c"):
            await session.send(prompt)
            answers += [
                m.result
                async for m in session.receive_response()
                if isinstance(m, cs.ResultMessage)
            ]
    assert answers == ["One.", "Two.", "Done."]
    with pytest.raises(TypeError):
        fake_cli(fake.script, replies=["x"])


async def test_fake_messages_api_is_serving(fake_messages_api: FakeMessagesAPI) -> None:
    assert fake_messages_api.base_url.startswith("http://127.0.0.1:")
    async with await anyio.connect_tcp("127.0.0.1", fake_messages_api.port) as stream:
        await stream.send(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        head = await stream.receive()
    assert head.startswith(b"HTTP/1.1 200")
    assert [r.endpoint for r in fake_messages_api.requests] == ["/v1/models"]


@pytest.mark.claude_cassette(path="../data/cassettes/permission_and_hook.jsonl")
async def test_the_cassette_fixture_replays_a_real_session(cassette: CassetteFixture) -> None:
    assert not cassette.recording
    assert cassette.mode == "strict"
    seen = Seen()
    outcome = await run_scenario(cs.Options(**seen.callbacks()), cassette.transport())
    assert outcome.result == FINAL
    assert seen == Seen.expected()
    transport = cassette.transport()
    assert isinstance(transport, ReplayTransport)
    assert transport.errors == []
    assert cassette.load().recordings[0].cli_version == "2.1.330"


# ---------------------------------------------------------------------------------------
# The plugin in a user's suite

USER_TESTS = """
    import pytest

    import claude_sdk as cs
    from claude_sdk.testing import FakeCLI, ScriptedCLI

    pytestmark = pytest.mark.anyio
    ANSWER = "{answer}"


    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text=ANSWER)
        await cli.serve_until_stdin_closes()


    async def test_answer(cassette):
        print(f"recording={{cassette.recording}}")
        inner = FakeCLI(script) if cassette.recording else None
        reply = await cs.ask("hi", transport=cassette.transport(inner))
        assert reply.text == "Recorded answer."
"""


#: Plugins a user's suite does not need here (hypothesis's summary alone costs a second a run;
#: pytest-asyncio, where installed, warns about its own settings: its suites are
#: test_plugin_pytest_asyncio.py's).
QUIET = (
    "-p",
    "no:cacheprovider",
    "-p",
    "no:hypothesispytest",
    "-p",
    "no:benchmark",
    "-p",
    "no:asyncio",
)


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*QUIET, *args)


def _one_backend(pytester: pytest.Pytester) -> None:
    """Run the user's async tests on asyncio only (anyio's default is every backend)."""
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture
        def anyio_backend():
            return "asyncio"
        """
    )


def _user_suite(pytester: pytest.Pytester, answer: str = "Recorded answer.") -> Path:
    _one_backend(pytester)
    pytester.makepyfile(test_user=textwrap.dedent(USER_TESTS.format(answer=answer)))
    return pytester.path / "cassettes" / "test_user.test_answer.jsonl"


def test_help_and_markers(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "--help")
    result.stdout.fnmatch_lines(
        ["*--claude-record*", "*--claude-cli=PATH*", "*claude_cassette_dir*"]
    )
    result = _run(pytester, "--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.claude_e2e:*", "@pytest.mark.claude_cassette(*"])


def test_fake_cli_in_a_user_suite(pytester: pytest.Pytester) -> None:
    _one_backend(pytester)
    pytester.makepyfile(
        """
        import pytest
        import claude_sdk as cs

        @pytest.mark.anyio
        async def test_greet(fake_cli):
            reply = await cs.ask("hi", transport=fake_cli(replies=["Hello!"]))
            assert reply.text == "Hello!"
        """
    )
    _run(pytester).assert_outcomes(passed=1)


def test_a_missing_cassette_fails_and_never_records(pytester: pytest.Pytester) -> None:
    path = _user_suite(pytester)
    result = _run(pytester)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*the cassette * does not exist*--claude-record=missing*"])
    assert not path.exists()


def test_record_missing_then_replay_then_a_mismatch(pytester: pytest.Pytester) -> None:
    path = _user_suite(pytester)
    result = _run(pytester, "-s", "--claude-record=missing")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*recording=True*"])
    assert path.exists()
    result.stdout.fnmatch_lines(["claude_sdk: recording cassettes (--claude-record=missing)*"])

    result = _run(pytester, "-s", "--claude-record=missing")
    result.assert_outcomes(passed=1)  # it exists now: replayed
    result.stdout.fnmatch_lines(["*recording=False*"])

    # The code under test changes what it sends: the strict replay shows the difference.
    (pytester.path / "test_user.py").write_text(
        (pytester.path / "test_user.py").read_text().replace('ask("hi"', 'ask("hello"')
    )
    result = _run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*CassetteMismatchError*", '*-*"content": "hi"*', '*+*"content": "hello"*']
    )


def test_record_all_records_once_per_run(pytester: pytest.Pytester) -> None:
    path = _user_suite(pytester)
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture(params=["asyncio", "trio"])
        def anyio_backend(request):
            return request.param
        """
    )
    result = _run(pytester, "-s", "-v", "--claude-record")
    result.assert_outcomes(passed=2)
    # One cassette for both backends: recorded by the first, replayed by the second.
    result.stdout.fnmatch_lines(["*recording=True*", "*recording=False*"])
    assert path.exists()
    assert len(Cassette.load(path).recordings) == 1


def test_claude_e2e_skips_without_a_cli(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_SDK_TEST_CLI", raising=False)
    monkeypatch.delenv("CLAUDE_SDK_REQUIRE_E2E", raising=False)
    monkeypatch.setenv("CLAUDE_SDK_CLI_PATH", str(pytester.path / "no-such-claude"))
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.claude_e2e
        def test_needs_the_cli():
            raise AssertionError("must not run")

        def test_path(claude_cli_path):
            raise AssertionError("must not run")
        """
    )
    result = _run(pytester, "-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["*the Claude Code CLI was not found*"])

    monkeypatch.setenv("CLAUDE_SDK_REQUIRE_E2E", "1")
    result = _run(pytester)
    result.assert_outcomes(errors=2)  # failed in setup, before the test body


def test_claude_cli_option(pytester: pytest.Pytester) -> None:
    _one_backend(pytester)
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.claude_e2e
        def test_path(claude_cli_path):
            assert claude_cli_path == {sys.executable!r}

        @pytest.mark.anyio
        async def test_offline(claude_offline):
            options = claude_offline.options(model="opus", env={{"EXTRA": "1"}})
            assert options.cli_path == {sys.executable!r}
            assert options.env["ANTHROPIC_BASE_URL"] == claude_offline.api.base_url
            assert options.env["HOME"] == str(claude_offline.home)
            assert options.env["EXTRA"] == "1"
            assert options.cwd == str(claude_offline.cwd)
        """
    )
    result = _run(pytester, f"--claude-cli={sys.executable}")
    result.assert_outcomes(passed=2)
    result = _run(pytester, "--claude-cli=/no/such/claude")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claude-cli: /no/such/claude is not an executable file*"])


def test_the_marker_names_the_cassette_and_its_mode(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.claude_cassette("shared", mode="lenient", timeout=1.5)
        def test_named(cassette):
            assert cassette.path.name == "shared.jsonl"
            assert cassette.path.parent.name == "tapes"
            assert (cassette.mode, cassette.timeout) == ("lenient", 1.5)
            assert cassette.recording

        @pytest.mark.claude_cassette(mode="sloppy")
        def test_bad_mode(cassette):
            pass
        """
    )
    pytester.makeini("[pytest]\nclaude_cassette_dir = tapes\n")
    result = _run(pytester, "--claude-record=all")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*mode must be 'strict' or 'lenient'*"])

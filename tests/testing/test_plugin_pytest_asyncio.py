"""The pytest plugin in a user's suite run by pytest-asyncio, with ``-W error`` (issue 16,
item 9): in strict mode (its default) and in auto mode, no warning, and ``fake_messages_api``
serves in the loop that runs the test (the test talks to it, and waits on it). And in a test
no async plugin runs, from a thread.

Whole pytest runs of a user's project (``pytester``, each in a process of its own); skipped
where pytest-asyncio is not installed (it is a test dependency of this project).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import socket
import textwrap

import pytest

from claude_sdk.testing import FakeMessagesAPI

pytest_plugins = ["pytester"]

HAVE_PYTEST_ASYNCIO = importlib.util.find_spec("pytest_asyncio") is not None
needs_pytest_asyncio = pytest.mark.skipif(
    not HAVE_PYTEST_ASYNCIO,
    reason="pytest-asyncio is not installed (pip install pytest-asyncio)",
)


def _has_loop_scopes() -> bool:
    """pytest-asyncio 0.24 and later have loop scopes (and warn when the fixtures' is unset)."""
    fixture = importlib.import_module("pytest_asyncio").fixture
    return "loop_scope" in inspect.signature(fixture).parameters


#: Plugins a user's suite does not need here.
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark")

SERVER_TESTS = """
    import asyncio
    import socket

    import pytest

    import claude_sdk as cs

    REQUEST = b"GET /v1/models HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n"


    async def get_models(port):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(REQUEST)
        head = await asyncio.wait_for(reader.read(12), 5)
        writer.close()
        return head


    {marker}
    async def test_fake_cli(fake_cli):
        reply = await cs.ask("hi", transport=fake_cli(replies=["Hello!"]))
        assert reply.text == "Hello!"


    {marker}
    async def test_the_api_serves_in_the_test_loop(fake_messages_api):
        assert (await get_models(fake_messages_api.port)).startswith(b"HTTP/1.1 200")
        [seen] = await asyncio.wait_for(fake_messages_api.wait_for_requests(1), 5)
        assert seen.endpoint == "/v1/models"


    {module_loop_marker}
    async def test_the_api_in_a_module_loop(fake_messages_api):
        assert (await get_models(fake_messages_api.port)).startswith(b"HTTP/1.1 200")


    def test_a_sync_test_gets_a_server_too(fake_messages_api):
        with socket.create_connection(("127.0.0.1", fake_messages_api.port), timeout=5) as s:
            s.sendall(REQUEST)
            assert s.recv(12).startswith(b"HTTP/1.1 200")
        assert [r.endpoint for r in fake_messages_api.requests] == ["/v1/models"]
"""

CASSETTE_TESTS = """
    import pytest

    import claude_sdk as cs
    from claude_sdk.testing import FakeCLI, ScriptedCLI


    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="Recorded answer.")
        await cli.serve_until_stdin_closes()


    {marker}
    async def test_answer(cassette):
        inner = FakeCLI(script) if cassette.recording else None
        reply = await cs.ask("hi", transport=cassette.transport(inner))
        assert reply.text == "Recorded answer."
"""

ANYIO_TEST = """
    import anyio
    import pytest


    @pytest.fixture
    def anyio_backend():
        return "asyncio"


    @pytest.mark.anyio
    async def test_anyio_beside_pytest_asyncio(fake_messages_api):
        async with await anyio.connect_tcp("127.0.0.1", fake_messages_api.port) as stream:
            await stream.send(b"GET /v1/models HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            assert (await stream.receive()).startswith(b"HTTP/1.1 200")
"""


def _user_project(pytester: pytest.Pytester, mode: str) -> None:
    loop_scopes = _has_loop_scopes()
    ini = ["[pytest]", f"asyncio_mode = {mode}"]
    if loop_scopes:  # what pytest-asyncio asks its users to set (else a deprecation warning)
        ini.append("asyncio_default_fixture_loop_scope = function")
    pytester.makeini("\n".join(ini) + "\n")
    # Auto mode needs no marker; strict mode takes only marked tests.
    marker = "" if mode == "auto" else "@pytest.mark.asyncio"
    module_loop = '@pytest.mark.asyncio(loop_scope="module")' if loop_scopes else marker
    pytester.makepyfile(
        test_server=textwrap.dedent(
            SERVER_TESTS.format(marker=marker, module_loop_marker=module_loop)
        ),
        test_cassette=textwrap.dedent(CASSETTE_TESTS.format(marker=marker)),
    )


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # In a process of its own, as a user runs it (and an in-process run would unload, after
    # it, the SDK modules it imported first: the next run would mix two copies of them).
    return pytester.runpytest_subprocess(*QUIET, "-W", "error", *args)


@needs_pytest_asyncio
@pytest.mark.parametrize("mode", ["strict", "auto"])
def test_a_pytest_asyncio_suite_passes_without_a_warning(
    pytester: pytest.Pytester, mode: str
) -> None:
    _user_project(pytester, mode)
    result = _run(pytester, "--claude-record=missing")
    # pytest-asyncio ran the tests ("mode=strict" before 1.0, "mode=Mode.STRICT" since).
    result.stdout.re_match_lines([rf"(?i)asyncio: mode=(mode\.)?{mode}\b.*"])
    result.assert_outcomes(passed=5, warnings=0)
    assert (pytester.path / "cassettes" / "test_cassette.test_answer.jsonl").exists()
    # Replayed, this time.
    result = _run(pytester, "test_cassette.py")
    result.assert_outcomes(passed=1, warnings=0)


@needs_pytest_asyncio
def test_anyio_and_pytest_asyncio_strict_side_by_side(pytester: pytest.Pytester) -> None:
    _user_project(pytester, "strict")
    pytester.makepyfile(test_anyio=textwrap.dedent(ANYIO_TEST))
    result = _run(pytester, "--claude-record=missing")
    result.assert_outcomes(passed=6, warnings=0)


@needs_pytest_asyncio
def test_a_test_both_plugins_claim_fails_clearly(pytester: pytest.Pytester) -> None:
    # pytest-asyncio's auto mode takes AnyIO tests too: which loop runs the fixtures is then
    # up to plugin load order, so the fixture refuses, and says why.
    _user_project(pytester, "auto")
    pytester.makepyfile(test_anyio=textwrap.dedent(ANYIO_TEST))
    result = _run(pytester, "test_anyio.py")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*both pytest-asyncio and AnyIO claim this test*strict mode*"])


def test_a_sync_test_gets_a_server_in_a_thread(fake_messages_api: FakeMessagesAPI) -> None:
    # No async plugin runs a sync test: the server has a thread (in a loop that runs).
    assert fake_messages_api.base_url.startswith("http://127.0.0.1:")
    with socket.create_connection(("127.0.0.1", fake_messages_api.port), timeout=5) as sock:
        sock.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert sock.recv(12).startswith(b"HTTP/1.1 200")
    assert [r.endpoint for r in fake_messages_api.requests] == ["/v1/models"]

"""The pytest plugin of ``claude_sdk``: fixtures, markers and options for testing agents.

Installed with the package (the ``pytest11`` entry point ``claude_sdk``), so it is active in
every pytest run of an environment that has ``claude_sdk``; ``-p no:claude_sdk`` turns it
off. See ``docs/testing.md`` for a guided tour.

Fixtures:

``fake_cli``
    A factory: ``fake_cli(script)`` returns a `FakeCLI` running ``script`` (any `FakeCLI`
    keyword argument is passed on); ``fake_cli(replies=["Hi!", "Bye."])`` returns one that
    answers each prompt with the next text (then ``"Done."``). Pass it as ``transport=``.
``fake_messages_api``
    A running `FakeMessagesAPI`, served in the event loop of the test that uses it: an
    AnyIO test's (``@pytest.mark.anyio``, any backend) or a pytest-asyncio test's
    (``@pytest.mark.asyncio``, strict or auto mode, the test's ``loop_scope``). A test no
    async plugin runs (a plain ``def`` test, say with ``claude_sdk.sync``) gets one served
    from a thread of its own.
``claude_cli_path``
    The real Claude Code CLI: ``--claude-cli``, else ``$CLAUDE_SDK_TEST_CLI``, else the SDK's
    discovery (``$CLAUDE_SDK_CLI_PATH``, ``PATH``, the usual install places). The test is
    skipped when there is none (it fails instead when ``CLAUDE_SDK_REQUIRE_E2E=1``).
``claude_offline``
    The real CLI against ``fake_messages_api``, offline, in a fresh ``HOME`` and working
    directory: ``claude_offline.options(**kwargs)`` builds `Options` for it.
``cassette``
    A `CassetteFixture` for the test's cassette: ``cassette.transport()`` records (through
    the real CLI, or the transport you pass) or replays. It records when
    ``--claude-record=all`` is given, or with ``--claude-record=missing`` when the file does
    not exist yet; otherwise it replays, and a missing cassette fails the test with how to
    record it. Without the option nothing ever reaches a CLI or the network, so a CI run can
    never spend money.

Markers:

``@pytest.mark.claude_e2e``
    The test needs the real CLI: skipped (before any fixture runs) when there is none.
``@pytest.mark.claude_cassette(name=None, *, path=None, mode="strict", timeout=10.0, scrub=None)``
    Which cassette the ``cassette`` fixture uses and how it replays. ``name`` picks
    ``<test dir>/<claude_cassette_dir>/<name>.jsonl``; ``path`` is a file path (relative to
    the test file's directory). Without the marker the name is ``<module>.<test>`` (the
    parameters included, the anyio backend left out: every backend replays one cassette).
    ``scrub`` is a `ScrubSpec` used both when recording and when comparing in strict mode.

Options: ``--claude-record[=all|missing|none]`` (a bare ``--claude-record`` is ``all``),
``--claude-cli=PATH``; ini: ``claude_cassette_dir`` (default ``cassettes``).
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import sys
import types
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import pytest

from .._attrs import define

if TYPE_CHECKING:
    # Every pytest run of an environment with claude_sdk loads this plugin: the SDK itself
    # is imported by the fixtures that use it, not at collection.
    from ..options import Options
    from ..transports.base import Transport
    from .cassette import Cassette, RecordingTransport, ReplayMode, ReplayTransport, ScrubSpec
    from .fake_api import FakeMessagesAPI
    from .fake_cli import FakeCLI, Script

__all__ = [
    "CassetteFixture",
    "FakeCLIFactory",
    "OfflineCLI",
    "RECORD_MODES",
]

#: The values of ``--claude-record``.
RECORD_MODES = ("none", "missing", "all")

_RECORDED = pytest.StashKey[set[Path]]()
_CLI = pytest.StashKey[str | None]()
_BACKEND_PARAMS = frozenset({"anyio_backend"})
#: The loop scopes of pytest-asyncio (a fixture for each: see `_asyncio_fixtures`).
_LOOP_SCOPES = ("function", "class", "module", "package", "session")


# ======================================================================================
# Options, markers, hooks


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("claude_sdk", "claude_sdk: testing agents")
    group.addoption(
        "--claude-record",
        dest="claude_record",
        nargs="?",
        const="all",
        default="none",
        choices=RECORD_MODES,
        help="record cassettes through the real CLI: 'all' (re-record every cassette a test "
        "uses; the default when no value is given) or 'missing' (only those that do not "
        "exist). Default 'none': replay only, never the CLI.",
    )
    group.addoption(
        "--claude-cli",
        dest="claude_cli",
        default=None,
        metavar="PATH",
        help="the Claude Code CLI for claude_e2e tests, claude_cli_path and recording",
    )
    parser.addini(
        "claude_cassette_dir",
        "directory of cassettes, relative to each test file (default: cassettes)",
        default="cassettes",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "claude_e2e: needs the real Claude Code CLI (skipped without one)"
    )
    config.addinivalue_line(
        "markers",
        "claude_cassette(name=None, *, path=None, mode='strict', timeout=10.0, scrub=None): "
        "the cassette the `cassette` fixture records or replays",
    )
    config.stash[_RECORDED] = set()
    asyncio_plugin = sys.modules.get("pytest_asyncio.plugin")
    if asyncio_plugin is not None and config.pluginmanager.is_registered(asyncio_plugin):
        config.pluginmanager.register(_asyncio_fixtures(), "claude_sdk.asyncio_fixtures")
    explicit = config.getoption("claude_cli", None)
    if explicit is not None and not os.access(explicit, os.X_OK):
        raise pytest.UsageError(f"--claude-cli: {explicit} is not an executable file")


def pytest_report_header(config: pytest.Config) -> str | None:
    record = config.getoption("claude_record", "none")
    if record == "none":
        return None
    return f"claude_sdk: recording cassettes (--claude-record={record}) through the real CLI"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("claude_e2e") is not None:
        _cli_or_skip(item.config)


def _find_cli(config: pytest.Config) -> str | None:
    if _CLI not in config.stash:
        found: str | None = config.getoption("claude_cli", None)
        if found is None:
            found = os.environ.get("CLAUDE_SDK_TEST_CLI") or None
            if found is not None and not os.access(found, os.X_OK):
                found = None
        if found is None:
            from ..errors import CLINotFoundError
            from ..transports.discovery import find_cli

            try:
                found = find_cli()
            except CLINotFoundError:
                found = None
        config.stash[_CLI] = found
    return config.stash[_CLI]


def _cli_or_skip(config: pytest.Config) -> str:
    found = _find_cli(config)
    if found is None:
        message = (
            "the Claude Code CLI was not found (pass --claude-cli=PATH, or set "
            "CLAUDE_SDK_TEST_CLI or CLAUDE_SDK_CLI_PATH)"
        )
        if os.environ.get("CLAUDE_SDK_REQUIRE_E2E") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found


# ======================================================================================
# FakeCLI and FakeMessagesAPI


class FakeCLIFactory:
    """What the ``fake_cli`` fixture gives: ``fake_cli(script, **kwargs) -> FakeCLI``.

    Attributes:
        created: every `FakeCLI` made in this test, in order.
    """

    def __init__(self) -> None:
        self.created: list[FakeCLI] = []

    def __call__(
        self, script: Script | None = None, *, replies: Sequence[str] = (), **kwargs: Any
    ) -> FakeCLI:
        """A `FakeCLI` playing ``script``, or answering each prompt with the next of
        ``replies`` (then ``"Done."``) when there is no script.

        Args:
            script: ``async def script(cli: ScriptedCLI)``.
            replies: texts of successive turns, for a script-less fake.
            kwargs: `FakeCLI` keyword arguments (``version``, ``session_id``, ...).
        """
        if script is not None and replies:
            raise TypeError("pass a script or replies, not both")
        from .fake_cli import FakeCLI

        fake = (
            FakeCLI(script, **kwargs) if script is not None else FakeCLI(replies=replies, **kwargs)
        )
        self.created.append(fake)
        return fake


@pytest.fixture
def fake_cli() -> FakeCLIFactory:
    """A factory of scripted in-memory CLIs (`FakeCLI`); see `FakeCLIFactory`."""
    return FakeCLIFactory()


@pytest.fixture
def fake_messages_api(request: pytest.FixtureRequest) -> Iterator[FakeMessagesAPI]:
    """A `FakeMessagesAPI` serving on 127.0.0.1 for the duration of the test, in the test's
    own event loop (see the module docstring).

    A sync fixture on purpose: the async server is set up by whichever plugin runs the test
    (AnyIO or pytest-asyncio, each through a fixture it owns), so neither warns about an
    async fixture it does not handle, and the server never sits in a loop that does not run.
    """
    name = _serving_fixture(request)
    if name is not None:
        api: FakeMessagesAPI = request.getfixturevalue(name)
        yield api
        return
    from anyio.from_thread import start_blocking_portal

    from .fake_api import FakeMessagesAPI

    # No async plugin runs this test: serve from a thread of its own, for the whole test.
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(FakeMessagesAPI()) as api,
    ):
        yield api


def _serving_fixture(request: pytest.FixtureRequest) -> str | None:
    """The fixture that serves the API in the loop that runs this test, or None when no
    async plugin runs it.

    Raises:
        Failed: (``pytest.fail``) both pytest-asyncio and AnyIO claim the test.
    """
    item = request.node
    asyncio_plugin = sys.modules.get("pytest_asyncio.plugin")
    by_asyncio = (
        asyncio_plugin is not None
        and request.config.pluginmanager.is_registered(asyncio_plugin)
        and asyncio_plugin.is_async_test(item)
    )
    by_anyio = "anyio_backend" in request.fixturenames and _is_async(item)
    if by_asyncio and by_anyio:
        # pytest-asyncio runs the test, and either plugin may take its async fixtures (the
        # one loaded last wins): a server in the other's loop would never answer.
        pytest.fail(
            f"{item.nodeid}: both pytest-asyncio and AnyIO claim this test (pytest-asyncio "
            "in auto mode takes every async test, @pytest.mark.anyio ones included, and the "
            "test uses anyio_backend), so fake_messages_api cannot tell which event loop "
            "will run it. Keep pytest-asyncio in strict mode (its default) with "
            "@pytest.mark.asyncio on its tests, or run AnyIO tests without pytest-asyncio.",
            pytrace=False,
        )
    if by_asyncio:
        return f"_claude_sdk_fake_messages_api_{_loop_scope(item)}"
    if by_anyio:
        return "_claude_sdk_fake_messages_api_anyio"
    return None


def _is_async(item: pytest.Item) -> bool:
    """Whether ``item`` is an ``async def`` test (under ``@given`` too): only those does the
    AnyIO plugin run (a sync test that uses ``anyio_backend`` runs no loop)."""
    test = getattr(item, "obj", None)
    test = getattr(getattr(test, "hypothesis", None), "inner_test", test)
    return inspect.iscoroutinefunction(test)


def _loop_scope(item: pytest.Item) -> str:
    """The scope of the pytest-asyncio loop that runs ``item`` (its ``asyncio`` marker's
    ``loop_scope``, else ``asyncio_default_test_loop_scope``, else ``function``)."""
    marker = item.get_closest_marker("asyncio")
    scope = None
    if marker is not None:
        scope = marker.kwargs.get("loop_scope") or marker.kwargs.get("scope")
    if scope is None:
        try:
            scope = item.config.getini("asyncio_default_test_loop_scope")
        except ValueError:  # pytest-asyncio before 0.26 has no such option: function
            scope = None
    return scope if scope in _LOOP_SCOPES else "function"


async def _serve_in_a_task() -> AsyncIterator[FakeMessagesAPI]:
    """A `FakeMessagesAPI` for pytest-asyncio, which runs a fixture's setup and teardown in
    two different tasks: the server's task group cannot span them, so the server lives in a
    task of its own, started here and, at teardown, stopped and awaited (its failure, such
    as a ``when`` predicate that raised, is raised there). Nothing outlives the fixture."""
    import asyncio

    from .fake_api import FakeMessagesAPI

    ready: asyncio.Future[FakeMessagesAPI] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()

    async def run() -> None:
        try:
            async with FakeMessagesAPI() as api:
                ready.set_result(api)
                await stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise

    task = asyncio.ensure_future(run())  # awaited at teardown, below
    try:
        api = await ready
    except BaseException:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        raise
    try:
        yield api
    finally:
        stop.set()
        await task


@pytest.fixture
async def _claude_sdk_fake_messages_api_anyio(
    anyio_backend: object,
) -> AsyncIterator[FakeMessagesAPI]:
    """`fake_messages_api` for an AnyIO test (the AnyIO plugin runs it in the test's loop)."""
    from .fake_api import FakeMessagesAPI

    async with FakeMessagesAPI() as api:
        yield api


def _asyncio_fixtures() -> types.ModuleType:
    """`fake_messages_api` for pytest-asyncio tests: a plugin (registered only where
    pytest-asyncio is) with one fixture per loop scope, which pytest-asyncio runs in the loop
    of that scope.

    Made with ``pytest_asyncio.fixture`` (``loop_scope`` from 0.24 on; 0.23 runs a fixture in
    the test's ``event_loop``, the only loop a function-scoped fixture may use there). A
    module, not an instance: pytest reads an instance's fixtures from its class.
    """
    # Loaded already: its plugin, pytest_asyncio.plugin, is registered.
    pytest_asyncio: Any = sys.modules["pytest_asyncio"]
    plugin = types.ModuleType("claude_sdk.testing._asyncio_fixtures")
    takes_scope = "loop_scope" in inspect.signature(pytest_asyncio.fixture).parameters
    for scope in _LOOP_SCOPES:

        async def serve() -> AsyncIterator[FakeMessagesAPI]:
            async for api in _serve_in_a_task():
                yield api

        name = f"_claude_sdk_fake_messages_api_{scope}"
        kwargs: dict[str, Any] = {"name": name}
        if takes_scope:
            kwargs["loop_scope"] = scope
        setattr(plugin, name, pytest_asyncio.fixture(serve, **kwargs))
    return plugin


# ======================================================================================
# The real CLI


@pytest.fixture(scope="session")
def claude_cli_path(pytestconfig: pytest.Config) -> str:
    """The real CLI's path; the test is skipped without one (see the module docstring)."""
    return _cli_or_skip(pytestconfig)


@define
class OfflineCLI:
    """The real CLI set up to run offline against a `FakeMessagesAPI`.

    Attributes:
        api: the fake API (script it with ``api.reply(...)``).
        cli_path: the CLI.
        home: a fresh ``HOME`` for the CLI.
        cwd: a fresh working directory.
    """

    api: FakeMessagesAPI
    cli_path: str
    home: Path
    cwd: Path

    def env(self) -> dict[str, str]:
        """The CLI's environment: the fake API's offline variables and ``HOME``."""
        return {**self.api.env(), "HOME": str(self.home)}

    def options(self, **kwargs: Any) -> Options:
        """`Options` for this CLI (``cli_path``, ``cwd`` and ``env`` set; ``env`` entries
        you pass are added, the other arguments are passed on)."""
        from ..options import Options

        env = {**self.env(), **kwargs.pop("env", {})}
        kwargs.setdefault("cwd", str(self.cwd))
        return Options(cli_path=self.cli_path, env=env, **kwargs)


@pytest.fixture
def claude_offline(
    claude_cli_path: str, fake_messages_api: FakeMessagesAPI, tmp_path: Path
) -> OfflineCLI:
    """The real CLI against ``fake_messages_api``, offline (see `OfflineCLI`)."""
    home = tmp_path / "claude-home"
    cwd = tmp_path / "claude-cwd"
    home.mkdir()
    cwd.mkdir()
    return OfflineCLI(api=fake_messages_api, cli_path=claude_cli_path, home=home, cwd=cwd)


# ======================================================================================
# Cassettes


def _pinned_cli(inner: Transport, cli: str) -> Transport:
    """``inner``, running ``cli`` when the options do not name a CLI."""
    from ..transports.base import Connection, Transport

    class _PinnedCLI(Transport):  # defined here: `Transport` is imported on first use
        runs_here = inner.runs_here

        def connect(self, spec: Any) -> AbstractAsyncContextManager[Connection]:
            if spec.cli_path is None:
                spec = attrs.evolve(spec.with_cli(cli), cli_path=cli)
            return inner.connect(spec)

        def describe(self) -> str:
            return inner.describe()

    return _PinnedCLI()


def _default_timeout() -> float | None:
    from .cassette import DEFAULT_TIMEOUT

    return DEFAULT_TIMEOUT


@define(eq=False)
class CassetteFixture:
    """What the ``cassette`` fixture gives.

    Attributes:
        path: the cassette file.
        recording: True when this test records (``--claude-record``), False when it replays.
        mode: how it replays (``"strict"`` or ``"lenient"``).
        timeout: the replay's wait bound, in seconds.
        scrub: the scrubbing rules (a `ScrubSpec`).
        cli_path: the CLI to record with (None: the SDK's discovery or ``Options.cli_path``).
    """

    path: Path
    recording: bool
    mode: ReplayMode = "strict"
    timeout: float | None = attrs.field(factory=_default_timeout)  # cassette.DEFAULT_TIMEOUT
    scrub: ScrubSpec = None
    cli_path: str | None = None
    _transport: RecordingTransport | ReplayTransport | None = None

    def transport(self, inner: Transport | None = None) -> Transport:
        """The transport to hand to the code under test (the same one on every call).

        When recording, ``inner`` runs the CLI (default: the local CLI, as
        `SubprocessTransport`); when replaying it is ignored.
        """
        if self._transport is None:
            if self.recording:
                from .cassette import RecordingTransport

                if inner is None:
                    from ..transports.subprocess import SubprocessTransport

                    inner = SubprocessTransport()
                if self.cli_path is not None:
                    inner = _pinned_cli(inner, self.cli_path)
                self._transport = RecordingTransport(inner, self.path, scrub=self.scrub)
            else:
                from .cassette import ReplayTransport

                self._transport = ReplayTransport(
                    self.path, mode=self.mode, timeout=self.timeout, scrub=self.scrub
                )
        return self._transport

    def load(self) -> Cassette:
        """The cassette file, parsed."""
        from .cassette import Cassette

        return Cassette.load(self.path)


def _cassette_name(item: pytest.Item) -> str:
    name = getattr(item, "originalname", item.name)
    cls = getattr(item, "cls", None)
    if cls is not None:
        name = f"{cls.__name__}.{name}"
    module = Path(str(item.path)).stem
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    ids = [str(v) for k, v in params.items() if k not in _BACKEND_PARAMS]
    full = "-".join([f"{module}.{name}", *ids])
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", full)


def _cassette_path(item: pytest.Item, marker: pytest.Mark | None) -> Path:
    base = Path(str(item.path)).parent
    explicit = marker.kwargs.get("path") if marker is not None else None
    if explicit is not None:
        return (base / str(explicit)).resolve()
    name = None
    if marker is not None:
        name = marker.args[0] if marker.args else marker.kwargs.get("name")
    directory = base / str(item.config.getini("claude_cassette_dir"))
    return directory / f"{name or _cassette_name(item)}.jsonl"


@pytest.fixture
def cassette(request: pytest.FixtureRequest) -> CassetteFixture:
    """The test's cassette: recorded with ``--claude-record``, replayed otherwise."""
    item = request.node
    config = request.config
    marker = item.get_closest_marker("claude_cassette")
    options = marker.kwargs if marker is not None else {}
    path = _cassette_path(item, marker)
    record = config.getoption("claude_record", "none")
    recorded = config.stash[_RECORDED]
    recording = path not in recorded and (
        record == "all" or (record == "missing" and not path.exists())
    )
    if recording:
        recorded.add(path)  # recorded once per run; later uses (other backends) replay it
    elif not path.exists():
        pytest.fail(
            f"the cassette {path} does not exist. Record it once with "
            "`pytest --claude-record=missing` (this runs the real Claude Code CLI); "
            "replays never do.",
            pytrace=False,
        )
    mode = options.get("mode", "strict")
    if mode not in ("strict", "lenient"):
        raise pytest.UsageError(f"claude_cassette: mode must be 'strict' or 'lenient': {mode!r}")
    return CassetteFixture(
        path=path,
        recording=recording,
        mode=mode,
        timeout=options.get("timeout", _default_timeout()),
        scrub=options.get("scrub"),
        cli_path=_find_cli(config) if recording else None,
    )

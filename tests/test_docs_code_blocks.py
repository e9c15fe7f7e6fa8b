"""Every Python code block of README.md and docs/ runs here, so a snippet cannot rot.

The blocks of one page run in order in one namespace, as a reader would paste them: top-level
``await`` is allowed (such a block runs under ``anyio.run``, on asyncio and on Trio), and a
block that calls ``anyio.run`` itself runs as plain code. The CLI is a scripted fake CLI,
spawned for real (``$CLAUDE_SDK_CLI_PATH`` points at `claude_sdk.testing.stdio`'s
executable), in a scratch working directory whose project holds the session files of
tests/data/history. Blocks that are pytest test files (they define ``test_`` functions) are
also collected into one test module per page and run by pytest (``pytester``); under
``-m e2e`` that module runs against the real CLI, so its ``claude_e2e`` tests run too.

A block is skipped only when its page marks it ``<!-- docs: no-run (reason) -->`` on the line
before; the reason is shown in the skip.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import logging
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest

from claude_sdk import history
from claude_sdk.testing.stdio import write_fake_cli

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
HISTORY = ROOT / "tests" / "data" / "history" / "config" / "projects" / "-home-user-demo"

_OPEN = re.compile(r"^(?P<indent>[ \t]*)```python[ \t]*(?P<info>[^\n`]*)$")
_NO_RUN = re.compile(r"<!--\s*docs:\s*no-run\s*(?:\((?P<why>[^)]*)\))?\s*-->")
_TEST = re.compile(r"^(async\s+)?def test_", re.MULTILINE)


@attrs.frozen
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    source: str
    skip: str | None

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def is_test_module(self) -> bool:
        return bool(_TEST.search(self.source))


def blocks_of(page: Path) -> list[Block]:
    """The ```python blocks of a markdown page (indented ones, in lists, included)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        match = _OPEN.match(lines[i])
        if match is None:
            i += 1
            continue
        indent = match["indent"]
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            line = lines[i]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            i += 1
        if i == len(lines):
            raise AssertionError(f"{page}:{start + 1}: a ```python block is never closed")
        marker = _NO_RUN.search(lines[start - 1]) if start else None
        skip = (marker["why"] or "marked no-run") if marker else None
        found.append(Block(page, start + 1, "\n".join(body) + "\n", skip))
        i += 1
    return found


PAGE_BLOCKS = {page: blocks_of(page) for page in PAGES}
RUNNABLE = [page for page, blocks in PAGE_BLOCKS.items() if blocks]


def test_the_pages_have_python_blocks() -> None:
    """The collector sees the blocks (a broken fence regex would make this suite vacuous)."""
    readme = PAGE_BLOCKS[ROOT / "README.md"]
    assert len(readme) >= 4
    assert sum(len(b) for b in PAGE_BLOCKS.values()) >= 20
    assert all(b.skip is None for b in readme), [b.where for b in readme if b.skip]


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A working directory with session files, a fake CLI on the discovery path, a HOME."""
    cwd = tmp_path / "demo"
    cwd.mkdir()
    (cwd / "README.md").write_text("# demo\n\nA project to try snippets in.\n")
    config = tmp_path / "config"
    shutil.copytree(HISTORY, history.project_dir(cwd, config_dir=config))
    cli = write_fake_cli(tmp_path / "claude")
    monkeypatch.setenv("CLAUDE_SDK_CLI_PATH", str(cli))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(cwd)
    # A page may configure logging (docs/guides/observability.md): undo it afterwards.
    sdk_logger, root = logging.getLogger("claude_sdk"), logging.getLogger()
    level, handlers = sdk_logger.level, list(root.handlers)
    yield cwd
    sdk_logger.setLevel(level)
    for handler in root.handlers[:]:
        if handler not in handlers:
            root.removeHandler(handler)


def _run_block(block: Block, namespace: dict[str, Any], backend: str) -> None:
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    code = compile(block.source, block.where, "exec", flags=flags, dont_inherit=True)
    if code.co_flags & inspect.CO_COROUTINE:

        async def run() -> None:
            await eval(code, namespace)

        anyio.run(run, backend=backend)
    else:
        exec(code, namespace)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("page", RUNNABLE, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_of_a_page_runs(page: Path, backend: str, scratch: Path) -> None:
    namespace: dict[str, Any] = {"__name__": f"docs_{page.stem}"}
    ran = 0
    for block in PAGE_BLOCKS[page]:
        if block.skip is not None:
            continue
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                _run_block(block, namespace, backend)
        except BaseException as exc:
            raise AssertionError(f"the block at {block.where} failed: {exc!r}") from exc
        ran += 1
    assert ran, f"{page}: every block is marked no-run"


def _test_module(page: Path) -> str:
    return "\n\n".join(b.source for b in PAGE_BLOCKS[page] if b.is_test_module and not b.skip)


TEST_PAGES = [page for page in RUNNABLE if _test_module(page)]


def _run_test_page(pytester: pytest.Pytester, page: Path, *args: str) -> pytest.RunResult:
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture\ndef anyio_backend():\n    return 'asyncio'\n"
    )
    pytester.makepyfile(**{f"test_docs_{page.stem}": _test_module(page)})
    return pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "-p",
        "no:asyncio",
        "-W",
        "error",
        *args,
    )


@pytest.mark.parametrize("page", TEST_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_test_files_of_a_page_pass(
    page: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No real CLI here: claude_e2e tests skip; the e2e twin below runs them.
    for name in ("CLAUDE_SDK_CLI_PATH", "CLAUDE_SDK_TEST_CLI", "CLAUDE_SDK_REQUIRE_E2E"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", os.defpath)
    monkeypatch.setenv("HOME", str(pytester.path))
    _prepare_cassettes(pytester.path)
    result = _run_test_page(pytester, page)
    outcomes = result.parseoutcomes()
    module = _test_module(page)
    tests, e2e = len(_TEST.findall(module)), module.count("@pytest.mark.claude_e2e")
    assert outcomes.get("failed", 0) == 0, result.stdout.str()
    assert outcomes.get("errors", 0) == 0, result.stdout.str()
    assert outcomes.get("passed", 0) == tests - e2e, result.stdout.str()
    assert outcomes.get("skipped", 0) == e2e, result.stdout.str()


@pytest.mark.e2e
@pytest.mark.parametrize("page", TEST_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_test_files_of_a_page_pass_against_the_real_cli(
    page: Path, pytester: pytest.Pytester
) -> None:
    if not os.environ.get("CLAUDE_SDK_TEST_CLI"):
        pytest.skip("CLAUDE_SDK_TEST_CLI is not set (nox -s e2e sets it)")
    _prepare_cassettes(pytester.path)
    result = _run_test_page(pytester, page)
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0, result.stdout.str()
    assert outcomes.get("errors", 0) == 0, result.stdout.str()
    assert outcomes.get("skipped", 0) == 0, result.stdout.str()
    assert outcomes.get("passed", 0) == len(_TEST.findall(_test_module(page)))


def _prepare_cassettes(directory: Path) -> None:
    """The cassettes docs/testing.md replays, recorded here from a scripted CLI."""
    import claude_sdk as cs
    from claude_sdk.testing import FakeCLI, RecordingTransport, ScriptedCLI, ToolCall

    async def clean_up(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(
            text="Removed the build directory.",
            tools=[ToolCall("Bash", {"command": "ls build"})],
        )
        await cli.serve_until_stdin_closes()

    async def record() -> None:
        cassettes = directory / "cassettes"
        cassettes.mkdir(exist_ok=True)
        for name in ("clean_up", "support_ticket"):
            recorder = RecordingTransport(FakeCLI(clean_up), cassettes / f"{name}.jsonl")
            await cs.ask(
                "Clean up.",
                options=cs.Options(can_use_tool=_allow),
                transport=recorder,
            )

    anyio.run(record)


async def _allow(tool_name: str, tool_input: dict[str, Any], context: Any) -> Any:
    import claude_sdk as cs

    return cs.PermissionAllow()

"""The forms a newcomer writes first: each works, or fails with a message showing the right one.

Issue 16, item 4: ``for m in claude_sdk.sync.query(...)``; ``async for m in cs.query(...)``
(the official SDK's idiom); ``session.server_info.models`` without an Optional check;
``FakeCLI(replies=...)`` like the fixture; a scripted CLI as an executable for code that
takes no ``transport=``.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

import claude_sdk as cs
import claude_sdk.sync
from claude_sdk.testing import FakeCLI, ScriptedCLI
from claude_sdk.testing.stdio import load_script, write_fake_cli


async def echo(cli: ScriptedCLI) -> None:
    await cli.handshake()
    async for prompt in cli.iter_prompts():
        await cli.turn(text=f"echo: {prompt.text}")


# --- claude_sdk.sync.query -----------------------------------------------------------------


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_sync_query_iterates_directly(backend: str) -> None:
    fake = FakeCLI(echo)
    messages = list(claude_sdk.sync.query("hi", transport=fake, backend=backend))
    assert isinstance(messages[-1], cs.ResultMessage)
    assert messages[-1].result == "echo: hi"
    assert fake.connections[-1].returncode is not None  # the CLI ended with the loop


def test_sync_query_still_works_as_a_context_manager() -> None:
    with claude_sdk.sync.query("hi", transport=FakeCLI(echo)) as messages:
        texts = [m.text for m in messages if isinstance(m, cs.AssistantMessage)]
    assert texts == ["echo: hi"]


def test_leaving_a_bare_sync_for_early_ends_the_session() -> None:
    fake = FakeCLI(echo)
    iterator = iter(claude_sdk.sync.query("hi", transport=fake))
    first = next(iterator)
    assert first is not None
    del iterator
    gc.collect()
    assert fake.connections[-1].returncode is not None


def test_a_sync_query_object_runs_one_with_block_at_a_time() -> None:
    q = claude_sdk.sync.query("hi", transport=FakeCLI(echo))
    with q as messages:
        with pytest.raises(RuntimeError, match="already running"):
            q.__enter__()
        assert list(messages)[-1].text == "echo: hi"  # type: ignore[union-attr]


# --- cs.query ------------------------------------------------------------------------------


async def test_async_for_over_query_shows_the_right_form() -> None:
    fake = FakeCLI(echo)
    with pytest.raises(TypeError, match=r"async with claude_sdk\.query\(prompt\) as messages"):
        async for _ in cs.query("hi", transport=fake):  # type: ignore[attr-defined]
            pass
    assert fake.clis == []  # nothing was started


async def test_awaiting_query_shows_the_right_form() -> None:
    with pytest.raises(TypeError, match=r"await claude_sdk\.ask\(prompt\)"):
        await cs.query("hi", transport=FakeCLI(echo))  # type: ignore[misc]


async def test_query_takes_prompt_by_keyword_as_the_official_sdk_does() -> None:
    async with cs.query(prompt="hi", transport=FakeCLI(echo)) as messages:
        last = [m async for m in messages][-1]
    assert isinstance(last, cs.ResultMessage)
    assert last.result == "echo: hi"


# --- server_info ----------------------------------------------------------------------------


async def test_server_info_needs_no_none_check_on_an_open_session() -> None:
    async with cs.open_session(transport=FakeCLI(echo)) as session:
        models = session.server_info.models  # typed InitializeResponse, not Optional
        assert models
        assert all(isinstance(m.value, str) for m in models)


# --- FakeCLI(replies=...) ------------------------------------------------------------------


async def test_fake_cli_takes_replies_like_the_fixture() -> None:
    fake = FakeCLI(replies=["one", "two"])
    async with cs.open_session(transport=fake) as session:
        texts = []
        for prompt in ("a", "b", "c"):
            await session.send(prompt)
            texts += [
                m.text async for m in session.receive_response() if isinstance(m, cs.ResultMessage)
            ]
    assert texts == ["one", "two", "Done."]


def test_fake_cli_rejects_a_script_and_replies_or_a_bare_string() -> None:
    with pytest.raises(TypeError, match="not both"):
        FakeCLI(echo, replies=["x"])
    with pytest.raises(TypeError, match="not a str"):
        FakeCLI(replies="hello")


# --- a scripted CLI as an executable -------------------------------------------------------


async def test_a_fake_cli_executable_runs_the_real_local_path(tmp_path: Path) -> None:
    cli = write_fake_cli(tmp_path / "claude", replies=["4"])
    reply = await cs.ask("What is 2 + 2?", options=cs.Options(cli_path=str(cli)))
    assert reply.text == "4"
    async with cs.open_session(cs.Options(cli_path=str(cli))) as session:
        assert session.pid is not None  # a real process, spawned by SubprocessTransport
        assert session.server_info.claude_code_version == "2.1.330"
        mode = await session.set_permission_mode("plan")
        assert mode.mode == "plan"


SCRIPT = """
from claude_sdk.testing import ScriptedCLI

async def script(cli: ScriptedCLI) -> None:
    await cli.handshake()
    prompt = await cli.next_prompt()
    await cli.turn(text="argv has --verbose: " + str("--verbose" in cli.argv) + " " + prompt.text)
    await cli.exit(3)
"""


async def test_a_fake_cli_executable_plays_a_script_file_and_its_exit_code(
    tmp_path: Path,
) -> None:
    (tmp_path / "myscript.py").write_text(SCRIPT)
    cli = write_fake_cli(tmp_path / "claude", script=f"{tmp_path / 'myscript.py'}:script")
    async with cs.query("hello", options=cs.Options(cli_path=str(cli))) as messages:
        last = [m async for m in messages][-1]
    assert isinstance(last, cs.ResultMessage)
    assert last.result == "argv has --verbose: True hello"


async def test_a_fake_cli_executable_exits_with_the_scripts_code(tmp_path: Path) -> None:
    (tmp_path / "dies.py").write_text(
        "async def script(cli):\n    await cli.exit(7, stderr='boom')\n"
    )
    cli = write_fake_cli(tmp_path / "claude", script=f"{tmp_path / 'dies.py'}:script")
    with pytest.raises(cs.ProcessError) as caught:
        async with cs.open_session(cs.Options(cli_path=str(cli))):
            pass
    assert caught.value.exit_code == 7
    assert "boom" in caught.value.stderr_tail


def test_the_fake_cli_command_reports_bad_arguments_in_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    for args, needle in [
        (["--script", "nocolon"], "MODULE:FUNCTION"),
        (["--script", "no_such_module_xyz:f"], "no_such_module_xyz"),
        (["--script", f"{tmp_path}/none.py:f"], "none.py"),
        (["--reply", "x", "--script", "m:f"], "not both"),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "claude_sdk.testing", "fake-cli", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2, done.stderr
        assert needle in done.stderr
        assert "Traceback" not in done.stderr


def test_load_script_finds_a_module_function() -> None:
    found = load_script("tests.test_newcomer_forms:echo")
    assert found is echo
    with pytest.raises(ValueError, match="has no function"):
        load_script("tests.test_newcomer_forms:nope")


def test_write_fake_cli_wants_replies_or_a_script(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="not both"):
        write_fake_cli(tmp_path / "c", replies=["a"], script="m:f")

"""Testing your agent with pytest: claude_sdk's plugin, in a file you can copy.

The plugin comes with claude_sdk (a ``pytest11`` entry point), so its fixtures are available
as soon as the package is installed; nothing to configure. The code under test here is
``summarize``, a small agent function that takes a ``transport`` so that tests can choose
what plays the CLI. It is tested three ways, all offline, free and fast:

* ``fake_cli(script)``: a scripted CLI in memory; the script plays the CLI's side of the
  conversation and can check what the agent sent.
* ``fake_cli(replies=[...])``: the shortest form, when the test only needs answers.
* ``cassette``: a real CLI session recorded once (``examples/cassettes/summarize.jsonl``)
  and replayed strictly: the test fails with a diff as soon as the agent sends something
  the recorded CLI did not receive (another prompt, other options, another answer from a
  callback).

Run: ``pytest examples/test_my_agent.py``, or ``python examples/test_my_agent.py`` (which
runs pytest on this file). Async tests run on every installed AnyIO backend (asyncio, and
Trio if it is installed).

Re-record the cassette through the real CLI with ``pytest examples/test_my_agent.py
--claude-record=all``; the CLI runs with your login and environment (this cassette was
recorded offline, with ``ANTHROPIC_BASE_URL`` pointing at ``python -m
claude_sdk.testing.fake_api --text "..."``). Without ``--claude-record`` nothing ever reaches
a CLI or the network.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

import claude_sdk as cs
from claude_sdk.testing import ScriptedCLI
from claude_sdk.testing.pytest_plugin import CassetteFixture
from claude_sdk.transports.base import Transport

# ---------------------------------------------------------------------------------------
# The code under test

ARTICLE = (
    "Domestic cats sleep between twelve and sixteen hours a day, mostly in short naps, and "
    "are most active at dawn and dusk."
)


async def summarize(text: str, *, transport: Transport | None = None) -> str:
    """One sentence about ``text``, from Claude."""
    options = cs.Options(max_turns=1)  # one model call, no tool loop
    reply = await cs.ask(
        f"Summarize in one sentence:\n\n{text}", options=options, transport=transport
    )
    return reply.text


# ---------------------------------------------------------------------------------------
# The tests

pytestmark = pytest.mark.anyio  # run the async tests with AnyIO (not needed in auto mode)

#: What the ``fake_cli`` fixture is, for type checkers: it makes transports from scripts
#: (the exact class is the factory of ``claude_sdk.testing.pytest_plugin``).
MakeFake = Callable[..., Transport]


async def test_summarize_with_a_scripted_cli(fake_cli: MakeFake) -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()  # answer initialize like the real CLI
        prompt = await cli.next_prompt()
        assert prompt.text.startswith("Summarize in one sentence:")
        assert ARTICLE in prompt.text
        await cli.turn(text="Cats sleep most of the day.")

    assert await summarize(ARTICLE, transport=fake_cli(script)) == "Cats sleep most of the day."


async def test_summarize_with_canned_replies(fake_cli: MakeFake) -> None:
    transport = fake_cli(replies=["Cats nap a lot."])
    assert await summarize(ARTICLE, transport=transport) == "Cats nap a lot."


@pytest.mark.claude_cassette("summarize")
async def test_summarize_replays_a_real_session(cassette: CassetteFixture) -> None:
    summary = await summarize(ARTICLE, transport=cassette.transport())
    assert summary == "Cats sleep most of the day, in short naps."
    if not cassette.recording:
        recording = cassette.load().recordings[0]
        assert recording.cli_version  # the CLI version the session was recorded with


if __name__ == "__main__":
    # A fresh interpreter: pytest wants to import (and assert-rewrite) this file itself.
    sys.exit(subprocess.call([sys.executable, "-m", "pytest", __file__, "-q"]))

"""A turn the CLI runs on its own never answers the host's next prompt (issue 26).

With the real CLI: a turn starts a background Bash command (``run_in_background``); when the
command ends, the CLI runs a turn of its own (a task notification: its ``result`` names no
prompt and carries ``origin.kind == "task-notification"``). The next ``send`` +
``receive_response()``, and the next ``SessionPool.ask``, must return the answer to *their*
prompt, with the CLI's own turn visible on the way and marked ``own_turn``. Before the fix,
both returned the own turn's text, and the answer to "second" came with the following call.

The fake Messages API answers by what each request asks: the model's first reply starts the
background command; a request carrying the task notification is answered "BACKGROUND-DONE";
a request whose last prompt is "second" is answered "ANSWER-TO-SECOND".
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.testing import RecordedRequest

from .conftest import E2E

pytestmark = pytest.mark.e2e

BACKGROUND = {
    "command": "sleep 1; echo counted",
    "description": "Count in the background",
    "run_in_background": True,
}


def _text(request: RecordedRequest) -> str:
    return json.dumps(request.messages[-1:])


def asks_second(request: RecordedRequest) -> bool:
    return "second" in request.last_user_text and "task-notification" not in _text(request)


def is_notification(request: RecordedRequest) -> bool:
    return "task-notification" in _text(request) and "second" not in request.last_user_text


def first_turn(request: RecordedRequest) -> bool:
    return not asks_second(request) and not is_notification(request)


def script(e2e: E2E) -> None:
    e2e.api.reply(tool_use=("Bash", BACKGROUND), when=first_turn)
    e2e.api.reply(text="STARTED", when=first_turn)
    e2e.api.reply(text="BACKGROUND-DONE", when=is_notification, times=None)
    e2e.api.reply(text="ANSWER-TO-SECOND", when=asks_second, times=None)


async def allow(name: str, tool_input: dict[str, Any], context: Any) -> cs.PermissionResult:
    return cs.PermissionAllow()


async def wait_for_the_own_turn(e2e: E2E) -> None:
    """Until the CLI has asked the model about the task notification (its own turn runs)."""
    with anyio.fail_after(30):
        while not any(is_notification(r) for r in e2e.api.main_requests):
            await e2e.api.wait_for_requests(len(e2e.api.requests) + 1)


async def test_after_a_background_commands_own_turn_the_next_reply_is_the_prompts(
    e2e: E2E,
) -> None:
    script(e2e)
    async with cs.open_session(
        e2e.options(can_use_tool=allow), transport=e2e.transport()
    ) as session:
        await session.send("count in the background")
        first = [m async for m in session.receive_response()]
        assert isinstance(first[-1], cs.ResultMessage)
        assert first[-1].text == "STARTED"
        await wait_for_the_own_turn(e2e)
        sent = await session.send("second")
        with anyio.fail_after(60):
            second = [m async for m in session.receive_response()]
    result = second[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.text == "ANSWER-TO-SECOND"
    assert result.settles == (sent,)
    assert not result.own_turn
    # The CLI's own turn reached the consumer on the way, marked as such.
    own = [m for m in second[:-1] if isinstance(m, cs.ResultMessage)]
    assert [m.text for m in own] == ["BACKGROUND-DONE"]
    assert all(m.own_turn and m.settles == () for m in own)
    assert isinstance(own[0].origin, dict)
    assert own[0].origin.get("kind") == "task-notification"


async def test_a_pools_ask_after_a_background_commands_own_turn_gets_its_own_answer(
    e2e: E2E,
) -> None:
    script(e2e)
    options = e2e.options(can_use_tool=allow)
    async with cs.SessionPool(options, max_sessions=1, transport=e2e.transport()) as pool:
        first = await pool.ask("k", "count in the background")
        assert first.text == "STARTED"
        await wait_for_the_own_turn(e2e)
        with anyio.fail_after(60):
            reply = await pool.ask("k", "second")
    assert reply.text == "ANSWER-TO-SECOND"
    assert not reply.result.own_turn
    assert [r.text for r in reply.own_turns] == ["BACKGROUND-DONE"]

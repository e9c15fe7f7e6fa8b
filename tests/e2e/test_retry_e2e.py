"""Self-healing turns against the real CLI (offline): the fake Messages API answers 529 past
the CLI's own retries, then succeeds; the retry policy completes the turn in the same session,
and the API sees the earlier turns and the prompt once."""

from __future__ import annotations

import json

import pytest

import claude_sdk as cs
from claude_sdk.retry import RetryPolicy

from .conftest import E2E

POLICY = RetryPolicy(initial_delay=0.05, max_delay=0.2)


def texts(request: object) -> list[tuple[str, str]]:
    """(role, text) of a request's user and assistant messages, the CLI's own reminders
    left out."""
    out = []
    for message in request.messages:  # type: ignore[attr-defined]
        if message["role"] not in ("user", "assistant"):
            continue
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            text = block.get("text", "")
            if block.get("type") == "text" and not text.startswith("<system-reminder>"):
                out.append((message["role"], text.strip()))
    return out


def overloaded(e2e: E2E) -> None:
    # The CLI retries once itself (max_retries=1): two 529s exhaust it.
    e2e.api.reply(error=529, times=2, headers={"retry-after": "0"})


async def test_a_pool_turn_past_the_clis_retries_completes_in_the_same_session(e2e: E2E) -> None:
    options = e2e.options(retry=POLICY, env={**e2e.api.env(max_retries=1), "HOME": str(e2e.home)})
    e2e.api.reply(text="answer one")
    overloaded(e2e)
    e2e.api.reply(text="answer two")
    async with cs.SessionPool(options, max_sessions=1, transport=e2e.transport()) as pool:
        one = await pool.ask("k", "prompt one")
        two = await pool.ask("k", "prompt two")
        assert pool.stats.retried == 1
    assert two.text == "answer two"
    assert two.session_id == one.session_id
    [attempt] = two.attempts
    assert attempt.error.result.api_error_status == 529  # type: ignore[attr-defined]
    assert attempt.session_id == one.session_id
    last = [r for r in e2e.api.requests if r.kind == "main"][-1]
    assert texts(last) == [
        ("user", "prompt one"),
        ("assistant", "answer one"),
        ("user", "prompt two"),
    ]
    assert sum(r.status == 529 for r in e2e.api.requests) == 2


async def test_ask_resuming_a_session_retries_at_its_previous_turn(e2e: E2E) -> None:
    e2e.api.reply(text="answer one")
    first = await cs.ask("prompt one", options=e2e.options(), transport=e2e.transport())
    overloaded(e2e)
    e2e.api.reply(text="answer two")
    options = e2e.options(
        resume=first.session_id,
        retry=POLICY,
        env={**e2e.api.env(max_retries=1), "HOME": str(e2e.home)},
    )
    two = await cs.ask("prompt two", options=options, transport=e2e.transport())
    assert two.session_id == first.session_id
    [attempt] = two.attempts
    assert attempt.resume_at is not None  # found in the local transcript
    last = [r for r in e2e.api.requests if r.kind == "main"][-1]
    assert texts(last) == [
        ("user", "prompt one"),
        ("assistant", "answer one"),
        ("user", "prompt two"),
    ]


async def test_a_first_turn_is_retried_in_its_session(e2e: E2E) -> None:
    e2e.api.reply(error=529)
    e2e.api.reply(text="finally")
    reply = await cs.ask(
        "only prompt", options=e2e.options(retry=POLICY), transport=e2e.transport()
    )
    assert reply.text == "finally"
    [attempt] = reply.attempts
    assert reply.session_id == attempt.session_id
    last = [r for r in e2e.api.requests if r.kind == "main"][-1]
    # no earlier message to resume at: the prompt is kept, and sent again (documented)
    assert [t for _, t in texts(last)] in (
        ["only prompt", "only prompt"],
        ["only prompt\n\nonly prompt"],
    )


async def test_an_auth_error_is_not_retried(e2e: E2E) -> None:
    e2e.api.reply(error=401, times=None)
    with pytest.raises(cs.ResultError) as info:
        await cs.ask("hi", options=e2e.options(retry=POLICY), transport=e2e.transport())
    assert info.value.kind == "auth"
    assert not hasattr(info.value, "retry_attempts")
    assert len(e2e.transports) == 1
    assert json.dumps([r.status for r in e2e.api.requests if r.kind == "main"]) == "[401]"

"""A pooled real CLI recycled between turns resumes the same session: the next prompt's
model request holds the whole conversation (issue 31, item 1)."""

from __future__ import annotations

import claude_sdk as cs

from .conftest import E2E


async def test_a_recycled_cli_resumes_the_whole_conversation(e2e: E2E) -> None:
    e2e.api.reply(text="Noted: the code is 4417.")
    e2e.api.reply(text="It was 4417.")
    recycle = cs.PoolRecycle(max_turns=1)
    async with cs.SessionPool(e2e.options(), transport=e2e.transport(), recycle=recycle) as pool:
        first = await pool.ask("k", "Remember the code 4417.")
        second = await pool.ask("k", "What was the code?")
    assert pool.stats.recycled == 2
    assert pool.stats.started == 2  # the second prompt went to a fresh CLI
    assert second.session_id == first.session_id  # the same conversation
    request = e2e.api.main_requests[-1]
    assert "Remember the code 4417." in str(request.messages)
    assert "Noted: the code is 4417." in str(request.messages)
    assert request.last_user_text.endswith("What was the code?")

"""A resume is whole, or it fails: no conversation with a hole.

A session runs two turns with a session store. Then the store loses two lines from the
middle of the conversation (as a store that was down for a moment would). Resumed on a
machine with nothing on its disk, the session refuses to start with `TranscriptGapError`,
naming what is missing, instead of handing the model a conversation without its first turn.
Resumed where the CLI's own transcript is, the gap is filled from it and the model sees every
turn.

Run: ``python examples/whole_resume.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import tempfile
from typing import Any

import anyio
import attrs

import claude_sdk as cs
from claude_sdk.stores import MemoryStore


class ForgetfulStore(MemoryStore):
    """A store that lost some lines (their uuids in ``lost``)."""

    def __init__(self) -> None:
        super().__init__()
        self.lost: set[str] = set()

    async def load(self, key: Any) -> Any:
        entries = await super().load(key)
        return None if entries is None else [e for e in entries if e.get("uuid") not in self.lost]


async def turn(session: cs.Session, prompt: str) -> str:
    await session.send(prompt)
    async for message in session.receive_response():
        if isinstance(message, cs.ResultMessage):
            return message.result or ""
    return ""


async def main() -> None:
    store = ForgetfulStore()
    base = cs.Options(session_store=store, store_project_key="demo")
    options = base.resume_or_start("whole-resume-demo")
    async with cs.open_session(options) as session:
        print("turn 1:", await turn(session, "Remember the word PELICAN."))
        print("turn 2:", await turn(session, "And the number 42."))
        session_id = session.session_id
    assert session_id is not None

    # The store loses the first answer and the second prompt.
    entries = await store.load({"project_key": "demo", "session_id": session_id}) or []
    talk = [e for e in entries if e.get("type") in ("user", "assistant")]
    store.lost = {talk[1]["uuid"], talk[2]["uuid"]}

    empty_home = tempfile.mkdtemp(prefix="whole-resume-home-")
    elsewhere = attrs.evolve(base, env={"HOME": empty_home})
    try:
        async with cs.open_session(elsewhere.resume_or_start("whole-resume-demo")):
            pass
    except cs.TranscriptGapError as exc:
        print(f"on an empty machine: TranscriptGapError, missing {len(exc.missing)} line(s)")
        print(f"  {exc.gaps[0]}")
        print(f"  retryable: {exc.retryable}")

    # Here, where the CLI's own transcript is, the gap is filled from it.
    async with cs.open_session(options) as session:
        print("turn 3:", await turn(session, "What were the word and the number?"))


if __name__ == "__main__":
    anyio.run(main)

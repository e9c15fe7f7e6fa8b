"""Resume you can trust: a resumed session confirms what it loaded before the first prompt.

A session opened with ``resume`` or ``continue_conversation`` asks the CLI which session it
loaded and whether it holds the earlier turns (``Options.verify_resume``, on by default):
another session, or an empty one (``continue_conversation`` with nothing to continue), raises
`SessionNotFoundError` before a prompt is sent. ``session.resumed`` holds what was confirmed.

Run: ``python examples/resume_trust.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import tempfile

import anyio

import claude_sdk as cs


async def main() -> None:
    first = await cs.ask("Remember the number 42.")
    async with cs.open_session(cs.Options(resume=first.session_id)) as session:
        confirmed = session.resumed
        assert confirmed is not None
        print(
            f"resumed {confirmed.session_id == first.session_id}, with history: "
            f"{bool(confirmed.history_chars)}"
        )
        await session.send("What was the number?")
        async for message in session.receive_response():
            if isinstance(message, cs.ResultMessage):
                print(f"answer: {message.result}")

    empty = tempfile.mkdtemp()  # a directory with no conversation to continue
    try:
        async with cs.open_session(cs.Options(cwd=empty, continue_conversation=True)):
            pass
    except cs.SessionNotFoundError as exc:
        print(f"continue in an empty directory: SessionNotFoundError ({exc})")
    options = cs.Options(cwd=empty, continue_conversation=True, resume_missing="start")
    async with cs.open_session(options) as session:
        assert session.resumed is not None
        print(f"... or start a new one when asked to: {session.resumed.started_new}")


if __name__ == "__main__":
    anyio.run(main)

"""One live owner per session: a second attempt on a live key is refused, or waits.

Two workers that resume the same session at once would fork its conversation, and the next
resume would silently drop one branch. With a store that keeps leases (the three shipped
stores do), a session has one live owner: a second `open_session` on a held key raises
`SessionBusyError` (retryable, naming the holder), or, with ``session_lease="wait"``, waits
until the first owner closes and then resumes the whole conversation.

Run: ``python examples/session_leases.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import tempfile

import anyio

import claude_sdk as cs
from claude_sdk.stores import DirectoryStore


async def turn(session: cs.Session, prompt: str) -> str:
    await session.send(prompt)
    async for message in session.receive_response():
        if isinstance(message, cs.ResultMessage):
            return message.result or ""
    return ""


async def main() -> None:
    store = DirectoryStore(tempfile.mkdtemp(prefix="leases-store-"))
    options = cs.Options(session_store=store).resume_or_start("ticket-42")
    first_open = anyio.Event()
    done_first = anyio.Event()

    async def first_worker() -> None:
        async with cs.open_session(options) as session:
            first_open.set()
            print("worker 1:", await turn(session, "Remember the word PELICAN."))
            # A second worker on the same key, at once: refused, nothing forked.
            try:
                async with cs.open_session(options):
                    pass
            except cs.SessionBusyError as exc:
                print(f"worker 2 (at once): SessionBusyError, retryable: {exc.retryable}")
        done_first.set()

    async def waiting_worker() -> None:
        await first_open.wait()
        waiting = cs.Options(session_store=store, session_lease="wait")
        with anyio.fail_after(120):  # bound the wait
            async with cs.open_session(waiting.resume_or_start("ticket-42")) as session:
                print("worker 3 (waited): opened after worker 1 closed:", done_first.is_set())
                print("worker 3:", await turn(session, "What was the word?"))

    async with anyio.create_task_group() as tg:
        tg.start_soon(first_worker)
        tg.start_soon(waiting_worker)


if __name__ == "__main__":
    anyio.run(main)

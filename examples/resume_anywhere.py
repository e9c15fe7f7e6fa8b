"""Resume a session on a machine that never ran it: a session store.

The first "machine" starts the work for a key (``ticket-4711``) with a `DirectoryStore`; the
CLI mirrors every transcript line into it. The second "machine" has an empty home directory
(and runs diskless: nothing of the transcript stays on its disk); `resume_or_start` finds the
session in the store, writes it where the CLI reads it, and the conversation goes on.

In production the store is shared (a network filesystem, or ``RedisStore(url)``) and the two
machines are two workers of an engine that retried the task; `ClaudeSDKError.retryable` tells
the engine whether a retry can help.

Run: ``python examples/resume_anywhere.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import anyio

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.stores import DirectoryStore

KEY = "ticket-4711"


async def turn(options: cs.Options, prompt: str) -> str:
    async with cs.open_session(options) as session:
        print(f"session {session.session_id}: {prompt}")
        await session.send(prompt)
        async for message in session.receive_response():
            if isinstance(message, cs.ResultMessage):
                return message.result or ""
    return ""


async def main() -> None:
    with tempfile.TemporaryDirectory() as shared, tempfile.TemporaryDirectory() as other_home:
        store = DirectoryStore(Path(shared) / "transcripts")
        options = cs.Options(session_store=store, store_project_key="tickets")

        # Machine 1: starts the session with the key's stable id.
        print("machine 1:", await turn(options.resume_or_start(KEY), "Remember: the code is 42."))

        # Machine 2: an empty HOME, diskless; the store alone has the conversation.
        elsewhere = cs.Options(
            session_store=store,
            store_project_key="tickets",
            diskless=True,
            env={"HOME": other_home},
        ).resume_or_start(KEY)
        try:
            print("machine 2:", await turn(elsewhere, "What was the code?"))
        except cs.ClaudeSDKError as exc:
            print(f"failed ({'retry' if exc.retryable else 'give up'}): {exc}")
            raise
        print("files left on machine 2:", sum(len(f) for _, _, f in os.walk(other_home)))

        sessions = history.in_store(store, project_key="tickets")
        info = await sessions.session_info(cs.session_id_for(KEY))
        print(f"in the store: {info.message_count} messages, first prompt {info.first_prompt!r}")


if __name__ == "__main__":
    anyio.run(main)

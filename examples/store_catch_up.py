"""The store catches up: lines a store refused are appended again when it answers.

A session's store goes down for one turn (a Redis restart, say). The turn goes on; the lines
the store refused wait, in order, and ``session.store_failures`` says how many. When the
store is back, the next turn's flush appends them first, and ``store_failures`` is empty:
the store holds the whole conversation, each line once. Then `import_session_to_store`
copies the CLI's own transcript of the session into a second store.

Run: ``python examples/store_catch_up.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

from typing import Any

import anyio

import claude_sdk as cs
from claude_sdk.stores import MemoryStore, import_session_to_store
from claude_sdk.stores._chain import gaps


class RestartingStore(MemoryStore):
    """A store that refuses every append while ``down``."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False

    async def append(self, key: Any, entries: list[dict[str, Any]]) -> None:
        if self.down:
            raise ConnectionError("the store is restarting")
        await super().append(key, entries)


async def turn(session: cs.Session, prompt: str) -> None:
    await session.send(prompt)
    async for _ in session.receive_response():
        pass


async def main() -> None:
    store = RestartingStore()
    options = cs.Options(session_store=store, store_project_key="demo")
    async with cs.open_session(options.resume_or_start("catch-up-demo")) as session:
        await turn(session, "Turn one.")
        store.down = True
        await turn(session, "Turn two, while the store restarts.")
        waiting = sum(f.entries for f in session.store_failures)
        print(f"while the store is down: {waiting} lines wait to be stored")
        store.down = False
        await turn(session, "Turn three, the store is back.")
        print(f"after the next turn: store_failures = {session.store_failures}")
        session_id = session.session_id
    assert session_id is not None
    stored = await store.load({"project_key": "demo", "session_id": session_id}) or []
    uuids = [e["uuid"] for e in stored if "uuid" in e]
    print(f"the store holds {len(stored)} lines, each once: {len(uuids) == len(set(uuids))}")
    print(f"gaps in the store's transcript: {len(gaps(stored, session_id))}")

    copy = MemoryStore()
    imported = await import_session_to_store(session_id, copy)
    print(f"imported {imported.lines} lines from this machine into a second store")


if __name__ == "__main__":
    anyio.run(main)

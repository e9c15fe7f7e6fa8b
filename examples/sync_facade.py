"""Call Claude from plain, synchronous code with ``claude_sdk.sync``.

``claude_sdk.sync.ask`` and ``claude_sdk.sync.open_session`` run the async API on an event
loop in a helper thread, so they work in scripts, in worker threads and inside a running loop
(a Jupyter cell).

Run: ``python examples/sync_facade.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import claude_sdk as cs


def main() -> None:
    reply = cs.sync.ask("What is 2 + 2?")
    print(f"ask: {reply.text}")
    with cs.sync.open_session() as session:
        session.send("Name a prime number.")
        for message in session.receive_response():
            if isinstance(message, cs.AssistantMessage) and message.text:
                print(f"session: {message.text}")


if __name__ == "__main__":
    main()

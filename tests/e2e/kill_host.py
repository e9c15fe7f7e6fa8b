"""A host for `test_store_kill_e2e.py`: one session with the real CLI and a DirectoryStore,
one prompt whose turn runs many tool steps; the test kills this process (SIGKILL) mid-turn.

    python tests/e2e/kill_host.py CONFIG_JSON

CONFIG_JSON: ``{"cli": ..., "env": {...}, "cwd": ..., "store": ..., "flush": "batched" |
"eager", "key": ..., "diskless": bool}``. Prints ``READY <config dir>`` when the prompt is
sent. Imports nothing of tests.
"""

from __future__ import annotations

import json
import sys

import anyio

import claude_sdk as cs
from claude_sdk.stores import DirectoryStore


async def main(config: dict[str, object]) -> None:
    options = cs.Options(
        cli_path=str(config["cli"]),
        env=dict(config["env"]),  # type: ignore[call-overload]
        cwd=str(config["cwd"]),
        session_store=DirectoryStore(str(config["store"])),
        session_store_flush=str(config["flush"]),  # type: ignore[arg-type]
        allowed_tools=["Bash"],
        initialize_timeout=30.0,
        diskless=bool(config.get("diskless")),
    )
    async with cs.open_session(options.resume_or_start(str(config["key"]))) as session:
        await session.send("Run the steps.")
        print("READY", session.options.env.get("CLAUDE_CONFIG_DIR") or "", flush=True)
        async for message in session.receive_response():
            if isinstance(message, cs.ResultMessage):
                print("DONE", flush=True)


if __name__ == "__main__":
    anyio.run(main, json.loads(sys.argv[1]))

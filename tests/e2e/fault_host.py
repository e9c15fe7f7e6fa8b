"""A host for `test_store_faults_e2e.py`: a session with the real CLI and a store, one
acknowledged turn, then one turn of many tool steps; the test kills this process (SIGKILL)
mid-turn.

    python tests/e2e/fault_host.py CONFIG_JSON

CONFIG_JSON: ``{"cli": ..., "env": {...}, "cwd": ..., "store": <directory> | "redis://...",
"prefix": ..., "flush": "batched" | "eager", "key": ...}``. Prints ``ACKED`` when the first
turn's result was handed out, ``READY`` when the second prompt is sent. Imports nothing of
tests.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio

import claude_sdk as cs
from claude_sdk.stores import DirectoryStore, RedisStore


async def main(config: dict[str, Any]) -> None:
    where = str(config["store"])
    store: Any
    if where.startswith("redis://"):
        store = RedisStore(where, prefix=str(config["prefix"]))
    else:
        store = DirectoryStore(where)
    options = cs.Options(
        cli_path=str(config["cli"]),
        env=dict(config["env"]),
        cwd=str(config["cwd"]),
        session_store=store,
        session_store_flush=config["flush"],
        allowed_tools=["Bash"],
        initialize_timeout=30.0,
    )
    async with cs.open_session(options.resume_or_start(str(config["key"]))) as session:
        await session.send("turn one: say FIRST")
        async for message in session.receive_response():
            if isinstance(message, cs.ResultMessage):
                print("ACKED", message.result, flush=True)
        await session.send("turn two: run the steps")
        print("READY", flush=True)
        async for message in session.receive_response():
            if isinstance(message, cs.ResultMessage):
                print("DONE", flush=True)


if __name__ == "__main__":
    anyio.run(main, json.loads(sys.argv[1]))

"""A spare CLI for any folder: started before the work is known, claimed by the next key.

``SessionPool(prewarm=1, claimable=True)`` keeps a CLI started and parked (``--await-claim``)
with no folder; a key's first lease claims it for that key's folder, so the first prompt does
not wait for a CLI to start. ``key_options`` gives each key its folder.

Run: ``python examples/pool_spares.py`` (needs a logged-in Claude Code CLI). It makes two
folders under ``./spare-demo``.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import attrs

import claude_sdk as cs

ROOT = Path("spare-demo").resolve()


async def main() -> None:
    for name in ("billing", "search"):
        (ROOT / name).mkdir(parents=True, exist_ok=True)
        (ROOT / name / "README.md").write_text(f"# The {name} service\n")
    options = cs.Options()

    def per_key(key: str) -> cs.Options:
        return attrs.evolve(options, cwd=str(ROOT / key))

    async with cs.SessionPool(options, prewarm=1, claimable=True, key_options=per_key) as pool:
        await pool.wait_until(lambda p: p.warm == 1)
        print("a spare is parked, no folder yet")
        for key in ("billing", "search"):
            await pool.wait_until(lambda p: p.warm == 1)  # the pool refills its spare
            reply = await pool.ask(key, "Which service is this? One line.")
            print(f"{key}: {reply.text}")
        print(f"claimed {pool.stats.claimed}, refused {pool.stats.claims_refused}")


if __name__ == "__main__":
    anyio.run(main)

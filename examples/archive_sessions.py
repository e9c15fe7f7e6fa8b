"""Archive sessions, and list a store's sessions from the summaries it keeps.

``history.archive_session`` marks a session as the TypeScript SDK's ``archiveSession`` does
(``<session-id>/archived.json`` beside the transcript): listings still give it, with
``archived=True``, until a prompt is sent in it. A store's listing
(``history.in_store(store).list_sessions()``) is one ``list_session_summaries`` call when
the store keeps summaries (the shipped stores do), instead of a ``load`` per session.

Offline: the sessions are written into a throwaway configuration directory and a
`MemoryStore`, as the CLI and its mirror would write them; no CLI, no API.

Run: ``python examples/archive_sessions.py``.
"""

from __future__ import annotations

import json
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import anyio

from claude_sdk import history
from claude_sdk.errors import OptionsError
from claude_sdk.stores import MemoryStore, SessionKey

SESSIONS = {
    "0a7c4a1e-0000-4000-8000-000000000001": "Summarise the release notes",
    "0a7c4a1e-0000-4000-8000-000000000002": "Fix the flaky test",
}


def transcript(session_id: str, prompt: str, when: datetime) -> list[dict[str, Any]]:
    stamp = when.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return [
        {
            "type": "user",
            "uuid": f"{session_id[:-4]}0001",
            "sessionId": session_id,
            "timestamp": stamp,
            "cwd": "/work/demo",
            "message": {"role": "user", "content": prompt},
        }
    ]


def show(title: str, infos: list[history.SessionInfo]) -> None:
    print(title)
    for info in infos:
        mark = "archived" if info.archived else "active  "
        print(f"  {mark}  {info.session_id}  {info.first_prompt}")


def on_disk(config: Path) -> None:
    cwd = config / "work"
    cwd.mkdir()
    project = history.project_dir(cwd, config_dir=config)
    project.mkdir(parents=True)
    earlier = datetime.now(timezone.utc) - timedelta(hours=1)
    for session_id, prompt in SESSIONS.items():
        lines = transcript(session_id, prompt, earlier)
        (project / f"{session_id}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))

    first, second = SESSIONS
    history.archive_session(first, cwd, config_dir=config)
    show("after archive_session:", history.list_sessions(cwd, config_dir=config))

    # A prompt sent in the session after the mark unarchives it (the TypeScript SDK's rule).
    later = datetime.now(timezone.utc) + timedelta(seconds=1)
    with (project / f"{first}.jsonl").open("a") as f:
        f.write(json.dumps(transcript(first, "One more thing", later)[0]) + "\n")
    show("after a new prompt:", history.list_sessions(cwd, config_dir=config))

    history.archive_session(second, cwd, config_dir=config)
    history.unarchive_session(second, cwd, config_dir=config)
    show("after archive and unarchive:", history.list_sessions(cwd, config_dir=config))


async def in_a_store() -> None:
    store = MemoryStore()
    when = datetime.now(timezone.utc)
    for session_id, prompt in SESSIONS.items():
        key: SessionKey = {"project_key": "-work-demo", "session_id": session_id}
        await store.append(key, transcript(session_id, prompt, when))
    summaries = await store.list_session_summaries("-work-demo")
    print(f"the store keeps {len(summaries)} summaries")
    sessions = history.in_store(store, project_key="-work-demo")
    show("listed from the store's summaries:", await sessions.list_sessions())
    try:
        await sessions.archive_session(next(iter(SESSIONS)))
    except OptionsError as exc:
        print(f"archiving in a store: {exc.kind}: {exc}")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="archive-example-") as where:
        on_disk(Path(where))
    anyio.run(in_a_store)


if __name__ == "__main__":
    main()

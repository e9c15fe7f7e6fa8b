"""Cassettes of the real CLI: a session with a ``can_use_tool`` callback and a hook,
recorded live (offline, against FakeMessagesAPI), then replayed strictly on asyncio and Trio.

The replay must give the code under test exactly what the live run gave it, with its
callbacks running again and their answers checked against the recording. The committed
cassette (``tests/data/cassettes/permission_and_hook.jsonl``) is what
``tests/testing/test_cassette.py`` replays without the CLI; re-record it with
``CLAUDE_SDK_RECORD_E2E=1 nox -s e2e`` when the CLI pin moves (only the pinned CLI's
recording is committed).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import claude_sdk as cs
from claude_sdk.testing import Cassette, RecordingTransport, ReplayTransport, check_drift
from claude_sdk.transports.subprocess import SubprocessTransport

from ..support.fetch_cli import CLI_VERSION
from ..testing.test_cassette import COMMITTED, FINAL, PROMPT, Seen, run_scenario, script_api
from .conftest import DRIFT, E2E


async def test_a_recorded_session_replays_like_the_live_one(
    e2e: E2E, tmp_path: Path, anyio_backend: str, claude_cli_version: str
) -> None:
    script_api(e2e.api)
    path = tmp_path / "cassette.jsonl"
    recorder = RecordingTransport(
        SubprocessTransport(), path, scrub={str(tmp_path): "<tmp>", e2e.api.base_url: "<api>"}
    )
    live_seen = Seen()
    live = await run_scenario(e2e.options(**live_seen.callbacks()), recorder)
    assert live.result == FINAL
    assert live.tool_errors == (True, False)  # the hook denied rm, touch ran
    assert live.returncode == 0
    assert live_seen == Seen.expected()
    assert PROMPT in e2e.api.main_requests[0].last_user_text

    cassette = Cassette.load(path)
    [recording] = cassette.recordings
    assert recording.cli_version == claude_cli_version  # what `claude --version` says
    assert recording.returncode == 0
    text = path.read_text(encoding="utf-8")
    for machine in (str(tmp_path), str(e2e.home), str(e2e.cwd), "pytest-of-", e2e.api.base_url):
        assert machine not in text
    # What the model does not know goes to the one drift report (test_drift_report.py).
    DRIFT.findings.extend(
        ("cassette", f"Cassette {f.direction} {f.frame}", f.problem) for f in check_drift(path)
    )

    # Strict replay, the callbacks run again (fresh state) and are checked.
    replay_seen = Seen()
    replay = ReplayTransport(path)
    assert await run_scenario(cs.Options(**replay_seen.callbacks()), replay) == live
    assert replay_seen == live_seen
    assert replay.errors == []

    recording_pin = claude_cli_version == CLI_VERSION
    if (
        os.environ.get("CLAUDE_SDK_RECORD_E2E") == "1"
        and anyio_backend == "asyncio"
        and recording_pin
    ):
        COMMITTED.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, COMMITTED)

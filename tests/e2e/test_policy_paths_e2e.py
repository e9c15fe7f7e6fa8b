"""Issue 27, item 6, against the real CLI: paths as the CLI's process sees them.

* After the model ran ``cd sub``, the hook input's ``cwd`` is ``work/sub`` while the CLI's
  process still runs in ``work/``: ``Read /proc/self/cwd/secret/key`` returns
  ``work/secret/key``. ``deny_paths("secret")`` as a PreToolUse hook denies it (the policy
  reads the CLI process's working directory from ``/proc/<pid>/cwd``).
* A denied tree bind-mounted below ``work/public``: Grep and Glob of ``public`` would print
  and list the secret; the policy denies them.

Each case runs once without the policy too, to show that the CLI really reaches the secret
that way (the oracle), then with it, where no tool result holds the secret.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import claude_sdk as cs
from claude_sdk.policies import deny_paths

from .conftest import E2E

SECRET = "the-secret-value-27"
TOOLS = ["Read", "Grep", "Glob", "Bash"]
CONTENT = {"output_mode": "content"}


async def _results(e2e: E2E, options: cs.Options) -> list[Any]:
    """The tool results of the turn, in the order of the scripted calls."""
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("go")
        async for _ in session.receive_response():
            pass
    results = [r for request in e2e.api.main_requests for r in request.tool_results]
    return sorted(results, key=lambda r: int(r.tool_use_id.rpartition("_")[2]))


@pytest.mark.parametrize("guarded", [False, True], ids=["unguarded", "policy"])
async def test_proc_self_cwd_after_cd_is_the_cli_process_s(e2e: E2E, guarded: bool) -> None:
    work = e2e.cwd
    (work / "secret").mkdir()
    (work / "secret" / "key").write_text(SECRET)
    (work / "sub" / "secret").mkdir(parents=True)
    (work / "sub" / "secret" / "key").write_text("nothing to see")
    os.symlink("/proc/self/cwd", work / "sub" / "up")
    e2e.api.reply(tool_use=("Bash", {"command": "cd sub && pwd"}))
    e2e.api.reply(
        tool_use=[
            ("Read", {"file_path": "/proc/self/cwd/secret/key"}),
            ("Read", {"file_path": str(work / "sub" / "up" / "secret" / "key")}),
            ("Grep", {"pattern": "secret-value", "path": "/proc/self/cwd/secret", **CONTENT}),
            ("Glob", {"pattern": "secret/*", "path": "/proc/self/cwd"}),
            ("Read", {"file_path": "secret/key"}),  # relative: the hook's cwd, work/sub
        ]
    )
    e2e.api.reply(text="done")
    hooks = {"PreToolUse": [deny_paths(work / "secret")]} if guarded else {}
    results = await _results(e2e, e2e.options(hooks=hooks, allowed_tools=TOOLS))
    cd, *reads, relative = results
    assert cd.text.strip().endswith("/sub")  # the Bash tool's cd took effect
    assert "nothing to see" in relative.text
    assert not relative.is_error
    texts = [r.text for r in reads]
    if not guarded:  # the CLI's process is still in work/: the secret is right there
        assert [SECRET in t for t in texts] == [True, True, True, False], texts
        assert "secret/key" in texts[3]  # Glob lists work/secret/key
        return
    assert all(r.is_error for r in reads), texts
    assert not [t for t in texts if SECRET in t], texts
    assert all("denied path" in t for t in texts), texts


class _Binds:
    def __init__(self) -> None:
        self.points: list[Path] = []

    def bind(self, source: Path, point: Path) -> None:
        point.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "--bind", str(source), str(point)], check=True, timeout=30)
        self.points.append(point)

    def undo(self) -> None:
        for point in reversed(self.points):
            if subprocess.run(["umount", str(point)], check=False, timeout=30).returncode:
                subprocess.run(["umount", "-l", str(point)], check=False, timeout=30)


@pytest.fixture
def binds() -> Iterator[_Binds]:
    if os.geteuid() != 0:
        pytest.skip("a bind mount needs root")
    made = _Binds()
    try:
        yield made
    finally:
        made.undo()


@pytest.mark.parametrize("guarded", [False, True], ids=["unguarded", "policy"])
async def test_a_bind_mounted_secret_is_not_printed_by_grep(
    e2e: E2E, binds: _Binds, guarded: bool
) -> None:
    work = e2e.cwd
    secrets = work / "vault" / "secrets"
    secrets.mkdir(parents=True)
    (secrets / "key").write_text(SECRET)
    (work / "public" / "docs").mkdir(parents=True)
    (work / "public" / "docs" / "readme").write_text("public text")
    binds.bind(secrets, work / "public" / "docs" / "mirror")
    e2e.api.reply(
        tool_use=[
            ("Grep", {"pattern": "secret-value", "path": "public", "output_mode": "content"}),
            ("Glob", {"pattern": "**/key", "path": str(work / "public")}),
            ("Read", {"file_path": str(work / "public" / "docs" / "mirror" / "key")}),
            ("Grep", {"pattern": "public text", "path": "public/docs/readme"}),
        ]
    )
    e2e.api.reply(text="done")
    hooks = {"PreToolUse": [deny_paths(secrets)]} if guarded else {}
    results = await _results(e2e, e2e.options(hooks=hooks, allowed_tools=TOOLS))
    grep, glob, read, harmless = results
    assert not harmless.is_error  # a file beside the mount point is searched as ever
    if not guarded:  # grep prints the secret, glob lists the key, through the mount point
        assert SECRET in grep.text
        assert "mirror/key" in glob.text
        assert SECRET in read.text
        return
    for result in (grep, glob, read):
        assert result.is_error
        assert SECRET not in result.text
        assert "denied path" in result.text
    assert "mount point" in grep.text
    assert "mount point" in glob.text

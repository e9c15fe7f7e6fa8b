"""What it takes to start one CLI: the launch spec (pure data).

`LaunchSpec` is what every transport receives: the argv, the environment, the working
directory, and the SDK-side limits a transport applies (line limit, stderr callback, shutdown
grace). ``Options -> LaunchSpec`` is a pure function, so flags are built in one place for
every transport that runs a real CLI.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from .._version import __version__
from ..control import HookMatcherConfig, InitializeRequest
from ..options import Options
from .framing import DEFAULT_MAX_LINE_BYTES

__all__ = [
    "BASE_ARGS",
    "HookRegistration",
    "LaunchSpec",
    "build_initialize",
    "build_launch_spec",
    "register_hooks",
]

#: The fixed part of every command line (PROTOCOL.md §2.1).
BASE_ARGS: tuple[str, ...] = (
    "--output-format",
    "stream-json",
    "--verbose",
    "--input-format",
    "stream-json",
)


@attrs.frozen(kw_only=True)
class LaunchSpec:
    """How to start one CLI.

    Attributes:
        argv: the program and its arguments; ``argv[0]`` is the CLI path (or just
            ``"claude"`` when a transport resolves it).
        env: variables set on top of the inherited environment (local transports), or the
            whole environment to pass (remote transports decide).
        unset_env: inherited variables to remove (``CLAUDECODE`` and friends).
        cwd: the working directory, or None for the current one.
        max_line_bytes: the longest stdout line accepted.
        shutdown_grace: seconds the CLI gets to exit after stdin closes before SIGTERM.
        stderr: called with each stderr line (exceptions are logged and contained).
    """

    argv: tuple[str, ...] = ("claude", *BASE_ARGS)
    env: Mapping[str, str] = attrs.field(factory=dict)
    unset_env: tuple[str, ...] = ()
    cwd: str | None = None
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    shutdown_grace: float = 5.0
    stderr: Callable[[str], object] | None = attrs.field(default=None, eq=False)


@attrs.frozen(kw_only=True)
class HookRegistration:
    """One registered hook callback: its id, event and matcher."""

    callback_id: str
    event: str
    matcher: Any  # hooks.HookMatcher
    callback: Any  # hooks.HookCallback


def register_hooks(
    hooks: Mapping[str, Sequence[Any]],
) -> tuple[dict[str, list[HookMatcherConfig]] | None, dict[str, HookRegistration]]:
    """Assign callback ids (``hook_0``, ``hook_1``, ... across all events).

    Returns:
        The ``hooks`` field of ``initialize`` (None when there are none) and the id table.
    """
    table: dict[str, HookRegistration] = {}
    config: dict[str, list[HookMatcherConfig]] = {}
    counter = 0
    for event, matchers in hooks.items():
        for matcher in matchers:
            ids = []
            for callback in matcher.hooks:
                callback_id = f"hook_{counter}"
                counter += 1
                ids.append(callback_id)
                table[callback_id] = HookRegistration(
                    callback_id=callback_id, event=event, matcher=matcher, callback=callback
                )
            if ids:
                config.setdefault(event, []).append(
                    HookMatcherConfig(
                        matcher=matcher.matcher,
                        hook_callback_ids=ids,
                        timeout=matcher.timeout,
                        on_failure=matcher.on_failure,
                    )
                )
    return (config or None), table


def build_launch_spec(options: Options) -> LaunchSpec:
    """The command line, environment and limits for ``options`` (pure)."""
    argv: list[str] = [options.cli_path or "claude", *BASE_ARGS]
    if options.system_prompt is not None:
        argv += ["--system-prompt", options.system_prompt]
    else:
        argv += ["--system-prompt", ""]
    if options.model is not None:
        argv.append(f"--model={options.model}")
    if options.permission_mode is not None:
        argv.append(f"--permission-mode={options.permission_mode}")
    if options.allowed_tools:
        argv.append(f"--allowedTools={','.join(options.allowed_tools)}")
    if options.disallowed_tools:
        argv.append(f"--disallowedTools={','.join(options.disallowed_tools)}")
    if options.max_turns is not None:
        argv.append(f"--max-turns={options.max_turns}")
    if options.include_partial_messages:
        argv.append("--include-partial-messages")
    if options.resume is not None:
        argv.append(f"--resume={options.resume}")
    if options.can_use_tool is not None:
        argv.append("--permission-prompt-tool=stdio")
    for flag, value in options.extra_args.items():
        argv.append(f"--{flag}" if value is None else f"--{flag}={value}")
    env = {
        "CLAUDE_CODE_ENTRYPOINT": "sdk-py",
        "CLAUDE_CODE_SDK_READS_SESSION_STATE": "1",
        **options.env,
        "CLAUDE_AGENT_SDK_VERSION": __version__,
    }
    return LaunchSpec(
        argv=tuple(argv),
        env=env,
        unset_env=("CLAUDECODE",),
        cwd=options.cwd,
        max_line_bytes=options.max_line_bytes,
        shutdown_grace=options.shutdown_grace,
        stderr=options.stderr,
    )


def build_initialize(options: Options) -> tuple[InitializeRequest, dict[str, HookRegistration]]:
    """The ``initialize`` request for ``options`` and the hook id table."""
    hooks, table = register_hooks(options.hooks)
    return InitializeRequest(hooks=hooks), table

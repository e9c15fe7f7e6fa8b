"""``python -m claude_sdk.testing``: tools for the test kit.

``drift FILE...`` lists the frames, fields and kinds in cassettes, transcripts or plain NDJSON
files of frames that the installed wire model does not know (strict decoding; see
`claude_sdk.testing.cassette.check_drift`), to gate a CLI upgrade: record a few sessions with
the new CLI, then run ``drift`` over them. Findings are grouped (the same unknown field on
every message is reported once, with its count and first place); ``--verbose`` lists each.

Exit status: 0 when nothing is unknown, 1 when something is, 2 when an input cannot be read.

``fake-cli [--reply TEXT]... [--script MODULE:FUNCTION] [--version V] [-- CLI ARGS]`` plays a
scripted CLI on stdin/stdout (see `claude_sdk.testing.stdio`): point ``Options.cli_path`` or
``$CLAUDE_SDK_CLI_PATH`` at an executable that runs it (`stdio.write_fake_cli` writes one).

``policy-check MODULE:NAME FILE... [--cwd DIR] [--default allow|deny] [--json]`` replays the
tool calls recorded in cassettes, transcripts or NDJSON files of frames through a permission
policy (a `Policy`, its hook or ``can_use_tool`` adapter, or a factory taking no arguments
that returns one; MODULE is a dotted name importable from the current directory, or a
``.py`` file) and prints one line per call: where, the tool, its input in short, the recorded
verdict, the policy's, and ``[DIFFERS]`` when they differ; then a summary on stderr.
``--json`` prints one JSON object per call instead. Recorded text is printed with every
control or format character escaped (``policy_check.printable``), so a hostile recording
cannot drive the terminal, and each field of a line is cut short. ``--cwd`` is what ``<cwd>`` in the
recordings stands for (default: the current directory); ``--default`` is the verdict a
policy's ``continue`` stands for (without it a ``continue`` is undecided, never a
difference). See `claude_sdk.testing.policy_check` for how verdicts are read and compared.

Exit status: 0 when no call differs, 1 when one does, 2 when the policy cannot be loaded or an
input cannot be read (not JSON, or nested deeper than 500 levels: one line naming the file
and line, and the other files are still checked).
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from collections.abc import Sequence

from .cassette import CLI_TO_SDK, SDK_TO_CLI, CassetteFormatError, DriftFinding, check_drift

__all__ = ["main"]

_INDEX = re.compile(r"\[\d+\]")


def _check(path: str, directions: tuple[str, ...]) -> list[DriftFinding] | None:
    """The findings of one file, or None (reported) when it cannot be read."""
    try:
        return check_drift(path, directions=directions)
    except (OSError, UnicodeDecodeError, CassetteFormatError) as exc:
        print(f"{path}: cannot read: {exc}", file=sys.stderr)
        return None


def _drift(args: argparse.Namespace) -> int:
    directions = {"cli": (CLI_TO_SDK,), "sdk": (SDK_TO_CLI,), "both": (CLI_TO_SDK, SDK_TO_CLI)}
    findings: list[DriftFinding] = []
    unreadable = 0
    for path in args.files:
        found = _check(path, directions[args.direction])
        if found is None:
            unreadable += 1
        else:
            findings += found
    if args.verbose:
        for finding in findings:
            print(finding)
    else:
        groups: dict[tuple[str, str], list[DriftFinding]] = collections.defaultdict(list)
        for finding in findings:
            groups[finding.frame, _INDEX.sub("[]", finding.problem)].append(finding)
        for (frame, problem), found in groups.items():
            first = found[0]
            more = f" (x{len(found)})" if len(found) > 1 else ""
            print(f"{frame}: {problem}{more}  [first at {first.path}:{first.line}]")
    files = len(args.files) - unreadable
    verdict = "nothing unknown" if not findings else f"{len(findings)} unknown"
    print(f"drift: {files} file{'s' if files != 1 else ''} checked, {verdict}", file=sys.stderr)
    if unreadable:
        return 2
    return 1 if findings else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m claude_sdk.testing", description="claude_sdk test kit tools"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    drift = commands.add_parser(
        "drift",
        help="list what the installed wire model does not know in recorded frames",
        description="List frames, fields and kinds the installed wire model does not know, "
        "in cassettes, transcripts or NDJSON files of frames. Exit 0: nothing unknown; "
        "1: something is; 2: an input cannot be read.",
    )
    drift.add_argument("files", nargs="+", metavar="FILE", help="cassette or NDJSON files")
    drift.add_argument(
        "--direction",
        choices=("cli", "sdk", "both"),
        default="cli",
        help="which frames of a cassette or transcript to check: what the CLI sent "
        "(default), what the SDK sent, or both",
    )
    drift.add_argument("-v", "--verbose", action="store_true", help="list every occurrence")
    fake = commands.add_parser(
        "fake-cli",
        help="play a scripted Claude Code CLI on stdin/stdout",
        description="Play a scripted CLI on stdin/stdout, for Options.cli_path or "
        "$CLAUDE_SDK_CLI_PATH. Exit status: the script's.",
    )
    fake.add_argument(
        "--reply", action="append", default=[], metavar="TEXT", help="the next turn's text"
    )
    fake.add_argument("--script", metavar="MODULE:FUNCTION", help="a FakeCLI script to play")
    fake.add_argument("--version", help="the CLI version to report")
    fake.add_argument("cli_args", nargs="*", help="the CLI's own arguments (after --)")
    check = commands.add_parser(
        "policy-check",
        help="replay recorded tool calls through a permission policy (a dry run)",
        description="Replay the tool calls recorded in cassettes, transcripts or NDJSON files "
        "of frames through a permission policy and print, call by call, what it would decide "
        "and whether that differs from the recording. Exit 0: no call differs; 1: one does; "
        "2: the policy cannot be loaded or an input cannot be read.",
    )
    check.add_argument(
        "policy",
        metavar="MODULE:NAME",
        help="a Policy, its hook or can_use_tool adapter, or a factory taking no arguments "
        "that returns one (MODULE: a dotted name or a .py file)",
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="cassette or NDJSON files")
    check.add_argument(
        "--cwd", metavar="DIR", help="what <cwd> in the recordings stands for (default: .)"
    )
    check.add_argument(
        "--default",
        choices=("allow", "deny"),
        help="the verdict a policy's 'continue' stands for (default: undecided, never a "
        "difference)",
    )
    check.add_argument("--json", action="store_true", help="print one JSON object per call")
    args = parser.parse_args(argv)
    if args.command == "fake-cli":
        return _fake_cli(args)
    if args.command == "policy-check":
        return _policy_check(args)
    return _drift(args)


def _policy_check(args: argparse.Namespace) -> int:
    from .policy_check import (
        CallVerdict,
        check_call,
        load_policy,
        printable,
        printable_json,
        read_calls,
    )

    try:
        policy = load_policy(args.policy)
    except ValueError as exc:
        print(f"policy-check: {printable(str(exc))}", file=sys.stderr)
        return 2
    verdicts: list[CallVerdict] = []
    unreadable = 0
    for path in args.files:
        try:
            calls = read_calls(path)
        except (OSError, UnicodeDecodeError, CassetteFormatError) as exc:
            where = printable(path)
            print(f"policy-check: {where}: cannot read: {_one_line(exc)}", file=sys.stderr)
            unreadable += 1
            continue
        for call in calls:
            verdict = check_call(policy, call, cwd=args.cwd, default=args.default)
            verdicts.append(verdict)
            # Recorded text never reaches the terminal raw (see policy_check.printable).
            print(printable_json(verdict.to_dict()) if args.json else verdict)
    counts = collections.Counter(v.outcome for v in verdicts)
    files = len(args.files) - unreadable
    print(
        f"policy-check: {len(verdicts)} call{'s' if len(verdicts) != 1 else ''} in {files} "
        f"file{'s' if files != 1 else ''}: {counts['differ']} differ, {counts['match']} "
        f"match, {counts['undecided']} undecided, {counts['unknown']} unknown",
        file=sys.stderr,
    )
    if unreadable:
        return 2
    return 1 if counts["differ"] else 0


def _one_line(exc: BaseException) -> str:
    """An error in one printable line (its text may quote a file's name or content)."""
    from .policy_check import printable

    if isinstance(exc, OSError) and exc.strerror:
        return printable(exc.strerror)
    return printable(" ".join(str(exc).split()))


def _fake_cli(args: argparse.Namespace) -> int:
    import anyio

    from .fake_cli import FakeCLI
    from .stdio import load_script, serve_stdio

    if args.script is not None and args.reply:
        print("fake-cli: pass --reply or --script, not both", file=sys.stderr)
        return 2
    try:
        script = load_script(args.script) if args.script is not None else None
    except (ValueError, ImportError, OSError) as exc:
        print(f"fake-cli: {exc}", file=sys.stderr)
        return 2
    kwargs = {"version": args.version} if args.version else {}
    fake = FakeCLI(replies=args.reply, **kwargs) if script is None else FakeCLI(script, **kwargs)
    argv = ["claude", *args.cli_args]
    return anyio.run(serve_stdio, fake, argv)


if __name__ == "__main__":
    sys.exit(main())

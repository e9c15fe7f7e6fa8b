"""What a command's options mean: the table `deny_commands` matches flags by.

A pattern such as ``rm -rf`` is read with the program's table into meanings (``recursive``,
``force``); a command matches when its arguments, read the same way, carry those meanings,
however they are spelled: ``-Rf``, ``-R -f``, ``-dRf``, ``--recursive --force``, ``-r
--force``, ``--rec --for`` (a unique abbreviation, as getopt_long takes it). Programs not in
the table are read literally, except that short-option clusters are compared by letter
(``-xy`` carries ``-x`` and ``-y``).

A table entry is a `Spec`: short letters and long names to meanings, the options that take
an argument (so that ``-e PATTERN`` does not read PATTERN as options), and for ``git`` one
spec per subcommand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import attrs

from .._attrs import frozen

__all__ = ["Reading", "Spec", "read", "spec_for"]


@frozen
class Spec:
    """The options of one program (or one subcommand).

    Attributes:
        short: short option letter to the meanings it carries.
        long: long option name (without ``--``) to its meanings.
        with_argument: short letters and long names that take an argument.
        bundling: short options cluster (``-rf``); False for ``find``-style ``-name``.
        subcommands: for ``git``, the spec of each subcommand.
        global_with_argument: options before a subcommand that take an argument.
        plus_means: a meaning an operand starting with ``+`` carries (``git push +main``).
    """

    short: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    long: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    with_argument: frozenset[str] = frozenset()
    bundling: bool = True
    subcommands: Mapping[str, Spec] | None = None
    global_with_argument: frozenset[str] = frozenset()
    plus_means: str | None = None


@frozen
class Reading:
    """Arguments read with a spec.

    Attributes:
        meanings: what the options mean (a letter or word for programs not in the table).
        operands: the arguments that are not options (with the subcommand first for git).
    """

    meanings: frozenset[str]
    operands: tuple[str, ...]


def _spec(
    short: str = "",
    long: str = "",
    argument: str = "",
    **extra: object,
) -> Spec:
    """A spec from a compact text: ``short="r=recursive R=recursive f=force"``."""
    shorts: dict[str, tuple[str, ...]] = {}
    for item in short.split():
        letter, _, meanings = item.partition("=")
        shorts[letter] = tuple(meanings.split("+"))
    longs: dict[str, tuple[str, ...]] = {}
    for item in long.split():
        name, _, meanings = item.partition("=")
        longs[name] = tuple((meanings or name).split("+"))
    return Spec(short=shorts, long=longs, with_argument=frozenset(argument.split()), **extra)  # type: ignore[arg-type]


_VERBOSE = "v=verbose"
_STANDARD = "help version verbose"

#: Programs whose options are read by meaning.
TABLE: Final[Mapping[str, Spec]] = {
    "rm": _spec(
        f"r=recursive R=recursive f=force d=dir i=interactive I=interactive-once {_VERBOSE}",
        f"recursive force dir interactive one-file-system no-preserve-root preserve-root "
        f"{_STANDARD}",
    ),
    "rmdir": _spec(f"p=parents {_VERBOSE}", f"parents ignore-fail-on-non-empty {_STANDARD}"),
    "cp": _spec(
        f"r=recursive R=recursive f=force a=archive+recursive i=interactive n=no-clobber "
        f"l=link s=symbolic-link u=update t=target-directory T=no-target-directory "
        f"b=backup S=suffix {_VERBOSE}",
        f"recursive force archive interactive no-clobber link symbolic-link update "
        f"target-directory no-target-directory backup suffix remove-destination {_STANDARD}",
        "t S target-directory suffix",
    ),
    "mv": _spec(
        f"f=force i=interactive n=no-clobber u=update t=target-directory "
        f"T=no-target-directory b=backup S=suffix {_VERBOSE}",
        f"force interactive no-clobber update target-directory no-target-directory backup "
        f"suffix {_STANDARD}",
        "t S target-directory suffix",
    ),
    "ln": _spec(
        f"s=symbolic f=force i=interactive n=no-dereference t=target-directory "
        f"T=no-target-directory b=backup S=suffix {_VERBOSE}",
        f"symbolic force interactive no-dereference target-directory no-target-directory "
        f"backup suffix {_STANDARD}",
        "t S target-directory suffix",
    ),
    "chmod": _spec(
        f"R=recursive c=changes f=silent {_VERBOSE}",
        f"recursive changes silent quiet=silent reference preserve-root no-preserve-root "
        f"{_STANDARD}",
        "reference",
    ),
    "chown": _spec(
        f"R=recursive c=changes f=silent h=no-dereference H=traverse-command-line "
        f"L=traverse-all P=traverse-none {_VERBOSE}",
        f"recursive changes silent quiet=silent no-dereference dereference from reference "
        f"preserve-root no-preserve-root {_STANDARD}",
        "from reference",
    ),
    "chgrp": _spec(
        f"R=recursive c=changes f=silent h=no-dereference {_VERBOSE}",
        f"recursive changes silent quiet=silent no-dereference dereference reference "
        f"preserve-root no-preserve-root {_STANDARD}",
        "reference",
    ),
    "shred": _spec(
        f"u=remove f=force z=zero n=iterations s=size x=exact {_VERBOSE}",
        f"remove force zero iterations size exact random-source {_STANDARD}",
        "n s iterations size random-source",
    ),
    "find": Spec(bundling=False),
    "rsync": _spec(
        f"r=recursive a=archive+recursive n=dry-run z=compress e=rsh {_VERBOSE}",
        f"recursive archive dry-run compress rsh delete delete-before delete-during "
        f"delete-delay delete-after delete-excluded remove-source-files force {_STANDARD}",
        "e rsh",
    ),
    "sed": _spec(
        "i=in-place n=quiet e=expression f=file E=regexp-extended r=regexp-extended "
        "s=separate z=null-data",
        "in-place quiet silent=quiet expression file regexp-extended separate null-data "
        "posix sandbox debug help version",
        "e f expression file",
    ),
    "kill": _spec(
        "s=signal n=signal l=list L=table",
        "signal list table help version",
        "s n signal",
    ),
    "git": Spec(
        short={"C": ("C",), "c": ("c",), "p": ("paginate",), "P": ("no-pager",)},
        long={
            name: (name,)
            for name in [
                "git-dir",
                "work-tree",
                "namespace",
                "exec-path",
                "bare",
                "no-pager",
                "paginate",
                "no-replace-objects",
                "literal-pathspecs",
                "config-env",
                "help",
                "version",
            ]
        },
        with_argument=frozenset({"C", "c", "git-dir", "work-tree", "namespace", "config-env"}),
        global_with_argument=frozenset({"C", "c", "git-dir", "work-tree", "namespace"}),
        subcommands={
            "push": _spec(
                "f=force u=set-upstream n=dry-run d=delete q=quiet v=verbose o=push-option "
                "4=ipv4 6=ipv6",
                "force force-with-lease force-if-includes set-upstream dry-run delete all "
                "branches mirror tags follow-tags atomic prune no-verify verify porcelain "
                "progress signed thin no-thin quiet verbose repo receive-pack exec "
                "push-option recurse-submodules ipv4 ipv6",
                "o push-option repo receive-pack exec recurse-submodules",
                plus_means="force",
            ),
            "clean": _spec(
                "f=force d=directories x=ignored X=only-ignored n=dry-run q=quiet "
                "i=interactive e=exclude",
                "force dry-run quiet interactive exclude",
                "e exclude",
            ),
            "reset": _spec(
                "q=quiet p=patch N=intent-to-add",
                "hard soft mixed merge keep quiet patch intent-to-add recurse-submodules",
            ),
            "checkout": _spec(
                "f=force b=branch B=branch+force q=quiet p=patch m=merge t=track",
                "force quiet patch merge track detach orphan ours theirs",
                "b B orphan",
            ),
            "switch": _spec(
                "f=force c=create C=create+force d=detach m=merge q=quiet t=track",
                "force discard-changes=force create force-create=create+force detach merge "
                "quiet track orphan",
                "c C create force-create orphan",
            ),
            "restore": _spec(
                "s=source p=patch W=worktree S=staged q=quiet",
                "source patch worktree staged quiet overlay no-overlay",
                "s source",
            ),
            "branch": _spec(
                "d=delete D=delete+force f=force m=move M=move+force c=copy C=copy+force "
                "r=remotes a=all l=list v=verbose q=quiet u=set-upstream-to",
                "delete force move copy remotes all list verbose quiet set-upstream-to "
                "unset-upstream",
                "u set-upstream-to",
            ),
            "commit": _spec(
                "a=all m=message F=file n=no-verify q=quiet v=verbose s=signoff",
                "all message file amend no-verify verify quiet verbose signoff allow-empty no-edit",
                "m F message file",
            ),
            "rebase": _spec(
                "i=interactive f=force-rebase x=exec",
                "interactive force-rebase onto exec root continue abort skip",
                "x exec onto",
            ),
            "stash": _spec(
                "u=include-untracked a=all k=keep-index q=quiet m=message",
                "include-untracked all keep-index quiet message",
                "m message",
            ),
            "tag": _spec(
                "d=delete f=force a=annotate s=sign m=message l=list",
                "delete force annotate sign message list",
                "m message",
            ),
        },
    ),
}
TABLE = {**TABLE, "pkill": TABLE["kill"], "killall": TABLE["kill"]}  # type: ignore[misc]

#: Signal numbers by name (``kill -9`` is ``kill -KILL`` is ``kill -s SIGKILL``).
_SIGNALS: Final = {
    "1": "HUP", "2": "INT", "3": "QUIT", "6": "ABRT", "9": "KILL", "15": "TERM",
    "19": "STOP", "18": "CONT", "10": "USR1", "12": "USR2", "17": "CHLD", "14": "ALRM",
}  # fmt: skip


def spec_for(program: str) -> Spec | None:
    """The table entry of ``program`` (a basename), if it has one."""
    return TABLE.get(program)


def read(program: str, args: Sequence[str]) -> Reading:
    """Read ``args`` of ``program`` by meaning (see the module docstring)."""
    spec = TABLE.get(program)
    if spec is None:
        return _read_literally(args)
    if spec.subcommands is not None:
        return _read_with_subcommand(spec, args)
    if program in ("kill", "pkill", "killall"):
        return _read_kill(spec, args)
    return _read(spec, args)


def _read_literally(args: Sequence[str]) -> Reading:
    meanings: set[str] = set()
    operands: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            operands.extend(args[i + 1 :])
            break
        if arg.startswith("--") and len(arg) > 2:
            meanings.add(arg.split("=", 1)[0])
            meanings.add(arg)
        elif arg.startswith("-") and len(arg) > 1:
            meanings.add(arg)
            meanings.update("-" + c for c in arg[1:])
        else:
            operands.append(arg)
    return Reading(frozenset(meanings), tuple(operands))


def _long(spec: Spec, name: str) -> str | None:
    """The full long option ``name`` abbreviates (getopt_long: exact, or one prefix)."""
    if name in spec.long:
        return name
    matches = [known for known in spec.long if known.startswith(name)]
    if len(matches) == 1:
        return matches[0]
    if matches and len({spec.long[m] for m in matches}) == 1:
        return matches[0]  # abbreviations of synonyms are not ambiguous
    return None


def _read(spec: Spec, args: Sequence[str], start: int = 0) -> Reading:
    meanings: set[str] = set()
    operands: list[str] = []
    i = start
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            operands.extend(args[i:])
            break
        if arg.startswith("--") and len(arg) > 2:
            name, eq, _value = arg[2:].partition("=")
            full = _long(spec, name)
            if full is None:
                meanings.add("--" + name)
                continue
            meanings.update(spec.long[full])
            if full in spec.with_argument and not eq:
                i += 1
            continue
        if arg.startswith("-") and len(arg) > 1 and spec.bundling:
            for j, letter in enumerate(arg[1:], 1):
                carried = spec.short.get(letter)
                if carried is None:
                    meanings.add("-" + letter)
                    continue
                meanings.update(carried)
                if letter in spec.with_argument:
                    if j == len(arg) - 1:
                        i += 1
                    break
            continue
        if arg.startswith("-") and len(arg) > 1:
            meanings.add(arg)
            continue
        if spec.plus_means is not None and arg.startswith("+"):
            meanings.add(spec.plus_means)
        operands.append(arg)
    return Reading(frozenset(meanings), tuple(operands))


def _read_with_subcommand(spec: Spec, args: Sequence[str]) -> Reading:
    meanings: set[str] = set()
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("-") or arg == "-":
            break
        i += 1
        if arg == "--":
            break
        if arg.startswith("--"):
            name, eq, _ = arg[2:].partition("=")
            full = _long(spec, name) or name
            meanings.add(full)
            if full in spec.global_with_argument and not eq:
                i += 1
            continue
        letter = arg[1:2]
        meanings.add(letter)
        if letter in spec.global_with_argument and len(arg) == 2:
            i += 1
    if i >= len(args):
        return Reading(frozenset(meanings), ())
    subcommand = args[i]
    sub = (spec.subcommands or {}).get(subcommand)
    rest = _read(sub, args, i + 1) if sub is not None else _read_literally(args[i + 1 :])
    return Reading(rest.meanings | meanings, (subcommand, *rest.operands))


def _signal(value: str) -> str:
    name = value.upper()
    name = name[3:] if name.startswith("SIG") else name
    return "signal=" + _SIGNALS.get(name, name)


def _read_kill(spec: Spec, args: Sequence[str]) -> Reading:
    meanings: set[str] = set()
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg in ("-s", "-n", "--signal") and i < len(args):
            meanings.add(_signal(args[i]))
            i += 1
        elif arg.startswith("--signal="):
            meanings.add(_signal(arg.split("=", 1)[1]))
        elif arg.startswith("-") and len(arg) > 1 and arg[1:].upper().lstrip("SIG").isalnum():
            body = arg[1:]
            if body in ("l", "L", "-list", "-table"):
                meanings.add("list")
            elif body.isdigit() or body.upper().startswith("SIG") or body.isupper():
                meanings.add(_signal(body))
            else:
                rest.append(arg)
        else:
            rest.append(arg)
    reading = _read(spec, rest)
    return Reading(reading.meanings | meanings, reading.operands)

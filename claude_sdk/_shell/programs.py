"""What the command policies know about programs and variables, in one place.

Every table here is a *whitelist of understanding*: a program or variable that is not in
a table is treated as the worst case by `claude_sdk._shell.interp` (a program may run any
of its arguments as a command; a variable it does not know is harmless only because bash
itself does not evaluate it).

* `INERT`: programs that never run one of their arguments as a program or as shell code,
  whatever the arguments are. After any other program, every later word may be a command
  (``setarch x86_64 rm -rf x``, ``linux64 $c``), so such words must be resolved.
* `SHELLS`: programs that read shell code (``-c``, a script operand, standard input).
  `BASH_LIKE` are those whose code is read as bash code; the code of the others is refused.
* `JOINERS`: programs that join their arguments into one shell command line.
* `NO_STDIN`: programs that never read standard input (code read from a pipe by a shell
  may be stolen by any other reader).
* Variables bash evaluates (`PROMPT_VARS`, `CODE_VARS`, `FORBIDDEN_VARS`) and variables
  programs run as commands (`COMMAND_VARS`).
* `RUNNERS`: for `require_command`, where a known runner's command starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = [
    "BASH_LIKE",
    "CODE_VARS",
    "COMMAND_VARS",
    "DYNAMIC_NUMBERS",
    "FORBIDDEN_VARS",
    "INERT",
    "JOINERS",
    "NO_STDIN",
    "PROMPT_VARS",
    "RUNNERS",
    "SAFE_SET_OPTIONS",
    "SAFE_SHOPT",
    "SHELLS",
    "SYSTEM_DIRS",
    "Runner",
    "inert",
    "program_of",
]

#: Programs (and builtins) that never run an argument as a program or as shell code.
INERT: Final = frozenset(
    [
        "echo",
        "printf",
        "cd",
        "pwd",
        "true",
        "false",
        ":",
        "test",
        "[",
        "type",
        "exit",
        "return",
        "break",
        "continue",
        "shift",
        "wait",
        "jobs",
        "umask",
        "ulimit",
        "times",
        "dirs",
        "pushd",
        "popd",
        "kill",
        "disown",
        "suspend",
        "logout",
        "help",
        "caller",
        "ls",
        "cat",
        "head",
        "tail",
        "wc",
        "cut",
        "tr",
        "uniq",
        "nl",
        "od",
        "paste",
        "join",
        "comm",
        "cmp",
        "diff",
        "tac",
        "rev",
        "fold",
        "fmt",
        "expand",
        "unexpand",
        "base64",
        "base32",
        "basenc",
        "md5sum",
        "sha1sum",
        "sha224sum",
        "sha256sum",
        "sha384sum",
        "sha512sum",
        "b2sum",
        "cksum",
        "sum",
        "mkdir",
        "rmdir",
        "touch",
        "cp",
        "mv",
        "ln",
        "chmod",
        "chown",
        "chgrp",
        "stat",
        "du",
        "df",
        "date",
        "sleep",
        "whoami",
        "id",
        "groups",
        "uname",
        "hostname",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "seq",
        "yes",
        "tee",
        "printenv",
        "tty",
        "nproc",
        "mktemp",
        "truncate",
        "sync",
        "mkfifo",
        "mknod",
        "unlink",
        "dd",
        "shuf",
        "tsort",
        "factor",
        "expr",
        "numfmt",
        "pathchk",
        "logname",
        "users",
        "who",
        "arch",
        "link",
        "pr",
        "csplit",
        "vdir",
        "dir",
        "dircolors",
        "grep",
        "egrep",
        "fgrep",
        "jq",
        "file",
        "which",
        "whereis",
        "tree",
        "ps",
        "pgrep",
        "pkill",
        "killall",
        "free",
        "uptime",
        "clear",
        "tput",
        "column",
        "hexdump",
        "xxd",
        "strings",
        "gzip",
        "gunzip",
        "zcat",
        "bzip2",
        "bunzip2",
        "xz",
        "unxz",
        "zstd",
        "unzstd",
        "unzip",
        "lsof",
    ]
)
#: Directories whose programs are the system's own (``/bin/ls`` is ``ls``).
SYSTEM_DIRS: Final = ("/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/")

#: Programs that read shell code.
SHELLS: Final = frozenset(
    [
        "sh",
        "bash",
        "dash",
        "ash",
        "rbash",
        "zsh",
        "ksh",
        "ksh93",
        "mksh",
        "pdksh",
        "yash",
        "posh",
        "fish",
        "csh",
        "tcsh",
        "rc",
        "es",
        "busybox",
        "toybox",
    ]
)
#: Shells whose code is bash's (or a subset of it): read with the bash reader.
BASH_LIKE: Final = frozenset({"sh", "bash", "dash", "ash", "rbash"})
#: Programs that join their (remaining) arguments into one shell command line.
JOINERS: Final = frozenset(
    {"ssh", "watch", "su", "sg", "runuser", "script", "tmux", "screen", "parallel", "sudo",
     "doas", "dtach", "abduco", "byobu", "pkexec", "machinectl"}
)  # fmt: skip

#: Programs (and builtins) that never read standard input.
NO_STDIN: Final = frozenset(
    [
        "echo",
        "printf",
        "cd",
        "pwd",
        "true",
        "false",
        ":",
        "test",
        "[",
        "type",
        "exit",
        "return",
        "break",
        "continue",
        "shift",
        "umask",
        "ulimit",
        "times",
        "dirs",
        "pushd",
        "popd",
        "kill",
        "disown",
        "export",
        "declare",
        "local",
        "readonly",
        "typeset",
        "unset",
        "set",
        "shopt",
        "alias",
        "unalias",
        "hash",
        "enable",
        "trap",
        "ls",
        "mkdir",
        "rmdir",
        "touch",
        "cp",
        "mv",
        "ln",
        "chmod",
        "chown",
        "chgrp",
        "stat",
        "du",
        "df",
        "date",
        "sleep",
        "whoami",
        "id",
        "groups",
        "uname",
        "hostname",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "seq",
        "yes",
        "printenv",
        "nproc",
        "mktemp",
        "truncate",
        "sync",
        "mkfifo",
        "unlink",
        "rm",
        "which",
        "type",
    ]
)

#: Variables whose value bash expands as a prompt (command substitution included).
PROMPT_VARS: Final = frozenset({"PS0", "PS1", "PS2", "PS3", "PS4"})
#: Variables whose value bash runs as code.
CODE_VARS: Final = frozenset({"PROMPT_COMMAND"})
#: Variables that make bash (or every program) read code from somewhere, or change how bash
#: reads: never assigned by a command a policy allows.
FORBIDDEN_VARS: Final = frozenset(
    {"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "POSIXLY_CORRECT", "BASH_COMPAT",
     "BASH_LOADABLES_PATH", "LD_PRELOAD", "LD_AUDIT", "EXECIGNORE", "BASH_XTRACEFD"}
)  # fmt: skip
#: Variables programs run as a command line (an editor, a pager, an ssh command).
COMMAND_VARS: Final = frozenset(
    {"EDITOR", "VISUAL", "PAGER", "MANPAGER", "GIT_PAGER", "GIT_EDITOR", "GIT_SSH",
     "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS",
     "LESSOPEN", "LESSCLOSE", "BROWSER", "FCEDIT", "SUDO_EDITOR", "GIT_SEQUENCE_EDITOR",
     "GIT_PROXY_COMMAND", "RSYNC_RSH", "CVS_RSH", "TAR_OPTIONS"}
)  # fmt: skip
#: Variables bash itself keeps numeric.
DYNAMIC_NUMBERS: Final = frozenset(
    {"RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID",
     "EPOCHSECONDS", "OPTIND", "BASH_SUBSHELL", "HISTCMD", "SHLVL"}
)  # fmt: skip

#: ``set`` options that change neither how bash reads nor what it runs.
SAFE_SET_OPTIONS: Final = frozenset(
    {"errexit", "nounset", "xtrace", "verbose", "pipefail", "noclobber", "noglob",
     "errtrace", "functrace", "hashall", "monitor", "notify", "ignoreeof", "allexport",
     "braceexpand", "physical", "noexec", "emacs", "vi", "histexpand", "history",
     "interactive-comments", "nolog"}
)  # fmt: skip
#: ``set`` letters of those options (``-e``, ``+x``, ...).
SAFE_SET_LETTERS: Final = frozenset("eEuxvfCBHhmnTbPa")
#: ``shopt`` options that change neither how bash reads nor what it runs.
SAFE_SHOPT: Final = frozenset(
    {"nullglob", "failglob", "dotglob", "globstar", "nocaseglob", "nocasematch",
     "globasciiranges", "lastpipe", "checkwinsize", "histappend", "cdspell", "dirspell",
     "autocd", "cdable_vars", "checkhash", "checkjobs", "cmdhist", "lithist", "huponexit",
     "inherit_errexit", "localvar_inherit", "localvar_unset", "no_empty_cmd_completion",
     "progcomp", "promptvars", "sourcepath", "execfail", "gnu_errfmt", "direxpand",
     "globskipdots", "patsub_replacement", "varredir_close", "hostcomplete", "interactive_comments",
     "login_shell", "mailwarn", "shift_verbose", "extquote", "force_fignore", "histreedit",
     "histverify", "compat31", "assoc_expand_once", "complete_fullquote",
     "noexpand_translation", "progcomp_alias", "restricted_shell"}
)  # fmt: skip


def program_of(value: str) -> str:
    """A program word's basename (``/bin/rm`` is ``rm``)."""
    return value.rsplit("/", 1)[-1]


def inert(value: str) -> bool:
    """Is the program ``value`` (as written) one of `INERT`: a bare name, or a path in one
    of the `SYSTEM_DIRS`? (``./cat`` is a file of the project, not ``cat``.)"""
    if "/" not in value:
        return value in INERT
    return value.startswith(SYSTEM_DIRS) and program_of(value) in INERT


class Runner:
    """How a known runner's arguments lead to the command it runs.

    Attributes:
        short: short options that take an argument (letters).
        long: long options that take an argument (names, without ``--``).
        operands: operands before the command (``timeout DURATION``, ``taskset MASK``).
        assignments: ``NAME=VALUE`` words before the command are skipped (``env``).
    """

    __slots__ = ("assignments", "long", "operands", "short")

    def __init__(
        self, short: str = "", long: str = "", operands: int = 0, assignments: bool = False
    ) -> None:
        self.short = frozenset(short)
        self.long = frozenset(long.split())
        self.operands = operands
        self.assignments = assignments


#: Runners whose command `require_command` checks against its list too.
RUNNERS: Final[Mapping[str, Runner]] = {
    "sudo": Runner(
        "ughpCDTrtU",
        "user group host prompt close-from chdir command-timeout role type other-user",
    ),
    "doas": Runner("uC", ""),
    "env": Runner("uCS", "unset chdir split-string", assignments=True),
    "timeout": Runner("sk", "signal kill-after", operands=1),
    "nice": Runner("n", "adjustment"),
    "nohup": Runner(),
    "stdbuf": Runner("ioe", "input output error"),
    "setsid": Runner(),
    "ionice": Runner("cnp", "class classdata pid pgid uid"),
    "taskset": Runner("", "", operands=1),
    "chrt": Runner("T", "sched-runtime sched-deadline sched-period", operands=1),
    "flock": Runner("wEc", "timeout conflict-exit-code command", operands=1),
    "xargs": Runner(
        "adEeIiLlnPs",
        "arg-file delimiter eof replace max-lines max-args max-procs max-chars "
        "process-slot-var",
    ),
    "command": Runner(),
    "builtin": Runner(),
    "exec": Runner("a", ""),
    "time": Runner("fo", "format output"),
    "setarch": Runner("", "", operands=1),
    "linux32": Runner(),
    "linux64": Runner(),
    "chroot": Runner("", "userspec groups", operands=1),
    "unbuffer": Runner(),
    "chronic": Runner(),
    "fakeroot": Runner("ls", "lib faked"),
    "faketime": Runner("", "", operands=1),
    "prlimit": Runner("p", "pid"),
    "strace": Runner("abeEIoOpPsSUX", "output"),
    "ltrace": Runner("aeEnoOpsS", "output"),
    "valgrind": Runner(),
    "numactl": Runner("CmNpi", "physcpubind membind cpunodebind preferred interleave"),
    "cgexec": Runner("g", ""),
    "firejail": Runner(),
    "unshare": Runner("SGRw", "setuid setgid root wd"),
    "nsenter": Runner("tSGrw", "target setuid setgid root wd"),
    "systemd-run": Runner("upEM", "unit property setenv machine"),
    "busybox": Runner(),
    "caffeinate": Runner(),
}  # fmt: skip

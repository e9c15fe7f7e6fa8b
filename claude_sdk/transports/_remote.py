"""What the SSH and container transports share: the far-side wrapper and its local half.

Killing an ``ssh`` or ``docker exec`` client does not stop the process it started on the
other side: that process only sees its stdin reach EOF. So the CLI never runs bare there. A
small Python program, the **wrapper** (`WRAPPER_SOURCE`), runs in its place:

* it reads one JSON **header** line from stdin: the CLI's argv, the environment to set and
  unset, the working directory and the grace periods. Nothing the caller chose travels on a
  command line: no shell ever parses a user value (no quoting to get wrong, whatever the
  remote login shell), no secret from ``Options.env`` shows in ``ps`` on either side, and
  no 128 KiB single-argument limit (``sh -c``) applies;
* it changes into the working directory, sets the environment, finds the CLI (a bare
  ``claude`` is looked up on the far side's ``PATH``, then in the usual install
  locations), and starts it **in its own process group**, with stdin from a pipe the
  wrapper feeds; stdout and stderr are the wrapper's own (the CLI writes to them directly);
* the CLI's input ends at a **control line** from the SDK, ``@claude_sdk:<nonce>:end
  {"grace": G}`` at the start of a line (no JSON line starts with ``@``), or when its own
  stdin reaches EOF (the connection dropped; G is then the header's grace). It closes the
  CLI's stdin once what came before is delivered, and G seconds later sends SIGTERM to the
  CLI's group, waits `TERM_GRACE`, and sends SIGKILL. After the end of input it goes on
  reading stdin for control lines only: a later ``end`` with a shorter G brings the SIGTERM
  forward (so a ``shutdown_deadline`` set after ``send_eof`` still reaches the far side).
  SIGTERM, SIGINT or SIGHUP to the wrapper start that escalation at once. The CLI also gets
  ``PR_SET_PDEATHSIG`` (Linux) in case the wrapper itself is killed, and the wrapper is a
  child subreaper (Linux): it reaps the CLI's orphans even in a container with no init;
* when the CLI exits, it ends what the CLI left in its group (SIGTERM unless the group had
  it already, then SIGKILL `TERM_GRACE` after that SIGTERM if anything is left) and exits
  with the CLI's status (128 + N for signal N).

The wrapper reports on stderr with lines tagged ``@claude_sdk:<nonce>:`` (a random nonce per
connection): ``ready`` (with the CLI's and its own pid), ``exit`` (the CLI's exit code or
signal), or, before the CLI runs, ``not_found``, ``exec_failed`` or ``error``. The local
half (`RemoteConnection`) removes these lines from the stderr tail and uses them:
``connect`` returns only once ``ready`` arrived, and raises a typed error otherwise (see
`connect_remote`); ``returncode`` is the CLI's own status even where the client cannot say
it (``ssh`` exits 255 for a remote signal).

The wrapper runs on any Python 3.6 or later. It is sent inline, compressed, as
``python3 -I -S -c '<one line>' <nonce>``: a command line made only of characters that mean
nothing to any shell.

The local half's teardown (`connect_remote`): the wrapper is told that input ends and how
long the CLI has (``shutdown_grace``, or until the connection's ``shutdown_deadline`` if
sooner: `RemoteConnection.end_input`), the client's stdin closes, and the far side ends the
CLI on its own. The client gets that long, plus `TERM_GRACE` and `FAR_SIDE_SLACK` for the
far side's escalation and its report, to exit; then it gets SIGTERM, `TERM_GRACE`, SIGKILL.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
import secrets
import shlex
import signal
import subprocess
import zlib
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc

from .._protocol.launch import DEFAULT_CLI, LaunchSpec
from ..errors import ClaudeSDKError, CLINotFoundError, ProcessError, SessionStoreError
from ._teardown import TERM_GRACE, graceful_end, teardown_process
from .base import ByteStreamConnection, Lifetime, StderrTail
from .discovery import WELL_KNOWN

__all__ = [
    "TERM_GRACE",
    "WRAPPER_SOURCE",
    "Classifier",
    "RemoteConnection",
    "connect_remote",
    "header_line",
    "new_nonce",
    "wrapper_argv",
    "wrapper_command",
]

logger = logging.getLogger("claude_sdk.transport")

#: Seconds to wait for the client's stderr to reach EOF after it exited.
STDERR_DRAIN = 0.5
#: Bytes of an unterminated report held back (more is not a report: passed on as stderr).
_HOLD_MAX = 64 * 1024
#: Seconds the client gets, after the far side's own escalation, to bring its end back.
FAR_SIDE_SLACK = 1.0
#: Seconds the end of input may take to reach the client even when no grace is left.
EOF_SEND = 0.5
#: A new end of input is sent only when it is at least this much sooner than the last one.
_SOONER = 0.05

#: The wrapper (see the module docstring). Python 3.6+, standard library only.
WRAPPER_SOURCE = r"""
import errno, json, os, select, signal, sys, time

TAG = "@claude_sdk:%s:" % sys.argv[1]


def report(event, data):
    line = "%s%s %s\n" % (TAG, event, json.dumps(data))
    try:
        os.write(2, line.encode("utf-8"))
    except OSError:  # the connection is gone: nobody to tell
        pass


def read_header():
    chunks = []
    while True:
        chunk = os.read(0, 1 << 20)
        if not chunk:  # the client went away before sending anything
            os._exit(3)
        chunks.append(chunk)
        if b"\n" in chunk:  # (a large header: a transcript to write) looked at once
            break
    head, rest = b"".join(chunks).split(b"\n", 1)
    return json.loads(head.decode("utf-8")), rest


def resolve(prog, env, fallbacks):
    if "/" in prog:
        candidates = [prog]
    else:
        path = env.get("PATH") or os.defpath
        candidates = [os.path.join(d or ".", prog) for d in path.split(os.pathsep)]
        home = env.get("HOME") or os.path.expanduser("~")
        for place in fallbacks:
            if place.startswith("~/"):
                place = os.path.join(home, place[2:])
            candidates.append(place)
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate, candidates
    return None, candidates


def prctl(option, value):
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(option, value)
    except Exception:  # not Linux
        pass


def reap(pid):
    # Reap every child that has exited; the CLI's status when it is one of them.
    found = None
    while True:
        try:
            child, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if child == 0:
            break
        if child == pid:
            found = status
    return found


def killpg(pgid, sig):
    try:
        os.killpg(pgid, sig)
        return True
    except OSError:
        return False


class Input(object):
    # Splits the SDK's control lines (the tag at the start of a line) out of stdin. Only a
    # line start that may still become the tag is held back; everything else passes on,
    # up to an end control line (the SDK sends nothing for the CLI after it).

    def __init__(self, tag):
        self.tag = tag
        self.open = True  # no end control line yet
        self.start = True  # at the start of a line
        self.held = b""  # the start of this line, a prefix of the tag so far
        self.control = None  # the control line being read (after the tag), if any

    def feed(self, data, controls):
        # The bytes for the CLI in data; complete control lines are appended to controls.
        out = []
        i, n, tag = 0, len(data), self.tag
        while i < n:
            if self.control is not None:
                j = data.find(b"\n", i)
                if j < 0:
                    self.control += data[i:]
                    if len(self.control) > 65536:  # no control line is this long
                        self.control = None
                        self.start = False
                    break
                line = self.control + data[i:j]
                controls.append(line)
                if line.split(b" ", 1)[0] == b"end":
                    self.open = False
                self.control = None
                self.start = True
                i = j + 1
            elif self.start:
                take = data[i : i + len(tag) - len(self.held)]
                if tag.startswith(self.held + take):
                    self.held += take
                    i += len(take)
                    if len(self.held) == len(tag):
                        self.held = b""
                        self.control = b""
                else:
                    if self.open:
                        out.append(self.held)
                    self.held = b""
                    self.start = False
            else:
                j = data.find(b"\n", i)
                end = n if j < 0 else j + 1
                if self.open:
                    out.append(data[i:end])
                i = end
                self.start = j >= 0
        return b"".join(out)

    def close(self):
        # At EOF: what was held back goes to the CLI after all.
        held, self.held = self.held, b""
        return held if self.open else b""


def project_slug(path):
    # The CLI's directory name for a project (claude_sdk._paths.project_slug).
    data = path.encode("utf-16-le", "surrogatepass")
    units = [data[i] | (data[i + 1] << 8) for i in range(0, len(data), 2)]
    slug = "".join(
        chr(u) if 48 <= u <= 57 or 65 <= u <= 90 or 97 <= u <= 122 else "-" for u in units
    )
    if len(slug) <= 200:
        return slug
    h = 0
    for u in units:
        h = ((h << 5) - h + u) & 0xFFFFFFFF
    h = abs(h - 0x100000000 if h >= 0x80000000 else h)
    digits = ""
    while True:
        h, rest = divmod(h, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[rest] + digits
        if not h:
            return slug[:200] + "-" + digits


def uuids(data):
    found = set()
    for line in data.splitlines():
        try:
            obj = json.loads(line.decode("utf-8", "surrogatepass"))
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("uuid"), str):
            found.add(obj["uuid"])
    return found


def write_transcripts(files, env):
    # A resume from a session store: the store's transcripts, written where this CLI reads
    # them. A copy here that holds every line is kept; one that lacks some is kept aside.
    if not files:
        return
    import unicodedata

    config = env.get("CLAUDE_CONFIG_DIR") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".claude"
    )
    cwd = unicodedata.normalize("NFC", os.path.realpath(os.getcwd()))
    project = os.path.join(os.path.expanduser(config), "projects", project_slug(cwd))
    for relative in sorted(files):
        parts = relative.split("/")
        if relative.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise ValueError("not a relative path: %r" % relative)
        path = os.path.join(project, *parts)
        data = files[relative].encode("utf-8", "surrogatepass")
        try:
            os.makedirs(os.path.dirname(path), 0o700)
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise
        try:
            with open(path, "rb") as f:
                old = f.read()
        except (IOError, OSError):
            old = None
        if old is not None:
            if old == data or (path.endswith(".jsonl") and uuids(data) <= uuids(old)):
                continue
            os.rename(path, "%s.local-%d" % (path, int(time.time())))
        temporary = "%s.tmp-%d" % (path, os.getpid())
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.rename(temporary, path)


def main():
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: stop.append(signum))
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)

    # Orphans of the CLI become our children (Linux), so we reap them even where nothing
    # else does (a container without an init), and see its process group empty out.
    prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
    conf, rest = read_header()
    argv = conf["argv"]
    env = dict(os.environ)
    for name in conf.get("unset", ()):
        env.pop(name, None)
    env.update(conf.get("env", {}))
    cwd = conf.get("cwd")
    if cwd:
        try:
            os.chdir(cwd)
        except OSError as exc:
            report("error", {"what": "cwd", "path": cwd, "message": exc.strerror or str(exc)})
            os._exit(1)
        env["PWD"] = cwd
    try:
        write_transcripts(conf.get("transcripts") or {}, env)
    except Exception as exc:
        where = getattr(exc, "filename", None) or ""
        report("error", {"what": "transcript", "path": where, "message": str(exc)})
        os._exit(1)
    path, searched = resolve(argv[0], env, conf.get("fallbacks", ()))
    if path is None:
        report("not_found", {"searched": searched})
        os._exit(127)

    child_in, feed = os.pipe()
    status_r, status_w = os.pipe()  # close-on-exec: EOF without data means exec worked
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            os.dup2(child_in, 0)
            for fd in (child_in, feed, status_r, wake_r, wake_w):
                os.close(fd)
            signal.set_wakeup_fd(-1)
            for name in ("SIGPIPE", "SIGXFSZ", "SIGTERM", "SIGINT", "SIGHUP", "SIGCHLD"):
                if hasattr(signal, name):
                    signal.signal(getattr(signal, name), signal.SIG_DFL)
            prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the wrapper
            os.execve(path, [path] + list(argv[1:]), env)
        except BaseException as exc:
            try:
                info = {"errno": getattr(exc, "errno", None), "message": str(exc)}
                os.write(status_w, json.dumps(info).encode("utf-8"))
            except BaseException:
                pass
        os._exit(127)
    try:
        os.setpgid(pid, pid)
    except OSError:  # the child did it first, or has already exec'd
        pass
    os.close(child_in)
    os.close(status_w)
    failure = b""
    while True:
        chunk = os.read(status_r, 65536)
        if not chunk:
            break
        failure += chunk
    os.close(status_r)
    if failure:
        os.waitpid(pid, 0)
        info = json.loads(failure.decode("utf-8"))
        info["path"] = path
        report("exec_failed", info)
        os._exit(127 if info.get("errno") == errno.ENOENT else 126)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)  # only the CLI holds stdout: it ends when the CLI's output ends
    os.close(devnull)
    report("ready", {"pid": pid, "wrapper": os.getpid(), "path": path})

    grace = float(conf.get("grace", 5.0))
    term_grace = float(conf.get("term", 2.0))
    splitter = Input(TAG.encode("utf-8"))
    controls = []
    pending = bytearray(splitter.feed(rest, controls))
    os.set_blocking(feed, False)
    stdin_open, feed_open = True, True
    input_open = True  # the CLI's input: until an end control line or stdin EOF
    term_at = kill_at = None
    killed = False
    while True:
        for line in controls:
            event, _, payload = line.partition(b" ")
            if event != b"end":
                continue  # from a newer SDK: not for this wrapper
            try:
                seconds = max(float(json.loads(payload.decode("utf-8"))["grace"]), 0.0)
            except Exception:
                seconds = grace
            input_open = False
            at = time.monotonic() + seconds
            if term_at is None or at < term_at:
                term_at = at
        del controls[:]
        status = reap(pid)
        if status is not None:
            break
        now = time.monotonic()
        if stop and (term_at is None or term_at > now):
            term_at = now
        if term_at is not None and kill_at is None and now >= term_at:
            killpg(pid, signal.SIGTERM)
            kill_at = now + term_grace
        if kill_at is not None and not killed and now >= kill_at:
            killpg(pid, signal.SIGKILL)
            killed = True
        if feed_open and not input_open and not pending:
            os.close(feed)
            feed_open = False
        deadlines = []
        if term_at is not None and kill_at is None:
            deadlines.append(term_at)
        if kill_at is not None and not killed:
            deadlines.append(kill_at)
        timeout = max(min(deadlines) - now, 0.0) if deadlines else None
        readable = [wake_r]
        if stdin_open and len(pending) < (1 << 20):
            readable.append(0)
        writable = [feed] if feed_open and pending else []
        try:
            ready_r, ready_w, _ = select.select(readable, writable, [], timeout)
        except InterruptedError:
            continue
        if wake_r in ready_r:
            try:
                while os.read(wake_r, 4096):
                    pass
            except OSError:
                pass
        if 0 in ready_r:
            try:
                data = os.read(0, 65536)
            except BlockingIOError:
                data = None
            except OSError:
                data = b""
            if data:
                data = splitter.feed(data, controls)
                if feed_open:
                    pending += data
            elif data is not None:
                stdin_open = False
                if input_open:
                    input_open = False
                    pending += splitter.close()
                    if term_at is None:
                        term_at = time.monotonic() + grace
        if feed in ready_w:
            try:
                del pending[: os.write(feed, bytes(pending[:65536]))]
            except BlockingIOError:
                pass
            except OSError:  # the CLI closed its stdin
                del pending[:]
                os.close(feed)
                feed_open = False

    # What the CLI left behind in its group goes too: SIGTERM (unless the group had it
    # already), then SIGKILL term_grace after that SIGTERM if anything is left. The CLI is
    # reaped, but the group id stays ours while a member lives (no pid still in use as a
    # group id is handed out again); we stop at the first look that finds it empty.
    if kill_at is None and killpg(pid, signal.SIGTERM):
        kill_at = time.monotonic() + term_grace
    while kill_at is not None:
        reap(pid)  # our orphans among them: a zombie is no reason to wait
        if not killpg(pid, 0):
            break
        if time.monotonic() >= kill_at:
            killpg(pid, signal.SIGKILL)
            break
        time.sleep(0.02)
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        report("exit", {"signal": signum})
        os._exit(128 + signum)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1
    report("exit", {"code": code})
    os._exit(code)


main()
"""

_BOOTSTRAP = 'import base64,zlib;exec(zlib.decompress(base64.b64decode("{}")))'.format(
    base64.b64encode(zlib.compress(WRAPPER_SOURCE.encode("utf-8"), 9)).decode("ascii")
)


def new_nonce() -> str:
    """A fresh tag for one connection's wrapper reports."""
    return secrets.token_hex(8)


def wrapper_argv(python: str, nonce: str) -> list[str]:
    """The far-side command that runs the wrapper, as argv (``exec`` clients: no shell)."""
    return [python, "-I", "-S", "-c", _BOOTSTRAP, nonce]


def wrapper_command(python: str, nonce: str) -> str:
    """The same as one POSIX shell command line (``ssh`` hands it to the login shell).

    Every word is quoted with `shlex.quote`; apart from ``python``, the words are made only
    of characters that mean the same to every common shell (sh, bash, zsh, fish, csh).
    """
    return "exec " + shlex.join(wrapper_argv(python, nonce))


def header_line(spec: LaunchSpec) -> bytes:
    """The wrapper's header for ``spec``: one line of ASCII JSON, newline included."""
    fallbacks = list(WELL_KNOWN) if spec.argv[0] == DEFAULT_CLI else []
    header = {
        "v": 1,
        "argv": list(spec.argv),
        "env": dict(spec.env),
        "unset": list(spec.unset_env),
        "cwd": spec.cwd,
        "grace": spec.shutdown_grace,
        "term": TERM_GRACE,
        "fallbacks": fallbacks,
    }
    if spec.transcripts:
        header["transcripts"] = {
            path: data.decode("utf-8", "surrogatepass") for path, data in spec.transcripts.items()
        }
    return json.dumps(header, ensure_ascii=True).encode("ascii") + b"\n"


#: ``classify(returncode, stderr_text, connection)``: a typed error for a client-level
#: failure (the client could not reach the far side), or None.
Classifier = Callable[[int | None, str, "RemoteConnection"], ClaudeSDKError | None]


class _ReportFilter:
    """Splits the wrapper's tagged reports out of stderr and feeds the rest on, unchanged.

    A report runs from its tag to the end of its line. Text before a tag on the same line
    (a partial line of the CLI's) joins the text after the report, as it was written.
    Only an unterminated report, or a possible start of a tag at the very end of a chunk,
    is held back until more data comes.
    """

    def __init__(self, tag: bytes, tail: StderrTail, on_report: Callable[[bytes], None]):
        self._tag = tag
        self._tail = tail
        self._on_report = on_report
        self._held = b""

    def feed(self, data: bytes) -> None:
        tag = self._tag
        data = self._held + data
        self._held = b""
        out: list[bytes] = []
        start = 0
        while True:
            at = data.find(tag, start)
            if at < 0:
                break
            end = data.find(b"\n", at)
            out.append(data[start:at])
            if end < 0:  # the report is not complete yet
                start = len(data)
                self._held = data[at:]
                if len(self._held) > _HOLD_MAX:  # not a report after all
                    out.append(self._held)
                    self._held = b""
                break
            self._on_report(data[at + len(tag) : end])
            start = end + 1
        if start < len(data):
            rest = data[start:]
            keep = len(rest)
            at = rest.find(tag[:1], max(len(rest) - len(tag) + 1, 0))
            while at >= 0:
                if tag.startswith(rest[at:]):
                    keep = at
                    break
                at = rest.find(tag[:1], at + 1)
            out.append(rest[:keep])
            self._held = rest[keep:]
        if out:
            chunk = b"".join(out)
            if chunk:
                self._tail.feed(chunk)

    def close(self) -> None:
        if self._tag in self._held:
            self.feed(b"\n")
        if self._held:
            self._tail.feed(self._held)
            self._held = b""
        self._tail.close()


class RemoteConnection(ByteStreamConnection):
    """A `Connection` to a CLI that runs under the wrapper, behind an exec client.

    Attributes:
        process: the local client (``ssh``, ``docker``, ``kubectl``, ...).
        target: where the CLI runs, for messages (``"me@host:22"``, ``"docker container box"``).
        remote_pid: the CLI's pid on the far side (in its pid namespace), once started.
        wrapper_pid: the wrapper's pid on the far side, once started.
        reports: the wrapper's reports by event (``ready``, ``exit``, ...).
    """

    def __init__(
        self,
        process: anyio.abc.Process,
        spec: LaunchSpec,
        stderr: StderrTail,
        *,
        target: str,
        nonce: str,
        classify: Classifier,
        python: str,
    ) -> None:
        assert process.stdout is not None
        super().__init__(
            process.stdin, process.stdout, max_line_bytes=spec.max_line_bytes, stderr=stderr
        )
        self.process = process
        self.target = target
        self.remote_pid: int | None = None
        self.wrapper_pid: int | None = None
        self.reports: dict[str, dict[str, Any]] = {}
        self._spec = spec
        self._classify = classify
        self._python = python
        self._tag = f"@claude_sdk:{nonce}:".encode()
        self._filter = _ReportFilter(self._tag, stderr, self._on_report)
        self._cli = spec.argv[0]
        self._settled = anyio.Event()  # ready, or stderr ended
        self.stderr_done = anyio.Event()
        self._signalled = False  # the teardown signalled the client
        self._final: int | None = None  # the status `wait` settled on
        self._told_end: float | None = None  # when the wrapper was told the CLI must end
        self._early_stdout = b""  # what the client wrote to stdout when the CLI never ran

    # -- facts ------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The local client's pid (see `remote_pid` for the CLI's)."""
        return self.process.pid

    @property
    def started(self) -> bool:
        """True once the wrapper reported that the CLI runs."""
        return "ready" in self.reports

    @property
    def returncode(self) -> int | None:
        """The CLI's status as the wrapper reported it, else the client's (once known)."""
        if self._final is not None:
            return self._final
        code = self.process.returncode
        if code is None or not self.stderr_done.is_set():
            return None  # the wrapper's exit report may still be on its way
        return self._status(code)

    def _status(self, client_code: int) -> int:
        end = self.reports.get("exit")
        if end is not None:
            if end.get("signal") is not None:
                return -int(end["signal"])
            return int(end.get("code", client_code))
        return client_code

    @property
    def cli_path(self) -> str | None:
        return f"{self._cli} on {self.target}"

    @property
    def connection_lost(self) -> bool:
        """True when the client ended (not signalled by us) without the CLI's exit report."""
        return (
            self.process.returncode is not None
            and self.stderr_done.is_set()
            and self.started
            and "exit" not in self.reports
            and not self._signalled
        )

    @property
    def stderr_tail(self) -> str:
        tail = self.stderr.text
        if self.connection_lost:
            note = (
                f"claude_sdk: the connection to {self.target} ended before the CLI did "
                f"(client exit status {self.process.returncode})"
            )
            tail = f"{tail}\n{note}" if tail else note
        return tail

    def exit_error(self) -> ClaudeSDKError | None:
        """A typed error for how the connection ended, when it says more than an exit code.

        None when the CLI itself exited (its status is `returncode`) or when it has not.
        """
        code = self.process.returncode
        if code is None or not self.connection_lost:
            return None
        return ProcessError(
            f"the connection to {self.target} was lost while the CLI was running",
            exit_code=code if code >= 0 else None,
            signal=-code if code < 0 else None,
            stderr_tail=self.stderr_tail,
            cli_path=self.cli_path,
            kind="connection_lost",
        )

    async def wait(self) -> int | None:
        code = await self.process.wait()
        with anyio.move_on_after(STDERR_DRAIN):
            await self.stderr_done.wait()
        self._final = self._status(code)
        return self._final

    # -- the end of input ---------------------------------------------------------------

    async def send_eof(self) -> None:
        """End the CLI's input (idempotent): the wrapper closes the CLI's stdin and gives it
        ``shutdown_grace`` (or until `shutdown_deadline`, if sooner) to exit.

        The client's own stdin stays open, so that the teardown can still bring that time
        forward (`end_input`); the teardown closes it.
        """
        await self.end_input(graceful_end(self._spec.shutdown_grace, self.shutdown_deadline))

    async def end_input(self, end: float) -> None:
        """Tell the wrapper that the CLI's input ends and that the CLI has until ``end``
        (``anyio.current_time()`` clock) to exit before its group gets SIGTERM.

        Sent again only to bring that time forward; a no-op once the client's stdin is
        closed or broken. Further sends raise ``anyio.ClosedResourceError``.
        """
        async with self._write_lock:
            self._eof_sent = True
            if self._told_end is not None and end > self._told_end - _SOONER:
                return
            seconds = max(end - anyio.current_time(), 0.0)
            line = self._tag + b"end " + json.dumps({"grace": round(seconds, 3)}).encode()
            assert self._stdin is not None
            try:
                await self._stdin.send(line + b"\n")
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                return
            self._told_end = end

    async def close_stdin(self) -> None:
        """Close the client's stdin (the wrapper reads EOF); never raises."""
        self._eof_sent = True
        if self._stdin is not None:
            with contextlib.suppress(Exception):
                await self._stdin.aclose()

    def stop_client(self, *, force: bool = False) -> None:
        """SIGTERM (SIGKILL with ``force``) to the local client's process group.

        Ignored when the client has exited. Where there are no process groups (Windows),
        the client alone is terminated or killed.
        """
        if self.process.returncode is not None:
            return
        self._signalled = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if hasattr(os, "killpg"):
                os.killpg(self.process.pid, signal.SIGKILL if force else signal.SIGTERM)
            elif force:
                self.process.kill()
            else:
                self.process.terminate()

    # -- the wrapper's reports ----------------------------------------------------------

    def _on_report(self, raw: bytes) -> None:
        event, _, payload = raw.decode("utf-8", "replace").partition(" ")
        try:
            data = json.loads(payload) if payload.strip() else {}
        except ValueError:
            data = {"raw": payload}
        if not isinstance(data, dict):
            data = {"value": data}
        self.reports[event] = data
        if event == "ready":
            self.remote_pid = _int_or_none(data.get("pid"))
            self.wrapper_pid = _int_or_none(data.get("wrapper"))
            if isinstance(data.get("path"), str):
                self._cli = data["path"]
            self._settled.set()

    async def drain_stderr(self) -> None:
        """Read stderr to its end (the task ``connect_remote`` runs)."""
        stream = self.process.stderr
        assert stream is not None
        try:
            async for chunk in stream:
                self._filter.feed(chunk)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            self._filter.close()
            self.stderr_done.set()
            self._settled.set()

    # -- start --------------------------------------------------------------------------

    async def start(self, limit: float) -> ClaudeSDKError | None:
        """Send the header and wait until the CLI runs; the error when it does not."""
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            assert self.process.stdin is not None
            await self.process.stdin.send(header_line(self._spec))
        with anyio.move_on_after(limit):
            await self._settled.wait()
        if self.started:
            return None
        if not self._settled.is_set():
            return ProcessError(
                f"the CLI did not start on {self.target} within {limit:g} s",
                stderr_tail=self.stderr.text,
                cli_path=self.cli_path,
                kind="timeout",
            )
        with anyio.move_on_after(TERM_GRACE):
            await self.process.wait()
        with anyio.move_on_after(STDERR_DRAIN):
            await self._read_early_stdout()
        return self._start_failure()

    async def _read_early_stdout(self) -> None:
        # docker exec writes its own exec failures ("OCI runtime exec failed: ...", "unable
        # to find user ...") to stdout, not stderr (docker/cli#2025, docker/cli#4847). The
        # CLI never ran, so nothing else can be there: keep it for the error (bounded).
        stream = self.process.stdout
        assert stream is not None
        with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, OSError):
            while len(self._early_stdout) < _HOLD_MAX:
                self._early_stdout += await stream.receive()
        self._early_stdout = self._early_stdout[:_HOLD_MAX]

    def _failure_output(self) -> str:
        """The client's stderr tail, then what it wrote to stdout, if anything."""
        tail = self.stderr.text
        early = self._early_stdout.decode("utf-8", "replace").strip()
        if not early:
            return tail
        return f"{tail}\n{early}" if tail else early

    def _start_failure(self) -> ClaudeSDKError:
        reports, target, tail = self.reports, self.target, self._failure_output()
        hint = (
            f"install the Claude Code CLI on {target} and put it on PATH there, or set "
            "Options.cli_path to its path on that side"
        )
        found = reports.get("not_found")
        if found is not None:
            searched = tuple(f"{target}: {place}" for place in found.get("searched", ()))
            return CLINotFoundError(
                f"Claude Code CLI not found on {target}", searched=searched, hint=hint
            )
        failed = reports.get("exec_failed")
        if failed is not None:
            path = str(failed.get("path", self._cli))
            if failed.get("errno") == 2:  # ENOENT (on the far side; the number is universal)
                return CLINotFoundError(
                    f"Claude Code CLI not found on {target}",
                    searched=(f"{target}: {path} ({failed.get('message')})",),
                    hint=hint,
                )
            return ProcessError(
                f"could not start the CLI {path} on {target}: {failed.get('message')}",
                stderr_tail=tail,
                cli_path=f"{path} on {target}",
                kind="spawn",
            )
        error = reports.get("error")
        if error is not None and error.get("what") == "transcript":
            return SessionStoreError(
                f"the session store's transcript could not be written where the CLI on "
                f"{target} reads it: {error.get('path') or ''} ({error.get('message')})",
                operation="load",
                key={},
            )
        if error is not None and error.get("what") == "cwd":
            return ProcessError(
                f"the working directory does not exist on {target}: {error.get('path')} "
                f"({error.get('message')}; set Options.cwd to a directory that exists there)",
                stderr_tail=tail,
                cli_path=self.cli_path,
                kind="spawn",
            )
        code = self.process.returncode
        typed = self._classify(code, tail, self)
        if typed is not None:
            return typed
        if code in (126, 127) and self._python_named(tail):
            return ProcessError(
                f"could not start the remote wrapper on {target}: the far side needs "
                f"Python 3.6 or later ({self._python_hint()})",
                exit_code=code,
                stderr_tail=tail,
                cli_path=self.cli_path,
                kind="spawn",
            )
        return ProcessError(
            f"the CLI could not be started on {target}",
            exit_code=code if code is not None and code >= 0 else None,
            signal=-code if code is not None and code < 0 else None,
            stderr_tail=tail,
            cli_path=self.cli_path,
            kind="spawn",
        )

    def _python_named(self, tail: str) -> bool:
        """True when the client's 126/127 is about the far side's Python: its output names
        the interpreter, or says nothing. Runtimes use the same statuses for their own exec
        failures (runc: a missing ``--workdir`` is 127; docker: an unknown ``-u`` user is
        126), which Python has nothing to do with."""
        name = self._python.rsplit("/", 1)[-1]
        return not tail.strip() or (bool(name) and name in tail)

    def _python_hint(self) -> str:
        return f"tried {self._python!r}; set remote_python to its interpreter"


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) else None


async def _teardown(conn: RemoteConnection, grace: float) -> None:
    """End of input (the CLI has ``grace``, or until ``conn.shutdown_deadline`` if sooner)
    -> the far side's escalation -> SIGTERM -> `TERM_GRACE` -> SIGKILL, for the local client.

    The far side ends the CLI on its own: the wrapper is told when (`end_input`), sends
    SIGTERM then, SIGKILL `TERM_GRACE` later, and exits with its report, which ends the
    client. So the client gets until then, and `FAR_SIDE_SLACK` more, before it is
    signalled (a CLI that never started gets nothing: ``grace`` is 0 then).
    """
    end = graceful_end(grace, conn.shutdown_deadline)

    async def close_input() -> None:
        # The word must get out even when no grace is left: the far side acts on it.
        with anyio.move_on_after(max(end - anyio.current_time(), EOF_SEND)):
            await conn.end_input(end)
        await conn.close_stdin()

    far_side = TERM_GRACE + FAR_SIDE_SLACK if conn.started else 0.0
    await teardown_process(
        conn.process,
        send_eof=close_input,
        terminate=conn.stop_client,
        kill=lambda: conn.stop_client(force=True),
        end=end + far_side,
        what=f"the client for {conn.target}",
        term_grace=TERM_GRACE,
    )


@asynccontextmanager
async def connect_remote(
    command: Sequence[str],
    spec: LaunchSpec,
    *,
    target: str,
    classify: Classifier,
    start_timeout: float,
    python: str,
    nonce: str,
) -> AsyncIterator[RemoteConnection]:
    """Run ``command`` (an exec client whose far side runs the wrapper with ``nonce``).

    Yields once the wrapper reported that the CLI runs. Otherwise raises, after tearing
    the client down: `CLINotFoundError` (no CLI on the far side), `ProcessError` with the
    classifier's kind (the client could not get there), ``kind="spawn"`` (missing working
    directory, no Python on the far side, anything else) or ``kind="timeout"`` (no answer
    within ``start_timeout``).
    """
    try:
        # The client keeps this process's environment (SSH_AUTH_SOCK, DOCKER_HOST,
        # KUBECONFIG, ...); the CLI's own environment travels in the header.
        process = await anyio.open_process(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise ProcessError(
            f"could not run {command[0]!r} to reach {target}: {exc.strerror or exc}",
            cli_path=f"{spec.argv[0]} on {target}",
            kind="spawn",
        ) from exc
    # The client's own command line may hold secrets (an ssh -o value): the CLI's is logged.
    lifetime = Lifetime.start(f"the CLI on {target} (client pid {process.pid})", spec.argv, None)
    stderr = StderrTail(callback=spec.stderr)
    conn = RemoteConnection(
        process, spec, stderr, target=target, nonce=nonce, classify=classify, python=python
    )
    failure: ClaudeSDKError | None = None
    # stderr is read through the teardown even when the block is cancelled: the wrapper's
    # exit report comes last, and a far side blocked on a full pipe could not finish.
    draining = anyio.CancelScope(shield=True)

    async def drain_stderr() -> None:
        with draining:
            await conn.drain_stderr()

    async with anyio.create_task_group() as tg:
        tg.start_soon(drain_stderr)
        try:
            failure = await conn.start(start_timeout)
            if failure is None:
                yield conn
        finally:
            with anyio.CancelScope(shield=True):
                # A CLI that never started has nothing to finish: no grace.
                await _teardown(conn, spec.shutdown_grace if conn.started else 0)
                with anyio.move_on_after(STDERR_DRAIN):  # the report, after the exit
                    await conn.stderr_done.wait()
            draining.cancel()
            tg.cancel_scope.cancel()
            if lifetime is not None:
                lifetime.exited(conn.returncode)
    if failure is not None:
        raise failure

"""The supervisor that stands between the SDK and a local CLI (runs as its own process).

Why: if the Python process dies (SIGKILL, a crash), nothing would stop the CLI and its tool
processes. ``PR_SET_PDEATHSIG`` alone does not do: it fires when the *thread* that spawned
the child exits, and Trio spawns from worker threads. So the SDK starts this small program
in a new process group; it starts the CLI (which inherits the SDK's pipes directly: no
copying), and:

* when the CLI exits, it ends whatever the CLI left behind in the group (SIGTERM, which the
  supervisor itself ignores) and exits with the CLI's status (re-raising a fatal signal);
* when the SDK dies, its end of the *lifeline* pipe closes; the supervisor then sends SIGTERM
  to the group, waits ``grace`` seconds, and sends SIGKILL;
* the CLI also gets ``PR_SET_PDEATHSIG=SIGKILL`` (Linux) tied to this supervisor's main
  thread, in case the supervisor itself is killed.

Usage: ``python -I -S _supervisor.py LIFELINE_FD GRACE CLI [ARGS...]``. It imports only
``os``, ``sys``, ``signal`` and ``threading`` so that it starts in a few milliseconds.
"""

import os
import signal
import sys
import threading


def _set_pdeathsig() -> None:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the lifeline still covers the SDK dying
        pass


def main() -> None:
    lifeline = int(sys.argv[1])
    grace = float(sys.argv[2])
    argv = sys.argv[3:]
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(lifeline)
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, signal.SIG_DFL)
            _set_pdeathsig()
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"claude_sdk supervisor: cannot run {argv[0]!r}: {exc}\n".encode())
        os._exit(127)

    def watch_lifeline() -> None:
        try:
            while os.read(lifeline, 4096):
                pass
        except OSError:
            pass
        # The SDK is gone: end the CLI and everything it started.
        try:
            os.killpg(0, signal.SIGTERM)
        except OSError:
            pass
        threading.Event().wait(grace)
        try:
            os.killpg(0, signal.SIGKILL)
        except OSError:
            pass

    threading.Thread(target=watch_lifeline, daemon=True).start()
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    try:
        os.killpg(0, signal.SIGTERM)  # leftovers of the CLI; this process ignores SIGTERM
    except OSError:
        pass
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        try:
            signal.signal(signum, signal.SIG_DFL)  # SIGKILL and SIGSTOP cannot be caught
        except (OSError, ValueError):
            pass
        os.kill(os.getpid(), signum)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


if __name__ == "__main__":
    main()

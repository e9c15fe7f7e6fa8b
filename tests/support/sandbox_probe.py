"""Can the CLI's Linux sandbox run on this machine? Asked the way the CLI starts it.

The CLI's sandbox needs ``bwrap`` (Debian package ``bubblewrap``) and ``socat`` on ``PATH``
and a kernel and container that let bubblewrap make its namespaces. `sandbox_problem` runs
bubblewrap with the namespace and mount flags CLI 2.1.332 gives it (traced with
``strace -f -e trace=execve``: a new user, PID and network namespace, a fresh ``/proc``, all
capabilities dropped) and says exactly why it cannot, with bubblewrap's own words; typical
refusals are unprivileged user namespaces turned off (``kernel.unprivileged_userns_clone=0``,
AppArmor's ``apparmor_restrict_unprivileged_userns=1``) and containers that may not mount a
``/proc`` (``enable_weaker_nested_sandbox`` exists for those).

`require_sandbox` turns that into a skip, or a failure when ``CLAUDE_SDK_REQUIRE_SANDBOX=1``
(CI sets it where the sandbox must run): the sandbox tests never pass by skipping there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

#: The flags CLI 2.1.332 gives bubblewrap, less its binds and environment, running ``true``.
PROBE_FLAGS: tuple[str, ...] = (
    "--new-session",
    "--die-with-parent",
    "--unshare-net",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--unshare-pid",
    "--unshare-user",
    "--cap-drop",
    "ALL",
    "--cap-add",
    "CAP_SETFCAP",
    "--proc",
    "/proc",
    "--",
    "true",
)
#: Set to ``1`` where the sandbox must run: a sandbox that cannot fails the tests.
REQUIRE_VARIABLE = "CLAUDE_SDK_REQUIRE_SANDBOX"


def sandbox_problem(path: str | None = None, *, timeout: float = 30.0) -> str | None:
    """Why the CLI's sandbox cannot run here (with ``PATH`` = ``path``, default the
    process's), in one line; None when it can."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox tests need Linux (bubblewrap); this is {sys.platform}"
    found = {name: shutil.which(name, path=path) for name in ("bwrap", "socat")}
    missing = [name for name, where in found.items() if where is None]
    if missing:
        return (
            f"{' and '.join(missing)} not found on PATH: install the Debian packages "
            "bubblewrap and socat"
        )
    bwrap = found["bwrap"]
    assert bwrap is not None
    command = [bwrap, *PROBE_FLAGS]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"bubblewrap did not finish in {timeout:g} s: {' '.join(command)}"
    except OSError as exc:
        return f"bubblewrap could not be started: {exc}"
    if run.returncode != 0:
        said = " ".join(run.stderr.split()) or "(nothing on stderr)"
        return (
            f"bubblewrap cannot make the CLI's sandbox here: `{' '.join(command)}` exited "
            f"{run.returncode}: {said}"
        )
    return None


def require_sandbox() -> None:
    """Skip the calling test with `sandbox_problem`'s reason, or fail with it when
    ``CLAUDE_SDK_REQUIRE_SANDBOX=1``; return when the sandbox can run."""
    problem = sandbox_problem()
    if problem is None:
        return
    if os.environ.get(REQUIRE_VARIABLE) == "1":
        pytest.fail(f"{REQUIRE_VARIABLE}=1 but {problem}")
    pytest.skip(problem)

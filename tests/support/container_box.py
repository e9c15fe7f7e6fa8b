"""Real containers for tests: start one, look inside it (``ps`` in the container), remove it.

The images come from ``tests/support/container_image.sh`` (Debian bookworm, minbase, with
``python3`` and ``procps``; and the same without any Python). Containers run with
``--runtime runc`` and explicit ulimits (podman's default crun and rlimits fail on this kind
of host), always with ``--network none``. podman needs no daemon; docker needs a reachable
one (``DOCKER_HOST``), into which container_image.sh imported the images.

The tests run only when ``CLAUDE_SDK_CONTAINER_RUNTIME`` names the runtime (``podman`` or
``docker``); they skip otherwise, and fail instead when ``CLAUDE_SDK_REQUIRE_CONTAINER=1``.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Literal

import attrs

Runtime = Literal["podman", "docker"]

#: The runtime to test against (``podman`` or ``docker``); unset: the tests skip.
RUNTIME_ENV = "CLAUDE_SDK_CONTAINER_RUNTIME"
#: ``1``: a runtime or image that is missing fails the tests instead of skipping them.
REQUIRE_ENV = "CLAUDE_SDK_REQUIRE_CONTAINER"
#: The image with python3 (overridable, as in container_image.sh).
IMAGE = os.environ.get("CLAUDE_SDK_CONTAINER_IMAGE", "claude-sdk-test:bookworm")
#: The same image without any Python.
IMAGE_NOPY = os.environ.get("CLAUDE_SDK_CONTAINER_IMAGE_NOPY", f"{IMAGE}-nopython")
#: The flags every container gets (see the module docstring).
RUN_FLAGS = (
    "--runtime",
    "runc",
    "--network",
    "none",
    "--ulimit",
    "nofile=4096:4096",
    "--ulimit",
    "nproc=4096:4096",
)
#: Seconds a runtime command may take.
COMMAND_TIMEOUT = 60.0


@attrs.frozen
class Proc:
    """One process inside a container, as ``ps`` there shows it."""

    pid: int
    ppid: int
    stat: str
    args: str


@attrs.frozen
class Box:
    """A running container (``name``) of ``runtime``."""

    runtime: Runtime
    name: str

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.runtime, *args],
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=check,
        )

    def ps(self) -> list[Proc]:
        """Every process in the container now but PID 1, zombies and this ``ps`` itself."""
        out = self._run("exec", self.name, "ps", "-e", "-o", "pid=,ppid=,stat=,args=").stdout
        found: list[Proc] = []
        for line in out.splitlines():
            pid, ppid, stat, args = [*line.split(None, 3), ""][:4]
            proc = Proc(int(pid), int(ppid), stat, args)
            if proc.pid == 1 or stat.startswith("Z") or args.startswith("ps -e -o "):
                continue
            found.append(proc)
        return found

    def wait_empty(self, timeout: float) -> list[Proc]:
        """Wait until nothing but PID 1 runs in the container; return what is left."""
        deadline = time.monotonic() + timeout
        while True:
            left = self.ps()
            if not left or time.monotonic() >= deadline:
                return left
            # Nothing inside the container can tell us when its last process ended.
            time.sleep(0.1)

    def remove(self) -> None:
        self._run("rm", "--force", self.name, check=False)


def missing_reason(runtime: str | None) -> str | None:
    """Why the real-container tests cannot run here, or None."""
    if runtime is None:
        return f"{RUNTIME_ENV} is not set (run tests/support/container_image.sh, then set it)"
    if runtime not in ("podman", "docker"):
        return f"{RUNTIME_ENV}={runtime}: podman or docker"
    if shutil.which(runtime) is None:
        return f"{runtime} is not installed (run tests/support/container_image.sh)"
    for image in (IMAGE, IMAGE_NOPY):
        exists = subprocess.run(
            [runtime, "image", "inspect", image], capture_output=True, timeout=COMMAND_TIMEOUT
        )
        if exists.returncode != 0:
            why = exists.stderr.decode(errors="replace").strip().splitlines()[-1:]
            return f"{runtime}: no image {image} ({' '.join(why)}; see container_image.sh)"
    return None


def runtime_for_tests() -> Runtime:
    """The runtime to test against, or a skip (a failure with ``REQUIRE_ENV=1``)."""
    import pytest

    required = os.environ.get(REQUIRE_ENV) == "1"
    runtime = os.environ.get(RUNTIME_ENV) or ("podman" if required else None)
    reason = missing_reason(runtime)
    if reason is not None:
        if required:
            pytest.fail(f"{reason} and {REQUIRE_ENV}=1")
        pytest.skip(reason)
    assert runtime in ("podman", "docker")
    return "podman" if runtime == "podman" else "docker"


def start(
    runtime: Runtime,
    image: str,
    *,
    mounts: Sequence[tuple[Path, str, str]] = (),
    detach: bool = True,
) -> Box:
    """Start a container of ``image`` running ``sleep infinity`` (``detach=False``: create it
    only, so it exists but does not run). ``mounts``: (host path, container path, options)."""
    name = f"claude-sdk-test-{secrets.token_hex(4)}"
    argv = [runtime, "run" if detach else "create", "--name", name, *RUN_FLAGS]
    if detach:
        argv.append("--detach")
    for host, inside, opts in mounts:
        argv += ["--volume", f"{host}:{inside}:{opts}"]
    argv += [image, "sleep", "infinity"]
    subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT, check=True)
    return Box(runtime, name)


def box_for_tests(
    runtime: Runtime, image: str, mounts: Sequence[tuple[Path, str, str]] = (), detach: bool = True
) -> Iterator[Box]:
    """The body of a fixture: a container for the tests, removed afterwards."""
    box = start(runtime, image, mounts=mounts, detach=detach)
    try:
        yield box
    finally:
        box.remove()

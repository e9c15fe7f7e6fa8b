"""`ContainerTransport`: the CLI inside a container, through ``docker``/``podman exec -i`` or
``kubectl exec -i``.

Killing an ``exec`` client does not stop the process it started inside the container: that
process only sees its stdin close. So the CLI runs there under the wrapper of
`claude_sdk.transports._remote`, which ends the CLI's process group when its input ends.
Teardown (`claude_sdk.transports._remote.connect_remote`): the wrapper gives the CLI
``shutdown_grace`` (or until the connection's ``shutdown_deadline``, if sooner), then
SIGTERM, 2 s, SIGKILL to its group, and the same to what it left there; the local client
gets that long (and a little more) to exit, then SIGTERM, 2 s, SIGKILL. Shielded and
bounded.

``Options.cli_path``, ``cwd`` and ``env`` describe the inside of the container. They travel,
with the CLI's argv, in the wrapper's header on stdin (the same for every runtime), never
as ``-w``/``-e`` flags: environment values (API keys) would otherwise show in ``ps`` on the
host, and ``kubectl exec`` has neither flag. The command lines are::

    docker exec -i [-u USER] [EXEC_ARGS...] CONTAINER python3 -I -S -c '<wrapper>' NONCE
    podman exec -i [-u USER] [EXEC_ARGS...] CONTAINER python3 -I -S -c '<wrapper>' NONCE
    kubectl exec -i [-n NS] [--context CTX] [EXEC_ARGS...] POD [-c CONTAINER] -- python3 ...

so the image needs Python 3.6 or later (``remote_python``) with its standard library
(Debian's ``python3-minimal`` alone lacks ``json``: install ``python3``) besides the CLI.
Failures before the CLI runs are typed: ``CLINotFoundError`` (no CLI in the container),
``ProcessError`` with ``kind="container_not_found"`` (no such container or pod, or it is not
running), ``kind="container_unreachable"`` (no daemon or API server), ``kind="spawn"``
(the runtime is not installed, no Python, no working directory, anything else the runtime
refused: an unknown ``-u`` user, a bad ``exec_args`` value) or ``kind="timeout"``. Their
``stderr_tail`` includes what the client wrote to stdout before the CLI ran: ``docker exec``
prints its own exec failures there.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Literal

from .._protocol.launch import LaunchSpec
from ..errors import ClaudeSDKError, ProcessError
from ._remote import RemoteConnection, connect_remote, new_nonce, wrapper_argv
from .base import Connection, Transport

__all__ = ["ContainerTransport", "classify_container_failure"]

Runtime = Literal["docker", "podman", "kubectl"]

_NOT_FOUND = (
    "no such container",
    "no container with name or id",
    "not found",  # kubectl: pods "x" not found; container not found ("c")
    "is not running",
    "can only create exec sessions on running containers",
    "container is not running",
)
_COMMAND_MISSING = (
    "executable file",
    "invoke a command that was not found",
    "not found in $path",
    "command not found",
    "no such file or directory: oci runtime",
)
_UNREACHABLE = (
    "cannot connect to the docker daemon",
    "is the docker daemon running",
    "unable to connect to podman",
    "cannot connect to podman",
    "unable to connect to the server",
    "the connection to the server",
    "connection refused",
    "no configuration has been provided",
    "i/o timeout",
)


def classify_container_failure(returncode: int | None, stderr: str) -> str | None:
    """The ``kind`` of a failure of the exec client itself, or None.

    Returns:
        ``"container_not_found"``, ``"container_unreachable"``, or None (the client's
        output does not say; the caller then reports a start failure).
    """
    if returncode in (None, 0):
        return None
    text = stderr.lower()
    if any(needle in text for needle in _UNREACHABLE):
        return "container_unreachable"
    # The runtime reached the container and ran the command; what is missing is inside it
    # (`remote_python`, say): 126/127 is the shells' and runtimes' "cannot run the command",
    # whose messages also say "not found" ("OCI runtime attempted to invoke a command that
    # was not found", crun's "executable file `python3` not found in $PATH").
    if returncode in (126, 127) or any(needle in text for needle in _COMMAND_MISSING):
        return None
    if any(needle in text for needle in _NOT_FOUND):
        return "container_not_found"
    return None


class ContainerTransport(Transport):
    """Runs the CLI inside a container (see the module docstring).

    Args:
        runtime: ``"docker"``, ``"podman"`` or ``"kubectl"``.
        container: the container (name or id) for docker and podman.
        pod: the pod for kubectl.
        namespace: the pod's namespace (kubectl ``-n``).
        kube_container: the container in the pod (kubectl ``-c``).
        context: the kubeconfig context (kubectl ``--context``).
        runtime_path: the client executable (default: ``runtime`` on ``PATH``).
        user: the user inside the container (docker/podman ``-u``; default:
            ``Options.user``, then the image's).
        exec_args: more arguments for ``exec``, placed before the container or pod.
        remote_python: the Python 3 (3.6 or later) inside the container.
        start_timeout: seconds from starting the client until the CLI runs.
    """

    #: The CLI reads the far side's disk: a store's transcript is written there by the
    #: wrapper (``LaunchSpec.transcripts``).
    runs_here = False

    def __init__(
        self,
        runtime: Runtime = "docker",
        *,
        container: str | None = None,
        pod: str | None = None,
        namespace: str | None = None,
        kube_container: str | None = None,
        context: str | None = None,
        runtime_path: str | None = None,
        user: str | None = None,
        exec_args: Sequence[str] = (),
        remote_python: str = "python3",
        start_timeout: float = 30.0,
    ) -> None:
        if runtime not in ("docker", "podman", "kubectl"):
            raise ValueError(f"runtime must be docker, podman or kubectl, not {runtime!r}")
        if isinstance(exec_args, str):
            raise TypeError("exec_args is a sequence of strings")
        if runtime == "kubectl":
            if not pod:
                raise ValueError("kubectl needs pod=")
            if container is not None:
                raise ValueError("with kubectl, name the pod's container with kube_container=")
            if user is not None:
                raise ValueError("kubectl exec cannot choose the user")
        else:
            if not container:
                raise ValueError(f"{runtime} needs container=")
            given = {"pod": pod, "namespace": namespace}
            given |= {"kube_container": kube_container, "context": context}
            extra = [name for name, value in given.items() if value is not None]
            if extra:
                raise ValueError(f"{', '.join(extra)} apply to kubectl only")
        for name, value in (
            ("container", container),
            ("pod", pod),
            ("namespace", namespace),
            ("kube_container", kube_container),
            ("context", context),
            ("user", user),
        ):
            if value is not None and (not value or value.startswith("-")):
                raise ValueError(f"{name}: {value!r}")
        self.runtime: Runtime = runtime
        self.container = container
        self.pod = pod
        self.namespace = namespace
        self.kube_container = kube_container
        self.context = context
        self.runtime_path: str = runtime_path or runtime
        self.user = user
        self.exec_args: tuple[str, ...] = tuple(exec_args)
        self.remote_python = remote_python
        self.start_timeout = start_timeout

    @property
    def target(self) -> str:
        """What the CLI runs in (for messages)."""
        if self.runtime == "kubectl":
            where = f"{self.namespace}/{self.pod}" if self.namespace else str(self.pod)
            if self.kube_container:
                where = f"{where}/{self.kube_container}"
            return f"kubectl pod {where}"
        return f"{self.runtime} container {self.container}"

    def describe(self) -> str:
        return self.target

    def command(self, nonce: str, user: str | None = None) -> list[str]:
        """The local argv of one connection (its wrapper reports carry ``nonce``)."""
        inner = wrapper_argv(self.remote_python, nonce)
        argv = [self.runtime_path, "exec", "-i"]
        if self.runtime == "kubectl":
            if self.namespace is not None:
                argv += ["-n", self.namespace]
            if self.context is not None:
                argv += ["--context", self.context]
            argv += [*self.exec_args, str(self.pod)]
            if self.kube_container is not None:
                argv += ["-c", self.kube_container]
            return [*argv, "--", *inner]
        user = user if user is not None else self.user
        if user is not None:
            argv += ["-u", user]
        return [*argv, *self.exec_args, str(self.container), *inner]

    def _classify(
        self, returncode: int | None, stderr: str, conn: RemoteConnection
    ) -> ClaudeSDKError | None:
        kind = classify_container_failure(returncode, stderr)
        if kind is None:
            return None
        message = {
            "container_not_found": f"{self.target} does not exist or is not running",
            "container_unreachable": f"{self.runtime} cannot reach its daemon or API server",
        }[kind]
        return ProcessError(
            message, exit_code=returncode, stderr_tail=stderr, cli_path=conn.cli_path, kind=kind
        )

    @asynccontextmanager
    async def connect(self, spec: LaunchSpec) -> AsyncIterator[Connection]:
        user = self.user if self.user is not None else spec.user
        if user is not None and self.runtime == "kubectl":
            raise ClaudeSDKError("kubectl exec cannot run as Options.user", kind="unsupported")
        nonce = new_nonce()
        async with connect_remote(
            self.command(nonce, user),
            spec,
            target=self.target,
            classify=self._classify,
            start_timeout=self.start_timeout,
            python=self.remote_python,
            nonce=nonce,
        ) as conn:
            yield conn

#!/usr/bin/env python3
"""A stub ``docker`` / ``podman`` / ``kubectl`` for the ContainerTransport tests.

`install(bin_dir)` writes three small shims into ``bin_dir`` (``docker``, ``podman``,
``kubectl``) that run this file with the test's interpreter; put ``bin_dir`` first on
``PATH``. The stub then behaves like ``<runtime> exec -i``:

* it parses and checks its argv the way the real client reads it (``exec``, ``-i`` and
  no ``-t``; ``-u``; kubectl's ``-n``, ``--context``, ``-c`` and ``--``), and appends
  ``{"runtime", "argv", "parsed"}`` as a JSON line to ``$STUB_RUNTIME_LOG`` when set;
* a container or pod named ``missing`` does not exist, and one named ``daemon-down``
  stands for an unreachable daemon or API server: the stub prints what the real client
  prints and exits as it does;
* otherwise it runs the command "inside the container": as a child in a **new session**
  (so signals sent to the client's process group never reach it), with its own pipes that
  the stub relays. When the stub dies, the command sees its stdin close and its stdout
  break, exactly as a process inside a real container does when ``docker exec`` is
  killed. So teardown through the remote wrapper is what ends it.

The stub exits with the command's status (128 + N for a signal, as ``docker exec`` does).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

RUNTIMES = ("docker", "podman", "kubectl")


def install(bin_dir: Path) -> Path:
    """Write the ``docker``, ``podman`` and ``kubectl`` shims into ``bin_dir``."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name in RUNTIMES:
        shim = bin_dir / name
        shim.write_text(
            f"#!/bin/sh\nSTUB_RUNTIME_NAME={name} exec '{sys.executable}' "
            f"'{Path(__file__).resolve()}' \"$@\"\n"
        )
        shim.chmod(0o755)
    return bin_dir


class UsageError(Exception):
    """The argv is not what the transport should produce."""


def _parse_docker(args: list[str]) -> dict[str, Any]:
    parsed: dict[str, Any] = {"interactive": False, "user": None, "extra": []}
    i = 0
    while i < len(args) and args[i].startswith("-"):
        flag = args[i]
        if flag in ("-i", "--interactive"):
            parsed["interactive"] = True
        elif flag in ("-t", "--tty"):
            raise UsageError("a tty must not be requested (-t)")
        elif flag in ("-u", "--user"):
            i += 1
            parsed["user"] = args[i]
        elif flag in ("-e", "--env", "-w", "--workdir"):
            i += 1
            parsed["extra"] += [flag, args[i]]
        else:
            parsed["extra"].append(flag)
        i += 1
    if i >= len(args):
        raise UsageError("no container")
    parsed["container"] = args[i]
    parsed["command"] = args[i + 1 :]
    return parsed


def _parse_kubectl(args: list[str]) -> dict[str, Any]:
    if "--" not in args:
        raise UsageError("kubectl exec needs -- before the command")
    cut = args.index("--")
    head, command = args[:cut], args[cut + 1 :]
    parsed: dict[str, Any] = {
        "interactive": False,
        "namespace": None,
        "context": None,
        "container": None,
        "pod": None,
        "extra": [],
        "command": command,
    }
    valued = {"-n": "namespace", "--namespace": "namespace", "--context": "context"}
    valued |= {"-c": "container", "--container": "container"}
    i = 0
    while i < len(head):
        arg = head[i]
        if arg in ("-i", "--stdin"):
            parsed["interactive"] = True
        elif arg in ("-t", "--tty"):
            raise UsageError("a tty must not be requested (-t)")
        elif arg in valued:
            i += 1
            parsed[valued[arg]] = head[i]
        elif arg.startswith("-"):
            parsed["extra"].append(arg)
        elif parsed["pod"] is None:
            parsed["pod"] = arg
        else:
            raise UsageError(f"unexpected argument {arg!r}")
        i += 1
    if parsed["pod"] is None:
        raise UsageError("no pod")
    return parsed


def _fail(runtime: str, name: str) -> int:
    if name == "daemon-down":
        if runtime == "kubectl":
            sys.stderr.write(
                "The connection to the server localhost:8080 was refused - "
                "did you specify the right host or port?\n"
            )
        elif runtime == "podman":
            sys.stderr.write(
                "Error: unable to connect to Podman socket: "
                "dial unix /run/podman/podman.sock: connect: no such file or directory\n"
            )
        else:
            sys.stderr.write(
                "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
                "Is the docker daemon running?\n"
            )
        return 1
    if runtime == "kubectl":
        sys.stderr.write(f'Error from server (NotFound): pods "{name}" not found\n')
        return 1
    if runtime == "podman":
        sys.stderr.write(f'Error: no container with name or ID "{name}" found: no such container\n')
        return 125
    sys.stderr.write(f"Error response from daemon: No such container: {name}\n")
    return 1


def _relay(source: int, sink: int, close_sink: bool) -> None:
    """Copy ``source`` to ``sink`` (raw fds: no buffered object a daemon thread could hold)."""
    try:
        while True:
            chunk = os.read(source, 65536)
            if not chunk:
                break
            view = memoryview(chunk)
            while view:
                view = view[os.write(sink, view) :]
    except OSError:
        pass
    finally:
        if close_sink:
            with contextlib.suppress(OSError):
                os.close(sink)


def main() -> int:
    runtime = os.environ.get("STUB_RUNTIME_NAME") or Path(sys.argv[0]).name
    args = sys.argv[1:]
    try:
        if runtime not in RUNTIMES:
            raise UsageError(f"unknown runtime {runtime!r}")
        if not args or args[0] != "exec":
            raise UsageError("only `exec` is supported")
        parsed = _parse_kubectl(args[1:]) if runtime == "kubectl" else _parse_docker(args[1:])
        if not parsed["interactive"]:
            raise UsageError("exec without -i: the CLI would get no stdin")
        if not parsed["command"]:
            raise UsageError("no command")
    except (UsageError, IndexError) as exc:
        sys.stderr.write(f"stub {runtime}: bad usage: {exc}: {args}\n")
        return 2
    log = os.environ.get("STUB_RUNTIME_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"runtime": runtime, "argv": args, "parsed": parsed}) + "\n")
    name = parsed.get("pod") or parsed["container"]
    if name in ("missing", "daemon-down"):
        return _fail(runtime, name)
    try:
        child = subprocess.Popen(
            parsed["command"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # inside the "container": out of the client's reach
        )
    except OSError as exc:
        # Each client's own words and status for a command missing inside the container.
        command = parsed["command"][0]
        oci = (
            "OCI runtime exec failed: exec failed: unable to start container process: "
            f'exec: "{command}": executable file not found in $PATH: unknown'
        )
        message, status = {
            "docker": (oci, 127),
            # podman with crun (its default runtime): the words "not found" twice.
            "podman": (
                f"Error: crun: executable file `{command}` not found in $PATH: No such file or "
                "directory: OCI runtime attempted to invoke a command that was not found",
                127,
            ),
            "kubectl": (
                "error: Internal error occurred: error executing command in container: "
                f"failed to exec in container: {oci}",
                1,
            ),
        }[runtime]
        sys.stderr.write(f"{message}\n({exc})\n")
        return status
    streams = [child.stdin, child.stdout, child.stderr]
    stdin, stdout, stderr = (os.dup(stream.fileno()) for stream in streams if stream)
    for stream in streams:
        if stream is not None:
            stream.close()
    pumps = [
        threading.Thread(target=_relay, args=(0, stdin, True), daemon=True),
        threading.Thread(target=_relay, args=(stdout, 1, False)),
        threading.Thread(target=_relay, args=(stderr, 2, False)),
    ]
    for pump in pumps:
        pump.start()
    code = child.wait()
    for pump in pumps[1:]:
        pump.join()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    status = main()
    sys.stderr.flush()
    os._exit(status)  # a relay thread may still block on stdin: do not wait for it

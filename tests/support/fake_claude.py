#!/usr/bin/env python3
"""A fake ``claude`` executable for process-level tests (no real CLI, no network).

It speaks enough stream-json to drive a session, and misbehaves on request. Behaviours are
chosen with the environment variable ``FAKE_CLAUDE``: a comma-separated list of
``name`` or ``name=value`` items:

==================  ==========================================================================
``stderr_flood=N``  write N bytes to stderr before reading anything (a host that does not
                    drain stderr deadlocks here)
``big_line=N``      answer each prompt with an assistant frame carrying N bytes of text
``flood=N``         answer each prompt with N small assistant frames before the result
``ask=N``           before the result, send N ``can_use_tool`` requests one after another
``grandchild``      start ``sleep 600`` in the background and report its pid on stderr as
                    ``grandchild=<pid>`` (it must not survive the session)
``stubborn``        start ``sh -c "trap '' TERM; exec sleep 1000"`` (it ignores SIGTERM) in
                    the background and report its pid on stderr as ``stubborn=<pid>``
``stubborn_orphan`` the same, but double-forked: its parent exits at once, so it is nobody's
                    child of ours, yet still in the CLI's process group
``ignore_eof``      keep running after stdin closes (SIGTERM ends it)
``ignore_term``     ignore SIGTERM, and keep running after stdin closes
``exit=CODE``       write ``boom`` to stderr and exit with CODE as soon as a prompt arrives
``exit_now=CODE``   exit with CODE before reading anything
``trickle=MS:N``    answer each prompt with an assistant frame written one byte every MS
                    milliseconds, N bytes of text long (a slow link, a slow writer)
==================  ==========================================================================
"""

import json
import os
import signal
import subprocess
import sys
import time


def parse() -> dict[str, str]:
    conf: dict[str, str] = {}
    for item in filter(None, os.environ.get("FAKE_CLAUDE", "").split(",")):
        name, _, value = item.partition("=")
        conf[name.strip()] = value.strip() or "1"
    return conf


def send(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def assistant(text: str, n: int = 0) -> dict[str, object]:
    return {
        "type": "assistant",
        "message": {
            "id": f"msg_fake_{n}",
            "type": "message",
            "role": "assistant",
            "model": "claude-fake",
            "content": [{"type": "text", "text": text}],
            "stop_reason": None,
            "stop_sequence": None,
        },
        "parent_tool_use_id": None,
        "session_id": "fake-session",
    }


def main() -> None:
    conf = parse()
    if "exit_now" in conf:
        sys.stderr.write("fake claude refuses to start\n")
        sys.exit(int(conf["exit_now"]))
    if "ignore_term" in conf:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if "stderr_flood" in conf:
        chunk = b"x" * 1023 + b"\n"
        total = int(conf["stderr_flood"])
        for _ in range(total // len(chunk)):
            sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.flush()
    if "grandchild" in conf:
        child = subprocess.Popen(["sleep", "600"])
        sys.stderr.write(f"grandchild={child.pid}\n")
        sys.stderr.flush()
    if "stubborn" in conf:
        child = subprocess.Popen(["sh", "-c", "trap '' TERM; exec sleep 1000"])
        sys.stderr.write(f"stubborn={child.pid}\n")
        sys.stderr.flush()
    if "stubborn_orphan" in conf:
        # The background job keeps the group (no job control in sh -c); its stdout goes to
        # stderr so that reading the pid does not wait for it.
        script = "(trap '' TERM; exec sleep 1000) >&2 & echo $!"
        pid = subprocess.run(["sh", "-c", script], stdout=subprocess.PIPE, check=True).stdout
        sys.stderr.write(f"stubborn={int(pid)}\n")
        sys.stderr.flush()
    asked = 0
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            break
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "control_request":
            send(
                {
                    "type": "control_response",
                    "response": {
                        "subtype": "success",
                        "request_id": msg["request_id"],
                        "response": {"pid": os.getpid(), "claude_code_version": "0.0.0-fake"},
                    },
                }
            )
        elif kind == "control_response":
            continue
        elif kind == "user":
            if "exit" in conf:
                sys.stderr.write("boom\n")
                sys.stderr.flush()
                sys.exit(int(conf["exit"]))
            for i in range(int(conf.get("flood", 0))):
                send(assistant(f"frame {i}", i))
            if "big_line" in conf:
                send(assistant("y" * int(conf["big_line"])))
            if "trickle" in conf:
                pause, _, size = conf["trickle"].partition(":")
                data = (json.dumps(assistant("t" * int(size or 50))) + "\n").encode()
                for i in range(len(data)):
                    sys.stdout.buffer.write(data[i : i + 1])
                    sys.stdout.buffer.flush()
                    time.sleep(int(pause) / 1000)
            for _ in range(int(conf.get("ask", 0))):
                asked += 1
                send(
                    {
                        "type": "control_request",
                        "request_id": f"ask-{asked}",
                        "request": {
                            "subtype": "can_use_tool",
                            "tool_name": "Bash",
                            "input": {"command": f"echo {asked}"},
                            "tool_use_id": f"toolu_{asked}",
                        },
                    }
                )
                while True:  # wait for the answer, skipping anything else
                    answer = stdin.readline()
                    if not answer:
                        sys.exit(0)
                    data = json.loads(answer)
                    if data.get("type") == "control_response":
                        break
            send(
                {
                    "type": "result",
                    "subtype": "success",
                    "is_error": False,
                    "result": "done",
                    "session_id": "fake-session",
                }
            )
    if "ignore_term" in conf or "ignore_eof" in conf:
        signal.pause()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A fake ``claude`` whose turn never ends by itself: for the shutdown and timeout tests.

It answers ``initialize`` (and every other control request, unless told not to), and on each
prompt starts a turn (``running``, ``system/init``, one assistant frame) that it never
finishes: no result comes until stdin closes, and then only with ``on_eof=finish``. Options
come from the environment variable ``STUCK_CLAUDE``, a comma-separated list of ``name`` or
``name=value`` items:

====================  ========================================================================
``on_eof=ignore``     (the default) keep running after stdin closes, until a signal ends it
``on_eof=finish``     when stdin closes: wait ``finish_delay`` seconds, write the open turn's
                      result (and ``idle``), exit 0
``finish_delay=S``    seconds (default 0.2)
``no_initialize``     never answer ``initialize``
``ignore=A+B``        never answer control requests of subtypes ``A`` and ``B``
``log=PATH``          append every line read on stdin to PATH (flushed at once), then ``EOF``
                      when stdin closes, ``FINISHED`` after the late result, ``SIGTERM``
                      before dying of it
====================  ========================================================================

On SIGTERM it first reads (and logs) what is left on stdin, which the host has closed by
then (bounded by a 1 s alarm), so that the log shows everything the host wrote before it
signalled (an interrupt written just before the signal is not lost to a race), logs
``SIGTERM``, then dies of the signal all the same (exit status -15).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any


def parse() -> dict[str, str]:
    conf: dict[str, str] = {}
    for item in filter(None, os.environ.get("STUCK_CLAUDE", "").split(",")):
        name, _, value = item.partition("=")
        conf[name.strip()] = value.strip() or "1"
    return conf


#: Set by the SIGTERM handler; acted on at the end of stdin (see the module docstring).
TERMINATED: list[bool] = []


def send(obj: dict[str, Any]) -> None:
    if TERMINATED:
        return  # being terminated: only read what is left
    try:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # the host stopped reading
        TERMINATED.append(False)


def on_term(signum: int, frame: object) -> None:
    # Do not raise here: a line read but not yet logged would be lost. The host closes stdin
    # before it signals, so the main loop reaches EOF soon; the alarm bounds it anyway.
    TERMINATED.append(True)
    signal.signal(signal.SIGALRM, lambda signum, frame: die_of_sigterm())
    signal.alarm(1)


def die_of_sigterm() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
    while True:  # the signal is delivered at once; never return
        signal.pause()


def main() -> None:
    signal.signal(signal.SIGTERM, on_term)
    conf = parse()
    serve(conf)
    log(conf.get("log"), "SIGTERM")
    die_of_sigterm()


def log(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text.rstrip("\n") + "\n")
            f.flush()


def serve(conf: dict[str, str]) -> None:
    log_path = conf.get("log")
    ignored = set(filter(None, conf.get("ignore", "").split("+")))
    if "no_initialize" in conf:
        ignored.add("initialize")
    session = "stuck-session"
    open_prompts: list[str] = []

    stdin = sys.stdin.buffer
    while True:
        raw = stdin.readline()
        if not raw:
            break
        log(log_path, raw.decode("utf-8", "replace"))
        if not raw.strip():
            continue
        msg = json.loads(raw)
        kind = msg.get("type")
        if kind == "control_request":
            subtype = (msg.get("request") or {}).get("subtype")
            if subtype in ignored:
                continue
            body: dict[str, Any] = {}
            if subtype == "initialize":
                body = {"pid": os.getpid(), "claude_code_version": "0.0.0-stuck"}
            elif subtype == "interrupt":
                body = {"still_queued": []}
            send(
                {
                    "type": "control_response",
                    "response": {
                        "subtype": "success",
                        "request_id": msg["request_id"],
                        "response": body,
                    },
                }
            )
        elif kind == "user":
            prompt = msg.get("uuid")
            if isinstance(prompt, str):
                open_prompts.append(prompt)
            send({"type": "system", "subtype": "session_state_changed", "state": "running"})
            send({"type": "system", "subtype": "init", "session_id": session, "model": "stuck"})
            send(
                {
                    "type": "assistant",
                    "message": {
                        "id": "msg_stuck",
                        "type": "message",
                        "role": "assistant",
                        "model": "stuck",
                        "content": [{"type": "text", "text": "working on it"}],
                        "stop_reason": None,
                        "stop_sequence": None,
                    },
                    "parent_tool_use_id": None,
                    "session_id": session,
                }
            )
    log(log_path, "EOF")
    if TERMINATED:
        return
    if conf.get("on_eof", "ignore") == "finish":
        time.sleep(float(conf.get("finish_delay", "0.2")))
        if TERMINATED:
            return
        send(
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "result": "finished after EOF",
                "session_id": session,
                "user_message_uuids": open_prompts,
            }
        )
        send({"type": "system", "subtype": "session_state_changed", "state": "idle"})
        log(log_path, "FINISHED")
        sys.exit(0)
    while not TERMINATED:  # ignore EOF: only a signal ends this (no pause(): it races)
        time.sleep(0.02)


if __name__ == "__main__":
    main()

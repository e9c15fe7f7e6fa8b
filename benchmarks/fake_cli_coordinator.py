#!/usr/bin/env python3
"""A fake Claude Code CLI for ``bench_coordinator.py``: multi-turn sessions with permission asks.

It speaks the stream-json protocol like ``fake_cli_bench.py`` (whose recorded CLI 2.1.330
frames and builders it reuses): it ignores every command-line flag, answers every
``control_request`` of the SDK with a success (``initialize`` with the recorded answer, its
``pid`` replaced by its own) and answers **every** ``user`` message with one turn:

    ASKS times: a pause of THINK ms (0 by default; each pause drawn uniformly from 0.5 to
                1.5 times it, as a model's time varies), FRAMES ``assistant`` frames (one
                write), then one ``can_use_tool`` request (one write), then it reads until
                the answer and checks it allows;
    then the recorded ``result``.

The round trip of each request is timed here, with ``time.perf_counter`` (monotonic), from
just before the request is written to just after the answer's line is read: it covers the
pipe both ways and everything the SDK does in between. After each turn's ``result`` is
written (outside every timed interval) it appends one line ``{"turn": K, "rt_us": [...]}``
to ``$BENCH_COORD_OUT/<pid>.jsonl``, so the figures survive an SDK that ends it with a
signal when it closes. At the end of stdin it exits 0; a wrong answer is reported on stderr
and ends it with exit status 3.

Configuration (environment): ``BENCH_COORD_ASKS`` (3), ``BENCH_COORD_FRAMES`` (10),
``BENCH_COORD_THINK_MS`` (0), ``BENCH_COORD_TURNS`` (turns built ahead, 6; later turns reuse
them), ``BENCH_COORD_OUT`` (the directory; unset: nothing is written). Every frame is built
before ``initialize`` is read, so a turn costs this process a few writes, ``ASKS`` short
``json.loads`` and one append. Standard library only; it starts in ~50 ms.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

# The sibling module: the recorded frames and the cheap builders of the throughput fake.
from fake_cli_bench import (
    AssistantTemplate,
    Gen,
    Recorded,
    _dumps,
    build_requests,
)

Json = dict[str, object]


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, str(default)))


class CoordinatorCLI:
    def __init__(self) -> None:
        self.asks = max(_env_int("BENCH_COORD_ASKS", 3), 0)
        self.frames = max(_env_int("BENCH_COORD_FRAMES", 10), 0)
        self.think = max(_env_int("BENCH_COORD_THINK_MS", 0), 0) / 1000
        self.rng = random.Random(os.getpid())
        built_turns = max(_env_int("BENCH_COORD_TURNS", 6), 1)
        out = os.environ.get("BENCH_COORD_OUT")
        self.out = os.path.join(out, f"{os.getpid()}.jsonl") if out else None
        recorded = Recorded("can_use_tool")
        gen = Gen(seed=os.getpid())  # every session's ids differ
        template = AssistantTemplate(recorded.assistant)
        self.init_body = {**recorded.init_body, "pid": os.getpid()}
        self.result_line = (_dumps(recorded.result) + "\n").encode()
        slots = built_turns * self.asks
        self.requests = build_requests(recorded, gen, slots, "can_use_tool")
        self.chunks: list[bytes] = []
        i = 0
        for _ in range(slots):
            lines = []
            for _ in range(self.frames):
                lines.append(template.line(i, gen.text(i), gen.hex(64)))
                i += 1
            self.chunks.append(b"".join(lines))
        self.turns = 0
        self.readline = sys.stdin.buffer.readline

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(1, view) :]

    def answer(self, frame: Json) -> None:
        request = frame.get("request")
        body: object = {}
        if isinstance(request, dict) and request.get("subtype") == "initialize":
            body = self.init_body
        answer = {"subtype": "success", "request_id": frame.get("request_id"), "response": body}
        self.write((_dumps({"type": "control_response", "response": answer}) + "\n").encode())

    def run(self) -> int:
        while True:
            raw = self.readline()
            if not raw:
                return 0
            if not raw.strip():
                continue
            frame = json.loads(raw)
            kind = frame.get("type")
            if kind == "control_request":
                self.answer(frame)
            elif kind == "user":
                code = self.turn()
                if code:
                    return code

    def turn(self) -> int:
        self.turns += 1
        clock = time.perf_counter
        readline = self.readline
        times: list[float] = []
        for k in range(self.asks):
            slot = ((self.turns - 1) * self.asks + k) % len(self.requests)
            if self.think:
                time.sleep(self.think * self.rng.uniform(0.5, 1.5))
            if self.frames:
                self.write(self.chunks[slot])
            line, rid = self.requests[slot]
            t0 = clock()
            self.write(line)
            while True:
                raw = readline()
                t1 = clock()  # the answer's line is read: the round trip ends here
                if not raw:
                    print(f"fake_cli_coordinator: stdin closed before {rid}", file=sys.stderr)
                    return 3
                frame = json.loads(raw)
                kind = frame.get("type")
                if kind == "control_response":
                    break
                if kind == "control_request":
                    self.answer(frame)
            times.append(t1 - t0)
            response = frame.get("response") or {}
            body = response.get("response")
            if not (
                response.get("request_id") == rid
                and response.get("subtype") == "success"
                and isinstance(body, dict)
                and body.get("behavior") == "allow"
            ):
                print(f"fake_cli_coordinator: bad answer to {rid}: {raw[:500]!r}", file=sys.stderr)
                return 3
        self.write(self.result_line)
        if self.out is not None:
            record = {"turn": self.turns, "rt_us": [round(t * 1e6, 1) for t in times]}
            fd = os.open(self.out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                os.write(fd, (json.dumps(record) + "\n").encode())
            finally:
                os.close(fd)
        return 0


def main() -> int:
    try:
        return CoordinatorCLI().run()
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    raise SystemExit(main())

"""A transport wrapper that records the duplex wire (tests; the public cassettes come later)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from claude_sdk._protocol.launch import LaunchSpec
from claude_sdk.errors import LineTooLongError
from claude_sdk.transports.base import Connection, ConnectionWrapper, Transport


class RecordingConnection(ConnectionWrapper):
    def __init__(self, inner: Connection, log: list[tuple[float, str, bytes]]) -> None:
        super().__init__(inner)
        self._log = log
        self._start = time.monotonic()

    def _note(self, direction: str, line: bytes) -> None:
        self._log.append((time.monotonic() - self._start, direction, line))

    async def send(self, line: bytes) -> None:
        self._note("sdk>cli", line)
        await self._inner.send(line)

    async def receive_lines(self) -> list[bytes | LineTooLongError]:
        lines = await self._inner.receive_lines()
        for line in lines:
            if isinstance(line, bytes):
                self._note("cli>sdk", line)
        return lines


class RecordingTransport(Transport):
    """Wraps another transport and keeps every line in both directions."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.runs_here = inner.runs_here  # where the CLI reads its files: the inner one's
        self.log: list[tuple[float, str, bytes]] = []
        self.specs: list[LaunchSpec] = []

    @asynccontextmanager
    async def connect(self, spec: LaunchSpec) -> AsyncIterator[Connection]:
        self.specs.append(spec)
        async with self.inner.connect(spec) as conn:
            yield RecordingConnection(conn, self.log)

    def received(self) -> list[bytes]:
        return [line for _, d, line in self.log if d == "cli>sdk"]

    def sent(self) -> list[bytes]:
        return [line for _, d, line in self.log if d == "sdk>cli"]

    def dump(self, path: Path, scrub: dict[str, str] | None = None, **header: Any) -> None:
        """Write the wire as NDJSON: a header line, then ``{t, dir, msg}`` per line.

        ``scrub`` maps strings (machine paths) to placeholders, replaced in every line.
        """
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as f:
            f.write(json.dumps({"dir": "note", "note": "header", **header}) + "\n")
            for t, direction, line in self.log:
                text = line.decode("utf-8", "surrogatepass")
                for old, new in (scrub or {}).items():
                    text = text.replace(old, new)
                f.write(json.dumps({"t": round(t, 4), "dir": direction, "msg": json.loads(text)}))
                f.write("\n")

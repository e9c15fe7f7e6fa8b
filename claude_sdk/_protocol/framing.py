"""Sans-IO newline-delimited JSON framing for the CLI's stdout.

:class:`LineSplitter` takes the bytes read from the CLI's stdout, in chunks of any size, and
gives back complete lines. It performs no I/O and never decodes.

Invariants:

* Lines are split on ``b"\\n"`` at the byte level, so a multi-byte UTF-8 character split
  across two chunks arrives whole. One trailing ``b"\\r"`` is removed; nothing else is.
* A line is returned byte-exact and in order, however many chunks it spanned. Pieces of a
  partial line are collected in a list and joined once, when its newline arrives.
* Blank lines (empty or only ASCII whitespace) are dropped silently. A line whose first
  non-whitespace byte is not ``b"{"`` is not JSON: it is dropped, counted in
  ``lines_skipped`` and logged at WARNING on the ``"claude_sdk.protocol"`` logger. Neither
  raises.
* A line longer than ``max_line_bytes`` (not counting its ``\\n`` and a removed ``\\r``) is
  never returned. A :class:`~claude_sdk.errors.LineTooLongError` instance takes its place
  in the output, once per such line, and the lines after it come out intact. The splitter
  holds at most ``max_line_bytes + 1`` bytes of a partial line: as soon as a partial line
  is known to be too long it is dropped and the rest of it is discarded as it arrives.
* Every call returns a new ``list``; the splitter keeps no reference to it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator

from .._limits import DEFAULT_MAX_LINE_BYTES
from ..errors import LineTooLongError, short_repr

__all__ = ["DEFAULT_MAX_LINE_BYTES", "LineSplitter", "iter_lines"]

_logger = logging.getLogger("claude_sdk.protocol")


class LineSplitter:
    """Split a byte stream into NDJSON lines.

    Attributes:
        max_line_bytes: The longest line accepted, in bytes.
        lines_skipped: Non-JSON lines dropped so far.
        lines_oversized: Lines rejected as longer than ``max_line_bytes`` so far.
    """

    __slots__ = (
        "_discarding",
        "_pieces",
        "_size",
        "lines_oversized",
        "lines_skipped",
        "max_line_bytes",
    )

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        """Create a splitter with no buffered data.

        Args:
            max_line_bytes: The longest line accepted, in bytes (at least 1).

        Raises:
            ValueError: If ``max_line_bytes`` is less than 1.
        """
        if max_line_bytes < 1:
            raise ValueError(f"max_line_bytes must be at least 1, not {max_line_bytes}")
        self.max_line_bytes: int = max_line_bytes
        self.lines_skipped: int = 0
        self.lines_oversized: int = 0
        # Pieces of the current partial line; their total length is ``_size``, which never
        # exceeds ``max_line_bytes + 1`` (one more byte may be the ``\r`` of a CRLF).
        self._pieces: list[bytes] = []
        self._size = 0
        # True while dropping the rest of a line already reported as too long.
        self._discarding = False

    @property
    def buffered(self) -> int:
        """Bytes of the current partial line held (0 while discarding)."""
        return self._size

    def feed(self, data: bytes) -> list[bytes | LineTooLongError]:
        """Consume a chunk and return the lines it completes.

        Args:
            data: The next bytes read from the stream (any length; ``b""`` is a no-op).

        Returns:
            The completed lines in order, without their line ending, with a
            ``LineTooLongError`` instance in place of each line that is too long.
        """
        out: list[bytes | LineTooLongError] = []
        if not data:
            return out
        limit = self.max_line_bytes
        parts = data.split(b"\n")
        tail = parts.pop()
        if parts:
            first = parts[0]
            if self._discarding:
                # The end of a line already reported.
                self._discarding = False
            elif self._pieces:
                pieces = self._pieces
                seen = self._size + len(first)
                self._pieces = []
                self._size = 0
                if seen > limit + 1:
                    last = first or pieces[-1]
                    self._reject(out, seen - 1 if last.endswith(b"\r") else seen)
                else:
                    pieces.append(first)
                    self._emit(b"".join(pieces), out)
            else:
                self._emit(first, out)
            if len(parts) > 1:
                self._emit_many(parts, len(data) <= limit and b"\r" not in data, out)
        if tail and not self._discarding:
            self._pieces.append(tail)
            self._size += len(tail)
            if self._size > limit + 1:
                size = self._size
                self._pieces = []
                self._size = 0
                self._discarding = True
                self._reject(out, size)
        return out

    def close(self) -> list[bytes | LineTooLongError]:
        """Signal end of stream and return the final unterminated line, if any.

        The final line is filtered like any other. The splitter is then empty and may be
        reused.

        Returns:
            A list holding the final line (or its ``LineTooLongError``), or an empty list.
        """
        out: list[bytes | LineTooLongError] = []
        pieces = self._pieces
        self._pieces = []
        self._size = 0
        if self._discarding:
            self._discarding = False
        elif pieces:
            self._emit(b"".join(pieces), out)
        return out

    def _emit_many(
        self, parts: list[bytes], plain: bool, out: list[bytes | LineTooLongError]
    ) -> None:
        """Filter ``parts[1:]``, complete lines, into ``out``.

        ``plain`` promises that no line holds ``\\r`` or exceeds the limit, which allows a
        batch filter for the common case where every line starts with ``{``.
        """
        if plain:
            good = [line for line in parts[1:] if line[:1] == b"{"]
            if len(good) == len(parts) - 1:
                out.extend(good)
                return
        emit = self._emit
        for i in range(1, len(parts)):
            emit(parts[i], out)

    def _emit(self, line: bytes, out: list[bytes | LineTooLongError]) -> None:
        """Filter one complete line (without its ``\\n``) into ``out``."""
        if line.endswith(b"\r"):
            line = line[:-1]
        if len(line) > self.max_line_bytes:
            self._reject(out, len(line))
        elif line[:1] == b"{":
            out.append(line)
        else:
            stripped = line.lstrip()
            if not stripped:
                return
            if stripped[:1] == b"{":
                out.append(line)
            else:
                self.lines_skipped += 1
                _logger.warning("skipped a non-JSON line on CLI stdout: %s", short_repr(line))

    def _reject(self, out: list[bytes | LineTooLongError], size: int) -> None:
        self.lines_oversized += 1
        out.append(LineTooLongError(limit=self.max_line_bytes, size=size))


def iter_lines(
    chunks: Iterable[bytes], max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[bytes]:
    """Yield the NDJSON lines of a chunked byte stream.

    Args:
        chunks: The stream, in chunks of any size.
        max_line_bytes: The longest line accepted, in bytes.

    Yields:
        Each JSON line, as :meth:`LineSplitter.feed` returns it.

    Raises:
        LineTooLongError: When a line longer than ``max_line_bytes`` is met.
    """
    splitter = LineSplitter(max_line_bytes)
    for chunk in chunks:
        for item in splitter.feed(chunk):
            if isinstance(item, LineTooLongError):
                raise item
            yield item
    for item in splitter.close():
        if isinstance(item, LineTooLongError):
            raise item
        yield item

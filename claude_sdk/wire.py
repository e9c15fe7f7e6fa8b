"""The public codec: one NDJSON line to one typed frame, and back.

>>> from claude_sdk import wire
>>> frame = wire.decode(b'{"type":"keep_alive"}')
>>> wire.encode(frame)
b'{"type":"keep_alive"}'

* `decode` never fails on a JSON object: unknown kinds become ``Unknown*`` values holding the
  raw dict, unknown fields go to ``extra``. ``strict=True`` raises `DriftError` instead,
  listing what the model does not know (for tests and CLI upgrade checks).
* `encode` returns the JSON bytes without the trailing newline; every decoded frame encodes
  back to the dict it came from.
* `decode_response` types the body of a success ``control_response`` once the subtype of the
  request it answers is known (the envelope alone does not say).
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

from ._protocol import codec as _codec
from ._protocol.codec import default_codec as _default_codec
from ._protocol.schema import answer_types as _answer_types
from .control import (
    ControlCancelRequest,
    ControlRequest,
    ControlResponse,
    KeepAlive,
    UpdateEnvironmentVariables,
)
from .errors import DriftError, MessageDecodeError
from .messages import Message

__all__ = [
    "Frame",
    "decode",
    "decode_response",
    "drift",
    "encode",
    "from_dict",
    "loads",
    "dumps",
    "replace",
    "to_dict",
]

_T = typing.TypeVar("_T")

Frame = (
    Message
    | ControlRequest
    | ControlResponse
    | ControlCancelRequest
    | KeepAlive
    | UpdateEnvironmentVariables
)
"""Anything that travels as one line: a message or a control envelope."""

loads: Callable[[bytes | bytearray | memoryview | str], Any] = _codec.loads
dumps: Callable[[Any], bytes] = _codec.dumps


def decode(line: bytes | bytearray | memoryview | str, *, strict: bool = False) -> Frame:
    """Decode one NDJSON line (with or without its newline) to a typed frame.

    Args:
        line: The JSON text of one frame.
        strict: Raise `DriftError` if the model does not fully know the frame.

    Raises:
        MessageDecodeError: The line is not a JSON object.
        DriftError: With ``strict=True``, the frame has unknown kinds, fields or types.
    """
    codec = _default_codec()
    frame: Frame = codec.decode_frame(line)
    if strict:
        findings = codec.drift(frame)
        if findings:
            raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else bytes(line)
            raise DriftError(line=raw, findings=findings)
    return frame


def encode(frame: Any) -> bytes:
    """Encode a frame (or any model value) as one JSON line, without the newline."""
    return _default_codec().encode(frame)


def to_dict(obj: Any) -> Any:
    """The JSON-ready data of a model value (the inverse of `from_dict`)."""
    return _default_codec().unstructure(obj)


def from_dict(data: Any, tp: Any = None) -> Any:
    """Type JSON data: as a frame when ``tp`` is None, else as ``tp`` (a class or union)."""
    codec = _default_codec()
    if tp is None:
        return codec.decode_obj(data)
    return codec.structure(data, tp)


def drift(obj: Any) -> list[str]:
    """What the model does not know about a decoded value (empty when it knows it all)."""
    return _default_codec().drift(obj)


def decode_response(subtype: str, body: dict[str, Any] | None) -> Any:
    """Type the body of a success response to a request of ``subtype``.

    Returns the typed body (for example `InitializeResponse` for ``initialize``), or the dict
    itself for subtypes whose answer has no class. An absent body is ``{}``.
    """
    tp = _answer_types().get(subtype, dict)
    data = {} if body is None else body
    if tp is None or tp is dict or typing.get_origin(tp) is dict:
        return data
    return _default_codec().structure(data, tp)


_ = MessageDecodeError


def replace(value: _T, /, **changes: Any) -> _T:
    """A copy of the wire value ``value`` with ``changes`` (field names) set.

    What ``attrs.evolve`` gives (unknown keys in ``extra`` are kept too), typed for every
    type checker: mypy reads wire classes through their ``dataclass_transform`` decorator and
    takes ``attrs.evolve`` for attrs' own decorators only.

    Raises:
        TypeError: ``value`` is not a wire value, or a change names no field of its class.
    """
    import attrs

    cls = type(value)
    if not attrs.has(cls):
        raise TypeError(f"replace() takes a wire value, not {cls.__qualname__}")
    names = attrs.fields_dict(cls)
    unknown = sorted(set(changes) - set(names))
    if unknown:
        raise TypeError(f"{cls.__qualname__} has no field {', '.join(map(repr, unknown))}")
    return attrs.evolve(value, **changes)  # type: ignore[misc]

"""Strict drift over a recorded duplex wire: every frame the CLI sent, and the typed answer to
every request the host sent (paired by ``request_id``).

Used by the e2e teardown (collected into one report) and by the recordings test
(tests/protocol/test_e2e_recordings.py); both CLI versions' traffic goes through it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import attrs

from claude_sdk import wire


def _obj(line: bytes | str | dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(line, dict):
        return line
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def wire_findings(
    sent: Iterable[bytes | str | dict[str, Any]],
    received: Iterable[bytes | str | dict[str, Any]],
) -> list[tuple[str, str]]:
    """``(what, finding)`` for what the model does not know in ``received``.

    ``what`` is the frame's class, or ``answer:<subtype>`` for the typed body of a success
    response to a host request of that subtype.
    """
    asked: dict[str, str] = {}
    for line in sent:
        obj = _obj(line)
        if obj is None or obj.get("type") != "control_request":
            continue
        request = obj.get("request")
        if isinstance(request, dict) and isinstance(request.get("subtype"), str):
            asked[str(obj.get("request_id"))] = request["subtype"]
    out: list[tuple[str, str]] = []
    for line in received:
        obj = _obj(line)
        if obj is None:
            out.append(("line", f"not a JSON object: {line!r:.80}"))
            continue
        frame = wire.from_dict(obj)
        out.extend((type(frame).__name__, problem) for problem in wire.drift(frame))
        response = obj.get("response") if obj.get("type") == "control_response" else None
        if not isinstance(response, dict) or response.get("subtype") != "success":
            continue
        subtype = asked.get(str(response.get("request_id")))
        body = response.get("response")
        if subtype is None or not (body is None or isinstance(body, dict)):
            continue
        answer = wire.decode_response(subtype, body)
        if attrs.has(type(answer)):
            out.extend((f"answer:{subtype}", problem) for problem in wire.drift(answer))
    return out

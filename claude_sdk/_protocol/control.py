"""Control-request bookkeeping, sans I/O.

Invariants:

* Every outbound request gets a unique id (``req_<n>_<8 hex>``) and one pending entry; a
  response resolves it at most once, and a response to an id that is not pending (a replayed
  echo, a late answer after a timeout) is ignored.
* An error response becomes a `ControlRequestError` carrying the subtype, the CLI's message
  and its ``error_code``; a success body is typed by the subtype of the request it answers.
* Every inbound request is answered at most once: ``finish`` says whether an answer may still
  be written (not when the CLI cancelled the request or it was already answered).
"""

from __future__ import annotations

import os
from typing import Any

from ..control import ControlError, ControlResponse, ControlSuccess
from ..errors import ControlRequestError, MessageDecodeError
from .codec import default_codec, dumps
from .schema import answer_types

__all__ = ["ControlState"]


class ControlState:
    """Ids, pending outbound requests and inbound requests in flight."""

    def __init__(self) -> None:
        self._token = os.urandom(4).hex()
        self._counter = 0
        self._outbound: dict[str, str] = {}
        self._inbound: dict[str, str] = {}
        self._cancelled: set[str] = set()

    # -- outbound (host -> CLI) ---------------------------------------------------------

    def begin(self, subtype: str) -> str:
        """Allocate an id for a request of ``subtype`` and mark it pending."""
        self._counter += 1
        request_id = f"req_{self._counter}_{self._token}"
        self._outbound[request_id] = subtype
        return request_id

    def pending_subtype(self, request_id: str) -> str | None:
        """The subtype of a pending request, or None."""
        return self._outbound.get(request_id)

    @property
    def pending(self) -> list[str]:
        """The ids of every pending outbound request."""
        return list(self._outbound)

    def abandon(self, request_id: str) -> None:
        """Forget a pending request (timed out or cancelled by the caller)."""
        self._outbound.pop(request_id, None)

    def resolve(self, frame: ControlResponse) -> tuple[str, Any] | None:
        """Match a response to its pending request.

        Returns:
            ``(request_id, outcome)``, where outcome is the typed body (or the body dict for
            subtypes without a class) or a `ControlRequestError`; None when no request with
            that id is pending.
        """
        response = frame.response
        request_id = response.request_id
        if request_id is None:
            return None
        subtype = self._outbound.pop(request_id, None)
        if subtype is None:
            return None
        if isinstance(response, ControlSuccess):
            body = response.response if response.response is not None else {}
            tp = answer_types().get(subtype, dict)
            if tp is None or tp is dict or getattr(tp, "__origin__", None) is dict:
                return request_id, body
            try:
                return request_id, default_codec().structure(body, tp)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                # The answer arrived but does not fit the model: fail this request now,
                # with the body, rather than leave it waiting for its timeout.
                mismatch = MessageDecodeError(
                    line=dumps(body),
                    reason=f"the answer to {subtype} does not fit {tp.__name__}: "
                    f"{type(exc).__name__}: {exc}",
                )
                return request_id, mismatch
        if isinstance(response, ControlError):
            error = ControlRequestError(
                subtype=subtype,
                error=response.error,
                error_code=response.error_code,
                request_id=request_id,
            )
            return request_id, error
        error = ControlRequestError(
            subtype=subtype,
            error=f"unknown response envelope: {dict(getattr(response, 'raw', {}))!r}",
            request_id=request_id,
        )
        return request_id, error

    # -- inbound (CLI -> host) ----------------------------------------------------------

    def accept(self, request_id: str, subtype: str) -> bool:
        """Register an inbound request; False if one with this id is already in flight."""
        if request_id in self._inbound:
            return False
        self._inbound[request_id] = subtype
        return True

    def cancel(self, request_id: str) -> bool:
        """The CLI withdrew a request: True if it was in flight (its answer is suppressed)."""
        if request_id in self._inbound:
            self._cancelled.add(request_id)
            return True
        return False

    def finish(self, request_id: str) -> bool:
        """The handler is done: True if its answer may be written."""
        self._inbound.pop(request_id, None)
        if request_id in self._cancelled:
            self._cancelled.discard(request_id)
            return False
        return True

    @property
    def in_flight(self) -> list[str]:
        """The ids of inbound requests whose handlers are running."""
        return list(self._inbound)

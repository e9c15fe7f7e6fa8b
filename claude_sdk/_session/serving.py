"""`Serving`: a request from the CLI as the driver serves it (the protocol's record of it)."""

from __future__ import annotations

from typing import Any

import anyio

from .._protocol.events import PENDING, WITHDRAWN, InboundRequest

__all__ = ["Serving"]


class Serving(InboundRequest):
    """A request from the CLI as the driver serves it (the protocol makes its records of this
    class: ``Protocol(request_class=Serving)``).

    It is also what a permission callback gets as ``context.cancel_scope``: the worker runs
    handlers in a cancel scope shared by several requests, so the context gets this
    per-request view of it instead.
    """

    __slots__ = ("host_cancelled", "scope", "started")

    def __init__(self, request_id: str, request: Any) -> None:
        # `InboundRequest.__init__`, written out (one call less per request).
        self.request_id = request_id
        self.request = request
        self.state: str = PENDING
        self.handle: Any = None
        #: A worker has taken it.
        self.started = False
        #: ``cancel()`` was called while the handler ran.
        self.host_cancelled = False
        #: The cancel scope its handler runs in, while it runs.
        self.scope: anyio.CancelScope | None = None

    @property
    def withdrawn(self) -> bool:
        """The CLI withdrew the request (``control_cancel_request``), or its output ended."""
        return self.state == WITHDRAWN

    @property
    def cancel_called(self) -> bool:
        """True once the handler was cancelled (by the CLI or by `cancel`)."""
        return self.state == WITHDRAWN or self.host_cancelled

    def cancel(self) -> None:
        """Cancel the handler if it is still running (the CLI gets an error answer)."""
        if self.scope is not None and not self.cancel_called:
            self.host_cancelled = True
            self.scope.cancel()

"""A synchronous facade: `ask`, `query` and sessions from plain (non-async) code.

Each call runs the async API on an event loop in a helper thread (an AnyIO blocking portal),
so it works from plain scripts, from worker threads, and from inside a thread that already
runs an event loop, such as a Jupyter notebook cell (that loop is blocked while the call
runs, as any blocking call would block it)::

    import claude_sdk

    reply = claude_sdk.sync.ask("What is 2 + 2?")
    print(reply.text)

    with claude_sdk.sync.open_session(options) as session:
        session.send("Summarise README.md")
        for message in session.receive_response():
            print(message)

Everything the async objects do happens on the portal's loop: the session, its reader and
its callbacks (``can_use_tool``, hooks) run there, so async callbacks work unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # At run time these are imported by the first call: `claude_sdk.sync` itself is cheap.
    from anyio.from_thread import BlockingPortal

    from .control import InterruptReceipt
    from .messages import Message
    from .options import Options
    from .query import Prompt, Reply
    from .session import MessageStream, Session
    from .transports.base import Transport


def start_blocking_portal(backend: str) -> AbstractContextManager[BlockingPortal]:
    """``anyio.from_thread.start_blocking_portal``, imported on first use (import time)."""
    from anyio.from_thread import start_blocking_portal as start

    return start(backend)


__all__ = ["SyncQuery", "SyncSession", "ask", "open_session", "query"]


def ask(
    prompt: Prompt,
    *,
    options: Options | None = None,
    transport: Transport | None = None,
    backend: str = "asyncio",
) -> Reply:
    """`claude_sdk.ask`, blocking: run one prompt and return the collected turn."""
    from .query import ask as _ask

    with start_blocking_portal(backend) as portal:
        return portal.call(functools.partial(_ask, prompt, options=options, transport=transport))


_END: Any = object()


async def _next(stream: MessageStream) -> Any:
    try:
        return await stream.__anext__()
    except StopAsyncIteration:
        return _END


def _iterate(portal: BlockingPortal, stream: MessageStream) -> Iterator[Message]:
    while (message := portal.call(_next, stream)) is not _END:
        yield message


def query(
    prompt: Prompt,
    *,
    options: Options | None = None,
    transport: Transport | None = None,
    backend: str = "asyncio",
) -> SyncQuery:
    """`claude_sdk.query`, blocking: iterate one turn's messages.

    Both forms work::

        for message in claude_sdk.sync.query("What is 2 + 2?"):
            print(message)

        with claude_sdk.sync.query("What is 2 + 2?") as messages:
            for message in messages:
                print(message)

    The session ends when the loop is done; leaving a bare ``for`` early ends it when the
    iterator is closed (at once in CPython, or ``close()`` it yourself); the ``with`` form
    ends it when the block ends.
    """
    return SyncQuery(prompt, options=options, transport=transport, backend=backend)


class SyncQuery:
    """What `query` returns: iterable, and a context manager giving the iterator."""

    def __init__(
        self,
        prompt: Prompt,
        *,
        options: Options | None,
        transport: Transport | None,
        backend: str,
    ) -> None:
        self._args = (prompt, options, transport, backend)
        self._cm: AbstractContextManager[Iterator[Message]] | None = None

    def __iter__(self) -> Iterator[Message]:
        with _query(*self._args) as messages:
            yield from messages

    def __enter__(self) -> Iterator[Message]:
        if self._cm is not None:
            raise RuntimeError("this query is already running: call query() again")
        self._cm = _query(*self._args)
        return self._cm.__enter__()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        cm, self._cm = self._cm, None
        assert cm is not None
        return cm.__exit__(exc_type, exc, tb)


@contextmanager
def _query(
    prompt: Prompt, options: Options | None, transport: Transport | None, backend: str
) -> Iterator[Iterator[Message]]:
    from .query import query as _async_query

    with (
        start_blocking_portal(backend) as portal,
        portal.wrap_async_context_manager(
            _async_query(prompt, options=options, transport=transport)
        ) as stream,
    ):
        yield _iterate(portal, stream)


class SyncSession:
    """A `Session` driven from blocking code: the same methods, without ``await``.

    ``receive_messages()`` and ``receive_response()`` return plain iterators; every other
    coroutine method of `Session` (``send``, ``interrupt``, ``set_model``, ``control``, ...)
    is available as a blocking call.
    """

    def __init__(self, session: Session, portal: BlockingPortal) -> None:
        self._session = session
        self._portal = portal

    @property
    def session(self) -> Session:
        """The underlying async session (use it only from the portal's loop)."""
        return self._session

    def send(self, prompt: Prompt) -> str | tuple[str, ...]:
        """Write a prompt; returns its uuid (`Session.send`)."""
        sent: str | tuple[str, ...] = self._portal.call(self._session.send, prompt)
        return sent

    def receive_response(self, prompt: str | None = None) -> Iterator[Message]:
        """The messages up to and including the result that answers ``prompt`` (default:
        the oldest prompt whose reply was not handed out yet); see
        `Session.receive_response`."""
        return _iterate(self._portal, self._session.receive_response(prompt))

    def receive_messages(self) -> Iterator[Message]:
        """Every message, until the CLI's output ends."""
        return _iterate(self._portal, self._session.receive_messages())

    def interrupt(
        self, *, cancel_queued: bool | None = None, wait: float | None = None
    ) -> InterruptReceipt:
        """Stop the current turn; returns the receipt (`Session.interrupt`)."""
        return self._portal.call(
            lambda: self._session.interrupt(cancel_queued=cancel_queued, wait=wait)
        )

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._session, name)
        if callable(attr) and _is_coroutine_function(attr):
            return _blocking(self._portal, attr)
        return attr


def _is_coroutine_function(fn: Callable[..., Any]) -> bool:
    import inspect

    return inspect.iscoroutinefunction(fn)


def _blocking(portal: BlockingPortal, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return portal.call(functools.partial(fn, *args, **kwargs))

    return call


@contextmanager
def open_session(
    options: Options | None = None,
    *,
    transport: Transport | None = None,
    backend: str = "asyncio",
) -> Iterator[SyncSession]:
    """`claude_sdk.open_session`, blocking: a session for the duration of the block."""
    from .session import open_session as _open_session

    with (
        start_blocking_portal(backend) as portal,
        portal.wrap_async_context_manager(_open_session(options, transport=transport)) as session,
    ):
        yield SyncSession(session, portal)

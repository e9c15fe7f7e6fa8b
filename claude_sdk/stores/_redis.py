"""`RedisStore`: a `SessionStore` on a Redis server, through redis-py's synchronous client.

Keys, under ``prefix`` (``P``), with ``B`` = ``<len>:<project_key>/<len>:<session_id>``
(lengths in characters, so no two keys share a name whatever their characters):

* ``P entries:B`` and ``P entries:B/<subpath>``: a list of JSON lines, in append order;
* ``P uuids:B`` and ``P uuids:B/<subpath>``: the set of uuids stored in that list;
* ``P sessions:<project_key>``: a sorted set of the project's main transcripts, scored with
  their last write time in epoch milliseconds from the server's ``TIME``;
* ``P subkeys:B``: the set of the session's subpaths.

Each `append` and `delete` is one Lua script, so it is atomic: concurrent appenders of the
same batch, from any number of processes, store each uuid once, and a delete never leaves a
subkey behind half-deleted. A main transcript's ``mtime`` never goes back (a write in the
same millisecond as the last, or after the server's clock stepped back, gets the last plus
one). The scripts build subkey names from the subkeys set, so the store needs one Redis
server (or a primary with replicas), not Redis Cluster.

redis.asyncio runs on asyncio only; the synchronous client in worker threads
(``anyio.to_thread.run_sync``, bounded by AnyIO's default thread limiter) runs on asyncio
and Trio alike. redis-py is imported when a `RedisStore` is built; errors it raises are
raised as `SessionStoreError`.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import anyio.to_thread

from .._version import install_hint
from ..errors import OptionsError, SessionStoreError
from ._contract import (
    SessionKey,
    SessionListSubkeysKey,
    SessionStoreEntry,
    SessionStoreListEntry,
)
from ._memory import (
    INVALID_KIND,
    check_key,
    check_project,
    check_session,
    decode_entry,
    encode_entry,
    uuid_of,
)

if TYPE_CHECKING:
    import redis

__all__ = ["RedisStore"]

_T = TypeVar("_T")

#: Seconds a command may wait on the socket when the store builds its own client.
SOCKET_TIMEOUT = 30.0
CONNECT_TIMEOUT = 10.0

# KEYS: entries list, uuids set, index (sessions zset for a main key, subkeys set for a
# subkey). ARGV: "m" or "s", the index member (session id or subpath), then per entry its
# uuid ("" for none) and its JSON line. Returns how many entries were stored.
_APPEND = """
local added = 0
for i = 3, #ARGV, 2 do
  local u = ARGV[i]
  if u == '' or redis.call('SADD', KEYS[2], u) == 1 then
    redis.call('RPUSH', KEYS[1], ARGV[i + 1])
    added = added + 1
  end
end
if added == 0 then
  return 0
end
if ARGV[1] == 'm' then
  local t = redis.call('TIME')
  local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local last = redis.call('ZSCORE', KEYS[3], ARGV[2])
  if last and tonumber(last) >= ms then
    ms = tonumber(last) + 1
  end
  redis.call('ZADD', KEYS[3], string.format('%d', ms), ARGV[2])
else
  redis.call('SADD', KEYS[3], ARGV[2])
end
return added
"""

# A main key. KEYS: entries, uuids, sessions zset, subkeys set. ARGV: session id, the
# entries-key and uuids-key prefixes of the session's subkeys.
_DELETE_MAIN = """
for _, sub in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  redis.call('DEL', ARGV[2] .. sub, ARGV[3] .. sub)
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[4])
redis.call('ZREM', KEYS[3], ARGV[1])
return 0
"""

# A subkey. KEYS: entries, uuids, subkeys set. ARGV: subpath.
_DELETE_SUB = """
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SREM', KEYS[3], ARGV[1])
return 0
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _where(client: Any) -> str:
    """The server a client talks to, without credentials."""
    kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", {})
    if "path" in kwargs:
        return f"unix://{kwargs['path']}?db={kwargs.get('db', 0)}"
    return f"redis://{kwargs.get('host', '?')}:{kwargs.get('port', '?')}/{kwargs.get('db', 0)}"


def _redact(url: str) -> str:
    """``url`` with any password replaced by ``***``."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "<unparsable url>"
    if parts.password is None and "password" not in parts.query:
        return url
    # The host and port as written (``parts.port`` raises for a port that is not one).
    host = parts.netloc.rpartition("@")[2]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    query = urllib.parse.urlencode(
        [
            (k, "***" if k == "password" else v)
            for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        ],
        safe="*",
    )
    netloc = f"{user}{host}" if parts.password is not None else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _url_problem(url: str) -> str | None:
    """What makes ``url`` no Redis URL that redis-py would only find at the first call (a
    port that is not a number from 0 to 65535), without quoting it; None when nothing."""
    try:
        urllib.parse.urlsplit(url).port  # noqa: B018 - parsing raises for a bad port
    except ValueError as exc:
        text = str(exc)  # may quote the URL's text: only its kind is said
        if "cast" in text:
            return "a port that is not a number"
        if "range" in text:
            return "a port out of range 0-65535"
        return "a URL that cannot be parsed"
    return None


class _NotAnEntryError(Exception):
    """A stored line that is not a JSON object (raised in the worker thread)."""

    def __init__(self, index: int, count: int, cause: ValueError) -> None:
        super().__init__(
            f"line {index} of {count} is not a JSON object ({type(cause).__name__}); "
            "another client wrote it, or it was torn"
        )


class RedisStore:
    """A `SessionStore` on a Redis server, shared by every process that uses it.

    Args:
        client_or_url: A ``redis.Redis`` client, or a URL for one
            (``redis://[[user]:password@]host[:port][/db]``, ``rediss://``,
            ``unix://``); a client built from a URL gets a 30 s socket timeout unless the
            URL sets one. The password never appears in ``repr`` or errors.
        prefix: The start of every key the store uses (two stores on one server with
            different prefixes, neither a prefix of the other, share nothing).

    Raises:
        OptionsError: redis-py is not installed (``pip install 'claude-sdk-py[redis]'``),
            or ``client_or_url`` is neither a URL nor a client.
    """

    def __init__(self, client_or_url: str | redis.Redis, *, prefix: str = "claude:") -> None:
        """Build the store (no connection is made until the first call)."""
        try:
            import redis as redis_module  # optional dependency, imported lazily
        except ImportError:
            raise OptionsError(
                f"RedisStore needs redis-py: {install_hint('redis')}", option="session_store"
            ) from None
        if not isinstance(prefix, str):
            raise OptionsError("RedisStore prefix must be a string", option="prefix")
        self._errors: tuple[type[BaseException], ...] = (redis_module.RedisError,)
        if isinstance(client_or_url, str):
            self._where = _redact(client_or_url)
            problem = _url_problem(client_or_url)
            if problem is not None:
                raise OptionsError(
                    f"RedisStore: not a Redis URL: {self._where} ({problem})",
                    option="client_or_url",
                )
            try:
                client = redis_module.Redis.from_url(
                    client_or_url,
                    socket_timeout=SOCKET_TIMEOUT,
                    socket_connect_timeout=CONNECT_TIMEOUT,
                )
            except ValueError as exc:
                # redis-py's message may quote the URL: say what was wrong, not the URL.
                raise OptionsError(
                    f"RedisStore: not a Redis URL: {self._where} ({type(exc).__name__})",
                    option="client_or_url",
                ) from None
        elif callable(getattr(client_or_url, "register_script", None)):
            client = client_or_url
            self._where = _where(client)
        else:
            raise OptionsError(
                "RedisStore takes a redis.Redis client or a URL, not "
                f"{type(client_or_url).__name__}",
                option="client_or_url",
            )
        self._client: redis.Redis = client
        self._prefix = prefix
        self._append = client.register_script(_APPEND)
        self._delete_main = client.register_script(_DELETE_MAIN)
        self._delete_sub = client.register_script(_DELETE_SUB)

    def __repr__(self) -> str:
        return f"RedisStore({self._where!r}, prefix={self._prefix!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as how to connect (Ray, Dask, Temporal payloads), never as a live client:
        # the other process makes its own connections to the same server.
        pool = self._client.connection_pool
        # The settings (host, port, db, credentials, timeouts, TLS files); not the objects
        # redis-py makes per pool (registries, handlers), which it makes again.
        settings = {
            k: v
            for k, v in pool.connection_kwargs.items()
            if isinstance(v, (str, bytes, int, float, bool, type(None)))
            and not k.startswith("orig_")
        }
        return (_rebuild, (pool.connection_class, settings, self._prefix))

    @property
    def client(self) -> redis.Redis:
        """The redis-py client the store uses."""
        return self._client

    # -- the protocol ------------------------------------------------------------------

    async def append(self, key: SessionKey, entries: list[SessionStoreEntry]) -> None:
        """Append ``entries`` under ``key`` in one atomic script, skipping stored uuids.

        Raises:
            OptionsError: ``key`` is invalid or an entry is not a JSON object.
            SessionStoreError: Redis failed.
        """
        project_key, session_id, subpath = check_key(key)
        args: list[str | bytes] = []
        for i, entry in enumerate(entries):
            args.append(uuid_of(entry) or "")
            args.append(encode_entry(entry, i))
        if not args:
            return
        base = self._base(project_key, session_id)
        if subpath is None:
            keys = [
                self._key("entries", base),
                self._key("uuids", base),
                self._key("sessions", project_key),
            ]
            head = ["m", session_id]
        else:
            keys = [
                self._key("entries", f"{base}/{subpath}"),
                self._key("uuids", f"{base}/{subpath}"),
                self._key("subkeys", base),
            ]
            head = ["s", subpath]
        await self._run(
            "append", key, len(entries), lambda: self._append(keys=keys, args=[*head, *args])
        )

    async def load(self, key: SessionKey) -> list[SessionStoreEntry] | None:
        """Everything under ``key`` in append order, or None if nothing is.

        Raises:
            OptionsError: ``key`` is invalid.
            SessionStoreError: Redis failed.
        """
        project_key, session_id, subpath = check_key(key)
        name = self._base(project_key, session_id)
        name = self._key("entries", name if subpath is None else f"{name}/{subpath}")

        def load() -> list[SessionStoreEntry] | None:
            lines: list[bytes | str] = self._client.lrange(name, 0, -1)
            entries: list[SessionStoreEntry] = []
            try:
                entries.extend(decode_entry(line) for line in lines)  # one by one
            except ValueError as exc:
                # Not a line this store wrote (another client pushed it): every line is a
                # turn of the conversation, so the load fails rather than skip it.
                raise _NotAnEntryError(len(entries), len(lines), exc) from None
            return entries or None

        return await self._run("load", key, 0, load, abandon=True)

    async def list_sessions(self, project_key: str) -> list[SessionStoreListEntry]:
        """The main transcripts of ``project_key`` with the server time of their last write.

        Raises:
            OptionsError: ``project_key`` is invalid.
            SessionStoreError: Redis failed.
        """
        name = self._key("sessions", check_project(project_key))

        def list_sessions() -> list[SessionStoreListEntry]:
            rows: list[tuple[bytes | str, float]] = self._client.zrange(  # type: ignore[assignment]
                name, 0, -1, withscores=True
            )
            return [{"session_id": _text(member), "mtime": int(score)} for member, score in rows]

        return await self._run(
            "list_sessions", {"project_key": project_key}, 0, list_sessions, abandon=True
        )

    async def delete(self, key: SessionKey) -> None:
        """Delete ``key``; a main key takes every subkey of its session with it (atomically).

        Raises:
            OptionsError: ``key`` is invalid.
            SessionStoreError: Redis failed.
        """
        project_key, session_id, subpath = check_key(key)
        base = self._base(project_key, session_id)
        if subpath is None:
            keys = [
                self._key("entries", base),
                self._key("uuids", base),
                self._key("sessions", project_key),
                self._key("subkeys", base),
            ]
            args = [session_id, self._key("entries", f"{base}/"), self._key("uuids", f"{base}/")]
            script = self._delete_main
        else:
            keys = [
                self._key("entries", f"{base}/{subpath}"),
                self._key("uuids", f"{base}/{subpath}"),
                self._key("subkeys", base),
            ]
            args = [subpath]
            script = self._delete_sub
        await self._run("delete", key, 0, lambda: script(keys=keys, args=args))

    async def list_subkeys(self, key: SessionListSubkeysKey) -> list[str]:
        """The subpaths stored under a session, sorted.

        Raises:
            OptionsError: ``key`` is invalid.
            SessionStoreError: Redis failed.
        """
        name = self._key("subkeys", self._base(*check_session(key)))

        def list_subkeys() -> list[str]:
            members: set[bytes | str] = self._client.smembers(name)
            return sorted(_text(m) for m in members)

        return await self._run("list_subkeys", key, 0, list_subkeys, abandon=True)

    # -- helpers -----------------------------------------------------------------------

    def _key(self, kind: str, rest: str) -> str:
        return f"{self._prefix}{kind}:{rest}"

    @staticmethod
    def _base(project_key: str, session_id: str) -> str:
        return f"{len(project_key)}:{project_key}/{len(session_id)}:{session_id}"

    async def _run(
        self,
        operation: str,
        key: Any,
        entries: int,
        func: Callable[[], _T],
        *,
        abandon: bool = False,
    ) -> _T:
        # Writes are never abandoned on cancellation: the script may still run on the
        # server, and the uuid dedup makes a retry of it harmless. Reads may be.
        try:
            return await anyio.to_thread.run_sync(func, abandon_on_cancel=abandon)
        except _NotAnEntryError as exc:
            raise SessionStoreError(
                f"session store {operation} on {self._where}: {exc}",
                operation=operation,
                key={k: str(v) for k, v in dict(key).items()},
                kind=INVALID_KIND,
            ) from None
        except self._errors as exc:
            # redis-py's messages name the server, never the password.
            raise SessionStoreError(
                f"session store {operation} failed on {self._where}: {type(exc).__name__}: {exc}",
                operation=operation,
                key={k: str(v) for k, v in dict(key).items()},
                entries=entries,
            ) from exc


def _rebuild(connection_class: Any, kwargs: dict[str, Any], prefix: str) -> RedisStore:
    """Unpickling helper: a new client with the same connection settings."""
    import redis as redis_module

    pool = redis_module.ConnectionPool(connection_class=connection_class, **kwargs)
    return RedisStore(redis_module.Redis(connection_pool=pool), prefix=prefix)

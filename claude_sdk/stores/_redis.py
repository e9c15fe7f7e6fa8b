"""`RedisStore`: a `SessionStore` on a Redis server, through redis-py's synchronous client.

Keys, under ``prefix`` (``P``), with ``B`` = ``<len>:<project_key>/<len>:<session_id>``
(lengths in characters, so no two keys share a name whatever their characters):

* ``P entries:B`` and ``P entries:B/<subpath>``: a list of JSON lines, in append order;
* ``P uuids:B`` and ``P uuids:B/<subpath>``: the set of uuids stored in that list;
* ``P sessions:<project_key>``: a sorted set of the project's main transcripts, scored with
  their last write time in epoch milliseconds from the server's ``TIME``;
* ``P subkeys:B``: the set of the session's subpaths;
* ``P summaries:<project_key>``: a hash of session id -> the JSON ``data`` of the session's
  summary (`fold_for_store`), and ``P summary-ends:<project_key>``: session id ->
  ``<n>:<sha1>``, the count of the list's lines it folds and the SHA-1 of the last of them.

Each `append` and `delete` is one Lua script, so it is atomic: concurrent appenders of the
same batch, from any number of processes, store each uuid once, and a delete never leaves a
subkey behind half-deleted. An append to a main key also folds the batch into the session's
summary, which takes Python: it reads the summary and which uuids are stored while it
``WATCH``es the entries list, folds, and runs the append script and the summary's write in
one ``MULTI`` (again when another write came between). A summary whose ``<n>:<sha1>`` is not
the list's is not listed (another writer appended without folding: a reader loads the
session) and is caught up by the next append.

A main transcript's ``mtime`` never goes back (a write in the same millisecond as the last,
or after the server's clock stepped back, gets the last plus one). The scripts build key
names (subkeys from the subkeys set, lists from the summaries hash), so the store needs one
Redis server (or a primary with replicas), not Redis Cluster.

redis.asyncio runs on asyncio only; the synchronous client in worker threads
(``anyio.to_thread.run_sync``, bounded by AnyIO's default thread limiter) runs on asyncio
and Trio alike. redis-py is imported when a `RedisStore` is built; errors it raises are
raised as `SessionStoreError`.
"""

from __future__ import annotations

import hashlib
import urllib.parse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import anyio.to_thread
import orjson

from .._version import install_hint
from ..errors import OptionsError, SessionStoreError
from ._contract import (
    SessionKey,
    SessionListSubkeysKey,
    SessionStoreEntry,
    SessionStoreListEntry,
    SessionSummaryEntry,
)
from ._lease import SessionLease
from ._memory import (
    INVALID_KIND,
    check_key,
    check_project,
    check_session,
    decode_entry,
    decode_lines,
    encode_entry,
    uuid_of,
)
from ._summary import fold_for_store, has_listing_state

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

# The append above, fenced: KEYS[4] is the session's lease token counter, the last ARGV the
# caller's token. Returns -1 (nothing stored) when a newer token was issued.
_APPEND_FENCED = (
    "if tonumber(redis.call('GET', KEYS[4]) or '0') > tonumber(ARGV[#ARGV]) then\n"
    "  return -1\n"
    "end\n" + _APPEND.replace("for i = 3, #ARGV, 2 do", "for i = 3, #ARGV - 1, 2 do")
)
assert _APPEND_FENCED.count("#ARGV - 1") == 1

# Leases. KEYS: the lease hash (owner, token; with a server-side expiry), the session's token
# counter. ARGV: owner, ttl in ms, the owner it may replace ("" for none). Returns the lease
# in force: {owner, token, ms left}.
_ACQUIRE = """
local held = redis.call('HGET', KEYS[1], 'owner')
if held and held ~= ARGV[1] and held ~= ARGV[3] then
  return {held, redis.call('HGET', KEYS[1], 'token'), redis.call('PTTL', KEYS[1])}
end
local token
if held == ARGV[1] then
  token = redis.call('HGET', KEYS[1], 'token')
else
  token = redis.call('INCR', KEYS[2])
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'token', token)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {ARGV[1], token, tonumber(ARGV[2])}
"""

# KEYS: the lease hash, the token counter. ARGV: owner, token, ttl in ms. 1 when renewed.
_RENEW = """
if tonumber(redis.call('GET', KEYS[2]) or '0') ~= tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'token', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""

# KEYS: the lease hash. ARGV: owner, token.
_RELEASE = """
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1]
   and tonumber(redis.call('HGET', KEYS[1], 'token')) == tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
end
return 0
"""

# A main key. KEYS: entries, uuids, sessions zset, subkeys set, summaries and summary-ends
# hashes. ARGV: session id, the entries-key and uuids-key prefixes of the session's subkeys.
_DELETE_MAIN = """
for _, sub in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  redis.call('DEL', ARGV[2] .. sub, ARGV[3] .. sub)
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[4])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[5], ARGV[1])
redis.call('HDEL', KEYS[6], ARGV[1])
return 0
"""

# What an append to a main key reads (under WATCH of the entries list). KEYS: entries,
# uuids, summaries, summary-ends. ARGV: session id, then the batch's uuids. Returns the
# list's length, the summary's data (nil if none), how many lines of the list it folds (-1
# unless they are the list's first lines), and per uuid 1 if it is stored.
_READ_MAIN = """
local length = redis.call('LLEN', KEYS[1])
local data = redis.call('HGET', KEYS[3], ARGV[1])
local ends = redis.call('HGET', KEYS[4], ARGV[1])
local folded = -1
if data and ends then
  local n, sha = string.match(ends, '^(%d+):(%x+)$')
  n = tonumber(n)
  if n and n > 0 and n <= length
     and redis.sha1hex(redis.call('LINDEX', KEYS[1], n - 1)) == sha then
    folded = n
  end
end
local stored = {}
for i = 2, #ARGV do
  stored[#stored + 1] = redis.call('SISMEMBER', KEYS[2], ARGV[i])
end
return {length, data, folded, stored}
"""

# A project's summaries that fold their whole list. KEYS: summaries, summary-ends,
# sessions zset. ARGV: the project's entries-key prefix (``P entries:<len>:<project>/``).
# Returns session id, mtime (the zset's), data, for each.
_SUMMARIES = """
local found = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local id, data = all[i], all[i + 1]
  local mtime = redis.call('ZSCORE', KEYS[3], id)
  local ends = redis.call('HGET', KEYS[2], id)
  if mtime and ends then
    local n, sha = string.match(ends, '^(%d+):(%x+)$')
    n = tonumber(n)
    local chars = 0
    for _ in string.gmatch(id, '[^\\128-\\191]') do
      chars = chars + 1
    end
    local list = ARGV[1] .. chars .. ':' .. id
    if n and n > 0 and redis.call('LLEN', list) == n
       and redis.sha1hex(redis.call('LINDEX', list, n - 1)) == sha then
      found[#found + 1] = id
      found[#found + 1] = mtime
      found[#found + 1] = data
    end
  end
end
return found
"""

#: Times an append to a main key reads and folds again after another write came between.
_WATCH_TRIES = 1000

# A subkey. KEYS: entries, uuids, subkeys set. ARGV: subpath.
_DELETE_SUB = """
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SREM', KEYS[3], ARGV[1])
return 0
"""


def _ms(seconds: float) -> str:
    return str(max(1, round(seconds * 1000)))


def _json(value: bytes | str) -> Any:
    """A stored summary's JSON, or None if another client wrote something else there."""
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None


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
        self._watch_error: type[BaseException] = redis_module.WatchError
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
        self._read_main = client.register_script(_READ_MAIN)
        self._summaries = client.register_script(_SUMMARIES)
        self._append_fenced = client.register_script(_APPEND_FENCED)
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)

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
        keys, args = self._append_args(key, entries)
        if len(args) > 2 and args[0] == "m":
            summaries = self._summary_keys(check_key(key)[0])
            await self._run(
                "append", key, len(entries), lambda: self._append_main(keys, args, summaries)
            )
        elif len(args) > 2:
            await self._run("append", key, len(entries), lambda: self._append(keys=keys, args=args))

    def _summary_keys(self, project_key: str) -> list[str]:
        return [self._key("summaries", project_key), self._key("summary-ends", project_key)]

    def _append_main(
        self,
        keys: list[str],
        args: list[str | bytes],
        summaries: list[str],
        fence: tuple[str, int] | None = None,
    ) -> int:
        """The append script for a main key with the summary's write, in one transaction
        (worker thread); how many entries were stored, or -1 when ``fence`` (the session's
        lease token key, and the writer's token) says a newer token was issued."""
        session_id = str(args[1])
        pairs = [(str(args[i]), args[i + 1]) for i in range(2, len(args), 2)]
        uuids = [uuid for uuid, _ in pairs if uuid]
        with self._client.pipeline() as pipe:
            for attempt in range(_WATCH_TRIES):
                try:
                    pipe.watch(keys[0], *([fence[0]] if fence else []))  # type: ignore[no-untyped-call]
                    if fence is not None and int(pipe.get(fence[0]) or 0) > fence[1]:
                        pipe.reset()
                        return -1
                    length, data, folded, flags = self._read_main(
                        keys=[keys[0], keys[1], *summaries],
                        args=[session_id, *uuids],
                        client=pipe,
                    )
                    seen = {u for u, stored in zip(uuids, flags, strict=True) if int(stored)}
                    new: list[tuple[str, str | bytes]] = []
                    for uuid, line in pairs:  # as the script skips them
                        if uuid:
                            if uuid in seen:
                                continue
                            seen.add(uuid)
                        new.append((uuid, line))
                    if not new:
                        pipe.reset()
                        return 0
                    prev: SessionSummaryEntry | None = None
                    if int(folded) > 0 and data is not None:
                        prev = {"session_id": session_id, "mtime": 0, "data": _json(data)}
                    if prev is None or not has_listing_state(prev):
                        prev, folded = None, 0
                    if int(folded) < int(length):  # lines appended without a fold
                        behind = pipe.lrange(keys[0], int(folded), -1)
                        prev = fold_for_store(prev, session_id, decode_lines(behind))
                    lines = [line for _, line in new]
                    summary = fold_for_store(prev, session_id, decode_lines(lines))
                    last = lines[-1] if isinstance(lines[-1], bytes) else lines[-1].encode()
                    pipe.multi()
                    flat = [part for pair in new for part in pair]
                    if fence is None:
                        self._append(keys=keys, args=[args[0], session_id, *flat], client=pipe)
                    else:  # the token cannot change under WATCH; the script checks it again
                        fenced_keys = [*keys, fence[0]]
                        fenced_args = [args[0], session_id, *flat, str(fence[1])]
                        self._append_fenced(keys=fenced_keys, args=fenced_args, client=pipe)
                    pipe.hset(summaries[0], session_id, orjson.dumps(summary["data"]))
                    ends = f"{int(length) + len(new)}:{hashlib.sha1(last).hexdigest()}"
                    pipe.hset(summaries[1], session_id, ends)
                    pipe.execute()
                    return len(new)
                except self._watch_error:
                    if attempt == _WATCH_TRIES - 1:
                        raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _append_args(
        self, key: SessionKey, entries: list[SessionStoreEntry]
    ) -> tuple[list[str], list[str | bytes]]:
        project_key, session_id, subpath = check_key(key)
        args: list[str | bytes] = []
        for i, entry in enumerate(entries):
            args.append(uuid_of(entry) or "")
            args.append(encode_entry(entry, i))
        base = self._base(project_key, session_id)
        if subpath is None:
            keys = [
                self._key("entries", base),
                self._key("uuids", base),
                self._key("sessions", project_key),
            ]
            head: list[str | bytes] = ["m", session_id]
        else:
            keys = [
                self._key("entries", f"{base}/{subpath}"),
                self._key("uuids", f"{base}/{subpath}"),
                self._key("subkeys", base),
            ]
            head = ["s", subpath]
        return keys, [*head, *args]

    # -- leases (see claude_sdk.stores._lease) ----------------------------------------

    async def acquire_lease(
        self, key: SessionListSubkeysKey, owner: str, ttl: float, replace: str | None = None
    ) -> SessionLease:
        """Take the session's lease for ``owner`` unless another live owner holds it (the
        expiry is the server's); the lease now in force.

        Raises:
            OptionsError: ``key`` is invalid.
            SessionStoreError: Redis failed.
        """
        keys = self._lease_keys(key)
        args = [owner, _ms(ttl), replace or ""]

        def acquire() -> SessionLease:
            held, token, left = self._acquire(keys=keys, args=args)
            return {
                "owner": _text(held),
                "token": int(token),
                "expires_in": int(left) / 1000 if int(left) >= 0 else None,
            }

        return await self._run("acquire_lease", key, 0, acquire)

    async def renew_lease(
        self, key: SessionListSubkeysKey, owner: str, token: int, ttl: float
    ) -> bool:
        """Extend ``owner``'s lease; False once a newer token was issued for the session.

        Raises:
            SessionStoreError: Redis failed.
        """
        keys, args = self._lease_keys(key), [owner, str(token), _ms(ttl)]
        renewed = await self._run("renew_lease", key, 0, lambda: self._renew(keys=keys, args=args))
        return bool(renewed)

    async def release_lease(self, key: SessionListSubkeysKey, owner: str, token: int) -> None:
        """Give up ``owner``'s lease (nothing if it is not theirs).

        Raises:
            SessionStoreError: Redis failed.
        """
        keys, args = self._lease_keys(key)[:1], [owner, str(token)]
        await self._run("release_lease", key, 0, lambda: self._release(keys=keys, args=args))

    async def append_fenced(
        self, key: SessionKey, entries: list[SessionStoreEntry], token: int
    ) -> bool:
        """`append` in one script with the check that no newer token than ``token`` was
        issued for the session; False (nothing stored) if one was.

        Raises:
            OptionsError: ``key`` is invalid or an entry is not a JSON object.
            SessionStoreError: Redis failed.
        """
        keys, args = self._append_args(key, entries)
        if len(args) > 2 and args[0] == "m":  # with the summary's fold (and the same fence)
            summaries = self._summary_keys(check_key(key)[0])
            fence = (self._lease_keys(key)[1], token)
            stored = await self._run(
                "append",
                key,
                len(entries),
                lambda: self._append_main(keys, args, summaries, fence),
            )
            return int(stored) >= 0
        keys.append(self._lease_keys(key)[1])
        args.append(str(token))
        stored = await self._run(
            "append", key, len(entries), lambda: self._append_fenced(keys=keys, args=args)
        )
        return int(stored) >= 0

    def _lease_keys(self, key: SessionListSubkeysKey | SessionKey) -> list[str]:
        base = self._base(*check_session(key))
        return [self._key("lease", base), self._key("lease-token", base)]

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

    async def list_session_summaries(self, project_key: str) -> list[SessionSummaryEntry]:
        """The summary of each main transcript of ``project_key`` that folds its whole list
        (one script); ``mtime`` is that of `list_sessions`.

        Raises:
            OptionsError: ``project_key`` is invalid.
            SessionStoreError: Redis failed.
        """
        project_key = check_project(project_key)
        keys = [*self._summary_keys(project_key), self._key("sessions", project_key)]
        prefix = self._key("entries", f"{len(project_key)}:{project_key}/")

        def summaries() -> list[SessionSummaryEntry]:
            flat = self._summaries(keys=keys, args=[prefix])
            found: list[SessionSummaryEntry] = []
            for i in range(0, len(flat), 3):
                data = _json(flat[i + 2])
                if isinstance(data, dict):  # else not listed: a reader loads the session
                    mtime = int(float(_text(flat[i + 1])))
                    found.append({"session_id": _text(flat[i]), "mtime": mtime, "data": data})
            return found

        return await self._run(
            "list_session_summaries", {"project_key": project_key}, 0, summaries, abandon=True
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
                *self._summary_keys(project_key),
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

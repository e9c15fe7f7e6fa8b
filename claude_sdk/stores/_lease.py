"""Leases: one live owner per stored session, and fencing tokens for a stale one.

Two processes that resume the same session at once fork its conversation: each appends its
own turns after the same last line, and the next resume follows one branch and silently
drops the other. A store that keeps leases prevents it. The optional methods (a store has
all four, or none; `has_leases` says which):

* ``acquire_lease(key, owner, ttl, replace=None) -> SessionLease``: take the session's lease
  for ``owner`` for ``ttl`` seconds if nobody holds it (or its holder is ``replace``, an
  owner found dead), and answer the lease now in force: ``owner`` equal to the caller's
  means it is the caller's, with a new fencing ``token``, greater than any issued for the
  session before (a lease already the caller's is extended, its token kept);
* ``renew_lease(key, owner, token, ttl) -> bool``: extend it; False once a newer token was
  issued (it expired, and another owner took it): the caller is no longer the owner;
* ``release_lease(key, owner, token) -> None``: give it up (nothing if it is not held so);
* ``append_fenced(key, entries, token) -> bool``: `append`, atomically with the check that
  no newer token than ``token`` was issued for the key's session; False, and nothing
  appended, otherwise. A subpath key is fenced by its session's lease.

``key`` of the first three is a session (``project_key``, ``session_id``). Tokens are
monotonic per session for the store's lifetime: deleting a session does not reset them.
The shipped stores:

* `MemoryStore`: a lock in the process, expiring after ``ttl``;
* `DirectoryStore`: an ``flock`` on ``<project>/<session id>.lease``, held while the owner
  lives (the kernel releases it when the process dies, so ``ttl`` is not used); a session
  id ending in ``.lease`` is refused as a key there;
* `RedisStore`: a hash with a server-side expiry, renewed while the session lives, the
  token from a counter; the fenced append is one Lua script.

An owner names where it runs (`new_owner`): host, PID namespace, PID, process start time,
and a random suffix; `owner_alive` tells from it that an owner on this host has died, so its
lease need not be waited out (a restarted pod or worker resumes at once).
"""

from __future__ import annotations

import os
from typing import Any, Final, TypedDict

__all__ = ["SessionLease", "has_leases", "new_owner", "owner_alive"]

#: The optional methods of a store that keeps leases.
LEASE_METHODS: Final = ("acquire_lease", "renew_lease", "release_lease", "append_fenced")


class SessionLease(TypedDict):
    """A session's lease as a store answers it (`acquire_lease`)."""

    #: Who holds it.
    owner: str
    #: The fencing token of the holder's lease.
    token: int
    #: Seconds until it expires unless renewed (None: while the holder's process lives).
    expires_in: float | None


def has_leases(store: object) -> bool:
    """Whether ``store`` keeps leases: it has every method of `LEASE_METHODS`, and its
    ``append`` is not overridden below the class that defines ``append_fenced`` (a subclass
    of a shipped store that wraps ``append`` alone would have its wrapper skipped by the
    fenced append: such a store runs without leases until it overrides both)."""
    if not all(callable(getattr(store, name, None)) for name in LEASE_METHODS):
        return False
    mro = type(store).__mro__
    fenced = next((i for i, c in enumerate(mro) if "append_fenced" in vars(c)), None)
    plain = next((i for i, c in enumerate(mro) if "append" in vars(c)), None)
    return fenced is None or plain is None or plain >= fenced


def _start_ticks(pid: int) -> str | None:
    """The start time of process ``pid`` in clock ticks since boot (Linux), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces or ')': split after
    # the last one; the start time is field 22.
    fields = stat[stat.rfind(b")") + 2 :].split()
    return fields[19].decode() if len(fields) > 19 else None


def _pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid").removeprefix("pid:").strip("[]")
    except OSError:
        return "?"


def _hostname() -> str:
    """This host's name (what ``socket.gethostname`` gives, without importing ``socket``)."""
    if hasattr(os, "uname"):
        return os.uname().nodename or "?"
    import socket  # Windows

    return socket.gethostname() or "?"


def new_owner() -> str:
    """A new owner name: ``host=<name> ns=<pid ns> pid=<pid> start=<ticks> id=<random>``."""
    pid = os.getpid()
    parts = {
        "host": _hostname(),
        "ns": _pid_namespace(),
        "pid": str(pid),
        "start": _start_ticks(pid) or "?",
        "id": os.urandom(6).hex(),
    }
    return " ".join(f"{k}={v.replace(' ', '_')}" for k, v in parts.items())


def _parse(owner: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in owner.split(" "):
        name, sep, value = part.partition("=")
        if sep:
            found[name] = value
    return found


def owner_alive(owner: Any) -> bool | None:
    """Whether the process of ``owner`` (a `new_owner` name) is alive: False only when it
    ran on this host, in this PID namespace, and no process with its PID and start time
    exists any more; None when that cannot be told (another host, another namespace, a name
    of another form)."""
    if not isinstance(owner, str):
        return None
    fields = _parse(owner)
    start = fields.get("start")
    if (
        fields.get("host") != (_hostname()).replace(" ", "_")
        or fields.get("ns") in (None, "?")
        or fields.get("ns") != _pid_namespace()
        or not fields.get("pid", "").isdigit()
        or start in (None, "?")
    ):
        return None
    return _start_ticks(int(fields["pid"])) == start

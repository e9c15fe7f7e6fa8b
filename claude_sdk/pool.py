"""`SessionPool`: many keyed sessions over a bounded number of CLIs.

``async with SessionPool(options, max_sessions=4) as pool`` owns one task group. Every CLI the
pool runs lives in its own task there (``open_session`` is entered and left by that task), so
leaving the block ends them all: nothing outlives the pool.

* ``pool.session(key)`` leases the session of ``key`` (get-or-create, atomic: two tasks asking
  for the same new key share one CLI). A session is used by one lease at a time (single
  flight): a second lease of the same key waits for the first.
* At most ``max_sessions`` CLIs run at once. A new key takes a pre-warmed idle CLI if there is
  one, else starts one if there is room, else evicts the least recently used idle session of
  another key, else waits for a lease to end.
* ``prewarm=N`` keeps up to N started and initialised CLIs without a key, ready before the
  prompt is known. With ``claimable=True`` they are spares for any folder: parked with
  ``--await-claim`` and claimed for the folder (and model, permission mode) of the key that
  takes one (``key_options`` gives each key its options; see `SessionPool`).
* ``idle_timeout`` closes sessions unused for that long.
* ``transport=`` is one transport, as for `open_session`, or a list of them that spreads
  CLIs over several (local, SSH hosts, containers): a new CLI goes to the one running the
  fewest.
* ``limits=PoolLimits(...)`` shares a cost or token budget and a prompt rate limit among all
  the pool's sessions, on every transport (see `PoolLimits`).
* ``pool.stats`` counts what happened, and what the sessions cost.

A session whose CLI failed is dropped from the pool; its next lease starts a new CLI (the
conversation continues only if ``options.resume`` is set by the caller).
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import os
import warnings
from collections.abc import AsyncIterable, AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio
import anyio.abc
import anyio.to_thread
import attrs

from . import control as c
from ._attrs import define, frozen
from ._governor import Governor, PoolLimits
from ._paths import canonical, cli_config_dir, project_slug
from ._retrying import TurnRetry
from .errors import (
    ClaudeSDKError,
    ControlRequestError,
    ControlTimeoutError,
    OptionsError,
    SessionClosedError,
    UsageLimitError,
)
from .messages import AssistantMessage, Message
from .options import Options
from .query import Prompt, Reply
from .session import Session, _collapse_groups, open_session
from .transports.base import Transport

__all__ = ["CLAIMABLE", "PoolLimits", "PoolRecycle", "PoolStats", "SessionPool", "resident_mib"]

#: Seconds a parked pool waits past a usage limit's reset (the server's clock is not ours).
USAGE_RESET_MARGIN = 1.0

logger: logging.Logger = logging.getLogger("claude_sdk.pool")


@define
class PoolStats:
    """Counters a user can read (``pool.stats``)."""

    started: int = 0  #: CLIs started
    reused: int = 0  #: leases served by a session that was already running
    prewarmed_used: int = 0  #: keys that got a pre-warmed CLI
    evicted: int = 0  #: idle sessions closed to make room
    expired: int = 0  #: idle sessions closed by ``idle_timeout``
    failed: int = 0  #: sessions dropped because their CLI failed
    waited: int = 0  #: leases that had to wait for room
    retried: int = 0  #: turns of `SessionPool.ask` run again (``Options.retry``)
    spent_usd: float = 0.0  #: what the pool's sessions cost so far (the CLIs' figures)
    spent_tokens: int = 0  #: tokens they used so far (every model, subagents included)
    prompts: int = 0  #: prompts sent through the pool's sessions
    rate_waits: int = 0  #: prompts that waited for ``PoolLimits.max_prompts``
    parked: int = 0  #: turns refused by a usage limit and sent again after its reset
    recycled: int = 0  #: CLIs ended between turns by ``recycle`` (their keys resumed)
    claimed: int = 0  #: keys served by a spare claimed for their folder (``claimable``)
    claims_refused: int = 0  #: claims the CLI refused (the key started cold instead)
    refused: int = 0  #: prompts refused by ``PoolLimits`` (budget spent, waited too long)
    peak: int = 0  #: most CLIs running at once
    running: int = 0  #: CLIs running now
    leased: int = 0  #: sessions in use now


@define(eq=False)
class _Slot:
    key: str | None
    transport: Transport | None
    ready: anyio.Event = attrs.field(factory=anyio.Event)
    stop: anyio.Event = attrs.field(factory=anyio.Event)
    done: anyio.Event = attrs.field(factory=anyio.Event)
    lock: anyio.Lock = attrs.field(factory=anyio.Lock)
    session: Session | None = None
    error: BaseException | None = None
    last_used: float = 0.0
    leases: int = 0
    #: Its CLI was ended by ``recycle``: a lease waiting for it takes the key's new one.
    recycled: bool = False
    #: A spare (``claimable``): its parking folder, and the claim a key's lease makes.
    parking: str | None = None
    claim: _Claim | None = None

    @property
    def usable(self) -> bool:
        return (
            self.error is None
            and not self.stop.is_set()
            and not (self.session is not None and self.session.closed)
        )


@frozen(kw_only=True)
class PoolRecycle:
    """When a pooled CLI is ended and replaced, between turns (``SessionPool(recycle=)``).

    Long-lived CLIs grow; past a limit, at the end of a lease whose turns are all answered,
    the pool ends the key's CLI (stdin closed, its grace, then the signals) and the key's
    next lease starts a fresh CLI that resumes the same session, so the next prompt sees the
    whole conversation. Never mid-turn: a lease that leaves a prompt unanswered, or ends by
    an exception, is not recycled. ``pool.stats.recycled`` counts them; each is logged
    (``claude_sdk.pool``, INFO).

    Attributes:
        max_rss_mb: the CLI's resident memory, in MiB, past which it is replaced (read from
            ``/proc/<pid>/status``: a local CLI on Linux; elsewhere it cannot be read and
            only ``max_turns`` applies).
        max_turns: the turns (results) one CLI may answer before it is replaced.
    """

    max_rss_mb: float | None = attrs.field(default=None)
    max_turns: int | None = attrs.field(default=None)

    def __attrs_post_init__(self) -> None:
        for name in ("max_rss_mb", "max_turns"):
            value: object = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise OptionsError(f"PoolRecycle.{name} must be above 0, or None", option=name)
        if self.max_turns is not None and not isinstance(self.max_turns, int):
            raise OptionsError("PoolRecycle.max_turns must be an int", option="max_turns")

    def reason(self, session: Session) -> str | None:
        """Why the CLI of ``session`` should be replaced now, or None."""
        turns = session._core.protocol.results
        if self.max_turns is not None and turns >= self.max_turns:
            return f"{turns} turns (max_turns={self.max_turns})"
        if self.max_rss_mb is not None:
            rss = resident_mib(session.pid)
            if rss is not None and rss > self.max_rss_mb:
                return f"{rss:.0f} MiB resident (max_rss_mb={self.max_rss_mb:g})"
        return None


def resident_mib(pid: int | None) -> float | None:
    """The resident memory of the local process ``pid`` in MiB (``VmRSS``), or None when it
    cannot be read (no such process, not Linux, a remote CLI)."""
    if pid is None or pid <= 0:
        return None
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


#: The options a claim may set: anything else a key's options change from the pool's
#: (the spare started with those) means a cold start for that key.
CLAIMABLE: Final = ("cwd", "add_dirs", "permission_mode", "model", "max_thinking_tokens")
#: The options a spare cannot start with: they name a session, and a spare has none.
_SESSION_SHAPED: Final = ("resume", "continue_conversation", "fork_session", "session_id")


@frozen(kw_only=True)
class _Claim:
    """What a key's lease asks of a spare: the key's options, and the requests that make
    the spare that key's session."""

    options: Options
    request: c.ClaimSessionRequest
    model: str | None = None
    max_thinking_tokens: int | None = None


def _claim_of(pool_options: Options, key_options: Options) -> _Claim | str:
    """The claim that turns a spare started with ``pool_options`` into a session with
    ``key_options``, or why none can (a cold start then)."""
    differ = [
        f.name
        for f in attrs.fields(Options)
        if f.name not in CLAIMABLE and getattr(pool_options, f.name) != getattr(key_options, f.name)
    ]
    if differ:
        return f"its options differ from the pool's in {', '.join(sorted(differ))}"
    if key_options.cwd is None:
        return "its options name no cwd"
    from ._protocol.launch import mcp_delivery

    _path, in_process, _external = mcp_delivery(key_options)
    request = c.ClaimSessionRequest(
        cwd=os.path.abspath(key_options.cwd),
        additional_directories=[os.path.abspath(d) for d in key_options.add_dirs] or None,
        permission_mode=key_options.permission_mode
        if key_options.permission_mode != pool_options.permission_mode
        else None,
        sdk_mcp_servers=sorted(in_process),
        include_initialize=True,
    )
    return _Claim(
        options=key_options,
        request=request,
        model=key_options.model if key_options.model != pool_options.model else None,
        max_thinking_tokens=key_options.max_thinking_tokens
        if key_options.max_thinking_tokens != pool_options.max_thinking_tokens
        else None,
    )


class SessionPool:
    """Keyed sessions over a bounded number of CLIs (see the module docstring)."""

    def __init__(
        self,
        options: Options | None = None,
        *,
        max_sessions: int = 4,
        prewarm: int = 0,
        idle_timeout: float | None = None,
        transport: Transport | Sequence[Transport | None] | None = None,
        transports: Sequence[Transport | None] | None = None,
        resume_keys: bool = False,
        limits: PoolLimits | None = None,
        recycle: PoolRecycle | None = None,
        key_options: Callable[[str], Options] | None = None,
        claimable: bool = False,
    ) -> None:
        """Args:
        options: the options of every session.
        max_sessions: the most CLIs running at once.
        prewarm: CLIs kept started and initialised without a key.
        idle_timeout: seconds after which an unused session is closed (None: never).
        transport: where CLIs run, as for `open_session`: one transport, or a sequence of
            them (a new CLI goes to the one running the fewest); None is the local one.
        transports: the former name of ``transport`` for a sequence (deprecated).
        resume_keys: each key is a conversation that outlives its CLI: a key's CLI starts
            with ``options.resume_or_start(key)``, so a key evicted, expired or failed (or
            leased by a retry in another process, with ``Options.session_store``) resumes
            its session instead of starting a new one. Pre-warmed CLIs cannot serve such
            keys (a started CLI cannot change sessions): ``prewarm`` must be 0.
        limits: a budget and a rate limit shared by every session of the pool, on every
            transport (`PoolLimits`): checked before each prompt (a refused prompt raises
            `BudgetExceededError` or `RateLimitExceededError` and is not sent) and counted
            on each result; the figures are in ``stats`` (kept without limits too).
        recycle: replace a key's CLI between turns once it grows past a limit (resident
            memory, turns answered), resuming the same session (`PoolRecycle`).
        key_options: the options of a key's session (called once per key; default: the
            pool's ``options`` for every key), such as its folder
            (``lambda key: options.evolve(cwd=checkout_of(key))``).
        claimable: the ``prewarm`` CLIs are spares for any folder: each starts with
            ``--await-claim`` in a private parking folder before any work is known, and
            the next key's lease claims one for that key's folder (``claim_session``) when
            its options differ from the pool's only in `CLAIMABLE` (``cwd``, ``add_dirs``,
            ``permission_mode``, ``model``, ``max_thinking_tokens``). A key whose options
            differ in anything else, or whose claim the CLI refuses (its folder's settings
            need a fresh start), starts cold, as without spares (``stats.claimed``,
            ``stats.claims_refused``). Needs ``prewarm`` >= 1 and a CLI on this machine.

        Raises:
            OptionsError: a value out of range, or both ``transport`` and ``transports``.
        """
        if max_sessions < 1:
            raise OptionsError("SessionPool.max_sessions must be at least 1", option="max_sessions")
        if not 0 <= prewarm <= max_sessions:
            raise OptionsError(
                "SessionPool.prewarm must be between 0 and max_sessions", option="prewarm"
            )
        if resume_keys and prewarm:
            raise OptionsError(
                "SessionPool: resume_keys=True cannot use pre-warmed CLIs (a started CLI "
                "cannot switch to a key's session); set prewarm=0",
                option="prewarm",
            )
        if claimable:
            if prewarm < 1:
                raise OptionsError(
                    "SessionPool(claimable=True) makes the prewarm CLIs spares: set prewarm "
                    "to 1 or more",
                    option="claimable",
                )
            given_options = options if options is not None else Options()
            named = [n for n in _SESSION_SHAPED if getattr(given_options, n)]
            if named:
                raise OptionsError(
                    f"SessionPool(claimable=True): the pool's options set {', '.join(named)}, "
                    "which name a session, and a spare has none (give them to key_options)",
                    option="claimable",
                )
        if transports is not None:
            if transport is not None:
                raise OptionsError(
                    "SessionPool: pass transport=, not both transport= and transports=",
                    option="transport",
                )
            warnings.warn(
                "SessionPool(transports=[...]) is now SessionPool(transport=[...])",
                DeprecationWarning,
                stacklevel=2,
            )
            transport = transports
        given: object = transport  # checked as whatever the caller passed
        chosen: list[Transport | None]
        if given is None or isinstance(given, Transport):
            chosen = [given]
        elif isinstance(given, (str, bytes)) or not isinstance(given, Sequence):
            raise OptionsError(
                "SessionPool.transport must be a Transport or a sequence of them, "
                f"not {type(given).__name__}",
                option="transport",
            )
        else:
            chosen = list(given)
        if not chosen:
            raise OptionsError(
                "SessionPool.transport must name at least one transport", option="transport"
            )
        for item in chosen:
            if item is not None and not isinstance(item, Transport):
                raise OptionsError(
                    f"SessionPool.transport: {type(item).__name__} is not a Transport",
                    option="transport",
                )
        if claimable:
            far = [type(t).__name__ for t in chosen if t is not None and not t.runs_here]
            if far:
                raise OptionsError(
                    "SessionPool(claimable=True) parks its spares in a folder on this "
                    f"machine, and {', '.join(far)} runs the CLI elsewhere",
                    option="claimable",
                )
        if key_options is not None and not callable(key_options):
            raise OptionsError(
                "SessionPool.key_options must be a function of the key that returns Options",
                option="key_options",
            )
        self.options: Options = options if options is not None else Options()
        self.max_sessions = max_sessions
        self.prewarm = prewarm
        self.resume_keys = resume_keys
        self.idle_timeout = idle_timeout
        self.transports = chosen
        self.stats: PoolStats = PoolStats()
        if limits is not None and not isinstance(limits, PoolLimits):
            raise OptionsError(
                f"SessionPool.limits must be a PoolLimits, not {type(limits).__name__}",
                option="limits",
            )
        self.limits: PoolLimits = limits if limits is not None else PoolLimits()
        if recycle is not None and not isinstance(recycle, PoolRecycle):
            raise OptionsError(
                f"SessionPool.recycle must be a PoolRecycle, not {type(recycle).__name__}",
                option="recycle",
            )
        self.recycle: PoolRecycle | None = recycle
        self.claimable: bool = claimable
        #: Why pre-warming stopped (a warm CLI failed to start), until a CLI starts.
        self._warm_failure: BaseException | None = None
        self.key_options: Callable[[str], Options] | None = key_options
        self._options_by_key: dict[str, Options] = {}
        #: Keys that start cold: a claim of theirs was refused, or cannot be made (why).
        self._cold: dict[str, str] = {}
        #: Claims of a key that failed (not refused: the spare failed meanwhile).
        self._claim_failures: dict[str, int] = {}
        self._governor = Governor(self.limits, self.stats)
        self._slots: list[_Slot] = []
        self._by_key: dict[str, _Slot] = {}
        self._changed = anyio.Event()
        #: The last assistant message of each key's conversation (where a retry resumes).
        self._anchors: dict[str, str] = {}
        #: Options for the next CLI of a key whose turn is being retried.
        self._restart_options: dict[str, Options] = {}
        self._tg: anyio.abc.TaskGroup | None = None
        self._expiry = anyio.CancelScope()

    # ---------------------------------------------------------------------------------
    # lifecycle

    # The pool is its own async context manager: entering it enters its task group, in the
    # same task that will leave it (the only safe way to own a task group).

    async def __aenter__(self) -> SessionPool:
        tg = anyio.create_task_group()
        await tg.__aenter__()
        self._tg = tg
        for _ in range(self.prewarm):
            self._start(None)
        if self.idle_timeout is not None:
            tg.start_soon(self._expire_idle)
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        assert self._tg is not None
        self._expiry.cancel()
        for slot in self._slots:
            slot.stop.set()
        tg, self._tg = self._tg, None
        with _collapse_groups():
            return await tg.__aexit__(*exc_info)

    def _take_options(self, key: str, options: Options | None) -> None:
        """Make ``options`` the options of ``key`` (``session(key, options)``)."""
        if options is None:
            return
        if not isinstance(options, Options):
            raise OptionsError(
                f"SessionPool: the options of key {key!r} must be Options, not "
                f"{type(options).__name__}",
                option="options",
            )
        known = self._options_by_key.get(key, self.options if self.key_options is None else None)
        slot = self._by_key.get(key)
        if known is not None and known != options and slot is not None and slot.usable:
            raise OptionsError(
                f"SessionPool: key {key!r} runs with other options; its CLI cannot change "
                "them (use another key, or close the key's session first)",
                option="options",
            )
        self._options_by_key[key] = options

    def options_of(self, key: str) -> Options:
        """The options of the session of ``key`` (``key_options``, else the pool's)."""
        found = self._options_by_key.get(key)
        if found is not None:
            return found
        if self.key_options is None:
            return self.options
        made: object = self.key_options(key)
        if not isinstance(made, Options):
            raise OptionsError(
                f"SessionPool.key_options({key!r}) returned {type(made).__name__}, not Options",
                option="key_options",
            )
        self._options_by_key[key] = made
        return made

    # ---------------------------------------------------------------------------------
    # leasing

    @asynccontextmanager
    async def session(self, key: str, options: Options | None = None) -> AsyncIterator[Session]:
        """Lease the session of ``key`` for the duration of the block (see the module).

        ``options``: the key's options (as ``key_options`` gives them), for its next CLI;
        a key whose CLI runs with other options raises `OptionsError`.
        """
        self._take_options(key, options)
        while True:
            slot = await self._acquire(key)
            try:
                async with slot.lock:
                    if slot.recycled:
                        continue  # replaced while this lease waited: take the new one
                    await slot.ready.wait()
                    if slot.error is not None or slot.session is None:
                        raise slot.error or SessionClosedError("the pooled session did not start")
                    if not slot.usable:
                        raise SessionClosedError("the pooled session has ended")
                    if slot.claim is not None and not await self._claim(key, slot):
                        continue  # refused: the key starts cold
                    slot.leases += 1
                    self.stats.leased += 1
                    try:
                        yield slot.session
                        # The block ended normally: between turns, the CLI may be replaced
                        # (the lock is held, so no other lease uses it meanwhile).
                        await self._maybe_recycle(key, slot)
                    finally:
                        self.stats.leased -= 1
                        slot.last_used = anyio.current_time()
                        self._notify()
                    return
            finally:
                if not slot.usable and self._by_key.get(key) is slot:
                    del self._by_key[key]

    async def _maybe_recycle(self, key: str, slot: _Slot) -> None:
        """End the CLI of ``key`` and have its next lease resume the session, when
        ``recycle`` says it grew too much and no turn of it is open (`PoolRecycle`)."""
        session = slot.session
        if self.recycle is None or session is None or not slot.usable:
            return
        protocol = session._core.protocol
        session_id = session.session_id
        if protocol.open_prompts or session_id is None:
            return  # a turn is open (never mid-turn), or there is nothing to resume
        reason = self.recycle.reason(session)
        if reason is None:
            return
        if not self.resume_keys:
            # The key's next CLI resumes this session (resume_keys resumes every key).
            self._restart_options[key] = self.options_of(key).resuming(session_id)
        slot.recycled = True
        self._close(slot)
        await slot.done.wait()
        self.stats.recycled += 1
        logger.info(
            "recycled the CLI of key %r (pid %s: %s); its next prompt resumes session %s",
            key,
            session.pid,
            reason,
            session_id,
        )

    async def ask(self, key: str, prompt: Prompt, options: Options | None = None) -> Reply:
        """Send ``prompt`` in the session of ``key`` and collect the turn (``options``: the
        key's options, as for `session`).

        With ``PoolLimits(on_usage_limit="park")``, a turn the account's usage limit refused
        parks the pool (every prompt waits) until the limit resets, then is sent again.

        Raises:
            ResultError: the turn ended with an error result.
            UsageLimitError: the account's usage limit refused it (and the pool does not
                park, or the limit resets too late or at an unknown time).
            StructuredOutputError: the options ask for structured output and the result's
                is missing or does not validate.
        """
        self._take_options(key, options)
        while True:
            try:
                return await self._ask_retrying(key, prompt)
            except UsageLimitError as exc:  # noqa: PERF203 - a refused turn, then a wait
                if not self._park(exc):
                    raise

    def _park(self, error: UsageLimitError) -> bool:
        """Park the pool until ``error``'s reset, if the limits say so (True: parked)."""
        limits = self.limits
        if limits.on_usage_limit != "park" or error.resets_at is None:
            return False
        left = (error.resets_at - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
        if limits.max_park is not None and left > limits.max_park:
            return False
        self.stats.parked += 1
        logger.warning(
            "the account's usage limit refused a turn: the pool's prompts wait until it "
            "resets at %s (%.0f s)",
            error.resets_at.isoformat(),
            max(left, 0.0),
        )
        # A second of margin: the reset is the server's clock, the wait this machine's.
        self._governor.park(anyio.current_time() + max(left, 0.0) + USAGE_RESET_MARGIN)
        return True

    async def _ask_retrying(self, key: str, prompt: Prompt) -> Reply:
        from .query import as_message

        policy = self.options.retry
        if policy is None or isinstance(prompt, AsyncIterable):
            return await self._ask_once(key, prompt, [])
        retry = TurnRetry(policy, self.options_of(key), anchor=self._anchors.get(key))
        message = as_message(prompt)
        while True:
            seen: list[Message] = []
            try:
                reply = await self._ask_once(
                    key, retry.prompt(message), seen, retry.options if retry.attempts else None
                )
            except ClaudeSDKError as exc:
                if not retry.refused(exc):
                    await retry.failed(exc, seen)
                self.stats.retried += 1
                await self._drop(key)  # the next lease starts a CLI with retry.options
                continue
            return attrs.evolve(reply, attempts=tuple(retry.attempts))

    async def _ask_once(
        self, key: str, prompt: Prompt, seen: list[Message], options: Options | None = None
    ) -> Reply:
        from .query import reply_of

        if options is not None:
            self._restart_options[key] = options
        async with self.session(key) as session:
            sent = await session.send(prompt)
            # The reply to this very prompt: not a turn the CLI ran on its own (a background
            # task's completion) nor a prompt an earlier lease left unread.
            mine = sent if isinstance(sent, str) else None
            async for message in session.receive_response(mine):
                seen.append(message)  # noqa: PERF401 - one by one: a failure keeps what came
        reply = reply_of(seen, self.options_of(key))
        last = [m.uuid for m in seen if isinstance(m, AssistantMessage) and m.uuid is not None]
        if last and not reply.result.is_error:
            # Where the conversation of ``key`` ends: a later retry resumes there.
            self._anchors[key] = last[-1]
        return reply

    async def _drop(self, key: str) -> None:
        """Close the CLI of ``key`` (if any) and wait until it is gone."""
        slot = self._by_key.get(key)
        if slot is not None:
            self._close(slot)
            await slot.done.wait()

    async def _acquire(self, key: str) -> _Slot:
        waited = False
        while True:
            slot = self._by_key.get(key)
            if slot is not None and slot.usable:
                self.stats.reused += 1
                return slot
            if slot is not None:
                del self._by_key[key]
            warm = next((s for s in self._slots if s.key is None and s.usable), None)
            fits = self._warm_fits(key) if warm is not None else None
            if warm is not None and fits is not None:
                warm.key = key
                if isinstance(fits, _Claim):
                    warm.claim = fits
                self._by_key[key] = warm
                self.stats.prewarmed_used += 1
                self._refill()
                return warm
            if len(self._slots) < self.max_sessions:
                return self._start(key)
            victim = self._least_recently_used_idle()
            if victim is not None:
                self._close(victim)
                self.stats.evicted += 1
                await victim.done.wait()
                continue
            if not waited:
                waited = True
                self.stats.waited += 1
            await self._wait_for_change()

    def _warm_fits(self, key: str) -> _Claim | bool | None:
        """Whether a warm CLI can serve ``key``: True (it started with the key's options), a
        `_Claim` (a spare, claimed for the key's folder), or None (start cold)."""
        options = self.options_of(key)
        if not self.claimable:
            return True if options == self.options else None
        if key in self._cold:
            return None
        claim = _claim_of(self.options, options)
        if isinstance(claim, str):
            self._cold[key] = claim
            logger.info("key %r starts cold, not from a spare: %s", key, claim)
            return None
        return claim

    async def _claim(self, key: str, slot: _Slot) -> bool:
        """Claim the spare of ``slot`` for ``key`` (its lock held); False when the CLI
        refused: the spare is closed and the key starts cold."""
        claim, slot.claim = slot.claim, None
        session = slot.session
        assert claim is not None
        assert session is not None
        try:
            answer = await session.request(claim.request)
            if claim.model is not None:
                await session.set_model(claim.model)
            if claim.max_thinking_tokens is not None:
                await session.set_max_thinking_tokens(claim.max_thinking_tokens)
        except ControlRequestError as exc:
            self.stats.claims_refused += 1
            reason = str(exc.error or exc)
            self._cold[key] = reason
            logger.info(
                "the CLI refused to claim a spare for key %r (%s): it starts cold", key, reason
            )
            self._close(slot)
            await slot.done.wait()
            return False
        except ClaudeSDKError as exc:  # the spare failed meanwhile (exited, timed out)
            logger.warning("a spare failed while claimed for key %r (%r): dropped", key, exc)
            self._close(slot)
            await slot.done.wait()
            failures = self._claim_failures[key] = self._claim_failures.get(key, 0) + 1
            if isinstance(exc, ControlTimeoutError) or failures >= 2:
                self._cold[key] = f"a claim failed: {type(exc).__name__}"
            return False  # the key's lease takes another spare, or starts cold
        core = session._core
        if core.lease is not None:
            # The transcript now goes to the claimed folder's project: lease it there.
            folder = answer.cwd or claim.request.cwd
            project = claim.options.store_project_key or project_slug(canonical(folder))
            try:
                await core.lease.move(project, claim.options.session_store_load_timeout)
            except ClaudeSDKError as exc:
                logger.warning("key %r: the claimed session's lease failed (%r)", key, exc)
                self._close(slot)
                await slot.done.wait()
                raise
        core.options = attrs.evolve(claim.options, session_id=answer.session_id)
        if answer.initialize is not None:
            core.server_info = answer.initialize
        _leave(slot)
        self.stats.claimed += 1
        logger.debug("key %r claimed a spare (parked %s ms)", key, answer.parked_ms)
        return True

    def _least_recently_used_idle(self) -> _Slot | None:
        idle = [
            s
            for s in self._slots
            if s.key is not None and not s.lock.locked() and s.ready.is_set() and s.usable
        ]
        return min(idle, key=lambda s: s.last_used, default=None)

    @property
    def warm(self) -> int:
        """Started, initialised CLIs that no key holds yet."""
        return sum(1 for s in self._slots if s.key is None and s.ready.is_set() and s.usable)

    async def wait_until(self, predicate: Callable[[SessionPool], bool]) -> None:
        """Wait until ``predicate(pool)`` holds (checked whenever the pool changes)."""
        while not predicate(self):
            await self._wait_for_change()

    async def _wait_for_change(self) -> None:
        event = self._changed
        await event.wait()

    def _notify(self) -> None:
        event, self._changed = self._changed, anyio.Event()
        event.set()

    # ---------------------------------------------------------------------------------
    # running CLIs

    def _pick_transport(self) -> Transport | None:
        load = {id(t): 0 for t in self.transports}
        for slot in self._slots:
            load[id(slot.transport)] = load.get(id(slot.transport), 0) + 1
        return min(self.transports, key=lambda t: load[id(t)])

    def _start(self, key: str | None) -> _Slot:
        if self._tg is None:
            raise ClaudeSDKError("the SessionPool is not open (use `async with`)")
        slot = _Slot(key=key, transport=self._pick_transport())
        slot.last_used = anyio.current_time()
        self._slots.append(slot)
        if key is not None:
            self._by_key[key] = slot
        self.stats.started += 1
        self.stats.running = len(self._slots)
        self.stats.peak = max(self.stats.peak, self.stats.running)
        self._tg.start_soon(self._run, slot)
        return slot

    def _refill(self) -> None:
        if self._warm_failure is not None:
            return  # a warm CLI failed to start: the next keys start their own
        warm = sum(1 for s in self._slots if s.key is None and s.usable)
        while warm < self.prewarm and len(self._slots) < self.max_sessions:
            self._start(None)
            warm += 1

    def _close(self, slot: _Slot) -> None:
        slot.stop.set()
        if slot.key is not None and self._by_key.get(slot.key) is slot:
            del self._by_key[slot.key]

    async def _run(self, slot: _Slot) -> None:
        try:
            options = self.options if slot.key is None else self.options_of(slot.key)
            restart = self._restart_options.pop(slot.key, None) if slot.key is not None else None
            if restart is not None:
                options = restart  # a retry of the key's failed turn (Options.retry)
            elif self.resume_keys and slot.key is not None:
                options = options.resume_or_start(slot.key)
            elif slot.key is None and self.claimable:
                options = await anyio.to_thread.run_sync(_spare_options, options, slot)
            async with open_session(options, transport=slot.transport) as session:
                # Every prompt of the pool's sessions passes the shared limits.
                core = session._core
                core.before_prompt, core.on_result = self._governor.session(core)
                slot.session = session
                slot.ready.set()
                self._warm_failure = None  # a CLI starts: pre-warming may go on
                self._notify()
                async with anyio.create_task_group() as watch:
                    watch.start_soon(_set_when_closed, session, slot.stop)
                    await slot.stop.wait()
                    watch.cancel_scope.cancel()
            if session.failure is not None:  # failed, and already reported to its lessee
                slot.error = session.failure
                self.stats.failed += 1
        except Exception as exc:  # a failed CLI is dropped, its lessee gets the error
            logger.warning("a pooled session (key %r) failed: %r", slot.key, exc)
            slot.error = exc
            self.stats.failed += 1
            if slot.session is None and slot.key is None and self._warm_failure is None:
                # Not started at all: starting another at once would fail the same way.
                self._warm_failure = exc
                logger.warning(
                    "pre-warming stopped until a CLI of the pool starts: a warm CLI "
                    "failed to start (%s)",
                    type(exc).__name__,
                )
        finally:
            _leave(slot)
            slot.ready.set()
            slot.done.set()
            if slot in self._slots:
                self._slots.remove(slot)
            if slot.key is not None and self._by_key.get(slot.key) is slot:
                del self._by_key[slot.key]
            self.stats.running = len(self._slots)
            self._notify()
            if self._tg is not None:
                self._refill()

    async def _expire_idle(self) -> None:
        with self._expiry:
            await self._expire_loop()

    async def _expire_loop(self) -> None:
        timeout = self.idle_timeout
        assert timeout is not None
        while True:
            now = anyio.current_time()
            next_check = now + timeout
            for slot in list(self._slots):
                if slot.key is None or slot.lock.locked() or not slot.ready.is_set():
                    continue
                expires = slot.last_used + timeout
                if expires <= now:
                    self._close(slot)
                    self.stats.expired += 1
                else:
                    next_check = min(next_check, expires)
            await anyio.sleep(max(0.01, next_check - anyio.current_time()))


def _spare_options(options: Options, slot: _Slot) -> Options:
    """The options of a spare: ``--await-claim``, in a new private parking folder under the
    CLI's configuration (``<config>/spares/spare-*``, 0700), which `_leave` removes."""
    import tempfile

    spares = cli_config_dir(options.env) / "spares"
    spares.mkdir(parents=True, exist_ok=True, mode=0o700)
    slot.parking = tempfile.mkdtemp(prefix="spare-", dir=spares)
    extra = {**options.extra_args, "await-claim": None}
    return attrs.evolve(options, cwd=slot.parking, extra_args=extra)


def _leave(slot: _Slot) -> None:
    """Remove the spare's parking folder if it is empty (the CLI left it at the claim)."""
    parking, slot.parking = slot.parking, None
    if parking is not None:
        with contextlib.suppress(OSError):
            os.rmdir(parking)


async def _set_when_closed(session: Session, stop: anyio.Event) -> None:
    await session.wait_closed()
    stop.set()

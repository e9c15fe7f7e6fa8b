"""Which of the host's prompts a consumer waits for, and the result that ends its wait.

The rule (one place, here): **a consumer's turn ends only at a result that settles one of
its prompts.** The CLI runs turns of its own (a task notification when a background command
or subagent ends, a scheduled wake-up), repeats results, answers several queued prompts in
one turn and withdraws queued prompts; none of that may hand a caller another prompt's
answer.

* The protocol marks every ``result`` with the host's prompts it settled
  (`ResultMessage.settles`); a result that settled none is a turn of the CLI's own
  (`ResultMessage.own_turn`): it still reaches the consumer, and ends nobody's turn.
* The `Ledger` keeps the host's prompts whose reply no consumer has taken yet, in the order
  they were sent, with how each was settled: by a result, withdrawn by the CLI (``interrupt``
  with ``cancel_queued``, ``cancel_async_message``, a ``cancelled`` lifecycle), or completed
  without a turn (a prompt sent with ``shouldQuery: false``).
* A `Claim` is one consumer's wait (`Session.receive_response`, ``ask``, ``query``,
  `SessionPool.ask`): for one prompt named by uuid, or for "the next one". A claim for the
  next prompt binds, when it first looks, to the oldest prompt whose reply nobody took; it
  skips prompts that were withdrawn when a later one still awaits its reply, and reports a
  withdrawal (`PromptWithdrawnError`) when none does, rather than waiting for ever.
* A result that settles several prompts at once ends the claim of the first of them; a
  later claim of another of them is handed the same result again (the reply to its prompt
  too) without waiting.

Results taken by a consumer that does not claim (``receive_messages``) settle the claims of
their prompts: their reply was read. The ledger forgets the oldest unclaimed replies beyond
`Ledger.KEEP` (a program that never claims replies keeps no memory for them).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from .._base import HOST_NOTES
from ..errors import ClaudeSDKError, PromptWithdrawnError

if TYPE_CHECKING:
    from ..messages import ResultMessage

__all__ = ["AWAITING", "COMPLETED", "END", "Claim", "Ledger", "WITHDRAWN_BY_CLI", "mark"]

#: A prompt the CLI has not settled yet.
AWAITING: Final = "awaiting"
#: A prompt with its result.
ANSWERED: Final = "answered"
#: A prompt the CLI withdrew from its queue: no result will come for it.
WITHDRAWN_BY_CLI: Final = "withdrawn"
#: A prompt the CLI completed without a turn (``shouldQuery: false``): no result comes.
COMPLETED: Final = "completed"

#: `Claim.check` / `Claim.at_result`: the claim ended without a result (no turn ran).
END: Final[Any] = object()


def mark(result: ResultMessage, settles: tuple[str, ...]) -> None:
    """Write on ``result`` which of the host's prompts it settled (none: the CLI's own)."""
    notes = result.__dict__.get(HOST_NOTES)
    if notes is None:
        notes = result.__dict__[HOST_NOTES] = {}
    notes["settles"] = settles


def settled_by(result: Any) -> tuple[str, ...]:
    """The prompts ``result`` settled, as the protocol marked them (none if unmarked)."""
    notes = result.__dict__.get(HOST_NOTES)
    if notes:
        found = notes.get("settles")
        if found is not None:
            settles: tuple[str, ...] = found
            return settles
    return ()


class _Slot:
    """One prompt whose reply no consumer has taken yet."""

    __slots__ = ("delivered", "reason", "result", "state")

    def __init__(self) -> None:
        self.state = AWAITING
        self.result: ResultMessage | None = None
        #: Its result has left the message queue (a consumer read past it).
        self.delivered = False
        #: Why it was withdrawn (for the error), when it was.
        self.reason = ""


class Ledger:
    """The host's prompts whose reply no consumer has taken, oldest first."""

    #: Unclaimed replies kept at most (the oldest are forgotten first).
    KEEP: Final = 4096

    __slots__ = ("_slots",)

    def __init__(self) -> None:
        self._slots: dict[str, _Slot] = {}

    # -- what the protocol tells it ---------------------------------------------------------

    def sent(self, prompt: str) -> None:
        """The host sent ``prompt``."""
        slots = self._slots
        slots.pop(prompt, None)  # a uuid sent again is a new prompt, at the end
        slots[prompt] = _Slot()
        if len(slots) > self.KEEP:
            del slots[next(iter(slots))]

    def answer(self, named: Iterable[str], result: ResultMessage) -> tuple[str, ...]:
        """``result`` names ``named``: those still waiting for a result get it; returns them."""
        slots = self._slots
        settled = []
        for prompt in named:
            slot = slots.get(prompt)
            if slot is not None and slot.result is None and slot.state != WITHDRAWN_BY_CLI:
                slot.state = ANSWERED
                slot.result = result
                settled.append(prompt)
        return tuple(settled)

    def withdrawn(self, prompt: str, reason: str) -> None:
        """The CLI withdrew ``prompt`` (no result will come)."""
        slot = self._slots.get(prompt)
        if slot is not None and slot.result is None:
            slot.state = WITHDRAWN_BY_CLI
            slot.reason = reason

    def completed(self, prompt: str) -> None:
        """The CLI completed ``prompt``; without a result so far, none will come."""
        slot = self._slots.get(prompt)
        if slot is not None and slot.state == AWAITING:
            slot.state = COMPLETED

    def taken(self, result: Any) -> None:
        """A consumer that does not claim (``receive_messages``) read ``result``: its
        prompts' replies are taken."""
        for prompt in settled_by(result):
            self._slots.pop(prompt, None)

    def waiting(self, prompt: str) -> bool:
        """``prompt`` was sent and its reply not taken yet."""
        return prompt in self._slots

    def __len__(self) -> int:
        return len(self._slots)

    # -- for the consumers ------------------------------------------------------------------

    def claim(self, prompt: str | None = None) -> Claim:
        """A consumer's wait for the reply to ``prompt`` (None: the next prompt's)."""
        return Claim(self, prompt)


class Claim:
    """One consumer's wait for the reply to one prompt (see the module docstring).

    The driver asks `check` before it reads (and after each wait), and `at_result` for each
    ``result`` it takes from the queue. Both say what the consumer does: go on reading
    (``None`` / False), stop after this result (True), hand out an earlier result
    (a `ResultMessage`: the reply was read past already), or stop without one (`END`); a
    withdrawn prompt raises `PromptWithdrawnError`.

    Attributes:
        prompt: the prompt it waits for (None until a claim for the next prompt binds).
        done: the claim has ended.
    """

    __slots__ = ("_ledger", "done", "named", "prompt")

    def __init__(self, ledger: Ledger, prompt: str | None) -> None:
        self._ledger = ledger
        self.prompt = prompt
        #: Made for one prompt by uuid (else for "the next prompt", bound when it looks).
        self.named: bool = prompt is not None
        self.done: bool = False

    def _end(self) -> None:
        self.done = True
        if self.prompt is not None:
            self._ledger._slots.pop(self.prompt, None)

    def check(self) -> Any:
        """Before reading: None (read on), a `ResultMessage` to hand out, or `END`.

        Raises:
            PromptWithdrawnError: the prompt was withdrawn by the CLI.
            ClaudeSDKError: a prompt named by uuid is not one whose reply awaits.
        """
        if self.done:
            return END
        slots = self._ledger._slots
        if not self.named and self.prompt not in slots:
            # Not bound yet, or its prompt's reply was taken by another consumer (one
            # that reads every message): the next prompt whose reply awaits is the one.
            self.prompt = None
            self._bind(slots)
            if self.prompt is None:
                return None  # nothing sent yet: the next prompt is the one
        slot = slots.get(self.prompt) if self.prompt is not None else None
        if slot is None:
            self.done = True
            raise ClaudeSDKError(
                f"no reply awaits prompt {self.prompt!r}: it was not sent in this session, "
                "or its reply was taken already",
                kind="no_such_prompt",
            )
        return self._verdict(slot)

    def _bind(self, slots: dict[str, _Slot]) -> None:
        first_withdrawn: str | None = None
        skipped = []
        for prompt, slot in slots.items():
            if slot.state == WITHDRAWN_BY_CLI:
                if first_withdrawn is None:
                    first_withdrawn = prompt
                skipped.append(prompt)
            elif slot.state == COMPLETED:
                skipped.append(prompt)
            else:
                # A later prompt awaits its reply: the withdrawn ones before it have none.
                for gone in skipped:
                    del slots[gone]
                self.prompt = prompt
                return
        if first_withdrawn is not None:
            # Nothing else awaits: say what became of the oldest withdrawn prompt.
            self.prompt = first_withdrawn
            return
        for gone in skipped:  # completed without a turn: nobody waits for them
            del slots[gone]

    def _verdict(self, slot: _Slot) -> Any:
        if slot.state == WITHDRAWN_BY_CLI:
            prompt = self.prompt
            self._end()
            raise PromptWithdrawnError(prompt_uuid=prompt or "", reason=slot.reason)
        if slot.state == COMPLETED:
            self._end()
            return END
        result = slot.result
        if result is not None and slot.delivered:
            self._end()
            return result
        return None

    def at_result(self, result: ResultMessage) -> bool:
        """The consumer took ``result`` from the queue: True if its wait ends there."""
        settles = settled_by(result)
        if not settles or self.done:
            return False
        slots = self._ledger._slots
        for prompt in settles:
            slot = slots.get(prompt)
            if slot is not None:
                slot.delivered = True
        if not self.named and self.prompt not in slots:
            # Not bound yet (nothing was sent when it last looked), or its prompt's reply
            # was taken by another consumer: the oldest prompt whose reply awaits.
            self.prompt = None
            self._bind(slots)
            if self.prompt is None:
                return False
        if self.prompt in settles:
            self._end()
            return True
        return False

    def __repr__(self) -> str:
        return f"Claim({self.prompt!r}, done={self.done})"

"""What an interrupt did, told from the frames that follow it (sans-IO).

An ``interrupt`` request's answer says only which prompts are still queued (and, with
``cancel_queued``, which were withdrawn). Whether it cut a turn short shows later: that turn's
``result`` is an ``error_during_execution`` with ``terminal_reason: "aborted_*"`` (PROTOCOL.md
§5.3), or an ordinary result when the turn finished before the interrupt reached the CLI.

`Protocol.watch_interrupt` makes an `InterruptWatch` *before* the request is written, from the
prompts open at that moment; the next ``interrupt`` request the protocol builds is the one it
follows. The protocol tells every watch how those prompts settle (by a result, or withdrawn),
when the CLI reports ``idle``, and its request's answer (`InterruptWatch.answered`); the
driver only waits until `InterruptWatch.decided`, then reads the `InterruptReceipt`.

Rules:

* The prompts the answer lists as ``still_queued`` are not waited for (they run later).
* A prompt that was open is settled by the result that names it, or withdrawn.
* When no prompt of ours was open but the CLI reported itself busy (a turn of its own, such
  as a task notification), the next result, or ``idle``, settles the watch.
* It is decided once the answer came and nothing is left to wait for, or as soon as a
  result shows a turn was cut short.
* A steer's watch (`Session.steer`) marks each result of a turn it cut short with the
  steering prompt's uuid (``ResultMessage.steered_by``) as the result arrives, before any
  consumer reads it: the cut turn's reader sees a cancelled turn, not a failure.
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import control as c
from .._base import HOST_NOTES
from ..messages import ResultMessage

__all__ = ["InterruptWatch", "cut_short"]


def cut_short(result: ResultMessage) -> bool:
    """Whether ``result`` ends a turn that an interrupt cut short."""
    reason = result.terminal_reason
    if isinstance(reason, str):
        return reason.startswith("aborted")
    return result.subtype == "error_during_execution" and result.is_error is True


class InterruptWatch:
    """Follows one interrupt until its outcome is known (see the module docstring).

    Args:
        open_prompts: uuids of the prompts not settled when the interrupt was sent.
        busy: the CLI reported itself busy (not ``idle``) at that moment.
    """

    __slots__ = (
        "_busy_unnamed",
        "_cancelled",
        "_results",
        "_waiting",
        "request_id",
        "response",
        "steer",
    )

    def __init__(
        self, open_prompts: Iterable[str], *, busy: bool, steer: str | None = None
    ) -> None:
        #: The uuid of the instruction a steer sends after it (`Session.steer`): each result
        #: of a turn this interrupt cuts short is marked ``steered_by`` it, as it arrives.
        self.steer: str | None = steer
        #: The ``interrupt`` request it follows (the next one sent after it was made).
        self.request_id: str | None = None
        self._waiting = set(open_prompts)
        self._busy_unnamed = busy and not self._waiting
        self._results: list[ResultMessage] = []
        self._cancelled: list[str] = []
        self.response: c.InterruptResponse | None = None

    # -- fed by the protocol -----------------------------------------------------------

    def settled(self, prompt: str, result: ResultMessage | None, *, cancelled: bool) -> None:
        """``prompt`` was settled: by ``result``, or withdrawn (``cancelled``)."""
        if prompt not in self._waiting:
            return
        self._waiting.discard(prompt)
        if cancelled:
            if prompt not in self._cancelled:
                self._cancelled.append(prompt)
        elif result is not None:
            self._add(result)

    def result(self, result: ResultMessage) -> None:
        """A result came (whatever it settled)."""
        if self._busy_unnamed:
            self._busy_unnamed = False
            self._add(result)

    def idle(self) -> None:
        """The CLI reported ``idle``."""
        self._busy_unnamed = False

    def _add(self, result: ResultMessage) -> None:
        if not any(r is result for r in self._results):
            self._results.append(result)
            if self.steer is not None and cut_short(result):
                result.__dict__.setdefault(HOST_NOTES, {})["steered_by"] = self.steer

    # -- fed by the driver -------------------------------------------------------------

    def answered(self, response: c.InterruptResponse) -> None:
        """The CLI's answer to the interrupt."""
        self.response = response
        for prompt in _strings(response.still_queued):
            self._waiting.discard(prompt)
        for prompt in _strings(response.cancelled):
            self.settled(prompt, None, cancelled=True)

    # -- the outcome ---------------------------------------------------------------------

    @property
    def decided(self) -> bool:
        """The answer came and the outcome is known."""
        if self.response is None:
            return False
        if any(cut_short(r) for r in self._results):
            return True
        return not self._waiting and not self._busy_unnamed

    def receipt(self) -> c.InterruptReceipt:
        """The receipt: ``undetermined`` unless `decided` (the driver calls it when done
        waiting, decided or not)."""
        response = self.response if self.response is not None else c.InterruptResponse()
        results = tuple(self._results)
        cancelled = list(self._cancelled)
        outcome: c.InterruptOutcome
        if any(cut_short(r) for r in results):
            outcome = "effective"
        elif not self.decided:
            outcome = "undetermined"
        elif cancelled:
            outcome = "queued_cancelled"
        else:
            outcome = "no_op"
        return c.InterruptReceipt(
            outcome=outcome,
            response=response,
            results=results,
            cancelled=cancelled,
            still_queued=_strings(response.still_queued),
        )


def _strings(values: object) -> list[str]:
    """The strings of a list the CLI sent (anything else: none)."""
    if not isinstance(values, list):
        return []
    return [v for v in values if isinstance(v, str)]

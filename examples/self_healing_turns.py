"""Self-healing turns: retry what is transient, in the same session.

With ``Options(retry=RetryPolicy(...))``, a turn that fails transiently (the API's 429, 529,
5xx once the CLI's own retries are spent, a dropped stream, a CLI that died) runs again after
a bounded, jittered backoff: a new CLI resumes the same session by id, cut back to the end of
the previous turn, so the model sees the earlier turns and the prompt once. Each attempt is
reported (``on_attempt``, a log line, ``Reply.attempts``); authentication errors, invalid
requests, limits and interrupts are never retried.

Run: ``python examples/self_healing_turns.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs


def report(attempt: cs.RetryAttempt) -> None:
    print(
        f"[retry] attempt {attempt.attempt} failed ({attempt.reason}); "
        f"again in {attempt.delay:.2f} s, resuming session {attempt.session_id}"
    )


async def main() -> None:
    policy = cs.RetryPolicy(max_attempts=4, initial_delay=0.5, max_delay=8, on_attempt=report)
    options = cs.Options(retry=policy)
    async with cs.SessionPool(options, max_sessions=1) as pool:
        first = await pool.ask("support-42", "Remember the order number 1234.")
        print(f"turn 1: {first.text}")
        second = await pool.ask("support-42", "What was the order number?")
        print(f"turn 2: {second.text}")
        print(f"turn 2 needed {len(second.attempts) + 1} attempt(s)")
        print(f"same session: {second.session_id == first.session_id}")


if __name__ == "__main__":
    anyio.run(main)

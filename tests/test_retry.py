"""Self-healing turns (``Options.retry``) with FakeCLI: what is retried and what is not, how
the next attempt resumes (the CLI's argv), the reports, the bounds. The real CLI and the fake
Messages API answering 529: tests/e2e/test_retry_e2e.py."""

from __future__ import annotations

import math
from typing import Any

import anyio.lowlevel
import pytest
from hypothesis import given
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk.retry import MAX_DELAY_LIMIT, RetryPolicy
from claude_sdk.testing import FakeCLI, ScriptedCLI

FAST = RetryPolicy(initial_delay=0.001, max_delay=0.01)


def api_error(status: int) -> dict[str, Any]:
    return {"is_error": True, "api_error_status": status, "terminal_reason": "api_error"}


def flag(argv: tuple[str, ...], name: str) -> str | None:
    for arg in argv:
        if arg.startswith(f"--{name}="):
            return arg.split("=", 1)[1]
    return None


def failing_then_ok(failures: list[int | str], text: str = "ok") -> FakeCLI:
    """Connection i fails with failures[i] (an API status, or "kill": the CLI dies mid-turn)
    while there are failures left; then answers ``text``."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        await cli.system_init()
        if cli.index < len(failures):
            failure = failures[cli.index]
            if failure == "kill":
                await cli.assistant("partial")
                await cli.exit(-9)
                return
            assert isinstance(failure, int)
            await cli.result(f"API Error: {failure}", **api_error(failure))
        else:
            await cli.result(f"{text}: {prompt.text}")
        await cli.serve_until_stdin_closes()

    return FakeCLI(script)


async def test_a_529_is_retried_in_the_same_session() -> None:
    seen: list[cs.RetryAttempt] = []
    fake = failing_then_ok([529])
    options = cs.Options(retry=RetryPolicy(initial_delay=0.001, on_attempt=seen.append))
    reply = await cs.ask("hello", options=options, transport=fake)
    assert reply.text == "ok: hello"
    assert len(fake.clis) == 2
    first, second = fake.clis
    # a first turn: resumed at its own prompt (nothing comes before it), prompt sent again
    assert flag(second.argv, "resume") == first.session_id
    assert flag(second.argv, "resume-session-at") == first.prompts[0].uuid
    assert flag(second.argv, "resume-drops-turn") is None
    assert reply.session_id == first.session_id
    [attempt] = reply.attempts
    assert attempt == seen[0]
    assert (attempt.attempt, attempt.max_attempts) == (1, 4)
    assert attempt.reason == "HTTP 529 overloaded"
    assert attempt.session_id == first.session_id
    assert isinstance(attempt.error, cs.ResultError)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 413])
async def test_what_is_not_transient_is_not_retried(status: int) -> None:
    fake = failing_then_ok([status])
    with pytest.raises(cs.ResultError) as info:
        await cs.ask("hello", options=cs.Options(retry=FAST), transport=fake)
    assert info.value.result.api_error_status == status
    assert len(fake.clis) == 1
    assert not hasattr(info.value, "retry_attempts")


@pytest.mark.parametrize(
    "fields",
    [
        {"subtype": "error_max_turns"},
        {"subtype": "error_max_budget_usd"},
        {"subtype": "error_during_execution", "terminal_reason": "aborted_streaming"},
    ],
    ids=lambda f: str(f.get("terminal_reason", f["subtype"])),
)
async def test_limits_and_interrupts_are_not_retried(fields: dict[str, Any]) -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.result("", **fields)
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(script)
    with pytest.raises(cs.ResultError):
        await cs.ask("hello", options=cs.Options(retry=FAST), transport=fake)
    assert len(fake.clis) == 1


@pytest.mark.parametrize(
    "stderr",
    [
        "error: unknown option '--no-such-flag'\n",
        "There's an issue with the selected model (claude-nope). It may not exist.\n",
        "No conversation found with session ID: 0d3c6c8a-1111-4222-8333-444455556666\n",
        "",
    ],
    ids=["unknown-option", "invalid-model", "invalid-resume", "silent"],
)
async def test_a_cli_that_refuses_to_start_is_never_retried(stderr: str) -> None:
    """Exited with a status before it answered initialize: the same start fails the same
    way (issue 26: [started 4 times of 4])."""

    async def refuses(cli: ScriptedCLI) -> None:
        await cli.exit(1, stderr)

    fake = FakeCLI(refuses)
    with pytest.raises(cs.ProcessError) as info:
        await cs.ask("hello", options=cs.Options(retry=FAST), transport=fake)
    assert len(fake.clis) == 1
    assert info.value.kind == "startup"
    assert not info.value.retryable
    assert "refused to start" in str(info.value)
    # In a pool too.
    fake = FakeCLI(refuses)
    async with cs.SessionPool(cs.Options(retry=FAST), transport=fake) as pool:
        with pytest.raises(cs.ProcessError):
            await pool.ask("k", "hello")
    assert len(fake.clis) == 1


async def test_a_cli_killed_before_it_answered_initialize_may_be_retried() -> None:
    """A signal is not a refusal: it may have been anything (the OOM killer)."""

    async def killed_once(cli: ScriptedCLI) -> None:
        if cli.index == 0:
            await cli.exit(-9)
            return
        await cli.handshake()
        prompt = await cli.next_prompt()
        await cli.turn(text=f"ok: {prompt.text}")
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(killed_once)
    reply = await cs.ask("hello", options=cs.Options(retry=FAST), transport=fake)
    assert reply.text == "ok: hello"
    assert len(fake.clis) == 2


async def test_a_cli_killed_mid_turn_is_retried() -> None:
    fake = failing_then_ok(["kill"])
    reply = await cs.ask("hello", options=cs.Options(retry=FAST), transport=fake)
    assert reply.text == "ok: hello"
    [attempt] = reply.attempts
    assert isinstance(attempt.error, cs.ProcessError)
    assert flag(fake.clis[1].argv, "resume") == fake.clis[0].session_id


async def test_spent_attempts_raise_the_last_error_with_the_attempts() -> None:
    fake = failing_then_ok([529, 500, 429])
    with pytest.raises(cs.ResultError) as info:
        await cs.ask(
            "hello",
            options=cs.Options(retry=RetryPolicy(max_attempts=3, initial_delay=0.001)),
            transport=fake,
        )
    assert info.value.result.api_error_status == 429
    attempts = info.value.retry_attempts  # type: ignore[attr-defined]
    assert [a.reason for a in attempts] == ["HTTP 529 overloaded", "HTTP 500 api_error"]
    assert len(fake.clis) == 3
    # every retry resumes the same session at the same place: the prompt is never stacked
    at = {flag(c.argv, "resume-session-at") for c in fake.clis[1:]}
    assert at == {fake.clis[0].prompts[0].uuid}


async def test_an_async_on_attempt_runs_and_its_error_stops_the_retries() -> None:
    calls: list[int] = []

    async def report(attempt: cs.RetryAttempt) -> None:
        calls.append(attempt.attempt)
        await anyio.lowlevel.checkpoint()
        if attempt.attempt == 2:
            raise RuntimeError("stop retrying")

    fake = failing_then_ok([529, 529, 529])
    policy = RetryPolicy(initial_delay=0.001, on_attempt=report)
    with pytest.raises(RuntimeError, match="stop retrying"):
        await cs.ask("hello", options=cs.Options(retry=policy), transport=fake)
    assert calls == [1, 2]
    assert len(fake.clis) == 2


async def test_retries_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="claude_sdk.retry"):
        await cs.ask("hello", options=cs.Options(retry=FAST), transport=failing_then_ok([503]))
    [record] = caplog.records
    assert "HTTP 503" in record.getMessage()
    assert "attempt 1 of 4" in record.getMessage()


async def test_a_pool_retry_resumes_after_the_previous_turn_and_drops_the_failed_one() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        async for prompt in cli.iter_prompts():
            await cli.system_init()
            if cli.index == 0 and prompt.text == "second":
                await cli.result("API Error: 529", **api_error(529))
            else:
                await cli.assistant(f"answer to {prompt.text}")
                await cli.result(f"answer to {prompt.text}")

    fake = FakeCLI(script)
    async with cs.SessionPool(cs.Options(retry=FAST), max_sessions=1, transport=fake) as pool:
        first = await pool.ask("k", "first")
        second = await pool.ask("k", "second")
        assert pool.stats.retried == 1
    assert second.text == "answer to second"
    [attempt] = second.attempts
    anchor = [m.uuid for m in first.messages if isinstance(m, cs.AssistantMessage)][-1]
    assert attempt.resume_at == anchor
    retry_cli = fake.clis[1]
    assert flag(retry_cli.argv, "resume") == fake.clis[0].session_id
    assert flag(retry_cli.argv, "resume-session-at") == anchor
    assert flag(retry_cli.argv, "resume-drops-turn") == fake.clis[0].prompts[1].uuid


async def test_a_streamed_prompt_is_never_retried() -> None:
    async def prompts() -> Any:
        yield cs.UserMessage.prompt("hello")

    fake = failing_then_ok([529])
    with pytest.raises(cs.ResultError):
        await cs.ask(prompts(), options=cs.Options(retry=FAST), transport=fake)
    assert len(fake.clis) == 1


@given(
    retry=st.integers(1, 60),
    draw=st.floats(0, 1, exclude_max=True),
    initial=st.floats(0.001, 10),
    cap=st.floats(0.001, 100),
    jitter=st.floats(0, 1),
)
def test_backoff_is_bounded_and_jittered(
    retry: int, draw: float, initial: float, cap: float, jitter: float
) -> None:
    policy = RetryPolicy(initial_delay=initial, max_delay=cap, jitter=jitter)
    delay = policy.delay(retry, draw)
    ceiling = min(cap, initial * 2 ** (retry - 1))
    assert ceiling * (1 - jitter) - 1e-9 <= delay <= ceiling + 1e-9


@pytest.mark.parametrize(
    "bad",
    [
        {"max_attempts": 0},
        {"max_attempts": 1.5},
        {"initial_delay": 0},
        {"max_delay": -1},
        {"jitter": 2},
        {"multiplier": True},
        # Issue 26: every figure finite and bounded ([max_delay=inf slept forever; 1e308
        # multipliers overflowed]).
        {"max_delay": math.inf},
        {"max_delay": math.nan},
        {"initial_delay": math.inf},
        {"initial_delay": math.nan},
        {"multiplier": 1e308},
        {"multiplier": math.inf},
        {"multiplier": math.nan},
        {"jitter": math.nan},
        {"max_delay": 1e9},
        {"initial_delay": 3600.5},
        {"multiplier": 101},
        {"max_delay": "30"},
    ],
)
def test_bad_policies_are_option_errors(bad: dict[str, Any]) -> None:
    with pytest.raises(cs.OptionsError):
        RetryPolicy(**bad)


@given(
    initial=st.floats(allow_nan=True, allow_infinity=True),
    cap=st.floats(allow_nan=True, allow_infinity=True),
    multiplier=st.floats(allow_nan=True, allow_infinity=True),
    jitter=st.floats(allow_nan=True, allow_infinity=True),
    attempts=st.integers(-5, 200),
)
def test_every_figure_of_a_policy_is_finite_and_bounded_or_refused(
    initial: float, cap: float, multiplier: float, jitter: float, attempts: int
) -> None:
    try:
        policy = RetryPolicy(
            max_attempts=attempts,
            initial_delay=initial,
            max_delay=cap,
            multiplier=multiplier,
            jitter=jitter,
        )
    except cs.OptionsError:
        return
    for retry in range(1, policy.max_attempts + 1):
        for draw in (0.0, 0.5, 0.999999):
            delay = policy.delay(retry, draw)
            assert math.isfinite(delay)
            assert 0 <= delay <= policy.max_delay <= MAX_DELAY_LIMIT


def test_options_take_only_a_policy() -> None:
    with pytest.raises(cs.OptionsError, match="RetryPolicy"):
        cs.Options(retry=3)  # type: ignore[arg-type]
    assert cs.Options(retry=FAST).retry is FAST


def test_a_pools_own_limits_are_not_retried() -> None:
    policy = RetryPolicy()
    assert not policy.is_transient(cs.RateLimitExceededError(waited=1.0))
    assert not policy.is_transient(
        cs.BudgetExceededError(spent_usd=1.0, spent_tokens=5, limit="max_cost_usd")
    )
    assert policy.is_transient(cs.ProcessError(exit_code=None, signal=9))

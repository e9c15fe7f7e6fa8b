"""A CLI that refuses to start says why, as a typed reason (offline, FakeMessagesAPI).

The CLI reports some refusals in an error result (``startup_failure_reason``) and others,
those it meets while reading its flags, on stderr before it exits 1. Both reach the caller
with the reason named (`ResultError.startup_failure_reason` /
`ProcessError.startup_failure_reason`) and not marked retryable, since a retry alone
cannot pass.
"""

from __future__ import annotations

import os
import sys

import pytest

import claude_sdk as cs

from .conftest import E2E


async def test_managed_settings_without_sideload_flags_refuse_an_mcp_server(e2e: E2E) -> None:
    options = e2e.options(
        managed_settings={"disableSideloadFlags": True},
        mcp_servers={"tools": cs.McpStdioServer(command=sys.executable, args=["-c", "pass"])},
    )
    with pytest.raises(cs.ProcessError) as caught:
        await cs.ask("hello", options=options, transport=e2e.transport())
    error = caught.value
    assert error.startup_failure_reason == "sideload_flags_disabled"
    assert not error.retryable
    assert "sideload_flags_disabled" in str(error)
    assert e2e.api.main_requests == []  # refused before any model call

    # The same managed settings without a server of the launch's own start normally.
    e2e.api.reply(text="fine")
    plain = e2e.options(managed_settings={"disableSideloadFlags": True})
    assert (await cs.ask("hello", options=plain, transport=e2e.transport())).text == "fine"


@pytest.mark.skipif(os.geteuid() != 0, reason="the CLI refuses bypassPermissions only as root")
async def test_bypass_permissions_as_root_is_refused_with_its_reason(e2e: E2E) -> None:
    options = e2e.options(permission_mode="bypassPermissions")
    with pytest.raises(cs.ProcessError) as caught:
        await cs.ask("hello", options=options, transport=e2e.transport())
    assert caught.value.startup_failure_reason == "bypass_root"
    assert not caught.value.retryable


@pytest.mark.parametrize(
    "refusal",
    [
        {"extra_args": {"no-such-flag": None}},
        {"extra_args": {"max-turns": "many"}},
        {"resume": "0d3c6c8a-1111-4222-8333-444455556666"},
    ],
    ids=["unknown-option", "invalid-value", "invalid-resume"],
)
async def test_a_retried_ask_never_restarts_a_cli_that_refused_to_start(
    e2e: E2E, refusal: dict[str, object]
) -> None:
    """Issue 26: a CLI that refuses to start does the same the next time: with a retry
    policy it is started once [before: 4 times of 4]."""
    from claude_sdk.retry import RetryPolicy

    attempts: list[cs.RetryAttempt] = []
    policy = RetryPolicy(initial_delay=0.01, max_delay=0.05, on_attempt=attempts.append)
    e2e.api.reply(text="never asked", times=None)
    transport = e2e.transport()
    with pytest.raises(cs.ClaudeSDKError) as caught:
        await cs.ask("hello", options=e2e.options(retry=policy, **refusal), transport=transport)
    assert attempts == []
    assert len(transport.specs) == 1  # started once
    assert not caught.value.retryable, repr(caught.value)

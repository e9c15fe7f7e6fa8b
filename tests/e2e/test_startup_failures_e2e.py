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

"""The richer scenarios, recorded on the wire (``CLAUDE_SDK_RECORD_E2E=1``) for each CLI
version: a subagent, a background agent, compaction, a file rewind. Each also checks the
behaviour through the public API; what the frames carry that the model does not know goes to
the one drift report (test_drift_report.py).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import anyio

import claude_sdk as cs
from claude_sdk.testing.fake_api import RecordedRequest

from .conftest import E2E


async def allow(
    name: str, tool_input: dict[str, Any], context: cs.ToolPermissionContext
) -> cs.PermissionResult:
    return cs.PermissionAllow()


def is_subagent(request: RecordedRequest) -> bool:
    return "SUBTASK" in json.dumps(request.messages[:1])


def is_main(request: RecordedRequest) -> bool:
    return not is_subagent(request)


async def test_a_subagent_scenario(e2e: E2E) -> None:
    agent_input = {
        "description": "List files",
        "prompt": "SUBTASK: list the files",
        "subagent_type": "general-purpose",
        "run_in_background": False,
    }
    e2e.api.reply(tool_use=("Agent", agent_input), when=is_main)
    e2e.api.reply(tool_use=("Bash", {"command": "ls", "description": "List"}), when=is_subagent)
    e2e.api.reply(text="subagent: nothing here", when=is_subagent)
    e2e.api.reply(text="the subagent looked", when=is_main)
    reply = await cs.ask(
        "use a subagent", options=e2e.options(can_use_tool=allow), transport=e2e.transport()
    )
    assert reply.text == "the subagent looked"
    agent_call = next(
        b.id
        for m in reply.messages
        if isinstance(m, cs.AssistantMessage)
        for b in m.content
        if isinstance(b, cs.ToolUseBlock) and b.name in ("Agent", "Task")
    )
    inner = [
        m
        for m in reply.messages
        if isinstance(m, (cs.AssistantMessage, cs.UserMessage))
        and m.parent_tool_use_id == agent_call
    ]
    assert inner, "the subagent's messages carry the Agent call's id"
    for message in inner:
        # Newer CLIs name the subagent on its messages; when they do, it is this one.
        assert message.subagent_type in (None, "general-purpose")
        assert message.task_description in (None, "List files")


async def test_a_background_agent_scenario(e2e: E2E) -> None:
    agent_input = {
        "description": "Count files",
        "prompt": "SUBTASK: count the files",
        "subagent_type": "general-purpose",
        "run_in_background": True,
    }
    e2e.api.reply(tool_use=("Agent", agent_input), when=is_main)
    e2e.api.reply(text="subagent: 0 files", when=is_subagent)
    e2e.api.reply(text="started it", when=is_main, times=None)
    async with cs.open_session(
        e2e.options(can_use_tool=allow), transport=e2e.transport()
    ) as session:
        await session.send("count in the background")
        messages = [m async for m in session.receive_response()]
        assert isinstance(messages[-1], cs.ResultMessage)
        # The background task reports its end with a task notification.
        seen: list[cs.Message] = []
        with anyio.move_on_after(30):
            async for message in session.receive_messages():
                seen.append(message)
                if isinstance(message, cs.SystemMessage) and message.subtype == (
                    "task_notification"
                ):
                    break
    subtypes = [m.subtype for m in messages + seen if isinstance(m, cs.SystemMessage)]
    assert "task_started" in subtypes
    assert "task_notification" in subtypes


async def test_a_compaction_scenario(e2e: E2E) -> None:
    e2e.api.reply(text="first answer")
    e2e.api.reply(text="<summary>we talked</summary>", times=None)
    async with cs.open_session(e2e.options(), transport=e2e.transport()) as session:
        await session.send("remember 42")
        [m async for m in session.receive_response()]
        await session.send("/compact")
        messages = [m async for m in session.receive_response()]
    boundaries = [
        m for m in messages if isinstance(m, cs.SystemMessage) and m.subtype == "compact_boundary"
    ]
    assert boundaries, [type(m).__name__ for m in messages]
    assert isinstance(messages[-1], cs.ResultMessage)
    assert not messages[-1].is_error


async def test_a_rewind_scenario(e2e: E2E) -> None:
    target = e2e.cwd / "made.txt"
    e2e.api.reply(
        tool_use=("Write", {"file_path": str(target), "content": "new file\n"}), when=is_main
    )
    e2e.api.reply(text="wrote it")
    options = e2e.options(can_use_tool=allow, enable_file_checkpointing=True)
    prompt_uuid = str(uuid.uuid4())
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send(cs.UserMessage.prompt("write the file", uuid=prompt_uuid))
        [m async for m in session.receive_response()]
        assert target.read_text() == "new file\n"
        dry = await session.rewind_files(prompt_uuid, dry_run=True)
        assert dry.can_rewind, dry
        assert target.exists()  # a dry run changes nothing
        done = await session.rewind_files(prompt_uuid)
        assert done.can_rewind, done
    assert not target.exists()  # the file the turn created is gone again

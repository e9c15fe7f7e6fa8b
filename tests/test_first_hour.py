"""The first hour (issue 30): the Tools guide's form works as shown, your own tools run on
FakeCLI, and the common mistakes are answered with the fix.

Every async test runs on asyncio and Trio. FakeCLI is the CLI here; the same forms run
against the real CLI in ``tests/e2e/test_first_hour_e2e.py``.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, TypedDict

import anyio
import pytest

import claude_sdk as cs
from claude_sdk import wire
from claude_sdk._protocol.launch import build_launch_spec, in_process_allow_rules
from claude_sdk.messages import PermissionDeniedMessage
from claude_sdk.testing import FakeCLI, FakeCLIError, ScriptedCLI, ToolCall

pytestmark = pytest.mark.anyio


@cs.tool
async def get_temperature(city: str) -> str:
    """The temperature in a city."""
    return f"21 degrees in {city}"


def weather() -> cs.SdkMcpServer:
    return cs.create_sdk_mcp_server("weather", tools=[get_temperature])


def one_call(name: str, arguments: dict[str, Any], seen: list[dict[str, Any]] | None = None) -> Any:
    """A script: one turn whose model calls ``name`` (no output: an in-process tool runs)."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn("done", tools=[ToolCall(name, arguments)])
        if seen is not None:
            seen.extend(cli.tool_results.values())
        await cli.serve_until_stdin_closes()

    return script


def tool_results(reply: cs.Reply) -> list[cs.ToolResultBlock]:
    return [
        block
        for m in reply.messages
        if isinstance(m, cs.UserMessage) and isinstance(m.message.content, list)
        for block in m.message.content
        if isinstance(block, cs.ToolResultBlock)
    ]


# ======================================================================================
# 1. The guide's form: @tool + create_sdk_mcp_server + Options(mcp_servers=...), nothing else


async def test_the_guides_tool_form_runs_the_tool_without_any_permission_option() -> None:
    seen: list[dict[str, Any]] = []
    options = cs.Options(mcp_servers={"weather": weather()})
    fake = FakeCLI(one_call("mcp__weather__get_temperature", {"city": "Paris"}, seen))
    reply = await cs.ask("temperature in Paris?", options=options, transport=fake)
    assert seen == [
        {"content": [{"type": "text", "text": "21 degrees in Paris"}], "isError": False}
    ]
    (result,) = tool_results(reply)
    assert result.is_error is False
    assert result.content == [cs.TextBlock(text="21 degrees in Paris")]
    assert reply.permission_denials == ()
    assert "--allowedTools=mcp__weather" in fake.cli.argv


def test_the_allow_rule_is_the_servers_name_as_the_cli_writes_it() -> None:
    options = cs.Options(mcp_servers={"my weather.v2": weather(), "other": weather()})
    argv = build_launch_spec(options).argv
    assert "--allowedTools=mcp__my_weather_v2,mcp__other" in argv


@pytest.mark.parametrize(
    ("kwargs", "rules"),
    [
        ({}, ["mcp__weather"]),
        ({"allow_in_process_tools": False}, []),
        ({"can_use_tool": "callback"}, []),
        ({"permission_prompt_tool_name": "mcp__auth__ask"}, []),
        ({"allowed_tools": ["mcp__weather__get_temperature"]}, []),
        ({"allowed_tools": ["mcp__weather"]}, []),
        ({"allowed_tools": ["mcp__weatherx"]}, ["mcp__weather"]),
        ({"allowed_tools": ["Read"], "disallowed_tools": ["mcp__weather"]}, ["mcp__weather"]),
    ],
)
def test_who_decides_the_permissions_of_in_process_tools(
    kwargs: dict[str, Any], rules: list[str]
) -> None:
    async def allow(*args: Any) -> cs.PermissionResult:
        return cs.PermissionAllow()

    if kwargs.get("can_use_tool") == "callback":
        kwargs = {**kwargs, "can_use_tool": allow}
    options = cs.Options(mcp_servers={"weather": weather()}, **kwargs)
    assert in_process_allow_rules(options, ["weather"]) == rules


async def test_with_can_use_tool_the_callback_decides_the_in_process_tool() -> None:
    asked: list[str] = []

    async def deny(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        asked.append(name)
        return cs.PermissionDeny(message="not today")

    options = cs.Options(mcp_servers={"weather": weather()}, can_use_tool=deny)
    fake = FakeCLI(one_call("mcp__weather__get_temperature", {"city": "Oslo"}))
    reply = await cs.ask("temperature?", options=options, transport=fake)
    assert asked == ["mcp__weather__get_temperature"]
    (result,) = tool_results(reply)
    assert result.is_error is True
    assert result.content == "not today"
    assert not any(a.startswith("--allowedTools") for a in fake.cli.argv)


async def test_a_tool_never_granted_is_reported_with_the_fix(
    caplog: pytest.LogCaptureFixture,
) -> None:
    options = cs.Options(mcp_servers={"weather": weather()}, allow_in_process_tools=False)
    fake = FakeCLI(one_call("mcp__weather__get_temperature", {"city": "Rome"}))
    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        reply = await cs.ask("temperature?", options=options, transport=fake)
    (denial,) = reply.permission_denials
    assert isinstance(denial, PermissionDeniedMessage)
    assert denial.tool_name == "mcp__weather__get_temperature"
    assert "haven't granted it yet" in (denial.message or "")
    assert "Options(allowed_tools=['mcp__weather'])" in denial.explanation
    assert "can_use_tool" in denial.explanation
    (result,) = tool_results(reply)
    assert result.is_error is True
    [record] = [r for r in caplog.records if "refused" in r.getMessage()]
    assert record.levelno == logging.WARNING
    assert "mcp__weather__get_temperature" in record.getMessage()
    assert "allowed_tools=['mcp__weather']" in record.getMessage()
    assert [d.tool_name for d in reply.result.permission_denials or []] == [denial.tool_name]


def test_the_explanation_follows_the_reason_the_cli_gives() -> None:
    def explain(reason: str | None, tool: str = "Bash") -> str:
        message = PermissionDeniedMessage(
            session_id="s", uuid="u", tool_name=tool, tool_use_id="t", message="no",
            decision_reason_type=reason,
        )  # fmt: skip
        return message.explanation

    assert "Options(allowed_tools=['Bash'])" in explain(None)
    assert "permission mode" in explain("mode")
    assert "can_use_tool" in explain("rule")
    assert "Options(allowed_tools=['mcp__db'])" in explain(None, "mcp__db__query")


# ======================================================================================
# 2. Your own tools on FakeCLI


async def test_fake_cli_runs_the_real_tool_through_the_real_server() -> None:
    calls: list[tuple[int, int]] = []

    @cs.tool
    async def add(a: int, b: int) -> int:
        """Add two numbers."""
        calls.append((a, b))
        return a + b

    seen: list[dict[str, Any]] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn("3 and 7", tools=[ToolCall("mcp__calc__add", {"a": 1, "b": 2})])
        await cli.next_prompt()
        seen.append(await cli.call_tool("mcp__calc__add", {"a": 3, "b": 4}))
        seen.append(await cli.call_tool("mcp__calc__add", {"a": "x"}))
        await cli.turn("scripted", tools=[ToolCall("mcp__calc__add", {"a": 0}, output="9")])
        with pytest.raises(FakeCLIError, match="not a tool of an in-process server"):
            await cli.call_tool("mcp__other__add", {})
        await cli.serve_until_stdin_closes()

    options = cs.Options(mcp_servers={"calc": cs.create_sdk_mcp_server("calc", tools=[add])})
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        await session.send("add")
        [m async for m in session.receive_response()]
        await session.send("more")
        [m async for m in session.receive_response()]
    assert calls == [(1, 2), (3, 4)]  # the scripted output ran nothing
    assert seen[0]["content"] == [{"type": "text", "text": "7"}]
    assert seen[1]["isError"] is True
    assert "missing required argument 'b'" in seen[1]["content"][0]["text"]


async def test_fake_cli_reports_a_tool_that_raises_as_an_error_result(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @cs.tool
    async def boom() -> str:
        """Fail."""
        raise RuntimeError("kaboom")

    options = cs.Options(mcp_servers={"t": cs.create_sdk_mcp_server("t", tools=[boom])})
    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        reply = await cs.ask("x", options=options, transport=FakeCLI(one_call("mcp__t__boom", {})))
    (result,) = tool_results(reply)
    assert result.is_error is True
    assert "kaboom" in str(result.content)
    [record] = [r for r in caplog.records if "kaboom" in r.getMessage()]
    assert "ToolResult(content='what went wrong', is_error=True)" in record.getMessage()


# ======================================================================================
# The official SDK's @tool form


class Pair(TypedDict):
    a: float
    b: float


@pytest.mark.parametrize(
    "schema",
    [
        {"a": float, "b": float},
        Pair,
        {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    ],
    ids=["names-to-types", "typeddict", "json-schema"],
)
async def test_the_official_tool_form_works(schema: Any) -> None:
    @cs.tool("add", "Add two numbers", schema)
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    assert add.name == "add"
    assert add.description == "Add two numbers"
    assert set(add.input_schema["required"]) == {"a", "b"}
    assert await add.call({"a": 1, "b": 2.5}) == {
        "content": [{"type": "text", "text": "3.5"}],
        "isError": False,
    }
    bad = await add.call({"a": "one"})
    assert bad["isError"] is True
    assert "Invalid arguments for tool 'add'" in bad["content"][0]["text"]
    seen: list[dict[str, Any]] = []
    options = cs.Options(mcp_servers={"calc": cs.create_sdk_mcp_server("calc", tools=[add])})
    fake = FakeCLI(one_call("mcp__calc__add", {"a": 2, "b": 3}, seen))
    await cs.ask("add", options=options, transport=fake)
    assert seen == [{"content": [{"type": "text", "text": "5"}], "isError": False}]


async def test_the_official_form_keeps_is_error() -> None:
    @cs.tool("check", "Check", {"x": int})
    async def check(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "bad x"}], "is_error": True}

    assert await check.call({"x": 1}) == {
        "content": [{"type": "text", "text": "bad x"}],
        "isError": True,
    }


def test_the_official_form_with_a_typed_function_says_the_right_form() -> None:
    with pytest.raises(TypeError, match=r"takes the arguments as one dict, `async def add\(args\)"):

        @cs.tool("add", "Add", {"a": int, "b": int})
        async def add(a: int, b: int) -> int:
            return a + b

    with pytest.raises(TypeError, match="the name first"):
        cs.tool(get_temperature.handler, "describe")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="input_schema is a dict of argument names"):
        cs.tool("x", "y", 3)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"input_schema\['a'\]"):
        cs.tool("x", "y", {"a": complex})


# ======================================================================================
# 4. Mistakes answered with the fix


async def test_open_session_awaited_or_used_without_async_with_shows_the_form() -> None:
    context = cs.open_session()
    form = "async with claude_sdk.open_session(options) as session:"
    with pytest.raises(TypeError, match="not awaited") as awaited:
        await context  # type: ignore[misc]
    assert form in str(awaited.value)
    with pytest.raises(AttributeError, match=r"then call `session\.send`") as attribute:
        context.send  # type: ignore[attr-defined]  # noqa: B018
    assert form in str(attribute.value)
    with pytest.raises(TypeError, match="plain `with`"), context:  # type: ignore[attr-defined]
        pass
    with pytest.raises(TypeError, match="takes an Options, not dict"):
        cs.open_session({"model": "x"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "fix"),
    [
        ({"max_turn": 3}, "did you mean 'max_turns'?"),
        ({"system_promt": "x"}, "did you mean 'system_prompt'"),
        ({"max_buffer_size": 10}, "'max_buffer_size' is max_line_bytes here"),
        ({"debug_stderr": None}, "'debug_stderr' is stderr"),
        ({"load_timeout_ms": 10}, "session_store_load_timeout (in seconds)"),
        ({"xyzzy": 1}, "'xyzzy' is not an option"),
    ],
)
def test_a_wrong_option_name_names_the_option_meant(kwargs: dict[str, Any], fix: str) -> None:
    with pytest.raises(cs.OptionsError) as raised:
        cs.Options(**kwargs)
    assert fix in str(raised.value)
    assert isinstance(raised.value, TypeError)  # what the bare keyword error was


def test_positional_options_name_the_keyword_form() -> None:
    with pytest.raises(cs.OptionsError, match="keyword arguments only"):
        cs.Options("sonnet")  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("kwargs", "fix"),
    [
        ({"max_turns": "3"}, "Options.max_turns must be an integer, not '3'"),
        ({"allowed_tools": 3}, "Options.allowed_tools must be a string or a list of strings"),
        ({"cwd": 5}, "Options.cwd"),
    ],
)
def test_a_wrong_option_type_names_the_option_and_the_type(
    kwargs: dict[str, Any], fix: str
) -> None:
    with pytest.raises(cs.OptionsError) as raised:
        cs.Options(**kwargs)
    assert fix in str(raised.value)


async def test_a_missing_cli_says_how_to_install_it(tmp_path: Path) -> None:
    with pytest.raises(cs.CLINotFoundError) as raised:
        await cs.ask("hi", options=cs.Options(cli_path=str(tmp_path / "claude")))
    assert "npm install -g @anthropic-ai/claude-code" in str(raised.value)
    assert "Options.cli_path" in str(raised.value)


@pytest.mark.parametrize("kind", ["missing", "a file"])
async def test_a_bad_cwd_says_what_is_wrong_and_the_fix(tmp_path: Path, kind: str) -> None:
    cwd = tmp_path / "nowhere"
    if kind == "a file":
        cwd.write_text("")
    options = cs.Options(cli_path=sys.executable, cwd=str(cwd))
    with pytest.raises(cs.ProcessError) as raised:
        await cs.ask("hi", options=options)
    what = "does not exist" if kind == "missing" else "is not a directory"
    assert f"the working directory {what}: {cwd}" in str(raised.value)
    assert "set Options.cwd to an existing directory" in str(raised.value)


async def test_not_logged_in_comes_with_the_key_and_the_offline_hint() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.result(
            "Not logged in · Please run /login", is_error=True, terminal_reason="api_error"
        )
        await cli.serve_until_stdin_closes()

    with pytest.raises(cs.ResultError) as raised:
        await cs.ask("hi", transport=FakeCLI(script))
    error = raised.value
    assert error.kind == "auth"
    assert error.hint is not None
    text = str(error)
    assert "Please run /login" in text
    assert "ANTHROPIC_API_KEY" in text
    assert "claude_sdk.testing" in text
    assert "FakeCLI" in text


async def test_two_sends_at_once_each_get_their_own_reply() -> None:
    """Prompts sent at once are queued; each `receive_response` then reads its own turn."""
    replies: list[str] = []
    async with cs.open_session(transport=FakeCLI(replies=["one", "two"])) as session:
        async with anyio.create_task_group() as tg:
            tg.start_soon(session.send, "first")
            tg.start_soon(session.send, "second")
        for _ in range(2):
            async for message in session.receive_response():
                if isinstance(message, cs.ResultMessage):
                    replies.append(message.result or "")
    assert replies == ["one", "two"]


async def test_two_readers_of_all_messages_at_once_are_told_the_fix() -> None:
    errors: list[cs.ClaudeSDKError] = []
    told = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await told.wait()  # nothing comes until the second reader was told: both waited
        await cli.turn("one")
        await cli.serve_until_stdin_closes()

    async with cs.open_session(transport=FakeCLI(script)) as session:
        await session.send("hi")

        async def read() -> None:
            try:
                async for message in session.receive_messages():
                    if isinstance(message, cs.ResultMessage):
                        return
            except cs.ClaudeSDKError as exc:
                errors.append(exc)
                told.set()

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(read)
                tg.start_soon(read)
    (error,) = errors
    assert error.kind == "concurrent_readers"
    assert "two tasks read this session's messages at once" in str(error)
    assert "one turn at a time" in str(error)
    assert "SessionPool" in str(error)


async def test_two_turns_read_at_once_raise_rather_than_mix() -> None:
    """Two tasks each reading their own turn would share its messages (a quiet wrong
    answer): the second reader to wait is told the fix; nothing hangs."""
    errors: list[cs.ClaudeSDKError] = []
    texts: dict[str, list[str]] = {}
    told = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        for _ in range(2):
            await cli.next_prompt()
        await told.wait()  # nothing comes until the second reader was told: both waited
        await cli.turn("one")
        await cli.turn("two")
        await cli.serve_until_stdin_closes()

    async with cs.open_session(transport=FakeCLI(script)) as session:

        async def turn(prompt: str) -> None:
            await session.send(prompt)
            try:
                texts[prompt] = [
                    m.text
                    async for m in session.receive_response()
                    if isinstance(m, cs.AssistantMessage)
                ]
            except cs.ClaudeSDKError as exc:
                errors.append(exc)
                told.set()

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(turn, "first")
                tg.start_soon(turn, "second")
    (error,) = errors
    assert error.kind == "concurrent_readers"
    (read,) = texts.values()  # the other reader read its turn whole
    assert read in (["one"], ["two"])


async def test_a_closed_session_says_how_to_go_on() -> None:
    async with cs.open_session(transport=FakeCLI(replies=["one"])) as session:
        pass
    with pytest.raises(cs.SessionClosedError) as raised:
        await session.send("again")
    assert "async with open_session(...)" in str(raised.value)
    assert "Options(resume=session.session_id)" in str(raised.value)


@pytest.mark.parametrize(
    "answer",
    ["allow", {"decision": "allow"}, {"permissionDecision": "allow"}],
    ids=["a string", "a wrong value", "an unknown key"],
)
async def test_a_hook_answer_of_the_wrong_shape_names_the_right_one(
    caplog: pytest.LogCaptureFixture, answer: Any
) -> None:
    async def hook(hook_input: Any, context: Any) -> Any:
        return answer

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn("ok", tools=[ToolCall("Bash", {"command": "ls"})])
        await cli.serve_until_stdin_closes()

    options = cs.Options(hooks={"PreToolUse": [cs.HookMatcher(matcher="Bash", hooks=[hook])]})
    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        await cs.ask("x", options=options, transport=FakeCLI(script))
    [record] = [
        r for r in caplog.records if "hook" in r.getMessage() and "failed" in r.getMessage()
    ]
    text = record.getMessage()
    assert "claude_sdk.HookOutput(specific=claude_sdk.hooks.PreToolUseOutput(" in text
    assert "permission_decision='deny'" in text
    # the form it names is a real one
    cs.HookOutput(
        specific=cs.hooks.PreToolUseOutput(
            permission_decision="deny", permission_decision_reason="why"
        )
    )


def test_a_three_argument_hook_names_the_two_argument_form() -> None:
    async def official(hook_input: Any, tool_use_id: str | None, context: Any) -> Any:
        return {}

    with pytest.raises(cs.OptionsError, match=r"context\.tool_use_id"):
        cs.Options(hooks={"PreToolUse": [cs.HookMatcher(hooks=[official])]})  # type: ignore[list-item]


def test_the_messages_of_this_file_name_real_options() -> None:
    """The fixes the messages name are options that exist (a rename would break them)."""
    import inspect

    names = set(inspect.signature(cs.Options).parameters)
    for name in ("allowed_tools", "can_use_tool", "cwd", "resume", "allow_in_process_tools"):
        assert name in names
    assert os.path.basename(__file__) == "test_first_hour.py"


# ======================================================================================
# 5. Small things people reach for


@pytest.mark.parametrize("partial", [True, False])
async def test_text_deltas_streams_the_text_and_never_drops_any(partial: bool) -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn("Once upon a time, a long story.")
        await cli.serve_until_stdin_closes()

    options = cs.Options(include_partial_messages=partial)
    pieces: list[str] = []
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        await session.send("Tell me a story")
        async for piece in cs.text_deltas(session.receive_response()):
            pieces.append(piece)
    assert "".join(pieces) == "Once upon a time, a long story."
    assert (len(pieces) > 1) is partial  # streamed in pieces, or whole


async def test_text_deltas_leaves_out_subagents_unless_asked() -> None:
    def delta(text: str, parent: str | None = None) -> cs.StreamEvent:
        event = {"type": "content_block_delta", "delta": {"type": "text_delta", "text": text}}
        return cs.StreamEvent(event=event, parent_tool_use_id=parent)

    def start(message_id: str, parent: str | None = None) -> cs.StreamEvent:
        event = {"type": "message_start", "message": {"id": message_id}}
        return cs.StreamEvent(event=event, parent_tool_use_id=parent)

    def whole(message_id: str, text: str, parent: str | None = None) -> cs.AssistantMessage:
        return wire.decode(
            json.dumps(
                {
                    "type": "assistant",
                    "message": {
                        "id": message_id,
                        "role": "assistant",
                        "model": "m",
                        "content": [{"type": "text", "text": text}],
                    },
                    "parent_tool_use_id": parent,
                }
            )
        )  # type: ignore[return-value]

    frames: list[Any] = [
        start("m1"),
        delta("Hel"),
        delta("lo"),
        whole("m1", "Hello"),  # streamed already: not again
        start("s1", "toolu_1"),
        delta("sub", "toolu_1"),
        whole("s1", "sub", "toolu_1"),
        whole("m2", " world"),  # never streamed: comes whole
    ]

    async def source() -> Any:
        for frame in frames:
            yield frame

    assert [p async for p in cs.text_deltas(source())] == ["Hel", "lo", " world"]
    everything = [p async for p in cs.text_deltas(source(), subagents=True)]
    assert everything == ["Hel", "lo", "sub", " world"]


def test_the_transport_protocol_is_at_the_top_level() -> None:
    from claude_sdk.transports.base import Transport

    assert cs.Transport is Transport
    assert isinstance(FakeCLI(replies=["x"]), cs.Transport)


async def test_a_streamed_prompt_takes_the_official_dicts_and_names_the_right_form() -> None:
    async def official() -> Any:
        yield {"type": "user", "message": {"role": "user", "content": "first"}}
        yield "second"
        yield cs.UserMessage.prompt("third")

    fake = FakeCLI(replies=["a", "b", "c"])
    async with cs.open_session(transport=fake) as session:
        sent = await session.send(official())
        assert len(sent) == 3
        for _ in sent:
            [m async for m in session.receive_response()]
    assert [p.text for p in fake.cli.prompts] == ["first", "second", "third"]

    async def wrong() -> Any:
        yield 42

    async with cs.open_session(transport=FakeCLI(replies=["a"])) as session:
        with pytest.raises(TypeError, match=r"UserMessage\.prompt\('text'\)") as raised:
            await session.send(wrong())
        assert "not int" in str(raised.value)

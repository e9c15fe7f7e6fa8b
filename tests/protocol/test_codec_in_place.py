"""The generated decoders work in place (issue 8): what that must not change.

Nested objects are decoded inside their container's decoder and lists of objects are
converted item by item in the list itself; a frame's tag stays in the decoded ``__dict__``.
So a frame that does not fit can be left half converted by the fast path, and these tests pin
that nobody sees it: the ``Unknown*`` value holds the dict exactly as it came, ``decode_obj``
leaves its argument alone, a block that does not fit spoils only itself, and ``extra`` never
reports a tag.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson

from claude_sdk import wire
from claude_sdk._protocol.codec import default_codec
from claude_sdk.control import CanUseToolRequest, ControlRequest
from claude_sdk.messages import AssistantMessage, TextBlock, UnknownBlock, UnknownMessage, Usage
from claude_sdk.permissions import AddRulesUpdate

codec = default_codec()


def _assistant(**message: Any) -> dict[str, Any]:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    body.update(message)
    return {"type": "assistant", "message": body, "session_id": "s", "uuid": "u"}


def test_a_frame_that_fails_after_its_blocks_were_converted_is_kept_exactly() -> None:
    frame = _assistant(usage=["not", "an", "object"])
    decoded = codec.decode_frame(orjson.dumps(frame))
    assert isinstance(decoded, UnknownMessage)
    assert decoded.raw == frame  # the blocks are dicts again, not half-typed objects
    assert decoded.error is not None
    assert "got TextBlock" not in decoded.error  # the real failure, not one of a retry
    assert wire.to_dict(decoded) == frame


def test_decode_obj_leaves_its_argument_alone_on_success_and_failure() -> None:
    for frame in (_assistant(), _assistant(usage=7)):
        before = copy.deepcopy(frame)
        codec.decode_obj(frame)
        assert frame == before


def test_a_frame_that_fails_after_nested_blocks_were_converted_is_kept_exactly() -> None:
    result = {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": [{"type": "text", "text": "inner"}],
    }
    frame = _assistant(content=[{"type": "text", "text": "ok"}, result], usage=[1])
    decoded = codec.decode_frame(orjson.dumps(frame))
    assert isinstance(decoded, UnknownMessage)
    assert decoded.raw == frame
    assert decoded.error is not None
    assert "__dict__ must be set to a dictionary" in decoded.error


def test_restore_turns_what_a_decoder_converted_back_into_the_json_it_came_from() -> None:
    frame = _assistant(content=[{"type": "text", "text": "a"}])
    original = copy.deepcopy(frame)
    body = frame["message"]
    body["content"][0] = wire.from_dict(body["content"][0], TextBlock)
    body["usage"] = wire.from_dict(body["usage"], Usage)
    assert codec.generator.restore(frame) == original


def test_a_block_that_does_not_fit_spoils_only_itself() -> None:
    frame = _assistant(content=[{"type": "text", "text": "ok"}, {"type": "text"}])
    decoded = codec.decode_frame(orjson.dumps(frame))
    assert isinstance(decoded, AssistantMessage)
    first, second = decoded.content
    assert isinstance(first, TextBlock)
    assert first.text == "ok"
    assert isinstance(second, UnknownBlock)
    assert second.raw == {"type": "text"}
    assert wire.to_dict(decoded) == frame


def test_tags_stay_readable_and_are_never_extra() -> None:
    line = orjson.dumps(
        {
            "type": "control_request",
            "request_id": "r1",
            "request": {
                "subtype": "can_use_tool",
                "tool_name": "Bash",
                "input": {"command": "ls"},
                "permission_suggestions": [
                    {
                        "type": "addRules",
                        "rules": [{"toolName": "Bash"}],
                        "behavior": "allow",
                        "destination": "session",
                        "future_key": 1,
                    }
                ],
            },
        }
    )
    decoded = codec.decode_frame(line)
    assert isinstance(decoded, ControlRequest)
    request = decoded.request
    assert isinstance(request, CanUseToolRequest)
    assert (decoded.type, request.subtype) == ("control_request", "can_use_tool")
    assert dict(decoded.extra) == {}
    assert dict(request.extra) == {}
    (suggestion,) = request.permission_suggestions or []
    assert isinstance(suggestion, AddRulesUpdate)
    assert dict(suggestion.extra) == {"future_key": 1}  # unknown keys, and only those
    assert wire.drift(decoded) == [
        "$.request.permission_suggestions[0].future_key: unknown field (int)"
    ]
    assert wire.to_dict(decoded) == orjson.loads(line)


def test_a_frame_built_in_python_equals_the_decoded_one() -> None:
    frame = {"type": "text", "text": "x"}
    decoded = wire.from_dict(frame, TextBlock)
    assert decoded == TextBlock(text="x")
    assert hash(decoded) == hash(TextBlock(text="x"))
    assert repr(decoded) == repr(TextBlock(text="x"))

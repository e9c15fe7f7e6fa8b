"""Decode Claude Code CLI stream-json lines into typed frames, and check them for drift.

Run: ``python examples/decode_wire.py [FILE.jsonl]``. Without a file it decodes a few
built-in lines. A file may hold plain frames (one JSON object per line) or the recorded
transcripts of tests/data/transcripts (``{"dir": ..., "msg": frame}`` per line).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

from claude_sdk import (
    AssistantMessage,
    InitMessage,
    ResultMessage,
    TextBlock,
    ToolUseBlock,
    UnknownMessage,
    wire,
)

SAMPLE = [
    b'{"type":"system","subtype":"init","cwd":"/tmp","session_id":"s1","tools":["Bash"],'
    b'"mcp_servers":[],"model":"claude-opus-5-5","permissionMode":"default",'
    b'"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.330","output_style":"default"}',
    b'{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant",'
    b'"model":"claude-opus-5-5","content":[{"type":"text","text":"Hello!"}],'
    b'"stop_reason":null,"stop_sequence":null},"parent_tool_use_id":null,"session_id":"s1"}',
    b'{"type":"brand_new_frame","payload":{"x":1}}',
    b'{"type":"result","subtype":"success","is_error":false,"result":"Hello!",'
    b'"num_turns":1,"total_cost_usd":0.0105,"session_id":"s1"}',
]


def lines(path: Path | None) -> Iterator[bytes]:
    if path is None:
        yield from SAMPLE
        return
    with path.open("rb") as f:
        for raw in f:
            data = json.loads(raw)
            if "dir" in data:  # a recorded transcript line
                if data["dir"] == "cli>sdk" and "msg" in data:
                    yield json.dumps(data["msg"]).encode()
            else:
                yield raw


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    for line in lines(path):
        frame = wire.decode(line)
        if isinstance(frame, InitMessage):
            print(f"init: model={frame.model} tools={len(frame.tools or [])}")
        elif isinstance(frame, AssistantMessage):
            for block in frame.content:
                if isinstance(block, TextBlock):
                    print(f"assistant: {block.text}")
                elif isinstance(block, ToolUseBlock):
                    print(f"assistant calls {block.name}({block.input})")
        elif isinstance(frame, ResultMessage):
            print(f"result: {frame.subtype} cost=${frame.total_cost_usd}")
        elif isinstance(frame, UnknownMessage):
            print(f"unknown frame kept whole: {dict(frame.raw)}")
        else:
            print(type(frame).__name__)
        findings = wire.drift(frame)
        if findings:
            print("  drift:", *findings, sep="\n    ")
        assert json.loads(wire.encode(frame)) == json.loads(line)  # lossless


if __name__ == "__main__":
    main()

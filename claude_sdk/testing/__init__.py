"""Test helpers for code built on ``claude_sdk``: a scripted, in-memory Claude Code CLI.

`FakeCLI` is a transport whose every connection runs a script playing the CLI's side of
the conversation through a `ScriptedCLI`; see `claude_sdk.testing.fake_cli` for a complete
example.

`FakeMessagesAPI` is the other seam: a scripted Anthropic Messages API on 127.0.0.1 that the
real CLI talks to over HTTP (see `claude_sdk.testing.fake_api`).
"""

from .cassette import Cassette as Cassette
from .cassette import CassetteEntry as CassetteEntry
from .cassette import CassetteError as CassetteError
from .cassette import CassetteExhaustedError as CassetteExhaustedError
from .cassette import CassetteFormatError as CassetteFormatError
from .cassette import CassetteMismatchError as CassetteMismatchError
from .cassette import DriftFinding as DriftFinding
from .cassette import Recording as Recording
from .cassette import RecordingTransport as RecordingTransport
from .cassette import ReplayTransport as ReplayTransport
from .cassette import Scrubber as Scrubber
from .cassette import check_drift as check_drift
from .fake_api import FakeMessagesAPI as FakeMessagesAPI
from .fake_api import RecordedRequest as RecordedRequest
from .fake_api import RecordedToolResult as RecordedToolResult
from .fake_api import ReplyRule as ReplyRule
from .fake_api import RequestKind as RequestKind
from .fake_api import ScriptedBlock as ScriptedBlock
from .fake_api import ScriptedText as ScriptedText
from .fake_api import ScriptedThinking as ScriptedThinking
from .fake_api import ScriptedToolUse as ScriptedToolUse
from .fake_api import ToolUsePair as ToolUsePair
from .fake_cli import NO_ANSWER as NO_ANSWER
from .fake_cli import AnswerTimeoutError as AnswerTimeoutError
from .fake_cli import ErrorReply as ErrorReply
from .fake_cli import FakeCLI as FakeCLI
from .fake_cli import FakeCLIError as FakeCLIError
from .fake_cli import InvalidAnswerError as InvalidAnswerError
from .fake_cli import PermissionReply as PermissionReply
from .fake_cli import Received as Received
from .fake_cli import RequestCancelledError as RequestCancelledError
from .fake_cli import RequestHandler as RequestHandler
from .fake_cli import Script as Script
from .fake_cli import ScriptedCLI as ScriptedCLI
from .fake_cli import StdinClosedError as StdinClosedError
from .fake_cli import ToolCall as ToolCall
from .fake_cli import ToolSpec as ToolSpec

__all__ = [
    "FakeCLI",
    "ScriptedCLI",
    "Script",
    "ToolCall",
    "ToolSpec",
    "Received",
    "RequestHandler",
    "PermissionReply",
    "ErrorReply",
    "NO_ANSWER",
    "FakeCLIError",
    "AnswerTimeoutError",
    "RequestCancelledError",
    "StdinClosedError",
    "InvalidAnswerError",
    # claude_sdk.testing.fake_api: a scripted Messages API for running the real CLI offline
    "FakeMessagesAPI",
    "RecordedRequest",
    "RecordedToolResult",
    "ReplyRule",
    "RequestKind",
    "ScriptedBlock",
    "ScriptedText",
    "ScriptedThinking",
    "ScriptedToolUse",
    "ToolUsePair",
    # claude_sdk.testing.cassette: record and replay the wire; drift checks
    "RecordingTransport",
    "ReplayTransport",
    "Cassette",
    "Recording",
    "CassetteEntry",
    "Scrubber",
    "CassetteError",
    "CassetteFormatError",
    "CassetteMismatchError",
    "CassetteExhaustedError",
    "check_drift",
    "DriftFinding",
]

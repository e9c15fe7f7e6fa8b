"""Test helpers for code built on ``claude_sdk``: a scripted, in-memory Claude Code CLI.

`FakeCLI` is a transport whose every connection runs a script playing the CLI's side of
the conversation through a `ScriptedCLI`; see `claude_sdk.testing.fake_cli` for a complete
example.

`FakeMessagesAPI` is the other seam: a scripted Anthropic Messages API on 127.0.0.1 that the
real CLI talks to over HTTP (see `claude_sdk.testing.fake_api`).

`check_policy` replays the tool calls of recordings through a permission policy (a dry run;
see `claude_sdk.testing.policy_check`).

Each name is imported from its module on first access (PEP 562 ``__getattr__``), so the
pytest plugin, which every pytest run in an environment with ``claude_sdk`` loads, costs
next to nothing until a test uses a fixture; type checkers read the re-exports under
``if TYPE_CHECKING:``, the one list of them (see ``claude_sdk._exports``).
"""

from .._exports import install as _install

TYPE_CHECKING = False  # as in `claude_sdk/__init__.py`: no `typing` import for this
if TYPE_CHECKING:
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
    from .policy_check import CallVerdict as CallVerdict
    from .policy_check import RecordedCall as RecordedCall
    from .policy_check import RecordedVerdict as RecordedVerdict
    from .policy_check import check_call as check_call
    from .policy_check import check_policy as check_policy
    from .policy_check import load_policy as load_policy
    from .policy_check import read_calls as read_calls
    from .store_conformance import STORE_CHECKS as STORE_CHECKS
    from .store_conformance import StoreCheck as StoreCheck
    from .store_conformance import StoreCheckReport as StoreCheckReport
    from .store_conformance import check_session_store as check_session_store
    from .store_conformance import has_method as has_method
    from .store_conformance import (
        run_session_store_conformance as run_session_store_conformance,
    )

# Generated from the imports above by tests/support/gen_exports.py: do not edit.
_LAZY: dict[str, str] = {
    "Cassette": "cassette",
    "CassetteEntry": "cassette",
    "CassetteError": "cassette",
    "CassetteExhaustedError": "cassette",
    "CassetteFormatError": "cassette",
    "CassetteMismatchError": "cassette",
    "DriftFinding": "cassette",
    "Recording": "cassette",
    "RecordingTransport": "cassette",
    "ReplayTransport": "cassette",
    "Scrubber": "cassette",
    "check_drift": "cassette",
    "FakeMessagesAPI": "fake_api",
    "RecordedRequest": "fake_api",
    "RecordedToolResult": "fake_api",
    "ReplyRule": "fake_api",
    "RequestKind": "fake_api",
    "ScriptedBlock": "fake_api",
    "ScriptedText": "fake_api",
    "ScriptedThinking": "fake_api",
    "ScriptedToolUse": "fake_api",
    "ToolUsePair": "fake_api",
    "NO_ANSWER": "fake_cli",
    "AnswerTimeoutError": "fake_cli",
    "ErrorReply": "fake_cli",
    "FakeCLI": "fake_cli",
    "FakeCLIError": "fake_cli",
    "InvalidAnswerError": "fake_cli",
    "PermissionReply": "fake_cli",
    "Received": "fake_cli",
    "RequestCancelledError": "fake_cli",
    "RequestHandler": "fake_cli",
    "Script": "fake_cli",
    "ScriptedCLI": "fake_cli",
    "StdinClosedError": "fake_cli",
    "ToolCall": "fake_cli",
    "ToolSpec": "fake_cli",
    "CallVerdict": "policy_check",
    "RecordedCall": "policy_check",
    "RecordedVerdict": "policy_check",
    "check_call": "policy_check",
    "check_policy": "policy_check",
    "load_policy": "policy_check",
    "read_calls": "policy_check",
    "STORE_CHECKS": "store_conformance",
    "StoreCheck": "store_conformance",
    "StoreCheckReport": "store_conformance",
    "check_session_store": "store_conformance",
    "has_method": "store_conformance",
    "run_session_store_conformance": "store_conformance",
}
__all__ = [
    "Cassette",
    "CassetteEntry",
    "CassetteError",
    "CassetteExhaustedError",
    "CassetteFormatError",
    "CassetteMismatchError",
    "DriftFinding",
    "Recording",
    "RecordingTransport",
    "ReplayTransport",
    "Scrubber",
    "check_drift",
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
    "NO_ANSWER",
    "AnswerTimeoutError",
    "ErrorReply",
    "FakeCLI",
    "FakeCLIError",
    "InvalidAnswerError",
    "PermissionReply",
    "Received",
    "RequestCancelledError",
    "RequestHandler",
    "Script",
    "ScriptedCLI",
    "StdinClosedError",
    "ToolCall",
    "ToolSpec",
    "CallVerdict",
    "RecordedCall",
    "RecordedVerdict",
    "check_call",
    "check_policy",
    "load_policy",
    "read_calls",
    "STORE_CHECKS",
    "StoreCheck",
    "StoreCheckReport",
    "check_session_store",
    "has_method",
    "run_session_store_conformance",
]
# End of the generated section.

_install(globals())

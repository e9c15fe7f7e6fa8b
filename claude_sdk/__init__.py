"""claude_sdk: a structured-concurrency Python SDK for the Claude Code CLI.

The public surface is re-exported here; modules whose names start with ``_`` are private.
Public modules of their own: ``claude_sdk.history`` (sessions on disk),
``claude_sdk.policies``, ``claude_sdk.tool_inputs``, ``claude_sdk.tool_outputs``,
``claude_sdk.testing``, ``claude_sdk.transports``, and ``claude_sdk.retry``,
``claude_sdk.usage`` and ``claude_sdk.steps``, whose names are also re-exported here.

Import time: ``import claude_sdk`` imports nothing but this file and the helper
``claude_sdk._exports``. Each public name is imported from the module that defines it on first
access (PEP 562 ``__getattr__``), then kept here: ``from claude_sdk import open_session,
Options`` costs what the session needs, and a program that only uses the errors never loads
the models. The public submodules (``cs.wire``, ``cs.policies``, ``cs.testing``, ...) resolve
the same way, as attributes.

Each public name is listed once, under ``if TYPE_CHECKING:`` (what type checkers read); the
runtime table and ``__all__`` below it are generated from that list (``claude_sdk._exports``
says how and why, and why the first access may come from any thread: issue 26).
"""

from ._exports import install as _install
from ._version import __version__ as __version__


def _check_distribution() -> None:
    """Say so when another installed distribution also provides ``claude_sdk``.

    ``claude-sdk`` on PyPI is someone else's placeholder that installs the same import
    name; installed with ``claude-sdk-py``, one overwrites the other's files and
    uninstalling it breaks this one. Looked for only in an installed copy (a
    ``site-packages`` directory): one listing of it, no metadata parsing.
    """
    import os

    parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not parent.endswith(("site-packages", "dist-packages")):
        return  # a checkout or an editable install
    try:
        names = os.listdir(parent)
    except OSError:
        return
    others = sorted(
        n for n in names if n.endswith(".dist-info") and n.split("-", 1)[0].lower() == "claude_sdk"
    )
    if others:
        import warnings

        warnings.warn(
            f"another installed distribution also provides the claude_sdk package "
            f"({', '.join(others)}, probably the 'claude-sdk' placeholder); it can overwrite "
            "or remove this SDK's files: run `pip uninstall claude-sdk` and then "
            "`pip install --force-reinstall claude-sdk-py`",
            RuntimeWarning,
            stacklevel=3,
        )


_check_distribution()

# `typing` itself is not imported: it is not loaded at interpreter start, and this file is
# all `import claude_sdk` costs. Type checkers treat any name `TYPE_CHECKING` as theirs.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import history as history
    from . import humans as humans
    from . import policies as policies
    from . import stores as stores
    from . import sync as sync
    from . import telemetry as telemetry
    from . import testing as testing
    from . import tool_inputs as tool_inputs
    from . import tool_outputs as tool_outputs
    from . import tools as tools
    from . import transports as transports
    from . import wire as wire
    from .control import AccountInfo as AccountInfo
    from .control import AgentDefinition as AgentDefinition
    from .control import AgentInfo as AgentInfo
    from .control import CanUseToolRequest as CanUseToolRequest
    from .control import ControlCancelRequest as ControlCancelRequest
    from .control import ControlError as ControlError
    from .control import ControlRequest as ControlRequest
    from .control import ControlResponse as ControlResponse
    from .control import ControlSuccess as ControlSuccess
    from .control import HookCallbackRequest as HookCallbackRequest
    from .control import InitializeRequest as InitializeRequest
    from .control import InitializeResponse as InitializeResponse
    from .control import InterruptReceipt as InterruptReceipt
    from .control import InterruptResponse as InterruptResponse
    from .control import KeepAlive as KeepAlive
    from .control import McpServerStatus as McpServerStatus
    from .control import ModelInfo as ModelInfo
    from .control import ResumeConfirmation as ResumeConfirmation
    from .control import SteerReceipt as SteerReceipt
    from .control import UnknownControlRequest as UnknownControlRequest
    from .errors import BudgetExceededError as BudgetExceededError
    from .errors import ClaudeSDKError as ClaudeSDKError
    from .errors import CLINotFoundError as CLINotFoundError
    from .errors import ControlRequestError as ControlRequestError
    from .errors import ControlTimeoutError as ControlTimeoutError
    from .errors import DriftError as DriftError
    from .errors import InactivityTimeoutError as InactivityTimeoutError
    from .errors import InitializeTimeoutError as InitializeTimeoutError
    from .errors import LineTooLongError as LineTooLongError
    from .errors import MessageDecodeError as MessageDecodeError
    from .errors import OptionsError as OptionsError
    from .errors import ProcessError as ProcessError
    from .errors import PromptWithdrawnError as PromptWithdrawnError
    from .errors import QuestionNotPendingError as QuestionNotPendingError
    from .errors import RateLimitExceededError as RateLimitExceededError
    from .errors import ResultError as ResultError
    from .errors import SessionBusyError as SessionBusyError
    from .errors import SessionClosedError as SessionClosedError
    from .errors import SessionNotFoundError as SessionNotFoundError
    from .errors import SessionStoreError as SessionStoreError
    from .errors import StructuredOutputError as StructuredOutputError
    from .errors import TranscriptGapError as TranscriptGapError
    from .errors import UsageLimitError as UsageLimitError
    from .hooks import AsyncHookOutput as AsyncHookOutput
    from .hooks import HookContext as HookContext
    from .hooks import HookInput as HookInput
    from .hooks import HookMatcher as HookMatcher
    from .hooks import HookOutput as HookOutput
    from .hooks import HookRegistry as HookRegistry
    from .hooks import PermissionRequestOutput as PermissionRequestOutput
    from .hooks import PostToolUseInput as PostToolUseInput
    from .hooks import PostToolUseOutput as PostToolUseOutput
    from .hooks import PreSkillShellCommandInput as PreSkillShellCommandInput
    from .hooks import PreSkillShellCommandOutput as PreSkillShellCommandOutput
    from .hooks import PreToolUseInput as PreToolUseInput
    from .hooks import PreToolUseOutput as PreToolUseOutput
    from .hooks import SessionStartOutput as SessionStartOutput
    from .hooks import StopInput as StopInput
    from .hooks import StopOutput as StopOutput
    from .hooks import UserPromptSubmitInput as UserPromptSubmitInput
    from .hooks import UserPromptSubmitOutput as UserPromptSubmitOutput
    from .humans import PendingQuestion as PendingQuestion
    from .humans import answer as answer
    from .humans import pending_question as pending_question
    from .humans import suspend_for_a_person as suspend_for_a_person
    from .messages import APIMessage as APIMessage
    from .messages import AssistantMessage as AssistantMessage
    from .messages import ContentBlock as ContentBlock
    from .messages import DocumentBlock as DocumentBlock
    from .messages import ImageBlock as ImageBlock
    from .messages import InitMessage as InitMessage
    from .messages import Message as Message
    from .messages import ModelUsage as ModelUsage
    from .messages import RateLimitEvent as RateLimitEvent
    from .messages import RedactedThinkingBlock as RedactedThinkingBlock
    from .messages import ResultMessage as ResultMessage
    from .messages import ServerToolResultBlock as ServerToolResultBlock
    from .messages import ServerToolUseBlock as ServerToolUseBlock
    from .messages import SessionStateChangedMessage as SessionStateChangedMessage
    from .messages import StreamEvent as StreamEvent
    from .messages import SystemMessage as SystemMessage
    from .messages import TextBlock as TextBlock
    from .messages import ThinkingBlock as ThinkingBlock
    from .messages import ToolResultBlock as ToolResultBlock
    from .messages import ToolUseBlock as ToolUseBlock
    from .messages import UnknownBlock as UnknownBlock
    from .messages import UnknownMessage as UnknownMessage
    from .messages import Usage as Usage
    from .messages import UserMessage as UserMessage
    from .options import AskUserQuestionConfig as AskUserQuestionConfig
    from .options import ClaudeSDKWarning as ClaudeSDKWarning
    from .options import McpHttpServer as McpHttpServer
    from .options import McpSSEServer as McpSSEServer
    from .options import McpStdioServer as McpStdioServer
    from .options import Options as Options
    from .options import SystemPromptCustom as SystemPromptCustom
    from .options import SystemPromptFile as SystemPromptFile
    from .options import SystemPromptPreset as SystemPromptPreset
    from .options import ThinkingConfig as ThinkingConfig
    from .options import ToolConfig as ToolConfig
    from .options import ToolsPreset as ToolsPreset
    from .permissions import PermissionAllow as PermissionAllow
    from .permissions import PermissionDeny as PermissionDeny
    from .permissions import PermissionResult as PermissionResult
    from .permissions import PermissionSuspend as PermissionSuspend
    from .permissions import PermissionUpdate as PermissionUpdate
    from .permissions import ToolPermissionContext as ToolPermissionContext
    from .pool import PoolLimits as PoolLimits
    from .pool import PoolRecycle as PoolRecycle
    from .pool import PoolStats as PoolStats
    from .pool import SessionPool as SessionPool
    from .query import Reply as Reply
    from .query import ask as ask
    from .query import query as query
    from .query import text_deltas as text_deltas
    from .retry import RetryAttempt as RetryAttempt
    from .retry import RetryPolicy as RetryPolicy
    from .sandbox import SandboxFilesystemConfig as SandboxFilesystemConfig
    from .sandbox import SandboxIgnoreViolations as SandboxIgnoreViolations
    from .sandbox import SandboxNetworkConfig as SandboxNetworkConfig
    from .sandbox import SandboxSettings as SandboxSettings
    from .session import MessageStream as MessageStream
    from .session import Session as Session
    from .session import open_session as open_session
    from .signals import SignalStop as SignalStop
    from .signals import cancel_on_signals as cancel_on_signals
    from .steps import Step as Step
    from .steps import StepProgress as StepProgress
    from .steps import StepState as StepState
    from .steps import read_steps as read_steps
    from .steps import run_step as run_step
    from .steps import step_progress as step_progress
    from .stores._keys import session_id_for as session_id_for
    from .tools import SdkMcpServer as SdkMcpServer
    from .tools import SdkTool as SdkTool
    from .tools import ToolAnnotations as ToolAnnotations
    from .tools import ToolCancelled as ToolCancelled
    from .tools import ToolContext as ToolContext
    from .tools import ToolResult as ToolResult
    from .tools import create_sdk_mcp_server as create_sdk_mcp_server
    from .tools import tool as tool
    from .transports.base import Transport as Transport
    from .usage import AgentUsage as AgentUsage
    from .usage import TokenUsage as TokenUsage
    from .usage import UsageReport as UsageReport
    from .usage import UsageTracker as UsageTracker
    from .usage import usage_by_agent as usage_by_agent

# Generated from the imports above by tests/support/gen_exports.py: do not edit.
_LAZY: dict[str, str] = {
    "history": "",
    "humans": "",
    "policies": "",
    "stores": "",
    "sync": "",
    "telemetry": "",
    "testing": "",
    "tool_inputs": "",
    "tool_outputs": "",
    "tools": "",
    "transports": "",
    "wire": "",
    "AccountInfo": "control",
    "AgentDefinition": "control",
    "AgentInfo": "control",
    "CanUseToolRequest": "control",
    "ControlCancelRequest": "control",
    "ControlError": "control",
    "ControlRequest": "control",
    "ControlResponse": "control",
    "ControlSuccess": "control",
    "HookCallbackRequest": "control",
    "InitializeRequest": "control",
    "InitializeResponse": "control",
    "InterruptReceipt": "control",
    "InterruptResponse": "control",
    "KeepAlive": "control",
    "McpServerStatus": "control",
    "ModelInfo": "control",
    "ResumeConfirmation": "control",
    "SteerReceipt": "control",
    "UnknownControlRequest": "control",
    "BudgetExceededError": "errors",
    "ClaudeSDKError": "errors",
    "CLINotFoundError": "errors",
    "ControlRequestError": "errors",
    "ControlTimeoutError": "errors",
    "DriftError": "errors",
    "InactivityTimeoutError": "errors",
    "InitializeTimeoutError": "errors",
    "LineTooLongError": "errors",
    "MessageDecodeError": "errors",
    "OptionsError": "errors",
    "ProcessError": "errors",
    "PromptWithdrawnError": "errors",
    "QuestionNotPendingError": "errors",
    "RateLimitExceededError": "errors",
    "ResultError": "errors",
    "SessionBusyError": "errors",
    "SessionClosedError": "errors",
    "SessionNotFoundError": "errors",
    "SessionStoreError": "errors",
    "StructuredOutputError": "errors",
    "TranscriptGapError": "errors",
    "UsageLimitError": "errors",
    "AsyncHookOutput": "hooks",
    "HookContext": "hooks",
    "HookInput": "hooks",
    "HookMatcher": "hooks",
    "HookOutput": "hooks",
    "HookRegistry": "hooks",
    "PermissionRequestOutput": "hooks",
    "PostToolUseInput": "hooks",
    "PostToolUseOutput": "hooks",
    "PreSkillShellCommandInput": "hooks",
    "PreSkillShellCommandOutput": "hooks",
    "PreToolUseInput": "hooks",
    "PreToolUseOutput": "hooks",
    "SessionStartOutput": "hooks",
    "StopInput": "hooks",
    "StopOutput": "hooks",
    "UserPromptSubmitInput": "hooks",
    "UserPromptSubmitOutput": "hooks",
    "PendingQuestion": "humans",
    "answer": "humans",
    "pending_question": "humans",
    "suspend_for_a_person": "humans",
    "APIMessage": "messages",
    "AssistantMessage": "messages",
    "ContentBlock": "messages",
    "DocumentBlock": "messages",
    "ImageBlock": "messages",
    "InitMessage": "messages",
    "Message": "messages",
    "ModelUsage": "messages",
    "RateLimitEvent": "messages",
    "RedactedThinkingBlock": "messages",
    "ResultMessage": "messages",
    "ServerToolResultBlock": "messages",
    "ServerToolUseBlock": "messages",
    "SessionStateChangedMessage": "messages",
    "StreamEvent": "messages",
    "SystemMessage": "messages",
    "TextBlock": "messages",
    "ThinkingBlock": "messages",
    "ToolResultBlock": "messages",
    "ToolUseBlock": "messages",
    "UnknownBlock": "messages",
    "UnknownMessage": "messages",
    "Usage": "messages",
    "UserMessage": "messages",
    "AskUserQuestionConfig": "options",
    "ClaudeSDKWarning": "options",
    "McpHttpServer": "options",
    "McpSSEServer": "options",
    "McpStdioServer": "options",
    "Options": "options",
    "SystemPromptCustom": "options",
    "SystemPromptFile": "options",
    "SystemPromptPreset": "options",
    "ThinkingConfig": "options",
    "ToolConfig": "options",
    "ToolsPreset": "options",
    "PermissionAllow": "permissions",
    "PermissionDeny": "permissions",
    "PermissionResult": "permissions",
    "PermissionSuspend": "permissions",
    "PermissionUpdate": "permissions",
    "ToolPermissionContext": "permissions",
    "PoolLimits": "pool",
    "PoolRecycle": "pool",
    "PoolStats": "pool",
    "SessionPool": "pool",
    "Reply": "query",
    "ask": "query",
    "query": "query",
    "text_deltas": "query",
    "RetryAttempt": "retry",
    "RetryPolicy": "retry",
    "SandboxFilesystemConfig": "sandbox",
    "SandboxIgnoreViolations": "sandbox",
    "SandboxNetworkConfig": "sandbox",
    "SandboxSettings": "sandbox",
    "MessageStream": "session",
    "Session": "session",
    "open_session": "session",
    "SignalStop": "signals",
    "cancel_on_signals": "signals",
    "Step": "steps",
    "StepProgress": "steps",
    "StepState": "steps",
    "read_steps": "steps",
    "run_step": "steps",
    "step_progress": "steps",
    "session_id_for": "stores._keys",
    "SdkMcpServer": "tools",
    "SdkTool": "tools",
    "ToolAnnotations": "tools",
    "ToolCancelled": "tools",
    "ToolContext": "tools",
    "ToolResult": "tools",
    "create_sdk_mcp_server": "tools",
    "tool": "tools",
    "Transport": "transports.base",
    "AgentUsage": "usage",
    "TokenUsage": "usage",
    "UsageReport": "usage",
    "UsageTracker": "usage",
    "usage_by_agent": "usage",
}
__all__ = [
    "__version__",
    "history",
    "humans",
    "policies",
    "stores",
    "sync",
    "telemetry",
    "testing",
    "tool_inputs",
    "tool_outputs",
    "tools",
    "transports",
    "wire",
    "AccountInfo",
    "AgentDefinition",
    "AgentInfo",
    "CanUseToolRequest",
    "ControlCancelRequest",
    "ControlError",
    "ControlRequest",
    "ControlResponse",
    "ControlSuccess",
    "HookCallbackRequest",
    "InitializeRequest",
    "InitializeResponse",
    "InterruptReceipt",
    "InterruptResponse",
    "KeepAlive",
    "McpServerStatus",
    "ModelInfo",
    "ResumeConfirmation",
    "SteerReceipt",
    "UnknownControlRequest",
    "BudgetExceededError",
    "ClaudeSDKError",
    "CLINotFoundError",
    "ControlRequestError",
    "ControlTimeoutError",
    "DriftError",
    "InactivityTimeoutError",
    "InitializeTimeoutError",
    "LineTooLongError",
    "MessageDecodeError",
    "OptionsError",
    "ProcessError",
    "PromptWithdrawnError",
    "QuestionNotPendingError",
    "RateLimitExceededError",
    "ResultError",
    "SessionBusyError",
    "SessionClosedError",
    "SessionNotFoundError",
    "SessionStoreError",
    "StructuredOutputError",
    "TranscriptGapError",
    "UsageLimitError",
    "AsyncHookOutput",
    "HookContext",
    "HookInput",
    "HookMatcher",
    "HookOutput",
    "HookRegistry",
    "PermissionRequestOutput",
    "PostToolUseInput",
    "PostToolUseOutput",
    "PreSkillShellCommandInput",
    "PreSkillShellCommandOutput",
    "PreToolUseInput",
    "PreToolUseOutput",
    "SessionStartOutput",
    "StopInput",
    "StopOutput",
    "UserPromptSubmitInput",
    "UserPromptSubmitOutput",
    "PendingQuestion",
    "answer",
    "pending_question",
    "suspend_for_a_person",
    "APIMessage",
    "AssistantMessage",
    "ContentBlock",
    "DocumentBlock",
    "ImageBlock",
    "InitMessage",
    "Message",
    "ModelUsage",
    "RateLimitEvent",
    "RedactedThinkingBlock",
    "ResultMessage",
    "ServerToolResultBlock",
    "ServerToolUseBlock",
    "SessionStateChangedMessage",
    "StreamEvent",
    "SystemMessage",
    "TextBlock",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolUseBlock",
    "UnknownBlock",
    "UnknownMessage",
    "Usage",
    "UserMessage",
    "AskUserQuestionConfig",
    "ClaudeSDKWarning",
    "McpHttpServer",
    "McpSSEServer",
    "McpStdioServer",
    "Options",
    "SystemPromptCustom",
    "SystemPromptFile",
    "SystemPromptPreset",
    "ThinkingConfig",
    "ToolConfig",
    "ToolsPreset",
    "PermissionAllow",
    "PermissionDeny",
    "PermissionResult",
    "PermissionSuspend",
    "PermissionUpdate",
    "ToolPermissionContext",
    "PoolLimits",
    "PoolRecycle",
    "PoolStats",
    "SessionPool",
    "Reply",
    "ask",
    "query",
    "text_deltas",
    "RetryAttempt",
    "RetryPolicy",
    "SandboxFilesystemConfig",
    "SandboxIgnoreViolations",
    "SandboxNetworkConfig",
    "SandboxSettings",
    "MessageStream",
    "Session",
    "open_session",
    "SignalStop",
    "cancel_on_signals",
    "Step",
    "StepProgress",
    "StepState",
    "read_steps",
    "run_step",
    "step_progress",
    "session_id_for",
    "SdkMcpServer",
    "SdkTool",
    "ToolAnnotations",
    "ToolCancelled",
    "ToolContext",
    "ToolResult",
    "create_sdk_mcp_server",
    "tool",
    "Transport",
    "AgentUsage",
    "TokenUsage",
    "UsageReport",
    "UsageTracker",
    "usage_by_agent",
]
# End of the generated section.

_install(globals())

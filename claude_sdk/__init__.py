"""claude_sdk: a structured-concurrency Python SDK for the Claude Code CLI.

The public surface is re-exported here; modules whose names start with ``_`` are private.
Public modules of their own: ``claude_sdk.history`` (sessions on disk),
``claude_sdk.policies``, ``claude_sdk.tool_inputs``, ``claude_sdk.tool_outputs``,
``claude_sdk.testing``, ``claude_sdk.transports``, and ``claude_sdk.retry``,
``claude_sdk.usage`` and ``claude_sdk.steps``, whose names are also re-exported here.

Import time: ``import claude_sdk`` imports nothing but this file. Each public name is imported
from the module that defines it on first access (PEP 562 ``__getattr__``), then kept here:
``from claude_sdk import open_session, Options`` costs what the session needs, and a program
that only uses the errors never loads the models. Type checkers read the explicit re-exports
under ``if TYPE_CHECKING:``; ``_EXPORTS`` is the same table for the runtime (a test checks
that they agree, and that ``__all__`` lists exactly those names).

The first access may come from any thread (issue 26): a thread that asks for a name whose
module another thread is importing waits for that import (the import system's lock of each
module), and the package's imports form no cycle (``tests/test_import_graph.py``), so no
thread can be handed a half-imported module. The subpackages' lazy names work the same way.
"""

import sys

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
    from . import sync as sync
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
    from .errors import RateLimitExceededError as RateLimitExceededError
    from .errors import ResultError as ResultError
    from .errors import SessionBusyError as SessionBusyError
    from .errors import SessionClosedError as SessionClosedError
    from .errors import SessionNotFoundError as SessionNotFoundError
    from .errors import SessionStoreError as SessionStoreError
    from .errors import StructuredOutputError as StructuredOutputError
    from .errors import TranscriptGapError as TranscriptGapError
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
    from .permissions import PermissionUpdate as PermissionUpdate
    from .permissions import ToolPermissionContext as ToolPermissionContext
    from .pool import PoolLimits as PoolLimits
    from .pool import PoolStats as PoolStats
    from .pool import SessionPool as SessionPool
    from .query import Reply as Reply
    from .query import ask as ask
    from .query import query as query
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
    from .usage import AgentUsage as AgentUsage
    from .usage import TokenUsage as TokenUsage
    from .usage import UsageReport as UsageReport
    from .usage import UsageTracker as UsageTracker
    from .usage import usage_by_agent as usage_by_agent

#: Public submodules, imported on first access.
_SUBMODULES = frozenset({"sync", "wire"})

#: Every other public name, by the submodule that defines it.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "control": (
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
        "UnknownControlRequest",
    ),
    "errors": (
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
        "RateLimitExceededError",
        "ResultError",
        "SessionClosedError",
        "SessionNotFoundError",
        "PromptWithdrawnError",
        "SessionStoreError",
        "TranscriptGapError",
        "SessionBusyError",
        "StructuredOutputError",
    ),
    "hooks": (
        "AsyncHookOutput",
        "HookContext",
        "HookInput",
        "HookMatcher",
        "HookOutput",
        "HookRegistry",
        "PermissionRequestOutput",
        "PostToolUseInput",
        "PostToolUseOutput",
        "PreToolUseInput",
        "PreToolUseOutput",
        "PreSkillShellCommandInput",
        "PreSkillShellCommandOutput",
        "SessionStartOutput",
        "StopInput",
        "StopOutput",
        "UserPromptSubmitInput",
        "UserPromptSubmitOutput",
    ),
    "messages": (
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
    ),
    "options": (
        "ClaudeSDKWarning",
        "McpHttpServer",
        "McpSSEServer",
        "McpStdioServer",
        "Options",
        "SystemPromptCustom",
        "SystemPromptFile",
        "SystemPromptPreset",
        "AskUserQuestionConfig",
        "ThinkingConfig",
        "ToolConfig",
        "ToolsPreset",
    ),
    "sandbox": (
        "SandboxSettings",
        "SandboxNetworkConfig",
        "SandboxFilesystemConfig",
        "SandboxIgnoreViolations",
    ),
    "permissions": (
        "PermissionAllow",
        "PermissionDeny",
        "PermissionResult",
        "PermissionUpdate",
        "ToolPermissionContext",
    ),
    "pool": (
        "PoolLimits",
        "PoolStats",
        "SessionPool",
    ),
    "signals": (
        "cancel_on_signals",
        "SignalStop",
    ),
    "steps": (
        "Step",
        "StepProgress",
        "StepState",
        "read_steps",
        "run_step",
        "step_progress",
    ),
    "retry": (
        "RetryAttempt",
        "RetryPolicy",
    ),
    "usage": (
        "AgentUsage",
        "TokenUsage",
        "UsageReport",
        "UsageTracker",
        "usage_by_agent",
    ),
    "query": (
        "Reply",
        "ask",
        "query",
    ),
    "session": (
        "MessageStream",
        "Session",
        "open_session",
    ),
    "stores._keys": ("session_id_for",),
    "tools": (
        "SdkMcpServer",
        "SdkTool",
        "ToolAnnotations",
        "ToolCancelled",
        "ToolContext",
        "ToolResult",
        "create_sdk_mcp_server",
        "tool",
    ),
}

#: Public name -> the submodule that defines it.
_LAZY: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = [
    "__version__",
    "wire",
    "sync",
    # sessions
    "open_session",
    "Session",
    "MessageStream",
    "query",
    "ask",
    "Reply",
    "SessionPool",
    "cancel_on_signals",
    "SignalStop",
    "read_steps",
    "run_step",
    "step_progress",
    "Step",
    "StepState",
    "StepProgress",
    "RetryPolicy",
    "RetryAttempt",
    "usage_by_agent",
    "UsageReport",
    "UsageTracker",
    "AgentUsage",
    "TokenUsage",
    "PoolStats",
    "PoolLimits",
    "Options",
    "SystemPromptPreset",
    "SystemPromptFile",
    "SystemPromptCustom",
    "ThinkingConfig",
    "ToolConfig",
    "AskUserQuestionConfig",
    "ToolsPreset",
    "McpStdioServer",
    "McpSSEServer",
    "McpHttpServer",
    "ClaudeSDKWarning",
    "SandboxSettings",
    "SandboxNetworkConfig",
    "SandboxFilesystemConfig",
    "SandboxIgnoreViolations",
    # messages
    "Message",
    "AssistantMessage",
    "UserMessage",
    "ResultMessage",
    "SystemMessage",
    "InitMessage",
    "SessionStateChangedMessage",
    "StreamEvent",
    "RateLimitEvent",
    "UnknownMessage",
    "APIMessage",
    "Usage",
    "ModelUsage",
    # blocks
    "ContentBlock",
    "TextBlock",
    "ThinkingBlock",
    "RedactedThinkingBlock",
    "ToolUseBlock",
    "ToolResultBlock",
    "ServerToolUseBlock",
    "ServerToolResultBlock",
    "ImageBlock",
    "DocumentBlock",
    "UnknownBlock",
    # control
    "ControlRequest",
    "ControlResponse",
    "ControlSuccess",
    "ControlError",
    "ControlCancelRequest",
    "KeepAlive",
    "InitializeRequest",
    "InitializeResponse",
    "InterruptReceipt",
    "InterruptResponse",
    "ResumeConfirmation",
    "CanUseToolRequest",
    "HookCallbackRequest",
    "UnknownControlRequest",
    "AgentDefinition",
    "ModelInfo",
    "AgentInfo",
    "AccountInfo",
    "McpServerStatus",
    # in-process tools
    "tool",
    "create_sdk_mcp_server",
    "SdkMcpServer",
    "SdkTool",
    "ToolResult",
    "ToolContext",
    "ToolCancelled",
    "ToolAnnotations",
    # hooks and permissions
    "HookInput",
    "PreToolUseInput",
    "PostToolUseInput",
    "UserPromptSubmitInput",
    "StopInput",
    "HookOutput",
    "AsyncHookOutput",
    "PreToolUseOutput",
    "PreSkillShellCommandInput",
    "PreSkillShellCommandOutput",
    "PostToolUseOutput",
    "UserPromptSubmitOutput",
    "SessionStartOutput",
    "StopOutput",
    "PermissionRequestOutput",
    "HookMatcher",
    "HookRegistry",
    "HookContext",
    "ToolPermissionContext",
    "PermissionAllow",
    "PermissionDeny",
    "PermissionResult",
    "PermissionUpdate",
    # errors
    "ClaudeSDKError",
    "CLINotFoundError",
    "OptionsError",
    "ProcessError",
    "MessageDecodeError",
    "DriftError",
    "LineTooLongError",
    "ControlTimeoutError",
    "InitializeTimeoutError",
    "InactivityTimeoutError",
    "ControlRequestError",
    "SessionClosedError",
    "SessionNotFoundError",
    "PromptWithdrawnError",
    "BudgetExceededError",
    "RateLimitExceededError",
    "SessionStoreError",
    "TranscriptGapError",
    "SessionBusyError",
    "ResultError",
    "StructuredOutputError",
    # sessions anywhere
    "session_id_for",
]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if not TYPE_CHECKING:  # hidden from type checkers: a typo must stay an error, not `Any`

    def __getattr__(name: str) -> object:
        """Import the submodule that defines ``name`` and keep the value (PEP 562)."""
        # `__import__`, not `importlib.import_module`: only the former is seen by
        # `python -X importtime`, which would otherwise hide the submodule's own cost.
        if name in _SUBMODULES:
            __import__(f"{__name__}.{name}")  # which binds it on this package
            return sys.modules[f"{__name__}.{name}"]
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        __import__(f"{__name__}.{module}")
        value = getattr(sys.modules[f"{__name__}.{module}"], name)
        globals()[name] = value
        return value

    class _Package(type(sys)):
        """The module type of this package: a public name is never replaced by the submodule
        of the same name (``claude_sdk.query`` is the function, not ``claude_sdk/query.py``).

        Importing a submodule binds it on its package (``setattr``); the eager re-exports
        used to bind the function again afterwards, the lazy ones cannot.
        """

        def __setattr__(self, name: str, value: object) -> None:
            if _LAZY.get(name) == name and isinstance(value, type(sys)):
                return
            super().__setattr__(name, value)

        def __reduce__(self) -> tuple[object, tuple[str]]:
            # Pickled by name, as a plain module is by cloudpickle (Ray, Dask, ...): a function
            # shipped by value that uses `claude_sdk` imports it again on the other side.
            from importlib import import_module

            return import_module, (self.__name__,)

    sys.modules[__name__].__class__ = _Package

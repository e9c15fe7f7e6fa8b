"""claude_sdk: a structured-concurrency Python SDK for the Claude Code CLI.

The public surface is re-exported here; modules whose names start with ``_`` are private.
Public modules not imported here (so that ``import claude_sdk`` stays light):
``claude_sdk.history`` (sessions on disk), ``claude_sdk.policies``, ``claude_sdk.tool_inputs``,
``claude_sdk.testing``, ``claude_sdk.transports``.
"""

from . import sync as sync
from . import wire as wire
from ._version import __version__ as __version__
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
from .control import InterruptResponse as InterruptResponse
from .control import KeepAlive as KeepAlive
from .control import McpServerStatus as McpServerStatus
from .control import ModelInfo as ModelInfo
from .control import UnknownControlRequest as UnknownControlRequest
from .errors import ClaudeSDKError as ClaudeSDKError
from .errors import CLINotFoundError as CLINotFoundError
from .errors import ControlRequestError as ControlRequestError
from .errors import ControlTimeoutError as ControlTimeoutError
from .errors import DriftError as DriftError
from .errors import InactivityTimeoutError as InactivityTimeoutError
from .errors import InitializeTimeoutError as InitializeTimeoutError
from .errors import LineTooLongError as LineTooLongError
from .errors import MessageDecodeError as MessageDecodeError
from .errors import ProcessError as ProcessError
from .errors import ResultError as ResultError
from .errors import SessionClosedError as SessionClosedError
from .errors import SessionNotFoundError as SessionNotFoundError
from .hooks import AsyncHookOutput as AsyncHookOutput
from .hooks import HookContext as HookContext
from .hooks import HookInput as HookInput
from .hooks import HookMatcher as HookMatcher
from .hooks import HookOutput as HookOutput
from .hooks import HookRegistry as HookRegistry
from .hooks import PermissionRequestOutput as PermissionRequestOutput
from .hooks import PostToolUseInput as PostToolUseInput
from .hooks import PostToolUseOutput as PostToolUseOutput
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
from .options import ClaudeSDKWarning as ClaudeSDKWarning
from .options import McpHttpServer as McpHttpServer
from .options import McpSSEServer as McpSSEServer
from .options import McpStdioServer as McpStdioServer
from .options import Options as Options
from .options import SystemPromptCustom as SystemPromptCustom
from .options import SystemPromptFile as SystemPromptFile
from .options import SystemPromptPreset as SystemPromptPreset
from .options import ThinkingConfig as ThinkingConfig
from .options import ToolsPreset as ToolsPreset
from .permissions import PermissionAllow as PermissionAllow
from .permissions import PermissionDeny as PermissionDeny
from .permissions import PermissionResult as PermissionResult
from .permissions import PermissionUpdate as PermissionUpdate
from .permissions import ToolPermissionContext as ToolPermissionContext
from .pool import PoolStats as PoolStats
from .pool import SessionPool as SessionPool
from .query import Reply as Reply
from .query import ask as ask
from .query import query as query
from .session import MessageStream as MessageStream
from .session import Session as Session
from .session import open_session as open_session
from .tools import SdkMcpServer as SdkMcpServer
from .tools import SdkTool as SdkTool
from .tools import ToolAnnotations as ToolAnnotations
from .tools import ToolContext as ToolContext
from .tools import ToolResult as ToolResult
from .tools import create_sdk_mcp_server as create_sdk_mcp_server
from .tools import tool as tool

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
    "PoolStats",
    "Options",
    "SystemPromptPreset",
    "SystemPromptFile",
    "SystemPromptCustom",
    "ThinkingConfig",
    "ToolsPreset",
    "McpStdioServer",
    "McpSSEServer",
    "McpHttpServer",
    "ClaudeSDKWarning",
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
    "InterruptResponse",
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
    "ResultError",
]

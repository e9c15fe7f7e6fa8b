"""Typed views of the results of Claude Code's built-in tools.

The CLI reports what a tool produced, as a JSON value, in two places: the ``tool_use_result``
of the user message that carries the ``tool_result`` block (`UserMessage.typed_output`), and
the ``tool_response`` of a ``PostToolUse`` hook (`PostToolUseInput.typed_output`).
`typed_output` gives that value as frozen attrs values for the tools this module knows
(`TOOL_OUTPUTS`), or None for any other tool.

Shapes follow the output schemas in the CLI's own code (CLI 2.1.330 and 2.1.331 declare the
same ones) and the official TypeScript SDK's ``sdk-tools.d.ts``, whose 44 output types all have
a view here. Where the two differ the CLI wins: it writes fields the ``.d.ts`` does not list
(`AgentCompletedOutput.can_continue_agent` and the ``harness*`` counts, seen in real
recordings; `BashOutput.bash_edit_diff`; `EditOutput.staged_wording`; the question kinds of
`AskUserQuestionOutput`; ...), and each such field says so.

Most outputs are one object (one class). Some are not:

* a union of classes told apart by a tag: `AgentOutput` (``status``), `ReadOutput`
  (``type``), `ProjectsOutput` (``method``); a tag the union does not list does not fit;
* a union told apart by keys: `ArtifactOutput` (each action's result has its own key);
* a list: `ListMcpResourcesOutput` and `RefreshMcpToolsOutput` are lists of objects;
* an MCP tool's result (``mcp__<server>__<tool>``): `McpOutput`, the tool's text (a string),
  its content blocks (a list of `McpContentBlock`) or its structured content (a dict).

Contract (the same as ``claude_sdk.tool_inputs``):

* ``typed_output(name, result)`` never raises. It returns None for a tool it does not know,
  and for a result that does not fit: a required key missing, a value of the wrong JSON type,
  or the error text the CLI reports instead of a result when a tool fails or is denied (a
  string such as ``"Error: ..."``, which fits no built-in tool's output). A value outside a
  ``Literal`` still fits (a newer CLI may add values).
* Keys the classes do not know are kept in ``extra`` (excluded from equality), so
  ``wire.to_dict(typed_output(name, r)) == r``: the view loses nothing. Field names are
  snake_case; the wire keys that differ (most of them: the CLI writes its results in
  camelCase) are listed in `WIRE_KEYS`, which the codec reads too.
* The view is decoded from a copy of the result's objects; lists of plain values inside it
  are shared with the result. Optional fields the result did not carry read as None.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any

from .tool_inputs import (
    WIRE_KEYS as _INPUT_WIRE_KEYS,
)
from .tool_inputs import (
    _lookup,
    _Views,
    is_mcp_tool,
)

__all__ = [
    # agents
    "TextContent",
    "ServerToolUsage",
    "CacheCreationUsage",
    "AgentUsage",
    "AgentToolStats",
    "AgentHandbackReport",
    "AgentCompletedOutput",
    "AgentAsyncLaunchedOutput",
    "AgentRemoteLaunchedOutput",
    "AgentOutput",
    # shell and background tasks
    "GitCommit",
    "GitPush",
    "GitBranchUpdate",
    "GitPullRequest",
    "GitOperation",
    "BashEditedFile",
    "BashEditDiff",
    "BashOutput",
    "TaskStopOutput",
    "MonitorOutput",
    # files
    "ReadTextFile",
    "ReadTextOutput",
    "ImageDimensions",
    "ReadImageFile",
    "ReadImageOutput",
    "ReadNotebookFile",
    "ReadNotebookOutput",
    "ReadPdfFile",
    "ReadPdfOutput",
    "ReadPartsFile",
    "PdfPageImage",
    "ReadPartsOutput",
    "ArtifactReadRef",
    "ReadOutput",
    "PatchHunk",
    "GitDiff",
    "EditOutput",
    "WriteOutput",
    "NotebookEditOutput",
    # search
    "GlobOutput",
    "GrepOutput",
    # web
    "WebFetchOutput",
    "WebSearchHit",
    "WebSearchResults",
    "WebSearchOutput",
    # planning, questions, tasks, worktrees
    "TodoWriteOutput",
    "QuestionAnnotation",
    "AskUserQuestionOutput",
    "EnterPlanModeOutput",
    "ExitPlanModeOutput",
    "EnterWorktreeOutput",
    "ExitWorktreeOutput",
    "CreatedTask",
    "TaskCreateOutput",
    "TaskDetails",
    "TaskGetOutput",
    "TaskStatusChange",
    "TaskUpdateOutput",
    "TaskSummary",
    "TaskListOutput",
    # scheduling
    "OneShotJob",
    "CronCreateOutput",
    "CronDeleteOutput",
    "CronJob",
    "CronListOutput",
    "ScheduleWakeupOutput",
    # MCP
    "McpResource",
    "ListMcpResourcesOutput",
    "McpToolsRefresh",
    "RefreshMcpToolsOutput",
    "McpResourceEntry",
    "ReadMcpResourceDirOutput",
    "McpResourceContent",
    "ReadMcpResourceOutput",
    "McpContentBlock",
    "McpStructuredOutput",
    "McpOutput",
    # reviews, feedback, goals, skills, notifications
    "ReportFindingsOutput",
    "SendFeedbackOutput",
    "ProposeGoalOutput",
    "ProposeSkillsOutput",
    "PushNotificationOutput",
    "Notification",
    "ReadNotificationsOutput",
    "ShowOnboardingRolePickerOutput",
    "OfferChromeSetupOutput",
    # workflows, triggers, claude.ai services
    "WorkflowOutput",
    "RemoteTriggerOutput",
    "ClaudeDesignOutput",
    "ProjectDoc",
    "ProjectFile",
    "ProjectSyncSource",
    "ProjectKnowledge",
    "ProjectInfoOutput",
    "ProjectReadOutput",
    "ProjectSearchHit",
    "ProjectSearchImage",
    "ProjectSearchOutput",
    "ProjectWriteOutput",
    "ProjectDeleteOutput",
    "ProjectMemoryFile",
    "ProjectMemoryListOutput",
    "ProjectMemoryReadOutput",
    "ProjectsOutput",
    "ArtifactStored",
    "ArtifactPublishOutput",
    "ArtifactListing",
    "ArtifactListOutput",
    "ArtifactReadResult",
    "ArtifactReadOutput",
    "ArtifactWatch",
    "ArtifactWatchOutput",
    "ArtifactUnwatch",
    "ArtifactUnwatchOutput",
    "ArtifactLiveWatch",
    "ArtifactDurableWatch",
    "ArtifactStoppedWatch",
    "ArtifactWatchArm",
    "ArtifactStatusOutput",
    "ArtifactWritten",
    "ArtifactAsset",
    "ArtifactAssetUploadOutput",
    "ArtifactAssetUploaded",
    "ArtifactAssetNotUploaded",
    "ArtifactAssetUploads",
    "ArtifactAssetUploadsOutput",
    "ArtifactStoredAsset",
    "ArtifactAssetUsage",
    "ArtifactAssetList",
    "ArtifactAssetListOutput",
    "ArtifactAssetRead",
    "ArtifactAssetReadOutput",
    "ArtifactAssetDelete",
    "ArtifactAssetDeleteOutput",
    "ArtifactPin",
    "ArtifactPinOutput",
    "ArtifactOutput",
    # lookup
    "ToolOutput",
    "TOOL_OUTPUTS",
    "WIRE_KEYS",
    "typed_output",
]

# -- generated by tools/model/generate.py: begin --
from ._tool_outputs import (
    TOOL_OUTPUTS,
    WIRE_KEYS,
    AgentAsyncLaunchedOutput,
    AgentCompletedOutput,
    AgentHandbackReport,
    AgentOutput,
    AgentRemoteLaunchedOutput,
    AgentToolStats,
    AgentUsage,
    ArtifactAsset,
    ArtifactAssetDelete,
    ArtifactAssetDeleteOutput,
    ArtifactAssetList,
    ArtifactAssetListOutput,
    ArtifactAssetNotUploaded,
    ArtifactAssetRead,
    ArtifactAssetReadOutput,
    ArtifactAssetUploaded,
    ArtifactAssetUploadOutput,
    ArtifactAssetUploads,
    ArtifactAssetUploadsOutput,
    ArtifactAssetUsage,
    ArtifactDurableWatch,
    ArtifactListing,
    ArtifactListOutput,
    ArtifactLiveWatch,
    ArtifactOutput,
    ArtifactPin,
    ArtifactPinOutput,
    ArtifactPublishOutput,
    ArtifactReadOutput,
    ArtifactReadRef,
    ArtifactReadResult,
    ArtifactStatusOutput,
    ArtifactStoppedWatch,
    ArtifactStored,
    ArtifactStoredAsset,
    ArtifactUnwatch,
    ArtifactUnwatchOutput,
    ArtifactWatch,
    ArtifactWatchArm,
    ArtifactWatchOutput,
    ArtifactWritten,
    AskUserQuestionOutput,
    BashEditDiff,
    BashEditedFile,
    BashOutput,
    CacheCreationUsage,
    ClaudeDesignOutput,
    CreatedTask,
    CronCreateOutput,
    CronDeleteOutput,
    CronJob,
    CronListOutput,
    EditOutput,
    EnterPlanModeOutput,
    EnterWorktreeOutput,
    ExitPlanModeOutput,
    ExitWorktreeOutput,
    GitBranchUpdate,
    GitCommit,
    GitDiff,
    GitOperation,
    GitPullRequest,
    GitPush,
    GlobOutput,
    GrepOutput,
    ImageDimensions,
    ListMcpResourcesOutput,
    McpContentBlock,
    McpOutput,
    McpResource,
    McpResourceContent,
    McpResourceEntry,
    McpStructuredOutput,
    McpToolsRefresh,
    MonitorOutput,
    NotebookEditOutput,
    Notification,
    OfferChromeSetupOutput,
    OneShotJob,
    PatchHunk,
    PdfPageImage,
    ProjectDeleteOutput,
    ProjectDoc,
    ProjectFile,
    ProjectInfoOutput,
    ProjectKnowledge,
    ProjectMemoryFile,
    ProjectMemoryListOutput,
    ProjectMemoryReadOutput,
    ProjectReadOutput,
    ProjectSearchHit,
    ProjectSearchImage,
    ProjectSearchOutput,
    ProjectsOutput,
    ProjectSyncSource,
    ProjectWriteOutput,
    ProposeGoalOutput,
    ProposeSkillsOutput,
    PushNotificationOutput,
    QuestionAnnotation,
    ReadImageFile,
    ReadImageOutput,
    ReadMcpResourceDirOutput,
    ReadMcpResourceOutput,
    ReadNotebookFile,
    ReadNotebookOutput,
    ReadNotificationsOutput,
    ReadOutput,
    ReadPartsFile,
    ReadPartsOutput,
    ReadPdfFile,
    ReadPdfOutput,
    ReadTextFile,
    ReadTextOutput,
    RefreshMcpToolsOutput,
    RemoteTriggerOutput,
    ReportFindingsOutput,
    ScheduleWakeupOutput,
    SendFeedbackOutput,
    ServerToolUsage,
    ShowOnboardingRolePickerOutput,
    TaskCreateOutput,
    TaskDetails,
    TaskGetOutput,
    TaskListOutput,
    TaskStatusChange,
    TaskStopOutput,
    TaskSummary,
    TaskUpdateOutput,
    TextContent,
    TodoWriteOutput,
    ToolOutput,
    WebFetchOutput,
    WebSearchHit,
    WebSearchOutput,
    WebSearchResults,
    WorkflowOutput,
    WriteOutput,
)

# -- generated: end --


#: The unions dispatched on a tag: member classes -> (tag key, tag value -> class).
_TAGGED: dict[frozenset[type], tuple[str, Mapping[str, type]]] = {
    frozenset(typing.get_args(AgentOutput)): (
        "status",
        {
            "completed": AgentCompletedOutput,
            "async_launched": AgentAsyncLaunchedOutput,
            "remote_launched": AgentRemoteLaunchedOutput,
        },
    ),
    frozenset(typing.get_args(ReadOutput)): (
        "type",
        {
            "text": ReadTextOutput,
            "image": ReadImageOutput,
            "notebook": ReadNotebookOutput,
            "pdf": ReadPdfOutput,
            "parts": ReadPartsOutput,
        },
    ),
    frozenset(typing.get_args(ProjectsOutput)): (
        "method",
        {
            "project_info": ProjectInfoOutput,
            "project_read": ProjectReadOutput,
            "project_search": ProjectSearchOutput,
            "project_write": ProjectWriteOutput,
            "project_delete": ProjectDeleteOutput,
            "project_memory_list": ProjectMemoryListOutput,
            "project_memory_read": ProjectMemoryReadOutput,
        },
    ),
}

_VIEWS = _Views({**_INPUT_WIRE_KEYS, **WIRE_KEYS}, _TAGGED)


def typed_output(tool_name: str, tool_result: Any) -> ToolOutput | None:
    """The typed view of a built-in tool's result (see the module docstring).

    Args:
        tool_name: the tool's name as the CLI sends it (``"Bash"``, ``"Task"``,
            ``"mcp__server__tool"``, ...).
        tool_result: the result the CLI reported (``tool_use_result``, or a ``PostToolUse``
            hook's ``tool_response``).

    Returns:
        A value of ``TOOL_OUTPUTS[tool_name]`` (`McpOutput` for an MCP tool), or None when
        the tool is not a known built-in tool or the result does not fit. Never raises.
    """
    tp = _lookup(TOOL_OUTPUTS, tool_name) or (McpOutput if is_mcp_tool(tool_name) else None)
    if tp is None:
        return None
    if isinstance(tool_result, Mapping) and tool_result.__class__ is not dict:
        tool_result = dict(tool_result)
    if not _VIEWS.fits(tool_result, tp):
        return None
    return typing.cast("ToolOutput", _VIEWS.build(tool_result, tp))

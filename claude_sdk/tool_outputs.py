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

import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

import attrs

from ._base import WireModel
from .tool_inputs import (
    WIRE_KEYS as _INPUT_WIRE_KEYS,
)
from .tool_inputs import (
    Finding,
    TodoItem,
    UserQuestion,
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

_JSON = dict[str, Any]


# ======================================================================================
# Agents


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TextContent(WireModel):
    """A text block of an agent's result.

    Attributes:
        text: the text.
        type: always ``text``.
        citations: the block's citations, if any.
    """

    text: str
    type: Literal["text"] = "text"
    citations: list[Any] | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ServerToolUsage(WireModel):
    """Server tool requests counted in an `AgentUsage`.

    Attributes:
        web_search_requests: web searches.
        web_fetch_requests: web fetches.
    """

    web_search_requests: int
    web_fetch_requests: int


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class CacheCreationUsage(WireModel):
    """Cache writes counted in an `AgentUsage`, by lifetime.

    Attributes:
        ephemeral_1h_input_tokens: tokens written for one hour.
        ephemeral_5m_input_tokens: tokens written for five minutes.
    """

    ephemeral_1h_input_tokens: int
    ephemeral_5m_input_tokens: int


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class AgentUsage(WireModel):
    """The token usage of a subagent's last response (the Messages API's ``usage``).

    Attributes:
        input_tokens: input tokens.
        output_tokens: output tokens.
        cache_creation_input_tokens: tokens written to the cache.
        cache_read_input_tokens: tokens read from the cache.
        server_tool_use: server tool requests.
        service_tier: the service tier.
        cache_creation: cache writes by lifetime.
        inference_geo: where inference ran.
        speed: the speed mode.
        iterations: per-iteration usage.
        output_tokens_details: e.g. ``{"thinking_tokens": 0}``.
        fallback_credit: fallback credit, if any.
    """

    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    server_tool_use: ServerToolUsage | None = None
    service_tier: str | None = None
    cache_creation: CacheCreationUsage | None = None
    inference_geo: str | None = None
    speed: str | None = None
    iterations: Any = None
    output_tokens_details: _JSON | None = None
    fallback_credit: Any = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class AgentToolStats(WireModel):
    """What tools a subagent used (``toolStats``).

    Attributes:
        read_count: ``Read`` calls (``readCount``).
        search_count: ``Grep`` and ``Glob`` calls (``searchCount``).
        bash_count: ``Bash`` calls (``bashCount``).
        edit_file_count: file edits (``editFileCount``).
        lines_added: lines the edits added (``linesAdded``).
        lines_removed: lines the edits removed (``linesRemoved``).
        other_tool_count: other tool calls (``otherToolCount``).
        frame_count: frames (``frameCount``).
    """

    read_count: int
    search_count: int
    bash_count: int
    edit_file_count: int
    lines_added: int
    lines_removed: int
    other_tool_count: int
    frame_count: int | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class AgentHandbackReport(WireModel):
    """The report a subagent handed back (``handbackReport``; CLI only).

    Attributes:
        text: the report.
        warning: a warning about it.
        tool_use_id: the subagent's own ``SubagentHandback`` call (``toolUseId``).
    """

    text: str
    warning: str | None = None
    tool_use_id: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class AgentCompletedOutput(WireModel):
    """Result of the ``Agent`` tool (``Task`` in older CLIs) when the subagent finished.

    Attributes:
        agent_id: the subagent (``agentId``).
        content: its final text blocks.
        total_tool_use_count: its tool calls (``totalToolUseCount``).
        total_duration_ms: how long it ran (``totalDurationMs``).
        total_tokens: the tokens it used (``totalTokens``).
        usage: the token usage of its last response.
        prompt: the task it was given.
        status: always ``completed``.
        agent_type: its kind, e.g. ``general-purpose`` (``agentType``).
        resolved_model: the model it ran on (``resolvedModel``).
        models_used: the models in order, when it changed model (``modelsUsed``).
        tools_used: the tools it used (``toolsUsed``).
        tool_stats: counts of its tool calls (``toolStats``).
        worktree_path: its git worktree (``worktreePath``).
        worktree_branch: that worktree's branch (``worktreeBranch``).
        can_continue_agent: it can be sent more work (``canContinueAgent``; CLI only).
        harness_note_count: leading content blocks the CLI wrote (``harnessNoteCount``;
            CLI only, internal).
        harness_tail_count: trailing content blocks the CLI wrote (``harnessTailCount``;
            CLI only, internal).
        harness_section_hash: a fingerprint of those blocks (``harnessSectionHash``; CLI
            only, internal).
        handback: ``send``, ``flagged`` or ``withheld`` (CLI only).
        handback_report: the report handed back (``handbackReport``; CLI only).
        in_place: ``{vcs, branch?}`` when it worked in place (``inPlace``; CLI only).
        task_calls: its task-list calls, ``[{name, input, result}]`` (``taskCalls``; CLI
            only).
    """

    agent_id: str
    content: list[TextContent]
    total_tool_use_count: int
    total_duration_ms: float
    total_tokens: int
    usage: AgentUsage
    prompt: str
    status: Literal["completed"] = "completed"
    agent_type: str | None = None
    resolved_model: str | None = None
    models_used: list[str] | None = None
    tools_used: list[str] | None = None
    tool_stats: AgentToolStats | None = None
    worktree_path: str | None = None
    worktree_branch: str | None = None
    can_continue_agent: bool | None = None
    harness_note_count: int | None = None
    harness_tail_count: int | None = None
    harness_section_hash: str | None = None
    handback: Literal["send", "flagged", "withheld"] | None = None
    handback_report: AgentHandbackReport | None = None
    in_place: _JSON | None = None
    task_calls: list[_JSON] | None = None

    @property
    def text(self) -> str:
        """The text of the content blocks, joined."""
        return "".join(block.text for block in self.content)


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class AgentAsyncLaunchedOutput(WireModel):
    """Result of the ``Agent`` tool when the subagent runs in the background.

    Attributes:
        agent_id: the subagent (``agentId``).
        description: the task's description.
        prompt: the task.
        output_file: the file its progress is written to (``outputFile``).
        status: always ``async_launched``.
        is_async: always true when present (``isAsync``).
        resolved_model: its model when it went to the background (``resolvedModel``).
        models_used: the models before that, in order (``modelsUsed``).
        can_read_output_file: the caller has the tools to read `output_file`
            (``canReadOutputFile``).
        can_continue_agent: it can be sent more work (``canContinueAgent``; CLI only).
        waits_at_permission_prompt: it stops at permission prompts
            (``waitsAtPermissionPrompt``; CLI only).
        shares_cwd: it works in the caller's directory (``sharesCwd``; CLI only).
    """

    agent_id: str
    description: str
    prompt: str
    output_file: str
    status: Literal["async_launched"] = "async_launched"
    is_async: bool | None = None
    resolved_model: str | None = None
    models_used: list[str] | None = None
    can_read_output_file: bool | None = None
    can_continue_agent: bool | None = None
    waits_at_permission_prompt: bool | None = None
    shares_cwd: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class AgentRemoteLaunchedOutput(WireModel):
    """Result of the ``Agent`` tool when the subagent was launched in the cloud.

    Attributes:
        task_id: the remote task (``taskId``).
        session_url: the cloud session's URL (``sessionUrl``).
        description: the task's description.
        prompt: the task.
        output_file: the file its progress is written to (``outputFile``).
        status: always ``remote_launched``.
    """

    task_id: str
    session_url: str
    description: str
    prompt: str
    output_file: str
    status: Literal["remote_launched"] = "remote_launched"


#: The result of the ``Agent`` tool, by ``status``.
AgentOutput: TypeAlias = AgentCompletedOutput | AgentAsyncLaunchedOutput | AgentRemoteLaunchedOutput


# ======================================================================================
# Shell and background tasks


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class GitCommit(WireModel):
    """A commit a command made (`GitOperation.commit`).

    Attributes:
        sha: the commit.
        kind: ``committed``, ``amended`` or ``cherry-picked``.
        branch: the branch.
    """

    sha: str
    kind: Literal["committed", "amended", "cherry-picked"]
    branch: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class GitPush(WireModel):
    """A push a command made (`GitOperation.push`).

    Attributes:
        branch: the branch pushed.
    """

    branch: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class GitBranchUpdate(WireModel):
    """A merge or rebase a command made (`GitOperation.branch`).

    Attributes:
        ref: the branch.
        action: ``merged`` or ``rebased``.
    """

    ref: str
    action: Literal["merged", "rebased"]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class GitPullRequest(WireModel):
    """A pull request a ``gh`` command acted on (`GitOperation.pr`).

    Attributes:
        number: the pull request.
        action: ``created``, ``edited``, ``merged``, ``commented``, ``closed``, ``reopened``,
            ``ready``, ``draft``, ``auto-merge-enabled`` or ``auto-merge-disabled``.
        url: its URL.
    """

    number: int
    action: str
    url: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class GitOperation(WireModel):
    """The git and ``gh`` operations a command made (``gitOperation``; for display).

    Attributes:
        commit: a commit.
        push: a push.
        branch: a merge or rebase.
        pr: a pull request action.
    """

    commit: GitCommit | None = None
    push: GitPush | None = None
    branch: GitBranchUpdate | None = None
    pr: GitPullRequest | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class PatchHunk(WireModel):
    """One hunk of a unified diff.

    Attributes:
        old_start: the first line in the old text (``oldStart``).
        old_lines: its line count there (``oldLines``).
        new_start: the first line in the new text (``newStart``).
        new_lines: its line count there (``newLines``).
        lines: the hunk's lines, each with its ``" "``, ``"-"`` or ``"+"`` prefix.
    """

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: list[str]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class BashEditedFile(WireModel):
    """A file a shell command changed (`BashEditDiff.files`).

    Attributes:
        file_path: the file (``filePath``).
        hunks: the change, as diff hunks.
        created: the command created the file.
        deleted: the command deleted the file.
    """

    file_path: str
    hunks: list[PatchHunk]
    created: bool | None = None
    deleted: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class BashEditDiff(WireModel):
    """The files a shell command changed (``bashEditDiff``; CLI only).

    Attributes:
        files: the changed files with their diffs.
        more_files: how many more changed files are not listed (``moreFiles``).
        changed_files: the changed files' paths (``changedFiles``).
        unavailable: the diff could not be made.
        skipped: the diff was not made.
        shared: the files are shared with another process.
    """

    files: list[BashEditedFile]
    more_files: int
    changed_files: list[str] | None = None
    unavailable: bool | None = None
    skipped: bool | None = None
    shared: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class BashOutput(WireModel):
    """Result of the ``Bash`` tool.

    Attributes:
        stdout: the command's standard output.
        stderr: its standard error.
        interrupted: the command was interrupted.
        raw_output_path: a file with the raw output of a large result (``rawOutputPath``).
        is_image: stdout holds image data (``isImage``).
        background_task_id: the background task it runs as (``backgroundTaskId``).
        background_output_path: that task's output file (``backgroundOutputPath``; CLI only).
        backgrounded_by_user: the user sent it to the background (``backgroundedByUser``).
        backgrounded_by_turn_abort: it went to the background when the turn was aborted
            (``backgroundedByTurnAbort``; CLI only).
        backgrounded_to_deliver_message: it went to the background so that a message could
            be delivered (``backgroundedToDeliverMessage``; CLI only).
        backgrounded_for_agent_report: it went to the background for an agent's report
            (``backgroundedForAgentReport``; CLI only).
        timed_out_after_ms: it timed out after this long and went to the background
            (``timedOutAfterMs``).
        subagent_cap_applied: a subagent's time cap applied (``subagentCapApplied``; CLI
            only).
        background_cwd_hint: a note that a backgrounded ``cd`` did not change the session's
            directory (``backgroundCwdHint``).
        background_ends_with_final_response: the background command ends with its caller's
            final response (``backgroundEndsWithFinalResponse``).
        background_wakes_owner: its end wakes the subagent that owns it
            (``backgroundWakesOwner``).
        dangerously_disable_sandbox: it ran outside the sandbox
            (``dangerouslyDisableSandbox``).
        return_code_interpretation: what a special exit code means
            (``returnCodeInterpretation``).
        no_output_expected: the command prints nothing on success (``noOutputExpected``).
        structured_content: content blocks (``structuredContent``).
        persisted_output_path: the file holding the full output, when too large to inline
            (``persistedOutputPath``).
        persisted_output_size: that output's size in bytes (``persistedOutputSize``).
        stdout_holds_output_end: `stdout` holds the end of the output
            (``stdoutHoldsOutputEnd``; CLI only).
        memory_limit_note: a note about a memory limit (``memoryLimitNote``; CLI only).
        triggered_note: a note about what the command triggered (``triggeredNote``; CLI
            only).
        stale_read_file_state_hint: files read earlier that the command changed
            (``staleReadFileStateHint``).
        gh_rate_limit_hint: a note about a GitHub rate limit (``ghRateLimitHint``).
        git_operation: the git operations it made (``gitOperation``).
        bash_edit_diff: the files it changed (``bashEditDiff``; CLI only).
        viewed_image_paths: images it showed (``viewedImagePaths``; CLI only).
        viewed_images: those images (``viewedImages``; CLI only).
    """

    stdout: str
    stderr: str
    interrupted: bool
    raw_output_path: str | None = None
    is_image: bool | None = None
    background_task_id: str | None = None
    background_output_path: str | None = None
    backgrounded_by_user: bool | None = None
    backgrounded_by_turn_abort: bool | None = None
    backgrounded_to_deliver_message: bool | None = None
    backgrounded_for_agent_report: bool | None = None
    timed_out_after_ms: float | None = None
    subagent_cap_applied: bool | None = None
    background_cwd_hint: str | None = None
    background_ends_with_final_response: bool | None = None
    background_wakes_owner: bool | None = None
    dangerously_disable_sandbox: bool | None = None
    return_code_interpretation: str | None = None
    no_output_expected: bool | None = None
    structured_content: list[Any] | None = None
    persisted_output_path: str | None = None
    persisted_output_size: int | None = None
    stdout_holds_output_end: bool | None = None
    memory_limit_note: str | None = None
    triggered_note: str | None = None
    stale_read_file_state_hint: str | None = None
    gh_rate_limit_hint: str | None = None
    git_operation: GitOperation | None = None
    bash_edit_diff: BashEditDiff | None = None
    viewed_image_paths: list[str] | None = None
    viewed_images: list[Any] | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskStopOutput(WireModel):
    """Result of the ``TaskStop`` tool (``KillShell`` / ``KillBash`` in older CLIs).

    Attributes:
        message: what happened.
        task_id: the task stopped.
        task_type: its kind.
        command: its command or description.
    """

    message: str
    task_id: str
    task_type: str
    command: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class MonitorOutput(WireModel):
    """Result of the ``Monitor`` tool: the watch runs as a background task.

    Attributes:
        task_id: the monitor's task (``taskId``).
        timeout_ms: its deadline, 0 when persistent (``timeoutMs``).
        persistent: it runs until stopped or the session ends.
        kept_in_sandbox_by_check: the command stayed in the sandbox because its permission
            check relied on it (``keptInSandboxByCheck``).
    """

    task_id: str
    timeout_ms: float
    persistent: bool | None = None
    kept_in_sandbox_by_check: bool | None = None


# ======================================================================================
# Files


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadTextFile(WireModel):
    """The text a ``Read`` call read (`ReadTextOutput.file`).

    Attributes:
        file_path: the file (``filePath``).
        content: the lines read.
        num_lines: how many lines `content` holds (``numLines``).
        start_line: the first line read (``startLine``).
        total_lines: the file's line count (``totalLines``).
        truncated_by_token_cap: a whole-file read was cut to its first page
            (``truncatedByTokenCap``).
    """

    file_path: str
    content: str
    num_lines: int
    start_line: int
    total_lines: int
    truncated_by_token_cap: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactReadRef(WireModel):
    """A saved Artifact a read counted as viewed (``artifactRead``).

    Attributes:
        slug: the Artifact.
        ver: the version viewed.
        seeded: always false when present.
    """

    slug: str
    ver: str | None = None
    seeded: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadTextOutput(WireModel):
    """Result of the ``Read`` tool for a text file.

    Attributes:
        file: what was read.
        type: always ``text``.
        artifact_read: the saved Artifact this read viewed (``artifactRead``).
    """

    file: ReadTextFile
    type: Literal["text"] = "text"
    artifact_read: ArtifactReadRef | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ImageDimensions(WireModel):
    """An image's size before and after resizing (``dimensions``).

    Attributes:
        original_width: ``originalWidth``, in pixels.
        original_height: ``originalHeight``.
        display_width: ``displayWidth``, after resizing.
        display_height: ``displayHeight``.
    """

    original_width: int | None = None
    original_height: int | None = None
    display_width: int | None = None
    display_height: int | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadImageFile(WireModel):
    """The image a ``Read`` call read (`ReadImageOutput.file`).

    Attributes:
        base64: the image, base64-encoded.
        type: its MIME type (``image/png``, ...).
        original_size: the file's size in bytes (``originalSize``).
        dimensions: its size in pixels.
    """

    base64: str
    type: Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
    original_size: int
    dimensions: ImageDimensions | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadImageOutput(WireModel):
    """Result of the ``Read`` tool for an image.

    Attributes:
        file: the image.
        type: always ``image``.
    """

    file: ReadImageFile
    type: Literal["image"] = "image"


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadNotebookFile(WireModel):
    """The notebook a ``Read`` call read (`ReadNotebookOutput.file`).

    Attributes:
        file_path: the notebook (``filePath``).
        cells: its cells, as the CLI renders them.
    """

    file_path: str
    cells: list[Any]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadNotebookOutput(WireModel):
    """Result of the ``Read`` tool for a Jupyter notebook.

    Attributes:
        file: the notebook.
        type: always ``notebook``.
    """

    file: ReadNotebookFile
    type: Literal["notebook"] = "notebook"


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadPdfFile(WireModel):
    """The PDF a ``Read`` call read whole (`ReadPdfOutput.file`).

    Attributes:
        file_path: the PDF (``filePath``).
        base64: its bytes, base64-encoded.
        original_size: its size in bytes (``originalSize``).
    """

    file_path: str
    base64: str
    original_size: int


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadPdfOutput(WireModel):
    """Result of the ``Read`` tool for a PDF read whole.

    Attributes:
        file: the PDF.
        type: always ``pdf``.
    """

    file: ReadPdfFile
    type: Literal["pdf"] = "pdf"


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadPartsFile(WireModel):
    """The pages a ``Read`` call extracted from a PDF (`ReadPartsOutput.file`).

    Attributes:
        file_path: the PDF (``filePath``).
        original_size: its size in bytes (``originalSize``).
        count: how many pages were extracted.
        output_dir: the directory of the page images (``outputDir``).
    """

    file_path: str
    original_size: int
    count: int
    output_dir: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class PdfPageImage(WireModel):
    """One extracted PDF page (`ReadPartsOutput.pages`; never on an emitted result).

    Attributes:
        base64: the page image, base64-encoded (empty when it failed).
        media_type: its MIME type (``mediaType``).
        error: why the page could not be made an image.
        text: the page's text (CLI only).
    """

    base64: str
    media_type: Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
    error: str | None = None
    text: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadPartsOutput(WireModel):
    """Result of the ``Read`` tool for PDF pages extracted as images.

    Attributes:
        file: the PDF and the extraction.
        type: always ``parts``.
        first_page: the page number of the first page extracted (``firstPage``).
        total_pages: the PDF's page count (``totalPages``; CLI only).
        pages: the page images (only in process; the CLI leaves them out of the result).
    """

    file: ReadPartsFile
    type: Literal["parts"] = "parts"
    first_page: int | None = None
    total_pages: int | None = None
    pages: list[PdfPageImage] | None = None


#: The result of the ``Read`` tool, by ``type``.
ReadOutput: TypeAlias = (
    ReadTextOutput | ReadImageOutput | ReadNotebookOutput | ReadPdfOutput | ReadPartsOutput
)


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class GitDiff(WireModel):
    """A file's change as git sees it (``gitDiff``).

    Attributes:
        filename: the file.
        status: ``modified`` or ``added``.
        additions: lines added.
        deletions: lines deleted.
        changes: lines changed.
        patch: the unified diff.
        repository: ``owner/repo`` on GitHub, when known.
    """

    filename: str
    status: Literal["modified", "added"]
    additions: int
    deletions: int
    changes: int
    patch: str
    repository: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class EditOutput(WireModel):
    """Result of the ``Edit`` tool.

    Attributes:
        file_path: the file (``filePath``).
        old_string: the text replaced (``oldString``).
        new_string: its replacement (``newString``).
        original_file: the file before the edit (``originalFile``; None when not kept).
        structured_patch: the change, as diff hunks (``structuredPatch``).
        user_modified: the user changed the proposed edit (``userModified``).
        replace_all: every occurrence was replaced (``replaceAll``).
        git_diff: the change as git sees it (``gitDiff``).
        staged: the edit was held for review instead of written.
        staged_wording: how a held edit is described: ``review``, ``card``, ``cloud``,
            ``linked`` or ``policy`` (``stagedWording``; CLI only).
        stale_recovered: the file had changed on disk since it was read, and the edit still
            applied (``staleRecovered``; CLI only).
        content_not_in_model_context: the model has not seen the whole file, e.g. after a
            partial read (``contentNotInModelContext``; CLI only).
        synced_skill_next: what to do next when the file is a synced skill's copy:
            ``save_tool``, ``propose_tool``, ``send_file``, ``no_save_tool`` or
            ``report_unsaved`` (``syncedSkillNext``; CLI only).
    """

    file_path: str
    old_string: str
    new_string: str
    original_file: str | None
    structured_patch: list[PatchHunk]
    user_modified: bool
    replace_all: bool
    git_diff: GitDiff | None = None
    staged: bool | None = None
    staged_wording: str | None = None
    stale_recovered: bool | None = None
    content_not_in_model_context: bool | None = None
    synced_skill_next: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class WriteOutput(WireModel):
    """Result of the ``Write`` tool.

    Attributes:
        type: ``create`` (a new file) or ``update``.
        file_path: the file (``filePath``).
        content: what was written.
        structured_patch: the change, as diff hunks (``structuredPatch``).
        original_file: the previous content (``originalFile``; None for a new file or when
            too large).
        git_diff: the change as git sees it (``gitDiff``).
        user_modified: the user edited the content before accepting (``userModified``).
        staged: the write was held for review instead of written.
        staged_wording: how a held write is described (``stagedWording``; CLI only).
        memdir_stamped: the CLI stamped the content of a memory file (``memdirStamped``; CLI
            only).
        synced_skill_next: what to do next when the file is a synced skill's copy
            (``syncedSkillNext``; CLI only).
    """

    type: Literal["create", "update"]
    file_path: str
    content: str
    structured_patch: list[PatchHunk]
    original_file: str | None
    git_diff: GitDiff | None = None
    user_modified: bool | None = None
    staged: bool | None = None
    staged_wording: str | None = None
    memdir_stamped: bool | None = None
    synced_skill_next: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class NotebookEditOutput(WireModel):
    """Result of the ``NotebookEdit`` tool.

    Attributes:
        new_source: the cell's new source.
        cell_type: ``code`` or ``markdown``.
        language: the notebook's language.
        edit_mode: the edit made (``replace``, ``insert`` or ``delete``).
        notebook_path: the notebook.
        original_file: the notebook before the edit.
        updated_file: the notebook after it.
        old_source: the cell's previous source (replace and delete).
        cell_id: the cell edited.
        error: why the edit failed.
    """

    new_source: str
    cell_type: Literal["code", "markdown"]
    language: str
    edit_mode: str
    notebook_path: str
    original_file: str
    updated_file: str
    old_source: str | None = None
    cell_id: str | None = None
    error: str | None = None


# ======================================================================================
# Search


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class GlobOutput(WireModel):
    """Result of the ``Glob`` tool.

    Attributes:
        duration_ms: how long the search took (``durationMs``).
        num_files: how many paths `filenames` holds (``numFiles``).
        filenames: the matching paths.
        truncated: more matched than were returned.
        total_matches: the matches before truncation (``totalMatches``).
        count_is_complete: `total_matches` is exact, not a floor (``countIsComplete``).
        timed_out: the time limit stopped the search (``timedOut``).
    """

    duration_ms: float
    num_files: int
    filenames: list[str]
    truncated: bool
    total_matches: int | None = None
    count_is_complete: bool | None = None
    timed_out: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class GrepOutput(WireModel):
    """Result of the ``Grep`` tool.

    Attributes:
        num_files: how many files matched (``numFiles``).
        filenames: the matching files.
        mode: the output mode: ``content``, ``files_with_matches`` or ``count``.
        content: the matching lines (``content`` and ``count`` modes).
        num_lines: lines in `content` (``numLines``).
        num_matches: matches counted (``numMatches``).
        total_files: files before the limit (``totalFiles``).
        total_lines: lines before the limit (``totalLines``).
        applied_limit: the ``head_limit`` applied (``appliedLimit``).
        applied_offset: the ``offset`` applied (``appliedOffset``).
        timed_out: the time limit stopped the search (``timedOut``).
    """

    num_files: int
    filenames: list[str]
    mode: Literal["content", "files_with_matches", "count"] | None = None
    content: str | None = None
    num_lines: int | None = None
    num_matches: int | None = None
    total_files: int | None = None
    total_lines: int | None = None
    applied_limit: int | None = None
    applied_offset: int | None = None
    timed_out: bool | None = None


# ======================================================================================
# Web


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class WebFetchOutput(WireModel):
    """Result of the ``WebFetch`` tool.

    Attributes:
        bytes: the size of the content fetched.
        code: the HTTP status code.
        code_text: the HTTP status text (``codeText``).
        result: what the prompt made of the content.
        duration_ms: how long fetching and processing took (``durationMs``).
        url: the URL fetched.
        citable: the result may be cited (CLI only).
        artifact_read: the saved Artifact this fetch viewed (``artifactRead``).
    """

    bytes: int
    code: int
    code_text: str
    result: str
    duration_ms: float
    url: str
    citable: bool | None = None
    artifact_read: ArtifactReadRef | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class WebSearchHit(WireModel):
    """One search hit.

    Attributes:
        title: the page's title.
        url: its URL.
        snippet: the page text (in ``PostToolUse`` hooks; not in ``tool_use_result``).
    """

    title: str
    url: str
    snippet: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class WebSearchResults(WireModel):
    """The hits of one server-side search (`WebSearchOutput.results`).

    Attributes:
        tool_use_id: the server tool call.
        content: the hits.
    """

    tool_use_id: str
    content: list[WebSearchHit]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class WebSearchOutput(WireModel):
    """Result of the ``WebSearch`` tool.

    Attributes:
        query: the query run.
        results: hits and the model's text commentary, in order.
        duration_seconds: how long the search took (``durationSeconds``).
        search_count: searches made (``searchCount``).
        plain_page_text: snippets are plain page text (``plainPageText``; CLI only).
    """

    query: str
    results: list[WebSearchResults | str]
    duration_seconds: float
    search_count: int | None = None
    plain_page_text: bool | None = None


# ======================================================================================
# Planning, questions, tasks, worktrees


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TodoWriteOutput(WireModel):
    """Result of the ``TodoWrite`` tool.

    Attributes:
        old_todos: the list before (``oldTodos``).
        new_todos: the list after (``newTodos``).
    """

    old_todos: list[TodoItem]
    new_todos: list[TodoItem]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class QuestionAnnotation(WireModel):
    """The user's notes on one question (`AskUserQuestionOutput.annotations`).

    Attributes:
        preview: the preview of the option picked.
        notes: free text the user added.
        unanswered: how the question went unanswered: ``skipped``, ``replied_in_chat`` or
            ``dismissed`` (absent when answered, or not reported).
    """

    preview: str | None = None
    notes: str | None = None
    unanswered: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class AskUserQuestionOutput(WireModel):
    """Result of the ``AskUserQuestion`` tool.

    Attributes:
        questions: the questions asked.
        answers: the answers, by question text (multi-select answers joined with commas).
        response: free text the user typed instead of picking.
        annotations: the user's notes, by question text.
        afk_timeout_ms: the dialog closed itself after this long idle (``afkTimeoutMs``).
        follow_up: the answer asks for a follow-up (``followUp``; CLI only).
    """

    questions: list[UserQuestion]
    answers: dict[str, str]
    response: str | None = None
    annotations: dict[str, QuestionAnnotation] | None = None
    afk_timeout_ms: float | None = None
    follow_up: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class EnterPlanModeOutput(WireModel):
    """Result of the ``EnterPlanMode`` tool.

    Attributes:
        message: the confirmation.
    """

    message: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ExitPlanModeOutput(WireModel):
    """Result of the ``ExitPlanMode`` tool.

    Attributes:
        plan: the plan presented (None when there was none).
        is_agent: the caller is a subagent (``isAgent``).
        file_path: where the plan was saved (``filePath``).
        has_task_tool: the ``Agent`` tool is available (``hasTaskTool``).
        plan_was_edited: the user edited the plan (``planWasEdited``).
        awaiting_leader_approval: a teammate asked its team leader to approve the plan
            (``awaitingLeaderApproval``).
        request_id: that approval request (``requestId``).
    """

    plan: str | None
    is_agent: bool
    file_path: str | None = None
    has_task_tool: bool | None = None
    plan_was_edited: bool | None = None
    awaiting_leader_approval: bool | None = None
    request_id: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class EnterWorktreeOutput(WireModel):
    """Result of the ``EnterWorktree`` tool.

    Attributes:
        worktree_path: the worktree entered (``worktreePath``).
        message: what happened.
        worktree_branch: its branch (``worktreeBranch``).
        sandbox_note: a note about the sandbox (``sandboxNote``; CLI only).
    """

    worktree_path: str
    message: str
    worktree_branch: str | None = None
    sandbox_note: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ExitWorktreeOutput(WireModel):
    """Result of the ``ExitWorktree`` tool.

    Attributes:
        action: ``keep`` or ``remove``.
        original_cwd: the directory returned to (``originalCwd``).
        worktree_path: the worktree left (``worktreePath``).
        message: what happened.
        worktree_branch: its branch (``worktreeBranch``).
        tmux_session_name: its tmux session (``tmuxSessionName``).
        discarded_files: uncommitted files discarded (``discardedFiles``).
        discarded_commits: unmerged commits discarded (``discardedCommits``).
        restored_cwd: the directory actually restored (``restoredCwd``; CLI only).
        original_cwd_missing: the original directory no longer exists
            (``originalCwdMissing``; CLI only).
        release_note: a note about releasing the worktree (``releaseNote``; CLI only).
        sandbox_note: a note about the sandbox (``sandboxNote``; CLI only).
    """

    action: Literal["keep", "remove"]
    original_cwd: str
    worktree_path: str
    message: str
    worktree_branch: str | None = None
    tmux_session_name: str | None = None
    discarded_files: int | None = None
    discarded_commits: int | None = None
    restored_cwd: str | None = None
    original_cwd_missing: bool | None = None
    release_note: str | None = None
    sandbox_note: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class CreatedTask(WireModel):
    """The task a ``TaskCreate`` call created.

    Attributes:
        id: its id.
        subject: its title.
        description: its description as saved (absent from older CLIs).
    """

    id: str
    subject: str
    description: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskCreateOutput(WireModel):
    """Result of the ``TaskCreate`` tool.

    Attributes:
        task: the task created.
        app_keeps_statuses: the app tracks the tasks' statuses (``appKeepsStatuses``; CLI
            only).
    """

    task: CreatedTask
    app_keeps_statuses: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskDetails(WireModel):
    """One task of the task list, in full (`TaskGetOutput.task`).

    Attributes:
        id: its id.
        subject: its title.
        description: what needs to be done.
        status: ``pending``, ``in_progress`` or ``completed``.
        blocks: the tasks it blocks.
        blocked_by: the tasks that block it (``blockedBy``).
    """

    id: str
    subject: str
    description: str
    status: Literal["pending", "in_progress", "completed"]
    blocks: list[str]
    blocked_by: list[str]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskGetOutput(WireModel):
    """Result of the ``TaskGet`` tool.

    Attributes:
        task: the task, or None when there is no such task.
    """

    task: TaskDetails | None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskStatusChange(WireModel):
    """A status change a ``TaskUpdate`` call made.

    Attributes:
        from_: the old status (``from``).
        to: the new status.
    """

    from_: str
    to: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskUpdateOutput(WireModel):
    """Result of the ``TaskUpdate`` tool.

    Attributes:
        success: the update was made.
        task_id: the task (``taskId``).
        updated_fields: the fields changed (``updatedFields``).
        error: why it failed.
        status_change: the status change made (``statusChange``).
    """

    success: bool
    task_id: str
    updated_fields: list[str]
    error: str | None = None
    status_change: TaskStatusChange | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskSummary(WireModel):
    """One task of a ``TaskList`` result.

    Attributes:
        id: its id.
        subject: its title.
        status: ``pending``, ``in_progress`` or ``completed``.
        blocked_by: the tasks that block it (``blockedBy``).
        owner: its owner.
    """

    id: str
    subject: str
    status: Literal["pending", "in_progress", "completed"]
    blocked_by: list[str]
    owner: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskListOutput(WireModel):
    """Result of the ``TaskList`` tool.

    Attributes:
        tasks: the session's tasks.
    """

    tasks: list[TaskSummary]


# ======================================================================================
# Scheduling


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class OneShotJob(WireModel):
    """A session-only one-shot job yet to fire (`CronCreateOutput.other_one_shots`).

    Attributes:
        id: the job.
        human_schedule: when it fires, in words (``humanSchedule``).
        prompt: what it will enqueue.
    """

    id: str
    human_schedule: str
    prompt: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class CronCreateOutput(WireModel):
    """Result of the ``CronCreate`` tool.

    Attributes:
        id: the job (for ``CronDelete``).
        human_schedule: when it fires, in words (``humanSchedule``).
        recurring: it fires at every match.
        durable: it survives restarts.
        next_fire_at: its next run, in epoch milliseconds (``nextFireAt``).
        max_age_ms: the age at which a recurring job ends, 0 for never (``maxAgeMs``).
        other_one_shots: the other one-shot jobs yet to fire (``otherOneShots``).
    """

    id: str
    human_schedule: str
    recurring: bool
    durable: bool | None = None
    next_fire_at: float | None = None
    max_age_ms: float | None = None
    other_one_shots: list[OneShotJob] | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class CronDeleteOutput(WireModel):
    """Result of the ``CronDelete`` tool.

    Attributes:
        id: the job cancelled.
        ended_loop_wakeup: a pending ``/loop`` wake-up ended too (``endedLoopWakeup``).
    """

    id: str
    ended_loop_wakeup: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class CronJob(WireModel):
    """One scheduled job (`CronListOutput.jobs`).

    Attributes:
        id: the job.
        cron: its cron expression.
        human_schedule: when it fires, in words (``humanSchedule``).
        prompt: what it enqueues.
        recurring: it fires at every match.
        durable: it survives restarts.
        next_fire_at: its next run, in epoch milliseconds (``nextFireAt``).
    """

    id: str
    cron: str
    human_schedule: str
    prompt: str
    recurring: bool | None = None
    durable: bool | None = None
    next_fire_at: float | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class CronListOutput(WireModel):
    """Result of the ``CronList`` tool.

    Attributes:
        jobs: the scheduled jobs.
    """

    jobs: list[CronJob]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ScheduleWakeupOutput(WireModel):
    """Result of the ``ScheduleWakeup`` tool.

    Attributes:
        scheduled_for: when the wake-up fires, in epoch milliseconds (``scheduledFor``).
        clamped_delay_seconds: the delay used, after clamping (``clampedDelaySeconds``).
        was_clamped: the delay asked for was out of bounds (``wasClamped``).
        stopped: the loop was ended (``stop: true``).
        cancelled_wakeups: pending wake-ups a stop cancelled (``cancelledWakeups``).
    """

    scheduled_for: float
    clamped_delay_seconds: float
    was_clamped: bool
    stopped: bool | None = None
    cancelled_wakeups: int | None = None


# ======================================================================================
# MCP


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class McpResource(WireModel):
    """One resource of a ``ListMcpResourcesTool`` result (``ListMcpResources`` in older CLIs).

    Attributes:
        uri: its URI.
        name: its name.
        server: the server that provides it.
        mime_type: its MIME type (``mimeType``).
        description: what it is.
    """

    uri: str
    name: str
    server: str
    mime_type: str | None = None
    description: str | None = None


#: The result of the ``ListMcpResourcesTool`` tool: a list.
ListMcpResourcesOutput: TypeAlias = list[McpResource]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class McpToolsRefresh(WireModel):
    """One server of a ``RefreshMcpTools`` result.

    Attributes:
        server: the server.
        status: ``refreshed``, ``error`` (the old tools were kept) or ``not_connected``.
        tool_count: its tools now (``toolCount``).
        added: tools the refresh added.
        removed: tools it removed.
        error: why it failed.
    """

    server: str
    status: Literal["refreshed", "error", "not_connected"]
    tool_count: int | None = None
    added: list[str] | None = None
    removed: list[str] | None = None
    error: str | None = None


#: The result of the ``RefreshMcpTools`` tool: a list, one entry per server.
RefreshMcpToolsOutput: TypeAlias = list[McpToolsRefresh]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class McpResourceEntry(WireModel):
    """One child of a directory resource (`ReadMcpResourceDirOutput.resources`).

    Attributes:
        uri: its URI.
        name: its name.
        mime_type: its MIME type, ``inode/directory`` for a directory (``mimeType``).
    """

    uri: str
    name: str
    mime_type: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadMcpResourceDirOutput(WireModel):
    """Result of the ``ReadMcpResourceDirTool`` tool (``ReadMcpResourceDir`` in older CLIs).

    Attributes:
        resources: the directory's direct children.
        error: why the server could not list it.
    """

    resources: list[McpResourceEntry]
    error: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class McpResourceContent(WireModel):
    """One content of a resource (`ReadMcpResourceOutput.contents`).

    Attributes:
        uri: its URI.
        mime_type: its MIME type (``mimeType``).
        text: its text.
        blob_saved_to: the file its binary content was saved to (``blobSavedTo``).
    """

    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob_saved_to: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadMcpResourceOutput(WireModel):
    """Result of the ``ReadMcpResourceTool`` tool (``ReadMcpResource`` in older CLIs).

    Attributes:
        contents: the resource's contents.
        error: why the server could not read it.
    """

    contents: list[McpResourceContent]
    error: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class McpContentBlock(WireModel):
    """One content block of an MCP tool's result, as the CLI passes it on.

    The CLI turns the server's blocks into the Messages API's: ``{"type": "text", "text"}``,
    ``{"type": "image", "source": {...}}``, ...; other keys are kept in ``extra``.

    Attributes:
        type: the kind of block.
        text: a text block's text.
        source: an image or document block's source.
    """

    type: str
    text: str | None = None
    source: _JSON | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class McpStructuredOutput(WireModel):
    """The result of an MCP tool that returned structured content, as the CLI reports it:
    the content the model read, beside the tool's ``structuredContent``.

    Attributes:
        structured_content: the tool's structured content (``structuredContent``).
        content: the text (or the content blocks) the model was given for it.
    """

    structured_content: _JSON
    content: str | list[McpContentBlock] | None = None


#: The result of an MCP tool (``mcp__<server>__<tool>``): its text, its content blocks, its
#: content beside its structured content (`McpStructuredOutput`), or another object as the
#: CLI reported it.
McpOutput: TypeAlias = str | list[McpContentBlock] | McpStructuredOutput | _JSON


# ======================================================================================
# Reviews, feedback, goals, skills, notifications


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReportFindingsOutput(WireModel):
    """Result of the ``ReportFindings`` tool.

    Attributes:
        count: how many findings were reported.
        findings: the findings, echoed.
        level: the effort level the review ran at.
    """

    count: int
    findings: list[Finding]
    level: Literal["low", "medium", "high", "xhigh", "max"] | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class SendFeedbackOutput(WireModel):
    """Result of the ``SendFeedback`` tool.

    Attributes:
        success: the feedback was sent.
        message: what happened.
    """

    success: bool
    message: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProposeGoalOutput(WireModel):
    """Result of the ``SetGoal`` tool (``ProposeGoal`` in the TypeScript SDK).

    Attributes:
        condition: the condition shown for approval, or set.
        ask_user: the user was asked to approve it (``askUser``).
    """

    condition: str
    ask_user: bool


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProposeSkillsOutput(WireModel):
    """Result of the ``propose_skills`` tool.

    Attributes:
        proposal_count: the proposals shown on the review card (``proposalCount``).
    """

    proposal_count: int


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class PushNotificationOutput(WireModel):
    """Result of the ``PushNotification`` tool.

    Attributes:
        message: the notification's body.
        push_sent: a push notification was sent (``pushSent``).
        local_sent: a local notification was shown (``localSent``).
        disabled_reason: why none was sent: ``config_off``, ``user_present`` or
            ``no_transport`` (``disabledReason``).
        sent_at: when, as an ISO timestamp (``sentAt``).
    """

    message: str
    push_sent: bool | None = None
    local_sent: bool | None = None
    disabled_reason: Literal["config_off", "user_present", "no_transport"] | None = None
    sent_at: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class Notification(WireModel):
    """One notification of a ``ReadNotifications`` result.

    Attributes:
        notification_id: its id (the key that removes redeliveries).
        origin: where it came from, e.g. ``github_webhook`` (an open set).
        queued_at: when the backend queued it (RFC 3339).
        content: its body.
        arrived_at: when it reached this session (RFC 3339, local clock).
    """

    notification_id: str
    origin: str
    queued_at: str
    content: str
    arrived_at: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadNotificationsOutput(WireModel):
    """Result of the ``ReadNotifications`` tool.

    Attributes:
        notifications: the notifications drained.
        remaining: notifications still queued (call again to read them).
        read_at: when the queue was read (RFC 3339, local clock).
    """

    notifications: list[Notification]
    remaining: int
    read_at: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ShowOnboardingRolePickerOutput(WireModel):
    """Result of the ``ShowOnboardingRolePicker`` tool.

    Attributes:
        role: the role the user picked.
        dismissed: the user dismissed the picker.
    """

    role: str | None = None
    dismissed: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class OfferChromeSetupOutput(WireModel):
    """Result of the ``OfferChromeSetup`` tool.

    Attributes:
        outcome: ``connected``, ``not_now`` or ``no_attempt_yet``.
    """

    outcome: Literal["connected", "not_now", "no_attempt_yet"]


# ======================================================================================
# Workflows, triggers and claude.ai services


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class WorkflowOutput(WireModel):
    """Result of the ``Workflow`` tool: the workflow runs as a background task.

    Attributes:
        status: ``async_launched`` (here) or ``remote_launched`` (in the cloud).
        task_id: its task (``taskId``).
        task_type: ``local_workflow`` or ``remote_agent`` (``taskType``).
        workflow_name: the script's ``meta.name`` (``workflowName``).
        run_id: the run, for ``resumeFromRunId`` (``runId``).
        summary: a summary.
        transcript_dir: where subagent transcripts are written (``transcriptDir``).
        script_path: the saved script, to edit and run again (``scriptPath``).
        session_url: the cloud session (``sessionUrl``).
        warning: a heads-up (local git state differs from the pushed branch, ...).
        error: why the script's syntax check failed.
    """

    status: Literal["async_launched", "remote_launched"]
    task_id: str
    task_type: Literal["local_workflow", "remote_agent"] | None = None
    workflow_name: str | None = None
    run_id: str | None = None
    summary: str | None = None
    transcript_dir: str | None = None
    script_path: str | None = None
    session_url: str | None = None
    warning: str | None = None
    error: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class RemoteTriggerOutput(WireModel):
    """Result of the ``RemoteTrigger`` tool.

    Attributes:
        status: the HTTP status of the call.
        json: the response body, as JSON text.
        summary: a summary.
    """

    status: int
    json: str
    summary: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ClaudeDesignOutput(WireModel):
    """Result of the ``ClaudeDesign`` tool.

    Attributes:
        operation: the operation run.
        content: its content blocks.
        is_error: the operation failed (``isError``).
    """

    operation: str
    content: list[_JSON]
    is_error: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectDoc(WireModel):
    """A document of a claude.ai project (`ProjectInfoOutput.docs`).

    Attributes:
        path: its path.
        created_at: when it was created (None when unknown).
    """

    path: str
    created_at: str | None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectFile(WireModel):
    """A file of a claude.ai project (`ProjectInfoOutput.files`).

    Attributes:
        path: its path.
        file_kind: its kind.
        created_at: when it was created (None when unknown).
    """

    path: str
    file_kind: str
    created_at: str | None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectSyncSource(WireModel):
    """A source a claude.ai project syncs from.

    Attributes:
        type: its kind (None when unknown).
        config: its configuration.
    """

    type: str | None
    config: _JSON


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectKnowledge(WireModel):
    """How much of a project's knowledge base is used.

    Attributes:
        knowledge_size: the size used.
        max_knowledge_size: the size allowed.
    """

    knowledge_size: int
    max_knowledge_size: int


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectInfoOutput(WireModel):
    """Result of the ``Projects`` tool's ``project_info`` method.

    Attributes:
        name: the project's name.
        description: its description.
        instructions: its instructions.
        docs: its documents.
        knowledge: its knowledge base's size.
        method: always ``project_info``.
        notice: a notice.
        local_file: a local copy of the answer.
        files: its files.
        sync_sources: the sources it syncs from.
    """

    name: str
    description: str
    instructions: str
    docs: list[ProjectDoc]
    knowledge: ProjectKnowledge
    method: Literal["project_info"] = "project_info"
    notice: str | None = None
    local_file: str | None = None
    files: list[ProjectFile] | None = None
    sync_sources: list[ProjectSyncSource] | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectReadOutput(WireModel):
    """Result of the ``Projects`` tool's ``project_read`` method.

    Attributes:
        path: the document.
        created_at: when it was created (None when unknown).
        method: always ``project_read``.
        notice: a notice.
        version: a hash of the whole text (CLI only, internal).
        file_kind: its kind.
        content: its text.
        local_file: the local file its content was saved to.
        size_bytes: its size (CLI only).
    """

    path: str
    created_at: str | None
    method: Literal["project_read"] = "project_read"
    notice: str | None = None
    version: str | None = None
    file_kind: str | None = None
    content: str | None = None
    local_file: str | None = None
    size_bytes: int | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectSearchHit(WireModel):
    """One hit of a project search.

    Attributes:
        name: the document's name.
        doc_uuid: the document.
        text: the matching text.
        image_attached: a page image is attached.
        page: the page.
    """

    name: str | None = None
    doc_uuid: str | None = None
    text: str | None = None
    image_attached: bool | None = None
    page: int | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectSearchImage(WireModel):
    """A page image of a project search (CLI only).

    Attributes:
        content_id: the document.
        media_type: its MIME type.
        data: the image, base64-encoded.
        page: the page.
    """

    content_id: str
    media_type: Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
    data: str
    page: int | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectSearchOutput(WireModel):
    """Result of the ``Projects`` tool's ``project_search`` method.

    Attributes:
        rag: the knowledge base was searched (rather than listed).
        method: always ``project_search``.
        notice: a notice.
        hits: the hits.
        images: page images of the hits (CLI only).
        docs: the documents, when not searched.
    """

    rag: bool
    method: Literal["project_search"] = "project_search"
    notice: str | None = None
    hits: list[ProjectSearchHit] | None = None
    images: list[ProjectSearchImage] | None = None
    docs: list[str] | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectWriteOutput(WireModel):
    """Result of the ``Projects`` tool's ``project_write`` method.

    Attributes:
        path: the document written.
        doc_uuid: its id.
        replaced: an existing document was replaced.
        method: always ``project_write``.
        notice: a notice.
        version: a hash of the whole text (CLI only, internal).
        present_to_user: the document is for the user to see.
        local_path: the local file uploaded.
    """

    path: str
    doc_uuid: str
    replaced: bool
    method: Literal["project_write"] = "project_write"
    notice: str | None = None
    version: str | None = None
    present_to_user: bool | None = None
    local_path: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectDeleteOutput(WireModel):
    """Result of the ``Projects`` tool's ``project_delete`` method.

    Attributes:
        path: the document.
        deleted: it was deleted.
        method: always ``project_delete``.
        notice: a notice.
    """

    path: str
    deleted: bool
    method: Literal["project_delete"] = "project_delete"
    notice: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectMemoryFile(WireModel):
    """One memory file of a project (`ProjectMemoryListOutput.files`).

    Attributes:
        path: its path.
        size_bytes: its size.
        updated_at: when it last changed (None when unknown).
        truncated: the file is longer than what is kept.
    """

    path: str
    size_bytes: int
    updated_at: str | None
    truncated: bool


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectMemoryListOutput(WireModel):
    """Result of the ``Projects`` tool's ``project_memory_list`` method.

    Attributes:
        files: the memory files.
        truncated: the list is incomplete.
        method: always ``project_memory_list``.
        notice: a notice.
    """

    files: list[ProjectMemoryFile]
    truncated: bool
    method: Literal["project_memory_list"] = "project_memory_list"
    notice: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectMemoryReadOutput(WireModel):
    """Result of the ``Projects`` tool's ``project_memory_read`` method.

    Attributes:
        path: the memory file.
        size_bytes: its size.
        updated_at: when it last changed (None when unknown).
        truncated: `content` is cut.
        method: always ``project_memory_read``.
        notice: a notice.
        content: its text.
        local_file: the local file its content was saved to.
    """

    path: str
    size_bytes: int
    updated_at: str | None
    truncated: bool
    method: Literal["project_memory_read"] = "project_memory_read"
    notice: str | None = None
    content: str | None = None
    local_file: str | None = None


#: The result of the ``Projects`` tool, by ``method``.
ProjectsOutput: TypeAlias = (
    ProjectInfoOutput
    | ProjectReadOutput
    | ProjectSearchOutput
    | ProjectWriteOutput
    | ProjectDeleteOutput
    | ProjectMemoryListOutput
    | ProjectMemoryReadOutput
)


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactStored(WireModel):
    """The runtime declaration stored with a published artifact (`ArtifactPublishOutput`).

    Attributes:
        contract: its runtime version.
        preferred_contract: the version it prefers (``preferredContract``).
        capabilities: its declared capabilities.
        carried: the declaration was carried over from the previous version.
        read: how it was read.
    """

    contract: str
    preferred_contract: str | None = None
    capabilities: _JSON | None = None
    carried: bool | None = None
    read: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactPublishOutput(WireModel):
    """Result of the ``Artifact`` tool's ``publish`` action.

    Attributes:
        url: the artifact's link.
        path: the file published.
        artifact_id: its id.
        title: its title.
        version: the version published.
        capabilities: its runtime capabilities.
        stored: its stored runtime declaration.
        warnings: warnings.
        publishes_remaining: publishes left in the current window
            (``publishesRemaining``).
        publishes_reset_at: when that window resets, in epoch milliseconds
            (``publishesResetAt``).
        contract: its runtime version.
        updated: an existing artifact was updated.
        owned: the user owns it.
        icon: its icon word.
        favicon_sent: a favicon was sent (``faviconSent``).
        icon_dropped: the icon was dropped (``iconDropped``).
        audience: who can see it.
        folder_audience: ``others`` or ``unknown``.
        seq: the publish's sequence number.
        unchanged: nothing changed.
        live_subscription: its live-update subscription (``liveSubscription``).
        pinned: it is pinned in the user's sidebar.
        verify_guide: how to check the page (``verifyGuide``; CLI only).
        edits_applied: in-page edits merged into the publish (``editsApplied``; CLI only).
        edits_not_written: why in-page edits were not written back (``editsNotWritten``;
            CLI only).
        seeded_thread: the thread seeded with it (``seededThread``; CLI only).
        merged_over: the version it was merged over (CLI only).
    """

    url: str
    path: str
    artifact_id: str | None = None
    title: str | None = None
    version: str | None = None
    capabilities: Any = None
    stored: ArtifactStored | None = None
    warnings: list[str] | None = None
    publishes_remaining: int | None = None
    publishes_reset_at: float | None = None
    contract: str | None = None
    updated: bool | None = None
    owned: bool | None = None
    icon: str | None = None
    favicon_sent: bool | None = None
    icon_dropped: bool | None = None
    audience: str | None = None
    folder_audience: Literal["others", "unknown"] | None = None
    seq: int | None = None
    unchanged: bool | None = None
    live_subscription: str | None = None
    pinned: bool | None = None
    verify_guide: str | None = None
    edits_applied: int | None = None
    edits_not_written: str | None = None
    seeded_thread: str | None = None
    merged_over: Any = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactListing(WireModel):
    """One artifact of a ``list`` result.

    Attributes:
        title: its title.
        url: its link.
        favicon: its favicon.
        updated_at: when it last changed (``updatedAt``).
        rel: ``mine`` or ``shared``.
        external: it comes from outside the user's organization.
        role: the user's role: ``editor``, ``commenter``, ``reader`` or ``viewer``.
        outsiders_may_have_written: someone outside may have edited it
            (``outsidersMayHaveWritten``).
        listed_kind: its kind (``listedKind``).
        pinned: it is pinned.
    """

    title: str
    url: str
    favicon: str | None = None
    updated_at: str | None = None
    rel: Literal["mine", "shared"] | None = None
    external: bool | None = None
    role: Literal["editor", "commenter", "reader", "viewer"] | None = None
    outsiders_may_have_written: bool | None = None
    listed_kind: str | None = None
    pinned: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactListOutput(WireModel):
    """Result of the ``Artifact`` tool's ``list`` action.

    Attributes:
        artifacts: the artifacts.
        truncated: more exist.
        total: how many there are.
        total_at_least: `total` is a floor.
        next_page_token: the token of the next page.
        pins_enabled: pins are available.
        scope: ``shared`` or ``all`` (absent for the user's own).
        external_listed: artifacts from outside the organization are listed.
    """

    artifacts: list[ArtifactListing]
    truncated: bool | None = None
    total: int | None = None
    total_at_least: bool | None = None
    next_page_token: str | None = None
    pins_enabled: bool | None = None
    scope: Literal["shared", "all"] | None = None
    external_listed: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactReadResult(WireModel):
    """What an ``Artifact`` ``read`` fetched (`ArtifactReadOutput.read`).

    Attributes:
        url: the artifact.
        bytes: the size fetched.
        code: the HTTP status code.
        code_text: the HTTP status text (``codeText``).
        result: the content, or the summary of someone else's artifact.
        duration_ms: how long it took (``durationMs``).
        title: its title.
    """

    url: str
    bytes: int
    code: int
    code_text: str
    result: str
    duration_ms: float
    title: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactReadOutput(WireModel):
    """Result of the ``Artifact`` tool's ``read`` action.

    Attributes:
        read: what was read.
        owned: the user owns the artifact.
        artifact_read: the saved Artifact this read viewed (``artifactRead``).
    """

    read: ArtifactReadResult
    owned: bool | None = None
    artifact_read: ArtifactReadRef | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactWatch(WireModel):
    """The outcome of an ``Artifact`` ``watch`` (`ArtifactWatchOutput.watch`).

    Attributes:
        url: the artifact.
        watching: the session now watches it.
        outcome: what happened.
        reason: why.
        durable_skip_reason: why no durable watch was made.
        task_id: the watch's task.
        since: when the watch started, in epoch milliseconds.
        token_expires_at: when its token expires, in epoch milliseconds.
        rail: the kind of watch.
        trigger_id: a durable watch's trigger.
        durable_since: when the durable watch started.
        status: an HTTP status.
        detail: details.
        note: a note.
        events: the events watched.
    """

    url: str
    watching: bool
    outcome: str
    reason: str | None = None
    durable_skip_reason: str | None = None
    task_id: str | None = None
    since: float | None = None
    token_expires_at: float | None = None
    rail: str | None = None
    trigger_id: str | None = None
    durable_since: str | None = None
    status: int | None = None
    detail: str | None = None
    note: str | None = None
    events: list[str] | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactWatchOutput(WireModel):
    """Result of the ``Artifact`` tool's ``watch`` action.

    Attributes:
        watch: the outcome.
    """

    watch: ArtifactWatch


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactUnwatch(WireModel):
    """The outcome of an ``Artifact`` ``unwatch``.

    Attributes:
        url: the artifact.
        was_watching: the session was watching it.
    """

    url: str
    was_watching: bool


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactUnwatchOutput(WireModel):
    """Result of the ``Artifact`` tool's ``unwatch`` action.

    Attributes:
        unwatch: the outcome.
    """

    unwatch: ArtifactUnwatch


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactLiveWatch(WireModel):
    """A live watch of a ``status`` result.

    Attributes:
        url: the artifact.
        task_id: the watch's task.
        since: when it started, in epoch milliseconds.
        explicit: the user asked for it.
        connected: it is connected.
        token_expires_at: when its token expires, in epoch milliseconds.
        connecting: it is connecting.
        armed_via: how it was set up.
    """

    url: str
    task_id: str
    since: float
    explicit: bool
    connected: bool
    token_expires_at: float
    connecting: bool | None = None
    armed_via: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactDurableWatch(WireModel):
    """A durable watch (a trigger that wakes the session) of a ``status`` result.

    Attributes:
        url: the artifact.
        rail: always ``durable_wake``.
        trigger_id: its trigger.
        since: when it started.
        events: the events watched.
        restored: it was restored.
    """

    url: str
    rail: Literal["durable_wake"]
    trigger_id: str
    since: str
    events: list[str] | None = None
    restored: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactStoppedWatch(WireModel):
    """A stopped live watch of a ``status`` result.

    Attributes:
        url: the artifact.
        rail: always ``live_stopped``.
        stop_kind: why it stopped.
        since: when it started, in epoch milliseconds.
        explicit: the user asked for it.
        armed_via: how it was set up.
    """

    url: str
    rail: Literal["live_stopped"]
    stop_kind: str
    since: float | None = None
    explicit: bool | None = None
    armed_via: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactWatchArm(WireModel):
    """An attempt to set up a watch, of a ``status`` result.

    Attributes:
        url: the artifact.
        state: its state.
        rail: the kind of watch.
        reconnect: it will reconnect.
        failures: failures so far.
        max_failures: failures allowed.
        next_in_s: seconds to the next attempt.
        last_failure: the last failure.
        reason: why.
        detail: details.
        server_message: the server's message.
        at: when, in epoch milliseconds.
    """

    url: str
    state: str
    rail: str | None = None
    reconnect: bool | None = None
    failures: int | None = None
    max_failures: int | None = None
    next_in_s: float | None = None
    last_failure: str | None = None
    reason: str | None = None
    detail: str | None = None
    server_message: str | None = None
    at: float | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactStatusOutput(WireModel):
    """Result of the ``Artifact`` tool's ``status`` action: the session's watches.

    Attributes:
        watches: the watches.
        filter_url: the artifact asked about.
        arms: attempts to set up watches.
    """

    watches: list[ArtifactDurableWatch | ArtifactStoppedWatch | ArtifactLiveWatch]
    filter_url: str | None = None
    arms: list[ArtifactWatchArm] | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactWritten(WireModel):
    """The artifact an asset change wrote (``written``).

    Attributes:
        url: the artifact.
    """

    url: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAsset(WireModel):
    """An asset uploaded to an artifact.

    Attributes:
        id: the asset.
        url: its URL.
        size_bytes: its size.
        content_type: its MIME type.
        file_name: its file name.
        sha256: its SHA-256.
    """

    id: str
    url: str
    size_bytes: int
    content_type: str
    file_name: str
    sha256: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAssetUploadOutput(WireModel):
    """Result of the ``Artifact`` tool's ``upload_asset`` action for one file.

    Attributes:
        asset_upload: the asset.
        written: the artifact written.
        owned: the user owns it.
    """

    asset_upload: ArtifactAsset
    written: ArtifactWritten | None = None
    owned: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAssetUploaded(WireModel):
    """A file of a several-file upload that was uploaded.

    Attributes:
        file_path: the local file.
        id: the asset.
        url: its URL.
        size_bytes: its size.
        content_type: its MIME type.
        file_name: its file name.
        status: always ``uploaded``.
        sha256: its SHA-256.
    """

    file_path: str
    id: str
    url: str
    size_bytes: int
    content_type: str
    file_name: str
    status: Literal["uploaded"] = "uploaded"
    sha256: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAssetNotUploaded(WireModel):
    """A file of a several-file upload that was not uploaded.

    Attributes:
        file_path: the local file.
        status: ``failed`` or ``not_attempted``.
        reason: why, as a code.
        message: why, in words.
        may_be_stored: it may have been stored all the same.
    """

    file_path: str
    status: Literal["failed", "not_attempted"]
    reason: str
    message: str
    may_be_stored: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAssetUploads(WireModel):
    """The outcome of a several-file upload.

    Attributes:
        url: the artifact.
        results: one entry per file (1 to 25).
    """

    url: str
    results: list[ArtifactAssetUploaded | ArtifactAssetNotUploaded]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAssetUploadsOutput(WireModel):
    """Result of the ``Artifact`` tool's ``upload_asset`` action for several files.

    Attributes:
        asset_uploads: the outcome.
        written: the artifact written.
        owned: the user owns it.
    """

    asset_uploads: ArtifactAssetUploads
    written: ArtifactWritten | None = None
    owned: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactStoredAsset(WireModel):
    """One asset of an artifact's asset store.

    Attributes:
        id: the asset.
        url: its URL.
        content_type: its MIME type.
        size_bytes: its size.
        created_at: when it was stored.
        sha256: its SHA-256.
    """

    id: str
    url: str
    content_type: str
    size_bytes: int
    created_at: str
    sha256: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAssetUsage(WireModel):
    """How full an artifact's asset store is.

    Attributes:
        files: files stored.
        bytes: bytes stored.
        max_files: files allowed.
        max_bytes: bytes allowed.
    """

    files: int
    bytes: int
    max_files: int
    max_bytes: int


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAssetList(WireModel):
    """An artifact's asset store (`ArtifactAssetListOutput.asset_list`).

    Attributes:
        url: the artifact.
        assets: the assets (at most 1000 a page).
        usage: how full the store is.
        next: the value that continues the listing.
        cowritten: someone else also writes the artifact.
        outside_writer: someone outside the organization writes it.
    """

    url: str
    assets: list[ArtifactStoredAsset]
    usage: ArtifactAssetUsage
    next: str | None = None
    cowritten: bool | None = None
    outside_writer: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAssetListOutput(WireModel):
    """Result of the ``Artifact`` tool's ``list_assets`` action.

    Attributes:
        asset_list: the asset store.
    """

    asset_list: ArtifactAssetList


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAssetRead(WireModel):
    """An asset saved to a local file (`ArtifactAssetReadOutput.asset_read`).

    Attributes:
        id: the asset.
        path: the local file.
        size_bytes: its size.
        content_type: its MIME type.
        sha256: its SHA-256.
        cowritten: someone else also writes the artifact.
        outside_writer: someone outside the organization writes it.
        public_read: the asset is public.
        foreign: the artifact belongs to someone else.
    """

    id: str
    path: str
    size_bytes: int
    content_type: str
    sha256: str
    cowritten: bool | None = None
    outside_writer: bool | None = None
    public_read: bool | None = None
    foreign: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAssetReadOutput(WireModel):
    """Result of the ``Artifact`` tool's ``read_asset`` action.

    Attributes:
        asset_read: the asset saved.
    """

    asset_read: ArtifactAssetRead


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAssetDelete(WireModel):
    """The outcome of deleting an asset.

    Attributes:
        id: the asset.
        deleted: it was deleted.
    """

    id: str
    deleted: bool


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactAssetDeleteOutput(WireModel):
    """Result of the ``Artifact`` tool's ``delete_asset`` action.

    Attributes:
        asset_delete: the outcome.
        written: the artifact written.
        owned: the user owns it.
    """

    asset_delete: ArtifactAssetDelete
    written: ArtifactWritten | None = None
    owned: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactPin(WireModel):
    """The outcome of pinning or unpinning an artifact.

    Attributes:
        action: ``pin`` or ``unpin``.
        url: the artifact.
        pinned: it is now pinned.
        title: its title.
    """

    action: Literal["pin", "unpin"]
    url: str
    pinned: bool
    title: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactPinOutput(WireModel):
    """Result of the ``Artifact`` tool's ``pin`` and ``unpin`` actions.

    Attributes:
        pin: the outcome.
    """

    pin: ArtifactPin


#: The result of the ``Artifact`` tool: each action's result has its own key (a publish's
#: ``url`` and ``path``, a listing's ``artifacts``, ...), which tells them apart.
ArtifactOutput: TypeAlias = (
    ArtifactListOutput
    | ArtifactReadOutput
    | ArtifactWatchOutput
    | ArtifactUnwatchOutput
    | ArtifactStatusOutput
    | ArtifactAssetUploadOutput
    | ArtifactAssetUploadsOutput
    | ArtifactAssetListOutput
    | ArtifactAssetReadOutput
    | ArtifactAssetDeleteOutput
    | ArtifactPinOutput
    | ArtifactPublishOutput
)


# ======================================================================================
# Lookup

#: Any typed tool output.
ToolOutput: TypeAlias = (
    AgentOutput
    | BashOutput
    | TaskStopOutput
    | MonitorOutput
    | ReadOutput
    | EditOutput
    | WriteOutput
    | NotebookEditOutput
    | GlobOutput
    | GrepOutput
    | WebFetchOutput
    | WebSearchOutput
    | TodoWriteOutput
    | AskUserQuestionOutput
    | EnterPlanModeOutput
    | ExitPlanModeOutput
    | EnterWorktreeOutput
    | ExitWorktreeOutput
    | TaskCreateOutput
    | TaskGetOutput
    | TaskUpdateOutput
    | TaskListOutput
    | CronCreateOutput
    | CronDeleteOutput
    | CronListOutput
    | ScheduleWakeupOutput
    | ListMcpResourcesOutput
    | RefreshMcpToolsOutput
    | ReadMcpResourceDirOutput
    | ReadMcpResourceOutput
    | McpOutput
    | ReportFindingsOutput
    | SendFeedbackOutput
    | ProposeGoalOutput
    | ProposeSkillsOutput
    | PushNotificationOutput
    | ReadNotificationsOutput
    | ShowOnboardingRolePickerOutput
    | OfferChromeSetupOutput
    | WorkflowOutput
    | RemoteTriggerOutput
    | ClaudeDesignOutput
    | ProjectsOutput
    | ArtifactOutput
)

#: The output type of each built-in tool, by tool name (several names for renamed tools): a
#: class, a union of classes, or a list. MCP tools are not listed (see `typed_output`).
TOOL_OUTPUTS: Mapping[str, Any] = types.MappingProxyType(
    {
        "Agent": AgentOutput,
        "Task": AgentOutput,
        "Bash": BashOutput,
        "TaskStop": TaskStopOutput,
        "KillShell": TaskStopOutput,
        "KillBash": TaskStopOutput,
        "Monitor": MonitorOutput,
        "Read": ReadOutput,
        "Edit": EditOutput,
        "Write": WriteOutput,
        "NotebookEdit": NotebookEditOutput,
        "Glob": GlobOutput,
        "Grep": GrepOutput,
        "WebFetch": WebFetchOutput,
        "WebSearch": WebSearchOutput,
        "TodoWrite": TodoWriteOutput,
        "AskUserQuestion": AskUserQuestionOutput,
        "EnterPlanMode": EnterPlanModeOutput,
        "ExitPlanMode": ExitPlanModeOutput,
        "EnterWorktree": EnterWorktreeOutput,
        "ExitWorktree": ExitWorktreeOutput,
        "TaskCreate": TaskCreateOutput,
        "TaskGet": TaskGetOutput,
        "TaskUpdate": TaskUpdateOutput,
        "TaskList": TaskListOutput,
        "CronCreate": CronCreateOutput,
        "CronDelete": CronDeleteOutput,
        "CronList": CronListOutput,
        "ScheduleWakeup": ScheduleWakeupOutput,
        "ListMcpResourcesTool": ListMcpResourcesOutput,
        "ListMcpResources": ListMcpResourcesOutput,
        "RefreshMcpTools": RefreshMcpToolsOutput,
        "ReadMcpResourceDirTool": ReadMcpResourceDirOutput,
        "ReadMcpResourceDir": ReadMcpResourceDirOutput,
        "ReadMcpResourceTool": ReadMcpResourceOutput,
        "ReadMcpResource": ReadMcpResourceOutput,
        "ReportFindings": ReportFindingsOutput,
        "SendFeedback": SendFeedbackOutput,
        "SetGoal": ProposeGoalOutput,
        "ProposeGoal": ProposeGoalOutput,
        "propose_skills": ProposeSkillsOutput,
        "PushNotification": PushNotificationOutput,
        "ReadNotifications": ReadNotificationsOutput,
        "ShowOnboardingRolePicker": ShowOnboardingRolePickerOutput,
        "OfferChromeSetup": OfferChromeSetupOutput,
        "Workflow": WorkflowOutput,
        "RemoteTrigger": RemoteTriggerOutput,
        "ClaudeDesign": ClaudeDesignOutput,
        "Projects": ProjectsOutput,
        "Artifact": ArtifactOutput,
    }
)

#: The wire keys that are not the field's name (every other key is the field's name). The
#: codec's schema reads this table too.
WIRE_KEYS: Mapping[type, Mapping[str, str]] = {
    AgentToolStats: {
        "read_count": "readCount",
        "search_count": "searchCount",
        "bash_count": "bashCount",
        "edit_file_count": "editFileCount",
        "lines_added": "linesAdded",
        "lines_removed": "linesRemoved",
        "other_tool_count": "otherToolCount",
        "frame_count": "frameCount",
    },
    AgentHandbackReport: {"tool_use_id": "toolUseId"},
    AgentCompletedOutput: {
        "agent_id": "agentId",
        "agent_type": "agentType",
        "resolved_model": "resolvedModel",
        "models_used": "modelsUsed",
        "total_tool_use_count": "totalToolUseCount",
        "total_duration_ms": "totalDurationMs",
        "total_tokens": "totalTokens",
        "tools_used": "toolsUsed",
        "tool_stats": "toolStats",
        "worktree_path": "worktreePath",
        "worktree_branch": "worktreeBranch",
        "can_continue_agent": "canContinueAgent",
        "harness_note_count": "harnessNoteCount",
        "harness_tail_count": "harnessTailCount",
        "harness_section_hash": "harnessSectionHash",
        "handback_report": "handbackReport",
        "in_place": "inPlace",
        "task_calls": "taskCalls",
    },
    AgentAsyncLaunchedOutput: {
        "is_async": "isAsync",
        "agent_id": "agentId",
        "resolved_model": "resolvedModel",
        "models_used": "modelsUsed",
        "output_file": "outputFile",
        "can_read_output_file": "canReadOutputFile",
        "can_continue_agent": "canContinueAgent",
        "waits_at_permission_prompt": "waitsAtPermissionPrompt",
        "shares_cwd": "sharesCwd",
    },
    AgentRemoteLaunchedOutput: {
        "task_id": "taskId",
        "session_url": "sessionUrl",
        "output_file": "outputFile",
    },
    PatchHunk: {
        "old_start": "oldStart",
        "old_lines": "oldLines",
        "new_start": "newStart",
        "new_lines": "newLines",
    },
    BashEditedFile: {"file_path": "filePath"},
    BashEditDiff: {"more_files": "moreFiles", "changed_files": "changedFiles"},
    BashOutput: {
        "raw_output_path": "rawOutputPath",
        "is_image": "isImage",
        "background_task_id": "backgroundTaskId",
        "background_output_path": "backgroundOutputPath",
        "backgrounded_by_user": "backgroundedByUser",
        "backgrounded_by_turn_abort": "backgroundedByTurnAbort",
        "backgrounded_to_deliver_message": "backgroundedToDeliverMessage",
        "backgrounded_for_agent_report": "backgroundedForAgentReport",
        "timed_out_after_ms": "timedOutAfterMs",
        "subagent_cap_applied": "subagentCapApplied",
        "background_cwd_hint": "backgroundCwdHint",
        "background_ends_with_final_response": "backgroundEndsWithFinalResponse",
        "background_wakes_owner": "backgroundWakesOwner",
        "dangerously_disable_sandbox": "dangerouslyDisableSandbox",
        "return_code_interpretation": "returnCodeInterpretation",
        "no_output_expected": "noOutputExpected",
        "structured_content": "structuredContent",
        "persisted_output_path": "persistedOutputPath",
        "persisted_output_size": "persistedOutputSize",
        "stdout_holds_output_end": "stdoutHoldsOutputEnd",
        "memory_limit_note": "memoryLimitNote",
        "triggered_note": "triggeredNote",
        "stale_read_file_state_hint": "staleReadFileStateHint",
        "gh_rate_limit_hint": "ghRateLimitHint",
        "git_operation": "gitOperation",
        "bash_edit_diff": "bashEditDiff",
        "viewed_image_paths": "viewedImagePaths",
        "viewed_images": "viewedImages",
    },
    MonitorOutput: {
        "task_id": "taskId",
        "timeout_ms": "timeoutMs",
        "kept_in_sandbox_by_check": "keptInSandboxByCheck",
    },
    ReadTextFile: {
        "file_path": "filePath",
        "num_lines": "numLines",
        "start_line": "startLine",
        "total_lines": "totalLines",
        "truncated_by_token_cap": "truncatedByTokenCap",
    },
    ReadTextOutput: {"artifact_read": "artifactRead"},
    ImageDimensions: {
        "original_width": "originalWidth",
        "original_height": "originalHeight",
        "display_width": "displayWidth",
        "display_height": "displayHeight",
    },
    ReadImageFile: {"original_size": "originalSize"},
    ReadNotebookFile: {"file_path": "filePath"},
    ReadPdfFile: {"file_path": "filePath", "original_size": "originalSize"},
    ReadPartsFile: {
        "file_path": "filePath",
        "original_size": "originalSize",
        "output_dir": "outputDir",
    },
    PdfPageImage: {"media_type": "mediaType"},
    ReadPartsOutput: {"first_page": "firstPage", "total_pages": "totalPages"},
    EditOutput: {
        "file_path": "filePath",
        "old_string": "oldString",
        "new_string": "newString",
        "original_file": "originalFile",
        "structured_patch": "structuredPatch",
        "user_modified": "userModified",
        "replace_all": "replaceAll",
        "git_diff": "gitDiff",
        "staged_wording": "stagedWording",
        "stale_recovered": "staleRecovered",
        "content_not_in_model_context": "contentNotInModelContext",
        "synced_skill_next": "syncedSkillNext",
    },
    WriteOutput: {
        "file_path": "filePath",
        "structured_patch": "structuredPatch",
        "original_file": "originalFile",
        "git_diff": "gitDiff",
        "user_modified": "userModified",
        "staged_wording": "stagedWording",
        "memdir_stamped": "memdirStamped",
        "synced_skill_next": "syncedSkillNext",
    },
    GlobOutput: {
        "duration_ms": "durationMs",
        "num_files": "numFiles",
        "total_matches": "totalMatches",
        "count_is_complete": "countIsComplete",
        "timed_out": "timedOut",
    },
    GrepOutput: {
        "num_files": "numFiles",
        "num_lines": "numLines",
        "num_matches": "numMatches",
        "total_files": "totalFiles",
        "total_lines": "totalLines",
        "applied_limit": "appliedLimit",
        "applied_offset": "appliedOffset",
        "timed_out": "timedOut",
    },
    WebFetchOutput: {
        "code_text": "codeText",
        "duration_ms": "durationMs",
        "artifact_read": "artifactRead",
    },
    WebSearchOutput: {
        "duration_seconds": "durationSeconds",
        "search_count": "searchCount",
        "plain_page_text": "plainPageText",
    },
    TodoWriteOutput: {"old_todos": "oldTodos", "new_todos": "newTodos"},
    AskUserQuestionOutput: {"afk_timeout_ms": "afkTimeoutMs", "follow_up": "followUp"},
    ExitPlanModeOutput: {
        "is_agent": "isAgent",
        "file_path": "filePath",
        "has_task_tool": "hasTaskTool",
        "plan_was_edited": "planWasEdited",
        "awaiting_leader_approval": "awaitingLeaderApproval",
        "request_id": "requestId",
    },
    EnterWorktreeOutput: {
        "worktree_path": "worktreePath",
        "worktree_branch": "worktreeBranch",
        "sandbox_note": "sandboxNote",
    },
    ExitWorktreeOutput: {
        "original_cwd": "originalCwd",
        "worktree_path": "worktreePath",
        "worktree_branch": "worktreeBranch",
        "tmux_session_name": "tmuxSessionName",
        "discarded_files": "discardedFiles",
        "discarded_commits": "discardedCommits",
        "restored_cwd": "restoredCwd",
        "original_cwd_missing": "originalCwdMissing",
        "release_note": "releaseNote",
        "sandbox_note": "sandboxNote",
    },
    TaskCreateOutput: {"app_keeps_statuses": "appKeepsStatuses"},
    TaskDetails: {"blocked_by": "blockedBy"},
    TaskStatusChange: {"from_": "from"},
    TaskUpdateOutput: {
        "task_id": "taskId",
        "updated_fields": "updatedFields",
        "status_change": "statusChange",
    },
    TaskSummary: {"blocked_by": "blockedBy"},
    OneShotJob: {"human_schedule": "humanSchedule"},
    CronCreateOutput: {
        "human_schedule": "humanSchedule",
        "next_fire_at": "nextFireAt",
        "max_age_ms": "maxAgeMs",
        "other_one_shots": "otherOneShots",
    },
    CronDeleteOutput: {"ended_loop_wakeup": "endedLoopWakeup"},
    CronJob: {"human_schedule": "humanSchedule", "next_fire_at": "nextFireAt"},
    ScheduleWakeupOutput: {
        "scheduled_for": "scheduledFor",
        "clamped_delay_seconds": "clampedDelaySeconds",
        "was_clamped": "wasClamped",
        "cancelled_wakeups": "cancelledWakeups",
    },
    McpResource: {"mime_type": "mimeType"},
    McpToolsRefresh: {"tool_count": "toolCount"},
    McpResourceEntry: {"mime_type": "mimeType"},
    McpResourceContent: {"mime_type": "mimeType", "blob_saved_to": "blobSavedTo"},
    McpStructuredOutput: {"structured_content": "structuredContent"},
    ProposeGoalOutput: {"ask_user": "askUser"},
    ProposeSkillsOutput: {"proposal_count": "proposalCount"},
    PushNotificationOutput: {
        "push_sent": "pushSent",
        "local_sent": "localSent",
        "disabled_reason": "disabledReason",
        "sent_at": "sentAt",
    },
    WorkflowOutput: {
        "task_id": "taskId",
        "task_type": "taskType",
        "workflow_name": "workflowName",
        "run_id": "runId",
        "transcript_dir": "transcriptDir",
        "script_path": "scriptPath",
        "session_url": "sessionUrl",
    },
    ClaudeDesignOutput: {"is_error": "isError"},
    ArtifactStored: {"preferred_contract": "preferredContract"},
    ArtifactPublishOutput: {
        "publishes_remaining": "publishesRemaining",
        "publishes_reset_at": "publishesResetAt",
        "favicon_sent": "faviconSent",
        "icon_dropped": "iconDropped",
        "live_subscription": "liveSubscription",
        "verify_guide": "verifyGuide",
        "edits_applied": "editsApplied",
        "edits_not_written": "editsNotWritten",
        "seeded_thread": "seededThread",
    },
    ArtifactListing: {
        "updated_at": "updatedAt",
        "outsiders_may_have_written": "outsidersMayHaveWritten",
        "listed_kind": "listedKind",
    },
    ArtifactReadResult: {"code_text": "codeText", "duration_ms": "durationMs"},
    ArtifactReadOutput: {"artifact_read": "artifactRead"},
}

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

"""Typed views of the inputs of Claude Code's built-in tools.

``can_use_tool`` callbacks and tool hooks receive a tool's input as the dict the CLI sent
(``tool_input``). `typed_input` gives the same input as a frozen attrs value for the tools
this module knows (one class per tool, listed in `TOOL_INPUTS`), or None for any other tool.

Shapes follow the CLI's tool schemas (CLI 2.1.330 and 2.1.331; the official TypeScript SDK's
``sdk-tools.d.ts`` declares the same, and its 44 input types all have a class here), plus tools
that older CLIs still offer (``MultiEdit``, ``TodoWrite``, ``BashOutput``, ``KillShell``), and
the fields the CLI accepts beyond ``sdk-tools.d.ts`` (the question kinds of
``AskUserQuestion``). Most keys are snake_case, as here; the few that are not
(``dangerouslyDisableSandbox``, ``activeForm``, Grep's ``-A`` / ``-n`` flags, ...) are listed in
`WIRE_KEYS`, which the codec reads too. Any MCP tool (``mcp__<server>__<tool>``) gives an
`McpInput`, whose keys are all the tool's own (in ``extra``). The typed results of the same
tools are in ``claude_sdk.tool_outputs``.

Contract:

* ``typed_input(name, tool_input)`` never raises. It returns None for a tool it does not know,
  and for an input that does not fit the tool's class: a required key missing, or a value of
  the wrong JSON type. A value outside a ``Literal`` (say a new todo status) still fits: a newer
  CLI may add values, and the view is then as good as the dict.
* Keys the class does not know are kept in ``extra`` (excluded from equality), so
  ``wire.to_dict(typed_input(name, d)) == d``: the view loses nothing. The view is made here,
  in the model layer, the way the codec makes a decoded value (the dict becomes the
  instance's ``__dict__``), so that it needs no codec.
* The view is decoded from a shallow copy of ``tool_input``; lists of plain values inside it
  are shared with the dict.
* Optional fields the input did not carry read as None; a view built in Python leaves out the
  optional fields it does not set (see ``claude_sdk._base``).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

import attrs

from ._base import WireModel, prepare_class

__all__ = [
    # file tools
    "ReadInput",
    "WriteInput",
    "EditInput",
    "EditOperation",
    "MultiEditInput",
    "NotebookEditInput",
    # search
    "GlobInput",
    "GrepInput",
    # shell and background tasks
    "BashInput",
    "BashOutputInput",
    "TaskOutputInput",
    "TaskStopInput",
    "MonitorInput",
    # web
    "WebFetchInput",
    "WebSearchInput",
    # agents, planning, questions
    "AgentInput",
    "TodoItem",
    "TodoWriteInput",
    "TaskCreateInput",
    "TaskGetInput",
    "TaskUpdateInput",
    "TaskListInput",
    "QuestionOption",
    "UserQuestion",
    "AskUserQuestionInput",
    "AllowedPrompt",
    "ExitPlanModeInput",
    "EnterPlanModeInput",
    "EnterWorktreeInput",
    "ExitWorktreeInput",
    "ListAgentsInput",
    "SendMessageInput",
    # scheduling
    "CronCreateInput",
    "CronDeleteInput",
    "CronListInput",
    "ScheduleWakeupInput",
    # MCP
    "ListMcpResourcesInput",
    "ReadMcpResourceInput",
    "ReadMcpResourceDirInput",
    "RefreshMcpToolsInput",
    "McpInput",
    # reviews, feedback, goals, skills, notifications
    "Finding",
    "ReportFindingsInput",
    "SendFeedbackInput",
    "ProposeGoalInput",
    "SkillEdit",
    "SkillProposal",
    "ProposeSkillsInput",
    "SkillInput",
    "PushNotificationInput",
    "ReadNotificationsInput",
    "ShowOnboardingRolePickerInput",
    "OfferChromeSetupInput",
    # workflows, triggers, claude.ai services
    "WorkflowInput",
    "RemoteTriggerInput",
    "ClaudeDesignInput",
    "ProjectsInput",
    "ArtifactInput",
    # lookup
    "ToolInput",
    "TOOL_INPUTS",
    "MCP_TOOL_PREFIX",
    "is_mcp_tool",
    "typed_input",
    "WIRE_KEYS",
    "register",
]

_JSON = dict[str, Any]


# ======================================================================================
# File tools


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadInput(WireModel):
    """Input of the ``Read`` tool: read a file (text, image, PDF or notebook).

    Attributes:
        file_path: the absolute path of the file.
        offset: the line to start reading from.
        limit: how many lines to read.
        pages: a page range for a PDF, e.g. ``"1-5"``.
        allow_large: read a text file over the usual size limits (up to what fits).
    """

    file_path: str
    offset: int | None = None
    limit: int | None = None
    pages: str | None = None
    allow_large: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class WriteInput(WireModel):
    """Input of the ``Write`` tool: create or overwrite a file.

    Attributes:
        file_path: the absolute path of the file.
        content: the whole new content.
    """

    file_path: str
    content: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class EditInput(WireModel):
    """Input of the ``Edit`` tool: replace an exact string in a file.

    Attributes:
        file_path: the absolute path of the file.
        old_string: the text to replace.
        new_string: the replacement.
        replace_all: replace every occurrence (default: exactly one must match).
    """

    file_path: str
    old_string: str
    new_string: str
    replace_all: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class EditOperation(WireModel):
    """One replacement of a ``MultiEdit`` call (as in `EditInput`, without the path)."""

    old_string: str
    new_string: str
    replace_all: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class MultiEditInput(WireModel):
    """Input of the ``MultiEdit`` tool (older CLIs): several edits of one file, in order.

    Attributes:
        file_path: the absolute path of the file.
        edits: the replacements, applied one after the other.
    """

    file_path: str
    edits: list[EditOperation]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class NotebookEditInput(WireModel):
    """Input of the ``NotebookEdit`` tool: replace, insert or delete a Jupyter cell.

    Attributes:
        notebook_path: the absolute path of the ``.ipynb`` file.
        new_source: the cell's new source.
        cell_id: the cell to edit (for an insert: the cell to insert after).
        cell_type: ``code`` or ``markdown`` (required to insert).
        edit_mode: ``replace`` (the default), ``insert`` or ``delete``.
    """

    notebook_path: str
    new_source: str
    cell_id: str | None = None
    cell_type: Literal["code", "markdown"] | None = None
    edit_mode: Literal["replace", "insert", "delete"] | None = None


# ======================================================================================
# Search


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class GlobInput(WireModel):
    """Input of the ``Glob`` tool: find files by name pattern.

    Attributes:
        pattern: the glob, e.g. ``"src/**/*.py"``.
        path: the directory to search (default: the working directory).
    """

    pattern: str
    path: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class GrepInput(WireModel):
    """Input of the ``Grep`` tool: search file contents with ripgrep.

    The flag-named keys get readable names here: ``-B`` is `lines_before`, ``-A``
    `lines_after`, ``-C`` `lines_around` (an alias of ``context``), ``-n`` `line_numbers`,
    ``-i`` `case_insensitive`, ``-o`` `only_matching`.

    Attributes:
        pattern: the regular expression.
        path: the file or directory to search (default: the working directory).
        glob: a glob that filters the files searched (``rg --glob``).
        output_mode: ``files_with_matches`` (the default), ``content`` or ``count``.
        lines_before: ``-B``, lines of context before each match.
        lines_after: ``-A``, lines of context after each match.
        lines_around: ``-C``, lines of context around each match.
        context: lines of context around each match (the same as ``-C``).
        line_numbers: ``-n``, show line numbers.
        case_insensitive: ``-i``, ignore case.
        only_matching: ``-o``, print only the matched parts.
        type: a ripgrep file type (``rg --type``), e.g. ``py``.
        head_limit: at most this many lines or entries.
        offset: skip this many lines or entries first.
        multiline: let patterns span lines (``rg -U --multiline-dotall``).
    """

    pattern: str
    path: str | None = None
    glob: str | None = None
    output_mode: Literal["content", "files_with_matches", "count"] | None = None
    lines_before: int | None = None
    lines_after: int | None = None
    lines_around: int | None = None
    context: int | None = None
    line_numbers: bool | None = None
    case_insensitive: bool | None = None
    only_matching: bool | None = None
    type: str | None = None
    head_limit: int | None = None
    offset: int | None = None
    multiline: bool | None = None


# ======================================================================================
# Shell and background tasks


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class BashInput(WireModel):
    """Input of the ``Bash`` tool: run a shell command.

    Attributes:
        command: the command line.
        timeout: a timeout in milliseconds.
        description: what the command does, in a few words.
        run_in_background: run it as a background task.
        dangerously_disable_sandbox: run it outside the sandbox
            (``dangerouslyDisableSandbox`` on the wire).
    """

    command: str
    timeout: float | None = None
    description: str | None = None
    run_in_background: bool | None = None
    dangerously_disable_sandbox: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class BashOutputInput(WireModel):
    """Input of the ``BashOutput`` tool (older CLIs): read a background shell's new output.

    Attributes:
        bash_id: the background shell.
        filter: a regular expression the returned lines must match.
    """

    bash_id: str
    filter: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskOutputInput(WireModel):
    """Input of the ``TaskOutput`` tool: read a background task's output.

    Attributes:
        task_id: the task.
        block: wait for the task to finish.
        timeout: how long to wait, in milliseconds.
    """

    task_id: str
    block: bool | None = None
    timeout: float | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskStopInput(WireModel):
    """Input of the ``TaskStop`` tool (``KillShell`` / ``KillBash`` in older CLIs): stop a
    background task.

    Attributes:
        task_id: the task (or a named background agent).
        shell_id: the older name of ``task_id``.
    """

    task_id: str | None = None
    shell_id: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class MonitorInput(WireModel):
    """Input of the ``Monitor`` tool: watch a command's output (or a WebSocket) as events.

    Attributes:
        description: what is watched (shown in notifications).
        timeout_ms: stop after this long.
        persistent: watch for the whole session.
        command: a shell command; each stdout line is an event.
        ws: ``{url, protocols?}``, a WebSocket to watch instead.
    """

    description: str
    timeout_ms: float | None = None
    persistent: bool | None = None
    command: str | None = None
    ws: _JSON | None = None


# ======================================================================================
# Web


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class WebFetchInput(WireModel):
    """Input of the ``WebFetch`` tool: fetch a URL and run a prompt over its content.

    Attributes:
        url: the URL.
        prompt: what to extract from the page.
        offset: the character of the page text to read on from (a previous result's).
    """

    url: str
    prompt: str
    offset: int | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class WebSearchInput(WireModel):
    """Input of the ``WebSearch`` tool.

    Attributes:
        query: the search query.
        allowed_domains: only results from these domains.
        blocked_domains: never results from these domains.
    """

    query: str
    allowed_domains: list[str] | None = None
    blocked_domains: list[str] | None = None


# ======================================================================================
# Agents, tasks, planning, questions


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class AgentInput(WireModel):
    """Input of the ``Agent`` tool (named ``Task`` in the init message and older CLIs):
    start a subagent.

    Attributes:
        description: a short description of the task.
        prompt: the task for the agent.
        subagent_type: the kind of agent (default: the general-purpose one).
        model: a model alias overriding the agent's, e.g. ``"haiku"``.
        effort: a reasoning effort for the agent (``low`` ... ``max``).
        run_in_background: run the agent in the background.
        name: a name that makes the agent addressable while it runs.
        team_name: deprecated, ignored by current CLIs.
        mode: deprecated, ignored by current CLIs (a permission mode).
        isolation: ``"worktree"`` or ``"remote"``.
    """

    description: str
    prompt: str
    subagent_type: str | None = None
    model: str | None = None
    effort: str | None = None
    run_in_background: bool | None = None
    name: str | None = None
    team_name: str | None = None
    mode: str | None = None
    isolation: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TodoItem(WireModel):
    """One entry of a ``TodoWrite`` list.

    Attributes:
        content: what is to be done, imperative ("Run the tests").
        status: ``pending``, ``in_progress`` or ``completed``.
        active_form: the same, in the present continuous ("Running the tests";
            ``activeForm`` on the wire).
    """

    content: str
    status: Literal["pending", "in_progress", "completed"]
    active_form: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TodoWriteInput(WireModel):
    """Input of the ``TodoWrite`` tool: replace the session's todo list.

    Attributes:
        todos: the whole new list.
    """

    todos: list[TodoItem]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskCreateInput(WireModel):
    """Input of the ``TaskCreate`` tool: add a task to the session's task list.

    Attributes:
        subject: a short title.
        description: what needs to be done.
        active_form: the present continuous form shown while in progress (``activeForm``).
        metadata: arbitrary data attached to the task.
    """

    subject: str
    description: str
    active_form: str | None = None
    metadata: _JSON | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskGetInput(WireModel):
    """Input of the ``TaskGet`` tool: read one task of the task list.

    Attributes:
        task_id: the task (``taskId`` on the wire).
    """

    task_id: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskUpdateInput(WireModel):
    """Input of the ``TaskUpdate`` tool: change one task of the task list.

    Attributes:
        task_id: the task (``taskId``).
        subject: a new title.
        description: a new description.
        active_form: a new present continuous form (``activeForm``).
        status: ``pending``, ``in_progress``, ``completed`` or ``deleted``.
        add_blocks: tasks this one now blocks (``addBlocks``).
        add_blocked_by: tasks that now block this one (``addBlockedBy``).
        owner: a new owner.
        metadata: keys to merge into the task's metadata (null deletes a key).
    """

    task_id: str
    subject: str | None = None
    description: str | None = None
    active_form: str | None = None
    status: Literal["pending", "in_progress", "completed", "deleted"] | None = None
    add_blocks: list[str] | None = None
    add_blocked_by: list[str] | None = None
    owner: str | None = None
    metadata: _JSON | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class TaskListInput(WireModel):
    """Input of the ``TaskList`` tool: list the session's tasks (no fields)."""


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class QuestionOption(WireModel):
    """One choice of a `UserQuestion`.

    Attributes:
        label: the text the user picks.
        description: what choosing it means (CLI 2.1.330 may leave it out).
        preview: content shown while the option is focused.
    """

    label: str
    description: str | None = None
    preview: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class UserQuestion(WireModel):
    """One question of an ``AskUserQuestion`` call.

    The fields after `multi_select` belong to the question kinds of CLI 2.1.330 (``text`` and
    ``number`` questions, behind a feature flag); a ``choice`` question (the default) has none.

    Attributes:
        question: the full question.
        header: a very short label for it.
        options: the choices (two to four; "Other" is added by the CLI; none for ``text`` and
            ``number`` questions).
        multi_select: the user may pick several (``multiSelect`` on the wire).
        kind: ``choice``, ``text`` or ``number``.
        description: more about the question.
        placeholder: the hint of a ``text`` question's box.
        min: a ``number`` question's lowest value.
        max: a ``number`` question's highest value.
        step: a ``number`` question's step.
        default_value: a ``number`` question's initial value (``defaultValue``).
        unit: a ``number`` question's unit.
    """

    question: str
    header: str
    options: list[QuestionOption]
    multi_select: bool
    kind: Literal["choice", "text", "number"] | None = None
    description: str | None = None
    placeholder: str | None = None
    min: float | None = None
    max: float | None = None
    step: float | None = None
    default_value: float | None = None
    unit: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class AskUserQuestionInput(WireModel):
    """Input of the ``AskUserQuestion`` tool: ask the user multiple-choice questions.

    A host that answers the questions itself returns them in ``answers`` (question text ->
    answer) through ``PermissionAllow(updated_input=...)``.

    Attributes:
        questions: one to four questions.
        answers: the user's answers, by question text (a list for a multi-select answer, which
            the CLI joins with ``", "``).
        annotations: per-question ``{preview?, notes?}``, by question text.
        metadata: e.g. ``{"source": ...}``, for tracking; not shown to the user.
        title: a title over the questions (CLI 2.1.330, behind a feature flag).
    """

    questions: list[UserQuestion]
    answers: dict[str, str | list[str]] | None = None
    annotations: dict[str, _JSON] | None = None
    metadata: _JSON | None = None
    title: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class AllowedPrompt(WireModel):
    """A category of actions an `ExitPlanModeInput` asks permission for.

    Attributes:
        tool: the tool it applies to (``"Bash"``).
        prompt: the action, e.g. ``"run tests"``.
    """

    tool: str
    prompt: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ExitPlanModeInput(WireModel):
    """Input of the ``ExitPlanMode`` tool: present the plan and ask to leave plan mode.

    Attributes:
        plan: the plan, as Markdown.
        allowed_prompts: permissions the plan needs (``allowedPrompts``; deprecated).
    """

    plan: str | None = None
    allowed_prompts: list[AllowedPrompt] | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class EnterPlanModeInput(WireModel):
    """Input of the ``EnterPlanMode`` tool (no fields)."""


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class EnterWorktreeInput(WireModel):
    """Input of the ``EnterWorktree`` tool: create or switch to a git worktree.

    Attributes:
        name: a name for a new worktree.
        path: an existing worktree to switch to.
    """

    name: str | None = None
    path: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ExitWorktreeInput(WireModel):
    """Input of the ``ExitWorktree`` tool: leave the current worktree.

    Attributes:
        action: ``keep`` the worktree on disk, or ``remove`` it.
        discard_changes: confirm removing a worktree with uncommitted work.
    """

    action: Literal["keep", "remove"]
    discard_changes: bool | None = None


# ======================================================================================
# Scheduling


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class CronCreateInput(WireModel):
    """Input of the ``CronCreate`` tool: schedule a prompt.

    Attributes:
        cron: a five-field cron expression, in local time.
        prompt: the prompt to enqueue at each firing.
        recurring: fire at every match (the default) rather than once.
        durable: keep the job across restarts.
    """

    cron: str
    prompt: str
    recurring: bool | None = None
    durable: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class CronDeleteInput(WireModel):
    """Input of the ``CronDelete`` tool: cancel a scheduled job.

    Attributes:
        id: the job's id, from ``CronCreate``.
    """

    id: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class CronListInput(WireModel):
    """Input of the ``CronList`` tool (no fields)."""


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ScheduleWakeupInput(WireModel):
    """Input of the ``ScheduleWakeup`` tool: continue a ``/loop`` later (or stop it).

    Attributes:
        delay_seconds: when to wake up (``delaySeconds``).
        reason: why that delay.
        prompt: the ``/loop`` input to run on wake-up.
        stop: end the loop instead.
        noop: nothing changed since the last wake-up (such ticks are collapsed).
    """

    delay_seconds: float | None = None
    reason: str | None = None
    prompt: str | None = None
    stop: bool | None = None
    noop: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ListAgentsInput(WireModel):
    """Input of the ``ListAgents`` tool: list the agents a message can go to (`SendMessage`).

    Attributes:
        cursor: the cursor the last line of a long listing gave, for its next page.
        channel: not used by CLI 2.1.330 to 2.1.332 (declared, "leave unset").
        q: not used by CLI 2.1.330 to 2.1.332 (declared, "leave unset").
    """

    cursor: str | None = None
    channel: str | None = None
    q: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class SendMessageInput(WireModel):
    """Input of the ``SendMessage`` tool: a message to another agent.

    Attributes:
        to: the recipient (a name `ListAgentsInput` lists, a teammate, ``"main"``, or a
            background agent's id).
        message: the text (the recipient first sees its first line).
        summary: a short label for the sender's own transcript.
        notify_when_idle: tell the sender when the recipient is idle.
    """

    to: str
    message: str
    summary: str | None = None
    notify_when_idle: bool | None = None


# ======================================================================================
# MCP


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ListMcpResourcesInput(WireModel):
    """Input of the ``ListMcpResourcesTool`` tool (``ListMcpResources`` in older CLIs): list
    MCP resources.

    Attributes:
        server: only this server's resources.
    """

    server: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadMcpResourceInput(WireModel):
    """Input of the ``ReadMcpResourceTool`` tool (``ReadMcpResource`` in older CLIs): read
    one MCP resource.

    Attributes:
        server: the MCP server.
        uri: the resource's URI.
    """

    server: str
    uri: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadMcpResourceDirInput(WireModel):
    """Input of the ``ReadMcpResourceDirTool`` tool (``ReadMcpResourceDir`` in older CLIs):
    list a directory resource's children.

    Attributes:
        server: the MCP server.
        uri: the directory resource's URI.
    """

    server: str
    uri: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class RefreshMcpToolsInput(WireModel):
    """Input of the ``RefreshMcpTools`` tool: query MCP servers for their tools again.

    Attributes:
        server: only this server (default: every connected one).
    """

    server: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class McpInput(WireModel):
    """Input of an MCP tool (``mcp__<server>__<tool>``): the tool's own arguments.

    The model knows none of its keys: every argument is kept in ``extra`` (so
    ``claude_sdk.wire.drift`` lists each as an unknown field) and `arguments` gives them.
    """

    @property
    def arguments(self) -> dict[str, Any]:
        """The arguments, as the dict the model wrote."""
        return dict(self.extra)


# ======================================================================================
# Reviews, feedback, goals, skills, notifications


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class Finding(WireModel):
    """One finding of a code review (``ReportFindings``).

    Attributes:
        file: the repository-relative path of the file.
        summary: the defect.
        failure_scenario: the inputs or state that lead to the wrong result.
        line: the 1-based line the finding anchors to.
        short_summary: the claim alone, at most 60 characters.
        category: a kebab-case kind, e.g. ``"correctness"``.
        severity: ``important``, ``pre_existing`` or ``nit``.
        verdict: ``CONFIRMED`` or ``PLAUSIBLE`` (set when a verify pass ran).
        outcome: after fixes: ``fixed``, ``skipped`` or ``no_change_needed``.
    """

    file: str
    summary: str
    failure_scenario: str
    line: int | None = None
    short_summary: str | None = None
    category: str | None = None
    severity: Literal["important", "pre_existing", "nit"] | None = None
    verdict: Literal["CONFIRMED", "PLAUSIBLE"] | None = None
    outcome: Literal["fixed", "skipped", "no_change_needed"] | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReportFindingsInput(WireModel):
    """Input of the ``ReportFindings`` tool: a code review's verified findings.

    Attributes:
        findings: the findings, most severe first (empty if none survived).
        level: the effort level the review ran at (``low`` ... ``max``).
    """

    findings: list[Finding]
    level: Literal["low", "medium", "high", "xhigh", "max"] | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class SendFeedbackInput(WireModel):
    """Input of the ``SendFeedback`` tool: report a bug or an idea about Claude Code.

    Attributes:
        type: ``bug``, ``idea`` or ``missing_capability``.
        title: a one-line summary.
        details: what happened, what the user said, how to reproduce it, the evidence.
        area: the part of Claude Code it is about.
        failure_mode: for model behaviour, the closest failure mode (e.g.
            ``"instruction_following"``, ``"other"``).
        task_category: what the session was doing (e.g. ``"debug"``, ``"other"``).
    """

    type: Literal["bug", "idea", "missing_capability"]
    title: str
    details: str
    area: str | None = None
    failure_mode: str | None = None
    task_category: (
        Literal["code_edit", "debug", "explain", "plan", "shell", "search", "review", "other"]
        | None
    ) = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProposeGoalInput(WireModel):
    """Input of the ``SetGoal`` tool (``ProposeGoal`` in the TypeScript SDK): set a goal,
    a completion condition an evaluator checks.

    Attributes:
        condition: the condition, at most 500 characters.
        ask_user: ask the user to approve it first (the default).
    """

    condition: str
    ask_user: bool | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class SkillEdit(WireModel):
    """One replacement in a skill's ``SKILL.md`` (`SkillProposal.edits`).

    Attributes:
        old_string: text that occurs exactly once in the file.
        new_string: its replacement.
    """

    old_string: str
    new_string: str


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class SkillProposal(WireModel):
    """One skill a ``propose_skills`` call proposes (new, or an improvement of one).

    Attributes:
        name: the skill's kebab-case slug.
        kind: ``new`` or ``improvement``.
        description: when to use the skill, one short sentence.
        target: the existing skill an improvement updates.
        evidence: memory file paths where the procedure was observed.
        edits: an improvement's changes to ``SKILL.md``, in order.
        skill_md: the whole ``SKILL.md`` (``skillMd``), for a new skill or a rewrite.
    """

    name: str
    kind: Literal["new", "improvement"]
    description: str
    target: str | None = None
    evidence: list[str] | None = None
    edits: list[SkillEdit] | None = None
    skill_md: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProposeSkillsInput(WireModel):
    """Input of the ``propose_skills`` tool: propose one to three skills for review.

    Attributes:
        proposals: the proposals.
    """

    proposals: list[SkillProposal]


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class SkillInput(WireModel):
    """Input of the ``Skill`` tool: run a skill by name.

    Attributes:
        skill: the skill's name, from the available-skills list.
        args: arguments for the skill.
    """

    skill: str
    args: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class PushNotificationInput(WireModel):
    """Input of the ``PushNotification`` tool: notify the user (on their phone, ...).

    Attributes:
        message: the body, under 200 characters.
        status: ``proactive`` for a notification the user did not ask for.
    """

    message: str
    status: Literal["proactive"] | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ReadNotificationsInput(WireModel):
    """Input of the ``ReadNotifications`` tool: drain the session's notifications (no
    fields)."""


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ShowOnboardingRolePickerInput(WireModel):
    """Input of the ``ShowOnboardingRolePicker`` tool (no fields)."""


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class OfferChromeSetupInput(WireModel):
    """Input of the ``OfferChromeSetup`` tool: offer to connect the user's browser.

    Attributes:
        reason: what the task needs the user's own browser for.
    """

    reason: str | None = None


# ======================================================================================
# Workflows, triggers and claude.ai services


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class WorkflowInput(WireModel):
    """Input of the ``Workflow`` tool: run a workflow script in the background.

    One of `script`, `name` and `script_path` is needed.

    Attributes:
        script: a self-contained workflow script.
        name: a predefined workflow (built in, or from ``.claude/workflows/``).
        description: ignored (the script's ``meta`` block says it).
        title: ignored (the script's ``meta`` block says it).
        args: any JSON value, exposed to the script as ``args``.
        script_path: a script file on disk (``scriptPath``); takes precedence.
        resume_from_run_id: a prior run to resume from (``resumeFromRunId``).
    """

    script: str | None = None
    name: str | None = None
    description: str | None = None
    title: str | None = None
    args: Any = None
    script_path: str | None = None
    resume_from_run_id: str | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class RemoteTriggerInput(WireModel):
    """Input of the ``RemoteTrigger`` tool: manage remote (cloud) triggers and their runs.

    Attributes:
        action: ``list``, ``get``, ``create``, ``update``, ``run``,
            ``create_webhook_trigger``, ``list_runs`` or ``get_run_log``.
        trigger_id: the trigger (get, update, run, list_runs).
        session_id: a run's session (get_run_log).
        cursor: the ``next_cursor`` of the previous page.
        body: the request body (create, update; optional for run).
    """

    action: Literal[
        "list",
        "get",
        "create",
        "update",
        "run",
        "create_webhook_trigger",
        "list_runs",
        "get_run_log",
    ]
    trigger_id: str | None = None
    session_id: str | None = None
    cursor: str | None = None
    body: _JSON | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ClaudeDesignInput(WireModel):
    """Input of the ``ClaudeDesign`` tool: one Claude Design operation.

    Attributes:
        operation: the operation (``"list"`` lists them).
        arguments: its input (``{}`` for none).
    """

    operation: str
    arguments: _JSON


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ProjectsInput(WireModel):
    """Input of the ``Projects`` tool: read and write a claude.ai project's documents.

    Attributes:
        method: ``project_info``, ``project_read``, ``project_search``, ``project_write``,
            ``project_delete``, ``project_memory_list`` or ``project_memory_read``.
        path: the document (read, write, delete) or memory file (memory_read).
        content: a write's inline text.
        local_path: a write's file to upload instead of `content`.
        present_to_user: a write's document is the one the user must see.
        query: a search's query.
        n: how many search hits (default 5).
    """

    method: Literal[
        "project_info",
        "project_read",
        "project_search",
        "project_write",
        "project_delete",
        "project_memory_list",
        "project_memory_read",
    ]
    path: str | None = None
    content: str | None = None
    local_path: str | None = None
    present_to_user: bool | None = None
    query: str | None = None
    n: int | None = None


@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)
class ArtifactInput(WireModel):
    """Input of the ``Artifact`` tool: publish, list, read or watch claude.ai artifacts, and
    manage their assets and pins.

    Attributes:
        action: ``publish`` (the default), ``list``, ``read``, ``list_types``, ``watch``,
            ``unwatch``, ``status``, ``upload_asset``, ``list_assets``, ``read_asset``,
            ``delete_asset``, ``pin`` or ``unpin``.
        file_path: the ``.html`` file to publish, or the file to upload.
        favicon: deprecated (see `icon`).
        icon: one generic word for the browser-tab icon.
        limit: list: at most this many artifacts.
        page_token: list: a previous listing's ``next_page_token``.
        scope: list: ``mine`` (the default), ``shared`` or ``all``.
        title: the artifact's title.
        description: a one-sentence subtitle.
        label: a short name for this publish.
        url: the artifact to update or act on.
        prompt: read: what to extract from an artifact someone else owns.
        force: overwrite a newer published version.
        pin: publish: pin the artifact too.
        out_dir: read_asset: where to save.
        file_paths: upload_asset: several files.
        asset_id: read_asset, delete_asset: the asset.
        after: list_assets: a previous result's ``next``.
        capabilities: the page's runtime capabilities, ``{name: config}``.
        contract: the runtime version (``"latest"`` or a version).
    """

    action: (
        Literal[
            "publish",
            "list",
            "read",
            "list_types",
            "watch",
            "unwatch",
            "status",
            "upload_asset",
            "list_assets",
            "read_asset",
            "delete_asset",
            "pin",
            "unpin",
        ]
        | None
    ) = None
    file_path: str | None = None
    favicon: str | None = None
    icon: str | None = None
    limit: int | None = None
    page_token: str | None = None
    scope: Literal["mine", "shared", "all"] | None = None
    title: str | None = None
    description: str | None = None
    label: str | None = None
    url: str | None = None
    prompt: str | None = None
    force: bool | None = None
    pin: bool | None = None
    out_dir: str | None = None
    file_paths: list[str] | None = None
    asset_id: str | None = None
    after: str | None = None
    capabilities: _JSON | None = None
    contract: str | None = None


# ======================================================================================
# Lookup

#: Any typed tool input.
ToolInput: TypeAlias = (
    ReadInput
    | WriteInput
    | EditInput
    | MultiEditInput
    | NotebookEditInput
    | GlobInput
    | GrepInput
    | BashInput
    | BashOutputInput
    | TaskOutputInput
    | TaskStopInput
    | MonitorInput
    | WebFetchInput
    | WebSearchInput
    | AgentInput
    | TodoWriteInput
    | TaskCreateInput
    | TaskGetInput
    | TaskUpdateInput
    | TaskListInput
    | AskUserQuestionInput
    | ExitPlanModeInput
    | EnterPlanModeInput
    | EnterWorktreeInput
    | ExitWorktreeInput
    | CronCreateInput
    | CronDeleteInput
    | CronListInput
    | ScheduleWakeupInput
    | ListMcpResourcesInput
    | ReadMcpResourceInput
    | ReadMcpResourceDirInput
    | RefreshMcpToolsInput
    | McpInput
    | ReportFindingsInput
    | SendFeedbackInput
    | ProposeGoalInput
    | ProposeSkillsInput
    | SkillInput
    | ListAgentsInput
    | SendMessageInput
    | PushNotificationInput
    | ReadNotificationsInput
    | ShowOnboardingRolePickerInput
    | OfferChromeSetupInput
    | WorkflowInput
    | RemoteTriggerInput
    | ClaudeDesignInput
    | ProjectsInput
    | ArtifactInput
)

#: The prefix of the names of MCP tools (``mcp__<server>__<tool>``), whose input is `McpInput`.
MCP_TOOL_PREFIX = "mcp__"

#: The input class of each built-in tool, by tool name (several names for renamed tools).
TOOL_INPUTS: Mapping[str, type[ToolInput]] = types.MappingProxyType(
    {
        "Read": ReadInput,
        "Write": WriteInput,
        "Edit": EditInput,
        "MultiEdit": MultiEditInput,
        "NotebookEdit": NotebookEditInput,
        "Glob": GlobInput,
        "Grep": GrepInput,
        "Bash": BashInput,
        "BashOutput": BashOutputInput,
        "TaskOutput": TaskOutputInput,
        "TaskStop": TaskStopInput,
        "KillShell": TaskStopInput,
        "KillBash": TaskStopInput,
        "Monitor": MonitorInput,
        "WebFetch": WebFetchInput,
        "WebSearch": WebSearchInput,
        "Agent": AgentInput,
        "Task": AgentInput,
        "TodoWrite": TodoWriteInput,
        "TaskCreate": TaskCreateInput,
        "TaskGet": TaskGetInput,
        "TaskUpdate": TaskUpdateInput,
        "TaskList": TaskListInput,
        "AskUserQuestion": AskUserQuestionInput,
        "ExitPlanMode": ExitPlanModeInput,
        "EnterPlanMode": EnterPlanModeInput,
        "EnterWorktree": EnterWorktreeInput,
        "ExitWorktree": ExitWorktreeInput,
        "CronCreate": CronCreateInput,
        "CronDelete": CronDeleteInput,
        "CronList": CronListInput,
        "ScheduleWakeup": ScheduleWakeupInput,
        "ListMcpResourcesTool": ListMcpResourcesInput,
        "ListMcpResources": ListMcpResourcesInput,
        "ReadMcpResourceTool": ReadMcpResourceInput,
        "ReadMcpResource": ReadMcpResourceInput,
        "ReadMcpResourceDirTool": ReadMcpResourceDirInput,
        "ReadMcpResourceDir": ReadMcpResourceDirInput,
        "RefreshMcpTools": RefreshMcpToolsInput,
        "ReportFindings": ReportFindingsInput,
        "SendFeedback": SendFeedbackInput,
        "SetGoal": ProposeGoalInput,
        "ProposeGoal": ProposeGoalInput,
        "propose_skills": ProposeSkillsInput,
        "Skill": SkillInput,
        "ListAgents": ListAgentsInput,
        "SendMessage": SendMessageInput,
        "PushNotification": PushNotificationInput,
        "ReadNotifications": ReadNotificationsInput,
        "ShowOnboardingRolePicker": ShowOnboardingRolePickerInput,
        "OfferChromeSetup": OfferChromeSetupInput,
        "Workflow": WorkflowInput,
        "RemoteTrigger": RemoteTriggerInput,
        "ClaudeDesign": ClaudeDesignInput,
        "Projects": ProjectsInput,
        "Artifact": ArtifactInput,
    }
)

#: The wire keys that are not the field's name (every other key is the field's name). The
#: codec's schema reads this table too.
WIRE_KEYS: Mapping[type, Mapping[str, str]] = {
    BashInput: {"dangerously_disable_sandbox": "dangerouslyDisableSandbox"},
    GrepInput: {
        "lines_before": "-B",
        "lines_after": "-A",
        "lines_around": "-C",
        "line_numbers": "-n",
        "case_insensitive": "-i",
        "only_matching": "-o",
    },
    TodoItem: {"active_form": "activeForm"},
    TaskCreateInput: {"active_form": "activeForm"},
    TaskGetInput: {"task_id": "taskId"},
    TaskUpdateInput: {
        "task_id": "taskId",
        "active_form": "activeForm",
        "add_blocks": "addBlocks",
        "add_blocked_by": "addBlockedBy",
    },
    UserQuestion: {"multi_select": "multiSelect", "default_value": "defaultValue"},
    ExitPlanModeInput: {"allowed_prompts": "allowedPrompts"},
    ScheduleWakeupInput: {"delay_seconds": "delaySeconds"},
    SkillProposal: {"skill_md": "skillMd"},
    WorkflowInput: {"script_path": "scriptPath", "resume_from_run_id": "resumeFromRunId"},
}


def register() -> None:
    """Nothing to do (kept for compatibility): the codec reads `WIRE_KEYS` when it is built."""


def typed_input(tool_name: str, tool_input: Mapping[str, Any]) -> ToolInput | None:
    """The typed view of a built-in tool's input (see the module docstring).

    Args:
        tool_name: the tool's name as the CLI sends it (``"Bash"``, ``"Task"``,
            ``"mcp__server__tool"``, ...).
        tool_input: the input dict the CLI sent.

    Returns:
        An instance of ``TOOL_INPUTS[tool_name]`` (`McpInput` for an MCP tool), or None when
        the tool is not a known built-in tool or the input does not fit its class. Never
        raises.
    """
    cls = _lookup(TOOL_INPUTS, tool_name) or (McpInput if is_mcp_tool(tool_name) else None)
    if cls is None or not isinstance(tool_input, Mapping):
        return None
    data = tool_input if tool_input.__class__ is dict else dict(tool_input)
    if not _VIEWS.fits(data, cls):
        return None
    return typing.cast("ToolInput", _VIEWS.build(data, cls))


def _lookup(table: Mapping[str, Any], tool_name: object) -> Any:
    """``table[tool_name]``, or None (for a name that is not a string too: never raises)."""
    return table.get(tool_name) if isinstance(tool_name, str) else None


def is_mcp_tool(tool_name: object) -> bool:
    """Whether ``tool_name`` names an MCP tool (``mcp__<server>__<tool>``)."""
    return isinstance(tool_name, str) and tool_name.startswith(MCP_TOOL_PREFIX)


# --------------------------------------------------------------------------------------
# Views: a JSON value checked against an annotation, then built as the codec would decode it


class _Views:
    """Builds typed views of JSON values without a codec (shared with ``tool_outputs``).

    ``fits(value, tp)`` says whether the JSON value has the shape the annotation ``tp``
    declares (unknown keys do not count; a value outside a ``Literal`` fits when its JSON type
    does, since a newer CLI may add values). ``build(value, tp)`` then gives the view: objects
    become instances whose ``__dict__`` holds the keys the value carried (by field name) and
    its unknown keys (``extra``), exactly as a decoded wire value; lists of plain values are
    shared with the input. A union of classes listed in ``tagged`` is dispatched on its tag
    key (a tag it does not list does not fit); any other union takes its first member that
    fits.

    Args:
        wire_keys: class -> (field name -> wire key), for the keys that are not the names.
        tagged: the member classes of a tagged union -> (tag key, tag value -> class).
    """

    def __init__(
        self,
        wire_keys: Mapping[type, Mapping[str, str]],
        tagged: Mapping[frozenset[type], tuple[str, Mapping[str, type]]] | None = None,
    ) -> None:
        self._wire_keys = wire_keys
        self._tagged = dict(tagged or {})
        #: (wire key, type, required) of each field, by class.
        self._fields: dict[type, tuple[tuple[str, str, Any, bool], ...]] = {}

    def fields(self, cls: type) -> tuple[tuple[str, str, Any, bool], ...]:
        """(field name, wire key, type, required) of each field of ``cls`` but ``extra``."""
        found = self._fields.get(cls)
        if found is None:
            hints = typing.get_type_hints(cls)
            renames = self._wire_keys.get(cls, {})
            found = self._fields[cls] = tuple(
                (a.name, renames.get(a.name, a.name), hints[a.name], a.default is attrs.NOTHING)
                for a in attrs.fields(cls)
                if a.name != "extra"
            )
        return found

    def _tag_table(self, tp: Any) -> tuple[str, Mapping[str, type]] | None:
        members = frozenset(a for a in typing.get_args(tp) if a is not type(None))
        return self._tagged.get(members)

    def fits(self, value: Any, tp: Any) -> bool:
        """Whether the JSON value ``value`` has the shape the annotation ``tp`` declares."""
        if tp is Any:
            return True
        if tp is type(None):
            return value is None
        origin = typing.get_origin(tp)
        if origin in (typing.Union, types.UnionType):
            if value is None:
                return type(None) in typing.get_args(tp)
            table = self._tag_table(tp)
            if table is not None:
                key, classes = table
                tag = value.get(key) if value.__class__ is dict else None
                cls = classes.get(tag) if isinstance(tag, str) else None
                return cls is not None and self.fits(value, cls)
            return any(self.fits(value, arg) for arg in typing.get_args(tp))
        if origin is Literal:
            # A value it does not list is a newer CLI's: only the JSON type has to match.
            return any(self.fits(value, type(arg)) for arg in typing.get_args(tp))
        if origin is list:
            (item,) = typing.get_args(tp)
            return value.__class__ is list and all(self.fits(v, item) for v in value)
        if origin is dict:
            _, item = typing.get_args(tp)
            return value.__class__ is dict and all(
                isinstance(k, str) and self.fits(v, item) for k, v in value.items()
            )
        if isinstance(tp, type) and attrs.has(tp):
            return value.__class__ is dict and all(
                self.fits(value[key], hint) if key in value else not required
                for _, key, hint, required in self.fields(tp)
            )
        if tp is bool:
            return value.__class__ is bool
        if tp is int:
            return isinstance(value, int) and value.__class__ is not bool
        if tp is float:
            return isinstance(value, (int, float)) and value.__class__ is not bool
        return isinstance(value, tp)

    def build(self, value: Any, tp: Any) -> Any:
        """The view of a JSON value that `fits` ``tp``."""
        if tp is Any or value is None:
            return value
        origin = typing.get_origin(tp)
        if origin in (typing.Union, types.UnionType):
            table = self._tag_table(tp)
            if table is not None:
                key, classes = table
                return self._instance(value, classes[value[key]])
            for arg in typing.get_args(tp):
                if arg is not type(None) and self.fits(value, arg):
                    return self.build(value, arg)
            return value  # pragma: no cover  (`fits` let it through: one member fits)
        if origin is list:
            (item,) = typing.get_args(tp)
            if _is_plain(item):
                return value
            return [self.build(v, item) for v in value]
        if origin is dict:
            _, item = typing.get_args(tp)
            if _is_plain(item):
                return value
            return {k: self.build(v, item) for k, v in value.items()}
        if isinstance(tp, type) and attrs.has(tp):
            return self._instance(value, tp)
        return value

    def _instance(self, data: dict[str, Any], cls: type) -> Any:
        """An instance of ``cls`` whose ``__dict__`` holds the fields ``data`` carried (by
        field name) and its unknown keys (in ``extra``), exactly as a decoded wire value."""
        prepare_class(cls)
        by_key = {key: (name, hint) for name, key, hint, _ in self.fields(cls)}
        fields: dict[str, Any] = {}
        unknown: dict[str, Any] = {}
        for key, value in data.items():
            known = by_key.get(key)
            if known is None:
                unknown[key] = value
            else:
                fields[known[0]] = self.build(value, known[1])
        if unknown:
            fields["extra"] = unknown
        obj: Any = object.__new__(cls)
        object.__setattr__(obj, "__dict__", fields)
        return obj


def _is_plain(tp: Any) -> bool:
    """True when a JSON value of ``tp`` is its own view (no attrs class anywhere inside)."""
    if isinstance(tp, type) and attrs.has(tp):
        return False
    return all(_is_plain(arg) for arg in typing.get_args(tp))


_VIEWS = _Views(WIRE_KEYS)

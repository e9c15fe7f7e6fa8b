"""The lines of the CLI's session files, typed (the model behind `claude_sdk.history`).

Each line of a transcript (``~/.claude/projects/<project>/<session>.jsonl``) is one JSON
object with camelCase keys, keyed on ``type``. These classes type the kinds the SDK reads;
every other kind is an `UnknownEntry` holding the object whole. Like the wire classes they
know nothing of JSON: the codec's schema (``claude_sdk._protocol.schema``) names their keys
(camelCase, with the exceptions of `WIRE_KEYS`), and `claude_sdk.history` reads and writes
the files.

Typed: every kind the CLIs 2.1.330 and 2.1.331 wrote in the recorded runs (the conversation,
the titles and tags, the prompt queue, the request records ``api-request*``, ``cost-state``,
``atis-latch``, ``tools-used``). The CLI's code names more (``file-history-snapshot``,
``content-replacement``, ``worktree-state``, ``pr-link``, ...); they stay `UnknownEntry`
until a run shows their shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, TypeAlias

from ._base import UnknownBase, WireModel, encode_default, model
from .messages import (
    APIMessage,
    AssistantMessage,
    ContentBlock,
    ModelUsage,
    TextBlock,
    ToolResultBlock,
    UserMessage,
    UserPayload,
)

__all__ = [
    "TranscriptEntry",
    "ChainEntry",
    "UserEntry",
    "AssistantEntry",
    "SystemEntry",
    "AttachmentEntry",
    "ProgressEntry",
    "SummaryEntry",
    "CustomTitleEntry",
    "AiTitleEntry",
    "TagEntry",
    "LastPromptEntry",
    "AgentNameEntry",
    "ModeEntry",
    "QueueOperationEntry",
    "FileHistorySnapshotEntry",
    "FileHistoryDeltaEntry",
    "APIRequestEntry",
    "APIRequestShapeEntry",
    "APIRequestBlobEntry",
    "CostStateEntry",
    "AtisLatchEntry",
    "RelocatedEntry",
    "ToolsUsedEntry",
    "UnknownEntry",
    "WIRE_KEYS",
]


@model
class _Entry(WireModel):
    """Base of the typed transcript entries (one JSON line each, camelCase keys)."""

    type: ClassVar[str]
    session_id: str | None = None
    timestamp: str | None = None

    @property
    def raw(self) -> dict[str, Any]:
        """The entry as the JSON object of its line (rebuilt exactly from the fields)."""
        return encode_default(self)


@model
class ChainEntry(_Entry):
    """An entry of the conversation: linked to the one before it by ``parent_uuid``.

    Attributes:
        uuid: this entry's id (unique within a transcript; a fork keeps it).
        parent_uuid: the entry before it in the conversation (None for the first one, and
            after a compaction boundary).
        logical_parent_uuid: across a compaction boundary, the entry before it.
        is_sidechain: True in a subagent's transcript.
        cwd: the working directory when the entry was written.
        git_branch: the git branch then (the CLI writes ``HEAD`` outside a repository).
        version: the CLI version that wrote it.
        agent_id: in a subagent's transcript, the subagent's id.
        is_meta: a message the CLI adds that the user did not write.
    """

    uuid: str | None = None
    parent_uuid: str | None = None
    logical_parent_uuid: str | None = None
    #: The session's memorable name (``slug``), on the entries written after it was made.
    slug: str | None = None
    is_sidechain: bool | None = None
    cwd: str | None = None
    git_branch: str | None = None
    version: str | None = None
    user_type: str | None = None
    entrypoint: str | None = None
    agent_id: str | None = None
    is_meta: bool | None = None


@model
class UserEntry(ChainEntry):
    """A user message: a prompt, or the results of tool calls (``message.content`` blocks).

    ``tool_use_result`` is the tool's structured output (the Bash ``stdout``/``stderr``, ...);
    ``permission_decision`` how the call was allowed (``{"decision": "accept", "source":
    "config"}``, ...); ``turn_origin`` / ``turn_position`` / ``turn_attribution_key`` place a
    prompt in the CLI's turn accounting.
    """

    type: ClassVar[str] = "user"
    message: UserPayload
    prompt_id: str | None = None
    tool_use_result: Any = None
    source_tool_assistant_uuid: str | None = None
    permission_mode: str | None = None
    prompt_source: str | None = None
    is_compact_summary: bool | None = None
    turn_origin: str | None = None
    turn_position: dict[str, Any] | None = None
    turn_attribution_key: str | None = None
    row_source: str | None = None
    permission_decision: dict[str, Any] | None = None
    sandboxed: bool | None = None
    #: What the command sandbox refused while the call ran (``[{"kind": "network", "host":
    #: ..., "port": ...}]``; an empty list for a refused write).
    sandbox_violations: list[dict[str, Any]] | None = None
    #: What the CLI tells the model to do about the result (``{"kind": "sandbox_violation"}``).
    tool_result_remedy: dict[str, Any] | None = None
    #: A prompt shown in the transcript only (not sent to the model).
    is_visible_in_transcript_only: bool | None = None
    #: Prompts the CLI merged into this one (queued while a turn ran).
    merged_send_uuids: list[str] | None = None
    #: An MCP tool's result: its ``_meta``, and why the call was not read-only.
    mcp_meta: dict[str, Any] | None = None
    mcp_call_not_read_only: str | None = None
    #: The tool whose result this is ends the turn (structured output).
    tool_ends_turn: bool | None = None
    holds_persons_words: bool | None = None
    #: A tool call refused before it ran (an interrupt while its permission was asked).
    tool_denial_before_run: bool | None = None
    #: How it was refused (``"interrupted"``, ...).
    tool_denial_kind: str | None = None
    #: When the host sent the prompt (ms since the epoch; CLI 2.1.332 and later).
    sent_at_ms: int | None = None
    #: Where a queued prompt came from (``{"kind": ...}``; CLI 2.1.332 and later).
    origin: dict[str, Any] | None = None
    queue_skip_attachments: bool | None = None
    #: A message the CLI wrote beside a prompt, as part of its turn (a skill's or slash
    #: command's expansion): not a prompt of its own.
    turn_companion: bool | None = None

    @property
    def text(self) -> str:
        """The message's text: the string content, or its text blocks joined."""
        return content_text(self.message.content)

    @property
    def is_tool_result(self) -> bool:
        """True when the message carries tool results rather than a prompt."""
        content = self.message.content
        return isinstance(content, list) and any(isinstance(b, ToolResultBlock) for b in content)

    def to_message(self) -> UserMessage:
        """This entry as the `UserMessage` frame the CLI streams for it."""
        return UserMessage(
            message=self.message,
            session_id=self.session_id,
            uuid=self.uuid,
            timestamp=self.timestamp,
            tool_use_result=self.tool_use_result,
            agent_id=self.agent_id,
        )


@model
class AssistantEntry(ChainEntry):
    """One content block of a model response (``message`` is the API message).

    ``api_block_index`` is the block's index in the response (one entry per block);
    ``request_ref`` the id of the `APIRequestEntry` of the request that produced it (in the
    transcript of ``request_session_id`` after a fork); ``requested_model`` the model asked
    for; ``effort`` / ``per_turn_effort`` the reasoning effort.
    """

    type: ClassVar[str] = "assistant"
    message: APIMessage
    request_id: str | None = None
    request_session_id: str | None = None
    is_api_error_message: bool | None = None
    api_block_index: int | None = None
    request_ref: str | None = None
    requested_model: str | None = None
    prompt_cache_requested: str | None = None
    effort: str | None = None
    per_turn_effort: str | None = None
    made_by: str | None = None
    attribution_agent: str | None = None
    #: The skill (or slash command) the response was made under.
    attribution_skill: str | None = None
    attribution_plugin: str | None = None
    attribution_mcp_server: str | None = None
    attribution_mcp_tool: str | None = None
    tool_input_stream_ms: int | None = None
    #: On the synthetic message of an API error: the status, the error's type and kind,
    #: and whether the CLI judged it transient.
    api_error_status: int | None = None
    api_error_type: str | None = None
    api_error_is_transient: bool | None = None
    error: str | None = None
    failed_response_had_no_tool_call: bool | None = None
    #: A response cut off by an interrupt while it streamed.
    is_aborted_mid_stream: bool | None = None
    #: The key of the server-side permission classifier's request for the response's tool
    #: calls (CLI 2.1.330, seen in plan mode, tests/e2e/test_first_hour_e2e.py), and
    #: whether the classifier's input was rewritten (named in the CLI 2.1.330 binary).
    server_classifier_request: str | None = None
    server_classifier_input_rewritten: bool | None = None
    server_classifier_own_input_rewritten: bool | None = None

    @property
    def content(self) -> list[ContentBlock]:
        """The message's content blocks."""
        return self.message.content

    @property
    def text(self) -> str:
        """The text of the message's text blocks."""
        return "".join(b.text for b in self.message.content if isinstance(b, TextBlock))

    def to_message(self) -> AssistantMessage:
        """This entry as the `AssistantMessage` frame the CLI streams for it."""
        return AssistantMessage(
            message=self.message,
            session_id=self.session_id,
            uuid=self.uuid,
            timestamp=self.timestamp,
            request_id=self.request_id,
            agent_id=self.agent_id,
        )


@model
class SystemEntry(ChainEntry):
    """A note of the CLI's in the conversation (``subtype`` such as ``compact_boundary``)."""

    type: ClassVar[str] = "system"
    subtype: str | None = None
    content: Any = None
    level: str | None = None
    compact_metadata: Any = None
    #: ``api_error`` notes: the error, and the CLI's retry (attempt, limit, wait).
    error: Any = None
    retry_attempt: int | None = None
    max_retries: int | None = None
    retry_in_ms: int | None = None
    source: str | None = None
    #: ``stop_hook_summary`` notes: what the Stop hooks did.
    hook_count: int | None = None
    hook_infos: list[Any] | None = None
    hook_errors: list[Any] | None = None
    failed_hook_error_indexes: list[Any] | None = None
    hook_additional_context: list[Any] | None = None
    prevented_continuation: bool | None = None
    stop_reason: str | None = None
    has_output: bool | None = None
    tool_use_id: str | None = None


@model
class AttachmentEntry(ChainEntry):
    """Context the CLI attached to the conversation (``attachment["type"]``: ``environment``,
    ``skill_listing``, ``date``, ``prompt_snapshot``, ...); ``rendered`` is the content the
    model was sent for it, in the role ``rendered_role``."""

    type: ClassVar[str] = "attachment"
    attachment: Any = None
    rendered: list[Any] | None = None
    rendered_role: str | None = None
    rendered_beside_tool_result: bool | None = None


@model
class ProgressEntry(ChainEntry):
    """A tool's progress report (older CLIs wrote these into the conversation)."""

    type: ClassVar[str] = "progress"
    data: Any = None
    tool_use_id: str | None = None
    parent_tool_use_id: str | None = None


@model
class SummaryEntry(_Entry):
    """A summary of the conversation up to ``leaf_uuid``."""

    type: ClassVar[str] = "summary"
    summary: str | None = None
    leaf_uuid: str | None = None


@model
class CustomTitleEntry(_Entry):
    """The title a user gave the session (the last one wins; an empty one clears it)."""

    type: ClassVar[str] = "custom-title"
    custom_title: str | None = None


@model
class AiTitleEntry(_Entry):
    """A title the CLI generated for the session."""

    type: ClassVar[str] = "ai-title"
    ai_title: str | None = None


@model
class TagEntry(_Entry):
    """The session's tag (the last one wins; an empty one clears it)."""

    type: ClassVar[str] = "tag"
    tag: str | None = None


@model
class LastPromptEntry(_Entry):
    """Written after each turn: the prompt the CLI lists the session by, and the leaf."""

    type: ClassVar[str] = "last-prompt"
    last_prompt: str | None = None
    leaf_uuid: str | None = None


@model
class AgentNameEntry(_Entry):
    """The session's agent name (a rename sets it to the title)."""

    type: ClassVar[str] = "agent-name"
    agent_name: str | None = None


@model
class ModeEntry(_Entry):
    """The session's mode (``normal``, ...)."""

    type: ClassVar[str] = "mode"
    mode: str | None = None


@model
class QueueOperationEntry(_Entry):
    """A change to the CLI's prompt queue (``enqueue``, ``dequeue``, ``remove``)."""

    type: ClassVar[str] = "queue-operation"
    operation: str | None = None
    content: Any = None
    #: The uuid of the prompt the operation concerns (a ``remove`` names it).
    command_uuid: str | None = None
    #: Why a prompt left the queue (``"interrupt"``, ...).
    reason: str | None = None


@model
class FileHistorySnapshotEntry(_Entry):
    """The files tracked for rewinding, as of a prompt (file checkpointing).

    Attributes:
        message_id: the prompt the snapshot belongs to.
        snapshot: ``{messageId, trackedFileBackups: {path: backup}, timestamp}``.
        is_snapshot_update: it updates an earlier snapshot of the same prompt.
    """

    type: ClassVar[str] = "file-history-snapshot"
    message_id: str | None = None
    snapshot: dict[str, Any] | None = None
    is_snapshot_update: bool | None = None


@model
class FileHistoryDeltaEntry(_Entry):
    """One file's backup added to a snapshot (file checkpointing).

    Attributes:
        message_id: the message that changed the file.
        snapshot_message_id: the prompt whose snapshot it extends.
        tracking_path: the file, relative to the working directory.
        backup: ``{backupFileName, version, backupTime, realParentDir}`` (no file name:
            the file did not exist before).
    """

    type: ClassVar[str] = "file-history-delta"
    message_id: str | None = None
    snapshot_message_id: str | None = None
    tracking_path: str | None = None
    backup: dict[str, Any] | None = None


@model
class APIRequestEntry(_Entry):
    """One request to the Messages API, recorded so the CLI can replay it.

    The body is not repeated: ``shape_hash`` names the `APIRequestShapeEntry` holding its
    system prompt and tools; its first ``keep`` messages are those of the request whose id
    is ``base``, and ``tail`` lists the hashes of the others (`APIRequestBlobEntry`);
    ``params`` are the other parameters (``model``, ``betas``, ``max_tokens``, ``thinking``,
    ...).

    Attributes:
        id: this record's id (an `AssistantEntry`'s ``request_ref``).
        query_source: what sent the request (``sdk`` in the recorded runs).
        request_digest: a hash of the whole request (``cut_request_digest`` instead when
            ``cut`` says which parts were cut from it).
        thread: how the request continues an earlier one (CLI 2.1.332 and later).
    """

    type: ClassVar[str] = "api-request"
    id: str | None = None
    version: str | None = None
    agent_id: str | None = None
    query_source: str | None = None
    shape_hash: str | None = None
    params: dict[str, Any] | None = None
    withheld: list[Any] | None = None
    base: str | None = None
    keep: int | None = None
    tail: list[str] | None = None
    cache_control: list[Any] | None = None
    request_digest: str | None = None
    cut: dict[str, Any] | None = None
    cut_request_digest: str | None = None
    #: How the request relates to the previous one (``{"type": "none" | "create" |
    #: "continue", "previous_message_id"?}``; CLI 2.1.332 and later).
    thread: dict[str, Any] | None = None
    echo_wire_tool_inputs: bool | None = None


@model
class APIRequestShapeEntry(_Entry):
    """The system prompt and tools of API requests (``shape``: ``system``, ``tools``), written
    once per transcript for each ``shape_hash`` (tens of kB)."""

    type: ClassVar[str] = "api-request-shape"
    version: str | None = None
    agent_id: str | None = None
    shape_hash: str | None = None
    shape: dict[str, Any] | None = None


@model
class APIRequestBlobEntry(_Entry):
    """One message of API requests as it was sent (``message``: ``role``, ``content``, ...),
    written once per transcript for each ``hash``."""

    type: ClassVar[str] = "api-request-blob"
    agent_id: str | None = None
    hash: str | None = None
    message: dict[str, Any] | None = None


@model
class CostStateEntry(_Entry):
    """The process's costs, written when it ends (in the CLI's code, a resume restores its
    cost counters from the last one).

    Attributes:
        total_cost_usd: the cost in US dollars (``totalCostUSD``).
        total_api_duration: milliseconds spent in API calls (``totalAPIDuration``).
        total_duration: the process's wall-clock milliseconds.
        start_time: when the process started (epoch milliseconds).
        model_usage: model -> its usage (the wire model's `ModelUsage`).
    """

    type: ClassVar[str] = "cost-state"
    total_cost_usd: float | None = None
    total_api_duration: int | None = None
    total_api_duration_without_retries: int | None = None
    total_tool_duration: int | None = None
    total_lines_added: int | None = None
    total_lines_removed: int | None = None
    total_duration: int | None = None
    start_time: int | None = None
    model_usage: dict[str, ModelUsage] | None = None
    has_unknown_model_cost: bool | None = None
    model_call_cost_usd: float | None = None


@model
class AtisLatchEntry(_Entry):
    """Per-session state: ``atis``, printable ASCII without spaces (empty in the recorded
    runs); the last one wins, and the CLI re-appends it on resume and copies it into a fork."""

    type: ClassVar[str] = "atis-latch"
    atis: str | None = None


@model
class RelocatedEntry(_Entry):
    """The session moved to another folder: a spare CLI (``--await-claim``) claimed for it
    (``claim_session``, CLI 2.1.330 to 2.1.332); ``relocated_cwd`` is the claimed folder."""

    type: ClassVar[str] = "relocated"
    relocated_cwd: str | None = None


@model
class ToolsUsedEntry(_Entry):
    """The names of the tools the session has used so far (the last one wins)."""

    type: ClassVar[str] = "tools-used"
    tools: list[str] | None = None


@model
class UnknownEntry(UnknownBase):
    """An entry of a kind this module does not type (``raw`` is the line's object).

    The CLI's code names more kinds than are typed here (``content-replacement``,
    ``worktree-state``, ...) and new versions add more; all of them
    arrive here, whole.
    """

    @property
    def type(self) -> str | None:
        """The entry's ``type``."""
        value = self.raw.get("type")
        return value if isinstance(value, str) else None

    @property
    def session_id(self) -> str | None:
        """The entry's ``sessionId``."""
        value = self.raw.get("sessionId")
        return value if isinstance(value, str) else None

    @property
    def timestamp(self) -> str | None:
        """The entry's ``timestamp``."""
        value = self.raw.get("timestamp")
        return value if isinstance(value, str) else None


#: One line of a transcript, typed.
TranscriptEntry: TypeAlias = (
    UserEntry
    | AssistantEntry
    | SystemEntry
    | AttachmentEntry
    | ProgressEntry
    | SummaryEntry
    | CustomTitleEntry
    | AiTitleEntry
    | TagEntry
    | LastPromptEntry
    | AgentNameEntry
    | ModeEntry
    | QueueOperationEntry
    | FileHistorySnapshotEntry
    | FileHistoryDeltaEntry
    | APIRequestEntry
    | APIRequestShapeEntry
    | APIRequestBlobEntry
    | CostStateEntry
    | AtisLatchEntry
    | RelocatedEntry
    | ToolsUsedEntry
    | UnknownEntry
)

#: Field -> wire key, per class, for the keys that are not the field's camelCase (the wire
#: specs of the entries in ``claude_sdk._protocol.schema`` are built from this table).
WIRE_KEYS: dict[type, dict[str, str]] = {
    UserEntry: {"source_tool_assistant_uuid": "sourceToolAssistantUUID"},
    ProgressEntry: {"tool_use_id": "toolUseID", "parent_tool_use_id": "parentToolUseID"},
    SystemEntry: {"tool_use_id": "toolUseID"},
    CostStateEntry: {
        "total_cost_usd": "totalCostUSD",
        "total_api_duration": "totalAPIDuration",
        "total_api_duration_without_retries": "totalAPIDurationWithoutRetries",
        "model_call_cost_usd": "modelCallCostUSD",
    },
}


def content_text(content: Any) -> str:
    """The text of message content: the string, or its text blocks joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, TextBlock):
                parts.append(block.text)
            elif isinstance(block, Mapping) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str):
                    parts.append(text)
        return "\n".join(parts)
    return ""

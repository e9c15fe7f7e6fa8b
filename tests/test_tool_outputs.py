"""Typed tool results (``claude_sdk.tool_outputs``): every built-in tool's result decodes to its
class with nothing unknown and encodes back to the same value; anything else is None.

* a realistic result per tool and per variant (``SAMPLES``: every output type of
  ``sdk-tools.d.ts`` and the fields the CLI writes beyond it): the right class, no drift, an
  exact round trip, unknown keys kept in ``extra``; a required key missing or mistyped, an
  unknown tag, an error text give None;
* unknown tools, odd values and arbitrary JSON never raise (hypothesis);
* every tool result recorded from the real CLI in tests/data (the stream-json transcripts,
  the e2e recordings, the cassette and the session files) decodes with no drift, through
  ``typed_output``, ``UserMessage.typed_output`` and ``PostToolUseInput.typed_output``.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claude_sdk import tool_outputs as to
from claude_sdk import wire
from claude_sdk._protocol.codec import default_codec
from claude_sdk._protocol.schema import wire_schema
from claude_sdk.hooks import PostToolBatchCall, PostToolUseInput
from claude_sdk.messages import AssistantMessage, ToolUseBlock, UserMessage
from claude_sdk.tool_inputs import TodoItem
from claude_sdk.tool_outputs import TOOL_OUTPUTS, typed_output

from . import strategies
from .support.deep import deep
from .transcripts import DATA, clean

JSON = dict[str, Any]

# The codec every decode uses: its schema holds the tool outputs' wire keys (checked below).
codec = default_codec()

HUNK = {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 2, "lines": ["-a", "+b", "+c"]}
GIT_DIFF = {
    "filename": "app.py",
    "status": "modified",
    "additions": 2,
    "deletions": 1,
    "changes": 3,
    "patch": "@@ -1 +1,2 @@\n-a\n+b\n+c",
    "repository": "acme/app",
}
USAGE: JSON = {
    "input_tokens": 8801,
    "output_tokens": 11,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": None,
    "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
    "service_tier": "standard",
    "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
    "inference_geo": "",
    "speed": "standard",
    "iterations": [],
    "output_tokens_details": {"thinking_tokens": 0},
    "fallback_credit": None,
}
QUESTION = {
    "question": "Which test runner should we use?",
    "header": "Runner",
    "options": [
        {"label": "pytest", "description": "The usual one", "preview": "pytest -q"},
        {"label": "unittest"},
    ],
    "multiSelect": False,
}
PUBLISH = {
    "url": "https://claude.ai/artifact/abc",
    "path": "/repo/report.html",
    "artifact_id": "abc",
    "title": "Build report",
    "version": "v3",
    "capabilities": {"storage": {}},
    "stored": {
        "contract": "2",
        "preferredContract": "3",
        "capabilities": {"storage": {}},
        "carried": True,
        "read": "ok",
    },
    "warnings": ["no <title>"],
    "publishesRemaining": 9,
    "publishesResetAt": 1764000000000,
    "contract": "2",
    "updated": True,
    "owned": True,
    "icon": "chart",
    "faviconSent": True,
    "iconDropped": True,
    "audience": "org",
    "folder_audience": "others",
    "seq": 3,
    "unchanged": True,
    "liveSubscription": "sub_1",
    "pinned": False,
    "verifyGuide": "open it and check the totals",
    "editsApplied": 2,
    "editsNotWritten": "write_failed",
    "seededThread": "abc",
    "merged_over": {"version": "v2"},
}

#: (tool name, result, class of the view) of realistic results: every variant of every output
#: type of sdk-tools.d.ts (@anthropic-ai/claude-agent-sdk 0.3.332), with every field its class
#: knows (fields the CLI 2.1.330/2.1.331 writes beyond the .d.ts included).
SAMPLES: list[tuple[str, Any, Any]] = [
    (
        "Agent",
        {
            "status": "completed",
            "agentId": "a0000000000000001",
            "agentType": "general-purpose",
            "content": [
                {"type": "text", "text": "Found 3 TODOs", "citations": None},
                {"type": "text", "text": "."},
            ],
            "resolvedModel": "claude-opus-5-5",
            "modelsUsed": ["claude-opus-5-5", "claude-sonnet-5"],
            "totalToolUseCount": 1,
            "totalDurationMs": 277,
            "totalTokens": 8812,
            "usage": USAGE,
            "toolsUsed": ["Bash"],
            "toolStats": {
                "readCount": 0,
                "searchCount": 1,
                "bashCount": 1,
                "editFileCount": 0,
                "linesAdded": 0,
                "linesRemoved": 0,
                "otherToolCount": 0,
                "frameCount": 0,
            },
            "prompt": "List every TODO comment under src/",
            "worktreePath": "/repo/.worktrees/a1",
            "worktreeBranch": "agent/a1",
            "canContinueAgent": True,
            "harnessNoteCount": 1,
            "harnessTailCount": 0,
            "harnessSectionHash": "d8b3526d1f5eafc2",
            "handback": "send",
            "handbackReport": {"text": "done", "warning": "late", "toolUseId": "toolu_9"},
            "inPlace": {"vcs": "git", "branch": "main"},
            "taskCalls": [{"name": "TaskCreate", "input": {}, "result": "ok"}],
        },
        to.AgentCompletedOutput,
    ),
    (
        "Agent",
        {
            "status": "async_launched",
            "isAsync": True,
            "agentId": "a2",
            "description": "Find TODOs",
            "resolvedModel": "claude-haiku-5",
            "modelsUsed": ["claude-haiku-5"],
            "prompt": "List every TODO",
            "outputFile": "/tmp/claude-1000/a2.output",
            "canReadOutputFile": True,
            "canContinueAgent": False,
            "waitsAtPermissionPrompt": False,
            "sharesCwd": True,
        },
        to.AgentAsyncLaunchedOutput,
    ),
    (
        "Task",
        {
            "status": "remote_launched",
            "taskId": "r1",
            "sessionUrl": "https://claude.ai/code/session_1",
            "description": "Find TODOs",
            "prompt": "List every TODO",
            "outputFile": "/tmp/claude-1000/r1.output",
        },
        to.AgentRemoteLaunchedOutput,
    ),
    (
        "Bash",
        {
            "stdout": "hi\n",
            "stderr": "",
            "rawOutputPath": "/tmp/raw.txt",
            "interrupted": False,
            "isImage": False,
            "backgroundTaskId": "b1",
            "backgroundOutputPath": "/tmp/b1.output",
            "backgroundedByUser": False,
            "backgroundedByTurnAbort": False,
            "backgroundedToDeliverMessage": False,
            "backgroundedForAgentReport": True,
            "timedOutAfterMs": 120000,
            "subagentCapApplied": True,
            "backgroundCwdHint": "the session's directory did not change",
            "backgroundEndsWithFinalResponse": True,
            "backgroundWakesOwner": True,
            "dangerouslyDisableSandbox": False,
            "returnCodeInterpretation": "no matches",
            "noOutputExpected": False,
            "structuredContent": [{"type": "text", "text": "hi"}],
            "persistedOutputPath": "/tmp/out.txt",
            "persistedOutputSize": 120000,
            "stdoutHoldsOutputEnd": True,
            "memoryLimitNote": "near the memory limit",
            "triggeredNote": "a hook ran",
            "staleReadFileStateHint": "app.py changed",
            "ghRateLimitHint": "rate limited",
            "gitOperation": {
                "commit": {"sha": "abc123", "kind": "committed", "branch": "main"},
                "push": {"branch": "main"},
                "branch": {"ref": "main", "action": "rebased"},
                "pr": {
                    "number": 7,
                    "url": "https://github.com/acme/app/pull/7",
                    "action": "created",
                },
            },
            "bashEditDiff": {
                "files": [
                    {"filePath": "/repo/app.py", "hunks": [HUNK], "created": True, "deleted": True}
                ],
                "moreFiles": 0,
                "changedFiles": ["/repo/app.py"],
                "unavailable": True,
                "skipped": True,
                "shared": True,
            },
            "viewedImagePaths": ["/repo/plot.png"],
            "viewedImages": [{"type": "image", "source": {"type": "base64", "data": "iVBO"}}],
        },
        to.BashOutput,
    ),
    (
        "TaskStop",
        {"message": "Stopped b1", "task_id": "b1", "task_type": "local_bash", "command": "sleep 9"},
        to.TaskStopOutput,
    ),
    (
        "Monitor",
        {"taskId": "m1", "timeoutMs": 300000, "persistent": False, "keptInSandboxByCheck": True},
        to.MonitorOutput,
    ),
    (
        "Read",
        {
            "type": "text",
            "file": {
                "filePath": "/repo/README.md",
                "content": "# App\n",
                "numLines": 1,
                "startLine": 1,
                "totalLines": 1,
                "truncatedByTokenCap": False,
            },
            "artifactRead": {"slug": "report", "ver": "v3", "seeded": False},
        },
        to.ReadTextOutput,
    ),
    (
        "Read",
        {
            "type": "image",
            "file": {
                "base64": "iVBORw0KGgo=",
                "type": "image/png",
                "originalSize": 2048,
                "dimensions": {
                    "originalWidth": 1024,
                    "originalHeight": 768,
                    "displayWidth": 512,
                    "displayHeight": 384,
                },
            },
        },
        to.ReadImageOutput,
    ),
    (
        "Read",
        {"type": "notebook", "file": {"filePath": "/repo/a.ipynb", "cells": [{"cell": 1}]}},
        to.ReadNotebookOutput,
    ),
    (
        "Read",
        {
            "type": "pdf",
            "file": {"filePath": "/repo/a.pdf", "base64": "JVBERi0=", "originalSize": 9},
        },
        to.ReadPdfOutput,
    ),
    (
        "Read",
        {
            "type": "parts",
            "file": {
                "filePath": "/repo/a.pdf",
                "originalSize": 9000,
                "count": 2,
                "outputDir": "/tmp/pages",
            },
            "firstPage": 3,
            "totalPages": 20,
            "pages": [
                {"base64": "iVBO", "mediaType": "image/png", "text": "page 3"},
                {"base64": "", "mediaType": "image/png", "error": "too large"},
            ],
        },
        to.ReadPartsOutput,
    ),
    (
        "Edit",
        {
            "filePath": "/repo/app.py",
            "oldString": "a",
            "newString": "b\nc",
            "originalFile": "a\n",
            "structuredPatch": [HUNK],
            "userModified": False,
            "replaceAll": False,
            "gitDiff": GIT_DIFF,
            "staged": False,
            "stagedWording": "review",
            "staleRecovered": True,
            "contentNotInModelContext": True,
            "syncedSkillNext": "propose_tool",
        },
        to.EditOutput,
    ),
    (
        "Write",
        {
            "type": "create",
            "filePath": "/repo/notes.txt",
            "content": "hello\n",
            "structuredPatch": [],
            "originalFile": None,
            "gitDiff": {**GIT_DIFF, "status": "added", "repository": None},
            "userModified": False,
            "staged": True,
            "stagedWording": "card",
            "memdirStamped": True,
            "syncedSkillNext": "save_tool",
        },
        to.WriteOutput,
    ),
    (
        "NotebookEdit",
        {
            "new_source": "print(2)",
            "old_source": "print(1)",
            "cell_id": "cell-3",
            "cell_type": "code",
            "language": "python",
            "edit_mode": "replace",
            "error": "",
            "notebook_path": "/repo/a.ipynb",
            "original_file": "{}",
            "updated_file": "{}",
        },
        to.NotebookEditOutput,
    ),
    (
        "Glob",
        {
            "durationMs": 12,
            "numFiles": 2,
            "filenames": ["src/a.py", "src/b.py"],
            "truncated": False,
            "totalMatches": 2,
            "countIsComplete": True,
            "timedOut": False,
        },
        to.GlobOutput,
    ),
    (
        "Grep",
        {
            "mode": "content",
            "numFiles": 1,
            "filenames": ["src/a.py"],
            "content": "src/a.py:3:def main():",
            "numLines": 1,
            "numMatches": 1,
            "totalFiles": 1,
            "totalLines": 1,
            "appliedLimit": 250,
            "appliedOffset": 0,
            "timedOut": False,
        },
        to.GrepOutput,
    ),
    (
        "WebFetch",
        {
            "bytes": 5120,
            "code": 200,
            "codeText": "OK",
            "result": "Install with pip.",
            "durationMs": 830,
            "url": "https://example.com/docs",
            "citable": True,
            "artifactRead": {"slug": "docs"},
        },
        to.WebFetchOutput,
    ),
    (
        "WebSearch",
        {
            "query": "anyio structured concurrency",
            "results": [
                {
                    "tool_use_id": "srvtoolu_1",
                    "content": [
                        {"title": "AnyIO", "url": "https://anyio.readthedocs.io", "snippet": "..."},
                        {"title": "Trio", "url": "https://trio.readthedocs.io"},
                    ],
                },
                "Both libraries use task groups.",
            ],
            "durationSeconds": 1.5,
            "searchCount": 1,
            "plainPageText": True,
        },
        to.WebSearchOutput,
    ),
    (
        "TodoWrite",
        {
            "oldTodos": [],
            "newTodos": [
                {"content": "Run the tests", "status": "in_progress", "activeForm": "Running"}
            ],
        },
        to.TodoWriteOutput,
    ),
    (
        "AskUserQuestion",
        {
            "questions": [
                QUESTION,
                {
                    "question": "How many workers?",
                    "header": "Workers",
                    "kind": "number",
                    "options": [],
                    "multiSelect": False,
                    "min": 1,
                    "max": 8,
                },
            ],
            "answers": {"Which test runner should we use?": "pytest", "How many workers?": "4"},
            "response": "pytest, 4 workers",
            "annotations": {
                "Which test runner should we use?": {
                    "preview": "pytest -q",
                    "notes": "fine",
                    "unanswered": "skipped",
                }
            },
            "afkTimeoutMs": 60000,
            "followUp": False,
        },
        to.AskUserQuestionOutput,
    ),
    ("EnterPlanMode", {"message": "Entered plan mode."}, to.EnterPlanModeOutput),
    (
        "ExitPlanMode",
        {
            "plan": "# Plan\n1. Write the tests",
            "isAgent": False,
            "filePath": "/home/u/.claude/plans/p.md",
            "hasTaskTool": True,
            "planWasEdited": False,
            "awaitingLeaderApproval": False,
            "requestId": "req_1",
        },
        to.ExitPlanModeOutput,
    ),
    (
        "EnterWorktree",
        {
            "worktreePath": "/repo/.worktrees/x",
            "worktreeBranch": "x",
            "message": "Entered the worktree",
            "sandboxNote": "the sandbox follows",
        },
        to.EnterWorktreeOutput,
    ),
    (
        "ExitWorktree",
        {
            "action": "remove",
            "originalCwd": "/repo",
            "worktreePath": "/repo/.worktrees/x",
            "worktreeBranch": "x",
            "tmuxSessionName": "x",
            "discardedFiles": 1,
            "discardedCommits": 0,
            "restoredCwd": "/repo",
            "originalCwdMissing": False,
            "message": "Removed the worktree",
            "releaseNote": "released",
            "sandboxNote": "the sandbox follows",
        },
        to.ExitWorktreeOutput,
    ),
    (
        "TaskCreate",
        {
            "task": {"id": "3", "subject": "Write docs", "description": "All of them"},
            "appKeepsStatuses": True,
        },
        to.TaskCreateOutput,
    ),
    (
        "TaskGet",
        {
            "task": {
                "id": "3",
                "subject": "Write docs",
                "description": "All of them",
                "status": "pending",
                "blocks": ["4"],
                "blockedBy": ["1"],
            }
        },
        to.TaskGetOutput,
    ),
    (
        "TaskUpdate",
        {
            "success": True,
            "taskId": "3",
            "updatedFields": ["status"],
            "error": "",
            "statusChange": {"from": "pending", "to": "completed"},
        },
        to.TaskUpdateOutput,
    ),
    (
        "TaskList",
        {
            "tasks": [
                {"id": "3", "subject": "Docs", "status": "pending", "owner": "me", "blockedBy": []}
            ]
        },
        to.TaskListOutput,
    ),
    (
        "CronCreate",
        {
            "id": "job-1",
            "humanSchedule": "every 5 minutes",
            "recurring": True,
            "durable": False,
            "nextFireAt": 1764000300000,
            "maxAgeMs": 0,
            "otherOneShots": [{"id": "job-0", "humanSchedule": "at 14:30", "prompt": "remind me"}],
        },
        to.CronCreateOutput,
    ),
    ("CronDelete", {"id": "job-1", "endedLoopWakeup": True}, to.CronDeleteOutput),
    (
        "CronList",
        {
            "jobs": [
                {
                    "id": "job-1",
                    "cron": "*/5 * * * *",
                    "humanSchedule": "every 5 minutes",
                    "prompt": "check the build",
                    "recurring": True,
                    "durable": False,
                    "nextFireAt": 1764000300000,
                }
            ]
        },
        to.CronListOutput,
    ),
    (
        "ScheduleWakeup",
        {
            "scheduledFor": 1764000300000,
            "clampedDelaySeconds": 300,
            "wasClamped": False,
            "stopped": False,
            "cancelledWakeups": 0,
        },
        to.ScheduleWakeupOutput,
    ),
    (
        "ListMcpResourcesTool",
        [
            {
                "uri": "docs://index",
                "name": "index",
                "mimeType": "text/markdown",
                "description": "The index",
                "server": "docs",
            },
            {"uri": "docs://a", "name": "a", "server": "docs"},
        ],
        list,
    ),
    (
        "RefreshMcpTools",
        [
            {
                "server": "docs",
                "status": "refreshed",
                "toolCount": 3,
                "added": ["search"],
                "removed": ["find"],
            },
            {"server": "db", "status": "error", "error": "timed out"},
        ],
        list,
    ),
    (
        "ReadMcpResourceDirTool",
        {
            "resources": [
                {"uri": "docs://guides/", "name": "guides", "mimeType": "inode/directory"}
            ],
            "error": "",
        },
        to.ReadMcpResourceDirOutput,
    ),
    (
        "ReadMcpResourceTool",
        {
            "contents": [
                {"uri": "docs://index", "mimeType": "text/markdown", "text": "# Docs"},
                {"uri": "docs://logo", "blobSavedTo": "/tmp/logo.png"},
            ],
            "error": "",
        },
        to.ReadMcpResourceOutput,
    ),
    ("mcp__calc__add", "5", str),
    (
        "mcp__calc__add",
        [
            {"type": "text", "text": "5"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"},
            },
        ],
        list,
    ),
    ("mcp__calc__add", {"sum": 5}, dict),
    (
        "mcp__calc__add",
        {"content": '{"sum":5}', "structuredContent": {"sum": 5}},
        to.McpStructuredOutput,
    ),
    (
        "ReportFindings",
        {
            "count": 1,
            "level": "high",
            "findings": [
                {"file": "src/app.py", "line": 42, "summary": "s", "failure_scenario": "f"}
            ],
        },
        to.ReportFindingsOutput,
    ),
    ("SendFeedback", {"success": True, "message": "Thanks"}, to.SendFeedbackOutput),
    ("SetGoal", {"condition": "tests pass", "askUser": True}, to.ProposeGoalOutput),
    ("propose_skills", {"proposalCount": 2}, to.ProposeSkillsOutput),
    (
        "PushNotification",
        {
            "message": "The build is green",
            "pushSent": False,
            "localSent": True,
            "disabledReason": "user_present",
            "sentAt": "2026-11-22T01:29:03.769Z",
        },
        to.PushNotificationOutput,
    ),
    (
        "ReadNotifications",
        {
            "notifications": [
                {
                    "notification_id": "n1",
                    "origin": "github_webhook",
                    "queued_at": "2026-11-22T01:29:03Z",
                    "content": "PR #7 merged",
                    "arrived_at": "2026-11-22T01:29:04Z",
                }
            ],
            "remaining": 0,
            "read_at": "2026-11-22T01:29:05Z",
        },
        to.ReadNotificationsOutput,
    ),
    (
        "ShowOnboardingRolePicker",
        {"role": "backend", "dismissed": False},
        to.ShowOnboardingRolePickerOutput,
    ),
    ("OfferChromeSetup", {"outcome": "not_now"}, to.OfferChromeSetupOutput),
    (
        "Workflow",
        {
            "status": "async_launched",
            "taskId": "w1",
            "taskType": "local_workflow",
            "workflowName": "research",
            "runId": "run-1",
            "summary": "3 phases",
            "transcriptDir": "/tmp/w1",
            "scriptPath": "/home/u/.claude/w1.js",
            "sessionUrl": "https://claude.ai/code/session_2",
            "warning": "local changes are not pushed",
            "error": "",
        },
        to.WorkflowOutput,
    ),
    (
        "RemoteTrigger",
        {"status": 200, "json": '{"triggers": []}', "summary": "no triggers"},
        to.RemoteTriggerOutput,
    ),
    (
        "ClaudeDesign",
        {"operation": "list", "content": [{"type": "text", "text": "ops"}], "isError": False},
        to.ClaudeDesignOutput,
    ),
    (
        "Projects",
        {
            "method": "project_info",
            "notice": "read-only",
            "local_file": "/tmp/info.json",
            "name": "Launch",
            "description": "The launch plan",
            "instructions": "Be brief",
            "docs": [{"path": "plan.md", "created_at": None}],
            "files": [{"path": "logo.png", "file_kind": "image", "created_at": "2026-11-01"}],
            "sync_sources": [{"type": None, "config": {"repo": "acme/app"}}],
            "knowledge": {"knowledge_size": 10, "max_knowledge_size": 100},
        },
        to.ProjectInfoOutput,
    ),
    (
        "Projects",
        {
            "method": "project_read",
            "notice": "",
            "path": "plan.md",
            "version": "ab12",
            "file_kind": "text",
            "content": "# Plan",
            "local_file": "/tmp/plan.md",
            "size_bytes": 6,
            "created_at": "2026-11-01",
        },
        to.ProjectReadOutput,
    ),
    (
        "Projects",
        {
            "method": "project_search",
            "notice": "",
            "rag": True,
            "hits": [
                {
                    "name": "plan.md",
                    "doc_uuid": "d1",
                    "text": "launch",
                    "image_attached": True,
                    "page": 2,
                }
            ],
            "images": [{"content_id": "d1", "page": 2, "media_type": "image/png", "data": "iVBO"}],
            "docs": ["plan.md"],
        },
        to.ProjectSearchOutput,
    ),
    (
        "Projects",
        {
            "method": "project_write",
            "notice": "",
            "path": "claude/notes.md",
            "doc_uuid": "d2",
            "version": "cd34",
            "replaced": False,
            "present_to_user": True,
            "local_path": "notes.md",
        },
        to.ProjectWriteOutput,
    ),
    (
        "Projects",
        {"method": "project_delete", "notice": "", "path": "notes.md", "deleted": True},
        to.ProjectDeleteOutput,
    ),
    (
        "Projects",
        {
            "method": "project_memory_list",
            "notice": "",
            "files": [{"path": "m.md", "size_bytes": 10, "updated_at": None, "truncated": False}],
            "truncated": False,
        },
        to.ProjectMemoryListOutput,
    ),
    (
        "Projects",
        {
            "method": "project_memory_read",
            "notice": "",
            "path": "m.md",
            "content": "remember",
            "local_file": "/tmp/m.md",
            "size_bytes": 8,
            "updated_at": "2026-11-02",
            "truncated": False,
        },
        to.ProjectMemoryReadOutput,
    ),
    ("Artifact", PUBLISH, to.ArtifactPublishOutput),
    (
        "Artifact",
        {
            "artifacts": [
                {
                    "title": "Build report",
                    "url": "https://claude.ai/artifact/abc",
                    "favicon": "chart",
                    "updatedAt": "2026-11-20",
                    "rel": "shared",
                    "external": True,
                    "role": "reader",
                    "outsidersMayHaveWritten": True,
                    "listedKind": "page",
                    "pinned": True,
                }
            ],
            "truncated": False,
            "total": 1,
            "total_at_least": True,
            "next_page_token": "p2",
            "pins_enabled": True,
            "scope": "all",
            "external_listed": True,
        },
        to.ArtifactListOutput,
    ),
    (
        "Artifact",
        {
            "read": {
                "url": "https://claude.ai/artifact/abc",
                "bytes": 100,
                "code": 200,
                "codeText": "OK",
                "result": "<html>",
                "durationMs": 40,
                "title": "Build report",
            },
            "owned": True,
            "artifactRead": {"slug": "abc", "ver": "v3", "seeded": False},
        },
        to.ArtifactReadOutput,
    ),
    (
        "Artifact",
        {
            "watch": {
                "url": "https://claude.ai/artifact/abc",
                "watching": True,
                "outcome": "armed",
                "reason": "asked",
                "durable_skip_reason": "no triggers",
                "task_id": "t1",
                "since": 1764000000000,
                "token_expires_at": 1764003600000,
                "rail": "live",
                "trigger_id": "trg_1",
                "durable_since": "2026-11-22",
                "status": 200,
                "detail": "ok",
                "note": "n",
                "events": ["comment"],
            }
        },
        to.ArtifactWatchOutput,
    ),
    (
        "Artifact",
        {"unwatch": {"url": "https://claude.ai/artifact/abc", "was_watching": True}},
        to.ArtifactUnwatchOutput,
    ),
    (
        "Artifact",
        {
            "watches": [
                {
                    "url": "https://claude.ai/artifact/abc",
                    "task_id": "t1",
                    "since": 1764000000000,
                    "explicit": True,
                    "connected": True,
                    "connecting": False,
                    "token_expires_at": 1764003600000,
                    "armed_via": "watch",
                },
                {
                    "url": "https://claude.ai/artifact/def",
                    "rail": "durable_wake",
                    "trigger_id": "trg_1",
                    "since": "2026-11-22",
                    "events": ["comment"],
                    "restored": True,
                },
                {
                    "url": "https://claude.ai/artifact/ghi",
                    "rail": "live_stopped",
                    "since": 1764000000000,
                    "explicit": False,
                    "armed_via": "publish",
                    "stop_kind": "expired",
                },
            ],
            "filter_url": "https://claude.ai/artifact/abc",
            "arms": [
                {
                    "url": "https://claude.ai/artifact/abc",
                    "rail": "live",
                    "state": "retrying",
                    "reconnect": True,
                    "failures": 1,
                    "max_failures": 5,
                    "next_in_s": 2.5,
                    "last_failure": "503",
                    "reason": "r",
                    "detail": "d",
                    "server_message": "busy",
                    "at": 1764000000000,
                }
            ],
        },
        to.ArtifactStatusOutput,
    ),
    (
        "Artifact",
        {
            "written": {"url": "https://claude.ai/artifact/abc"},
            "owned": True,
            "asset_upload": {
                "id": "0123456789abcdef0123456789abcdef",
                "url": "https://claude.ai/asset/1",
                "size_bytes": 2048,
                "content_type": "image/png",
                "sha256": "e3b0",
                "file_name": "plot.png",
            },
        },
        to.ArtifactAssetUploadOutput,
    ),
    (
        "Artifact",
        {
            "written": {"url": "https://claude.ai/artifact/abc"},
            "owned": True,
            "asset_uploads": {
                "url": "https://claude.ai/artifact/abc",
                "results": [
                    {
                        "file_path": "/repo/a.png",
                        "status": "uploaded",
                        "id": "0123456789abcdef0123456789abcdef",
                        "url": "https://claude.ai/asset/1",
                        "size_bytes": 2048,
                        "content_type": "image/png",
                        "sha256": "e3b0",
                        "file_name": "a.png",
                    },
                    {
                        "file_path": "/repo/b.csv",
                        "status": "not_attempted",
                        "reason": "own_call",
                        "message": "a CSV goes in a call of its own",
                        "may_be_stored": True,
                    },
                ],
            },
        },
        to.ArtifactAssetUploadsOutput,
    ),
    (
        "Artifact",
        {
            "asset_list": {
                "url": "https://claude.ai/artifact/abc",
                "assets": [
                    {
                        "id": "0123456789abcdef0123456789abcdef",
                        "url": "https://claude.ai/asset/1",
                        "content_type": "image/png",
                        "size_bytes": 2048,
                        "sha256": "e3b0",
                        "created_at": "2026-11-22",
                    }
                ],
                "usage": {"files": 1, "bytes": 2048, "max_files": 100, "max_bytes": 10485760},
                "next": "n1",
                "cowritten": True,
                "outside_writer": True,
            }
        },
        to.ArtifactAssetListOutput,
    ),
    (
        "Artifact",
        {
            "asset_read": {
                "id": "0123456789abcdef0123456789abcdef",
                "path": "/tmp/assets/0123.png",
                "size_bytes": 2048,
                "content_type": "image/png",
                "sha256": "e3b0",
                "cowritten": True,
                "outside_writer": True,
                "public_read": True,
                "foreign": True,
            }
        },
        to.ArtifactAssetReadOutput,
    ),
    (
        "Artifact",
        {
            "written": {"url": "https://claude.ai/artifact/abc"},
            "owned": True,
            "asset_delete": {"id": "0123456789abcdef0123456789abcdef", "deleted": True},
        },
        to.ArtifactAssetDeleteOutput,
    ),
    (
        "Artifact",
        {
            "pin": {
                "action": "pin",
                "url": "https://claude.ai/artifact/abc",
                "pinned": True,
                "title": "Build report",
            }
        },
        to.ArtifactPinOutput,
    ),
]

#: The 44 output types of sdk-tools.d.ts, by a tool name that gives each.
SDK_TOOLS_OUTPUTS = {
    "AgentOutput": "Agent",
    "BashOutput": "Bash",
    "ExitPlanModeOutput": "ExitPlanMode",
    "FileEditOutput": "Edit",
    "FileReadOutput": "Read",
    "FileWriteOutput": "Write",
    "GlobOutput": "Glob",
    "GrepOutput": "Grep",
    "TaskStopOutput": "TaskStop",
    "ListMcpResourcesOutput": "ListMcpResourcesTool",
    "RefreshMcpToolsOutput": "RefreshMcpTools",
    "McpOutput": "mcp__server__tool",
    "NotebookEditOutput": "NotebookEdit",
    "ReadMcpResourceDirOutput": "ReadMcpResourceDirTool",
    "ReadMcpResourceOutput": "ReadMcpResourceTool",
    "ReportFindingsOutput": "ReportFindings",
    "TodoWriteOutput": "TodoWrite",
    "WebFetchOutput": "WebFetch",
    "WebSearchOutput": "WebSearch",
    "AskUserQuestionOutput": "AskUserQuestion",
    "SendFeedbackOutput": "SendFeedback",
    "EnterWorktreeOutput": "EnterWorktree",
    "ExitWorktreeOutput": "ExitWorktree",
    "TaskCreateOutput": "TaskCreate",
    "TaskGetOutput": "TaskGet",
    "TaskUpdateOutput": "TaskUpdate",
    "TaskListOutput": "TaskList",
    "ArtifactOutput": "Artifact",
    "RemoteTriggerOutput": "RemoteTrigger",
    "ShowOnboardingRolePickerOutput": "ShowOnboardingRolePicker",
    "OfferChromeSetupOutput": "OfferChromeSetup",
    "ReadNotificationsOutput": "ReadNotifications",
    "ScheduleWakeupOutput": "ScheduleWakeup",
    "MonitorOutput": "Monitor",
    "ProposeSkillsOutput": "propose_skills",
    "ProposeGoalOutput": "SetGoal",
    "EnterPlanModeOutput": "EnterPlanMode",
    "WorkflowOutput": "Workflow",
    "CronCreateOutput": "CronCreate",
    "CronDeleteOutput": "CronDelete",
    "CronListOutput": "CronList",
    "PushNotificationOutput": "PushNotification",
    "ClaudeDesignOutput": "ClaudeDesign",
    "ProjectsOutput": "Projects",
}

#: Other names of the same tools.
ALIASES = {
    "Task": "Agent",
    "KillShell": "TaskStop",
    "KillBash": "TaskStop",
    "ListMcpResources": "ListMcpResourcesTool",
    "ReadMcpResource": "ReadMcpResourceTool",
    "ReadMcpResourceDir": "ReadMcpResourceDirTool",
    "ProposeGoal": "SetGoal",
}

_IDS = [f"{name}-{tp.__name__}" for name, _, tp in SAMPLES]
#: The samples whose result is one object.
OBJECTS = [(name, data, tp) for name, data, tp in SAMPLES if attrs.has(tp)]
_OBJECT_IDS = [f"{name}-{tp.__name__}" for name, _, tp in OBJECTS]


def _classes(tp: Any) -> set[type]:
    """The attrs classes an output type is made of (its members, its list's items)."""
    if isinstance(tp, type) and attrs.has(tp):
        return {tp}
    return {cls for arg in typing.get_args(tp) for cls in _classes(arg)}


def _required_keys(cls: type) -> list[str]:
    spec = codec.generator.spec(cls)
    return [
        spec.wire_name(a.name)
        for a in attrs.fields(cls)
        if a.name != "extra" and a.default is attrs.NOTHING
    ]


def _nullable(cls: type, key: str) -> bool:
    spec = codec.generator.spec(cls)
    hints = typing.get_type_hints(cls)
    (name,) = [a.name for a in attrs.fields(cls) if spec.wire_name(a.name) == key]
    return type(None) in typing.get_args(hints[name])


# --------------------------------------------------------------------------------------
# The table


def test_every_sdk_tools_output_type_has_a_view() -> None:
    assert len(SDK_TOOLS_OUTPUTS) == 44
    for ts_name, tool in SDK_TOOLS_OUTPUTS.items():
        tp = to.McpOutput if tool.startswith("mcp__") else TOOL_OUTPUTS[tool]
        assert _classes(tp), ts_name
        # The view is named as in the .d.ts, without its "File" prefix.
        assert getattr(to, ts_name.removeprefix("File")) == tp, ts_name


def test_every_tool_has_samples_of_every_class() -> None:
    tools = {ALIASES.get(name, name) for name, _, _ in SAMPLES}
    assert tools - {"mcp__calc__add"} == set(TOOL_OUTPUTS) - set(ALIASES)
    assert set(ALIASES.values()) <= set(TOOL_OUTPUTS)
    covered = {cls for name, data, _ in SAMPLES for cls in _view_classes(typed_output(name, data))}
    expected = {cls for tp in [*TOOL_OUTPUTS.values(), to.McpOutput] for cls in _classes(tp)}
    assert expected <= covered


def _view_classes(value: Any) -> Iterator[type]:
    """The attrs classes of a view and of everything inside it."""
    if attrs.has(type(value)):
        yield type(value)
        for a in attrs.fields(type(value)):
            if a.name != "extra":
                yield from _view_classes(getattr(value, a.name))
    elif isinstance(value, list):
        for item in value:
            yield from _view_classes(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _view_classes(item)


def test_the_tables_are_read_only_and_public() -> None:
    assert isinstance(TOOL_OUTPUTS, types.MappingProxyType)
    classes = {
        value
        for value in vars(to).values()
        if isinstance(value, type)
        and value.__module__ in (to.__name__, "claude_sdk._tool_outputs")  # generated there
        and attrs.has(value)
    }
    assert {cls.__name__ for cls in classes} <= set(to.__all__)
    for name in to.__all__:
        assert hasattr(to, name), name
    for cls in classes:
        assert cls.__doc__, cls.__name__
    for name, tp in TOOL_OUTPUTS.items():
        docs = " ".join(
            (cls.__doc__ or "") for cls in _classes(tp) if cls.__name__.endswith("Output")
        ) or " ".join((cls.__doc__ or "") for cls in _classes(tp))
        assert f"``{name}``" in docs, name
    assert set(to.WIRE_KEYS) <= classes


# --------------------------------------------------------------------------------------
# Samples


@pytest.mark.parametrize(("name", "data", "tp"), SAMPLES, ids=_IDS)
def test_sample_decodes_exactly(name: str, data: Any, tp: Any) -> None:
    before = json.loads(json.dumps(data))
    obj = typed_output(name, data)
    assert isinstance(obj, tp)
    assert codec.drift(obj) == []
    assert codec.unstructure(obj) == data
    assert data == before  # the result is not changed


@pytest.mark.parametrize(("name", "data", "tp"), OBJECTS, ids=_OBJECT_IDS)
def test_every_field_is_in_the_sample(name: str, data: JSON, tp: Any) -> None:
    obj: Any = typed_output(name, data)
    assert obj.__class__ is tp
    assert attrs.has(type(obj))
    assert obj.extra == {}
    for a in attrs.fields(tp):
        if a.name != "extra":
            assert a.name in obj.__dict__, f"{a.name} missing from the sample"


@pytest.mark.parametrize(("name", "data", "tp"), OBJECTS, ids=_OBJECT_IDS)
def test_required_keys_only(name: str, data: JSON, tp: type) -> None:
    minimal = {k: data[k] for k in _required_keys(tp)}
    tag = {"Agent": "status", "Task": "status", "Read": "type", "Projects": "method"}.get(name)
    if tag is not None:
        minimal[tag] = data[tag]
    obj = typed_output(name, minimal)
    assert isinstance(obj, tp)
    assert codec.drift(obj) == []
    assert codec.unstructure(obj) == minimal


@pytest.mark.parametrize(
    ("name", "data", "tp", "key"),
    [(n, d, tp, key) for n, d, tp in OBJECTS for key in _required_keys(tp)],
)
def test_a_missing_required_key_gives_none(name: str, data: JSON, tp: type, key: str) -> None:
    damaged = dict(data)
    del damaged[key]
    # An MCP tool's result may be any object: one that is not the class stays a plain dict.
    unfit = damaged if name.startswith("mcp__") else None
    assert typed_output(name, damaged) == unfit
    if not _nullable(tp, key):
        assert typed_output(name, {**data, key: None}) == ({**data, key: None} if unfit else None)


@pytest.mark.parametrize(("name", "data", "tp"), OBJECTS, ids=_OBJECT_IDS)
def test_unknown_keys_are_kept_in_extra(name: str, data: JSON, tp: Any) -> None:
    more = {**data, "zz_new": [1, {"a": None}], "extra": "x"}
    obj: Any = typed_output(name, more)
    assert isinstance(obj, tp)
    assert obj.extra == {"zz_new": [1, {"a": None}], "extra": "x"}
    assert codec.unstructure(obj) == more
    assert sorted(codec.drift(obj)) == [
        "$.extra: unknown field (str)",
        "$.zz_new: unknown field (list)",
    ]
    assert obj == typed_output(name, data)  # ``extra`` is not part of equality


def test_nested_unknown_keys_are_kept() -> None:
    data = {
        "filePath": "/x",
        "oldString": "a",
        "newString": "b",
        "originalFile": None,
        "structuredPatch": [{**HUNK, "zz": True}],
        "userModified": False,
        "replaceAll": False,
    }
    obj = typed_output("Edit", data)
    assert isinstance(obj, to.EditOutput)
    assert obj.structured_patch[0].extra == {"zz": True}
    assert codec.drift(obj) == ["$.structuredPatch[0].zz: unknown field (bool)"]
    assert codec.unstructure(obj) == data


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("Bash", {"stdout": 1, "stderr": "", "interrupted": False}),
        ("Bash", {"stdout": "", "stderr": "", "interrupted": "no"}),
        ("Bash", {"stdout": "", "stderr": "", "interrupted": False, "persistedOutputSize": 1.5}),
        ("Bash", {"stdout": "", "stderr": "", "interrupted": False, "gitOperation": []}),
        ("Bash", {"stdout": "", "stderr": "", "interrupted": False, "gitOperation": {"pr": {}}}),
        ("Glob", {"durationMs": "fast", "numFiles": 0, "filenames": [], "truncated": False}),
        ("Glob", {"durationMs": 1, "numFiles": 0, "filenames": [1], "truncated": False}),
        ("Glob", {"durationMs": True, "numFiles": 0, "filenames": [], "truncated": False}),
        ("TodoWrite", {"oldTodos": [], "newTodos": [{"content": "a"}]}),
        ("TodoWrite", {"oldTodos": {}, "newTodos": []}),
        ("Agent", {"status": "completed", "agentId": "a"}),
        ("Agent", {"status": 5, "agentId": "a"}),
        ("Agent", {"status": ["completed"], "agentId": "a"}),
        ("Read", {"type": "text", "file": {"filePath": "/x"}}),
        ("Read", {"type": "text", "file": "/x"}),
        ("WebSearch", {"query": "q", "results": [1], "durationSeconds": 1}),
        ("WebSearch", {"query": "q", "results": [{"tool_use_id": "t"}], "durationSeconds": 1}),
        ("TaskGet", {"task": {"id": "1"}}),
        ("TaskGet", {}),
        ("AskUserQuestion", {"questions": [QUESTION], "answers": {"q": 1}}),
        ("ListMcpResourcesTool", {"uri": "a", "name": "a", "server": "s"}),
        ("ListMcpResourcesTool", [{"uri": "a", "name": "a"}]),
        ("RefreshMcpTools", [1]),
        ("mcp__calc__add", [{"text": "5"}]),
        ("mcp__calc__add", 5),
        ("Artifact", {"pin": {"action": "pin"}}),
        ("Artifact", {"url": "https://claude.ai/artifact/abc"}),
        ("Projects", {"method": "project_delete", "path": "a", "deleted": "yes"}),
    ],
)
def test_a_value_of_the_wrong_shape_gives_none(name: str, data: Any) -> None:
    assert typed_output(name, data) is None


@pytest.mark.parametrize(
    ("name", "key", "tag"),
    [("Agent", "status", "running"), ("Read", "type", "video"), ("Projects", "method", "zz")],
)
def test_a_tag_it_does_not_know_gives_none(name: str, key: str, tag: str) -> None:
    data = next(dict(d) for n, d, _ in OBJECTS if n == name)
    assert typed_output(name, data) is not None
    data[key] = tag
    assert typed_output(name, data) is None
    del data[key]
    assert typed_output(name, data) is None


def test_a_literal_value_from_a_newer_cli_still_fits() -> None:
    data = {
        "oldTodos": [],
        "newTodos": [{"content": "a", "status": "cancelled", "activeForm": "A"}],
    }
    obj = typed_output("TodoWrite", data)
    assert isinstance(obj, to.TodoWriteOutput)
    status: str = obj.new_todos[0].status
    assert status == "cancelled"
    assert codec.unstructure(obj) == data
    assert codec.drift(obj) == [
        "$.newTodos[0].status: value 'cancelled' not in ['pending', 'in_progress', 'completed']"
    ]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("Bash", "Error: Denied by the test SDK"),
        ("Bash", "User rejected tool use"),
        ("Edit", "Error: File has not been read yet."),
        ("Agent", None),
        ("Read", ["a"]),
        ("Glob", 5),
    ],
)
def test_an_error_text_or_odd_value_gives_none(name: str, value: Any) -> None:
    assert typed_output(name, value) is None


@pytest.mark.parametrize("name", ["StructuredOutput", "NoSuchTool", "bash", "", "Skill", "mcp_x"])
def test_an_unknown_tool_gives_none(name: str) -> None:
    assert typed_output(name, {"stdout": "", "stderr": "", "interrupted": False}) is None
    assert typed_output(name, "Structured output provided successfully") is None


@pytest.mark.parametrize("name", [None, 5, ["Bash"], {"Bash": 1}, b"Bash"])
def test_a_name_that_is_not_a_string_gives_none(name: Any) -> None:
    assert typed_output(name, {"stdout": "", "stderr": "", "interrupted": False}) is None


def test_mcp_results() -> None:
    assert typed_output("mcp__calc__add", "5") == "5"
    assert typed_output("mcp__calc__add", {"sum": 5}) == {"sum": 5}
    blocks = typed_output("mcp__calc__add", [{"type": "text", "text": "5", "_meta": {}}])
    assert blocks == [to.McpContentBlock(type="text", text="5")]
    assert isinstance(blocks, list)
    assert blocks[0].extra == {"_meta": {}}
    # a tool that returned structuredContent: the model's text beside it
    both = {"content": '{"sum":5}', "structuredContent": {"sum": 5}}
    typed = typed_output("mcp__calc__add", both)
    assert typed == to.McpStructuredOutput(content='{"sum":5}', structured_content={"sum": 5})
    assert codec.unstructure(typed) == both
    blocks_too = {"content": [{"type": "text", "text": "5"}], "structuredContent": {"sum": 5}}
    typed = typed_output("mcp__calc__add", blocks_too)
    assert isinstance(typed, to.McpStructuredOutput)
    assert typed.content == [to.McpContentBlock(type="text", text="5")]
    # structuredContent that is no object is some other object, kept as it came
    odd = {"content": "5", "structuredContent": [5]}
    assert typed_output("mcp__calc__add", odd) == odd


def test_any_mapping_is_accepted() -> None:
    data = {"message": "Entered plan mode.", "zz": 1}
    obj = typed_output("EnterPlanMode", types.MappingProxyType(data))
    assert obj == to.EnterPlanModeOutput(message="Entered plan mode.")
    assert isinstance(obj, to.EnterPlanModeOutput)
    assert obj.extra == {"zz": 1}


def test_views_read_as_typed_values() -> None:
    agent = typed_output("Agent", SAMPLES[0][1])
    assert isinstance(agent, to.AgentCompletedOutput)
    assert agent.text == "Found 3 TODOs."
    assert agent.usage.server_tool_use == to.ServerToolUsage(
        web_search_requests=0, web_fetch_requests=0
    )
    assert agent.tool_stats is not None
    assert agent.tool_stats.bash_count == 1
    todo = typed_output("TodoWrite", next(d for n, d, _ in SAMPLES if n == "TodoWrite"))
    assert isinstance(todo, to.TodoWriteOutput)
    assert todo.new_todos == [
        TodoItem(content="Run the tests", status="in_progress", active_form="Running")
    ]
    update = typed_output("TaskUpdate", next(d for n, d, _ in SAMPLES if n == "TaskUpdate"))
    assert isinstance(update, to.TaskUpdateOutput)
    assert update.status_change == to.TaskStatusChange(from_="pending", to="completed")
    status = typed_output(
        "Artifact", next(d for n, d, tp in SAMPLES if tp is to.ArtifactStatusOutput)
    )
    assert isinstance(status, to.ArtifactStatusOutput)
    assert [type(w) for w in status.watches] == [
        to.ArtifactLiveWatch,
        to.ArtifactDurableWatch,
        to.ArtifactStoppedWatch,
    ]
    resources = typed_output(
        "ListMcpResourcesTool",
        SAMPLES[next(i for i, (n, _, _) in enumerate(SAMPLES) if n == "ListMcpResourcesTool")][1],
    )
    assert isinstance(resources, list)
    assert [r.mime_type for r in resources if isinstance(r, to.McpResource)] == [
        "text/markdown",
        None,
    ]


# --------------------------------------------------------------------------------------
# Built in Python


def test_python_built_values_encode_to_the_wire_keys() -> None:
    assert codec.unstructure(to.EnterPlanModeOutput(message="ok")) == {"message": "ok"}
    assert codec.unstructure(
        to.GlobOutput(duration_ms=3, num_files=0, filenames=[], truncated=False)
    ) == {"durationMs": 3, "numFiles": 0, "filenames": [], "truncated": False}
    assert codec.unstructure(to.TaskStatusChange(from_="a", to="b")) == {"from": "a", "to": "b"}
    assert codec.unstructure(
        to.AgentRemoteLaunchedOutput(
            task_id="r1", session_url="u", description="d", prompt="p", output_file="f"
        )
    ) == {
        "status": "remote_launched",
        "taskId": "r1",
        "sessionUrl": "u",
        "description": "d",
        "prompt": "p",
        "outputFile": "f",
    }
    assert codec.unstructure(to.ExitPlanModeOutput(plan=None, is_agent=False)) == {
        "plan": None,
        "isAgent": False,
    }


#: The first tool name of each class that is a whole result (or a member of a union result).
_RESULT_CLASSES: dict[type, str] = {}
for _name, _tp in TOOL_OUTPUTS.items():
    if typing.get_origin(_tp) is list:
        continue
    for _cls in sorted(_classes(_tp), key=lambda c: c.__name__):
        _RESULT_CLASSES.setdefault(_cls, _name)


@settings(max_examples=deep(60), deadline=None)
@given(st.sampled_from(sorted(_RESULT_CLASSES, key=lambda c: c.__name__)), st.data())
def test_python_built_values_round_trip(cls: type[Any], data: st.DataObject) -> None:
    obj = data.draw(strategies.instances(cls))
    value = json.loads(json.dumps(codec.unstructure(obj)))
    back = typed_output(_RESULT_CLASSES[cls], value)
    assert back == obj
    assert back.__class__ is cls
    assert codec.drift(back) == []
    assert codec.unstructure(back) == value


@settings(max_examples=deep(40), deadline=None)
@given(
    st.sampled_from(["ListMcpResourcesTool", "RefreshMcpTools"]),
    st.data(),
)
def test_python_built_lists_round_trip(name: str, data: st.DataObject) -> None:
    (item,) = typing.get_args(TOOL_OUTPUTS[name])
    items = data.draw(st.lists(strategies.instances(item), max_size=3))
    value = json.loads(json.dumps(codec.unstructure(items)))
    back = typed_output(name, value)
    assert back == items
    assert codec.drift(back) == []
    assert codec.unstructure(back) == value


_KEYS = sorted(
    {key for renames in to.WIRE_KEYS.values() for key in renames.values()}
    | {"status", "type", "method", "stdout", "stderr", "interrupted", "file", "task", "read"}
)


@settings(max_examples=deep(100), deadline=None)
@given(
    st.sampled_from([*sorted(TOOL_OUTPUTS), "mcp__calc__add", "Nope"]),
    st.dictionaries(st.sampled_from(_KEYS) | strategies.texts, strategies.json_values, max_size=5)
    | strategies.json_values,
)
def test_arbitrary_json_never_raises(name: str, data: Any) -> None:
    obj = typed_output(name, data)
    if obj is not None:
        assert codec.unstructure(obj) == data


@settings(max_examples=deep(100), deadline=None)
@given(st.sampled_from(SAMPLES), st.data())
def test_damaged_samples_never_raise(sample: tuple[str, Any, Any], data: st.DataObject) -> None:
    """A sample with one value anywhere inside replaced by any JSON value."""
    name, value, _ = sample
    damaged = json.loads(json.dumps(value))
    paths = list(_paths(damaged))
    if paths:
        holder, key = data.draw(st.sampled_from(paths))
        holder[key] = data.draw(strategies.json_values)
    obj = typed_output(name, damaged)
    if obj is not None:
        assert codec.unstructure(obj) == damaged


def _paths(value: Any) -> Iterator[tuple[Any, Any]]:
    """(container, key) of every value inside a JSON value."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield value, k
            yield from _paths(v)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield value, i
            yield from _paths(v)


# --------------------------------------------------------------------------------------
# Results the real CLI produced

#: One result of each kind the real CLI 2.1.330 produced in an offline run against
#: FakeMessagesAPI (a scripted model calling each tool in turn, in a scratch git repository;
#: paths renamed to /home/user/demo, long strings cut); CLI 2.1.331 gave the same shapes. The
#: tools this CLI does not offer in an SDK session (TodoWrite, ...) or that need the network
#: (WebFetch) are not here.
REAL: list[tuple[str, Any]] = [
    (
        "Write",
        {
            "type": "create",
            "filePath": "/home/user/demo/f.txt",
            "content": "a\nb\n",
            "structuredPatch": [],
            "originalFile": None,
            "userModified": False,
        },
    ),
    (
        "Read",
        {
            "type": "text",
            "file": {
                "filePath": "/home/user/demo/f.txt",
                "content": "a\nb\n",
                "numLines": 3,
                "startLine": 1,
                "totalLines": 3,
            },
        },
    ),
    (
        "Edit",
        {
            "filePath": "/home/user/demo/f.txt",
            "oldString": "a",
            "newString": "A",
            "originalFile": "a\nb\n",
            "structuredPatch": [
                {
                    "oldStart": 1,
                    "oldLines": 2,
                    "newStart": 1,
                    "newLines": 2,
                    "lines": ["-a", "+A", " b"],
                }
            ],
            "userModified": False,
            "replaceAll": False,
        },
    ),
    (
        "Write",
        {
            "type": "update",
            "filePath": "/home/user/demo/f.txt",
            "content": "A\nb\nc\n",
            "structuredPatch": [
                {
                    "oldStart": 1,
                    "oldLines": 2,
                    "newStart": 1,
                    "newLines": 3,
                    "lines": [" A", " b", "+c"],
                }
            ],
            "originalFile": "A\nb\n",
            "userModified": False,
        },
    ),
    (
        "Read",
        {
            "type": "image",
            "file": {
                "base64": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQD"
                "J/pLvAAAAAElFTkSuQmCC",
                "type": "image/png",
                "originalSize": 69,
                "dimensions": {
                    "originalWidth": 1,
                    "originalHeight": 1,
                    "displayWidth": 1,
                    "displayHeight": 1,
                },
            },
        },
    ),
    (
        "Read",
        {
            "type": "notebook",
            "file": {
                "filePath": "/home/user/demo/nb.ipynb",
                "cells": [
                    {
                        "cellType": "code",
                        "source": "print(1)",
                        "cell_id": "c1",
                        "language": "python",
                    }
                ],
            },
        },
    ),
    (
        "NotebookEdit",
        {
            "new_source": "print(2)",
            "old_source": "print(1)",
            "cell_type": "code",
            "language": "python",
            "edit_mode": "replace",
            "cell_id": "c1",
            "error": "",
            "notebook_path": "/home/user/demo/nb.ipynb",
            "original_file": '{"cells": [{"cell_type": "code", "id": "c1", "metadata": {}, '
            '"source": ["print(1)"], "outputs": [], "execution_count": n...',
            "updated_file": "{\n"
            ' "cells": [\n'
            "  {\n"
            '   "cell_type": "code",\n'
            '   "id": "c1",\n'
            '   "metadata": {},\n'
            '   "source": "print(2)",\n'
            '   "outputs": [],\n'
            " ...",
        },
    ),
    (
        "Bash",
        {
            "stdout": "hi",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
        },
    ),
    (
        "Bash",
        {
            "stdout": "",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
            "backgroundTaskId": "barps1vxp",
        },
    ),
    (
        "CronCreate",
        {
            "id": "801899a6",
            "humanSchedule": "Every 5 minutes",
            "recurring": True,
            "durable": False,
            "nextFireAt": 1795630000198,
            "maxAgeMs": 2592000000,
        },
    ),
    (
        "CronList",
        {
            "jobs": [
                {
                    "id": "801899a6",
                    "cron": "*/5 * * * *",
                    "humanSchedule": "Every 5 minutes",
                    "prompt": "check",
                    "recurring": True,
                    "durable": False,
                    "nextFireAt": 1795630000198,
                }
            ]
        },
    ),
    (
        "EnterPlanMode",
        {
            "message": "Entered plan mode. You should now focus on exploring the codebase and "
            "designing an implementation approach."
        },
    ),
    (
        "ExitPlanMode",
        {
            "plan": None,
            "isAgent": False,
            "filePath": "/home/user/.claude/plans/hashed-baking-dahl.md",
        },
    ),
    (
        "AskUserQuestion",
        {
            "questions": [
                {
                    "question": "Which?",
                    "header": "Pick",
                    "options": [
                        {"label": "A", "description": "a"},
                        {"label": "B", "description": "b"},
                    ],
                    "multiSelect": False,
                }
            ],
            "answers": {"Which?": "A"},
        },
    ),
    (
        "EnterWorktree",
        {
            "worktreePath": "/home/user/demo/.claude/worktrees/wt1",
            "worktreeBranch": "worktree-wt1",
            "message": "Created worktree at “/home/user/demo/.claude/worktrees/wt1” on branch "
            "“worktree-wt1”. The session is now working in the ...",
        },
    ),
    (
        "ExitWorktree",
        {
            "action": "remove",
            "originalCwd": "/home/user/demo",
            "worktreePath": "/home/user/demo/.claude/worktrees/wt1",
            "worktreeBranch": "worktree-wt1",
            "discardedFiles": 0,
            "discardedCommits": 0,
            "restoredCwd": "/home/user/demo",
            "originalCwdMissing": False,
            "message": "Exited and removed worktree at “/home/user/demo/.claude/worktrees/wt1”. "
            "Session is now back in “/home/user/demo”.",
        },
    ),
    ("Monitor", {"taskId": "b559zy4ir", "timeoutMs": 5000, "persistent": False}),
    (
        "WebSearch",
        {
            "query": "anyio",
            "results": ["done"],
            "durationSeconds": 0.016964473999999428,
            "searchCount": 0,
        },
    ),
    (
        "Glob",
        {
            "filenames": ["f.txt"],
            "durationMs": 26,
            "numFiles": 1,
            "truncated": False,
            "totalMatches": 1,
            "countIsComplete": True,
        },
    ),
    (
        "Grep",
        {
            "mode": "content",
            "numFiles": 0,
            "filenames": [],
            "content": "f.txt:1:a\n"
            'nb.ipynb:1:{"cells": [{"cell_type": "code", "id": "c1", "metadata": {}, '
            '"source": ["print(1)"], "outputs": [],...',
            "numLines": 2,
            "totalLines": 2,
        },
    ),
    (
        "Grep",
        {
            "mode": "files_with_matches",
            "filenames": ["f.txt", "nb.ipynb"],
            "numFiles": 2,
            "totalFiles": 2,
        },
    ),
    (
        "Grep",
        {
            "mode": "count",
            "numFiles": 2,
            "filenames": [],
            "content": "f.txt:1\nnb.ipynb:1",
            "numMatches": 2,
        },
    ),
    ("TaskCreate", {"task": {"id": "1", "subject": "Docs", "description": "Write docs"}}),
    ("TaskList", {"tasks": [{"id": "1", "subject": "Docs", "status": "pending", "blockedBy": []}]}),
    (
        "TaskGet",
        {
            "task": {
                "id": "1",
                "subject": "Docs",
                "description": "Write docs",
                "status": "pending",
                "blocks": [],
                "blockedBy": [],
            }
        },
    ),
    (
        "TaskUpdate",
        {
            "success": True,
            "taskId": "1",
            "updatedFields": ["status"],
            "statusChange": {"from": "pending", "to": "completed"},
        },
    ),
    (
        "Edit",
        {
            "filePath": "/home/user/demo/f.txt",
            "oldString": "b",
            "newString": "B",
            "originalFile": "a\nb\n",
            "structuredPatch": [
                {
                    "oldStart": 1,
                    "oldLines": 2,
                    "newStart": 1,
                    "newLines": 2,
                    "lines": [" a", "-b", "+B"],
                }
            ],
            "userModified": False,
            "replaceAll": True,
            "contentNotInModelContext": True,
        },
    ),
    (
        "Agent",
        {
            "isAsync": True,
            "status": "async_launched",
            "agentId": "a7ee93ac870ec3c99",
            "description": "List files",
            "resolvedModel": "claude-opus-5-5",
            "prompt": "list the files",
            "outputFile": "/tmp/claude-1000/-home-user-demo/226a0d4b-4e96-49e7-bdf1-3af8b6b8ee22"
            "/tasks/a7ee93ac870ec3c99.output",
            "canReadOutputFile": True,
            "canContinueAgent": True,
        },
    ),
    (
        "ScheduleWakeup",
        {"scheduledFor": 1795629960000, "clampedDelaySeconds": 120, "wasClamped": False},
    ),
    ("TaskGet", {"task": None}),
]


@pytest.mark.parametrize(("name", "data"), REAL, ids=[f"{n}-{i}" for i, (n, _) in enumerate(REAL)])
def test_a_real_cli_result_decodes_with_no_drift(name: str, data: Any) -> None:
    obj = typed_output(name, data)
    assert obj is not None
    assert codec.drift(obj) == []
    assert codec.unstructure(obj) == data


def test_the_real_results_cover_the_tools_an_sdk_session_offers() -> None:
    assert {name for name, _ in REAL} >= {
        "Agent",
        "AskUserQuestion",
        "Bash",
        "CronCreate",
        "CronList",
        "Edit",
        "EnterPlanMode",
        "EnterWorktree",
        "ExitPlanMode",
        "ExitWorktree",
        "Glob",
        "Grep",
        "Monitor",
        "NotebookEdit",
        "Read",
        "ScheduleWakeup",
        "TaskCreate",
        "TaskGet",
        "TaskList",
        "TaskUpdate",
        "WebSearch",
        "Write",
    }


# --------------------------------------------------------------------------------------
# The user message and the hook


def _user(
    result: Any, *, is_error: bool | None = None, tool_use_id: str = "toolu_1"
) -> UserMessage:
    block: JSON = {"type": "tool_result", "tool_use_id": tool_use_id, "content": "x"}
    if is_error is not None:
        block["is_error"] = is_error
    frame = {
        "type": "user",
        "message": {"role": "user", "content": [block]},
        "parent_tool_use_id": None,
        "session_id": "s",
        "uuid": "u",
        "tool_use_result": result,
    }
    msg = wire.decode(json.dumps(frame))
    assert isinstance(msg, UserMessage)
    return msg


BASH = {"stdout": "hi", "stderr": "", "interrupted": False, "isImage": False}


def test_user_message_typed_output_by_name_and_by_id() -> None:
    msg = _user(BASH)
    expected = typed_output("Bash", BASH)
    assert isinstance(expected, to.BashOutput)
    assert msg.typed_output("Bash") == expected
    assert msg.typed_output({"toolu_1": "Bash", "toolu_0": "Read"}) == expected
    assert msg.typed_output({"toolu_0": "Bash"}) is None  # not this call
    assert msg.typed_output("Read") is None  # does not fit
    assert msg.typed_output("NoSuchTool") is None
    assert _user(BASH, is_error=False).typed_output("Bash") == expected


def test_user_message_typed_output_of_an_error_or_no_result_is_none() -> None:
    assert _user("Error: Denied", is_error=True).typed_output("Bash") is None
    # An MCP tool's text result is a string too: only ``is_error`` tells an error apart.
    assert _user("5").typed_output("mcp__calc__add") == "5"
    assert _user("Error: boom", is_error=True).typed_output("mcp__calc__add") is None
    prompt = UserMessage.prompt("hi")
    assert prompt.typed_output("Bash") is None
    assert prompt.typed_output({}) is None


def test_post_tool_use_hook_typed_output() -> None:
    common: Any = {"session_id": "s", "transcript_path": "/t", "cwd": "/c"}
    hook = PostToolUseInput(
        tool_name="Bash", tool_input={"command": "echo hi"}, tool_response=BASH, **common
    )
    assert hook.typed_output == typed_output("Bash", BASH)
    assert isinstance(hook.typed_output, to.BashOutput)
    odd = PostToolUseInput(tool_name="Bash", tool_input={}, tool_response="oops", **common)
    assert odd.typed_output is None
    call = PostToolBatchCall(tool_name="Glob", tool_input={}, tool_response={"numFiles": 0})
    assert call.typed_output is None
    call = PostToolBatchCall(
        tool_name="Glob",
        tool_input={},
        tool_response={"durationMs": 1, "numFiles": 0, "filenames": [], "truncated": False},
    )
    assert isinstance(call.typed_output, to.GlobOutput)


# --------------------------------------------------------------------------------------
# Recorded results


@attrs.frozen
class Recorded:
    where: str
    tool: str | None  # None: the call's name is not in the recording
    value: Any
    is_error: bool
    frame: JSON | None  # the stream-json user frame, when it is one


def _blocks(value: Any, kind: str) -> Iterator[JSON]:
    """The content blocks of type ``kind`` inside a JSON value (not in ``stream_event``s)."""
    if isinstance(value, list):
        for item in value:
            yield from _blocks(item, kind)
    elif isinstance(value, dict) and value.get("type") != "stream_event":
        if value.get("type") == kind:
            yield value
        for item in value.values():
            yield from _blocks(item, kind)


def _recorded() -> tuple[list[Recorded], list[tuple[str, str, Any]]]:
    """Every tool result recorded in tests/data, and every ``PostToolUse`` tool_response."""
    paths = [
        *sorted((DATA / "transcripts").glob("*.jsonl")),
        *sorted((DATA / "e2e").rglob("*.jsonl")),
        *sorted((DATA / "cassettes").glob("*.jsonl")),
        *sorted((DATA / "history").rglob("*.jsonl")),
    ]
    results: list[Recorded] = []
    hooks: list[tuple[str, str, Any]] = []
    for path in paths:
        if path.name.endswith(".api.jsonl"):
            continue
        lines = [clean(json.loads(line)) for line in path.read_text("utf-8").splitlines() if line]
        bodies = [e.get("msg", e) if isinstance(e, dict) else e for e in lines]
        names = {b["id"]: b["name"] for body in bodies for b in _blocks(body, "tool_use")}
        where = f"{path.relative_to(DATA)}"
        for n, body in enumerate(bodies, 1):
            if not isinstance(body, dict):
                continue
            key = "tool_use_result" if "tool_use_result" in body else "toolUseResult"
            if key in body:
                results_ = list(_blocks(body.get("message"), "tool_result"))
                (block,) = results_
                results.append(
                    Recorded(
                        where=f"{where}:{n}",
                        tool=names.get(block["tool_use_id"]),
                        value=body[key],
                        is_error=bool(block.get("is_error")),
                        frame=body if key == "tool_use_result" else None,
                    )
                )
            request = body.get("request") if body.get("type") == "control_request" else None
            hook = request.get("input") if isinstance(request, dict) else None
            if isinstance(hook, dict) and hook.get("hook_event_name") == "PostToolUse":
                hooks.append((f"{where}:{n}", hook["tool_name"], hook))
    return results, hooks


RECORDED, HOOKS = _recorded()
KNOWN = [r for r in RECORDED if not r.is_error and r.tool is not None]


def test_recordings_hold_tool_results() -> None:
    assert len(KNOWN) >= 10
    tools = {r.tool for r in KNOWN}
    assert {"Bash", "Agent", "mcp__calc__add", "StructuredOutput"} <= tools
    assert {r.where.split("/")[0] for r in KNOWN} == {"transcripts", "e2e", "cassettes", "history"}
    assert len([r for r in RECORDED if r.is_error]) >= 5
    assert HOOKS


@pytest.mark.parametrize("rec", KNOWN, ids=[r.where for r in KNOWN])
def test_recorded_result_decodes_with_no_drift(rec: Recorded) -> None:
    assert rec.tool is not None
    obj = typed_output(rec.tool, rec.value)
    if rec.tool == "StructuredOutput":  # not a tool this module knows (its result is text)
        assert obj is None
        return
    assert obj is not None, rec.where
    expected = TOOL_OUTPUTS.get(rec.tool, to.McpOutput)
    assert any(isinstance(obj, cls) for cls in _classes(expected)) or isinstance(obj, list)
    assert codec.drift(obj) == [], rec.where
    assert codec.unstructure(obj) == rec.value, rec.where
    if rec.frame is not None:
        msg = wire.decode(json.dumps(rec.frame))
        assert isinstance(msg, UserMessage)
        assert msg.typed_output(rec.tool) == obj
        assert (
            msg.typed_output(
                {b["tool_use_id"]: rec.tool for b in _blocks(rec.frame, "tool_result")}
            )
            == obj
        )


@pytest.mark.parametrize("rec", [r for r in RECORDED if r.is_error], ids=lambda r: r.where)
def test_recorded_error_results_give_none(rec: Recorded) -> None:
    assert rec.tool is not None
    assert isinstance(rec.value, str)
    if rec.tool in TOOL_OUTPUTS:
        assert typed_output(rec.tool, rec.value) is None
    if rec.frame is not None:
        msg = wire.decode(json.dumps(rec.frame))
        assert isinstance(msg, UserMessage)
        assert msg.typed_output(rec.tool) is None


@pytest.mark.parametrize(("where", "tool", "hook"), HOOKS, ids=[w for w, _, _ in HOOKS])
def test_recorded_post_tool_use_response_decodes_with_no_drift(
    where: str, tool: str, hook: JSON
) -> None:
    decoded = codec.structure(dict(hook), PostToolUseInput)
    assert isinstance(decoded, PostToolUseInput)
    obj = decoded.typed_output
    assert obj is not None, where
    assert obj == typed_output(tool, hook["tool_response"])
    assert codec.drift(obj) == [], where
    assert codec.unstructure(obj) == hook["tool_response"], where


def test_the_tool_name_comes_from_the_assistant_message() -> None:
    """What a program does over a stream: names from the tool calls, views from the results."""
    path = DATA / "transcripts" / "d_sdk_mcp.jsonl"
    names: dict[str, str] = {}
    views = []
    for line in path.read_text("utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("dir") != "cli>sdk":
            continue
        msg = wire.decode(json.dumps(clean(rec["msg"])))
        if isinstance(msg, AssistantMessage):
            names.update({b.id: b.name for b in msg.content if isinstance(b, ToolUseBlock)})
        elif isinstance(msg, UserMessage) and msg.tool_use_result is not None:
            views.append(msg.typed_output(names))
    assert views == [[to.McpContentBlock(type="text", text="5")]]


# --------------------------------------------------------------------------------------
# The default codec


def test_the_default_codec_knows_the_wire_keys() -> None:
    obj = typed_output(
        "Glob", {"durationMs": 1, "numFiles": 0, "filenames": [], "truncated": False}
    )
    assert wire.to_dict(obj) == {
        "durationMs": 1,
        "numFiles": 0,
        "filenames": [],
        "truncated": False,
    }
    assert wire.drift(obj) == []


def test_drift_names_wire_keys() -> None:
    obj = typed_output(
        "Glob", {"durationMs": 1, "numFiles": 0, "filenames": [], "truncated": False, "zz": 1}
    )
    assert codec.drift(obj) == ["$.zz: unknown field (int)"]


def test_the_default_schema_holds_the_tool_outputs_wire_keys() -> None:
    part = wire_schema().parts["claude_sdk._tool_outputs"]()
    assert {cls: spec.renames for cls, spec in part.specs.items()} == to.WIRE_KEYS

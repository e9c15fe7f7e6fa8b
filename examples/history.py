"""List the Claude Code sessions of a directory, newest first, from the CLI's own files.

``claude_sdk.history`` reads the transcripts the CLI keeps under ``~/.claude/projects/``
(``CLAUDE_CONFIG_DIR`` if set); it needs neither the CLI nor the API, and a directory where
no session has run simply has none. Continue a session with ``Options(resume=session_id)``,
or branch it with ``history.fork_session(session_id)``.

Run: ``python examples/history.py [directory]`` (default: the current directory).
"""

from __future__ import annotations

import sys

from claude_sdk import history


def main(directory: str | None = None) -> None:
    where = history.project_dir(directory)
    sessions = history.list_sessions(directory)
    if not sessions:
        print(f"no sessions in {where}")
        return
    print(f"{len(sessions)} session(s) in {where}:")
    for info in sessions:
        label = info.title or info.first_prompt or "(no prompt)"
        tag = f" [{info.tag}]" if info.tag else ""
        # A listing reads each transcript's two ends: the count is known for short ones only.
        count = info.message_count
        size = f"{count:3} messages" if count is not None else f"{info.size // 1024:5} KiB"
        print(f"{info.modified:%Y-%m-%d %H:%M}  {info.session_id}  {size}  {label[:60]}{tag}")
        for agent in history.list_subagent_transcripts(info.session_id, directory):
            print(f"    subagent {agent.agent_id} ({agent.agent_type}): {agent.description}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

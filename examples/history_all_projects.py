"""Every project's Claude Code sessions, newest first, a page at a time; a repository's
sessions including those of its git worktrees.

``history.list_all_sessions`` reads the CLI's transcripts under every project directory,
two ends of each file only (64 KiB from the start, 64 KiB from the end), so a page costs the
same whether the transcripts are kilobytes or gigabytes. Pages follow one order (the last
entry's time, then the session id); pass the last session of a page as ``after=`` to get the
next one. ``history.list_sessions(repo)`` lists a repository with its git worktrees.

Run:

* ``python examples/history_all_projects.py``: a demonstration that touches nothing of
  yours: three one-line sessions (a repository, a git worktree of it, another directory) in
  a temporary configuration directory, then their listings. It needs the CLI (as
  ``examples/quickstart.py`` does) and ``git``.
* ``python examples/history_all_projects.py --mine [--page-size N] [--repo DIR]``: your own
  sessions (``CLAUDE_CONFIG_DIR``, else ``~/.claude``), read only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import anyio

import claude_sdk as cs
from claude_sdk import history


def show_pages(config_dir: Path | None, page_size: int) -> None:
    """Print every project's sessions, ``page_size`` at a time."""
    page = history.list_all_sessions(config_dir=config_dir, limit=page_size)
    number = 1
    while page:
        print(f"page {number}:")
        for info in page:
            label = info.title or info.first_prompt or "(no prompt)"
            tag = f" #{info.tag}" if info.tag else ""
            print(
                f"  {info.modified:%Y-%m-%d %H:%M:%S}  {info.session_id}  "
                f"{info.git_branch or '-':8}  {info.size:>9,} bytes  {info.cwd}  {label[:40]}{tag}"
            )
        page = history.list_all_sessions(config_dir=config_dir, limit=page_size, after=page[-1])
        number += 1


def show_repository(repo: Path, config_dir: Path | None) -> None:
    """Print a repository's sessions, with and without its worktrees'."""
    with_worktrees = history.list_sessions(repo, config_dir=config_dir)
    own = history.list_sessions(repo, config_dir=config_dir, include_worktrees=False)
    print(f"{repo}: {len(own)} session(s) of its own, {len(with_worktrees)} with its worktrees")
    for info in with_worktrees:
        print(f"  {info.session_id}  {info.git_branch or '-':8}  {info.cwd}")


def git(*args: str, cwd: Path) -> None:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "example",
        "GIT_AUTHOR_EMAIL": "example@example.com",
        "GIT_COMMITTER_NAME": "example",
        "GIT_COMMITTER_EMAIL": "example@example.com",
    }
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


async def run_sessions(config: Path, prompts: list[tuple[Path, str]]) -> str:
    """One short session per (directory, prompt), its transcript kept under ``config``;
    returns the last session's id."""
    session_id = ""
    for cwd, prompt in prompts:
        options = cs.Options(cwd=str(cwd), env={"CLAUDE_CONFIG_DIR": str(config)}, max_turns=1)
        reply = await cs.ask(prompt, options=options)
        session_id = reply.session_id or ""
        print(f"ran {session_id} in {cwd.name}")
    return session_id


def demonstrate(page_size: int) -> None:
    if shutil.which("git") is None:
        raise SystemExit("the demonstration needs git (try --mine to list your own sessions)")
    with tempfile.TemporaryDirectory(prefix="history-example-") as where:
        root = Path(where).resolve()
        config = root / "config"  # the CLI's configuration directory, for this run only
        repo, worktree, other = root / "repo", root / "repo-feature", root / "notes"
        repo.mkdir()
        other.mkdir()
        git("init", "-q", "-b", "main", cwd=repo)
        (repo / "README").write_text("demo\n")
        git("add", ".", cwd=repo)
        git("commit", "-q", "-m", "first", cwd=repo)
        git("worktree", "add", "-q", "-b", "feature", str(worktree), cwd=repo)

        prompts = [
            (repo, "Say hello from the repository."),
            (other, "Say hello from the notes."),
            (worktree, "Say hello from the worktree."),
        ]
        last = anyio.run(run_sessions, config, prompts)
        history.tag_session(last, "demo", config_dir=config)

        show_pages(config, page_size)
        show_repository(repo, config)


def main() -> None:
    parser = argparse.ArgumentParser(description="Every project's sessions, page by page.")
    parser.add_argument("--mine", action="store_true", help="list your own sessions, read only")
    parser.add_argument("--page-size", type=int, default=2, help="sessions per page")
    parser.add_argument("--repo", type=Path, help="with --mine: also list this repository")
    args = parser.parse_args()
    if args.page_size < 1:
        parser.error("--page-size must be at least 1")
    if not args.mine:
        demonstrate(args.page_size)
        return
    show_pages(None, args.page_size)
    if args.repo is not None:
        show_repository(args.repo, None)


if __name__ == "__main__":
    main()

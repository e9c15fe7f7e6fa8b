"""A repository's git worktrees: their sessions belong to the repository's listing.

A real repository in ``tmp_path`` with ``git worktree add``; sessions are the real CLI's
transcripts of ``tests/data/history``, placed in the project directories the CLI uses for
each working directory. `history.list_sessions` of any worktree (or of a directory inside
one) lists the sessions of every worktree of the repository, as ``git worktree list`` names
them; ``include_worktrees=False`` lists the directory's own; lookups by id with a ``cwd`` find
a worktree's session too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import attrs
import pytest

import claude_sdk as cs
from claude_sdk import history

FIXTURE_PROJECT = Path(__file__).resolve().parent / "data" / "history" / "config" / "projects"
FIXTURE_PROJECT = FIXTURE_PROJECT / "-home-user-demo"
TOOL = "5e550000-0000-4000-8000-000000000001"
AGENT = "5e550000-0000-4000-8000-000000000002"
CLI_FORK = "5e550000-0000-4000-8000-000000000003"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(*args: str, cwd: Path) -> str:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout


@attrs.frozen
class Repo:
    main: Path
    feature: Path  # a worktree
    fix: Path  # another worktree, inside the main one's parent too
    other: Path  # not a repository; its name starts like the main one's
    config: Path

    def put(self, session_id: str, cwd: Path) -> Path:
        """The fixture's session as if it had run in ``cwd``."""
        directory = history.project_dir(cwd, config_dir=self.config)
        directory.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy(FIXTURE_PROJECT / f"{session_id}.jsonl", directory))


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    main = tmp_path / "repo"
    main.mkdir()
    git("init", "-q", "-b", "main", cwd=main)
    (main / "README").write_text("x\n")
    (main / "sub").mkdir()
    (main / "sub" / "f").write_text("y\n")
    git("add", ".", cwd=main)
    git("commit", "-q", "-m", "first", cwd=main)
    feature = tmp_path / "repo-feature"
    git("worktree", "add", "-q", "-b", "feature", str(feature), cwd=main)
    fix = tmp_path / "elsewhere" / "fix"
    git("worktree", "add", "-q", "-b", "fix", str(fix), cwd=main)
    other = tmp_path / "repo-other"
    other.mkdir()
    return Repo(main=main, feature=feature, fix=fix, other=other, config=tmp_path / "config")


def ids(infos: list[history.SessionInfo]) -> set[str]:
    return {i.session_id for i in infos}


def test_git_lists_the_worktrees(repo: Repo) -> None:
    listed = git("worktree", "list", "--porcelain", cwd=repo.feature)
    roots = [line.split(" ", 1)[1] for line in listed.splitlines() if line.startswith("worktree ")]
    assert roots[0] == str(repo.main.resolve())  # the main worktree first
    assert sorted(roots) == sorted(str(p.resolve()) for p in (repo.main, repo.feature, repo.fix))


def test_a_repositorys_listing_has_its_worktrees_sessions(repo: Repo) -> None:
    repo.put(TOOL, repo.main)
    repo.put(AGENT, repo.feature)
    repo.put(CLI_FORK, repo.other)
    config = repo.config
    for cwd in (repo.main, repo.feature, repo.fix):
        listed = history.list_sessions(cwd, config_dir=config)
        assert [i.session_id for i in listed] == [AGENT, TOOL], cwd  # newest first
    own = history.list_sessions(repo.feature, config_dir=config, include_worktrees=False)
    assert ids(own) == {AGENT}
    assert ids(history.list_sessions(repo.other, config_dir=config)) == {CLI_FORK}
    assert ids(history.list_all_sessions(config_dir=config)) == {TOOL, AGENT, CLI_FORK}
    # paging applies to the merged listing
    assert ids(history.list_sessions(repo.main, config_dir=config, limit=1)) == {AGENT}
    assert ids(history.list_sessions(repo.main, config_dir=config, offset=1)) == {TOOL}


def test_from_a_subdirectory_its_own_and_the_worktrees_sessions(repo: Repo) -> None:
    repo.put(TOOL, repo.main / "sub")  # the CLI ran in the subdirectory
    repo.put(AGENT, repo.fix)
    repo.put(CLI_FORK, repo.main)
    listed = history.list_sessions(repo.main / "sub", config_dir=repo.config)
    assert ids(listed) == {TOOL, AGENT, CLI_FORK}
    # A subdirectory's sessions are its own: the worktree roots' listings do not have them.
    assert ids(history.list_sessions(repo.feature, config_dir=repo.config)) == {AGENT, CLI_FORK}


def test_lookups_by_id_find_a_worktrees_session(repo: Repo) -> None:
    path = repo.put(AGENT, repo.feature)
    assert history.session_path(AGENT, repo.main, config_dir=repo.config) == path
    info = history.session_info(AGENT, repo.main, config_dir=repo.config)
    assert info.first_prompt == "use a subagent"
    assert history.read_session(AGENT, repo.fix, config_dir=repo.config)
    # a directory outside the repository does not see it
    with pytest.raises(cs.SessionNotFoundError):
        history.session_path(AGENT, repo.other, config_dir=repo.config)


def test_a_removed_worktrees_sessions_stay_listed_until_it_is_pruned(repo: Repo) -> None:
    repo.put(AGENT, repo.feature)
    repo.put(TOOL, repo.main)
    shutil.rmtree(repo.feature)  # git still lists it (prunable)
    assert ids(history.list_sessions(repo.main, config_dir=repo.config)) == {AGENT, TOOL}
    git("worktree", "prune", cwd=repo.main)
    assert ids(history.list_sessions(repo.main, config_dir=repo.config)) == {TOOL}
    # the session is still on disk, in every project's listing
    assert ids(history.list_all_sessions(config_dir=repo.config)) == {AGENT, TOOL}


def test_without_git_or_outside_a_repository_only_the_own_project(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.put(TOOL, repo.main)
    repo.put(AGENT, repo.feature)
    assert ids(history.list_sessions(repo.other, config_dir=repo.config)) == set()
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no git to run
    assert ids(history.list_sessions(repo.main, config_dir=repo.config)) == {TOOL}


def test_an_inherited_git_dir_does_not_redirect_the_lookup(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.put(TOOL, repo.main)
    repo.put(AGENT, repo.feature)
    unrelated = tmp_path / "unrelated"
    unrelated.mkdir()
    git("init", "-q", cwd=unrelated)
    monkeypatch.setenv("GIT_DIR", str(unrelated / ".git"))  # as inside a git hook elsewhere
    assert ids(history.list_sessions(repo.main, config_dir=repo.config)) == {TOOL, AGENT}

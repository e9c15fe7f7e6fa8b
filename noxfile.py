"""The project's front door: ``nox -s lint typecheck tests-3.11`` (see README.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

import nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_existing_virtualenvs = True
nox.options.error_on_missing_interpreters = False
nox.options.sessions = ["lint", "typecheck", "tests"]

PYTHONS = ["3.10", "3.11", "3.12", "3.13"]
PYPROJECT = nox.project.load_toml("pyproject.toml")
TEST_DEPS = nox.project.dependency_groups(PYPROJECT, "test")
LINT_DEPS = nox.project.dependency_groups(PYPROJECT, "lint")
TYPE_DEPS = nox.project.dependency_groups(PYPROJECT, "typecheck")
DOCS_DEPS = nox.project.dependency_groups(PYPROJECT, "docs")
ENGINE_DEPS = nox.project.dependency_groups(PYPROJECT, "engines")


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """ruff check (ASYNC rules, ASYNC119 included), ruff format --check, and the generated
    tool model against its sources (`nox -s model -- --check`)."""
    session.install(*LINT_DEPS)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("python", "tools/model/generate.py", "--check")


@nox.session(python="3.11")
def model(session: nox.Session) -> None:
    """Write the tool model modules from schemas/ (``-- --check``: fail when one is stale).

    A new CLI version: ``python tools/model/capture.py --cli PATH [--ts-sdk DIR]`` records
    its schemas (offline, in a loopback-only namespace), this writes the modules, and the
    diff says what changed (docs/compatibility.md).
    """
    session.install(*LINT_DEPS)
    session.run("python", "tools/model/generate.py", *session.posargs)


@nox.session(python="3.11")
def typecheck(session: nox.Session) -> None:
    """mypy --strict over claude_sdk, tests and examples; pyright's type completeness >= 99 %."""
    session.install("-e", ".", *TEST_DEPS, *TYPE_DEPS, *ENGINE_DEPS)
    session.run("mypy")
    session.run("python", "tests/support/check_type_completeness.py", "--min", "0.99")


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """pytest; every async test runs on asyncio and trio."""
    session.install("-e", ".", *TEST_DEPS)
    # The engines and the container runtimes have sessions of their own.
    marks = ["-m", "not e2e and not container", "--ignore=tests/engines"]
    # Four pytest-xdist workers: most of the suite's time is waiting (processes, graces,
    # sshd), not CPU. `nox -s tests -- -n 0` runs it in one process.
    workers = ["-n", os.environ.get("CLAUDE_SDK_TEST_WORKERS", "4"), "--dist", "worksteal"]
    session.run("pytest", *marks, *workers, *session.posargs)


@nox.session(python="3.11")
def deep(session: nox.Session) -> None:
    """The state machine, the model-based turn tests, the command policies' execve oracle,
    the transcript chain, the session leases and the other property tests with many more examples
    (``CLAUDE_SDK_DEEP``, default 20 times the everyday count), and the thread-safety check
    over 50 fresh interpreters. Not part of CI (about half an hour)."""
    session.install("-e", ".", *TEST_DEPS)
    session.env["CLAUDE_SDK_DEEP"] = os.environ.get("CLAUDE_SDK_DEEP", "20")
    session.env["CLAUDE_SDK_THREADS_INTERPRETERS"] = "50"
    session.run(
        "pytest",
        "tests/protocol/test_protocol.py",
        "tests/protocol/test_turns.py",
        "tests/session/test_turn_model.py",
        "tests/regressions/test_thread_safety.py",
        "tests/test_policy_oracle.py",
        "tests/stores/test_chain.py",
        "tests/stores/test_leases.py",
        "tests/test_steps.py",
        # the property tests whose everyday counts are modest (`deep(n)`)
        "tests/test_usage.py",
        "tests/test_structured_output.py",
        "tests/protocol/test_hooks_model.py",
        "tests/protocol/test_framing.py",
        "tests/protocol/test_codec_properties.py",
        "tests/protocol/test_model_methods.py",
        "tests/regressions/test_path_policy_warning.py",
        "tests/test_sandbox_options.py",
        "tests/transports/test_teardown.py",
        "tests/test_tool_outputs.py",
        "tests/test_tool_inputs.py",
        "tests/test_policies.py",
        "-m",
        "not e2e and not container",
        "-o",
        "timeout=3600",
        *session.posargs,
    )


def _netns_available() -> bool:
    if not (shutil.which("unshare") and shutil.which("ip")):
        return False
    probe = subprocess.run(["tests/support/netns_run.sh", "true"], capture_output=True, check=False)
    return probe.returncode == 0


@nox.session(python="3.11")
def e2e(session: nox.Session) -> None:
    """The real CLI pinned for CI (2.1.330) against FakeMessagesAPI, offline, in a
    loopback-only namespace. The run's row of docs/compatibility.md is printed and written to
    its reports directory; ``nox -s e2e -- --update-compat`` writes it into the table."""
    session.install("-e", ".", *TEST_DEPS)
    # Fetch the pinned CLI (from the claude-agent-sdk wheel) outside the namespace, once.
    # Run by nox's own interpreter: a uv-made environment has no pip to download the wheel.
    out = session.run(sys.executable, "tests/support/fetch_cli.py", external=True, silent=True)
    cli = str(out).strip().splitlines()[-1]
    _run_e2e(session, cli, source="claude-agent-sdk 0.2.187 wheel (pinned)")


@nox.session(name="e2e-latest", python="3.11")
def e2e_latest(session: nox.Session) -> None:
    """The same suite, unchanged, against the newest CLI the package index has: the binary
    bundled in the newest claude-agent-sdk wheel (``CLAUDE_SDK_E2E_LATEST=0.2.188`` takes that
    wheel instead). New frames fail one test, tests/e2e/test_drift_report.py."""
    session.install("-e", ".", *TEST_DEPS)
    out = session.run(
        sys.executable, "tests/support/fetch_cli.py", "--latest", external=True, silent=True
    )
    sdk, cli = str(out).strip().splitlines()[-2:]
    _run_e2e(session, cli, source=f"claude-agent-sdk {sdk} wheel")


def _run_e2e(session: nox.Session, cli: str, *, source: str) -> None:
    # A check run edits no tracked file: the table is updated on purpose only.
    update_compat = "--update-compat" in session.posargs
    posargs = [a for a in session.posargs if a != "--update-compat"]
    # The official SDK, for the cross-SDK resume through one store (its Python package
    # only: the CLI is the one given).
    session.install("--no-deps", "claude-agent-sdk==0.2.188")
    version = subprocess.run(
        [cli, "--version"], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()[0]
    # Not session.create_tmp(): it points TMPDIR into the checkout, and a CLI started under a
    # git repository treats it as the project (settings files, branch names).
    reports = os.path.join(tempfile.gettempdir(), f"claude-sdk-e2e-{version}")
    os.makedirs(reports, exist_ok=True)
    junit = os.path.join(reports, "junit.xml")
    drift = os.path.join(reports, "drift.json")
    for stale in (junit, drift):
        if os.path.exists(stale):
            os.remove(stale)
    env = {
        "CLAUDE_SDK_TEST_CLI": cli,
        "CLAUDE_SDK_REQUIRE_E2E": "1",
        "CLAUDE_SDK_REQUIRE_OFFICIAL": "1",
        "CLAUDE_SDK_DRIFT_REPORT": drift,
    }
    pytest = [
        os.path.join(session.bin, "pytest"),
        "-m",
        "e2e",
        "--ignore=tests/engines",
        f"--junitxml={junit}",
    ]
    session.log(f"e2e on CLI {version} ({source}): {cli}")
    try:
        if _netns_available():
            env["CLAUDE_SDK_E2E_NETNS"] = "1"
            session.run("tests/support/netns_run.sh", *pytest, *posargs, env=env, external=True)
        else:
            session.warn("no network namespace available: running e2e with the offline env only")
            session.run(*pytest, *posargs, env=env)
    finally:
        if not posargs:  # a partial run (-k, one file) has no row
            compat = [
                os.path.join(session.bin, "python"),
                "tests/support/compat.py",
                "--row",
                os.path.join(reports, "compat-row.md"),
                "--junit",
                junit,
                "--drift",
                drift,
                "--cli-version",
                version,
                "--source",
                source,
            ]
            if update_compat:
                compat += ["--doc", "docs/compatibility.md"]
            session.run(*compat)


@nox.session(python="3.11")
def interop(session: nox.Session) -> None:
    """Our session stores under the official SDK's own conformance kit, and our kit over its
    store (its SessionStore protocol is the one ours follows): claude-agent-sdk 0.2.188, in
    this environment only; and the archive mark against the TypeScript SDK's own functions
    (0.3.332 from npm, run under Node.js)."""
    session.install("-e", ".", *TEST_DEPS)
    session.install("--no-deps", "claude-agent-sdk==0.2.188")
    session.run(sys.executable, "tests/support/ts_sdk.py", external=True)
    session.env["CLAUDE_SDK_REQUIRE_OFFICIAL"] = "1"
    tests = ["tests/stores", "tests/test_history_archive.py"]
    session.run("pytest", *tests, "-k", "official", *session.posargs)


@nox.session(python="3.11")
def engines(session: nox.Session) -> None:
    """The engine recipes with a scripted agent CLI: a real Temporal dev server, a local Ray
    and a Dask LocalCluster (a worker killed mid-step and after a step was stored), the
    Kubernetes task script under SIGTERM, SIGKILL and as PID 1 (a real Redis). The Ray batch
    tests are ``slow``: ``-- tests/engines`` runs them too."""
    session.install("-e", ".", *TEST_DEPS, *ENGINE_DEPS)
    session.env["CLAUDE_SDK_REQUIRE_ENGINES"] = "1"
    session.run("pytest", "tests/engines", *(session.posargs or ["-m", "not slow"]))


@nox.session(python="3.11")
def containers(session: nox.Session) -> None:
    """ContainerTransport against real podman (runc, a local Debian image, no network)."""
    session.install("-e", ".", *TEST_DEPS)
    session.run("tests/support/container_image.sh", external=True)
    runtime = os.environ.get("CLAUDE_SDK_CONTAINER_RUNTIME", "podman")
    session.env.update(
        {"CLAUDE_SDK_CONTAINER_RUNTIME": runtime, "CLAUDE_SDK_REQUIRE_CONTAINER": "1"}
    )
    tests = "tests/transports/test_container_real.py"
    session.run("pytest", "-m", "container", tests, *session.posargs)


@nox.session(python="3.11")
def examples(session: nox.Session) -> None:
    """Every examples/*.py, offline: the real CLI 2.1.330 against FakeMessagesAPI."""
    session.install("-e", ".", *TEST_DEPS, *ENGINE_DEPS)
    # Fetch the pinned CLI outside the namespace, once; the runner finds it in the cache.
    session.run(sys.executable, "tests/support/fetch_cli.py", external=True)
    # `nox -s examples -- examples/hooks.py` runs only the examples named.
    runner = [
        os.path.join(session.bin, "python"),
        "tests/support/run_example.py",
        *(session.posargs or ["--all"]),
    ]
    if _netns_available():
        session.run("tests/support/netns_run.sh", *runner, external=True)
    else:
        session.warn("no network namespace available: running the examples with the offline env")
        session.run(*runner)


def _declared(*only: str) -> list[str]:
    """The package's own requirements and those of its extras (or of ``only`` these)."""
    project = PYPROJECT["project"]
    found = list(project["dependencies"])
    for name, requirements in project["optional-dependencies"].items():
        if not only or name in only:
            found += [r for r in requirements if not r.startswith("claude-sdk-py")]
    return found


@nox.session(python="3.11")
def package(session: nox.Session) -> None:
    """The wheel as users get it, in clean environments (tests/support/check_wheel.py).

    No extras (``mcp`` absent; a FakeCLI turn and an offline real-CLI turn work; an in-process
    tool names the extra), ``[mcp]`` (the real CLI calls an in-process tool), and ``[all]`` at
    the lowest versions the dependencies declare (installable together, a turn works). And the
    documented ``pytest examples/test_my_agent.py`` in a venv with the wheel and pytest only
    (tests/support/check_user_pytest.py).
    """
    session.install("-e", ".", *TEST_DEPS)
    tmp = os.path.abspath(session.create_tmp())
    dist = os.path.join(tmp, "dist")
    shutil.rmtree(dist, ignore_errors=True)
    session.run("uv", "build", "--wheel", "--out-dir", dist, external=True)
    (wheel,) = (os.path.join(dist, name) for name in os.listdir(dist) if name.endswith(".whl"))
    venvs = {}
    for name, requirement, extra in (
        ("bare", wheel, []),
        ("mcp", f"{wheel}[mcp]", []),
        # Every declared requirement as a direct one, so that lowest-direct takes its bound.
        ("lowest", f"{wheel}[all]", ["--resolution", "lowest-direct", *_declared()]),
        # Without mcp, whose own bounds lift anyio's: the package's bounds alone.
        ("lowest-core", f"{wheel}[trio]", ["--resolution", "lowest-direct", *_declared("trio")]),
        # What docs/testing.md has a user install to run examples/test_my_agent.py.
        ("user", wheel, ["pytest"]),
    ):
        venv = venvs[name] = os.path.join(tmp, f"venv-{name}")
        shutil.rmtree(venv, ignore_errors=True)
        session.run("uv", "venv", "--quiet", "--python", sys.executable, venv, external=True)
        python = os.path.join(venv, "bin", "python")
        session.run(
            "uv",
            "pip",
            "install",
            "--quiet",
            "--python",
            python,
            *extra,
            requirement,
            external=True,
        )
    out = session.run(sys.executable, "tests/support/fetch_cli.py", external=True, silent=True)
    cli = str(out).strip().splitlines()[-1]
    scratch = os.path.join(tmp, "scratch")
    os.makedirs(scratch, exist_ok=True)
    check = [
        os.path.join(session.bin, "python"),
        "tests/support/check_wheel.py",
        "--bare",
        venvs["bare"],
        "--mcp",
        venvs["mcp"],
        "--lowest",
        venvs["lowest"],
        "--lowest",
        venvs["lowest-core"],
        "--cli",
        cli,
        "--scratch",
        scratch,
    ]
    # The documented `pytest examples/test_my_agent.py`, from the root, in the user's venv.
    user = [
        os.path.join(session.bin, "python"),
        "tests/support/check_user_pytest.py",
        "--venv",
        venvs["user"],
    ]
    if _netns_available():
        session.run("tests/support/netns_run.sh", *check, external=True)
        session.run("tests/support/netns_run.sh", *user, external=True)
    else:
        session.warn("no network namespace available: the real CLI runs with the offline env")
        session.run(*check)
        session.run(*user)


@nox.session(python="3.11")
def docs(session: nox.Session) -> None:
    """The documentation site (MkDocs, Material, mkdocstrings), strict: a warning fails it.

    Builds into site/, then checks that every public name has an entry in the API reference,
    and runs the checks of the built site in tests/test_docs_layout.py (the Options page
    starts with the class, the search index ranks guides above the API, nothing cites a file
    outside the site). The docs' code blocks run in the test suite
    (tests/test_docs_code_blocks.py).
    """
    session.install("-e", ".[all]", *DOCS_DEPS, *TEST_DEPS)
    session.run("mkdocs", "build", "--strict", env={"NO_MKDOCS_2_WARNING": "1"})
    session.run("python", "tests/support/check_api_reference.py", "site/objects.inv")
    session.run(
        "pytest",
        "tests/test_docs_layout.py",
        "-k",
        "built",
        "-p",
        "no:randomly",
        "-q",
        env={"CLAUDE_SDK_DOCS_SITE": "site"},
    )


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """claude_sdk against the official claude-agent-sdk and the raw limit, on one fake CLI.

    Writes benchmarks/RESULTS.md (about 10 minutes on a 2-core machine); ``nox -s bench --
    --quick`` is a quick look that only prints. Arguments after ``--`` go to
    benchmarks/bench_vs_official.py (``--only 1,2``, ``--repeat 7``, ``--backend trio``, ...).
    """
    _install_bench(session)
    session.run("python", "benchmarks/bench_vs_official.py", *session.posargs)
    if "--quick" not in session.posargs:
        session.run("python", "benchmarks/bench_policies.py", "--write")


@nox.session(python="3.11")
def bench_spares(session: nox.Session) -> None:
    """The start-up time a spare CLI saves (`SessionPool(claimable=True)`) against a cold
    start, with the real CLI, offline in a loopback-only namespace; writes its section of
    benchmarks/RESULTS.md (about 2 minutes)."""
    session.install("-e", ".", "trio>=0.26")
    cli = session.run("python", "tests/support/fetch_cli.py", silent=True)
    env = {"CLAUDE_SDK_TEST_CLI": str(cli).strip().splitlines()[-1]}
    command = ["python", "benchmarks/bench_spares.py", "--write", *session.posargs]
    session.run("tests/support/netns_run.sh", *command, env=env, external=True)


@nox.session(python="3.11")
def bench_coordinator(session: nox.Session) -> None:
    """One process drives N=200 sessions through SessionPool, beside claude-agent-sdk and a
    bare reader (6 to 14 minutes here); writes its section of benchmarks/RESULTS.md."""
    _install_bench(session)
    session.run("python", "benchmarks/bench_coordinator.py", "--write", *session.posargs)


def _install_bench(session: nox.Session) -> None:
    # The official SDK is installed into this environment only, never as a dependency of
    # claude_sdk. A locally cached wheel (the e2e fixtures keep one) saves the download.
    install = ["-e", ".", "trio>=0.26", "claude-agent-sdk==0.2.187"]
    wheels = os.path.expanduser("~/.cache/claude-sdk-test/wheel")
    if os.path.isdir(wheels):
        install = ["--find-links", wheels, *install]
    session.install(*install)

"""Spare CLIs for any folder (issue 31, item 6): ``SessionPool(prewarm=N, claimable=True)``
starts CLIs with ``--await-claim`` before any work is known, and a key's lease claims one for
that key's folder; what a claim cannot carry, or a refused claim, starts the key cold.

FakeCLI answers ``claim_session`` as CLI 2.1.330-2.1.332 do (its reason tokens, a prompt to
an unclaimed spare answered ``not_claimed``). The real CLI: ``tests/e2e/test_pool_spares_e2e.py``;
the start-up time saved: ``benchmarks/bench_spares.py``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import attrs
import pytest

import claude_sdk as cs
from claude_sdk.testing import ErrorReply, FakeCLI

pytestmark = pytest.mark.anyio


def _flag(argv: tuple[str, ...], name: str) -> str | None:
    for i, arg in enumerate(argv):
        if arg.startswith(f"{name}="):
            return arg.split("=", 1)[1]
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
    return None


def _setup(tmp_path: Path) -> tuple[cs.Options, dict[str, Path]]:
    home = tmp_path / "home"
    home.mkdir()
    folders = {k: tmp_path / f"repo-{k}" for k in ("a", "b", "c")}
    for folder in folders.values():
        folder.mkdir()
    options = cs.Options(env={"HOME": str(home)}, model="claude-opus-5-5")
    return options, folders


async def test_a_spare_is_claimed_for_the_keys_folder(tmp_path: Path) -> None:
    options, folders = _setup(tmp_path)
    fake = FakeCLI(replies=["in a", "in b"])

    def per_key(key: str) -> cs.Options:
        return attrs.evolve(options, cwd=str(folders[key]))

    async with cs.SessionPool(
        options,
        prewarm=1,
        claimable=True,
        key_options=per_key,
        max_sessions=3,
        transport=fake,
    ) as pool:
        await pool.wait_until(lambda p: p.warm == 1)
        spare = fake.clis[0]
        assert "--await-claim" in spare.argv
        parking = spare.cwd
        assert Path(parking).parent == tmp_path / "home" / ".claude" / "spares"
        assert os.stat(parking).st_mode & 0o777 == 0o700
        reply = await pool.ask("a", "hello")
        assert reply.text == "in a"
        [claim] = spare.claims
        assert claim["cwd"] == str(folders["a"])
        assert claim["include_initialize"] is True
        assert claim["sdk_mcp_servers"] == []
        assert spare.prompts[0].text == "hello"  # only after the claim
        assert Path(parking).name not in os.listdir(Path(parking).parent)  # gone when claimed
        async with pool.session("a") as session:
            assert session.options.cwd == str(folders["a"])
            assert session.session_id == spare.session_id
        # The pool made a new spare; the next folder claims it.
        await pool.wait_until(lambda p: p.warm == 1)
        assert (await pool.ask("b", "hi")).text == "in a"
        assert fake.clis[1].claims[0]["cwd"] == str(folders["b"])
        assert pool.stats.claimed == 2
        assert pool.stats.prewarmed_used == 2
        assert pool.stats.claims_refused == 0


async def test_what_a_claim_carries(tmp_path: Path) -> None:
    options, folders = _setup(tmp_path)
    fake = FakeCLI(replies=["ok"])
    key_options = attrs.evolve(
        options,
        cwd=str(folders["a"]),
        add_dirs=(str(folders["b"]),),
        permission_mode="acceptEdits",
        model="claude-sonnet-4-5",
        max_thinking_tokens=2048,
    )
    async with cs.SessionPool(
        options,
        prewarm=1,
        claimable=True,
        key_options=lambda key: key_options,
        transport=fake,
    ) as pool:
        await pool.wait_until(lambda p: p.warm == 1)
        await pool.ask("k", "go")
    spare = fake.clis[0]
    [claim] = spare.claims
    assert claim["additional_directories"] == [str(folders["b"])]
    assert claim["permission_mode"] == "acceptEdits"
    subtypes = [getattr(f, "subtype", None) for f in spare.received]
    after = subtypes[subtypes.index("claim_session") :]
    assert after[:3] == ["claim_session", "set_model", "set_max_thinking_tokens"]
    assert spare.model == "claude-sonnet-4-5"


async def test_options_a_claim_cannot_carry_start_cold(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    options, folders = _setup(tmp_path)
    fake = FakeCLI(replies=["cold"])
    other = attrs.evolve(options, cwd=str(folders["a"]), system_prompt="You are terse.")
    async with cs.SessionPool(
        options,
        prewarm=1,
        claimable=True,
        key_options=lambda key: other,
        max_sessions=2,
        transport=fake,
    ) as pool:
        await pool.wait_until(lambda p: p.warm == 1)
        with caplog.at_level("INFO", logger="claude_sdk.pool"):
            assert (await pool.ask("k", "x")).text == "cold"
    cold = fake.clis[1]
    assert "--await-claim" not in cold.argv
    assert cold.cwd == str(folders["a"])
    assert fake.clis[0].claims == []
    assert fake.clis[0].prompts == []
    assert pool.stats.claimed == 0
    assert any("system_prompt" in r.getMessage() for r in caplog.records)


async def test_a_refused_claim_starts_the_key_cold(tmp_path: Path) -> None:
    options, folders = _setup(tmp_path)
    fake = FakeCLI(replies=["cold answer"])

    @fake.on_request("claim_session")
    def refuse(request: Any) -> None:
        raise ErrorReply(
            "project_settings_not_claimable: settings.json in the claimed directory sets "
            "model, which a cold start applies during start-up and a claim cannot; start "
            "this session cold",
            "project_settings_not_claimable",
        )

    per_key = attrs.evolve(options, cwd=str(folders["a"]))
    async with cs.SessionPool(
        options,
        prewarm=1,
        claimable=True,
        key_options=lambda key: per_key,
        max_sessions=2,
        transport=fake,
    ) as pool:
        await pool.wait_until(lambda p: p.warm == 1)
        reply = await pool.ask("k", "x")
        assert reply.text == "cold answer"
        assert pool.stats.claims_refused == 1
        assert pool.stats.claimed == 0
        spare = fake.clis[0]
        assert spare.prompts == []  # the refused spare never saw the prompt
        assert spare.exited
        cold = next(c for c in fake.clis if "--await-claim" not in c.argv)
        assert cold.cwd == str(folders["a"])
        # The key is remembered as cold: a later spare is not tried for it again.
        await pool.ask("k", "again")
        assert pool.stats.claims_refused == 1


async def test_a_pool_without_claimable_spares_uses_warm_clis_only_for_equal_options(
    tmp_path: Path,
) -> None:
    options, folders = _setup(tmp_path)
    fake = FakeCLI(replies=["r"])
    moved = attrs.evolve(options, cwd=str(folders["a"]))
    async with cs.SessionPool(
        options,
        prewarm=1,
        max_sessions=3,
        key_options=lambda key: options if key == "same" else moved,
        transport=fake,
    ) as pool:
        await pool.wait_until(lambda p: p.warm == 1)
        await pool.ask("moved", "x")  # another folder: the warm CLI cannot serve it
        assert pool.stats.prewarmed_used == 0
        await pool.ask("same", "y")
        assert pool.stats.prewarmed_used == 1
    assert all("--await-claim" not in c.argv for c in fake.clis)


async def test_the_spare_refuses_a_prompt_before_its_claim(tmp_path: Path) -> None:
    """FakeCLI as the real CLI: a prompt to an unclaimed spare is answered ``not_claimed``."""
    home = tmp_path / "home"
    home.mkdir()
    options = cs.Options(
        env={"HOME": str(home)}, cwd=str(tmp_path), extra_args={"await-claim": None}
    )
    fake = FakeCLI()
    async with cs.open_session(options, transport=fake) as session:
        sent = await session.send("too early")
        messages = [m async for m in session.receive_response(sent)]
    result = messages[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.is_error
    assert "not_claimed" in str(result.errors)


def test_bad_spare_settings_are_refused(tmp_path: Path) -> None:
    with pytest.raises(cs.OptionsError, match="prewarm"):
        cs.SessionPool(claimable=True)
    for named in ({"resume": "x"}, {"continue_conversation": True}):
        with pytest.raises(cs.OptionsError, match="name a session"):
            cs.SessionPool(cs.Options(**named), prewarm=1, claimable=True)

    class Far(FakeCLI):
        runs_here = False

    with pytest.raises(cs.OptionsError, match="Far runs the CLI elsewhere"):
        cs.SessionPool(prewarm=1, claimable=True, transport=Far())
    with pytest.raises(cs.OptionsError, match="key_options"):
        cs.SessionPool(key_options="nope")  # type: ignore[arg-type]
    assert os.sep == "/"


async def test_key_options_must_return_options(tmp_path: Path) -> None:
    async with cs.SessionPool(transport=FakeCLI(), key_options=lambda key: None) as pool:  # type: ignore[arg-type,return-value]
        with pytest.raises(cs.OptionsError, match="returned NoneType"):
            await pool.ask("k", "x")


async def test_the_fakes_claim_answer_fits_the_model(tmp_path: Path) -> None:
    from claude_sdk import control as c

    home = tmp_path / "home"
    home.mkdir()
    options = cs.Options(
        env={"HOME": str(home)}, cwd=str(tmp_path), extra_args={"await-claim": None}
    )
    fake = FakeCLI(replies=["claimed"])
    async with cs.open_session(options, transport=fake) as session:
        with pytest.raises(cs.ControlRequestError, match="cwd_not_found"):
            await session.request(c.ClaimSessionRequest(cwd=str(tmp_path / "nope")))
        with pytest.raises(cs.ControlRequestError, match="env_key_not_claimable"):
            await session.request(c.ClaimSessionRequest(cwd=str(home), env={"PATH": "/x"}))
        answer = await session.request(
            c.ClaimSessionRequest(cwd=str(home), include_initialize=True, sdk_mcp_servers=[])
        )
        assert cs.wire.drift(answer) == []
        assert answer.cwd == str(home)
        assert answer.initialize is not None
        assert answer.initialize.models
        with pytest.raises(cs.ControlRequestError, match="not_a_spare"):
            await session.request(c.ClaimSessionRequest(cwd=str(home)))
        sent = await session.send("hi")
        reply = [m async for m in session.receive_response(sent)]
    assert isinstance(reply[-1], cs.ResultMessage)
    assert reply[-1].result == "claimed"


async def test_a_keys_options_given_with_the_lease(tmp_path: Path) -> None:
    """``pool.ask(key, prompt, options)`` / ``pool.session(key, options)`` give the key its
    options (no ``key_options``): a spare is claimed for them; a running key cannot change."""
    options, folders = _setup(tmp_path)
    fake = FakeCLI(replies=["a", "b"])
    in_a = attrs.evolve(options, cwd=str(folders["a"]))
    in_b = attrs.evolve(options, cwd=str(folders["b"]))
    async with cs.SessionPool(
        options, prewarm=1, claimable=True, max_sessions=3, transport=fake
    ) as pool:
        await pool.wait_until(lambda p: p.warm == 1)
        assert (await pool.ask("x", "hi", in_a)).text == "a"
        assert fake.clis[0].claims[0]["cwd"] == str(folders["a"])
        await pool.ask("x", "again", in_a)  # the same options: the same session
        with pytest.raises(cs.OptionsError, match="runs with other options"):
            await pool.ask("x", "elsewhere", in_b)
        with pytest.raises(cs.OptionsError, match="must be Options"):
            await pool.ask("y", "hi", {"cwd": "/"})  # type: ignore[arg-type]
        await pool.wait_until(lambda p: p.warm == 1)
        async with pool.session("y", in_b) as session:
            assert session.options.cwd == str(folders["b"])
    assert pool.stats.claimed == 2


async def test_a_spare_that_never_answers_the_claim_is_dropped(tmp_path: Path) -> None:
    """A claim with no answer (a hung spare) ends at the control timeout: the spare is
    closed and the key starts cold, with its reply."""
    from claude_sdk.testing import NO_ANSWER

    options, folders = _setup(tmp_path)
    options = attrs.evolve(options, control_timeout=0.2)
    fake = FakeCLI(replies=["cold after all"])
    fake.on_request("claim_session", lambda request: NO_ANSWER)
    in_a = attrs.evolve(options, cwd=str(folders["a"]))
    async with cs.SessionPool(
        options, prewarm=1, claimable=True, max_sessions=2, transport=fake
    ) as pool:
        await pool.wait_until(lambda p: p.warm == 1)
        assert (await pool.ask("k", "hi", in_a)).text == "cold after all"
    spare = fake.clis[0]
    assert "--await-claim" in spare.argv
    assert spare.exited
    assert spare.prompts == []
    assert pool.stats.claimed == 0
    assert pool.stats.claims_refused == 0


async def test_a_warm_cli_that_cannot_start_stops_prewarming(tmp_path: Path) -> None:
    """No CLI at the given path: the warm CLI fails once and no other is started in its
    place (before: another at once, for ever); the key's own start raises the typed error."""
    home = tmp_path / "home"
    home.mkdir()
    missing = str(tmp_path / "no-such-claude")
    options = cs.Options(env={"HOME": str(home)}, cli_path=missing)
    for claimable in (False, True):
        async with cs.SessionPool(options, prewarm=1, claimable=claimable) as pool:
            await pool.wait_until(lambda p: p.stats.failed >= 1)
            assert pool.stats.started == 1  # the failed warm CLI was not replaced
            with pytest.raises(cs.CLINotFoundError):
                await pool.ask("k", "hi")
            assert pool.stats.started == 2  # the key's own start, once

"""A session opened with ``resume`` or ``continue_conversation`` confirms, before its first
prompt, that the CLI loaded the session asked for and its history (``verify_resume``);
FakeCLI here, the real CLI in tests/e2e/test_resume_confirmation_e2e.py."""

from __future__ import annotations

import json
import uuid

import pytest

import claude_sdk as cs
from claude_sdk.testing import FakeCLI

SID = str(uuid.uuid4())


def sent_subtypes(fake: FakeCLI) -> list[str]:
    return [
        f.request.subtype
        for f in fake.received
        if isinstance(f, cs.ControlRequest) and f.request.subtype is not None
    ]


async def test_a_resumed_session_is_confirmed_before_the_first_prompt() -> None:
    fake = FakeCLI(replies=["hello again"])
    async with cs.open_session(cs.Options(resume=SID), transport=fake) as session:
        assert session.resumed is not None
        assert session.resumed.session_id == SID
        assert session.resumed.history_chars
        assert session.session_id == SID
        assert sent_subtypes(fake)[1:] == ["get_status", "export_conversation"]
        await session.send("hi")
        [m async for m in session.receive_response()]


async def test_another_session_loaded_raises_before_any_prompt() -> None:
    other = str(uuid.uuid4())
    fake = FakeCLI(session_id=other)
    with pytest.raises(cs.SessionNotFoundError) as info:
        async with cs.open_session(cs.Options(resume=SID), transport=fake):
            pytest.fail("the session must not open")
    assert info.value.session_id == SID
    assert other in str(info.value)
    assert not fake.cli.prompts


async def test_a_session_with_no_history_raises() -> None:
    fake = FakeCLI(history="")
    with pytest.raises(cs.SessionNotFoundError, match="no conversation"):
        async with cs.open_session(cs.Options(resume=SID), transport=fake):
            pytest.fail("the session must not open")


async def test_continue_with_nothing_to_continue_raises_unless_asked_to_start() -> None:
    with pytest.raises(cs.SessionNotFoundError, match="the latest session"):
        async with cs.open_session(
            cs.Options(continue_conversation=True), transport=FakeCLI(history="")
        ):
            pytest.fail("the session must not open")
    options = cs.Options(continue_conversation=True, resume_missing="start")
    async with cs.open_session(options, transport=FakeCLI(history="")) as session:
        assert session.resumed is not None
        assert session.resumed.started_new
        assert session.resumed.history_chars == 0


async def test_a_fork_must_be_a_new_session() -> None:
    options = cs.Options(resume=SID, fork_session=True)
    async with cs.open_session(options, transport=FakeCLI()) as session:
        assert session.resumed is not None
        assert session.resumed.session_id not in (None, SID)
    with pytest.raises(cs.SessionNotFoundError, match="not a fork"):
        async with cs.open_session(options, transport=FakeCLI(session_id=SID)):
            pytest.fail("the session must not open")


async def test_verify_resume_false_asks_nothing() -> None:
    fake = FakeCLI(session_id=str(uuid.uuid4()), history="")
    async with cs.open_session(cs.Options(resume=SID, verify_resume=False), transport=fake) as s:
        assert s.resumed is None
    assert sent_subtypes(fake) == ["initialize"]


async def test_a_cli_that_cannot_say_is_not_checked() -> None:
    fake = FakeCLI()

    @fake.on_request("get_status")
    def no_status(request: object) -> object:
        raise FakeCLI.Error("Unsupported control request subtype: get_status")

    @fake.on_request("export_conversation")
    def odd_export(request: object) -> object:
        return {"text": {"not": "a string"}, "sections": 5}

    async with cs.open_session(cs.Options(resume=SID), transport=fake) as session:
        assert session.resumed == cs.ResumeConfirmation(session_id=None, history_chars=None)


@pytest.mark.parametrize(
    "status",
    [
        {"sections": "nope"},
        {"sections": [{"title": 1, "rows": [{"label": "Session ID", "value": 5}]}]},
        {"sections": [{"rows": [{"label": "Session ID", "value": None}]}]},
    ],
    ids=json.dumps,
)
async def test_hostile_status_answers_never_pass_for_a_match(status: dict[str, object]) -> None:
    fake = FakeCLI()

    @fake.on_request("get_status")
    def hostile(request: object) -> object:
        return status

    async with cs.open_session(cs.Options(resume=SID), transport=fake) as session:
        assert session.resumed is not None
        assert session.resumed.session_id is None  # unknown: not claimed as confirmed

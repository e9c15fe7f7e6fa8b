"""Where a consumer's turn ends: only at a result that settles one of its prompts (issue 26).

Sans-IO: the protocol object is fed the CLI's lines (shaped as CLI 2.1.330 writes them, see
tests/data/e2e/2.1.330: a background task's own turn ends with a result that names no prompt
and carries ``origin: {kind: "task-notification"}``; queued prompts may be answered by one
result naming them all) and a consumer is played by `read_turn`, which does what
``MessageStream`` does with the protocol's `Claim`.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from claude_sdk import control as c
from claude_sdk._protocol.events import TurnEnded
from claude_sdk._protocol.protocol import Protocol
from claude_sdk._protocol.turns import END, Claim
from claude_sdk.errors import ClaudeSDKError, PromptWithdrawnError
from claude_sdk.messages import ResultMessage, UserMessage

JSON = dict[str, Any]
TASK = {"kind": "task-notification", "producer": "session-task", "runId": "r1"}


def line(frame: JSON) -> bytes:
    return orjson.dumps(frame)


def result(text: str, **fields: Any) -> bytes:
    frame: JSON = {"type": "result", "subtype": "success", "is_error": False, "result": text}
    frame.update(fields)
    return line(frame)


def answering(text: str, *prompts: str) -> bytes:
    """A result of a turn that answered ``prompts`` (as CLI 2.1.330 names them)."""
    return result(text, user_message_uuid=prompts[0], user_message_uuids=list(prompts))


def assistant(text: str) -> bytes:
    return line(
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": None,
        }
    )


def lifecycle(command: str, state: str) -> bytes:
    return line({"type": "command_lifecycle", "command_uuid": command, "state": state})


def success(request_id: str, body: JSON) -> bytes:
    return line(
        {
            "type": "control_response",
            "response": {"subtype": "success", "request_id": request_id, "response": body},
        }
    )


def send(p: Protocol, text: str) -> str:
    out = p.send_prompt(UserMessage.prompt(text))
    uid: str = json.loads(out)["uuid"]
    return uid


def read_turn(p: Protocol, claim: Claim) -> tuple[list[Any], Any]:
    """Read as ``MessageStream`` does: (messages handed out, how it ended: the result,
    `END`, or None when the queue ran dry first)."""
    out: list[Any] = []
    verdict = claim.check()
    if verdict is END:
        return out, END
    if verdict is not None:
        return [verdict], verdict
    while p.messages:
        item = p.messages.popleft()
        if isinstance(item, bytes):
            item = p.decode_message(item)
        out.append(item)
        if isinstance(item, ResultMessage) and claim.at_result(item):
            return out, item
    return out, None


def bound(claim: Claim) -> str | None:
    return claim.prompt  # read through a call: mypy would narrow the attribute


def test_a_background_tasks_own_turn_does_not_answer_the_next_prompt() -> None:
    """The issue's case, as CLI 2.1.330 wrote it: the own turn's result names no prompt."""
    p = Protocol()
    first = send(p, "count in the background")
    p.receive_lines([assistant("started it"), answering("started it", first)])
    _, ended = read_turn(p, p.claim())
    assert isinstance(ended, ResultMessage)
    assert ended.text == "started it"
    assert ended.settles == (first,)
    assert not ended.own_turn
    # The task ends: the CLI runs a turn of its own, then the host sends its next prompt.
    events = p.receive_lines([assistant("the count is 3"), result("the count is 3", origin=TASK)])
    [turn] = [e for e in events if isinstance(e, TurnEnded)]
    assert turn.settled == ()
    assert turn.own_turn
    second = send(p, "second")
    p.receive_lines([assistant("answer to second"), answering("answer to second", second)])
    messages, ended = read_turn(p, p.claim())
    assert isinstance(ended, ResultMessage)
    assert ended.text == "answer to second"
    assert ended.settles == (second,)
    # The own turn reached the consumer, marked.
    own = [m for m in messages if isinstance(m, ResultMessage) and m is not ended]
    assert [(m.text, m.own_turn, m.settles) for m in own] == [("the count is 3", True, ())]


@pytest.mark.parametrize(
    "own",
    [
        {"user_message_uuids": []},
        {"user_message_uuids": ["a-prompt-of-another-session"]},
        {"user_message_uuid": "a-prompt-of-another-session"},
        {"origin": TASK},
        {"origin": {"kind": "scheduled"}, "user_message_uuids": []},
    ],
    ids=["empty-list", "other-uuids", "other-uuid", "task-origin", "scheduled"],
)
def test_a_result_naming_none_of_ours_ends_no_turn(own: JSON) -> None:
    p = Protocol()
    mine = send(p, "x")
    p.receive_lines([lifecycle(mine, "queued"), result("own", **own), answering("mine", mine)])
    messages, ended = read_turn(p, p.claim())
    assert isinstance(ended, ResultMessage)
    assert ended.text == "mine"
    assert [m.own_turn for m in messages if isinstance(m, ResultMessage)] == [True, False]


def test_a_repeated_result_of_an_earlier_turn_ends_no_turn() -> None:
    p = Protocol()
    first = send(p, "a")
    p.receive_lines([answering("one", first)])
    assert read_turn(p, p.claim())[1].text == "one"
    second = send(p, "b")
    p.receive_lines([answering("one again", first), answering("two", second)])
    messages, ended = read_turn(p, p.claim(second))
    assert ended.text == "two"
    repeat = messages[0]
    assert isinstance(repeat, ResultMessage)
    assert repeat.own_turn
    assert repeat.settles == ()


def test_a_cli_that_never_names_prompts_keeps_task_notification_turns_its_own() -> None:
    """An older CLI, or a fake, that names nothing: results answer prompts in order, but a
    result whose origin is not a prompt's is the CLI's own."""
    p = Protocol()
    first, second = send(p, "a"), send(p, "b")
    p.receive_lines([result("one"), result("task", origin=TASK), result("two")])
    assert read_turn(p, p.claim())[1].settles == (first,)
    messages, ended = read_turn(p, p.claim())
    assert ended.settles == (second,)
    assert [m.text for m in messages] == ["task", "two"]


def test_one_result_for_several_queued_prompts_answers_each_claim() -> None:
    """CLI 2.1.330 answered two queued prompts with one result (test_wait_until_idle_...)."""
    p = Protocol()
    one, two, three = send(p, "one"), send(p, "two"), send(p, "three")
    p.receive_lines([answering("first", one), assistant("second"), answering("second", two, three)])
    assert read_turn(p, p.claim())[1].text == "first"
    _, second = read_turn(p, p.claim())
    assert second.settles == (two, three)
    # The third prompt's reply was read past: its claim is handed the same result at once.
    messages, third = read_turn(p, p.claim())
    assert third is second
    assert messages == [second]
    assert len(p.ledger) == 0


def test_a_claim_by_uuid_ends_at_its_own_result_whatever_came_first() -> None:
    p = Protocol()
    left_unread = send(p, "sent by an earlier lease, never read")
    mine = send(p, "mine")
    p.receive_lines([answering("theirs", left_unread), answering("mine", mine)])
    messages, ended = read_turn(p, p.claim(mine))
    assert ended.text == "mine"
    assert [m.text for m in messages] == ["theirs", "mine"]
    # The earlier prompt's reply is still the next receive_response()'s.
    _, theirs = read_turn(p, p.claim())
    assert theirs.text == "theirs"


def test_a_claim_made_before_the_prompt_binds_to_it() -> None:
    p = Protocol()
    claim = p.claim()
    assert claim.check() is None
    assert bound(claim) is None
    mine = send(p, "x")
    p.receive_lines([result("own", origin=TASK), answering("mine", mine)])
    _, ended = read_turn(p, claim)
    assert bound(claim) == mine
    assert ended.text == "mine"


def test_a_withdrawn_prompt_is_skipped_when_a_later_one_awaits() -> None:
    p = Protocol()
    first, second = send(p, "a"), send(p, "b")
    rid, _ = p.send_request(c.InterruptRequest(cancel_queued=True))
    p.receive_lines(
        [
            success(rid, {"still_queued": [], "cancelled": [second]}),
            answering("cut", first),
        ]
    )
    assert read_turn(p, p.claim())[1].text == "cut"
    third = send(p, "c")
    p.receive_lines([answering("third", third)])
    assert read_turn(p, p.claim())[1].text == "third"


@pytest.mark.parametrize("how", ["cancel_queued", "cancel_async_message", "lifecycle"])
def test_a_withdrawn_prompt_with_nothing_after_it_raises(how: str) -> None:
    p = Protocol()
    first, second = send(p, "a"), send(p, "b")
    waiting = p.claim()
    assert read_turn(p, waiting)[1] is None  # bound to the first, nothing yet
    if how == "cancel_queued":
        rid, _ = p.send_request(c.InterruptRequest(cancel_queued=True))
        frames = [success(rid, {"still_queued": [], "cancelled": [second]})]
    elif how == "cancel_async_message":
        rid, _ = p.send_request(c.CancelAsyncMessageRequest(message_uuid=second))
        frames = [success(rid, {"cancelled": True})]
    else:
        frames = [lifecycle(second, "cancelled")]
    p.delivered = False
    p.receive_lines([*frames, answering("one", first)])
    assert p.delivered  # the consumers are woken
    assert read_turn(p, waiting)[1].text == "one"
    claim = p.claim()
    with pytest.raises(PromptWithdrawnError) as info:
        claim.check()
    assert info.value.prompt_uuid == second
    assert info.value.kind == "withdrawn"
    assert not info.value.retryable
    assert claim.done


def test_a_claim_waiting_for_a_prompt_that_is_then_withdrawn_raises() -> None:
    p = Protocol()
    first = send(p, "a")
    claim = p.claim()
    assert claim.check() is None
    rid, _ = p.send_request(c.CancelAsyncMessageRequest(message_uuid=first))
    p.receive_lines([success(rid, {"cancelled": True})])
    with pytest.raises(PromptWithdrawnError):
        claim.check()


def test_a_prompt_completed_without_a_turn_ends_its_claim_without_a_result() -> None:
    """``shouldQuery: false`` appends a prompt without a turn: completed, no result."""
    p = Protocol()
    quiet = send(p, "context only")
    p.receive_lines([lifecycle(quiet, "queued"), lifecycle(quiet, "completed")])
    assert read_turn(p, p.claim(quiet)) == ([], END)


def test_a_result_after_a_completed_lifecycle_still_answers_the_prompt() -> None:
    """Should the CLI write ``completed`` before the result, the result still settles it."""
    p = Protocol()
    mine = send(p, "x")
    claim = p.claim(mine)
    assert claim.check() is None
    p.receive_lines([lifecycle(mine, "completed"), answering("late", mine)])
    assert read_turn(p, claim)[1].settles == (mine,)


def test_a_claim_of_an_unknown_or_taken_prompt_is_an_error() -> None:
    p = Protocol()
    with pytest.raises(ClaudeSDKError) as info:
        p.claim("never-sent").check()
    assert info.value.kind == "no_such_prompt"
    mine = send(p, "x")
    p.receive_lines([answering("one", mine)])
    assert read_turn(p, p.claim(mine))[1].text == "one"
    with pytest.raises(ClaudeSDKError, match="taken already"):
        p.claim(mine).check()


def test_results_read_by_a_consumer_of_every_message_are_taken() -> None:
    p = Protocol()
    first = send(p, "a")
    p.receive_lines([answering("one", first)])
    for item in list(p.messages):
        p.messages.popleft()
        if isinstance(item, ResultMessage):
            p.taken(item)
    second = send(p, "b")
    p.receive_lines([answering("two", second)])
    assert read_turn(p, p.claim())[1].text == "two"


def test_the_ledger_forgets_the_oldest_unclaimed_replies() -> None:
    p = Protocol()
    keep = p.ledger.KEEP
    sent = [send(p, str(i)) for i in range(keep + 5)]
    assert len(p.ledger) == keep
    assert not p.ledger.waiting(sent[0])
    assert p.ledger.waiting(sent[-1])


def test_a_result_not_read_through_a_session_is_not_marked() -> None:
    from claude_sdk import wire

    frame = wire.decode(answering("x", "u"))
    assert isinstance(frame, ResultMessage)
    assert frame.settles == ()
    assert not frame.own_turn
    assert wire.encode(frame) == wire.encode(wire.decode(wire.encode(frame)))


def test_a_result_without_names_answers_the_prompts_whose_turn_started() -> None:
    """A CLI names the prompt its turn takes (``command_lifecycle`` started); a result that
    carries no ``user_message_uuids`` key then answers that turn's prompts (the CLI runs one
    turn at a time), unless its origin says it was the CLI's own."""
    p = Protocol()
    first, second = send(p, "a"), send(p, "b")
    p.receive_lines([lifecycle(first, "queued"), lifecycle(second, "queued")])
    p.receive_lines([result("own, before any turn started")])  # nothing started: own
    p.receive_lines([lifecycle(first, "started"), result("task", origin=TASK)])
    p.receive_lines([result("one")])
    messages, ended = read_turn(p, p.claim())
    assert ended.settles == (first,)
    assert [(m.text, m.own_turn) for m in messages] == [
        ("own, before any turn started", True),
        ("task", True),
        ("one", False),
    ]
    # The second prompt has not started: an unnamed result now is the CLI's own.
    p.receive_lines([result("own again"), lifecycle(second, "started"), result("two")])
    messages, ended = read_turn(p, p.claim())
    assert ended.settles == (second,)
    assert [m.own_turn for m in messages] == [True, False]

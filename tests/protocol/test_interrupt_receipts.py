"""What an interrupt did (`InterruptWatch`, `InterruptReceipt`), sans-IO.

Two kinds of evidence: the real CLI's traffic around every interrupt it was sent (the e2e
recordings of each CLI version and the reference transcripts), replayed through the protocol
in the recorded order; and hand-made orderings for the cases the recordings do not have (a
turn that finished first, a CLI that answers late, a CLI that never names prompts, hostile
answers).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from claude_sdk import control as c
from claude_sdk._protocol.events import Answer
from claude_sdk._protocol.interrupts import InterruptWatch
from claude_sdk._protocol.protocol import Protocol
from claude_sdk.messages import UserMessage

from ..transcripts import DATA
from .test_protocol import lifecycle, result, state, success

JSON = dict[str, Any]


def interrupted(path: Path) -> list[tuple[c.InterruptReceipt, list[JSON]]]:
    """Replay a recording through a `Protocol`, as the session would have driven it: the
    host's prompts and requests are sent through it (a watch started before each interrupt),
    the CLI's lines fed in the recorded order. The receipt of each interrupt, with the
    results that came after it (the ground truth to compare with)."""
    p = Protocol()
    ids: dict[str, str] = {}  # recorded request id -> ours
    watches: dict[str, InterruptWatch] = {}  # our request id -> its watch
    done: list[tuple[InterruptWatch, int]] = []
    frames: list[JSON] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(raw)
        msg = record.get("msg")
        if not isinstance(msg, dict):
            continue
        if record["dir"] == "sdk>cli":
            if msg.get("type") == "user":
                prompt = UserMessage.prompt(msg["message"]["content"], uuid=msg.get("uuid"))
                p.send_prompt(prompt)
            elif msg.get("type") == "control_request":
                request = msg["request"]
                if request.get("subtype") == "interrupt":
                    watch = p.watch_interrupt()
                    rid, _ = p.send_request(
                        c.InterruptRequest(cancel_queued=request.get("cancel_queued"))
                    )
                    watches[rid] = watch
                else:
                    rid, _ = p.send_request(c.UnknownControlRequest(raw=request))
                ids[msg["request_id"]] = rid
            continue
        if msg.get("type") == "control_response":
            ours = ids.get(msg["response"].get("request_id", ""))
            if ours is not None:
                msg = {**msg, "response": {**msg["response"], "request_id": ours}}
        frames.append(msg)
        for event in p.receive_lines([orjson.dumps(msg)]):
            if isinstance(event, Answer) and event.request_id in watches:
                watch = watches.pop(event.request_id)
                assert isinstance(event.value, c.InterruptResponse)
                assert watch.response is event.value  # the protocol handed it the answer
                done.append((watch, len(frames)))
    return [(w.receipt(), frames[at:]) for w, at in done]


RECORDED = sorted(
    path
    for path in [*DATA.glob("e2e/*/*.jsonl"), *DATA.glob("transcripts/*.jsonl")]
    if '"subtype": "interrupt"' in path.read_text(encoding="utf-8")
)


def test_there_are_recordings_of_interrupts_of_two_cli_versions() -> None:
    versions = {p.parent.name for p in RECORDED if p.parent.parent.name == "e2e"}
    assert len(versions) >= 2, versions


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_receipt_agrees_with_what_followed_in_real_traffic(path: Path) -> None:
    receipts = interrupted(path)
    if not receipts:
        # Only a session that was leaving sends an interrupt the CLI never answers.
        assert path.stem.startswith("test_leaving"), "no interrupt answered in the recording"
    for receipt, after in receipts:
        results = [f for f in after if f.get("type") == "result"]
        aborted = [r for r in results if str(r.get("terminal_reason", "")).startswith("aborted")]
        if aborted and receipt.results:
            # The turn that was running when the interrupt was sent was cut short.
            assert receipt.outcome == "effective"
            assert receipt.effective
            assert receipt.results[0].terminal_reason == aborted[0]["terminal_reason"]
        elif receipt.cancelled:
            assert receipt.outcome == "queued_cancelled"
        else:
            assert receipt.outcome in ("no_op", "undetermined"), receipt


def test_known_recordings_have_the_expected_outcomes() -> None:
    for name, terminal in [
        ("test_interrupt_mid_stream", "aborted_streaming"),
        ("test_interrupt_while_a_permission_request_is_pending", "aborted_tools"),
    ]:
        for path in DATA.glob(f"e2e/*/{name}.jsonl"):
            [(receipt, _)] = interrupted(path)
            assert receipt.outcome == "effective", path
            assert [r.terminal_reason for r in receipt.results] == [terminal]
            assert receipt.still_queued == []


# ======================================================================================
# Hand-made orderings


def start(*prompts: str) -> tuple[Protocol, InterruptWatch, str]:
    p = Protocol()
    for text in prompts:
        p.send_prompt(UserMessage.prompt(text, uuid=text))
    watch = p.watch_interrupt()
    rid, _ = p.send_request(c.InterruptRequest())
    return p, watch, rid


def decided(watch: InterruptWatch) -> bool:
    return watch.decided


def answer(p: Protocol, watch: InterruptWatch, rid: str, body: JSON) -> None:
    [event] = [e for e in p.receive_lines([success(rid, body)]) if isinstance(e, Answer)]
    assert watch.response is event.value  # the protocol hands the watch its answer


def test_an_interrupt_while_idle_is_a_no_op_at_once() -> None:
    p, watch, rid = start()
    p.receive_lines([state("idle")])
    assert not decided(watch)  # no answer yet
    answer(p, watch, rid, {"still_queued": []})
    assert decided(watch)
    receipt = watch.receipt()
    assert receipt.outcome == "no_op"
    assert receipt.results == ()
    assert not receipt.effective


def test_a_turn_cut_short_is_effective() -> None:
    p, watch, rid = start("a")
    answer(p, watch, rid, {"still_queued": []})
    assert not decided(watch)  # the result has not come
    p.receive_lines(
        [
            result(
                subtype="error_during_execution",
                is_error=True,
                terminal_reason="aborted_streaming",
                user_message_uuids=["a"],
            ),
            lifecycle("a", "cancelled"),
        ]
    )
    assert decided(watch)
    receipt = watch.receipt()
    assert receipt.outcome == "effective"
    assert receipt.cancelled == []  # the running prompt was cut short, not withdrawn


def test_a_turn_that_finished_first_makes_it_a_no_op() -> None:
    p, watch, rid = start("a")
    p.receive_lines([result(terminal_reason="completed", user_message_uuids=["a"])])
    answer(p, watch, rid, {"still_queued": []})
    receipt = watch.receipt()
    assert receipt.outcome == "no_op"
    assert [r.terminal_reason for r in receipt.results] == ["completed"]


def test_queued_prompts_withdrawn_while_the_running_one_is_cut_short() -> None:
    p, watch, rid = start("a", "b", "c")
    answer(p, watch, rid, {"still_queued": [], "cancelled": ["b", "c"]})
    assert not decided(watch)
    p.receive_lines(
        [result(subtype="error_during_execution", is_error=True, user_message_uuids=["a"])]
    )
    receipt = watch.receipt()
    assert receipt.outcome == "effective"  # no terminal_reason: the subtype says it
    assert receipt.cancelled == ["b", "c"]


def test_queued_prompts_withdrawn_with_nothing_cut_short() -> None:
    p, watch, rid = start("a", "b")
    p.receive_lines([result(user_message_uuids=["a"])])  # finished before the interrupt
    answer(p, watch, rid, {"still_queued": [], "cancelled": ["b"]})
    assert watch.receipt().outcome == "queued_cancelled"


def test_prompts_still_queued_are_not_waited_for() -> None:
    p, watch, rid = start("a", "b")
    answer(p, watch, rid, {"still_queued": ["b"]})
    p.receive_lines([result(terminal_reason="aborted_tools", user_message_uuids=["a"])])
    receipt = watch.receipt()
    assert receipt.outcome == "effective"
    assert receipt.still_queued == ["b"]
    assert p.open_prompts == ["b"]  # it runs later


def test_a_cli_that_never_names_prompts() -> None:
    p, watch, rid = start("a")
    answer(p, watch, rid, {})  # an older CLI: no receipt fields
    p.receive_lines([result(subtype="error_during_execution", is_error=True)])
    assert watch.receipt().outcome == "effective"


def test_a_turn_of_the_cli_own_is_followed_too() -> None:
    p = Protocol()
    p.receive_lines([state("running")])  # a task notification's turn: no prompt of ours
    watch = p.watch_interrupt()
    rid, _ = p.send_request(c.InterruptRequest())
    answer(p, watch, rid, {"still_queued": []})
    assert not decided(watch)
    p.receive_lines([result(terminal_reason="aborted_streaming")])
    assert watch.receipt().outcome == "effective"
    # ... or the CLI goes idle without a result: nothing was cut short
    p.receive_lines([state("running")])
    watch = p.watch_interrupt()
    rid, _ = p.send_request(c.InterruptRequest())
    answer(p, watch, rid, {"still_queued": []})
    p.receive_lines([state("idle")])
    assert watch.receipt().outcome == "no_op"


def test_without_the_frames_that_tell_it_is_undetermined() -> None:
    p, watch, rid = start("a")
    assert watch.receipt().outcome == "undetermined"  # not even answered
    answer(p, watch, rid, {"still_queued": []})
    assert watch.receipt().outcome == "undetermined"  # the result never came
    p.unwatch(watch)
    p.receive_lines([result(terminal_reason="aborted_streaming", user_message_uuids=["a"])])
    assert watch.receipt().outcome == "undetermined"  # no longer followed


@given(
    still_queued=st.one_of(
        st.none(), st.lists(st.one_of(st.text(max_size=3), st.integers(-(2**53), 2**53)))
    ),
    cancelled=st.one_of(
        st.none(), st.lists(st.one_of(st.text(max_size=3), st.integers(-(2**53), 2**53)))
    ),
    terminal=st.one_of(st.none(), st.integers(-(2**53), 2**53), st.text(max_size=20)),
    subtype=st.one_of(st.none(), st.integers(-(2**53), 2**53), st.text(max_size=25)),
)
def test_hostile_answers_and_results_never_raise(
    still_queued: Any, cancelled: Any, terminal: Any, subtype: Any
) -> None:
    p, watch, rid = start("a", "b")
    body: JSON = {"still_queued": still_queued, "cancelled": cancelled}
    p.receive_lines([success(rid, body)])
    p.receive_lines([result(terminal_reason=terminal, subtype=subtype, user_message_uuids=["a"])])
    receipt = watch.receipt()
    assert receipt.outcome in ("effective", "no_op", "queued_cancelled", "undetermined")
    assert all(isinstance(u, str) for u in (*receipt.cancelled, *receipt.still_queued))

"""Multi-step jobs that a retry resumes without running a finished step again.

A job is one session (its key: `claude_sdk.session_id_for`) and its steps, prompts sent in
order. `read_steps` reads the session's transcript (from ``Options.session_store``, else the
CLI's own file on this machine) and says of each step whether it is finished, cut off or
not started; `run_step` runs one, and hands back a finished step's stored answer without
sending anything. The first attempt and every retry (another worker, pod or activity) run
the same code::

    options = cs.Options(session_store=store).resume_or_start(key)
    async with cs.open_session(options) as session:
        progress = await cs.read_steps(options, ["Plan the change.", "Make it.", "Test it."])
        answers = [await cs.run_step(session, step) for step in progress.steps]

Read the steps once the session is open: a session is one owner's at a time (with a store
that keeps leases, ``open_session`` refuses or waits for a live owner), so what the store
says then cannot change under the worker.

**Which prompt is which step.** Each run of a step is sent with a uuid made from the session
id, the step's id and the attempt number (uuid5, `step_uuid`), and the CLI keeps a prompt's
uuid as the uuid of its transcript entry (CLI 2.1.330 to 2.1.332, checked in e2e). The
prompt's text is never parsed: the model sees it as written, and editing a prompt does not
change which step it is.

**When a step is finished.** Among the entries after one of its prompts (up to the next
step's prompt, or a prompt that is no step's), the latest response of the model is a final
answer: its ``stop_reason`` ends a turn (`FINAL_STOP_REASONS`), and the entry is not a
thinking block (the CLI writes one entry per content block, thinking first, all carrying the
response's stop reason, so a response stored up to its thinking has no answer yet). The
CLI's own messages (model ``"<synthetic>"``: an API error, the ``"No response requested."``
it adds when it resumes an unanswered prompt) are not responses. A response that stops for
a tool call (``tool_use``), for ``max_tokens`` (the CLI goes on with it) or ``pause_turn``
is not final. So a turn cut anywhere (its prompt stored or not, mid-tool-call, between the
blocks of its answer) is not finished, and a finished one stays finished whatever follows.
Its answer is the text of the final response's last text block (``ResultMessage.text``).

**A cut step** (its prompt is in the transcript, its answer is not) is not sent again as
written: the resumed conversation holds its prompt, and whatever part of its work was
stored, so the model would see the request twice. `run_step` sends `CUT_NOTE` instead (with
the next attempt's uuid: the CLI drops a prompt whose uuid its transcript holds, and the
turn would never end), asking the model to check what is done and finish. A step whose
prompt never reached the transcript is sent as written.

At least once, still: a cut step runs again, and what its first run did (tool calls, files
written, requests made) stays done. Make tools idempotent.

Limits: a response cut between two of its *text* blocks counts as answered with the first
(the transcript does not say how many blocks a response has; the CLI itself resumes it as
answered). A prompt that is no step's, sent into the job's session, ends the step before
it: send only steps there.
"""

from __future__ import annotations

import json
import uuid
import weakref
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, cast

import anyio
import anyio.to_thread
import attrs

from ._attrs import define, frozen
from ._paths import canonical, cli_config_dir, is_uuid, project_slug
from .errors import OptionsError, ResultError, SessionStoreError
from .messages import ResultMessage, UserMessage

if TYPE_CHECKING:
    from .options import Options
    from .session import Session
    from .stores import SessionKey

__all__ = [
    "CUT_NOTE",
    "FINAL_STOP_REASONS",
    "Step",
    "StepProgress",
    "StepState",
    "StepStatus",
    "read_steps",
    "run_step",
    "step_progress",
    "step_uuid",
]

#: The namespace of `step_uuid` (fixed: the same step gets the same uuid in every process,
#: on every machine, in every release).
STEP_NAMESPACE: Final = uuid.UUID("6f1d2a8e-3b7c-5e94-a0d1-52c8e7b4f930")

#: Stop reasons that end a turn: a response stopped for one of these is a final answer.
FINAL_STOP_REASONS: Final = frozenset({"end_turn", "stop_sequence", "refusal"})

#: What `run_step` sends for a cut step (``{id}``: the step's id, ``{prompt}``: its prompt).
CUT_NOTE: Final = (
    "Continue step {id}: your work on it above was cut off before it finished (the process "
    "running it stopped). Some of it may be done already: check what is, then finish the step."
)

#: The model of the messages the CLI writes itself (API errors, "No response requested.").
_SYNTHETIC_MODEL: Final = "<synthetic>"
_THINKING: Final = frozenset({"thinking", "redacted_thinking"})

StepStatus = Literal["done", "cut", "todo"]
"""``"done"``: its answer is stored. ``"cut"``: its prompt is, its answer is not.
``"todo"``: no prompt of it is stored."""


def _check_id(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, str) or not value:
        raise OptionsError(f"Step.id must be a non-empty string, not {value!r}", option="id")


def _check_prompt(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise OptionsError(
            f"Step.prompt must be a non-empty string, not {value!r:.80}", option="prompt"
        )


@frozen
class Step:
    """One step of a job: an id (unique in the job; it names the step in the transcript,
    so keep it when you edit the prompt) and the prompt.

    Raises:
        OptionsError: ``id`` or ``prompt`` is not a non-empty string.
    """

    id: str = attrs.field(validator=_check_id)
    prompt: str = attrs.field(validator=_check_prompt)


@frozen(kw_only=True)
class StepState:
    """What the transcript says of one step, and what `run_step` sends for it.

    Attributes:
        step: the step.
        index: its place in the job (0 for the first).
        status: ``"done"``, ``"cut"`` or ``"todo"`` (`StepStatus`).
        attempts: its prompts in the transcript (runs started, the cut ones included).
        answer: a done step's answer (the text of its final response's last text block).
        prompt_uuid: the uuid `run_step` sends with (None when done): the next attempt's.
        prompt_text: the text `run_step` sends (None when done): the prompt, or for a cut
            step the cut note.
    """

    step: Step
    index: int
    status: StepStatus
    attempts: int
    answer: str | None = None
    prompt_uuid: str | None = None
    prompt_text: str | None = None

    @property
    def done(self) -> bool:
        """True when the step's answer is stored."""
        return self.status == "done"

    @property
    def message(self) -> UserMessage | None:
        """The prompt `run_step` sends (None when the step is done)."""
        if self.prompt_text is None:
            return None
        return UserMessage.prompt(self.prompt_text, uuid=self.prompt_uuid)


@frozen(kw_only=True)
class StepProgress:
    """Every step of a job, as the session's transcript shows them.

    Attributes:
        session_id: the job's session.
        steps: one `StepState` per step, in the job's order.
    """

    session_id: str
    steps: tuple[StepState, ...]

    @property
    def done(self) -> tuple[StepState, ...]:
        """The finished steps, in order."""
        return tuple(s for s in self.steps if s.done)

    @property
    def todo(self) -> tuple[StepState, ...]:
        """The steps still to run (cut or not started), in order."""
        return tuple(s for s in self.steps if not s.done)

    @property
    def finished(self) -> bool:
        """True when every step is done."""
        return all(s.done for s in self.steps)

    @property
    def started(self) -> bool:
        """True when the transcript holds a prompt of some step (an earlier run)."""
        return any(s.attempts for s in self.steps)

    @property
    def answers(self) -> list[str]:
        """The answers of the finished steps, in order."""
        return [s.answer or "" for s in self.steps if s.done]


def step_uuid(session_id: str, step_id: str, attempt: int) -> str:
    """The uuid of attempt ``attempt`` (0 for the first) of step ``step_id`` in the session."""
    name = json.dumps([session_id, step_id, attempt])
    return str(uuid.uuid5(STEP_NAMESPACE, name))


def _checked_steps(steps: Sequence[Step | str]) -> tuple[Step, ...]:
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence):
        raise OptionsError(
            f"steps must be a sequence of Step or prompt strings, not {type(steps).__name__}",
            option="steps",
        )
    found: list[Step] = []
    seen: set[str] = set()
    for index, item in enumerate(steps):
        if isinstance(item, str):
            item = Step(str(index + 1), item)
        elif not isinstance(item, Step):
            raise OptionsError(
                f"steps[{index}] is a {type(item).__name__}, not a Step or a prompt string",
                option="steps",
            )
        if item.id in seen:
            raise OptionsError(f"two steps have the id {item.id!r}", option="steps")
        seen.add(item.id)
        found.append(item)
    return tuple(found)


def _checked_note(note: object) -> str:
    if not isinstance(note, str) or not note.strip():
        raise OptionsError("cut_note must be a non-empty string", option="cut_note")
    try:
        note.format(id="x", prompt="y")
    except (KeyError, IndexError, ValueError) as exc:
        raise OptionsError(
            f"cut_note is not a template of {{id}} and {{prompt}}: {type(exc).__name__}: {exc}",
            option="cut_note",
        ) from None
    return note


def _content(entry: Mapping[str, Any]) -> Any:
    message = entry.get("message")
    return message.get("content") if isinstance(message, Mapping) else None


def _is_other_prompt(entry: Mapping[str, Any]) -> bool:
    """A prompt that is no step's: a user entry with text content that the CLI did not add
    (tool results, interrupt notes and the CLI's own notes are lists or ``isMeta``)."""
    return (
        isinstance(_content(entry), str)
        and entry.get("isMeta") is not True
        and entry.get("isCompactSummary") is not True
    )


@define
class _Segment:
    """The entries after one prompt of a step: is its latest response a final answer?"""

    step: int
    final: bool = False
    answer: str | None = None
    closed: bool = False  # another prompt came: what follows is not this step's
    message_id: object = None
    text: str | None = None  # the current response's last text block so far

    def response(self, entry: Mapping[str, Any]) -> None:
        message = entry.get("message")
        if not isinstance(message, Mapping):
            return
        if message.get("model") == _SYNTHETIC_MODEL or entry.get("isApiErrorMessage") is True:
            return  # the CLI's own message, not the model's
        content = message.get("content")
        blocks = [b for b in content if isinstance(b, Mapping)] if isinstance(content, list) else []
        if message.get("id") != self.message_id or self.message_id is None:
            self.message_id, self.text = message.get("id"), None
        for block in blocks:
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                self.text = block["text"]
        kinds = [b.get("type") for b in blocks]
        self.final = (
            message.get("stop_reason") in FINAL_STOP_REASONS
            and bool(kinds)
            and kinds[-1] not in _THINKING
        )
        if self.final:
            self.answer = self.text or ""


def step_progress(
    entries: Iterable[Mapping[str, Any]],
    *,
    session_id: str,
    steps: Sequence[Step | str],
    cut_note: str = CUT_NOTE,
) -> StepProgress:
    """What a session's transcript entries (as the CLI writes them, in order) say of each
    step (see the module docstring). No I/O: `read_steps` reads the entries and calls this.

    Args:
        entries: the transcript's entries, as ``SessionStore.load`` returns them.
        session_id: the session they belong to (the step uuids derive from it).
        steps: the job's steps; a plain string is a step whose id is its position (``"1"``
            for the first).
        cut_note: what a cut step's next run sends, formatted with ``id`` and ``prompt``
            (``"{prompt}"`` sends the prompt again).

    Raises:
        OptionsError: ``session_id`` is not a UUID, two steps share an id, a step is not a
            `Step` or a string, or ``cut_note`` is not a template of ``{id}``/``{prompt}``.
    """
    if not isinstance(session_id, str) or not is_uuid(session_id):  # type: ignore[redundant-expr]
        raise OptionsError(f"session_id must be a UUID, not {session_id!r}", option="session_id")
    job = _checked_steps(steps)
    note = _checked_note(cut_note)
    # A store may hand back anything: what is not an object is no entry.
    listed: list[Mapping[str, Any]] = [
        e for e in cast("Iterable[object]", entries) if isinstance(e, Mapping)
    ]
    present = {e["uuid"] for e in listed if isinstance(e.get("uuid"), str)}
    owner: dict[str, int] = {}
    attempts: list[int] = []
    for index, step in enumerate(job):
        # A step's attempts are numbered 0, 1, ... with no gap: the next one is made only
        # from a transcript that holds the one before (a store loses nothing it stored).
        count = 0
        while (made := step_uuid(session_id, step.id, count)) in present:
            owner[made] = index
            count += 1
        attempts.append(count)
    answers: dict[int, str] = {}
    segment: _Segment | None = None

    def settle() -> None:
        if segment is not None and segment.final:
            answers[segment.step] = segment.answer or ""

    for entry in listed:
        if entry.get("isSidechain") is True:
            continue  # a subagent's conversation, not the session's
        kind = entry.get("type")
        if kind == "user":
            uid = entry.get("uuid")
            owned = owner.get(uid) if isinstance(uid, str) else None
            if owned is not None:
                settle()
                segment = _Segment(owned)
            elif segment is not None and _is_other_prompt(entry):
                segment.closed = True
        elif kind == "assistant" and segment is not None and not segment.closed:
            segment.response(entry)
    settle()

    states = []
    for index, step in enumerate(job):
        if index in answers:
            states.append(
                StepState(
                    step=step,
                    index=index,
                    status="done",
                    attempts=attempts[index],
                    answer=answers[index],
                )
            )
            continue
        cut = attempts[index] > 0
        states.append(
            StepState(
                step=step,
                index=index,
                status="cut" if cut else "todo",
                attempts=attempts[index],
                prompt_uuid=step_uuid(session_id, step.id, attempts[index]),
                prompt_text=note.format(id=step.id, prompt=step.prompt) if cut else step.prompt,
            )
        )
    return StepProgress(session_id=session_id, steps=tuple(states))


def _session_of(options: Options) -> str:
    if options.fork_session:
        raise OptionsError(
            "read_steps: fork_session gives the session a new id, so no retry finds its steps",
            option="fork_session",
        )
    session_id = options.resume if options.resume is not None else options.session_id
    if session_id is None or not is_uuid(session_id):
        raise OptionsError(
            "read_steps needs options that name the job's session by id: "
            "Options(...).resume_or_start(key), or session_id/resume set to a UUID",
            option="resume",
        )
    return session_id


def _read_local(path: Path) -> list[dict[str, Any]]:
    """The CLI's transcript file: its JSON-object lines (a line cut by a crash is skipped)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    found = []
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            found.append(entry)
    return found


async def _load(
    store: Any, key: SessionKey, seconds: float | None, who: str = "read_steps"
) -> list[Mapping[str, Any]]:
    where = {k: str(v) for k, v in key.items()}
    try:
        with anyio.fail_after(seconds):
            answer = await store.load(key)
    except Exception as exc:
        reason = (
            f"no answer within {seconds:g} s (Options.session_store_load_timeout)"
            if isinstance(exc, TimeoutError) and seconds is not None
            else f"{type(exc).__name__}: {exc}"
        )
        raise SessionStoreError(
            f"{who}: session store load failed: {reason}", operation="load", key=where
        ) from exc
    if answer is None:
        return []
    if not isinstance(answer, list) or not all(isinstance(e, Mapping) for e in answer):
        raise SessionStoreError(
            f"{who}: session store load answered something other than a list of entries",
            operation="load",
            key=where,
            kind="session_store_invalid",
        )
    return answer


async def read_steps(
    options: Options, steps: Sequence[Step | str], *, cut_note: str = CUT_NOTE
) -> StepProgress:
    """Read the job's session transcript and say where its steps are (`step_progress`).

    ``options`` name the session as the job opens it (``resume_or_start(key)``, or
    ``resume``/``session_id``). The transcript is the session store's
    (``Options.session_store``; a read bounded by ``session_store_load_timeout``) when it
    holds the session, else the CLI's file on this machine, the one a resume would read.
    Read it once the session is open (see the module docstring), and again before running
    a step again after a failure: a `StepState` is for one send.

    Raises:
        OptionsError: the options name no session by id, or fork it; bad ``steps`` or
            ``cut_note`` (see `step_progress`).
        SessionStoreError: the store failed or timed out (retryable), or answered
            something that is not a list of entries.
    """
    session_id = _session_of(options)
    _checked_steps(steps)  # bad steps fail before any I/O
    _checked_note(cut_note)
    entries = await read_session_file(options, session_id)
    return step_progress(entries, session_id=session_id, steps=steps, cut_note=cut_note)


async def read_session_file(
    options: Options, session_id: str, subpath: str | None = None, *, who: str = "read_steps"
) -> list[Mapping[str, Any]]:
    """The entries of a session's transcript (or of the file ``subpath`` kept under it):
    the session store's (``Options.session_store``) when it has them, else the file on this
    machine a resume would read. ``who`` names the caller in a store error."""
    cwd = canonical(options.cwd)
    entries: list[Mapping[str, Any]] = []
    store = options.session_store
    project_key = options.store_project_key or project_slug(cwd)
    if store is not None:
        key: SessionKey = {"project_key": project_key, "session_id": session_id}
        if subpath is not None:
            key["subpath"] = subpath
        entries = await _load(store, key, options.session_store_load_timeout, who)
    if not entries and not options.diskless:
        local = cli_config_dir(options.env) / "projects" / project_slug(cwd)
        name = f"{session_id}.jsonl" if subpath is None else f"{session_id}/{subpath}.jsonl"
        entries = list(await anyio.to_thread.run_sync(_read_local, local / name))
    return entries


#: The step uuids each session has been sent (a second send would never be answered).
_SENT: Final[weakref.WeakKeyDictionary[Session, set[str]]] = weakref.WeakKeyDictionary()


async def run_step(session: Session, state: StepState) -> str:
    """Run one step in the job's open session; return its answer.

    A done step is not sent: its stored answer is returned. Otherwise the step's prompt
    (or, for a cut step, the cut note) is sent with the step's next uuid and the turn is
    read to its result.

    Raises:
        ResultError: the turn ended with an error result (``retryable`` says whether to run
            it again: read the steps again first).
        OptionsError: this state was sent in this session already (the CLI would drop
            the prompt): read the steps again.
        ClaudeSDKError: whatever `Session.send` and `Session.receive_response` raise.
    """
    if state.done:
        return state.answer or ""
    message = state.message
    assert message is not None  # not done: set
    assert state.prompt_uuid is not None
    sent = _SENT.setdefault(session, set())
    if state.prompt_uuid in sent:
        raise OptionsError(
            f"step {state.step.id!r} was sent with uuid {state.prompt_uuid} in this session "
            "already; read_steps again before running it again",
            option="state",
        )
    sent.add(state.prompt_uuid)
    prompt = await session.send(message)
    result = None
    async for frame in session.receive_response(prompt):
        if isinstance(frame, ResultMessage):
            result = frame
    assert result is not None  # receive_response ends with the result, or raises
    if result.is_error:
        raise ResultError(result=result)
    return result.text

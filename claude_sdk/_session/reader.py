"""The reader: the one task that reads the CLI's stdout and acts on what the protocol says.

``receive_lines`` -> ``Protocol.receive_lines`` -> events. Messages are already queued by the
protocol: the reader wakes the consumers once per batch. An `Answer` resolves its waiter; an
`InboundRequest` goes to an inbound worker and the reader lets it run before it reads again
(the answer goes out first, and the read that finds the pipe empty, and the wait it starts,
happen while the CLI works); a `Withdrawn` cancels that handler; `TurnEnded` and
`StateChanged` wake whoever waits for ``idle``; `StreamFailed` fails the session and closes
stdin (the rest of stdout is drained). At the end of stdout the exit status is learned
(bounded by ``shutdown_grace``) and the protocol decides what it means.

The reader never waits for a consumer: the message queue is unbounded on purpose, so
interrupts and callbacks work while nobody reads.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import anyio

from .._protocol.events import (
    Answer,
    Ended,
    Mirrored,
    StateChanged,
    StreamFailed,
    TurnEnded,
    Withdrawn,
)
from .._structured import flag as flag_structured
from ..messages import AssistantMessage, ResultMessage, ToolResultBlock, ToolUseBlock, UserMessage
from .serving import Serving
from .warmup import warm_up

if TYPE_CHECKING:
    from ..telemetry import Telemetry
    from .core import SessionCore
    from .inbound import InboundWorkers

__all__ = ["run_reader"]

logger = logging.getLogger("claude_sdk.session")


async def run_reader(core: SessionCore, workers: InboundWorkers) -> None:
    """Read until the end of stdout (see the module docstring)."""
    conn = core.conn
    protocol = core.protocol
    receive = protocol.receive_lines
    messages = protocol.messages
    telemetry = core.telemetry if core.telemetry.enabled else None
    checkpoint = core.primitives.checkpoint
    warm_up()  # the CLI is starting: generate the first frames' decoders meanwhile
    try:
        while True:
            try:
                lines = await conn.receive_lines()
            except anyio.EndOfStream:
                break
            received = conn.last_received
            protocol.activity(received if received is not None else anyio.current_time())
            if telemetry is not None:
                before = len(messages)
            events = receive(lines)
            if protocol.delivered:
                protocol.delivered = False
                if telemetry is not None:
                    for frame in protocol.frames_added(before):
                        _trace(telemetry, frame)
                core.wake_consumers()
            if not events:
                continue
            handed: Any = None  # the last request handed to a worker
            for event in events:
                cls = event.__class__
                if cls is Serving:  # the protocol's records of the CLI's requests
                    workers.hand(event)
                    handed = event
                elif cls is Answer:
                    core.resolve(event.request_id, event.value, event.error)
                elif cls is Withdrawn:
                    workers.withdraw(event.request)
                elif cls is TurnEnded or cls is StateChanged:
                    core.wake_idle()
                    if cls is TurnEnded:
                        if core.on_result is not None:
                            try:
                                core.on_result(event.result)
                            except Exception:  # accounting must never end the session
                                logger.exception("the result hook failed")
                        if core.options.output_schema is not None:
                            # Before any consumer runs: the result it gets is flagged.
                            flag_structured(event.result, core.options)
                        if core.mirror is not None:
                            core.mirror.flush_soon()
                elif cls is Mirrored:
                    if core.mirror is not None:
                        core.mirror.enqueue(event.file_path, event.entries, event.size)
                elif cls is StreamFailed:
                    # Ends the session: the consumer and every waiter get the error; stdin
                    # closes and the rest of stdout is drained.
                    core.fail(event.error)
                    await core.close_stdin()
            if handed is not None:
                # Let the handler just handed a request run (to its answer, or to its first
                # wait) before reading again. A checkpoint or two: Trio runs a batch of
                # ready tasks in a random order.
                for _ in range(3):
                    await checkpoint()
                    if handed.started:
                        break
        await _at_end_of_stdout(core)
    except Exception as exc:  # a bug of ours must fail the session, not hang it
        logger.exception("the session reader failed")
        core.fail(exc)
    finally:
        core.reader_done.set()
        core.wake_consumers()
        core.wake_idle()


async def _at_end_of_stdout(core: SessionCore) -> None:
    conn = core.conn
    rc = conn.returncode
    if core.protocol.failure is None:
        # Even when the exit status is known already: `wait` also waits (bounded) until
        # stderr is drained, and the error must carry the CLI's last words.
        with anyio.move_on_after(core.options.shutdown_grace):
            rc = await conn.wait()
        rc = conn.returncode if rc is None else rc
    events = core.protocol.receive_eof(
        rc,
        stderr_tail=conn.stderr_tail,
        cli_path=conn.cli_path,
        exit_error=conn.exit_error(),
    )
    for event in events:
        if event.__class__ is Answer:
            core.resolve(event.request_id, None, event.error)
        elif event.__class__ is Ended and event.error is not None:
            core.fail(event.error)


def _trace(telemetry: Telemetry, frame: Any) -> None:
    """Start a tool span at a tool call, end it at the tool's result, close the turn's span."""
    cls = frame.__class__
    if cls is AssistantMessage:
        for block in frame.message.content:
            if isinstance(block, ToolUseBlock):
                telemetry.tool_started(block.id, block.name)
    elif cls is UserMessage and not isinstance(frame.message.content, str):
        for block in frame.message.content:
            if isinstance(block, ToolResultBlock):
                telemetry.tool_ended(block.tool_use_id, block.is_error)
    elif cls is ResultMessage:
        telemetry.turn_ended(
            subtype=frame.subtype,
            is_error=frame.is_error,
            num_turns=frame.num_turns,
            duration_ms=frame.duration_ms,
            total_cost_usd=frame.total_cost_usd,
            session_id=frame.session_id,
        )

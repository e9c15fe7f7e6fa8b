"""Durable human-in-the-loop: the model's question suspends the session, not the process.

The first process asks; when the model asks the user (``AskUserQuestion``), the session is
suspended: the question is kept in the session store, the turn ends cleanly, and the process
exits. A second process (here started by the first; in real life hours later, on any
machine that reaches the store) reads the question and answers it: the session resumes and
the model goes on with the answer and the whole conversation.

Run: ``python examples/human_in_the_loop.py`` (needs a logged-in Claude Code CLI). It keeps
its store in ``./hitl-store``. ``python examples/human_in_the_loop.py answer SESSION_ID``
answers a session suspended earlier.
"""

from __future__ import annotations

import subprocess
import sys

import anyio

import claude_sdk as cs
from claude_sdk.stores import DirectoryStore

STORE = "hitl-store"


def options() -> cs.Options:
    # Both processes: the same store, and questions go to a person.
    return cs.Options(
        session_store=DirectoryStore(STORE),
        can_use_tool=cs.suspend_for_a_person,
    )


async def ask() -> str | None:
    reply = await cs.ask(
        "I want a new landing page. Ask me which colour scheme I want (use the "
        "AskUserQuestion tool), then say in one line what you will do.",
        options=options(),
    )
    pending = reply.suspended
    if pending is None:
        print(f"no question was asked: {reply.text}")
        return None
    print(f"suspended on a {pending.kind}; session {pending.session_id}")
    return pending.session_id


async def answer(session_id: str) -> None:
    pending = await cs.pending_question(session_id, options=options())
    if pending is None:
        print("nothing to answer")
        return
    question = pending.questions[0]
    labels = [option.label for option in question.options]
    print(f"the model asks: {question.question} {labels}")
    choice = labels[0]  # a person would choose here
    reply = await cs.answer(session_id, {question.question: choice}, options=options())
    print(f"answered {choice!r}; the model: {reply.text}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["answer"]:
        anyio.run(answer, sys.argv[2])
    else:
        suspended = anyio.run(ask)
        if suspended is not None:
            # Nothing waits: the question is in the store. Another process answers it.
            answering = [sys.executable, __file__, "answer", suspended]
            subprocess.run(answering, check=True)

"""Usage and cost by agent: the main agent, each subagent, and what cannot be split.

``reply.usage_by_agent`` (or ``claude_sdk.usage_by_agent(messages)``, or a ``UsageTracker``
fed a session's messages) splits a turn's tokens and cost between the main agent and each
subagent (by the Agent call that started it, with its type; a subagent that a subagent
started has its own row, with its ``depth`` and ``parent_id``), with an explicit
``unattributed`` share for what the CLI's figures cannot place; the shares add up to the
CLI's totals, per model and kind of token, and their costs to the turn's cost.

Run: ``python examples/usage_by_agent.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs


async def allow(name: str, tool_input: dict[str, object], ctx: object) -> cs.PermissionResult:
    return cs.PermissionAllow()


def line(agent: cs.AgentUsage) -> str:
    tokens = agent.tokens
    name = "  " * max((agent.depth or 0) - 1, 0) + (agent.agent_type or "unknown")
    if agent.description:
        name += f" ({agent.description})"
    return (
        f"{name + ':':<30} {tokens.input_tokens:>7} in {tokens.output_tokens:>5} out "
        f"${agent.cost_usd:.5f} {agent.cost_basis:<12} {', '.join(agent.models) or '-'}"
    )


async def main() -> None:
    reply = await cs.ask(
        "Use a general-purpose subagent that itself uses a subagent to list the files "
        "here, then sum up what it found.",
        # a nested subagent's requests reach the host (and its row) only with this
        options=cs.Options(can_use_tool=allow, forward_subagent_text=True),
    )
    report = reply.usage_by_agent
    for agent in report.agents:  # main, each subagent, unattributed
        print(line(agent))
    print(line(report.total))
    for note in report.notes:
        print("note:", note)
    shares = sum(a.tokens.total for a in report.agents)
    print(f"tokens: {report.total.tokens.total} in the totals = the shares' {shares}")
    cost = sum(a.cost_usd for a in report.agents)
    print(f"cost: ${report.total.cost_usd:.5f} for the turn = the shares' ${cost:.5f}")
    print(f"the result's total_cost_usd (cumulative for the process): ${reply.total_cost_usd}")


if __name__ == "__main__":
    anyio.run(main)

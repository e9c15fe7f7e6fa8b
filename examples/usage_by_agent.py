"""Usage and cost by agent: the main agent, each subagent, and what cannot be split.

``reply.usage_by_agent`` (or ``claude_sdk.usage_by_agent(messages)``, or a ``UsageTracker``
fed a session's messages) splits a turn's tokens and cost between the main agent and each
subagent (by the Agent call that started it, with its type), with an explicit
``unattributed`` share for what the CLI's figures cannot place; the shares add up to the
CLI's totals, per model and kind of token.

Run: ``python examples/usage_by_agent.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs


async def allow(name: str, tool_input: dict[str, object], ctx: object) -> cs.PermissionResult:
    return cs.PermissionAllow()


async def main() -> None:
    reply = await cs.ask(
        "Use a general-purpose subagent to list the files here, then sum up what it found.",
        options=cs.Options(can_use_tool=allow),
    )
    report = reply.usage_by_agent
    for agent in report.agents:
        tokens = agent.tokens
        print(
            f"{agent.agent_type or 'unknown':>16}: {tokens.input_tokens:>6} in, "
            f"{tokens.output_tokens:>4} out, ${agent.cost_usd:.4f} ({agent.cost_basis})"
        )
    total = report.total
    shares = sum(a.tokens.total for a in report.agents)
    print(f"{'total':>16}: {total.tokens.total} tokens = the shares' {shares}")
    print(f"cost ${total.cost_usd:.4f} = the result's ${reply.result.total_cost_usd:.4f}")


if __name__ == "__main__":
    anyio.run(main)

"""Run the Claude Code CLI on another machine, over SSH.

`SSHTransport` drives the OpenSSH ``ssh`` client (so this works on asyncio and Trio alike)
with ``BatchMode=yes``: key-based login only, never a prompt. ``Options.cli_path``, ``cwd``
and ``env`` then describe the **remote** side; they travel on the session's stdin, never on a
command line, so an API key passed in ``env`` does not show in ``ps`` on either machine.
When the session ends, or the connection drops, a small wrapper on the remote side stops the
CLI and everything it started.

What the remote host needs: the Claude Code CLI (on ``PATH``, or pass ``--cli``), Python
3.6 or later (``python3``; the wrapper is written in it), and a login (or an
``ANTHROPIC_API_KEY`` in your environment, which is passed on). Its host key must be in
your ``known_hosts`` (or pass ``--accept-new`` to record it on first contact).

Run: ``python examples/remote_ssh.py HOST [--user USER] [--port PORT] [--identity KEY]
[--cli REMOTE_PATH] [--cwd REMOTE_DIR] [--accept-new] [PROMPT]``
"""

from __future__ import annotations

import argparse
import os
import sys

import anyio

import claude_sdk as cs
from claude_sdk.transports import SSHTransport

HINTS = {
    "ssh_auth": "check the user and key: `ssh -o BatchMode=yes HOST true` must work",
    "ssh_unreachable": "check the host name, the port and the network",
    "ssh_host_key": "the host key is unknown or changed: check it, or pass --accept-new",
    "spawn": "the remote side could not start the CLI (see the message above)",
}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Ask Claude Code on a remote host.")
    parser.add_argument("host", help="host name, address or ssh config alias")
    parser.add_argument("prompt", nargs="?", default="What machine are you running on?")
    parser.add_argument("--user", help="login user")
    parser.add_argument("--port", type=int, help="ssh port")
    parser.add_argument("--identity", help="private key file")
    parser.add_argument("--cli", help="path of the CLI on the remote host (default: PATH)")
    parser.add_argument("--cwd", help="working directory on the remote host")
    parser.add_argument("--accept-new", action="store_true", help="record an unknown host key")
    return parser.parse_intermixed_args()


async def main(args: argparse.Namespace) -> int:
    transport = SSHTransport(
        args.host,
        user=args.user,
        port=args.port,
        identity_file=args.identity,
        strict_host_key_checking="accept-new" if args.accept_new else "yes",
        connect_timeout=10,
    )
    key = os.environ.get("ANTHROPIC_API_KEY")
    options = cs.Options(
        cli_path=args.cli,  # a remote path; None: `claude` on the remote PATH
        cwd=args.cwd,  # a remote directory
        env={"ANTHROPIC_API_KEY": key} if key else {},  # set on the remote side
        max_turns=1,
    )
    try:
        async with cs.open_session(options, transport=transport) as session:
            info = session.server_info
            print(f"[{transport.describe()}] CLI {info.claude_code_version}, remote pid {info.pid}")
            await session.send(args.prompt)
            async for message in session.receive_response():
                if isinstance(message, cs.AssistantMessage) and message.text:
                    print(message.text)
                elif isinstance(message, cs.ResultMessage):
                    print(f"({message.subtype}, cost ${message.total_cost_usd or 0:.4f})")
    except cs.CLINotFoundError as exc:
        print(exc, file=sys.stderr)
        print("hint: install the CLI there, or pass --cli with its remote path", file=sys.stderr)
        return 1
    except cs.ProcessError as exc:  # exc.kind says which: ssh_auth, ssh_unreachable, ...
        print(exc, file=sys.stderr)
        hint = HINTS.get(exc.kind or "")
        if hint:
            print(f"hint: {hint}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, parse_args()))

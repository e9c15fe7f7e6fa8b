"""The control surface: typed requests that need no model turn.

One session, in a scratch project directory, drives the CLI through its control requests:

* ``mcp_call`` runs a tool of an MCP server the CLI started (a small stdio server written
  here), ``mcp_read_resource`` reads its ``ui://`` widget, and
  ``set_mcp_permission_mode_override`` pins its permission mode. A tool that fails is a
  ``ControlRequestError`` with the CLI's message, or, on a CLI that lists the capability
  ``mcp_call_soft_error_result_v1``, the tool's own error result (``soft_error_result``).
* ``update_settings`` writes ``.claude/settings.local.json`` through the CLI's own writer;
  ``reload_output_styles`` picks up a style file written while the session runs;
  ``get_hooks_listing`` shows what ``/hooks`` would list; ``register_repo_root`` adds a
  working-directory root; ``background_tasks`` (nothing runs: an empty receipt).
* ``reinitialize`` sends ``initialize`` again (same hooks, same ids) and refreshes
  ``session.server_info``.
* ``debug="mcp"`` puts the CLI's MCP debug log on its stderr, where ``Options.stderr`` sees it.

No model turn is needed: nothing here is sent to the API.

Run: ``python examples/control_surface.py`` (needs the CLI and the ``mcp`` package:
``pip install 'claude-sdk-py[mcp]'``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import anyio

import claude_sdk as cs

SOFT_ERRORS = "mcp_call_soft_error_result_v1"

SERVER = '''
from mcp.server.mcpserver import MCPServer

app = MCPServer("calc")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@app.tool()
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


@app.resource("ui://calc/panel", mime_type="text/html")
def panel() -> str:
    return "<button>=</button>"


if __name__ == "__main__":
    app.run()
'''


async def main() -> None:
    with tempfile.TemporaryDirectory(prefix="control-surface-") as tmp:
        project = Path(tmp)
        (project / "packages" / "core").mkdir(parents=True)
        (project / "calc_server.py").write_text(SERVER)
        debug_lines: list[str] = []
        options = cs.Options(
            cwd=str(project),
            mcp_servers={
                "calc": cs.McpStdioServer(command=sys.executable, args=["calc_server.py"])
            },
            debug="mcp",  # the CLI's MCP debug log, on its stderr
            stderr=debug_lines.append,
        )
        async with cs.open_session(options) as session:
            info = session.server_info
            print(f"CLI {info.claude_code_version}, capabilities: {len(info.capabilities or [])}")

            # -- MCP without a model turn
            total = await session.mcp_call("mcp__calc__add", {"a": 2, "b": 3})
            print(f"mcp_call add(2, 3): {total.structured_content}")
            try:
                await session.mcp_call("mcp__calc__divide", {"a": 1, "b": 0})
            except cs.ControlRequestError as exc:
                print(f"mcp_call divide(1, 0) failed: {exc.error}")
            if info.supports(SOFT_ERRORS):
                soft = await session.mcp_call(
                    "mcp__calc__divide", {"a": 1, "b": 0}, soft_error_result=True
                )
                print(f"  as a result (soft_error_result): is_error={soft.is_error}")
            else:
                print(f"  (this CLI does not list {SOFT_ERRORS}: no soft error results)")
            widget = await session.mcp_read_resource("calc", "ui://calc/panel")
            for item in widget.contents or []:
                print(f"mcp_read_resource: {item.uri} ({item.mime_type}): {item.text}")
            pinned = await session.set_mcp_permission_mode_override("calc", "default")
            print(f"calc pinned to 'default' (warning: {pinned.warning})")

            # -- settings, output styles, hooks, roots, tasks
            await session.update_settings("localSettings", {"outputStyle": "Explanatory"})
            written = await anyio.Path(project, ".claude", "settings.local.json").read_text()
            print(f"settings.local.json: {' '.join(written.split())}")
            styles_dir = anyio.Path(info.user_output_styles_dir or project / "styles")
            await styles_dir.mkdir(parents=True, exist_ok=True)
            await (styles_dir / "terse.md").write_text(
                "---\nname: Terse\ndescription: Short answers\n---\n\nAnswer in one line.\n"
            )
            styles = await session.reload_output_styles()
            print(f"output styles: {', '.join(styles.available_output_styles or [])}")
            listing = await session.get_hooks_listing()
            print(
                f"hooks listed: {len(listing.hooks or [])}; "
                f"events known: {len(listing.event_catalog or [])}"
            )
            root = await session.register_repo_root(str(project / "packages" / "core"))
            print(f"registered root: {Path(root.directory).name}")
            receipt = await session.background_tasks()
            print(f"background_tasks: backgrounded={receipt.backgrounded}")

            # -- a fresh initialize answer
            fresh = await session.reinitialize()
            print(f"reinitialized: same CLI process: {fresh.pid == info.pid}")
        mcp_lines = [line for line in debug_lines if "[DEBUG]" in line]
        print(f"debug lines on stderr: {'yes' if mcp_lines else 'none'}")


if __name__ == "__main__":
    anyio.run(main)

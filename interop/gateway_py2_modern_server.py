"""A MODERN-ONLY backend for the era gateway, written with the Python SDK's
MCPServer (mcp==2.3.0, pinned by interop/install-peers.sh): it speaks
2026-07-28 only and refuses the legacy `initialize` handshake.

    python gateway_py2_modern_server.py stdio
    python gateway_py2_modern_server.py http PORT  # Streamable HTTP on 127.0.0.1:PORT/mcp

The SDK serves both eras by default (the client's first request picks the
era of a stdio connection; the `MCP-Protocol-Version` header that of an HTTP
request) and has no public switch for one era only, so this file wires its
modern entry points directly:
  - stdio: the SDK's modern stream loop (`mcp.server.runner._serve_modern_stream`),
    which answers `initialize` with -32022 naming the modern versions;
  - HTTP: every request goes to the SDK's modern single-exchange handler
    (`mcp.server._streamable_http_modern.handle_modern_request`), which
    refuses a request without the per-request `_meta` (-32602, HTTP 400) and
    answers a GET with 405, so no legacy session is ever made.

What interop/gateway-legacy.sh reaches through the gateway:
  - `add(a, b)`: a plain tool;
  - `ask_color()`: asks the client for `{"color": str}` by elicitation (an
    MRTR `input_required` round: the SDK's `Resolve(Elicit(...))`) and
    returns `color=<answer>`;
  - `register_tool(name)`: registers a tool NAME (it echoes its argument)
    and publishes a tools list change (delivered on `subscriptions/listen`);
  - the resource `py2://notes/readme` and the prompt `review(code)`.
"""

import sys
from typing import Annotated

import anyio
from pydantic import BaseModel, Field

from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve

server = MCPServer(
    "gateway-py2-modern",
    version="2.3.0",
    instructions="MCPServer (mcp 2.3.0), modern-only, backend for the era gateway's legacy-client tests.",
)


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return f"{a + b}"


class Color(BaseModel):
    color: str = Field(description="Your favourite colour")


def ask_for_color() -> Elicit[Color]:
    return Elicit("Which colour?", Color)


@server.tool()
def ask_color(answer: Annotated[Color, Resolve(ask_for_color)]) -> str:
    """Ask the user for a colour by elicitation (an MRTR round) and return it."""
    return f"color={answer.color}"


@server.tool()
async def register_tool(name: str, ctx: Context) -> str:
    """Register a tool NAME (it echoes its argument) and announce the list change."""

    def echo(text: str) -> str:
        return f"{name}: {text}"

    server.add_tool(echo, name=name, description=f"Registered at run time as {name}.")
    await ctx.notify_tools_changed()
    return f"registered {name}"


@server.resource("py2://notes/readme", mime_type="text/plain")
def readme() -> str:
    """A fixed text resource."""
    return "gateway-py2 readme: served by MCPServer 2.x, modern only"


@server.prompt()
def review(code: str) -> str:
    """Ask for a review of CODE."""
    return f"Please review this code: {code}"


async def serve_stdio() -> None:
    from mcp.server.runner import _serve_modern_stream
    from mcp.server.stdio import stdio_server

    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        async with lowlevel.lifespan(lowlevel) as state:
            try:
                await _serve_modern_stream(lowlevel, read_stream, write_stream, lifespan_state=state, raise_exceptions=False)
            finally:
                await write_stream.aclose()


def serve_http(port: int) -> None:
    import uvicorn

    from mcp.server._streamable_http_modern import handle_modern_request

    app = server.streamable_http_app(host="127.0.0.1")
    manager = server._lowlevel_server.session_manager

    async def modern_only(scope, receive, send):
        await handle_modern_request(
            manager.app, manager.security_settings, manager.json_response, manager._lifespan_state, scope, receive, send
        )

    manager.asgi_app = modern_only
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "http":
        serve_http(int(sys.argv[2]))
    else:
        anyio.run(serve_stdio)

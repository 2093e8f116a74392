"""A legacy-only backend for the era gateway, written with the Python SDK's
1.x FastMCP API (mcp==1.30.0, pinned by interop/install-peers.sh; the 1.x
SDK speaks 2025-11-25 and earlier, never 2026-07-28).

    python gateway_py1_server.py stdio
    python gateway_py1_server.py http PORT     # Streamable HTTP on 127.0.0.1:PORT/mcp

What interop/gateway.sh reaches through the gateway:
  - `add(a, b)`: a plain tool;
  - `ask_color()`: elicits `{"color": str}` from the client (elicitation/create
    during the call) and returns what came back, or how it was refused;
  - `summarize(text)`: asks the client's model (sampling/createMessage
    during the call) and returns its text;
  - `register_tool(name)`: registers a new tool and sends
    notifications/tools/list_changed in the calling session;
  - `ask_twice()`: elicits twice in one call (a colour, then whether to go on);
  - `count(n)`: reports progress N times, then answers at once (so the last
    progress and the result leave the server back to back);
  - the resource `py1://notes/readme` and the prompt `review(code)`;
  - the template `py1://colors/{who}`, which elicits during resources/read,
    and the prompt `haiku(topic)`, which samples during prompts/get.
"""

import sys

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.lowlevel.server import NotificationOptions
from mcp.types import SamplingMessage, TextContent
from pydantic import BaseModel, Field

server = FastMCP("gateway-py1", instructions="FastMCP (mcp 1.x) backend for the era gateway's interop tests.")

# FastMCP declares `tools.listChanged: false`; this server does announce
# tool list changes (register_tool), so it says so at initialize, through the
# low-level server FastMCP wraps (both transports ask it for these options).
_lowlevel_options = server._mcp_server.create_initialization_options
server._mcp_server.create_initialization_options = lambda notification_options=None, **kw: _lowlevel_options(
    notification_options or NotificationOptions(tools_changed=True), **kw
)


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return f"{a + b}"


class Color(BaseModel):
    color: str = Field(description="Your favourite colour")


@server.tool()
async def ask_color(ctx: Context) -> str:
    """Ask the user for a colour by elicitation and return the answer."""
    result = await ctx.elicit(message="Which colour?", schema=Color)
    if result.action == "accept":
        return f"color={result.data.color}"
    return f"elicitation {result.action}"


class GoOn(BaseModel):
    go_on: bool = Field(description="Go on?")


@server.tool()
async def ask_twice(ctx: Context) -> str:
    """Elicit twice in one call: a colour, then whether to go on."""
    first = await ctx.elicit(message="Which colour?", schema=Color)
    color = first.data.color if first.action == "accept" else first.action
    second = await ctx.elicit(message="Shall I go on?", schema=GoOn)
    go_on = second.data.go_on if second.action == "accept" else second.action
    return f"color={color}; go on: {go_on}"


@server.tool()
async def count(n: int, ctx: Context) -> str:
    """Report progress N times, then answer."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i} of {n}")
    return f"counted to {n}"


# Sampling goes through the session, which sends a request on the call's own
# stream only when told which call it belongs to (`ctx.elicit` does that by
# itself). Over Streamable HTTP a request without it goes on the GET stream,
# where it names no call: the spec says such requests SHOULD come on the
# call's stream, and a gateway whose calls run side by side cannot tell whose
# client to ask.
@server.tool()
async def summarize(text: str, ctx: Context) -> str:
    """Ask the client's model to summarize TEXT (sampling) and return its answer."""
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))],
        max_tokens=50,
        related_request_id=ctx.request_id,
    )
    content = result.content
    return f"model {result.model} said: {content.text if isinstance(content, TextContent) else content}"


@server.tool()
async def register_tool(name: str, ctx: Context) -> str:
    """Register a tool NAME (it echoes its argument) and announce the list change."""

    def echo(text: str) -> str:
        return f"{name}: {text}"

    server.add_tool(echo, name=name, description=f"Registered at run time as {name}.")
    await ctx.session.send_tool_list_changed()
    return f"registered {name}"


@server.resource("py1://notes/readme", mime_type="text/plain")
def readme() -> str:
    """A fixed text resource."""
    return "gateway-py1 readme: served by FastMCP 1.x"


@server.resource("py1://colors/{who}", mime_type="text/plain")
async def favourite_color(who: str, ctx: Context) -> str:
    """WHO's colour, asked of the client by elicitation during the read."""
    result = await ctx.elicit(message=f"Which colour does {who} like?", schema=Color)
    return f"{who} likes {result.data.color}" if result.action == "accept" else f"elicitation {result.action}"


@server.prompt()
def review(code: str) -> str:
    """Ask for a review of CODE."""
    return f"Please review this code: {code}"


@server.prompt()
async def haiku(topic: str, ctx: Context) -> str:
    """A prompt whose text the client's model writes (sampling during prompts/get)."""
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=f"A haiku about {topic}"))],
        max_tokens=50,
        related_request_id=ctx.request_id,
    )
    content = result.content
    return f"Improve this haiku: {content.text if isinstance(content, TextContent) else content}"


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "http":
        server.settings.host = "127.0.0.1"
        server.settings.port = int(sys.argv[2])
        server.run("streamable-http")
    else:
        server.run("stdio")

"""A tiny dual-era server built on the Python SDK's MCPServer (mcp==2.3.0),
used by interop/client-peers.sh to test our client against someone else's
server.

    python python_mcpserver.py stdio
    python python_mcpserver.py http PORT
"""

import sys
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Elicit, MCPServer, Resolve

server = MCPServer("py-interop", version="2.3.0", instructions="Python SDK MCPServer used for interop tests.")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return f"{a + b}"


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@server.tool()
def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Greet the user, asking their name by elicitation (MRTR in 2026-07-28,
    a real elicitation/create request in 2025-11-25)."""
    return f"Hello, {who.name}!"


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "http":
        port = int(sys.argv[2]) if len(sys.argv) > 2 else 8000
        server.run("streamable-http", host="127.0.0.1", port=port)
    else:
        server.run("stdio")

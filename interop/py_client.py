"""Drive mcp-everything with the Python SDK client (mcp==2.3.0).

usage: py_client.py MODE TARGET...
  MODE    auto | 2026-07-28 | legacy
  TARGET  an http(s):// URL, or a command line to start over stdio

Connects, prints the era and version, lists the tools and calls
test_simple_text. Exits 0 when the result text is the expected one and the
negotiated version matches the mode (legacy -> 2025-*, otherwise 2026-07-28).
"""
import asyncio
import sys

from mcp import Client, StdioServerParameters

EXPECTED_TEXT = "This is a simple text response for testing."


async def main(mode, target):
    server = target[0] if target[0].startswith("http") else StdioServerParameters(command=target[0], args=target[1:])
    async with Client(server, mode=mode, read_timeout_seconds=10) as client:
        version = client.protocol_version
        era = "legacy" if str(version).startswith("2025") or str(version).startswith("2024") else "modern"
        info = client.server_info
        print(f"mode={mode} era={era} version={version} server={getattr(info, 'name', info)}")
        tools = [t.name for t in (await client.list_tools()).tools]
        print(f"tools={len(tools)} first={tools[0] if tools else None}")
        result = await client.call_tool("test_simple_text", {})
        text = result.content[0].text if result.content else None
        print(f"call test_simple_text -> {text!r}")
        want_era = "legacy" if mode == "legacy" else "modern"
        ok = text == EXPECTED_TEXT and era == want_era and "test_simple_text" in tools
        print("OK" if ok else "FAIL")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2:])))

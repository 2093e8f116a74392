"""The Python SDK client (mcp==2.3.0), pinned to 2026-07-28, in front of the
era gateway serving three backends as one (interop/gateway-compose.sh):
`everything` (mcp-everything, modern), `fs` (server-filesystem, legacy over
stdio, its write_* tools excluded) and `py1` (gateway_py1_server.py, legacy
over HTTP), under their prefixes, in pages of PAGE_SIZE.

usage: gateway_compose_client.py URL DIR FILE PAGE_SIZE
  DIR, FILE  a directory server-filesystem allows, a file inside it

Prints one line per check, `ok NAME DETAIL` or `fail NAME DETAIL`; exits 1
when any failed:
  - tools listed page by page: every page but the last full, each page's
    names after the previous page's, no name twice; each backend's tools
    under its prefix, the excluded ones absent;
  - one call per backend, its result checked (a fresh sum, the file listed,
    the fixture's text);
  - the excluded tool called anyway: refused as an unknown tool.
"""

import secrets
import sys

import anyio
import mcp.types as types
from mcp import Client

STEP = 20  # seconds per step
failures = 0


def report(name, ok, detail=""):
    global failures
    if not ok:
        failures += 1
    print(f"{'ok' if ok else 'fail'} {name} {detail}".rstrip(), flush=True)


def text_of(result):
    return " ".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def pages(client, page_size):
    names, sizes, cursor = [], [], None
    while True:
        with anyio.fail_after(STEP):
            result = await client.list_tools(cursor=cursor, cache_mode="bypass")
        page = [tool.name for tool in result.tools]
        in_order = not names or not page or page[0] > names[-1]
        if page != sorted(page) or not in_order:
            report("tools-pages-ordered", False, f"page {len(sizes) + 1}: {page[:3]}...")
        names += page
        sizes.append(len(page))
        cursor = result.next_cursor
        if cursor is None:
            return names, sizes


async def main(url, directory, file, page_size):
    page_size = int(page_size)
    try:
        async with Client(url, mode="2026-07-28", read_timeout_seconds=STEP) as client:
            report("modern-era", client.protocol_version == "2026-07-28", client.protocol_version)
            names, sizes = await pages(client, page_size)
            full = all(size == page_size for size in sizes[:-1]) and 0 < sizes[-1] <= page_size
            report("tools-pages", len(sizes) >= 2 and full, f"{len(names)} tools in pages of {sizes}")
            report("tools-unique", len(set(names)) == len(names), f"{len(names) - len(set(names))} twice")
            for prefix, wanted in [
                ("everything__", "everything__test_simple_text"),
                ("fs__", "fs__list_directory"),
                ("py1__", "py1__add"),
            ]:
                mine = [n for n in names if n.startswith(prefix)]
                report(f"tools-of-{prefix[:-2]}", wanted in mine, f"{len(mine)} tools, {wanted} among them")
            unprefixed = [n for n in names if "__" not in n]
            report("tools-all-prefixed", not unprefixed, f"unprefixed: {unprefixed[:5]}")
            report("tools-filtered", not any(n.startswith("fs__write_") for n in names), "no fs__write_*")

            a, b = secrets.randbelow(1000), secrets.randbelow(1000)
            with anyio.fail_after(STEP):
                result = await client.call_tool("py1__add", {"a": a, "b": b})
            report("call-py1", text_of(result) == str(a + b), f"{a}+{b} -> {text_of(result)}")
            with anyio.fail_after(STEP):
                result = await client.call_tool("fs__list_directory", {"path": directory})
            report("call-fs", file in text_of(result), text_of(result)[:80])
            with anyio.fail_after(STEP):
                result = await client.call_tool("everything__test_simple_text", {})
            report("call-everything", bool(text_of(result)) and not result.is_error, text_of(result)[:80])

            try:
                with anyio.fail_after(STEP):
                    result = await client.call_tool("fs__write_file", {"path": f"{directory}/x", "content": "x"})
                report("call-filtered", False, f"answered: {text_of(result)[:80]}")
            except Exception as e:  # the JSON-RPC error the SDK raises
                report("call-filtered", "Unknown tool: fs__write_file" in str(e), f"{type(e).__name__}: {e}")
    except Exception as e:
        report("client", False, f"{type(e).__name__}: {e}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, *sys.argv[1:5]))

"""A client listening for tool list changes at the era gateway's composed
front (interop/gateway-compose.sh), while the script kills one backend:
the Python SDK 2.3.0 pinned to 2026-07-28 (`subscriptions/listen`), or
the Python SDK 1.x in 2025-11-25 (its session's notification stream).

usage: gateway_compose_watch.py modern|legacy URL PREFIX

Prints `listening` once it listens, then for each
`notifications/tools/list_changed` the tools it lists after it, all pages:
`event N PREFIX=K total=T` (K of them under PREFIX), and `done` once a
listing after one without PREFIX's tools has them again; gives up after
WATCH seconds (60). Errors are printed as `error DETAIL`.
"""

import sys

import anyio

WATCH = 60
STEP = 20


class Watch:
    def __init__(self, prefix):
        self.prefix = prefix
        self.events = 0
        self.lost = False

    def seen(self, names):
        """Reports the listing after an event; whether the watch is over."""
        self.events += 1
        mine = sum(1 for name in names if name.startswith(self.prefix))
        print(f"event {self.events} {self.prefix}={mine} total={len(names)}", flush=True)
        if mine == 0:
            self.lost = True
        return self.lost and mine > 0


async def names_of(list_page):
    names, cursor = [], None
    while True:
        with anyio.fail_after(STEP):
            result = await list_page(cursor)
        names += [tool.name for tool in result.tools]
        cursor = result.nextCursor if hasattr(result, "nextCursor") else result.next_cursor
        if cursor is None:
            return names


async def modern(url, watch):
    from mcp import Client

    async with Client(url, mode="2026-07-28", read_timeout_seconds=STEP) as client:
        async with client.listen(tools_list_changed=True) as subscription:
            print("listening", flush=True)
            async for _ in subscription:
                names = await names_of(lambda cursor: client.list_tools(cursor=cursor, cache_mode="bypass"))
                if watch.seen(names):
                    return


async def legacy(url, watch):
    import mcp.types as types
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    changed = anyio.Event()
    counts = {"changes": 0}

    async def message(message):
        if isinstance(message, types.ServerNotification) and message.root.method == "notifications/tools/list_changed":
            counts["changes"] += 1
            changed.set()

    async with streamable_http_client(url) as (read, write, _):
        async with ClientSession(read, write, message_handler=message) as session:
            with anyio.fail_after(STEP):
                await session.initialize()
            # The session's notification stream is open once a request went
            # through it.
            await names_of(lambda cursor: session.list_tools(cursor=cursor))
            print("listening", flush=True)
            handled = 0
            while True:
                await changed.wait()
                changed = anyio.Event()
                if counts["changes"] == handled:
                    continue
                handled = counts["changes"]
                names = await names_of(lambda cursor: session.list_tools(cursor=cursor))
                if watch.seen(names):
                    return


async def main(era, url, prefix):
    watch = Watch(prefix)
    try:
        with anyio.fail_after(WATCH):
            await (modern if era == "modern" else legacy)(url, watch)
        print("done", flush=True)
        return 0
    except BaseException as e:  # a timeout is a cancellation
        print(f"error {type(e).__name__}: {e}".replace("\n", " "), flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(anyio.run(main, *sys.argv[1:4]))

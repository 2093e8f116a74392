"""A sustained mixed load against one server, its resident memory sampled:
does RSS grow while the load stays the same?

usage: python3 bench/soak.py BIN [MINUTES] [CLIENTS]   (10 minutes, 8 clients)

BIN is `mcp-everything` (release build), started here on a free loopback
port. Each client loops over a mix, every request on a new connection:
tools/call (7 in 10), tools/list, server/discover, a subscriptions/listen
stream held a moment and closed, a legacy session (initialize,
notifications/initialized, tools/call, DELETE). VmRSS is read every 30 s.
The first minute is warm-up (allocator arenas, caches); the report compares
the mean of the second minute with the mean of the last, and prints the
requests served and any answer that was not a success. Figures, not a test:
nothing here fails on a number.
"""

import asyncio
import itertools
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import idle  # noqa: E402  (the request helpers)

MODERN, LEGACY, META = idle.MODERN, idle.LEGACY, idle.META
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": MODERN}
ids = itertools.count(1)
served = {"ok": 0, "bad": 0}


def modern(method, params=None):
    body = {"jsonrpc": "2.0", "id": next(ids), "method": method,
            "params": {**(params or {}), "_meta": META}}
    headers = {**HEADERS, "Mcp-Method": method}
    if method == "tools/call":
        headers["Mcp-Name"] = body["params"]["name"]
    return headers, body


def count(answer):
    ok = answer.startswith(b"HTTP/1.1 20") and b'"error"' not in answer and b'"isError":true' not in answer
    served["ok" if ok else "bad"] += 1


async def legacy_session(port):
    init = {"jsonrpc": "2.0", "id": next(ids), "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}}}
    plain = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    answer = await idle.exchange(port, plain, init)
    count(answer)
    session = next((line.split(b":", 1)[1].strip().decode()
                    for line in answer.split(b"\r\n\r\n", 1)[0].split(b"\r\n")
                    if line.lower().startswith(b"mcp-session-id:")), None)
    if not session:
        return
    inside = {**plain, "Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY}
    await idle.exchange(port, inside, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    count(await idle.exchange(port, inside, {"jsonrpc": "2.0", "id": next(ids), "method": "tools/call",
                                             "params": {"name": "test_simple_text"}}))
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nMcp-Session-Id: {session}\r\n"
                 f"MCP-Protocol-Version: {LEGACY}\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    count(await asyncio.wait_for(reader.read(-1), 10))
    writer.close()


async def listen_briefly(port):
    writer = await idle.open_listen(port, next(ids))
    served["ok"] += 1
    await asyncio.sleep(random.uniform(0.2, 1.0))
    writer.close()


async def client(port, deadline):
    while time.monotonic() < deadline:
        pick = random.random()
        try:
            if pick < 0.7:
                count(await idle.exchange(port, *modern("tools/call", {"name": "test_simple_text"})))
            elif pick < 0.8:
                count(await idle.exchange(port, *modern("tools/list")))
            elif pick < 0.85:
                count(await idle.exchange(port, *modern("server/discover")))
            elif pick < 0.9:
                await listen_briefly(port)
            else:
                await legacy_session(port)
        except (OSError, asyncio.TimeoutError, RuntimeError):
            served["bad"] += 1


async def main(binary, minutes, clients):
    server, port = idle.start(binary)
    try:
        start = time.monotonic()
        deadline = start + minutes * 60
        load = asyncio.gather(*(client(port, deadline) for _ in range(clients)))
        samples = []
        while time.monotonic() < deadline:
            await asyncio.sleep(max(1.0, min(30.0, deadline - time.monotonic())))
            at = (time.monotonic() - start) / 60
            samples.append((at, idle.rss_kib(server.pid)))
            print(f"{at:5.1f} min  RSS {samples[-1][1]:>7} KiB  served {served['ok']:>8}  not ok {served['bad']}",
                  flush=True)
        await load

        def mean(lo, hi):
            values = [rss for (at, rss) in samples if lo <= at <= hi]
            return sum(values) / len(values) if values else float("nan")
        second, last = mean(1.0, 2.0), mean(minutes - 1.0, minutes)
        print(f"RSS mean of minute 2: {second:.0f} KiB; of the last minute: {last:.0f} KiB; "
              f"change {last - second:+.0f} KiB ({(last - second) / second * 100:+.1f} %); "
              f"{served['ok']} requests served, {served['bad']} not ok")
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.path.exists(sys.argv[1]):
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 10,
                     int(sys.argv[3]) if len(sys.argv) > 3 else 8))

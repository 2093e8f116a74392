"""What idle clients cost a running server: the resident memory of N open
`subscriptions/listen` streams and of N idle legacy sessions, per item.

usage: python3 bench/idle.py BIN [N]    (N: 2000 by default)

BIN is `mcp-everything` (release build); each case gets a server of its
own, started here on a free loopback port with limits above N, warmed up
with 50 of the same kind. The cases: N listen streams, each on its own
connection, every one acknowledged; N legacy sessions (`initialize` and
`notifications/initialized`, nothing kept open); with the `h2` package
(`pip install h2`), N listen streams over HTTP/2, 100 to a connection.
Each reads the server's VmRSS from /proc before and after (settled: the
highest of several readings a second apart). Prints one line per case:
`listen: N streams, +X KiB RSS, Y KiB each`. Memory figures, not a test:
nothing here fails on a number.
"""

import asyncio
import json
import os
import socket
import subprocess
import sys
import time

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "idle-bench", "version": "1"},
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(binary, *flags):
    """`BIN http` on a free loopback port, once it accepts connections:
    (the process, its port)."""
    port = free_port()
    server = subprocess.Popen([binary, "http", "--listen", f"127.0.0.1:{port}", *flags],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    return server, port


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def settled_rss(pid, readings=3):
    """The highest of a few readings a second apart (allocations settle)."""
    best = 0
    for _ in range(readings):
        await asyncio.sleep(1.0)
        best = max(best, rss_kib(pid))
    return best


def request(port, headers, body):
    payload = json.dumps(body).encode()
    head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {len(payload)}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return head.encode() + b"\r\n" + payload


async def open_listen(port, n):
    """A listen stream on its own connection, held open once acknowledged."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = {"jsonrpc": "2.0", "id": n, "method": "subscriptions/listen",
            "params": {"notifications": {"toolsListChanged": True}, "_meta": META}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": MODERN, "Mcp-Method": "subscriptions/listen"}
    writer.write(request(port, headers, body))
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        raise RuntimeError(f"listen: {head[:200]!r}")
    seen = b""
    while b"acknowledged" not in seen:
        chunk = await asyncio.wait_for(reader.read(4096), 10)
        if not chunk:
            raise RuntimeError("listen: closed before its acknowledgement")
        seen += chunk
    return writer


async def open_h2_listens(port, first_id, count):
    """`count` listen streams on one HTTP/2 connection (prior knowledge),
    held open once each is acknowledged; the connection's writer."""
    import h2.config
    import h2.connection
    import h2.events
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    seen = {}
    for i in range(count):
        body = json.dumps({"jsonrpc": "2.0", "id": first_id + i, "method": "subscriptions/listen",
                           "params": {"notifications": {"toolsListChanged": True}, "_meta": META}}).encode()
        stream = conn.get_next_available_stream_id()
        conn.send_headers(stream, [
            (":method", "POST"), (":scheme", "http"), (":authority", f"127.0.0.1:{port}"),
            (":path", "/mcp"), ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"), ("mcp-protocol-version", MODERN),
            ("mcp-method", "subscriptions/listen"), ("content-length", str(len(body)))])
        conn.send_data(stream, body, end_stream=True)
        seen[stream] = b""
    writer.write(conn.data_to_send())
    await writer.drain()
    while any(b"acknowledged" not in got for got in seen.values()):
        data = await asyncio.wait_for(reader.read(65536), 10)
        if not data:
            raise RuntimeError("listen over HTTP/2: the connection closed")
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                status = dict(event.headers).get(b":status")
                if status != b"200":
                    raise RuntimeError(f"listen over HTTP/2: status {status!r}")
            elif isinstance(event, h2.events.DataReceived):
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                seen[event.stream_id] += event.data
            elif isinstance(event, (h2.events.StreamReset, h2.events.ConnectionTerminated)):
                raise RuntimeError(f"listen over HTTP/2: {event}")
        writer.write(conn.data_to_send())
        await writer.drain()
    # Nothing more is read: the streams stay open, the server's frames
    # wait in the socket buffers (there are none while idle).
    return writer


async def exchange(port, headers, body):
    """One request on its own connection (closed after); the answer's head."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request(port, {**headers, "Connection": "close"}, body))
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(-1), 10)
    writer.close()
    return answer


async def open_session(port, n):
    body = {"jsonrpc": "2.0", "id": n, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": {"name": "idle-bench", "version": "1"}}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    answer = await exchange(port, headers, body)
    session = None
    for line in answer.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        if line.lower().startswith(b"mcp-session-id:"):
            session = line.split(b":", 1)[1].strip().decode()
    if not session:
        raise RuntimeError(f"initialize: {answer[:200]!r}")
    headers = {**headers, "Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY}
    await exchange(port, headers, {"jsonrpc": "2.0", "method": "notifications/initialized"})


async def in_batches(make, n, batch=100):
    held = []
    for start in range(0, n, batch):
        held += await asyncio.gather(*(make(i) for i in range(start, min(n, start + batch))))
    return held


async def listen_over_http1(pid, port, n):
    """N listen streams, each on its own HTTP/1.1 connection."""
    # Warm up: the runtime's threads and first buffers are not the streams'.
    warm = await in_batches(lambda i: open_listen(port, i), 50)
    await asyncio.sleep(0.5)
    base = await settled_rss(pid)
    streams = await in_batches(lambda i: open_listen(port, 1000 + i), n)
    held = await settled_rss(pid)
    print(f"listen: {n} streams, +{held - base} KiB RSS, {(held - base) / n:.1f} KiB each", flush=True)
    for writer in warm + streams:
        writer.close()


async def legacy_sessions(pid, port, n):
    """N idle legacy sessions, their connections closed."""
    await in_batches(lambda i: open_session(port, 100_000 + i), 50)
    base = await settled_rss(pid)
    await in_batches(lambda i: open_session(port, 200_000 + i), n)
    held = await settled_rss(pid)
    print(f"legacy sessions: {n} idle, +{held - base} KiB RSS, {(held - base) / n:.1f} KiB each", flush=True)


async def listen_over_http2(pid, port, n, per_connection=100):
    """N listen streams, `per_connection` to an HTTP/2 connection (the
    server's HTTP/2 allows 200 at once); skipped without the `h2` package
    (`pip install h2`) or a server built without HTTP/2."""
    try:
        import h2  # noqa: F401
    except ImportError:
        print("listen over HTTP/2: skipped (pip install h2)", flush=True)
        return
    try:
        warm = await open_h2_listens(port, 400_000, 50)
        await asyncio.sleep(0.5)
        base = await settled_rss(pid)
        connections = await in_batches(
            lambda c: open_h2_listens(port, 500_000 + c * per_connection,
                                      min(per_connection, n - c * per_connection)),
            (n + per_connection - 1) // per_connection, batch=10)
    except (RuntimeError, OSError, asyncio.TimeoutError) as e:
        print(f"listen over HTTP/2: not served ({e})", flush=True)
        return
    held = await settled_rss(pid)
    print(f"listen over HTTP/2: {n} streams on {len(connections)} connections, "
          f"+{held - base} KiB RSS, {(held - base) / n:.1f} KiB each", flush=True)
    for writer in [warm] + connections:
        writer.close()


async def main(binary, n):
    # A server of its own for each case: memory freed by one case would
    # be reused by the next and make it look cheaper.
    limit = str(n + 100)
    for case in (listen_over_http1, legacy_sessions, listen_over_http2):
        server, port = start(binary, "--max-connections", limit, "--max-streams", limit,
                             "--max-streams-per-principal", limit,
                             "--max-sessions", str(2 * n + 100))
        try:
            await case(server.pid, port, n)
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.path.exists(sys.argv[1]):
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2000))

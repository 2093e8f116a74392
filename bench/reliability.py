#!/usr/bin/env python3
"""Reliability checks of `mcp-everything` against hostile or broken clients.

Not part of CI (it needs minutes and raises file-descriptor limits); run it
by hand after changes to the transports:

    python3 bench/reliability.py            # every scenario
    python3 bench/reliability.py slowloris  # some of them
    SKIP_BUILD=1 python3 bench/reliability.py

Scenarios (each starts its own release server on a free loopback port):

  fd-exhaustion  the server under `ulimit -n 128` while 300 idle connections
                 are open: its CPU use and log output over 5 s, then whether
                 it answers again once they close.
  slowloris      200 connections that send a header byte every 0.5 s against
                 a 2 s header timeout: how many the server closed and when,
                 and the latency a normal client sees meanwhile.
  connections    8,000 clients connecting at once, one request each (the
                 server serves 1,024 at a time and the kernel queues the
                 rest): how many were answered, errors, wall time.
  session-flood  20,000 legacy `initialize` calls against a 1,000-session
                 table while one client uses its session: whether that
                 session survives, its ping latency, the initialize rate.
  stops-reading  200,000 pipelined stdio requests from a client that does not
                 read stdout for 3 s: the server's peak RSS, then every
                 answer once it reads.
  eof-in-flight  stdio: a legacy tool call whose sampling request is pending
                 when stdin closes: how soon its answer comes and what it says.
  listen-flood   2,000 idle `subscriptions/listen` streams at once against the
                 default caps (1,024 connections, 512 streams): how many were
                 admitted and refused (429), whether refused connections were
                 closed, and a new client's `server/discover` latency while
                 every admitted stream stays open.

Each prints its figures and PASS or FAIL; the exit status is 1 if any failed.
"""

import asyncio
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "release" / "mcp-everything"
VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
}
TICKS = os.sysconf("SC_CLK_TCK")
RESULTS = []


def report(name, ok, figures):
    RESULTS.append((name, ok))
    print(f"\n== {name}: {'PASS' if ok else 'FAIL'}")
    for key, value in figures.items():
        print(f"   {key:<44} {value}")
    sys.stdout.flush()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_http(*flags, nofile=None, log=None):
    port = free_port()
    limit = None
    if nofile is not None:
        limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    proc = subprocess.Popen(
        [str(BIN), "http", "--listen", f"127.0.0.1:{port}", *flags],
        stdout=subprocess.DEVNULL,
        stderr=log if log is not None else subprocess.DEVNULL,
        preexec_fn=limit,
    )
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the server did not start")


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def peak_rss_mib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def discover_body(request_id=1):
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "server/discover",
                       "params": {"_meta": META}})


def raw_post(port, body, headers, timeout=10.0):
    """One POST on a fresh connection; returns (status, headers, body)."""
    head = [f"POST /mcp HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close",
            "Content-Type: application/json", "Accept: application/json, text/event-stream",
            f"Content-Length: {len(body.encode())}"]
    head += [f"{k}: {v}" for k, v in headers.items()]
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(("\r\n".join(head) + "\r\n\r\n" + body).encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, payload = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    hdrs = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
    return status, hdrs, payload


def discover(port, timeout=10.0):
    started = time.monotonic()
    status, _, _ = raw_post(port, discover_body(), {"MCP-Protocol-Version": VERSION,
                                                    "Mcp-Method": "server/discover"}, timeout)
    return status, time.monotonic() - started


def raise_own_nofile(n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(n, hard), hard))


# ---------------------------------------------------------------------------

def fd_exhaustion():
    log_path = Path("/tmp/mcp-reliability-fd.log")
    with open(log_path, "wb") as log:
        proc, port = start_http(nofile=128, log=log)
        env_log_start = log_path.stat().st_size
        sockets = []
        for _ in range(300):
            try:
                sockets.append(socket.create_connection(("127.0.0.1", port), timeout=2))
            except OSError:
                break
        time.sleep(0.5)
        cpu0, log0, t0 = cpu_seconds(proc.pid), log_path.stat().st_size, time.monotonic()
        time.sleep(5)
        cpu1, log1, t1 = cpu_seconds(proc.pid), log_path.stat().st_size, time.monotonic()
        for s in sockets:
            s.close()
        time.sleep(1.5)
        try:
            status, latency = discover(port)
        except OSError as e:
            status, latency = f"error {e}", 0.0
        stop(proc)
    cpu = 100 * (cpu1 - cpu0) / (t1 - t0)
    report("fd-exhaustion (ulimit -n 128, 300 idle connections)", cpu < 5 and status == 200, {
        "connections opened by the client": len(sockets),
        "server CPU over 5 s while out of fds": f"{cpu:.1f} %",
        "server log output over those 5 s": f"{log1 - log0} bytes",
        "log output before (startup, first pause)": f"{log0 - env_log_start} bytes",
        "discover after the connections closed": f"{status} in {latency * 1000:.1f} ms",
    })


def slowloris():
    proc, port = start_http("--header-timeout-ms", "2000")
    conns = []
    for _ in range(200):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        s.setblocking(False)
        conns.append(s)
    started = time.monotonic()
    closed_at = {}
    latencies = []
    next_probe = started
    while time.monotonic() - started < 6 and len(closed_at) < len(conns):
        for i, s in enumerate(conns):
            if i in closed_at:
                continue
            try:
                s.send(b"X")
                if s.recv(1) == b"":
                    closed_at[i] = time.monotonic() - started
            except BlockingIOError:
                pass
            except OSError:
                closed_at[i] = time.monotonic() - started
        if time.monotonic() >= next_probe:
            status, latency = discover(port)
            if status == 200:
                latencies.append(latency)
            next_probe += 0.25
        time.sleep(0.5)
    for s in conns:
        s.close()
    stop(proc)
    times = sorted(closed_at.values())
    ok = len(times) == len(conns) and times[-1] < 4 and len(latencies) > 0
    report("slowloris (200 connections, 2 s header timeout)", ok, {
        "connections closed by the server": f"{len(times)} of {len(conns)}",
        "closed after (first / last)": f"{times[0]:.1f} s / {times[-1]:.1f} s" if times else "-",
        "normal discover during the attack (p50/max)":
            f"{statistics.median(latencies) * 1000:.1f} / {max(latencies) * 1000:.1f} ms"
            if latencies else "none answered",
    })


async def one_request(port, body, head):
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(head + body)
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), timeout=60)
        writer.close()
        return data.startswith(b"HTTP/1.1 200")
    except (OSError, asyncio.TimeoutError):
        return False


def connections():
    raise_own_nofile(20000)
    proc, port = start_http(nofile=20000)
    body = discover_body().encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nMCP-Protocol-Version: {VERSION}\r\n"
            f"Mcp-Method: server/discover\r\nContent-Length: {len(body)}\r\n\r\n").encode()

    async def run():
        return await asyncio.gather(*(one_request(port, body, head) for _ in range(8000)))

    started = time.monotonic()
    answers = asyncio.run(run())
    wall = time.monotonic() - started
    rss = peak_rss_mib(proc.pid)
    stop(proc)
    ok_count = sum(answers)
    report("connections (8,000 at once, cap 1,024)", ok_count == len(answers), {
        "answered 200": f"{ok_count} of {len(answers)}",
        "wall time": f"{wall:.1f} s",
        "server peak RSS": f"{rss:.1f} MiB",
    })


def session_flood():
    proc, port = start_http("--max-sessions", "1000")
    init = lambda i: json.dumps({"jsonrpc": "2.0", "id": i, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "flood", "version": "1"}}})
    _, hdrs, _ = raw_post(port, init(0), {})
    session = hdrs["mcp-session-id"]
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    session_headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    stop_flag = threading.Event()
    pings, failures = [], []

    def legit():
        while not stop_flag.is_set():
            started = time.monotonic()
            status, _, _ = raw_post(port, ping, session_headers)
            (pings if status == 200 else failures).append(time.monotonic() - started)
            time.sleep(0.05)

    counts = [0] * 8

    def flood(k):
        for i in range(2500):
            try:
                raw_post(port, init(i + 1), {})
                counts[k] += 1
            except OSError:
                pass

    watcher = threading.Thread(target=legit)
    watcher.start()
    started = time.monotonic()
    floods = [threading.Thread(target=flood, args=(k,)) for k in range(8)]
    for t in floods:
        t.start()
    for t in floods:
        t.join()
    wall = time.monotonic() - started
    stop_flag.set()
    watcher.join()
    final, _, _ = raw_post(port, ping, session_headers)
    stop(proc)
    pings.sort()
    ok = not failures and final == 200
    report("session-flood (20,000 initialize, 1,000-session table)", ok, {
        "initialize calls answered": f"{sum(counts)} in {wall:.1f} s ({sum(counts) / wall:,.0f}/s)",
        "pings of the session in use (ok / failed)": f"{len(pings)} / {len(failures)}",
        "ping latency p50 / p99":
            f"{pings[len(pings) // 2] * 1000:.1f} / {pings[int(len(pings) * 0.99)] * 1000:.1f} ms"
            if pings else "-",
        "the session in use after the flood": final,
    })


def stops_reading():
    lines = 200_000
    proc = subprocess.Popen([str(BIN), "stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    line = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_simple_text",'
            '"_meta":' + json.dumps(META) + '}}\n')

    def write():
        try:
            for i in range(lines):
                proc.stdin.write((line % i).encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=write)
    writer.start()
    time.sleep(3)
    rss_blocked = peak_rss_mib(proc.pid)
    answered = 0
    for raw in proc.stdout:
        if b'"result"' in raw:
            answered += 1
    writer.join()
    proc.wait()
    report("stops-reading (200,000 stdio requests, stdout unread for 3 s)",
           answered == lines and rss_blocked < 64, {
               "server peak RSS while stdout was unread": f"{rss_blocked:.1f} MiB",
               "answers once the client read": f"{answered} of {lines}",
           })


def eof_in_flight():
    proc = subprocess.Popen([str(BIN), "stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"sampling": {}},
            "clientInfo": {"name": "eof", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "test_sampling", "arguments": {"prompt": "hi"}}},
    ]
    for m in messages:
        proc.stdin.write((json.dumps(m) + "\n").encode())
    proc.stdin.flush()
    sampling_seen = None
    answer = None
    closed_at = None
    for raw in proc.stdout:
        msg = json.loads(raw)
        if msg.get("method") == "sampling/createMessage" and closed_at is None:
            sampling_seen = msg
            closed_at = time.monotonic()
            proc.stdin.close()
        elif msg.get("id") == 2:
            answer = msg
            break
    waited = time.monotonic() - closed_at if closed_at else float("nan")
    proc.wait(timeout=30)
    text = json.dumps(answer.get("error") or answer.get("result")) if answer else "none"
    report("eof-in-flight (legacy sampling pending at EOF)",
           sampling_seen is not None and answer is not None and waited < 1, {
               "sampling request sent before EOF": sampling_seen is not None,
               "answer to the tool call after EOF": f"{waited * 1000:.1f} ms",
               "what the answer says": text[:160],
           })


async def open_listen(port, request_id):
    """One idle listen: ('open', writer) once acknowledged, else (status, None)."""
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen",
                       "params": {"notifications": {"toolsListChanged": True},
                                  "_meta": META}}).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            f"MCP-Protocol-Version: {VERSION}\r\nMcp-Method: subscriptions/listen\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(head + body)
        await writer.drain()
        seen = b""
        while b"acknowledged" not in seen and b'"error"' not in seen:
            chunk = await asyncio.wait_for(reader.read(65536), timeout=30)
            if not chunk:
                return "closed", None
            seen += chunk
        if seen.startswith(b"HTTP/1.1 200"):
            return "open", writer
        closed = await asyncio.wait_for(reader.read(), timeout=5) == b""
        writer.close()
        return f"{seen[9:12].decode()}{' closed' if closed else ' kept open'}", None
    except (OSError, asyncio.TimeoutError) as e:
        return type(e).__name__, None


def listen_flood():
    raise_own_nofile(20000)
    proc, port = start_http(nofile=20000)

    async def run():
        results = await asyncio.gather(*(open_listen(port, i) for i in range(2000)))
        # Every admitted stream is still open while a new client asks.
        latency = await asyncio.to_thread(discover, port, 10.0)
        for _, writer in results:
            if writer is not None:
                writer.close()
        return results, latency

    started = time.monotonic()
    results, (status, latency) = asyncio.run(run())
    wall = time.monotonic() - started
    rss = peak_rss_mib(proc.pid)
    stop(proc)
    outcomes = {}
    for outcome, _ in results:
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    admitted = outcomes.get("open", 0)
    refused = outcomes.get("429 closed", 0)
    ok = status == 200 and latency < 1.0 and admitted == 512 and admitted + refused == 2000
    report("listen-flood (2,000 idle listens, stream cap 512)", ok, {
        "outcomes": ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items())),
        "new client's discover": f"{status} in {latency * 1000:.0f} ms",
        "wall time (open all, then discover)": f"{wall:.1f} s",
        "server peak RSS": f"{rss:.1f} MiB",
    })


SCENARIOS = {
    "fd-exhaustion": fd_exhaustion,
    "slowloris": slowloris,
    "connections": connections,
    "session-flood": session_flood,
    "stops-reading": stops_reading,
    "eof-in-flight": eof_in_flight,
    "listen-flood": listen_flood,
}


def main():
    chosen = sys.argv[1:] or list(SCENARIOS)
    unknown = [c for c in chosen if c not in SCENARIOS]
    if unknown:
        sys.exit(f"unknown scenario(s) {unknown}; choose from {list(SCENARIOS)}")
    if os.environ.get("SKIP_BUILD") != "1":
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "mcp-everything"],
                       cwd=REPO, check=True)
    for name in chosen:
        SCENARIOS[name]()
    failed = [n for n, ok in RESULTS if not ok]
    print(f"\n{len(RESULTS) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

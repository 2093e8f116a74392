#!/usr/bin/env python3
"""Modern (2026-07-28) tools/call requests for bench/gateway.sh; stdlib only.

    gateway_load.py check URL TOOL ARGS_JSON EXPECTED_TEXT
        one call; exit 0 when the answer is a success whose only text is
        EXPECTED_TEXT, else print why and exit 1.

    gateway_load.py concurrency URL TOOL ARGS_JSON EXPECTED_TEXT N REPEAT
        REPEAT times: one call alone, then N calls at once, each on its own
        keep-alive connection opened beforehand and released together by a
        barrier. Prints one JSON object: the median wall time of the single
        call and of the N calls, the ratio, the spread of the N calls'
        latencies. Any wrong answer is an error (exit 1), never a number.

Answers may come as application/json or as an SSE stream (text/event-stream):
both are read, and the JSON-RPC response carrying the request's id is taken.
"""
import http.client
import itertools
import json
import os
import statistics
import sys
import threading
import time
from urllib.parse import urlsplit

PROTOCOL_VERSION = "2026-07-28"
# The capabilities the clients declare: CAPABILITIES (JSON), none by default.
META = {
    "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
    "io.modelcontextprotocol/clientCapabilities": json.loads(os.environ.get("CAPABILITIES") or "{}"),
}
TIMEOUT_S = 120
_ids = itertools.count(1)
_ids_lock = threading.Lock()


def next_id():
    with _ids_lock:
        return next(_ids)


class WrongAnswer(Exception):
    pass


class Client:
    """One keep-alive HTTP/1.1 connection to an MCP endpoint."""

    def __init__(self, url):
        parts = urlsplit(url)
        self.path = parts.path or "/"
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT_S)
        self.conn.connect()

    def call(self, tool, arguments, expected):
        rid = next_id()
        params = {"name": tool, "_meta": META}
        if arguments:
            params["arguments"] = arguments
        body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})
        self.conn.request("POST", self.path, body=body.encode(), headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": PROTOCOL_VERSION,
            "mcp-method": "tools/call",
            "mcp-name": tool,
        })
        resp = self.conn.getresponse()
        raw = resp.read().decode("utf-8", "replace")
        ctype = resp.getheader("content-type", "")
        if resp.status != 200:
            raise WrongAnswer(f"HTTP {resp.status}: {raw[:300]}")
        msg = find_response(raw, ctype, rid)
        if msg is None:
            raise WrongAnswer(f"no response with id {rid} ({ctype}): {raw[:300]}")
        if "error" in msg:
            raise WrongAnswer(f"JSON-RPC error: {json.dumps(msg['error'])[:300]}")
        result = msg.get("result") or {}
        texts = [c.get("text") for c in result.get("content", []) if c.get("type") == "text"]
        if result.get("isError") or texts != [expected]:
            raise WrongAnswer(f"unexpected result: {json.dumps(result)[:300]}")

    def close(self):
        self.conn.close()


def find_response(raw, ctype, rid):
    if ctype.startswith("text/event-stream"):
        candidates, data = [], []
        for line in raw.splitlines() + [""]:
            if line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
            elif line == "" and data:
                candidates.append("\n".join(data))
                data = []
    else:
        candidates = [raw]
    for text in candidates:
        try:
            msg = json.loads(text)
        except ValueError:
            continue
        if isinstance(msg, dict) and msg.get("id") == rid and ("result" in msg or "error" in msg):
            return msg
    return None


def one_alone(url, tool, arguments, expected):
    client = Client(url)
    try:
        start = time.perf_counter()
        client.call(tool, arguments, expected)
        return time.perf_counter() - start
    finally:
        client.close()


def n_at_once(url, tool, arguments, expected, n):
    clients = [Client(url) for _ in range(n)]
    barrier = threading.Barrier(n + 1)
    latencies, errors = [None] * n, []

    def worker(i):
        barrier.wait()
        start = time.perf_counter()
        try:
            clients[i].call(tool, arguments, expected)
            latencies[i] = time.perf_counter() - start
        except Exception as e:  # noqa: BLE001 - every failure is reported
            errors.append(f"request {i}: {e}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    for c in clients:
        c.close()
    if errors:
        raise WrongAnswer(f"{len(errors)} of {n} concurrent calls failed; first: {errors[0]}")
    return wall, latencies


def main(argv):
    if len(argv) >= 5 and argv[0] == "check":
        _, url, tool, args_json, expected = argv[:5]
        try:
            Client(url).call(tool, json.loads(args_json), expected)
        except Exception as e:  # noqa: BLE001
            print(f"{url}: {e}")
            return 1
        return 0
    if len(argv) == 7 and argv[0] == "concurrency":
        _, url, tool, args_json, expected, n, repeat = argv
        arguments, n, repeat = json.loads(args_json), int(n), int(repeat)
        try:
            one_alone(url, tool, arguments, expected)  # warm-up, not measured
            singles, walls, lat_min, lat_max = [], [], [], []
            for _ in range(repeat):
                singles.append(one_alone(url, tool, arguments, expected))
                wall, latencies = n_at_once(url, tool, arguments, expected, n)
                walls.append(wall)
                lat_min.append(min(latencies))
                lat_max.append(max(latencies))
        except Exception as e:  # noqa: BLE001
            print(json.dumps({"error": str(e)}))
            return 1
        single, wall = statistics.median(singles), statistics.median(walls)
        print(json.dumps({
            "single_s": single, "concurrent_s": wall, "ratio": wall / single,
            "singles": singles, "walls": walls,
            "latency_min_s": statistics.median(lat_min),
            "latency_max_s": statistics.median(lat_max),
        }))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

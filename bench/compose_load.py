#!/usr/bin/env python3
"""Sequential MCP requests over HTTP for bench/compose.sh; stdlib only.

    compose_load.py ERA URL list EXPECTED_COUNT N
        N times (after N/10 warm-up): every page of tools/list, following
        nextCursor; the tools counted must be EXPECTED_COUNT (0: any).
    compose_load.py ERA URL call TOOL ARGS_JSON EXPECTED_TEXT N
        N times (after N/10 warm-up): tools/call TOOL, whose text must be
        EXPECTED_TEXT.

ERA is modern (2026-07-28: each request carries its version and
capabilities, no session) or legacy (2025-11-25: one session, made by
initialize first). Prints one JSON object: p50, p90 and mean in ms, the
count (list) or text (call) seen; a wrong answer exits 1 with the reason.
"""
import http.client
import itertools
import json
import statistics
import sys
import time
from urllib.parse import urlsplit

MODERN, LEGACY = "2026-07-28", "2025-11-25"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}


class WrongAnswer(Exception):
    pass


class Client:
    """One keep-alive HTTP/1.1 connection to an MCP endpoint, in one era."""

    def __init__(self, era, url):
        parts = urlsplit(url)
        self.era, self.path, self.session = era, parts.path or "/", None
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        self.ids = itertools.count(1)
        if era == "legacy":
            self.request("initialize", {
                "protocolVersion": LEGACY, "capabilities": {},
                "clientInfo": {"name": "compose-bench", "version": "1"},
            })
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, "notifications/initialized")

    def post(self, body, method, name=None):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.era == "modern":
            headers |= {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
            if name:
                headers["Mcp-Name"] = name
        else:
            headers["MCP-Protocol-Version"] = LEGACY
            if self.session:
                headers["Mcp-Session-Id"] = self.session
        self.conn.request("POST", self.path, json.dumps(body), headers)
        response = self.conn.getresponse()
        data = response.read().decode()
        self.session = response.getheader("Mcp-Session-Id") or self.session
        if response.status >= 300:
            raise WrongAnswer(f"{method}: HTTP {response.status}: {data[:200]}")
        return data

    def request(self, method, params, name=None):
        rid = next(self.ids)
        if self.era == "modern":
            params = dict(params, _meta=META)
        data = self.post({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}, method, name)
        for text in [data] + [line[5:] for line in data.splitlines() if line.startswith("data:")]:
            try:
                message = json.loads(text)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == rid:
                if "error" in message:
                    raise WrongAnswer(f"{method}: {message['error']}")
                return message["result"]
        raise WrongAnswer(f"{method}: no response in {data[:200]!r}")

    def list_all(self):
        count, cursor = 0, None
        while True:
            result = self.request("tools/list", {"cursor": cursor} if cursor else {})
            count += len(result["tools"])
            cursor = result.get("nextCursor")
            if not cursor:
                return count

    def call(self, tool, arguments):
        result = self.request("tools/call", {"name": tool, "arguments": arguments}, name=tool)
        return " ".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def measure(once, check, n):
    for _ in range(max(1, n // 10)):
        check(once())
    times = []
    for _ in range(n):
        start = time.perf_counter()
        seen = once()
        times.append((time.perf_counter() - start) * 1000)
        check(seen)
    times.sort()
    return {
        "p50_ms": round(statistics.median(times), 3),
        "p90_ms": round(times[int(len(times) * 0.9) - 1], 3),
        "mean_ms": round(statistics.mean(times), 3),
        "n": n,
        "seen": seen,
    }


def main(era, url, op, *rest):
    client = Client(era, url)
    if op == "list":
        expected, n = int(rest[0]), int(rest[1])

        def check(count):
            if expected and count != expected:
                raise WrongAnswer(f"{count} tools listed, {expected} expected")
        result = measure(client.list_all, check, n)
    else:
        tool, arguments, expected, n = rest[0], json.loads(rest[1]), rest[2], int(rest[3])

        def check(text):
            if text != expected:
                raise WrongAnswer(f"{tool} answered {text[:120]!r}, {expected!r} expected")
        result = measure(lambda: client.call(tool, arguments), check, n)
    print(json.dumps(result))


if __name__ == "__main__":
    try:
        main(*sys.argv[1:])
    except WrongAnswer as e:
        print(json.dumps({"error": str(e)}))
        sys.exit(1)

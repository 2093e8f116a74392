"""Checks what the OTLP receiver got from our server against the spans the
traced Python client recorded.

usage: check.py RECEIVED.jsonl CLIENT.jsonl

For each case of client.py: the server's span for that tools/call is in
the client's trace, its parent is the client SDK's CLIENT span (so the
`_meta.traceparent` the client sent was the parent), the `tracestate` came
along, and the attributes are there; then the metrics. Prints one line per
check and ends with `N passed, M failed`; exits 1 on any failure.
"""
import json
import sys

SERVICE = "mcp-everything-otel"
CASES = [
    # case, tool, protocol version, era, isError
    ("modern-ok", "test_simple_text", "2026-07-28", "modern", False),
    ("modern-error", "test_error_handling", "2026-07-28", "modern", True),
    ("legacy-ok", "test_simple_text", "2025-11-25", "legacy", False),
]

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")
    return ok


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def case_checks(received, client, case, tool, version, era, is_error):
    root = next((s for s in client if s["name"] == case), None)
    if not check(f"{case}: client span {case!r} recorded", root is not None):
        return
    sent = [s for s in client if s["trace_id"] == root["trace_id"] and s["kind"] == "client"
            and s["name"].startswith("MCP send tools/call")]
    if not check(f"{case}: the Python SDK made a CLIENT span for tools/call", len(sent) == 1,
                 ", ".join(s["name"] for s in sent) or "none"):
        return
    sent = sent[0]
    served = [s for s in received if s["signal"] == "span" and s["service"] == SERVICE
              and s["name"] == f"tools/call {tool}" and s["trace_id"] == root["trace_id"]]
    if not check(f"{case}: one server span 'tools/call {tool}' in the client's trace {root['trace_id']}",
                 len(served) == 1, f"{len(served)} found"):
        return
    span = served[0]
    check(f"{case}: server span's parent is the client span {sent['span_id']}",
          span["parent_span_id"] == sent["span_id"], f"parent {span['parent_span_id']!r}")
    check(f"{case}: span kind server, scope mcp-era-server",
          span["kind"] == "server" and span["scope"] == "mcp-era-server", f"{span['kind']}, {span['scope']}")
    check(f"{case}: tracestate forwarded", "interop=otel" in span["trace_state"], repr(span["trace_state"]))
    attrs = span["attributes"]
    want = {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": tool,
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": version,
        "mcp.era": era,
        "mcp.tool.is_error": is_error,
    }
    wrong = {k: attrs.get(k) for k, v in want.items() if attrs.get(k) != v}
    check(f"{case}: attributes {sorted(want)}", not wrong, f"differ: {wrong}" if wrong else "")
    check(f"{case}: jsonrpc.request.id present", bool(attrs.get("jsonrpc.request.id")))
    if is_error:
        check(f"{case}: error.type tool_error and status error",
              attrs.get("error.type") == "tool_error" and span["status"] == "error",
              f"{attrs.get('error.type')}, {span['status']}")
    else:
        check(f"{case}: no error.type, status unset",
              "error.type" not in attrs and span["status"] == "unset", span["status"])


def latest_metrics(received):
    """Cumulative metrics: the last export of each name counts."""
    latest = {}
    for record in received:
        if record["signal"] == "metric" and record["service"] == SERVICE and record["scope"] == "mcp-era-server":
            latest[record["name"]] = record
    return latest


def metric_checks(received):
    metrics = latest_metrics(received)
    check("metrics exported: " + ", ".join(sorted(metrics)),
          {"mcp.server.requests", "mcp.server.errors", "mcp.server.operation.duration"} <= set(metrics))

    def total(name, key, **attrs):
        record = metrics.get(name)
        if record is None:
            return 0
        return sum(p.get(key, 0) for p in record["points"]
                   if all(p["attributes"].get(k) == v for k, v in attrs.items()))

    calls = {"mcp.method.name": "tools/call"}
    n = total("mcp.server.requests", "value", **calls)
    check("mcp.server.requests counts the 3 tools/call", n == 3, str(n))
    n = total("mcp.server.errors", "value", **calls, **{"error.type": "tool_error"})
    check("mcp.server.errors counts the 1 tool error", n == 1, str(n))
    n = total("mcp.server.requests", "value", **calls, **{"mcp.era": "legacy"})
    check("mcp.server.requests has the legacy call by mcp.era", n == 1, str(n))
    duration = metrics.get("mcp.server.operation.duration", {})
    n = total("mcp.server.operation.duration", "count", **calls)
    check("mcp.server.operation.duration: a histogram in s with 3 tools/call",
          duration.get("type") == "histogram" and duration.get("unit") == "s" and n == 3,
          f"{duration.get('type')}, {duration.get('unit')!r}, count {n}")


def main(received_path, client_path):
    received = load(received_path)
    client = load(client_path)
    print(f"received {sum(r['signal'] == 'span' for r in received)} spans and "
          f"{sum(r['signal'] == 'metric' for r in received)} metric records; "
          f"the client recorded {len(client)} spans")
    for case in CASES:
        case_checks(received, client, *case)
    metric_checks(received)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

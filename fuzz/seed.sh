#!/usr/bin/env bash
# Writes the seed corpus of every fuzz target into fuzz/corpus/<target>/
# (git-ignored): the official example instances read from
# $MCP_SCHEMA_DIR/*/examples (never copied into the repository) and a few
# hand-written messages. Usage: MCP_SCHEMA_DIR=../shared/mcp-schema bash fuzz/seed.sh
set -euo pipefail
cd "$(dirname "$0")"
: "${MCP_SCHEMA_DIR:=../shared/mcp-schema}"  # relative to the repository root
case "$MCP_SCHEMA_DIR" in /*) ;; *) MCP_SCHEMA_DIR="$PWD/../$MCP_SCHEMA_DIR" ;; esac
if [ ! -d "$MCP_SCHEMA_DIR" ]; then
    echo "seed.sh: no $MCP_SCHEMA_DIR; seeding from the hand-written messages only" >&2
fi
MCP_SCHEMA_DIR="$MCP_SCHEMA_DIR" python3 - <<'PY'
import hashlib, json, os, pathlib

schema = pathlib.Path(os.environ["MCP_SCHEMA_DIR"])
corpus = pathlib.Path("corpus")

def write(target, data):
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)

examples = []
for path in sorted(schema.glob("*/examples/*/*.json")) if schema.is_dir() else []:
    examples.append(json.loads(path.read_text()))

V = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {"sampling": {}, "elicitation": {}, "roots": {}}}

def modern(id, method, **params):
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": {"_meta": META, **params}}

def legacy(id, method, **params):
    m = {"jsonrpc": "2.0", "id": id, "method": method}
    if params:
        m["params"] = params
    return m

hand = [
    modern(1, "server/discover"),
    modern("a", "tools/list"),
    modern(2, "tools/call", name="test_simple_text", arguments={}),
    modern(3, "tools/call", name="test_tool_with_progress", arguments={},
           **{"_meta": {**META, "progressToken": "p"}}),
    modern(4, "tools/call", name="test_input_required_result_elicitation", arguments={}),
    modern(5, "tools/call", name="json_schema_2020_12_tool", arguments={"name": "x"}),
    modern(6, "tools/call", name="test_custom_header", arguments={"region": "eu"}),
    modern(7, "resources/read", uri="test://static-text"),
    modern(8, "resources/read", uri="test://template/42/data"),
    modern(9, "resources/templates/list"),
    modern(10, "prompts/get", name="test_prompt_with_arguments", arguments={"arg1": "a", "arg2": "b"}),
    modern(11, "completion/complete", ref={"type": "ref/prompt", "name": "test_prompt_with_arguments"},
           argument={"name": "arg1", "value": "a"}),
    modern(12, "subscriptions/listen", notifications={"toolsListChanged": True}),
    modern(13, "tools/call", name="test_trigger_tool_change", arguments={}),
    modern(14, "ping"),
    {**modern(15, "tools/list"), "params": {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "1999-01-01"}}},
    legacy(20, "initialize", protocolVersion="2025-11-25", capabilities={"sampling": {}, "elicitation": {}},
           clientInfo={"name": "fuzz", "version": "0"}),
    legacy(21, "ping"),
    legacy(22, "tools/list"),
    legacy(23, "tools/call", name="test_sampling", arguments={"prompt": "hi"}),
    legacy(24, "tools/call", name="test_elicitation", arguments={"message": "hi"}),
    legacy(25, "logging/setLevel", level="debug"),
    legacy(26, "resources/subscribe", uri="test://watched-resource"),
    legacy(27, "tools/call", name="test_tool_with_logging", arguments={}),
    legacy(28, "tools/call", name="list_notes", arguments={"title": "Shop"}),
    modern(29, "tools/call", name="list_notes", arguments={"title": 5}),
    modern(30, "tools/call", name="json_schema_2020_12_tool",
           arguments={"email": 5, "nickname": "x", "address": {"street": 1}}),
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12}},
    {"jsonrpc": "2.0", "id": 1, "result": {}},
    {"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": None, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 9223372036854775808, "method": "tools/list"},
    {"jsonrpc": "1.0", "id": 1, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 1},
    [modern(1, "tools/list")],
]
raw = [b'{"jsonrpc":"2.0","id":-0,"method":"tools/list"}', b"{", b"", b"\xff\xfe", b"null"]

def compact(m):
    return json.dumps(m, separators=(",", ":"), ensure_ascii=False).encode()

messages = [compact(m) for m in examples + hand] + raw

for m in messages:
    for flags in (0x00, 0x01, 0x03, 0x08, 0x18, 0x23):
        write("handle_message", bytes([flags]) + m)
write("handle_message", b"\x03" + compact(hand[2]) + b"\xff2026-07-28\xfftools/call\xfftest_simple_text")
write("handle_message", b"\x03" + compact(hand[6]) + b"\xff\xff\xff\xffregion\xff=?base64?ZXU=?=")

for m in messages:
    write("union_from_json", m)
for m in examples:
    for key in ("params", "result"):
        if isinstance(m, dict) and isinstance(m.get(key), dict):
            write("union_from_json", compact(m[key]))

lines = [compact(m) for m in hand] + [compact(m) for m in examples]
for i in range(0, len(lines), 6):
    write("stdio_lines", b"\xff\x03" + b"\n".join(lines[i:i + 6]) + b"\n")
write("stdio_lines", b"\x00\x00" + b"\n".join(lines[:4]) + b"\n\n  \n\xff\xfe\n")
write("stdio_lines", b"\x10\x01" + compact(hand[16]) + b"\n" + compact(hand[22]) + b"\n" + compact(hand[20]))

for s in ["tools/call", "test://static-text", "=?base64?SGVsbG8=?=", "=?base64?=", "h\u00e9llo",
          " spaced ", "=?base64?ZX=?=", "=?base64?/w==?=", "caf\u00e9 \u2615", ""]:
    write("headers", s.encode())
# Request heads for the transport half of `headers`: flags, then lines of
# a name index (NAMES in fuzz_targets/headers.rs) and a value.
good = [(4, "localhost"), (0, "2026-07-28"), (1, "tools/call"), (2, "test_custom_header"), (3, "eu")]
for flags, lines in [(0, good), (0, good + [(2, "test_simple_text")]), (0, good + [(3, "eu")]),
                     (0, good[1:]), (0, good + [(4, "localhost")]), (3, good), (1, good),
                     (0, good + [(5, "gzip, chunked")]), (0, good + [(5, "chunked")])]:
    write("headers", bytes([flags]) + b"\xff".join(bytes([n]) + v.encode() for n, v in lines))
for target in ("handle_message", "union_from_json", "stdio_lines", "headers"):
    print(f"seed.sh: {target}: {len(list((corpus / target).iterdir()))} files")
PY

#!/usr/bin/env bash
# tools/list over HTTP from a 100-tool and from a 10,000-tool catalogue: the
# same page (100 tools), served from kept bytes, should cost
# the same per page whatever the catalogue's size.
#
#   bash bench/catalogue.sh          # builds mcp-bench's catalogue-server (release)
#
# For each size, wrk (1 thread, 16 connections, $DURATION s after a 2 s
# warm-up) asks the page in the middle of the catalogue (offset 5000 of
# 10,000; the only page of 100), then callgrind counts the instructions per
# request between start-up (the catalogue's schemas are compiled then) and
# shutdown (which frees them).
# Needs wrk and valgrind (apt). Figures, not a test.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${BENCH_OUT:-$ROOT/target/bench-catalogue}"
DURATION="${DURATION:-10}"
# shellcheck source=interop/ports.sh
source "$ROOT/interop/ports.sh"
PORT="$(pick_port "${PORT:-38590}")"
BIN="$ROOT/target/release/catalogue-server"
mkdir -p "$OUT"
[[ -n "${SKIP_BUILD:-}" ]] || cargo build -q --release -p mcp-bench --bin catalogue-server

script() { # CURSOR: a wrk script asking tools/list at CURSOR (none: the first page)
  local cursor=""
  [[ -n "$1" ]] && cursor=",\"cursor\":\"$1\""
  local body="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}$cursor}}"
  printf 'wrk.method = "POST"\nwrk.body = %s\n' "$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$body")"
  printf 'wrk.headers["Content-Type"] = "application/json"\nwrk.headers["Accept"] = "application/json, text/event-stream"\n'
  printf 'wrk.headers["MCP-Protocol-Version"] = "2026-07-28"\nwrk.headers["Mcp-Method"] = "tools/list"\n'
}

wait_up() {
  for _ in $(seq 150); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && return 0; sleep 0.2; done
  return 1
}

for tools in 100 10000; do
  cursor=""; (( tools > 100 )) && cursor=$(( tools / 2 ))
  script "$cursor" >"$OUT/list-$tools.lua"
  "$BIN" "$tools" "127.0.0.1:$PORT" >"$OUT/server-$tools.log" 2>&1 &
  pid=$!
  wait_up || { kill "$pid"; echo "server did not start" >&2; exit 1; }
  wrk -t1 -c16 -d2s -s "$OUT/list-$tools.lua" "http://127.0.0.1:$PORT/mcp" >/dev/null
  rps=$(wrk -t1 -c16 -d"${DURATION}s" -s "$OUT/list-$tools.lua" "http://127.0.0.1:$PORT/mcp" | awk '/Requests\/sec/ {print $2}')
  bytes=$(curl -s -X POST "http://127.0.0.1:$PORT/mcp" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list' \
    --data "$(python3 -c 'import re,json,sys; print(json.loads(re.search(r"^wrk.body = (.*)$", open(sys.argv[1]).read(), re.M).group(1)))' "$OUT/list-$tools.lua")" | wc -c)
  kill "$pid"; wait "$pid" 2>/dev/null || true
  valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind-$tools.out" "$BIN" "$tools" "127.0.0.1:$PORT" >"$OUT/callgrind-$tools.log" 2>&1 &
  pid=$!
  wait_up || { kill "$pid"; echo "server did not start under valgrind" >&2; exit 1; }
  # The catalogue is built at start-up: counters are zeroed after it.
  callgrind_control -z "$pid" >/dev/null 2>&1
  wrk -t1 -c4 -d4s -s "$OUT/list-$tools.lua" "http://127.0.0.1:$PORT/mcp" >"$OUT/callgrind-$tools.wrk"
  # Dumped before shutdown, which frees the whole catalogue.
  rm -f "$OUT/callgrind-$tools.out".*
  callgrind_control -d "$pid" >/dev/null 2>&1
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  requests=$(awk '/requests in/ {print $1}' "$OUT/callgrind-$tools.wrk")
  total=$(cat "$OUT/callgrind-$tools.out".* | awk '/^summary:/ {print $2}' | head -1)
  printf '%6d tools: page of %6d bytes, %9.0f req/s, %9d instructions per request\n' \
    "$tools" "$bytes" "$rps" $(( total / requests ))
done

#!/usr/bin/env bash
# User-space instructions per HTTP request of each server, counted by
# valgrind's callgrind: repeatable whatever else the machine is doing, where
# req/s on 2 shared cores moves by 20 % from one run to the next. Kernel
# time (the same syscalls for all three servers) is not counted.
#
#   bash bench/instructions.sh        # after bench/compare.sh built the servers
#   CALL=greet bash bench/instructions.sh              # ours only, a call with arguments
#   OURS_BIN=old/mcp-everything CALL=greet bash ...    # the same for another build
#
# Each server runs under callgrind on a loopback port and answers
# $DURATION s of the compare.sh request (wrk, 1 thread, 4 connections); the
# count over the whole process, start-up included, is divided by the
# requests served ("per request"), and the same without what the process
# counts when started and stopped unloaded ("net": compare builds on it,
# as the number of requests served varies with the machine's load).
# Needs valgrind and wrk (installed with apt when missing).
#
# STDIO=N counts our server alone over stdio instead: N pipelined
# `tools/call`s of the compare.sh request on stdin, at EOF it answers them
# all and exits; per request is (count for N - count for 1) / (N - 1), so
# start-up and wind-down drop out. Needs valgrind only.
#
#   STDIO=20000 bash bench/instructions.sh
#   OURS_BIN=old/mcp-everything STDIO=20000 bash bench/instructions.sh
#
# Environment: DURATION=S (8), BENCH_OUT=DIR (<repo>/target/bench-run, where
# compare.sh left post.lua), OURS_BIN / RMCP_BIN / FLOOR_BIN (the release
# binaries compare.sh builds).
#
# CALL=NAME measures our server alone on another tools/call, to state what
# the arguments cost (the inputSchema check, the typed parse): `greet`
# (`{"name": "Ann"}`, one derived `String` parameter), `sep1613`
# (`json_schema_2020_12_tool` with four arguments, a `$ref` and
# `if`/`then`/`else`: the fixture's hand-written schema) or `simple` (the
# compare.sh request, `test_simple_text` without arguments). Run it for two
# builds (OURS_BIN) and subtract: the difference is what a change costs per
# call. Needs only the one binary.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${BENCH_OUT:-$ROOT/target/bench-run}"
DURATION="${DURATION:-8}"
OURS_BIN="${OURS_BIN:-$ROOT/target/release/mcp-everything}"
RMCP_BIN="${RMCP_BIN:-$ROOT/target/bench-rmcp/release/rmcp-bench-server}"
FLOOR_BIN="${FLOOR_BIN:-$ROOT/target/bench-rmcp/release/floor-server}"
# shellcheck source=interop/ports.sh
source "$ROOT/interop/ports.sh"
PORT="$(pick_port "${PORT:-38490}")"

log() { printf '[instructions] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

STDIO="${STDIO:-}"
tools=(valgrind); [[ -n "$STDIO" ]] || tools+=(wrk)
for tool in "${tools[@]}"; do
  if ! command -v "$tool" >/dev/null; then
    runner=(); [[ "$(id -u)" == 0 ]] || runner=(sudo)
    "${runner[@]}" apt-get install -y "$tool" >/dev/null 2>&1 \
      || { "${runner[@]}" apt-get update >/dev/null && "${runner[@]}" apt-get install -y "$tool" >/dev/null; } \
      || die "could not install $tool"
  fi
done
CALL="${CALL:-}"
mkdir -p "$OUT"

# Instructions of `$OURS_BIN stdio` answering N pipelined calls.
stdio_count() { # N
  local n=$1 input="$OUT/stdio-$1.jsonl" profile="$OUT/callgrind-stdio-$1.out"
  python3 - "$n" >"$input" <<'PY'
import json, sys
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
for i in range(int(sys.argv[1])):
    print(json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                      "params": {"name": "test_simple_text", "_meta": meta}},
                     separators=(",", ":")))
PY
  valgrind --tool=callgrind --callgrind-out-file="$profile" "$OURS_BIN" stdio \
    <"$input" >"$OUT/stdio-$n.answers" 2>"$OUT/callgrind-stdio-$n.log"
  local answered
  answered="$(grep -c '"result"' "$OUT/stdio-$n.answers" || true)"
  (( answered == n )) || die "stdio: $answered of $n calls answered (see $OUT/stdio-$n.answers)"
  awk '/^summary:/ {print $2}' "$profile"
}

if [[ -n "$STDIO" ]]; then
  [[ -x "$OURS_BIN" ]] || die "no $OURS_BIN: cargo build --release -p mcp-everything"
  (( STDIO > 1 )) || die "STDIO must be more than 1"
  one="$(stdio_count 1)"
  many="$(stdio_count "$STDIO")"
  printf '%-6s %9d requests %15d instructions %9d per request\n' \
    stdio "$STDIO" "$many" $(( (many - one) / (STDIO - 1) ))
  exit 0
fi
WRK_SCRIPT="$OUT/post.lua"
if [[ -n "$CALL" ]]; then
  case "$CALL" in
    simple) tool=test_simple_text arguments='' ;;
    greet) tool=greet arguments='{"name":"Ann"}' ;;
    sep1613) tool=json_schema_2020_12_tool
      arguments='{"name":"Ann","contactMethod":"email","email":"ann@example.com","address":{"street":"1 Main St","city":"Springfield"}}' ;;
    *) die "CALL must be simple, greet or sep1613" ;;
  esac
  WRK_SCRIPT="$OUT/post-$CALL.lua"
  python3 - "$tool" "$arguments" >"$WRK_SCRIPT" <<'PY'
import json, sys
tool, arguments = sys.argv[1], sys.argv[2]
params = {"name": tool}
if arguments:
    params["arguments"] = json.loads(arguments)
params["_meta"] = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                   "io.modelcontextprotocol/clientCapabilities": {}}
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params},
                  separators=(",", ":"))
print('wrk.method = "POST"')
print(f"wrk.body = {json.dumps(body)}")
for name, value in [("Content-Type", "application/json"),
                    ("Accept", "application/json, text/event-stream"),
                    ("MCP-Protocol-Version", "2026-07-28"),
                    ("Mcp-Method", "tools/call"), ("Mcp-Name", tool)]:
    print(f"wrk.headers[{json.dumps(name)}] = {json.dumps(value)}")
PY
fi
[[ -f "$WRK_SCRIPT" ]] || die "no $WRK_SCRIPT: run LOADGEN=wrk bash bench/compare.sh first"

# Starts BIN under callgrind (profile PROFILE) and waits until it answers;
# sets $pid.
start_counted() { # NAME PROFILE BIN ARGS...
  local name=$1 profile=$2 bin=$3; shift 3
  valgrind --tool=callgrind --callgrind-out-file="$profile" "$bin" "$@" "127.0.0.1:$PORT" \
    >"$OUT/callgrind-$name.log" 2>&1 &
  pid=$!
  local ready=0
  for _ in $(seq 150); do
    if curl -s -o /dev/null "http://127.0.0.1:$PORT/"; then ready=1; break; fi
    sleep 0.2
  done
  (( ready )) || { kill "$pid" 2>/dev/null; die "$name did not start (see $OUT/callgrind-$name.log)"; }
}

count() { # NAME BIN ARGS...
  local name=$1 bin=$2; shift 2
  [[ -x "$bin" ]] || die "no $bin: run bash bench/compare.sh first"
  # Start-up and shutdown alone, subtracted for the "net" column: the
  # loaded run's request count varies with the machine's load.
  local idle="$OUT/callgrind-$name-idle.out"
  start_counted "$name-idle" "$idle" "$bin" "$@"
  kill -TERM "$pid"; wait "$pid" || true
  local profile="$OUT/callgrind-$name.out"
  start_counted "$name" "$profile" "$bin" "$@"
  if [[ -n "$CALL" ]]; then # the answer must be a success, not a failed result
    local answer
    answer="$(wrk_request_once)"
    grep -q '"isError":true\|"error":' <<<"$answer" && die "$name: $CALL failed: $answer"
  fi
  wrk -t1 -c4 -d "${DURATION}s" -s "$WRK_SCRIPT" "http://127.0.0.1:$PORT/mcp" >"$OUT/callgrind-$name.wrk"
  kill -TERM "$pid"; wait "$pid" || true
  local requests total
  requests="$(awk '/requests in/ {print $1}' "$OUT/callgrind-$name.wrk")"
  total="$(awk '/^summary:/ {print $2}' "$profile")"
  grep -q "Non-2xx" "$OUT/callgrind-$name.wrk" && log "warning: $name gave non-2xx answers"
  local startup
  startup="$(awk '/^summary:/ {print $2}' "$idle")"
  printf '%-6s %9d requests %15d instructions %9d per request %9d net\n' \
    "$name" "$requests" "$total" $(( total / requests )) $(( (total - startup) / requests ))
}

# The request of $WRK_SCRIPT, sent once with curl.
wrk_request_once() {
  python3 - "$WRK_SCRIPT" "http://127.0.0.1:$PORT/mcp" <<'PY'
import json, re, sys, urllib.request
script, url = open(sys.argv[1]).read(), sys.argv[2]
body = json.loads(re.search(r"^wrk.body = (.*)$", script, re.M).group(1))
headers = {json.loads(n): json.loads(v)
           for n, v in re.findall(r'^wrk.headers\[(".*?")\] = (".*")$', script, re.M)}
request = urllib.request.Request(url, data=body.encode(), headers=headers, method="POST")
print(urllib.request.urlopen(request).read().decode())
PY
}

if [[ -n "$CALL" ]]; then
  count "ours-$CALL" "$OURS_BIN" http --listen
else
  count ours "$OURS_BIN" http --listen
  count rmcp "$RMCP_BIN" http
  count floor "$FLOOR_BIN" http
fi

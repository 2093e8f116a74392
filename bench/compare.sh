#!/usr/bin/env bash
# A comparison anyone can rerun: our `mcp-everything` against a one-tool rmcp
# 3.11 server (bench/rmcp-server), both built here in release mode, on the
# same `tools/call` of `test_simple_text`; also against a floor
# (bench/rmcp-server/src/bin/floor.rs): over HTTP hyper, the body parsed into
# a serde_json::Value, fixed bytes answered; over stdio lines read, each
# parsed into a Value, fixed bytes with the request's id written. The least
# any JSON-RPC server must do, to state ours as a fraction of it.
#
#   HTTP   stateless Streamable HTTP, JSON responses, loopback only: a 2 s
#          warm-up, then $DURATION s of load from one load-generator thread
#          over 16 keep-alive connections; req/s and non-2xx answers.
#   stdio  $STDIO_LINES pipelined tools/call lines (distinct ids) piped into
#          the server's stdin; wall time and peak RSS (/usr/bin/time -v),
#          and answers lost (requests without a successful answer).
#
# The servers alternate (ours, rmcp, floor, ours, ...) for $ROUNDS rounds of
# each measurement, and a summary table with ratios ours/rmcp and ours/floor
# ends the run.
#
# Usage (from anywhere):
#   bash bench/compare.sh              # full: 10 s HTTP runs, 100,000 stdio lines
#   QUICK=1 bash bench/compare.sh      # smoke: 3 s HTTP runs, 10,000 stdio lines
#
# Environment:
#   QUICK=1            smoke-run defaults (below)
#   DURATION=S         seconds of HTTP load per run (10; QUICK 3)
#   WARMUP=S           seconds of HTTP warm-up per run, not measured (2)
#   STDIO_LINES=N      requests per stdio run (100000; QUICK 10000)
#   ROUNDS=N           rounds per server and transport, at least 2 (2)
#   CONNECTIONS=N      HTTP connections (16)
#   LOADGEN=oha|wrk    load generator (oha, installed with cargo; wrk from apt)
#   BASE_PORT=P        first loopback port tried for the HTTP servers (38400)
#   SKIP_BUILD=1       use the release binaries already built (all three)
#   OURS_BIN=PATH      measure this mcp-everything binary instead of building one
#   BENCH_OUT=DIR      work and result files (<repo>/target/bench-run)
#
# Exit status: 0 when every run of our server answered every request with a
# success; 1 otherwise (the summary still prints). rmcp's lost or failed
# answers are reported, not fatal, and so are the floor's.
set -euo pipefail

# ---- pinned versions --------------------------------------------------------
OHA_VERSION="1.16.0"        # cargo install --locked oha --version ...
RMCP_VERSION="3.11.0"       # checked against bench/rmcp-server/Cargo.lock
PROTOCOL_VERSION="2026-07-28"

# ---- settings ---------------------------------------------------------------
QUICK="${QUICK:-0}"
if [[ "$QUICK" == "1" ]]; then
  DURATION="${DURATION:-3}"
  STDIO_LINES="${STDIO_LINES:-10000}"
else
  DURATION="${DURATION:-10}"
  STDIO_LINES="${STDIO_LINES:-100000}"
fi
WARMUP="${WARMUP:-2}"
ROUNDS="${ROUNDS:-2}"
CONNECTIONS="${CONNECTIONS:-16}"
LOADGEN="${LOADGEN:-oha}"
BASE_PORT="${BASE_PORT:-38400}"
STDIO_TIMEOUT="${STDIO_TIMEOUT:-300}"   # seconds before a stdio run is killed
RETRIES=3                               # attempts per download
BACKOFF=5                               # first wait in seconds, doubled each time

for n in DURATION WARMUP STDIO_LINES ROUNDS CONNECTIONS BASE_PORT; do
  [[ "${!n}" =~ ^[0-9]+$ ]] || { echo "compare.sh: $n must be a whole number, got '${!n}'" >&2; exit 2; }
done
(( ROUNDS >= 2 )) || { echo "compare.sh: ROUNDS must be at least 2" >&2; exit 2; }
(( DURATION >= 1 && STDIO_LINES >= 1 )) || { echo "compare.sh: DURATION and STDIO_LINES must be positive" >&2; exit 2; }
[[ "$LOADGEN" == oha || "$LOADGEN" == wrk ]] || { echo "compare.sh: LOADGEN must be oha or wrk" >&2; exit 2; }

# ---- locations --------------------------------------------------------------
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
TOOLS_DIR="$REPO_ROOT/target/bench-tools"
RMCP_TARGET="$REPO_ROOT/target/bench-rmcp"
OUT="${BENCH_OUT:-$REPO_ROOT/target/bench-run}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

CUSTOM_OURS="${OURS_BIN:+1}"
OURS_BIN="${OURS_BIN:-$REPO_ROOT/target/release/mcp-everything}"
RMCP_BIN="$RMCP_TARGET/release/rmcp-bench-server"
FLOOR_BIN="$RMCP_TARGET/release/floor-server"
OHA="$TOOLS_DIR/bin/oha"
SERVERS=(ours rmcp floor)         # stdio
HTTP_SERVERS=(ours rmcp floor)    # HTTP

log() { printf '[compare] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# retry CMD...: run CMD up to $RETRIES times, waiting $BACKOFF, 2*$BACKOFF, ...
retry() {
  local attempt=1 wait="$BACKOFF"
  while true; do
    if "$@"; then
      return 0
    fi
    if (( attempt >= RETRIES )); then
      log "giving up after $attempt attempts: $*"
      return 1
    fi
    log "attempt $attempt failed; retrying in ${wait}s: $*"
    sleep "$wait"
    attempt=$((attempt + 1))
    wait=$((wait * 2))
  done
}

bin_of() {
  case "$1" in
    ours) echo "$OURS_BIN" ;;
    rmcp) echo "$RMCP_BIN" ;;
    floor) echo "$FLOOR_BIN" ;;
  esac
}

# ---- servers started by this script are stopped by PID ----------------------
SERVER_PID=""
stop_server() {
  if [[ -n "$SERVER_PID" ]]; then
    kill "$SERVER_PID" 2>/dev/null || true
    local i
    for i in $(seq 1 50); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
  fi
}
trap stop_server EXIT
trap 'stop_server; exit 130' INT TERM

# ---- 0. tools the script itself needs ----------------------------------------
apt_install() {
  local runner=()
  [[ "$(id -u)" == 0 ]] || runner=(sudo)
  retry "${runner[@]}" apt-get install -y "$@" \
    || { retry "${runner[@]}" apt-get update && retry "${runner[@]}" apt-get install -y "$@"; }
}

for tool in curl python3 cargo; do
  command -v "$tool" >/dev/null || die "$tool is required"
done
if [[ ! -x /usr/bin/time ]]; then
  log "installing GNU time (apt) for peak RSS"
  apt_install time || die "could not install GNU time"
fi

# ---- 1. build the servers (release, one after the other) ----------------------
grep -A1 '^name = "rmcp"$' "$SCRIPT_DIR/rmcp-server/Cargo.lock" | grep -q "^version = \"$RMCP_VERSION\"$" \
  || die "bench/rmcp-server/Cargo.lock does not pin rmcp $RMCP_VERSION"
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  if [[ -z "$CUSTOM_OURS" ]]; then
    log "building mcp-everything (release)"
    (cd "$REPO_ROOT" && cargo build --release -p mcp-everything)
  fi
  log "building the rmcp $RMCP_VERSION server and the floor (release, own workspace, target dir $RMCP_TARGET)"
  retry cargo fetch --locked --manifest-path "$SCRIPT_DIR/rmcp-server/Cargo.toml"
  cargo build --release --locked --manifest-path "$SCRIPT_DIR/rmcp-server/Cargo.toml" \
    --target-dir "$RMCP_TARGET"
fi
[[ -x "$OURS_BIN" ]] || die "missing $OURS_BIN"
[[ -x "$RMCP_BIN" ]] || die "missing $RMCP_BIN"
[[ -x "$FLOOR_BIN" ]] || die "missing $FLOOR_BIN (build without SKIP_BUILD=1)"

# ---- 2. the load generator -----------------------------------------------------
if [[ "$LOADGEN" == oha ]]; then
  if [[ "$("$OHA" --version 2>/dev/null || true)" != "oha $OHA_VERSION" ]]; then
    log "installing oha $OHA_VERSION into $TOOLS_DIR (cargo install --locked)"
    retry cargo install --locked --quiet oha --version "$OHA_VERSION" --root "$TOOLS_DIR" \
      || die "could not install oha $OHA_VERSION (LOADGEN=wrk uses wrk from apt instead)"
  fi
  LOADGEN_VERSION="$("$OHA" --version)"
else
  if ! command -v wrk >/dev/null; then
    log "installing wrk (apt)"
    apt_install wrk || die "could not install wrk"
  fi
  LOADGEN_VERSION="$(wrk --version 2>&1 | head -n1 | cut -d' ' -f1-2 || true)"
fi

# ---- the request -------------------------------------------------------------
# The same modern 2026-07-28 request for every server: rmcp 3.11 serves
# 2026-07-28 per-request `_meta` statelessly (no initialize, no session) on
# HTTP and on stdio, as our server does; the floor parses it and reads nothing.
request_json() { # ID
  printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"%s","io.modelcontextprotocol/clientCapabilities":{}}}}' \
    "$1" "$PROTOCOL_VERSION"
}
BODY="$(request_json 1)"
HEADERS=(
  "Content-Type: application/json"
  "Accept: application/json, text/event-stream"
  "MCP-Protocol-Version: $PROTOCOL_VERSION"
  "Mcp-Method: tools/call"
  "Mcp-Name: test_simple_text"
)
EXPECTED_TEXT="This is a simple text response for testing."

# check_answer FILE: FILE holds one successful JSON-RPC answer to id 1.
check_answer() {
  python3 - "$1" "$EXPECTED_TEXT" <<'PY'
import json, sys
body = json.load(open(sys.argv[1]))
result = body.get("result") or {}
texts = [c.get("text") for c in result.get("content", []) if c.get("type") == "text"]
ok = body.get("id") == 1 and "error" not in body and not result.get("isError") and texts == [sys.argv[2]]
sys.exit(0 if ok else 1)
PY
}

# ---- HTTP helpers ----------------------------------------------------------------
# shellcheck source=interop/ports.sh
source "$REPO_ROOT/interop/ports.sh"
port_in_use() { ! port_free "$1"; }

NEXT_PORT="$BASE_PORT"
free_port() {
  while port_in_use "$NEXT_PORT"; do NEXT_PORT=$((NEXT_PORT + 1)); done
  echo "$NEXT_PORT"
  NEXT_PORT=$((NEXT_PORT + 1))
}

curl_call() { # PORT OUTFILE -> HTTP status on stdout
  local args=() h
  for h in "${HEADERS[@]}"; do args+=(-H "$h"); done
  curl -sS -o "$2" -w '%{http_code}' --max-time 5 "${args[@]}" --data-binary "$BODY" \
    "http://127.0.0.1:$1/mcp" 2>/dev/null || true
}

start_http() { # SERVER PORT LOG
  local bin; bin="$(bin_of "$1")"
  if [[ "$1" == ours ]]; then
    "$bin" http --listen "127.0.0.1:$2" >"$3" 2>&1 &
  else
    "$bin" http "127.0.0.1:$2" >"$3" 2>&1 &
  fi
  SERVER_PID=$!
  local i
  for i in $(seq 1 100); do
    kill -0 "$SERVER_PID" 2>/dev/null || { SERVER_PID=""; return 1; }
    port_in_use "$2" && return 0
    sleep 0.05
  done
  return 1
}

WRK_SCRIPT="$OUT/post.lua"
write_wrk_script() {
  python3 - "$BODY" "${HEADERS[@]}" >"$WRK_SCRIPT" <<'PY'
import json, sys
body, headers = sys.argv[1], sys.argv[2:]
print('wrk.method = "POST"')
print(f"wrk.body = {json.dumps(body)}")
for h in headers:
    name, value = h.split(": ", 1)
    print(f"wrk.headers[{json.dumps(name)}] = {json.dumps(value)}")
PY
}
[[ "$LOADGEN" == wrk ]] && write_wrk_script

# load PORT SECONDS OUTFILE: one load run; prints "RPS NON2XX ERRORS".
load() {
  local url="http://127.0.0.1:$1/mcp"
  if [[ "$LOADGEN" == oha ]]; then
    local args=() h
    for h in "${HEADERS[@]}"; do args+=(-H "$h"); done
    "$OHA" --no-tui --output-format json --worker-threads 1 -c "$CONNECTIONS" -z "${2}s" \
      --wait-ongoing-requests-after-deadline -m POST "${args[@]}" -d "$BODY" "$url" >"$3"
    python3 - "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
codes = {int(k): v for k, v in (r.get("statusCodeDistribution") or {}).items()}
non2xx = sum(v for k, v in codes.items() if not 200 <= k < 300)
errors = sum((r.get("errorDistribution") or {}).values())
print(f'{r["summary"]["requestsPerSec"]:.1f} {non2xx} {errors}')
PY
  else
    wrk -t1 -c "$CONNECTIONS" -d "${2}s" --timeout 5s -s "$WRK_SCRIPT" "$url" >"$3"
    python3 - "$3" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
rps = float(re.search(r"Requests/sec:\s*([\d.]+)", t).group(1))
m = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", t)
e = re.search(r"Socket errors:\s*connect (\d+), read (\d+), write (\d+), timeout (\d+)", t)
print(f"{rps:.1f} {int(m.group(1)) if m else 0} {sum(map(int, e.groups())) if e else 0}")
PY
  fi
}

# ---- stdio helpers -----------------------------------------------------------
STDIO_INPUT="$OUT/stdio-$STDIO_LINES.jsonl"
make_stdio_input() {
  python3 - "$STDIO_LINES" "$PROTOCOL_VERSION" >"$STDIO_INPUT" <<'PY'
import sys
n, version = int(sys.argv[1]), sys.argv[2]
line = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_simple_text",'
        '"_meta":{"io.modelcontextprotocol/protocolVersion":"' + version + '",'
        '"io.modelcontextprotocol/clientCapabilities":{}}}}\n')
out = sys.stdout
for i in range(1, n + 1):
    out.write(line % i)
PY
}

# stdio_run SERVER OUTFILE TIMEFILE: prints "WALL_S PEAK_RSS_KB ANSWERED OK EXIT".
stdio_run() {
  local bin status=0; bin="$(bin_of "$1")"
  cat "$STDIO_INPUT" | /usr/bin/time -v -o "$3" \
    timeout --kill-after=5 "$STDIO_TIMEOUT" "$bin" stdio >"$2" 2>"$2.stderr" || status=$?
  python3 - "$2" "$3" "$EXPECTED_TEXT" "$status" <<'PY'
import json, re, sys
out, timef, text, status = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
answered, ok = set(), set()
for line in open(out, encoding="utf-8", errors="replace"):
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if not isinstance(msg, dict) or msg.get("id") is None:
        continue
    answered.add(msg["id"])
    result = msg.get("result") or {}
    texts = [c.get("text") for c in result.get("content", []) if c.get("type") == "text"]
    if "error" not in msg and not result.get("isError") and texts == [text]:
        ok.add(msg["id"])
t = open(timef).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
secs = 0.0
for part in wall.split(":"):
    secs = secs * 60 + float(part)
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
print(f"{secs:.2f} {rss} {len(answered)} {len(ok)} {status}")
PY
}

# ---- 3. record what is measured -------------------------------------------------
RESULTS="$OUT/results.tsv"
: >"$RESULTS"
FAILED=0
NOTES=()
# flag SERVER TEXT: a run that did not answer every request with a success.
# Fails the script for ours; for rmcp or the floor it is a finding, reported
# at the end.
flag() {
  NOTES+=("$1: $2")
  [[ "$1" == ours ]] && FAILED=1
  return 0
}
START_TS=$(date +%s)
FLOOR_HYPER="$(grep -A1 '^name = "hyper"$' "$SCRIPT_DIR/rmcp-server/Cargo.lock" | sed -n 's/^version = "\(.*\)"$/\1/p')"
OURS_REV="$(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$REPO_ROOT" status --porcelain -- '*.rs' '*.toml' Cargo.lock ':!bench' 2>/dev/null || true)" ]]; then
  OURS_REV="$OURS_REV+uncommitted changes"
fi
[[ -n "$CUSTOM_OURS" ]] && OURS_REV="OURS_BIN=$OURS_BIN"
[[ "${SKIP_BUILD:-0}" == 1 && -z "$CUSTOM_OURS" ]] && OURS_REV="$OURS_REV (HEAD now; SKIP_BUILD=1 used the binary as built)"
CPU="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || echo unknown)"
log "ours: mcp-everything @ $OURS_REV; rmcp $RMCP_VERSION; floor: hyper $FLOOR_HYPER; $LOADGEN_VERSION; $(rustc --version)"
log "machine: $(nproc) cores ($CPU); mode: $([[ "$QUICK" == 1 ]] && echo QUICK || echo full)"
# How busy the machine is before we start (the busy share of both cores over 1 s).
cpu_busy_percent() {
  local a b
  a=($(head -n1 /proc/stat)); sleep 1; b=($(head -n1 /proc/stat))
  local idle=$(( (b[4] + b[5]) - (a[4] + a[5]) )) total=0 i
  for i in 1 2 3 4 5 6 7 8; do total=$(( total + b[i] - a[i] )); done
  (( total > 0 )) && echo $(( 100 * (total - idle) / total )) || echo 0
}
BUSY_START="$(cpu_busy_percent 2>/dev/null || echo 0)"
log "CPU busy before the runs: ${BUSY_START}%"
if (( BUSY_START > 20 )); then
  log "warning: something else is using the CPU (${BUSY_START}% busy); the numbers will be noisy"
fi

# ---- 4. verify each server's answer by hand before measuring ------------------
for s in "${HTTP_SERVERS[@]}"; do
  port="$(free_port)"
  start_http "$s" "$port" "$OUT/verify-$s.log" || die "$s did not start on 127.0.0.1:$port (see $OUT/verify-$s.log)"
  code="$(curl_call "$port" "$OUT/verify-$s.http.json")"
  stop_server
  [[ "$code" == 200 ]] && check_answer "$OUT/verify-$s.http.json" \
    || die "$s over HTTP: status $code, body $(head -c 400 "$OUT/verify-$s.http.json" 2>/dev/null)"
  log "verified $s over HTTP: 200 $(head -c 300 "$OUT/verify-$s.http.json")"
  # stdin stays open for a second after the request: rmcp drops answers
  # still in flight when stdin closes (see the stdio runs' "lost").
  (request_json 1; echo; sleep 1) | timeout 10 "$(bin_of "$s")" stdio >"$OUT/verify-$s.stdio.json" 2>/dev/null || true
  head -n1 "$OUT/verify-$s.stdio.json" >"$OUT/verify-$s.stdio.first.json"
  check_answer "$OUT/verify-$s.stdio.first.json" \
    || die "$s over stdio: $(head -c 400 "$OUT/verify-$s.stdio.json")"
  log "verified $s over stdio"
done
# The floor answers fixed bytes meant to be ours, byte for byte.
cmp -s "$OUT/verify-ours.http.json" "$OUT/verify-floor.http.json" \
  || log "warning: the floor's fixed answer ($(wc -c <"$OUT/verify-floor.http.json") bytes) differs from ours ($(wc -c <"$OUT/verify-ours.http.json") bytes); update ANSWER in bench/rmcp-server/src/bin/floor.rs"

# ---- 5. HTTP -------------------------------------------------------------------------
log "HTTP: $ROUNDS rounds x {ours, rmcp, floor}: ${WARMUP}s warm-up + ${DURATION}s load, 1 thread, $CONNECTIONS connections ($LOADGEN)"
for round in $(seq 1 "$ROUNDS"); do
  for s in "${HTTP_SERVERS[@]}"; do
    port="$(free_port)"
    if ! start_http "$s" "$port" "$OUT/http-$s-$round.server.log"; then
      flag "$s" "did not start on port $port"; stop_server; continue
    fi
    load "$port" "$WARMUP" "$OUT/http-$s-$round.warmup.out" >/dev/null
    read -r rps non2xx errors < <(load "$port" "$DURATION" "$OUT/http-$s-$round.out")
    # The answer after the load still is a success.
    code="$(curl_call "$port" "$OUT/http-$s-$round.after.json")"
    stop_server
    [[ "$code" == 200 ]] && check_answer "$OUT/http-$s-$round.after.json" || flag "$s" "HTTP round $round: a bad answer after the load"
    (( non2xx == 0 && errors == 0 )) || flag "$s" "HTTP round $round: $non2xx non-2xx, $errors errors"
    printf 'http\t%s\t%s\t%s\t%s\t%s\n' "$s" "$round" "$rps" "$non2xx" "$errors" >>"$RESULTS"
    log "HTTP round $round $s: $rps req/s, $non2xx non-2xx, $errors errors"
  done
done

# ---- 6. stdio --------------------------------------------------------------------------
make_stdio_input
log "stdio: $ROUNDS rounds x {ours, rmcp, floor}: $STDIO_LINES pipelined tools/call lines each"
for round in $(seq 1 "$ROUNDS"); do
  for s in "${SERVERS[@]}"; do
    read -r wall rss answered ok status < <(stdio_run "$s" "$OUT/stdio-$s-$round.out" "$OUT/stdio-$s-$round.time")
    lost=$((STDIO_LINES - answered))
    failed=$((answered - ok))
    (( lost == 0 && failed == 0 && status == 0 )) ||
      flag "$s" "stdio round $round: $lost lost, $failed not successful, exit $status"
    printf 'stdio\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$round" "$wall" "$rss" "$lost" "$failed" "$status" >>"$RESULTS"
    log "stdio round $round $s: ${wall}s wall, $((rss / 1024)) MiB peak RSS, $lost lost, $failed not successful, exit $status"
  done
done

# ---- 7. summary ------------------------------------------------------------------------
ELAPSED=$(( $(date +%s) - START_TS ))
python3 - "$RESULTS" "$DURATION" "$STDIO_LINES" "$ROUNDS" "$CONNECTIONS" <<PY | tee "$OUT/summary.txt"
import statistics as st, sys
path, duration, lines, rounds, conns = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
http = {"ours": [], "rmcp": [], "floor": []}
stdio = {"ours": [], "rmcp": [], "floor": []}
for row in open(path):
    f = row.rstrip("\n").split("\t")
    if f[0] == "http":
        http[f[1]].append((int(f[2]), float(f[3]), int(f[4]), int(f[5])))
    else:
        stdio[f[1]].append((int(f[2]), float(f[3]), int(f[4]), int(f[5]), int(f[6]), int(f[7])))

def ratio(a, b):
    return f"{a / b:.2f}" if b else "n/a"

print()
print("== mcp-everything ($OURS_REV) vs rmcp $RMCP_VERSION (and the floors) ==")
print("   $(nproc) cores ($CPU); $LOADGEN_VERSION; $(rustc --version | cut -d' ' -f1-2); CPU busy before the runs ${BUSY_START}%")
print()
print(f"HTTP  tools/call test_simple_text, {duration} s per run after ${WARMUP} s warm-up, 1 thread, {conns} connections")
print(f"  {'round':<6}{'server':<8}{'req/s':>12}{'non-2xx':>10}{'errors':>8}")
for r in range(1, int(rounds) + 1):
    for s in ("ours", "rmcp", "floor"):
        for (rr, rps, n2, err) in http[s]:
            if rr == r:
                print(f"  {r:<6}{s:<8}{rps:>12,.0f}{n2:>10}{err:>8}")
print()
print(f"stdio {lines:,} pipelined tools/call lines per run")
print(f"  {'round':<6}{'server':<8}{'wall s':>9}{'peak RSS MiB':>14}{'lost':>7}{'failed':>8}{'exit':>6}")
for r in range(1, int(rounds) + 1):
    for s in ("ours", "rmcp", "floor"):
        for (rr, wall, rss, lost, failed, status) in stdio[s]:
            if rr == r:
                print(f"  {r:<6}{s:<8}{wall:>9.2f}{rss / 1024:>14.1f}{lost:>7}{failed:>8}{status:>6}")
print()
print("Summary (mean over rounds; ratio = ours / rmcp)")
print(f"  {'metric':<28}{'ours':>14}{'rmcp':>14}{'ratio':>8}")
def row(name, a, b, fmt, with_ratio=True):
    r = ratio(a, b) if with_ratio else ""
    print(f"  {name:<28}{format(a, fmt):>14}{format(b, fmt):>14}{r:>8}")
if http["ours"] and http["rmcp"]:
    row("HTTP req/s", st.mean(x[1] for x in http["ours"]), st.mean(x[1] for x in http["rmcp"]), ",.0f")
    row("HTTP non-2xx (total)", sum(x[2] for x in http["ours"]), sum(x[2] for x in http["rmcp"]), "d", False)
if stdio["ours"] and stdio["rmcp"]:
    row("stdio wall s", st.mean(x[1] for x in stdio["ours"]), st.mean(x[1] for x in stdio["rmcp"]), ".2f")
    o = [x[2] / 1024 for x in stdio["ours"]]; m = [x[2] / 1024 for x in stdio["rmcp"]]
    row("stdio peak RSS MiB", st.mean(o), st.mean(m), ".1f")
    lo, hi = min(a / b for a in o for b in m), max(a / b for a in o for b in m)
    print(f"  {'stdio peak RSS MiB, range':<28}{f'{min(o):.1f}-{max(o):.1f}':>14}{f'{min(m):.1f}-{max(m):.1f}':>14}{f'{lo:.2f}-{hi:.2f}':>11}")
    row("stdio lost answers (total)", sum(x[3] for x in stdio["ours"]), sum(x[3] for x in stdio["rmcp"]), "d", False)
if http["ours"] and http["floor"]:
    ours_rps, floor_rps = st.mean(x[1] for x in http["ours"]), st.mean(x[1] for x in http["floor"])
    print()
    print("Bare-hyper floor (HTTP: hyper, body parsed into a JSON value, fixed answer; mean over rounds)")
    print(f"  {'HTTP req/s floor':<28}{format(floor_rps, ',.0f'):>14}")
    print(f"  {'HTTP non-2xx floor (total)':<28}{sum(x[2] for x in http['floor']):>14}")
    print(f"  {'HTTP req/s ours / floor':<28}{ratio(ours_rps, floor_rps):>14}")
if stdio["ours"] and stdio["floor"]:
    ours_wall, floor_wall = st.mean(x[1] for x in stdio["ours"]), st.mean(x[1] for x in stdio["floor"])
    print()
    print("stdio floor (lines parsed into a JSON value, fixed answer with the id; mean over rounds)")
    print(f"  {'stdio wall s floor':<28}{format(floor_wall, '.2f'):>14}")
    print(f"  {'stdio peak RSS MiB floor':<28}{format(st.mean(x[2] / 1024 for x in stdio['floor']), '.1f'):>14}")
    print(f"  {'stdio wall ours / floor':<28}{ratio(ours_wall, floor_wall):>14}")
print()
print("Result files: $OUT  (results.tsv, per-run outputs); took ${ELAPSED} s")
PY

if (( ${#NOTES[@]} )); then
  echo "Runs that did not answer every request with a success:"
  printf '  %s\n' "${NOTES[@]}"
fi
if (( FAILED )); then
  log "our server lost answers, answered with an error or non-2xx, or failed to start"
  exit 1
fi

#!/usr/bin/env bash
# The era gateway (mcp-gateway/, binary mcp-era-gateway) measured against
# its backend, our fixture server mcp-everything, reached directly. A bench,
# not a test: it prints figures and fails only when an answer is wrong or a
# process does not start, never on a time.
#
#   1. Concurrency: `tools/call slow_compute {"seconds": S}` once alone, then
#      N (16) at once, each on its own connection, released together; the
#      wall time of the N and its ratio to one call (1.0: fully side by side;
#      N: one at a time). Median of REPEAT runs.
#   2. Cost: `tools/call test_simple_text` under wrk (bench/gateway.lua, every
#      answer checked): LAT_CONNS (2) connections for latency and TPUT_CONNS
#      (16) for throughput, one wrk thread, DURATION s each after a WARMUP s
#      warm-up, the targets alternating for ROUNDS rounds; req/s, p50, p99,
#      and what the gateway adds to the direct p50.
#
# Targets (all on loopback, started once, stopped by PID on exit):
#   direct             mcp-everything http (modern requests, no session)
#   http-legacy        gateway --url <that server> --backend-era legacy
#   stdio-legacy       gateway --backend-era legacy -- mcp-everything stdio
#   http-modern        gateway --url <that server> --backend-era modern (MODERN=1)
# each gateway with input on (the default) and with --no-input (suffix -noinput).
#
# Usage (from anywhere):
#   bash bench/gateway.sh                 # about 7 min once built
#   QUICK=1 bash bench/gateway.sh         # smoke: 2 s loads, 1 round, about 1.5 min
#
# Environment:
#   GATEWAY_BIN, EVERYTHING_BIN   prebuilt binaries (both given: no build)
#   SKIP_BUILD=1       use target/release binaries as they are
#   CARGO_TARGET_DIR   where cargo builds (default <repo>/target)
#   N=16  SLOW_SECONDS=0.2  REPEAT=3       the concurrency part
#   DURATION=10  WARMUP=2  ROUNDS=2  LAT_CONNS=2  TPUT_CONNS=16   the cost part
#   MODERN=1           also a modern HTTP backend (0: only the brief's legacy cells)
#   PARTS="concurrency cost"   which parts to run
#   CAPABILITIES='{"elicitation":{}}'   what the clients declare (default
#                      none: a client that declares an input capability
#                      takes the lane over a legacy stdio backend)
#   BASE_PORT=38600    first loopback port tried
#   BENCH_OUT=DIR      logs and results (<target>/bench-gateway)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-$REPO_ROOT/target}"

QUICK="${QUICK:-0}"
if [[ "$QUICK" == 1 ]]; then
  DURATION="${DURATION:-2}"; ROUNDS="${ROUNDS:-1}"; REPEAT="${REPEAT:-1}"; WARMUP="${WARMUP:-1}"
fi
N="${N:-16}"
SLOW_SECONDS="${SLOW_SECONDS:-0.2}"
REPEAT="${REPEAT:-3}"
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-2}"
ROUNDS="${ROUNDS:-2}"
LAT_CONNS="${LAT_CONNS:-2}"
TPUT_CONNS="${TPUT_CONNS:-16}"
MODERN="${MODERN:-1}"
PARTS="${PARTS:-concurrency cost}"
BASE_PORT="${BASE_PORT:-38600}"
OUT="${BENCH_OUT:-$TARGET_DIR/bench-gateway}"
LOAD_PY="$SCRIPT_DIR/gateway_load.py"
WRK_LUA="$SCRIPT_DIR/gateway.lua"

SIMPLE_TEXT="This is a simple text response for testing."
# mcp-everything's slow_compute answers "Computed {label} in {seconds} s"
# (no label: two spaces); the seconds as Python prints them, which for
# plain decimals like 0.2 is how Rust prints an f64 too (whole numbers
# without ".0", as Rust does).
SLOW_ARGS="{\"seconds\": $SLOW_SECONDS}"
SLOW_TEXT="$(python3 -c 'import sys; x = float(sys.argv[1]); print(f"Computed  in {int(x) if x.is_integer() else x} s")' "$SLOW_SECONDS")"

log() { printf '[gateway-bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

command -v python3 >/dev/null || die "python3 is needed"
if [[ " $PARTS " == *" cost "* ]]; then
  command -v wrk >/dev/null || die "wrk is needed for the cost part (apt-get install -y wrk), or PARTS=concurrency"
fi
mkdir -p "$OUT"

# ---- binaries -------------------------------------------------------------------
GIVEN_GATEWAY_BIN="${GATEWAY_BIN:-}"
if [[ -n "${GATEWAY_BIN:-}" && -n "${EVERYTHING_BIN:-}" ]]; then
  :
elif [[ "${SKIP_BUILD:-0}" == 1 ]]; then
  GATEWAY_BIN="${GATEWAY_BIN:-$TARGET_DIR/release/mcp-era-gateway}"
  EVERYTHING_BIN="${EVERYTHING_BIN:-$TARGET_DIR/release/mcp-everything}"
else
  log "building (release): mcp-era-gateway, mcp-everything"
  (cd "$REPO_ROOT" && CARGO_TARGET_DIR="$TARGET_DIR" cargo build --release -q \
    -p mcp-era-gateway -p mcp-everything --bin mcp-era-gateway --bin mcp-everything)
  GATEWAY_BIN="${GATEWAY_BIN:-$TARGET_DIR/release/mcp-era-gateway}"
  EVERYTHING_BIN="${EVERYTHING_BIN:-$TARGET_DIR/release/mcp-everything}"
fi
[[ -x "$GATEWAY_BIN" ]] || die "no gateway binary at $GATEWAY_BIN"
[[ -x "$EVERYTHING_BIN" ]] || die "no mcp-everything binary at $EVERYTHING_BIN"

# ---- processes ------------------------------------------------------------------
PIDS=()
stop_all() {
  local pid child
  for pid in "${PIDS[@]}"; do
    # A gateway's stdio backend is its child: stop it by its PID too.
    for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do kill "$child" 2>/dev/null || true; done
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  PIDS=()
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# shellcheck source=interop/ports.sh
source "$REPO_ROOT/interop/ports.sh"
port_in_use() { ! port_free "$1"; }
NEXT_PORT="$BASE_PORT"
free_port() {
  while port_in_use "$NEXT_PORT"; do NEXT_PORT=$((NEXT_PORT + 1)); done
  PORT="$NEXT_PORT"
  NEXT_PORT=$((NEXT_PORT + 1))
}

declare -A URL DESC PID_OF GW_PID BE_PID
TARGETS=()
# wait_up NAME PID: the port answers and a test_simple_text call is right.
wait_up() {
  local name="$1" pid="$2" i why=""
  for i in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || die "$name exited at start (see $OUT/$name.log): $(tail -c 400 "$OUT/$name.log")"
    if why="$(python3 "$LOAD_PY" check "${URL[$name]}" test_simple_text '{}' "$SIMPLE_TEXT" 2>&1)"; then
      log "$name is up: ${URL[$name]} (pid $pid)"
      return 0
    fi
    sleep 0.1
  done
  die "$name did not answer test_simple_text within 15 s: $why"
}

start_target() { # NAME DESCRIPTION COMMAND...
  local name="$1" desc="$2"; shift 2
  free_port
  URL[$name]="http://127.0.0.1:$PORT/mcp"
  DESC[$name]="$desc"
  local cmd=("$@")
  cmd=("${cmd[@]//@PORT@/$PORT}")
  "${cmd[@]}" >"$OUT/$name.log" 2>&1 &
  PIDS+=("$!")
  PID_OF[$name]="$!"
  TARGETS+=("$name")
  wait_up "$name" "$!"
}

start_target direct "mcp-everything http (modern, direct)" \
  "$EVERYTHING_BIN" http --listen "127.0.0.1:@PORT@"
BACKEND_URL="${URL[direct]}"
GW=("$GATEWAY_BIN" --listen "127.0.0.1:@PORT@")
for input in on off; do
  flag=(); suffix=""; label="input on"
  [[ "$input" == off ]] && { flag=(--no-input); suffix="-noinput"; label="--no-input"; }
  start_target "http-legacy$suffix" "gateway -> legacy HTTP backend, $label" \
    "${GW[@]}" "${flag[@]}" --backend-era legacy --url "$BACKEND_URL"
  start_target "stdio-legacy$suffix" "gateway -> legacy stdio backend, $label" \
    "${GW[@]}" "${flag[@]}" --backend-era legacy -- "$EVERYTHING_BIN" stdio
  if [[ "$MODERN" == 1 ]]; then
    start_target "http-modern$suffix" "gateway -> modern HTTP backend, $label" \
      "${GW[@]}" "${flag[@]}" --backend-era modern --url "$BACKEND_URL"
  fi
done
# Whose CPU time each target's load costs: the gateway's, and the backend's
# (the shared HTTP server, or the gateway's own stdio child).
for t in "${TARGETS[@]}"; do
  case "$t" in
    direct) GW_PID[$t]=""; BE_PID[$t]="${PID_OF[direct]}" ;;
    http-*) GW_PID[$t]="${PID_OF[$t]}"; BE_PID[$t]="${PID_OF[direct]}" ;;
    stdio-*)
      GW_PID[$t]="${PID_OF[$t]}"
      BE_PID[$t]="$(ps -o pid= --ppid "${PID_OF[$t]}" | tr -d ' ' | head -n1)"
      [[ -n "${BE_PID[$t]}" ]] || die "$t: no stdio backend process under the gateway (pid ${PID_OF[$t]})"
      ;;
  esac
done
CLK_TCK="$(getconf CLK_TCK)"
cpu_ticks() { # PID: user + system clock ticks so far (0 for none, "gone" if it exited)
  [[ -n "$1" ]] || { echo 0; return; }
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || { echo gone; return; }
  awk '{print $12 + $13}' <<<"${stat##*) }"
}
ticks_between() { # BEFORE AFTER: the difference, -1 when the process went away
  [[ "$1" == gone || "$2" == gone ]] && { echo -1; return; }
  echo $(($2 - $1))
}

# Table order: direct, then per backend input on / --no-input.
ORDER=(direct http-legacy http-legacy-noinput stdio-legacy stdio-legacy-noinput)
[[ "$MODERN" == 1 ]] && ORDER+=(http-modern http-modern-noinput)

RESULTS="$OUT/results.tsv"
: >"$RESULTS"
for t in "${ORDER[@]}"; do printf 'desc\t%s\t%s\n' "$t" "${DESC[$t]}" >>"$RESULTS"; done
FAILED=0

busy_percent() { # the busy share of all cores over 1 s
  local a b idle total=0 i
  read -ra a < <(head -n1 /proc/stat); sleep 1; read -ra b < <(head -n1 /proc/stat)
  idle=$(( (b[4] + b[5]) - (a[4] + a[5]) ))
  for i in 1 2 3 4 5 6 7 8; do total=$(( total + b[i] - a[i] )); done
  (( total > 0 )) && echo $(( 100 * (total - idle) / total )) || echo 0
}
BUSY="$(busy_percent 2>/dev/null || echo '?')"
log "CPU busy before measuring: ${BUSY}% ($(nproc) cores)"
[[ "$BUSY" =~ ^[0-9]+$ ]] && (( BUSY > 20 )) && log "warning: the machine is busy; figures will be noisy"

# ---- 1. concurrency -----------------------------------------------------------------
if [[ " $PARTS " == *" concurrency "* ]]; then
  log "concurrency: slow_compute $SLOW_ARGS, 1 alone then $N at once, median of $REPEAT, clients declaring ${CAPABILITIES:-{\}}"
  for t in "${ORDER[@]}"; do
    if out="$(python3 "$LOAD_PY" concurrency "${URL[$t]}" slow_compute "$SLOW_ARGS" "$SLOW_TEXT" "$N" "$REPEAT")"; then
      printf 'conc\t%s\t%s\n' "$t" "$out" >>"$RESULTS"
      log "$t: $out"
    else
      printf 'conc\t%s\t%s\n' "$t" "$out" >>"$RESULTS"
      log "$t: WRONG ANSWER: $out"
      FAILED=1
    fi
  done
fi

# ---- 2. cost ---------------------------------------------------------------------------
# run_wrk NAME CONNS SECONDS OUTFILE
run_wrk() {
  EXPECTED_TEXT="$SIMPLE_TEXT" wrk -t1 -c "$2" -d "${3}s" --timeout 10s -s "$WRK_LUA" "${URL[$1]}" >"$4" 2>&1 || true
}
if [[ " $PARTS " == *" cost "* ]]; then
  log "cost: test_simple_text under wrk, $ROUNDS rounds x ${#ORDER[@]} targets x {c$LAT_CONNS, c$TPUT_CONNS}, ${WARMUP}s warm-up + ${DURATION}s each"
  for round in $(seq 1 "$ROUNDS"); do
    for t in "${ORDER[@]}"; do
      for conns in "$LAT_CONNS" "$TPUT_CONNS"; do
        run_wrk "$t" "$conns" "$WARMUP" "$OUT/wrk-$t-c$conns-r$round.warmup.txt"
        f="$OUT/wrk-$t-c$conns-r$round.txt"
        gw0="$(cpu_ticks "${GW_PID[$t]}")"; be0="$(cpu_ticks "${BE_PID[$t]}")"
        run_wrk "$t" "$conns" "$DURATION" "$f"
        gw1="$(cpu_ticks "${GW_PID[$t]}")"; be1="$(cpu_ticks "${BE_PID[$t]}")"
        line="$(grep '^RESULT ' "$f" || true)"
        if [[ -z "$line" ]]; then
          log "$t c$conns round $round: wrk printed no result: $(tail -c 300 "$f")"
          FAILED=1; continue
        fi
        line="$line gw_ticks=$(ticks_between "$gw0" "$gw1") be_ticks=$(ticks_between "$be0" "$be1") clk_tck=$CLK_TCK"
        [[ "$line" == *"_ticks=-1 "* ]] && log "$t: a process went away during the run (restarted backend?); its CPU time is not counted"
        printf 'cost\t%s\t%s\t%s\t%s\n' "$t" "$conns" "$round" "${line#RESULT }" >>"$RESULTS"
        log "$t c$conns round $round: ${line#RESULT }"
        if [[ "$line" != *" connect=0 read=0 write=0 status=0 timeout=0 "* || "$line" != *" bad=0 "* ]]; then
          log "$t c$conns round $round: errors or wrong answers: $(grep '^FIRST_BAD' "$f" || true)"
          FAILED=1
        fi
        python3 "$LOAD_PY" check "${URL[$t]}" test_simple_text '{}' "$SIMPLE_TEXT" >/dev/null \
          || { log "$t: a wrong answer after the load"; FAILED=1; }
      done
    done
  done
fi

# ---- summary ---------------------------------------------------------------------------
GW_REV="$(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$REPO_ROOT" status --porcelain -- '*.rs' '*.toml' Cargo.lock ':!bench' 2>/dev/null || true)" ]]; then
  GW_REV="$GW_REV+uncommitted"
fi
if [[ -n "$GIVEN_GATEWAY_BIN" ]]; then
  GW_REV="GATEWAY_BIN=$GIVEN_GATEWAY_BIN"
elif [[ "${SKIP_BUILD:-0}" == 1 ]]; then
  GW_REV="$GW_REV (HEAD now; SKIP_BUILD=1 used the binary as built)"
fi
python3 - "$RESULTS" "$N" "$SLOW_ARGS" "$REPEAT" "$LAT_CONNS" "$TPUT_CONNS" "$DURATION" "$ROUNDS" \
  "$GW_REV" "$(nproc)" "$BUSY" <<'PY' | tee "$OUT/summary.txt"
import json, os, statistics as st, sys
(path, n, slow_args, repeat, lat_c, tput_c, duration, rounds, rev, cores, busy) = sys.argv[1:]
desc, conc, cost = {}, {}, {}
order = []
for row in open(path):
    f = row.rstrip("\n").split("\t")
    if f[0] == "desc":
        desc[f[1]] = f[2]; order.append(f[1])
    elif f[0] == "conc":
        conc[f[1]] = json.loads(f[2])
    elif f[0] == "cost":
        kv = dict(x.split("=") for x in f[4].split())
        cost.setdefault((f[1], f[2]), []).append({k: float(v) for k, v in kv.items()})

print()
print(f"== mcp-era-gateway bench: gateway @ {rev}; {cores} cores; CPU busy before {busy}% ==")
if conc:
    print()
    print(f"1. Concurrency: tools/call slow_compute {slow_args}: 1 call alone, then {n} at once"
          f" (own connections; median of {repeat}; clients declaring {os.environ.get('CAPABILITIES') or '{}'})")
    print(f"  {'target':<46}{'1 call s':>9}{f'{n} calls s':>11}{'ratio':>7}{'each call s (min-max)':>24}")
    for t in order:
        r = conc.get(t)
        if r is None:
            continue
        if "error" in r:
            print(f"  {desc[t]:<46}  WRONG ANSWER: {r['error'][:120]}")
            continue
        spread = f"{r['latency_min_s']:.2f}-{r['latency_max_s']:.2f}"
        print(f"  {desc[t]:<46}{r['single_s']:>9.3f}{r['concurrent_s']:>11.3f}{r['ratio']:>7.1f}{spread:>24}")
    print(f"  (ratio ~1: calls side by side; ~{n}: one at a time)")
if cost:
    def cpu_us(runs, key):
        if any(r[key] < 0 for r in runs):
            return float("nan")
        return sum(r[key] for r in runs) * 1e6 / runs[0]["clk_tck"] / sum(r["requests"] for r in runs)
    def agg(t, c):
        runs = cost.get((t, c), [])
        if not runs:
            return None
        return {
            "rps": st.mean(r["requests"] / (r["duration_us"] / 1e6) for r in runs),
            "p50": st.mean(r["p50_us"] for r in runs) / 1000,
            "p99": st.mean(r["p99_us"] for r in runs) / 1000,
            "errors": sum(r["connect"] + r["read"] + r["write"] + r["status"] + r["timeout"] + r["bad"] for r in runs),
            # CPU time per request (us), from /proc/PID/stat around the run.
            # nan when a process went away during a run (its ticks are -1).
            "gw_us": cpu_us(runs, "gw_ticks"),
            "be_us": cpu_us(runs, "be_ticks"),
        }
    print()
    print(f"2. Cost: tools/call test_simple_text under wrk, 1 thread, {duration} s per run,"
          f" mean of {rounds} rounds (targets alternating)")
    print(f"  {'':<46}{f'--- {lat_c} connections ---':>28}{f'--- {tput_c} connections ---':>28}")
    print(f"  {'target':<46}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}")
    for t in order:
        a, b = agg(t, lat_c), agg(t, tput_c)
        if a is None or b is None:
            continue
        print(f"  {desc[t]:<46}{a['rps']:>10,.0f}{a['p50']:>9.3f}{a['p99']:>9.3f}"
              f"{b['rps']:>10,.0f}{b['p50']:>9.3f}{b['p99']:>9.3f}{a['errors'] + b['errors']:>8.0f}")
    print()
    print(f"  CPU time per request at {tput_c} connections (us; /proc/PID/stat around each run,"
          f" so other load on the machine does not count):")
    print(f"  {'target':<46}{'gateway':>10}{'backend':>10}{'total':>10}")
    for t in order:
        b = agg(t, tput_c)
        if b is None:
            continue
        gw = f"{b['gw_us']:.0f}" if t != "direct" else "-"
        print(f"  {desc[t]:<46}{gw:>10}{b['be_us']:>10.0f}{b['gw_us'] + b['be_us']:>10.0f}")
    d_lat, d_tput = agg("direct", lat_c), agg("direct", tput_c)
    if d_lat and d_tput:
        print()
        print(f"  gateway adds, p50 over the direct call to mcp-everything http"
              f" ({lat_c} / {tput_c} connections; req/s as a share of direct at {tput_c}):")
        for t in order:
            if t == "direct":
                continue
            a, b = agg(t, lat_c), agg(t, tput_c)
            if a is None or b is None:
                continue
            print(f"    {desc[t]:<44} +{a['p50'] - d_lat['p50']:.3f} ms / +{b['p50'] - d_tput['p50']:.3f} ms p50;"
                  f" {b['rps'] / d_tput['rps']:.2f}x req/s")
print()
print(f"Result files: {path.rsplit('/', 1)[0]}")
PY

if (( FAILED )); then
  log "some answers were wrong or runs failed (see above and $OUT)"
  exit 1
fi

#!/usr/bin/env bash
# What a composed front costs: three HTTP backends reached directly, each in
# its own era, against the same three behind one mcp-era-gateway --config
# (prefix conditional: three backends, so every name is prefixed), asked in
# 2026-07-28. A bench, not a test: it prints figures and fails only when an
# answer is wrong or a process does not start, never on a time.
#
# Backends (loopback, started once, stopped by PID on exit):
#   everything   mcp-everything http (Rust, modern and legacy)
#   py2          interop/gateway_py2_modern_server.py http (Python SDK 2.3.0, modern only)
#   py1          interop/gateway_py1_server.py http (FastMCP on the Python SDK 1.x, legacy only)
# Per target, sequentially on one keep-alive connection (bench/compose_load.py):
#   list   every page of tools/list (the front's pages of 100 merge all three)
#   call   tools/call of one tool (test_simple_text, add, add)
# p50 and p90 of LIST_N (50) lists and CALL_N (200) calls, after a warm-up.
#
# Usage: bash bench/compose.sh      (needs the peers: bash interop/install-peers.sh)
# Environment: GATEWAY_BIN, EVERYTHING_BIN (prebuilt; else a release build),
#   LIST_N, CALL_N, BASE_PORT (38700), BENCH_OUT (<target>/bench-compose).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-$REPO_ROOT/target}"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
LIST_N="${LIST_N:-50}"
CALL_N="${CALL_N:-200}"
OUT="${BENCH_OUT:-$TARGET_DIR/bench-compose}"
LOAD="$SCRIPT_DIR/compose_load.py"
mkdir -p "$OUT"

log() { printf '[compose-bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ -f "$PEERS_DIR/env.sh" ]] || die "peers missing: bash interop/install-peers.sh"
# shellcheck disable=SC1091
source "$PEERS_DIR/env.sh"
if [[ -z "${GATEWAY_BIN:-}" || -z "${EVERYTHING_BIN:-}" ]]; then
  log "building (release): mcp-era-gateway, mcp-everything"
  (cd "$REPO_ROOT" && cargo build --release -q -p mcp-era-gateway -p mcp-everything \
    --bin mcp-era-gateway --bin mcp-everything)
  GATEWAY_BIN="$TARGET_DIR/release/mcp-era-gateway"
  EVERYTHING_BIN="$TARGET_DIR/release/mcp-everything"
fi

PIDS=()
stop_all() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_all EXIT
trap 'exit 130' INT TERM
# shellcheck source=interop/ports.sh
source "$REPO_ROOT/interop/ports.sh"
NEXT_PORT="${BASE_PORT:-38700}"
next_port() {
  PORT="$(next_free_port "$NEXT_PORT")"
  NEXT_PORT=$((PORT + 1))
}
declare -A URL ERA TOOL ARGS TEXT
start() { # NAME ERA COMMAND... (@PORT@ replaced)
  local name="$1" era="$2"; shift 2
  next_port
  URL[$name]="http://127.0.0.1:$PORT/mcp"
  ERA[$name]="$era"
  local cmd=("${@//@PORT@/$PORT}")
  "${cmd[@]}" >"$OUT/$name.log" 2>&1 &
  PIDS+=("$!")
  for _ in $(seq 150); do
    curl -s -o /dev/null --max-time 2 "${URL[$name]}" && return 0
    kill -0 "${PIDS[-1]}" 2>/dev/null || die "$name exited: $(tail -c 300 "$OUT/$name.log")"
    sleep 0.1
  done
  die "$name did not start (see $OUT/$name.log)"
}

start everything modern "$EVERYTHING_BIN" http --listen "127.0.0.1:@PORT@"
start py2 modern "$PEERS_PYTHON" "$REPO_ROOT/interop/gateway_py2_modern_server.py" http @PORT@
start py1 legacy "$PEERS_PYTHON1" "$REPO_ROOT/interop/gateway_py1_server.py" http @PORT@
TOOL=([everything]=test_simple_text [py2]=add [py1]=add)
ARGS=([everything]='{}' [py2]='{"a": 2, "b": 40}' [py1]='{"a": 2, "b": 40}')
TEXT=([everything]="This is a simple text response for testing." [py2]=42 [py1]=42)
BACKENDS=(everything py2 py1)

cat >"$OUT/gateway.toml" <<EOF
[[backend]]
name = "everything"
url = "${URL[everything]}"

[[backend]]
name = "py2"
url = "${URL[py2]}"

[[backend]]
name = "py1"
url = "${URL[py1]}"
EOF
start front modern "$GATEWAY_BIN" --listen "127.0.0.1:@PORT@" --config "$OUT/gateway.toml"

run() { # LABEL ARGS...: one compose_load.py run, recorded
  local label="$1" out; shift
  out="$(python3 "$LOAD" "$@")" || die "$label: $out"
  printf '%s\t%s\n' "$label" "$out" >>"$OUT/results.tsv"
  log "$label: $out"
}
: >"$OUT/results.tsv"
total=0
for b in "${BACKENDS[@]}"; do
  count="$(python3 "$LOAD" "${ERA[$b]}" "${URL[$b]}" list 0 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["seen"])')"
  total=$((total + count))
done
log "the three backends list $total tools"
for b in "${BACKENDS[@]}"; do
  run "list direct $b" "${ERA[$b]}" "${URL[$b]}" list 0 "$LIST_N"
done
run "list front all" modern "${URL[front]}" list "$total" "$LIST_N"
for b in "${BACKENDS[@]}"; do
  run "call direct $b" "${ERA[$b]}" "${URL[$b]}" call "${TOOL[$b]}" "${ARGS[$b]}" "${TEXT[$b]}" "$CALL_N"
  run "call front $b" modern "${URL[front]}" call "${b}__${TOOL[$b]}" "${ARGS[$b]}" "${TEXT[$b]}" "$CALL_N"
done

REV="$(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
python3 - "$OUT/results.tsv" "$REV" "$(nproc)" <<'PY' | tee "$OUT/summary.txt"
import json, sys
path, rev, cores = sys.argv[1:]
r = {}
for row in open(path):
    label, out = row.rstrip("\n").split("\t")
    r[label] = json.loads(out)
print(f"\n== a three-backend front against its backends directly: gateway @ {rev}; {cores} cores ==")
print(f"  {'':<52}{'p50 ms':>9}{'p90 ms':>9}")
rows = [(f"tools/list, all pages, {b} directly", r[f"list direct {b}"]) for b in ("everything", "py2", "py1")]
rows.append(("tools/list, all pages, the front", r["list front all"]))
for label, d in rows:
    label = f"{label} ({d['seen']} tools)"
    print(f"  {label:<52}{d['p50_ms']:>9.2f}{d['p90_ms']:>9.2f}")
print()
print(f"  {'tools/call':<30}{'direct p50':>11}{'front p50':>11}{'added':>9}{'direct p90':>12}{'front p90':>11}")
for b in ("everything", "py2", "py1"):
    d, f = r[f"call direct {b}"], r[f"call front {b}"]
    print(f"  {b:<30}{d['p50_ms']:>11.2f}{f['p50_ms']:>11.2f}{f['p50_ms'] - d['p50_ms']:>+9.2f}{d['p90_ms']:>12.2f}{f['p90_ms']:>11.2f}")
print(f"\nResult files: {path.rsplit('/', 1)[0]}")
PY

#!/usr/bin/env bash
# User-space instructions per HTTP request of each server, counted by
# valgrind's callgrind: repeatable whatever else the machine is doing, where
# req/s on 2 shared cores moves by 20 % from one run to the next. Kernel
# time (the same syscalls for all three servers) is not counted.
#
#   bash bench/instructions.sh        # after bench/compare.sh built the servers
#
# Each server runs under callgrind on a loopback port and answers
# $DURATION s of the compare.sh request (wrk, 1 thread, 4 connections); the
# count over the whole process, start-up included, is divided by the
# requests served. Needs valgrind and wrk (installed with apt when missing).
#
# Environment: DURATION=S (8), BENCH_OUT=DIR (<repo>/target/bench-run, where
# compare.sh left post.lua), OURS_BIN / RMCP_BIN / FLOOR_BIN (the release
# binaries compare.sh builds).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${BENCH_OUT:-$ROOT/target/bench-run}"
DURATION="${DURATION:-8}"
OURS_BIN="${OURS_BIN:-$ROOT/target/release/mcp-everything}"
RMCP_BIN="${RMCP_BIN:-$ROOT/target/bench-rmcp/release/rmcp-bench-server}"
FLOOR_BIN="${FLOOR_BIN:-$ROOT/target/bench-rmcp/release/floor-server}"
PORT="${PORT:-38490}"

log() { printf '[instructions] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

for tool in valgrind wrk; do
  if ! command -v "$tool" >/dev/null; then
    runner=(); [[ "$(id -u)" == 0 ]] || runner=(sudo)
    "${runner[@]}" apt-get install -y "$tool" >/dev/null 2>&1 \
      || { "${runner[@]}" apt-get update >/dev/null && "${runner[@]}" apt-get install -y "$tool" >/dev/null; } \
      || die "could not install $tool"
  fi
done
[[ -f "$OUT/post.lua" ]] || die "no $OUT/post.lua: run LOADGEN=wrk bash bench/compare.sh first"

count() { # NAME BIN ARGS...
  local name=$1 bin=$2; shift 2
  [[ -x "$bin" ]] || die "no $bin: run bash bench/compare.sh first"
  local profile="$OUT/callgrind-$name.out"
  valgrind --tool=callgrind --callgrind-out-file="$profile" "$bin" "$@" "127.0.0.1:$PORT" \
    >"$OUT/callgrind-$name.log" 2>&1 &
  local pid=$! ready=0
  for _ in $(seq 150); do
    if curl -s -o /dev/null "http://127.0.0.1:$PORT/"; then ready=1; break; fi
    sleep 0.2
  done
  (( ready )) || { kill "$pid" 2>/dev/null; die "$name did not start (see $OUT/callgrind-$name.log)"; }
  wrk -t1 -c4 -d "${DURATION}s" -s "$OUT/post.lua" "http://127.0.0.1:$PORT/mcp" >"$OUT/callgrind-$name.wrk"
  kill -TERM "$pid"; wait "$pid" || true
  local requests total
  requests="$(awk '/requests in/ {print $1}' "$OUT/callgrind-$name.wrk")"
  total="$(awk '/^summary:/ {print $2}' "$profile")"
  grep -q "Non-2xx" "$OUT/callgrind-$name.wrk" && log "warning: $name gave non-2xx answers"
  printf '%-6s %9d requests %15d instructions %9d per request\n' \
    "$name" "$requests" "$total" $(( total / requests ))
}

count ours "$OURS_BIN" http --listen
count rmcp "$RMCP_BIN" http
count floor "$FLOOR_BIN" http

#!/usr/bin/env bash
# OpenTelemetry end to end over OTLP/HTTP, no mock collector:
#   - interop/otel/receiver.py, an OTLP/HTTP receiver (http.server and the
#     official opentelemetry-proto messages), on a loopback port;
#   - mcp-everything-otel (feature otel): the fixture over Streamable HTTP
#     behind otel::TraceLayer, exporting with opentelemetry-otlp 0.33.1
#     (http-proto) to the receiver;
#   - interop/otel/client.py: the Python SDK client mcp==2.3.0 traced by
#     opentelemetry-sdk 1.45.2, which puts its span's traceparent into each
#     request's _meta, calls tools (2026-07-28 twice, legacy once);
#   - then the server is stopped by PID (SIGTERM: it flushes its spans and
#     metrics) and interop/otel/check.py compares both sides.
# Needs the peers: `bash interop/install-peers.sh` (the Python venv with
# mcp and the OpenTelemetry packages). Every step has a timeout; what this
# script started is stopped by PID on exit. Ends with `N passed, M failed`.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
STEP_TIMEOUT="${STEP_TIMEOUT:-60}"
OUT_DIR="$REPO_ROOT/target/interop/otel"
rm -rf "$OUT_DIR" && mkdir -p "$OUT_DIR"

if [[ ! -f "$PEERS_DIR/env.sh" ]]; then
  echo "peers missing: run bash interop/install-peers.sh first" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
# shellcheck disable=SC1091
source "$PEERS_DIR/env.sh"

echo "== building the interop binaries (interop/build.sh)"
if ! bash "$REPO_ROOT/interop/build.sh"; then
  echo "build failed"; echo "0 passed, 1 failed"; exit 1
fi
BIN="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-everything-otel"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() { # port: up to 10 s
  for _ in $(seq 1 100); do
    if (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}
wait_exit() { # pid seconds: true once pid is gone
  for _ in $(seq 1 $(($2 * 10))); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  return 1
}
RECEIVER_PID="" SERVER_PID=""
cleanup() {
  local pid
  for pid in "$SERVER_PID" "$RECEIVER_PID"; do
    if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  done
}
trap cleanup EXIT INT TERM
fail() { echo "$1"; echo "0 passed, 1 failed"; exit 1; }

OTLP_PORT="$(free_port)"
"$PEERS_PYTHON" "$SCRIPT_DIR/receiver.py" --port "$OTLP_PORT" --out "$OUT_DIR/received.jsonl" \
  >"$OUT_DIR/receiver.log" 2>&1 &
RECEIVER_PID=$!
wait_port "$OTLP_PORT" || fail "the OTLP receiver did not start (see $OUT_DIR/receiver.log)"
echo "== OTLP/HTTP receiver on 127.0.0.1:$OTLP_PORT (pid $RECEIVER_PID)"

MCP_PORT="$(free_port)"
OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$OTLP_PORT" OTEL_BSP_SCHEDULE_DELAY=200 \
  "$BIN" --listen "127.0.0.1:$MCP_PORT" >"$OUT_DIR/server.log" 2>&1 &
SERVER_PID=$!
wait_port "$MCP_PORT" || fail "mcp-everything-otel did not start (see $OUT_DIR/server.log)"
echo "== mcp-everything-otel on http://localhost:$MCP_PORT/mcp (pid $SERVER_PID)"

echo "== python mcp==2.3.0 + opentelemetry-sdk: tools/call with traceparent in _meta"
if ! timeout "$STEP_TIMEOUT" "$PEERS_PYTHON" "$SCRIPT_DIR/client.py" \
    "http://localhost:$MCP_PORT/mcp" "$OUT_DIR/client-spans.jsonl" 2>"$OUT_DIR/client.log"; then
  tail -20 "$OUT_DIR/client.log"
  fail "the Python client failed (see $OUT_DIR/client.log)"
fi

# SIGTERM: the server stops gracefully, then shuts its providers down,
# which exports every span and a last metrics collection.
kill -TERM "$SERVER_PID"
if ! wait_exit "$SERVER_PID" 20; then
  tail -20 "$OUT_DIR/server.log"
  fail "mcp-everything-otel did not stop within 20 s of SIGTERM"
fi
wait "$SERVER_PID"
status=$?
SERVER_PID=""
[[ $status -eq 0 ]] || { tail -20 "$OUT_DIR/server.log"; fail "mcp-everything-otel exited with $status"; }

echo "== checks"
"$PEERS_PYTHON" "$SCRIPT_DIR/check.py" "$OUT_DIR/received.jsonl" "$OUT_DIR/client-spans.jsonl"

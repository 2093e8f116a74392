#!/usr/bin/env bash
# HTTP/2 with real peers (issue 28): `mcp-everything http`, which speaks
# HTTP/2 beside HTTP/1.1 on one port (feature http2), against
#   - curl (nghttp2) by prior knowledge: server/discover answered as JSON,
#     a tools/call streaming its progress as SSE, a subscriptions/listen
#     acknowledged; each answer HTTP/2, and HTTP/1.1 still served on the
#     same port;
#   - haproxy in front, speaking HTTP/1.1 to its clients and HTTP/2 to the
#     server (`proto h2`: it sends the preface, so a server without HTTP/2
#     fails every request), with the conformance suite 0.2.0-alpha.12
#     through it, both requirement sets.
# Needs the peers (`bash interop/install-peers.sh`), haproxy and curl.
# Prints each result and ends with a plain `N passed, M failed` line; exits
# non-zero on any failure. Every peer run has a timeout; what this script
# starts is stopped by PID on exit.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
CONFORMANCE_VERSION="0.2.0-alpha.12"
SUITE_TIMEOUT="${SUITE_TIMEOUT:-300}"
OUT_DIR="$REPO_ROOT/target/interop/http2"
rm -rf "$OUT_DIR" && mkdir -p "$OUT_DIR"

PASSED=0
FAILED=0
RESULTS=()
record() { # name status detail
  if [[ "$2" == ok ]]; then PASSED=$((PASSED + 1)); RESULTS+=("PASS $1 $3"); else FAILED=$((FAILED + 1)); RESULTS+=("FAIL $1 $3"); fi
}
finish() {
  printf '%s\n' "${RESULTS[@]}"
  echo "$PASSED passed, $FAILED failed"
  [[ $FAILED -eq 0 ]]
  exit
}

if [[ ! -f "$PEERS_DIR/env.sh" ]]; then
  echo "peers missing: run bash interop/install-peers.sh first" >&2
  record peers fail "(no $PEERS_DIR/env.sh)"; finish
fi
# shellcheck disable=SC1091
source "$PEERS_DIR/env.sh"
NPM_DIR="$PEERS_DIR/npm"
for tool in haproxy curl; do
  command -v "$tool" >/dev/null || { record "$tool" fail "(not installed)"; finish; }
done
if ! curl --version | grep -q HTTP2; then
  record curl fail "(built without HTTP/2)"; finish
fi

echo "== building the interop binaries (interop/build.sh)"
bash "$REPO_ROOT/interop/build.sh" || { record build fail "(interop/build.sh)"; finish; }
BIN="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-everything"

# shellcheck source=interop/ports.sh
source "$SCRIPT_DIR/ports.sh"
wait_port() { # port: up to 5 s
  for _ in $(seq 1 50); do
    if (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}
SERVER_PID="" LB_PID=""
cleanup() {
  local pid
  for pid in "$LB_PID" "$SERVER_PID"; do
    if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  done
}
trap cleanup EXIT INT TERM

PORT="$(free_port)"
URL="http://localhost:$PORT/mcp"
MCP_LOG="${MCP_LOG:-warn}" "$BIN" http --listen "127.0.0.1:$PORT" >"$OUT_DIR/server.log" 2>&1 &
SERVER_PID=$!
wait_port "$PORT" || { record server fail "(did not listen; see $OUT_DIR/server.log)"; finish; }
echo "== mcp-everything http on $URL (pid $SERVER_PID)"

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}'
ask() { # name method mcp-name body [curl options...]: HTTP/2 by prior knowledge
  # unless the options say otherwise; the answer in $OUT_DIR/name.{head,body}
  local name="$1" method="$2" tool="$3" body="$4"
  shift 4
  local headers=(-H "Content-Type: application/json" -H "Accept: application/json, text/event-stream"
                 -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: $method")
  [[ -n "$tool" ]] && headers+=(-H "Mcp-Name: $tool")
  curl -sS --http2-prior-knowledge --max-time 10 "$@" -D "$OUT_DIR/$name.head" -o "$OUT_DIR/$name.body" \
    "${headers[@]}" --data "$body" "$URL" 2>"$OUT_DIR/$name.err"
}

# ---- curl by prior knowledge ------------------------------------------------
ask discover server/discover "" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{$META}}}"
if head -1 "$OUT_DIR/discover.head" | grep -q '^HTTP/2 200' && grep -q '"supportedVersions"' "$OUT_DIR/discover.body"; then
  record curl-discover ok "(HTTP/2 200, JSON)"
else
  record curl-discover fail "($(head -1 "$OUT_DIR/discover.head" 2>/dev/null); see $OUT_DIR/discover.*)"
fi

ask progress tools/call test_tool_with_progress \
  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"test_tool_with_progress\",${META},\"progressToken\":\"p1\"}}}"
frames="$(grep -c '^data: ' "$OUT_DIR/progress.body" 2>/dev/null)"
if head -1 "$OUT_DIR/progress.head" | grep -q '^HTTP/2 200' && grep -qi '^content-type: text/event-stream' "$OUT_DIR/progress.head" \
   && [[ "$(grep -c 'notifications/progress' "$OUT_DIR/progress.body")" == 3 ]] && grep -q 'Progress tool completed' "$OUT_DIR/progress.body"; then
  record curl-progress ok "(HTTP/2 SSE: $frames frames, 3 progress then the result)"
else
  record curl-progress fail "($(head -1 "$OUT_DIR/progress.head" 2>/dev/null), $frames frames; see $OUT_DIR/progress.*)"
fi

# A listen stream never ends by itself: curl stops it after 2 s (exit 28).
ask listen subscriptions/listen "" \
  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":{\"toolsListChanged\":true},$META}}}" \
  --max-time 2
if head -1 "$OUT_DIR/listen.head" | grep -q '^HTTP/2 200' && grep -q 'notifications/subscriptions/acknowledged' "$OUT_DIR/listen.body"; then
  record curl-listen ok "(HTTP/2 stream acknowledged, held open)"
else
  record curl-listen fail "($(head -1 "$OUT_DIR/listen.head" 2>/dev/null); see $OUT_DIR/listen.*)"
fi

ask plain server/discover "" "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"server/discover\",\"params\":{$META}}}" --http1.1
if head -1 "$OUT_DIR/plain.head" | grep -q '^HTTP/1.1 200'; then
  record curl-http1 ok "(HTTP/1.1 200 on the same port)"
else
  record curl-http1 fail "($(head -1 "$OUT_DIR/plain.head" 2>/dev/null); see $OUT_DIR/plain.*)"
fi

# ---- haproxy speaking HTTP/2 to the server ----------------------------------
LB_PORT="$(free_port)"
cat >"$OUT_DIR/haproxy.cfg" <<EOF
global
    maxconn 1024
defaults
    mode http
    timeout connect 5s
    timeout http-request 10s
    timeout client 1h
    timeout server 1h
frontend mcp
    bind 127.0.0.1:$LB_PORT
    default_backend server_h2
backend server_h2
    server mcp 127.0.0.1:$PORT proto h2
EOF
if ! haproxy -c -q -f "$OUT_DIR/haproxy.cfg" >"$OUT_DIR/haproxy-check.txt" 2>&1; then
  record haproxy-config fail "(haproxy -c; see $OUT_DIR/haproxy-check.txt)"; finish
fi
haproxy -db -f "$OUT_DIR/haproxy.cfg" >"$OUT_DIR/haproxy.log" 2>&1 &
LB_PID=$!
wait_port "$LB_PORT" || { record haproxy fail "(did not listen; see $OUT_DIR/haproxy.log)"; finish; }

CONFORMANCE="$NPM_DIR/node_modules/.bin/conformance"
for rev in 2026-07-28 2025-11-25; do
  echo "== conformance $CONFORMANCE_VERSION --requirements $rev through haproxy (HTTP/2 to the server)"
  log="$OUT_DIR/conformance-$rev.txt"
  (cd "$NPM_DIR" && timeout "$SUITE_TIMEOUT" "$CONFORMANCE" server --url "http://localhost:$LB_PORT/mcp" \
     --requirements "$rev" -o "$OUT_DIR/conformance-$rev") >"$log" 2>&1
  status=$?
  grep -E '^(✗) |^Total:' "$log"
  total="$(grep -E '^Total:' "$log" | tail -1)"
  if [[ $status -eq 0 ]]; then
    record "haproxy-h2-conformance-$rev" ok "($total; every scored scenario passed)"
  else
    record "haproxy-h2-conformance-$rev" fail "(exit $status; $total; see $log)"
  fi
done

finish

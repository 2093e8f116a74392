#!/usr/bin/env bash
# Interop of our server against real peers (issue 4), pinned versions:
#   - conformance 0.2.0-alpha.12 against `mcp-everything http`, once with
#     --requirements 2026-07-28 and once with --requirements 2025-11-25,
#     same URL;
#   - the Python SDK client mcp==2.3.0 (auto, 2026-07-28, legacy) and the
#     TypeScript client @modelcontextprotocol/client@2.4.0 (legacy, auto,
#     pin) over stdio and over HTTP: connect, report era + version, list
#     tools, call one.
# Needs the peers: `bash interop/install-peers.sh` (writes target/peers/env.sh).
# Prints each result and ends with a plain `N passed, M failed` line; exits
# non-zero on any failure. Every peer run has a timeout; the server is
# killed on exit.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
CONFORMANCE_VERSION="0.2.0-alpha.12"
STEP_TIMEOUT="${STEP_TIMEOUT:-60}"
SUITE_TIMEOUT="${SUITE_TIMEOUT:-600}"

if [[ ! -f "$PEERS_DIR/env.sh" ]]; then
  echo "peers missing: run bash interop/install-peers.sh first" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
# shellcheck disable=SC1091
source "$PEERS_DIR/env.sh"
NPM_DIR="$PEERS_DIR/npm"
OUT_DIR="$REPO_ROOT/target/interop/server-peers"
rm -rf "$OUT_DIR" && mkdir -p "$OUT_DIR"

PASSED=0
FAILED=0
RESULTS=()
record() { # name status detail
  if [[ "$2" == ok ]]; then PASSED=$((PASSED + 1)); RESULTS+=("PASS $1 $3"); else FAILED=$((FAILED + 1)); RESULTS+=("FAIL $1 $3"); fi
}

echo "== building mcp-everything (debug)"
if ! (cd "$REPO_ROOT" && cargo build -q -p mcp-everything); then
  echo "build failed"; echo "0 passed, 1 failed"; exit 1
fi
BIN="$REPO_ROOT/target/debug/mcp-everything"

# A free loopback port.
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
URL="http://localhost:$PORT/mcp"
SERVER_PID=""
cleanup() { if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi; }
trap cleanup EXIT INT TERM

MCP_LOG="${MCP_LOG:-warn}" "$BIN" http --listen "127.0.0.1:$PORT" >"$OUT_DIR/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 50); do
  if (echo >"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
  sleep 0.1
done
echo "== mcp-everything http on $URL (pid $SERVER_PID)"

# ---- conformance, both requirement sets, same URL ---------------------------
CONFORMANCE="$NPM_DIR/node_modules/.bin/conformance"
installed="$(node -p "require('$NPM_DIR/node_modules/@modelcontextprotocol/conformance/package.json').version" 2>/dev/null)"
if [[ "$installed" != "$CONFORMANCE_VERSION" ]]; then
  echo "conformance $installed installed, $CONFORMANCE_VERSION pinned: run interop/install-peers.sh" >&2
fi
for rev in 2026-07-28 2025-11-25; do
  echo "== conformance $CONFORMANCE_VERSION --requirements $rev"
  log="$OUT_DIR/conformance-$rev.txt"
  (cd "$NPM_DIR" && timeout "$SUITE_TIMEOUT" "$CONFORMANCE" server --url "$URL" --requirements "$rev" -o "$OUT_DIR/conformance-$rev") >"$log" 2>&1
  status=$?
  grep -E '^(✓|✗) |^Total:' "$log"
  total="$(grep -E '^Total:' "$log" | tail -1)"
  if [[ $status -eq 0 ]]; then record "conformance-$rev" ok "($total; every scored scenario passed)"; else record "conformance-$rev" fail "(exit $status; $total; see $log)"; fi
done

# ---- Python SDK client -------------------------------------------------------
for mode in auto 2026-07-28 legacy; do
  for transport in stdio http; do
    if [[ $transport == stdio ]]; then target=("$BIN" stdio); else target=("$URL"); fi
    out="$(timeout "$STEP_TIMEOUT" "$PEERS_PYTHON" "$SCRIPT_DIR/py_client.py" "$mode" "${target[@]}" 2>&1)"
    status=$?
    summary="$(echo "$out" | head -1)"
    echo "== python mcp==2.3.0 $mode $transport: $summary"
    if [[ $status -eq 0 ]]; then record "python-$mode-$transport" ok "($summary)"; else echo "$out" | tail -20; record "python-$mode-$transport" fail "(exit $status)"; fi
  done
done

# ---- TypeScript SDK client ---------------------------------------------------
# ES modules resolve packages next to the script, so run a copy from the npm dir.
cp "$SCRIPT_DIR/ts_client.mjs" "$NPM_DIR/mcp-rs-ts-client.mjs"
for mode in legacy auto pin; do
  for transport in stdio http; do
    if [[ $transport == stdio ]]; then target=("$BIN" stdio); else target=("$URL"); fi
    out="$(timeout "$STEP_TIMEOUT" node "$NPM_DIR/mcp-rs-ts-client.mjs" "$mode" "${target[@]}" 2>&1)"
    status=$?
    summary="$(echo "$out" | head -1)"
    echo "== ts @modelcontextprotocol/client@2.4.0 $mode $transport: $summary"
    if [[ $status -eq 0 ]]; then record "ts-$mode-$transport" ok "($summary)"; else echo "$out" | tail -20; record "ts-$mode-$transport" fail "(exit $status)"; fi
  done
done

echo
echo "== summary"
printf '%s\n' "${RESULTS[@]}"
echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]

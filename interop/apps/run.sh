#!/usr/bin/env bash
# MCP Apps in a real browser, no mock host:
#   - the example server `mcp-era/examples/apps.rs` over Streamable HTTP;
#   - interop/apps/host.mjs, a host page built on the official
#     @modelcontextprotocol/ext-apps 2.0.4 AppBridge and the TypeScript client
#     @modelcontextprotocol/client 2.4.0, bundled by esbuild;
#   - Debian's chromium, headless, driven by playwright-core (run.mjs).
# The host checks that app-only tools are hidden from a client without the
# extension, reads the tool's ui:// resource, renders it in a sandboxed
# iframe under the CSP from its _meta.ui, relays the tool's input and result;
# the driver then clicks the App's button, whose tools/call travels through
# the bridge to our server, and waits for the answer to appear in the App.
# Once per era (2026-07-28, and legacy 2025-11-25); a screenshot of each page
# is saved under target/interop/apps/. Needs the peers
# (`bash interop/install-peers.sh`) and chromium (`apt-get install chromium`).
# Ends with `N passed, M failed`.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
NPM_DIR="$PEERS_DIR/npm"
STEP_TIMEOUT="${STEP_TIMEOUT:-90}"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
OUT_DIR="$REPO_ROOT/target/interop/apps"
rm -rf "$OUT_DIR" && mkdir -p "$OUT_DIR"

PASSED=0 FAILED=0
pass() { echo "PASS $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1${2:+: $2}"; FAILED=$((FAILED + 1)); }
finish() { echo "$PASSED passed, $FAILED failed"; [[ $FAILED -eq 0 ]]; exit $?; }

if [[ ! -f "$PEERS_DIR/env.sh" || ! -d "$NPM_DIR/node_modules/@modelcontextprotocol/ext-apps" ]]; then
  fail "peers" "run bash interop/install-peers.sh first"; finish
fi
if [[ ! -x "$CHROMIUM" ]]; then fail "chromium" "$CHROMIUM missing (apt-get install chromium)"; finish; fi
# shellcheck disable=SC1091
source "$PEERS_DIR/env.sh"

echo "== building the apps example"
if ! (cd "$REPO_ROOT" && cargo build -q -p mcp-era --example apps); then fail "build"; finish; fi
BIN="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/examples/apps"

# Bundle the host page where its packages are; ES modules resolve from there.
cp "$SCRIPT_DIR/host.mjs" "$NPM_DIR/mcp-era-apps-host.mjs"
if ! (cd "$NPM_DIR" && node_modules/.bin/esbuild mcp-era-apps-host.mjs --bundle --platform=browser \
    --format=iife --outfile="$OUT_DIR/host.js" --log-level=warning); then
  fail "bundle" "esbuild"; finish
fi
cp "$SCRIPT_DIR/run.mjs" "$NPM_DIR/mcp-era-apps-run.mjs"
cp "$SCRIPT_DIR/host.html" "$OUT_DIR/host.html"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() { # port: up to 10 s
  for _ in $(seq 1 100); do
    if (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}
SERVER_PID=""
cleanup() { if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi; }
trap cleanup EXIT INT TERM

# The example's counter App: show_counter's result is shown (0), the App's
# button calls the app-only tool increment, and the App shows 1.
APPS_TOOL=show_counter APPS_ARGS='{}' APPS_INITIAL='^0$' APPS_AFTER='^1$'

for era in modern legacy; do
  PORT="$(free_port)"
  # A fresh server per era: the App's counter starts from the same value.
  "$BIN" http "127.0.0.1:$PORT" >"$OUT_DIR/server-$era.log" 2>&1 &
  SERVER_PID=$!
  if ! wait_port "$PORT"; then fail "$era: server start" "see $OUT_DIR/server-$era.log"; cleanup; SERVER_PID=""; continue; fi
  mode=pin; [[ $era == legacy ]] && mode=legacy
  echo "== $era: host page in headless chromium against http://127.0.0.1:$PORT/mcp"
  if timeout "$STEP_TIMEOUT" node "$NPM_DIR/mcp-era-apps-run.mjs" --server "http://127.0.0.1:$PORT/mcp" \
      --mode "$mode" --tool "$APPS_TOOL" --args "$APPS_ARGS" --initial "$APPS_INITIAL" --after "$APPS_AFTER" \
      --page-dir "$OUT_DIR" --chromium "$CHROMIUM" --screenshot "$OUT_DIR/apps-$era.png" 2>&1 | tee "$OUT_DIR/run-$era.log"; then
    pass "$era: the App rendered the tool result, and its own tool call reached the server ($OUT_DIR/apps-$era.png)"
  else
    fail "$era" "see $OUT_DIR/run-$era.log"
  fi
  cleanup; SERVER_PID=""
done
finish

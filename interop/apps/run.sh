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
# Once per era (2026-07-28, and legacy 2025-11-25) against the server, then
# once per era through the era gateway (mcp-era-gateway --config) serving a
# composition of two backends: the example server over HTTP with
# prefix = "never" (the App calls `increment` by its bare name) beside
# mcp-everything over stdio with prefix = "always"; the host's checks are the
# same (app-only tools hidden without the extension, the ui:// resource read
# through the front, the App's call reaching the server). Every host<->App
# message is recorded and each ui/ one checked against the McpUi* types
# generated from the Apps schema (mcp-types/examples/apps_wire.rs). A screenshot of
# each page is saved under target/interop/apps/. Needs the peers
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

echo "== building the interop binaries (interop/build.sh)"
if ! bash "$REPO_ROOT/interop/build.sh"; then
  fail "build"; finish
fi
BIN="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/examples/apps"
GATEWAY="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-era-gateway"
EVERYTHING="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-everything"
WIRE_CHECK="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/examples/apps_wire"

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
SERVER_PID="" GATEWAY_PID=""
stop() { # pid: stopped and waited for
  if [[ -n "$1" ]]; then kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; fi
}
# The gateway first: it stops its stdio backend as it exits.
cleanup() { stop "$GATEWAY_PID"; GATEWAY_PID=""; stop "$SERVER_PID"; SERVER_PID=""; }
trap cleanup EXIT INT TERM

# The host page against URL in the era's mode; its log, screenshot and
# host<->App messages under LABEL. The messages are then checked against
# the Rust types generated from the Apps schema (mcp-types/examples/apps_wire.rs).
browser_check() { # era label url
  local era=$1 label=$2 url=$3 mode=pin
  [[ $era == legacy ]] && mode=legacy
  echo "== $label: host page in headless chromium against $url"
  timeout "$STEP_TIMEOUT" node "$NPM_DIR/mcp-era-apps-run.mjs" --server "$url" \
    --mode "$mode" --tool "$APPS_TOOL" --args "$APPS_ARGS" --initial "$APPS_INITIAL" --after "$APPS_AFTER" \
    --page-dir "$OUT_DIR" --chromium "$CHROMIUM" --screenshot "$OUT_DIR/apps-$label.png" \
    --wire "$OUT_DIR/wire-$label.jsonl" 2>&1 | tee "$OUT_DIR/run-$label.log" || return 1
  "$WIRE_CHECK" "$OUT_DIR/wire-$label.jsonl" 2>&1 | tee -a "$OUT_DIR/run-$label.log"
}

# The example's counter App: show_counter's result is shown (0), the App's
# button calls the app-only tool increment, and the App shows 1.
APPS_TOOL=show_counter APPS_ARGS='{}' APPS_INITIAL='^0$' APPS_AFTER='^1$'

for era in modern legacy; do
  PORT="$(free_port)"
  # A fresh server per era: the App's counter starts from the same value.
  "$BIN" http "127.0.0.1:$PORT" >"$OUT_DIR/server-$era.log" 2>&1 &
  SERVER_PID=$!
  if ! wait_port "$PORT"; then fail "$era: server start" "see $OUT_DIR/server-$era.log"; cleanup; SERVER_PID=""; continue; fi
  if browser_check "$era" "$era" "http://127.0.0.1:$PORT/mcp"; then
    pass "$era: the App rendered the tool result, its own tool call reached the server, and every ui/ message parsed as its generated McpUi* type ($OUT_DIR/apps-$era.png)"
  else
    fail "$era" "see $OUT_DIR/run-$era.log"
  fi
  cleanup
done

# The same App through the era gateway, one of two backends in its
# composition: the example unprefixed (never), mcp-everything prefixed
# (always). A fresh example server per era, as above.
for era in modern legacy; do
  label="gateway-$era"
  PORT="$(free_port)"
  "$BIN" http "127.0.0.1:$PORT" >"$OUT_DIR/server-$label.log" 2>&1 &
  SERVER_PID=$!
  if ! wait_port "$PORT"; then fail "$label: server start" "see $OUT_DIR/server-$label.log"; cleanup; continue; fi
  CONFIG="$OUT_DIR/compose-$era.toml"
  cat >"$CONFIG" <<TOML
[[backend]]
name = "counter"
url = "http://127.0.0.1:$PORT/mcp"
prefix = "never"

[[backend]]
name = "everything"
command = "$EVERYTHING"
args = ["stdio"]
prefix = "always"
TOML
  FRONT="$(free_port)"
  "$GATEWAY" --listen "127.0.0.1:$FRONT" --config "$CONFIG" >"$OUT_DIR/gateway-$era.log" 2>&1 &
  GATEWAY_PID=$!
  if ! wait_port "$FRONT"; then fail "$label: gateway start" "see $OUT_DIR/gateway-$era.log"; cleanup; continue; fi
  if browser_check "$era" "$label" "http://127.0.0.1:$FRONT/mcp"; then
    pass "$label: through the gateway's composition (never, beside an always backend) the App rendered the tool result, and its call of increment by bare name reached the server ($OUT_DIR/apps-$label.png)"
  else
    fail "$label" "see $OUT_DIR/run-$label.log and $OUT_DIR/gateway-$era.log"
  fi
  cleanup
done
finish

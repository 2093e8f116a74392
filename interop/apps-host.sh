#!/usr/bin/env bash
# The MCP Apps example under a real host: headless Chromium runs a page
# whose AppBridge (@modelcontextprotocol/ext-apps) renders the counter App
# of mcp-era/examples/apps.rs in an `allow-scripts` sandbox with the spec's
# default CSP; a TypeScript SDK client (@modelcontextprotocol/client) talks
# to the example over Streamable HTTP and relays the App's tools/call.
# Passes when the App shows the tool result (0) and, after a click on its
# button, the app-only tool's result (1). Writes target/apps-host/app.png.
#
# Needs Node 20+, npm and Chromium (/usr/bin/chromium, or $CHROMIUM).
# Pinned npm packages go to target/apps-host (git-ignored).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
WORK="$REPO_ROOT/target/apps-host"
PACKAGES=(
  "@modelcontextprotocol/ext-apps@2.0.4"
  "@modelcontextprotocol/client@2.4.0"
  "puppeteer-core@24.43.1"
  "esbuild@0.28.2"
)

mkdir -p "$WORK"
cd "$WORK"
[ -f package.json ] || echo '{"private": true, "type": "module"}' > package.json
npm install --no-audit --no-fund "${PACKAGES[@]}" >/dev/null
cp "$SCRIPT_DIR/apps_host/run.mjs" "$SCRIPT_DIR/apps_host/host.js" .
./node_modules/.bin/esbuild host.js --bundle --format=iife --platform=browser \
  --outfile=dist/host.js --log-level=warning

cd "$REPO_ROOT"
cargo build -q -p mcp-era --example apps
PORT="${PORT:-18930}"
target/debug/examples/apps http "127.0.0.1:$PORT" 2>"$WORK/server.log" &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  grep -q listening "$WORK/server.log" && break
  sleep 0.1
done
cd "$WORK"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}" timeout 120 node run.mjs "http://127.0.0.1:$PORT/mcp"

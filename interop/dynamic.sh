#!/usr/bin/env bash
# The macro-free example (`mcp-era/examples/dynamic.rs`: McpServer written
# by hand, its catalogue read from a JSON file) against the official
# conformance suite (the pinned version server-peers.sh uses): the server
# scenarios that apply to a server without the fixture's tools, in both eras;
# then its file is edited while it serves and `tools/list` must follow.
# Needs the peers (`bash interop/install-peers.sh`). Prints each result and
# ends with `N passed, M failed`; exits non-zero on any failure.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
PORT="${PORT:-38791}"
URL="http://127.0.0.1:$PORT/mcp"
STEP_TIMEOUT="${STEP_TIMEOUT:-120}"

passed=0
failed=0
record() {
  if [[ "$2" == ok ]]; then passed=$((passed + 1)); echo "PASS $1 $3"; else failed=$((failed + 1)); echo "FAIL $1 $3"; fi
}
finish() {
  [[ -n "${server_pid:-}" ]] && kill "$server_pid" 2>/dev/null
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
  exit $?
}

if [[ ! -f "$PEERS_DIR/env.sh" ]]; then
  echo "peers missing: run bash interop/install-peers.sh first" >&2
  record peers fail ""
  finish
fi
# shellcheck disable=SC1091
source "$PEERS_DIR/env.sh"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cp "$REPO_ROOT/mcp-era/examples/dynamic.json" "$WORK/catalogue.json"
if ! (cd "$REPO_ROOT" && cargo build -q -p mcp-era --example dynamic); then
  record build fail ""
  finish
fi
"$REPO_ROOT/target/debug/examples/dynamic" http "127.0.0.1:$PORT" "$WORK/catalogue.json" 2>"$WORK/server.log" &
server_pid=$!
for _ in $(seq 50); do
  curl -s -o /dev/null "http://127.0.0.1:$PORT/mcp" && break
  sleep 0.1
done

# Scenarios whose checks need only what the file declares (no fixture tools).
MODERN="tools-list resources-list prompts-list sep-2164-resource-not-found caching http-header-validation server-sse-multiple-streams dns-rebinding-protection"
LEGACY="server-initialize server-session-lifecycle ping tools-list resources-list prompts-list dns-rebinding-protection"
run_era() {
  local era="$1" scenarios="$2" scenario log summary
  for scenario in $scenarios; do
    log="$WORK/$era-$scenario.txt"
    (cd "$PEERS_NPM_DIR" && timeout "$STEP_TIMEOUT" ./node_modules/.bin/conformance server \
      --url "$URL" --scenario "$scenario" --spec-version "$era") >"$log" 2>&1
    local status=$?
    summary="$(grep -o 'Passed: [0-9]*/[0-9]*, [0-9]* failed' "$log" | tail -1)"
    if [[ $status -eq 0 && "$summary" == *", 0 failed" ]]; then
      record "conformance-$era $scenario" ok "($summary)"
    else
      record "conformance-$era $scenario" fail "(exit $status; ${summary:-no summary}; $(tail -3 "$log" | tr '\n' ' '))"
    fi
  done
}
run_era 2026-07-28 "$MODERN"
run_era 2025-11-25 "$LEGACY"

# The file changes while the server runs: a tool added, the old one gone.
tools() {
  curl -s -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/list' \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
    "$URL" | python3 -c 'import json,sys; print(",".join(t["name"] for t in json.load(sys.stdin)["result"]["tools"]))'
}
before="$(tools)"
python3 - "$WORK/catalogue.json" <<'EOF'
import json, sys
path = sys.argv[1]
catalogue = json.load(open(path))
catalogue["tools"] = [{"name": "shout", "description": "Shouts a word",
                       "inputSchema": {"type": "object"}, "reply": "{word}!"}]
json.dump(catalogue, open(path, "w"))
EOF
after=""
for _ in $(seq 30); do
  sleep 0.2
  after="$(tools)"
  [[ "$after" == shout ]] && break
done
if [[ "$before" == greet && "$after" == shout ]]; then
  record "file-change" ok "(tools/list: $before -> $after)"
else
  record "file-change" fail "(tools/list: $before -> $after)"
fi
finish

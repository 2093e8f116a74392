#!/usr/bin/env bash
# The macro-free example (`mcp-era/examples/dynamic.rs`: McpServer written
# by hand, its catalogue read from a JSON file) against the official
# conformance suite (the pinned version server-peers.sh uses): the server
# scenarios that apply to a server without the fixture's tools, in both eras;
# then a resource template is read, and the file is edited while it serves:
# `tools/list` and `server/discover` must follow.
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

# A modern request over HTTP; prints what the Python expression makes of
# the result (`r`).
ask() { # METHOD PARAMS-JSON PYTHON-EXPRESSION [MCP-NAME]
  local body name=()
  [[ -n "${4:-}" ]] && name=(-H "mcp-name: $4")
  body="$(python3 -c 'import json,sys; p=json.loads(sys.argv[2]); p["_meta"]={"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}; print(json.dumps({"jsonrpc":"2.0","id":1,"method":sys.argv[1],"params":p}))' "$1" "$2")"
  curl -s -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H 'mcp-protocol-version: 2026-07-28' -H "mcp-method: $1" "${name[@]}" -d "$body" "$URL" \
    | python3 -c "import json,sys; r=json.load(sys.stdin).get('result', {}); print($3)" 2>/dev/null
}
tools() { ask tools/list '{}' '",".join(t["name"] for t in r["tools"])'; }
server_name() { ask server/discover '{}' 'r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]'; }

# A resource template of the file, read.
greeting="$(ask resources/read '{"uri":"greeting://Ann"}' 'r["contents"][0]["text"]' greeting://Ann)"
if [[ "$greeting" == "Hello, Ann!" ]]; then
  record "template-read" ok "(greeting://Ann: $greeting)"
else
  record "template-read" fail "(greeting://Ann: ${greeting:-no text})"
fi

# The file changes while the server runs: a tool added, the old one gone,
# the server renamed (a new declaration, discovered).
before="$(tools)"
name_before="$(server_name)"
python3 - "$WORK/catalogue.json" <<'EOF'
import json, sys
path = sys.argv[1]
catalogue = json.load(open(path))
catalogue["name"] = "renamed"
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
name_after="$(server_name)"
if [[ "$name_after" == renamed ]]; then
  record "file-rename" ok "(server/discover: $name_before -> $name_after)"
else
  record "file-rename" fail "(server/discover: $name_before -> ${name_after:-nothing})"
fi
finish

#!/usr/bin/env bash
# The era gateway (`mcp-gateway/`) in front of the official reference server
# `@modelcontextprotocol/server-everything` (pinned by install-peers.sh), a
# legacy-only server over stdio: checked to refuse `server/discover` first,
# then reached through the gateway's HTTP front by the official conformance
# suite (the server scenarios that need no fixture tools, in both eras) and
# by modern requests that call a tool, read a resource, get a prompt, and
# answer the backend's sampling request as an MRTR round.
# Needs the peers (`bash interop/install-peers.sh`). Prints each result and
# ends with `N passed, M failed`; exits non-zero on any failure.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
PORT="${PORT:-38801}"
URL="http://127.0.0.1:$PORT/mcp"
STEP_TIMEOUT="${STEP_TIMEOUT:-120}"
META='{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'

# shellcheck source=interop/modern-lib.sh
source "$SCRIPT_DIR/modern-lib.sh"

if [[ ! -f "$PEERS_DIR/env.sh" ]]; then
  echo "peers missing: run bash interop/install-peers.sh first" >&2
  record peers fail ""
  finish
fi
# shellcheck disable=SC1091
source "$PEERS_DIR/env.sh"
BACKEND=(mcp-server-everything stdio)
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# The backend is legacy-only: a modern `server/discover` is refused.
direct="$(printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":$META}}" \
  | timeout 20 "${BACKEND[@]}" 2>/dev/null | head -1)"
if [[ "$direct" == *'"error"'* ]]; then
  record "backend-is-legacy-only" ok "(server/discover: $(cut -c1-80 <<<"$direct"))"
else
  record "backend-is-legacy-only" fail "(server/discover: ${direct:-no answer})"
fi

if ! (cd "$REPO_ROOT" && cargo build -q -p mcp-era-gateway); then
  record build fail ""
  finish
fi
"$REPO_ROOT/target/debug/mcp-era-gateway" --listen "127.0.0.1:$PORT" -- "${BACKEND[@]}" 2>"$WORK/gateway.log" &
server_pid=$!
for _ in $(seq 100); do
  curl -s -o /dev/null "$URL" && break
  sleep 0.1
done

check() { # NAME EXPECTED ACTUAL
  if [[ "$3" == "$2" ]]; then record "$1" ok "($3)"; else record "$1" fail "(expected $2, got ${3:-nothing})"; fi
}
check discover "mcp-servers/everything" "$(ask server/discover '{}' 'r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]')"
check tools-call-echo "Echo: hi" "$(ask tools/call '{"name":"echo","arguments":{"message":"hi"}}' 'r["content"][0]["text"]' echo)"
check tools-call-result-type "complete" "$(ask tools/call '{"name":"echo","arguments":{"message":"hi"}}' 'r["resultType"]' echo)"
check tools-list-cache-hints "0 private" "$(ask tools/list '{}' 'str(r["ttlMs"]) + " " + r["cacheScope"]')"
first_resource="$(ask resources/list '{}' 'r["resources"][0]["uri"]')"
check resources-read "$first_resource" "$(ask resources/read "{\"uri\":\"$first_resource\"}" 'r["contents"][0]["uri"]' "$first_resource")"
check resources-read-unknown "-32602" "$(ask resources/read '{"uri":"demo://nothing/here"}' 'e["code"]' demo://nothing/here)"
check prompts-get "user" "$(ask prompts/get '{"name":"simple-prompt"}' 'r["messages"][0]["role"]' simple-prompt)"

# The backend's sampling request during a call, as an MRTR round: the
# call answers input_required, the retry carries the "LLM" answer.
round="$(python3 - "$URL" <<'EOF'
import json, sys, urllib.request
url = sys.argv[1]
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}}
def call(params, id):
    params = dict(params, _meta=meta)
    body = json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    request = urllib.request.Request(url, data=body.encode(), method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
        "mcp-name": "trigger-sampling-request"})
    return json.load(urllib.request.urlopen(request, timeout=30))["result"]
params = {"name": "trigger-sampling-request", "arguments": {"prompt": "Say hi"}}
first = call(params, 1)
if first.get("resultType") != "input_required":
    print("no round: " + json.dumps(first)[:200]); sys.exit()
(key, asked), = first["inputRequests"].items()
answer = {"role": "assistant", "content": {"type": "text", "text": "Hi from the client"},
          "model": "gateway-test", "stopReason": "endTurn"}
second = call(dict(params, inputResponses={key: answer}, requestState=first["requestState"]), 2)
text = second["content"][0]["text"]
print(asked["method"] + " answered" if "Hi from the client" in text else "not answered: " + text[:200])
EOF
)"
check sampling-round "sampling/createMessage answered" "$round"

# Scenarios whose checks need only what the backend declares.
MODERN="tools-list resources-list prompts-list caching http-header-validation dns-rebinding-protection"
LEGACY="server-initialize ping tools-list resources-list prompts-list dns-rebinding-protection"
run_era 2026-07-28 "$MODERN"
run_era 2025-11-25 "$LEGACY"
finish

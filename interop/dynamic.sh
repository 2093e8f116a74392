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
# shellcheck source=interop/ports.sh
source "$SCRIPT_DIR/ports.sh"
PORT="$(pick_port "${PORT:-38791}")"
URL="http://127.0.0.1:$PORT/mcp"
STEP_TIMEOUT="${STEP_TIMEOUT:-120}"

# shellcheck source=interop/modern-lib.sh
source "$SCRIPT_DIR/modern-lib.sh"

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
if ! bash "$REPO_ROOT/interop/build.sh"; then
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
run_era 2026-07-28 "$MODERN"
run_era 2025-11-25 "$LEGACY"

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

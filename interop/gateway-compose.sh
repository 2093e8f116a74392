#!/usr/bin/env bash
# Several backends behind one era gateway (`mcp-era-gateway --config FILE`),
# with real processes: `mcp-everything stdio` (modern), the official
# `@modelcontextprotocol/server-filesystem` over stdio (legacy only, its
# write_* tools excluded by a filter) and a FastMCP server on the Python SDK
# 1.x over Streamable HTTP (interop/gateway_py1_server.py, legacy only),
# under their prefixes (conditional: three backends), in pages of 10. At
# the gateway's HTTP front:
#   - the Python SDK 2.3.0 client, modern (interop/gateway_compose_client.py):
#     the merged tool list page by page, one call per backend, the excluded
#     tool refused as unknown;
#   - the Inspector CLI 2.12.0 in --protocol-era legacy: the merged list
#     (it follows the cursors), one call per backend;
#   - server-filesystem killed (and kept from starting again for a while)
#     under a listening client of each era (interop/gateway_compose_watch.py:
#     the Python SDK 2.3.0 with subscriptions/listen, the Python SDK 1.x in
#     a legacy session): both are told the tool list changed and list no
#     fs__ tools, the other backends serve on, its calls get the reason;
#     once it is up again both are told again and list its tools;
#   - a file whose two backends serve one tool name with prefix = "never":
#     the gateway exits 1 naming both.
#
# GATEWAY_BIN and EVERYTHING_BIN name prebuilt binaries; without them both
# are built. PORT is the first port used (PORT..PORT+2). Needs the peers
# (`bash interop/install-peers.sh`). Prints `PASS name detail` / `FAIL name
# detail` and ends with `N passed, M failed`; exits non-zero on any failure.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
PORT="${PORT:-39461}"
STEP_TIMEOUT="${STEP_TIMEOUT:-60}"
PAGE_SIZE=10

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
PIDS=()
stop_all() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  PIDS=()
}
trap 'stop_all; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/home" "$WORK/files"

if [[ -n "${GATEWAY_BIN:-}" && -n "${EVERYTHING_BIN:-}" ]]; then
  GATEWAY="$GATEWAY_BIN"
  EVERYTHING="$EVERYTHING_BIN"
elif bash "$REPO_ROOT/interop/build.sh"; then
  GATEWAY="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-era-gateway"
  EVERYTHING="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-everything"
else
  record build fail ""
  finish
fi

# shellcheck source=interop/ports.sh
source "$SCRIPT_DIR/ports.sh"
port() { # N: PORT+N, or a free port if that one is taken
  pick_port $((PORT + $1))
}
wait_http() { # URL: up to 15 s for an HTTP answer
  for _ in $(seq 150); do
    curl -s -o /dev/null --max-time 2 "$1" && return 0
    sleep 0.1
  done
  return 1
}
jq_py() { # JSON EXPRESSION
  python3 -c "import json,sys; a=json.loads(sys.argv[1]); r=a.get('result', a); v=($2); print(*(v if isinstance(v, tuple) else [v]))" "$1" 2>/dev/null
}

FILE_NAME="compose-$(python3 -c 'import secrets; print(secrets.token_hex(4))').txt"
echo "composed" >"$WORK/files/$FILE_NAME"
PY1_PORT="$(port 0)"
FRONT_PORT="$(port 1)"
"$PEERS_PYTHON1" "$SCRIPT_DIR/gateway_py1_server.py" http "$PY1_PORT" >"$WORK/py1.log" 2>&1 &
PIDS+=($!)
wait_http "http://127.0.0.1:$PY1_PORT/mcp" || record "py1 backend" fail "($(tail -3 "$WORK/py1.log" | tr '\n' ' '))"

toml_list() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' "$@"; }
cat >"$WORK/gateway.toml" <<EOF
page_size = $PAGE_SIZE

[[backend]]
name = "everything"
command = "$EVERYTHING"
args = ["stdio"]

[[backend]]
name = "fs"
command = "sh"
args = $(toml_list -c "if [ -e '$WORK/hold' ]; then exit 1; fi; exec \"\$0\" \"\$1\"" "$(command -v mcp-server-filesystem)" "$WORK/files")
tools = { exclude = ["write_*"] }

[[backend]]
name = "py1"
url = "http://127.0.0.1:$PY1_PORT/mcp"
EOF
URL="http://localhost:$FRONT_PORT/mcp"
MCP_LOG=info "$GATEWAY" --listen "127.0.0.1:$FRONT_PORT" --config "$WORK/gateway.toml" >"$WORK/gateway.log" 2>&1 &
PIDS+=($!)
if ! wait_http "$URL"; then
  record "gateway" fail "(not serving; $(tail -5 "$WORK/gateway.log" | tr '\n' ' '))"
  finish
fi
record "gateway" ok "($(grep -m1 'serving' "$WORK/gateway.log"))"

# The modern SDK client.
out="$(timeout "$STEP_TIMEOUT" "$PEERS_PYTHON" "$SCRIPT_DIR/gateway_compose_client.py" \
  "$URL" "$WORK/files" "$FILE_NAME" "$PAGE_SIZE" 2>"$WORK/client.err")"
status=$?
seen=0
while read -r verdict name detail; do
  case "$verdict" in
    ok) seen=$((seen + 1)); record "python-2.3.0 $name" ok "($detail)" ;;
    fail) seen=$((seen + 1)); record "python-2.3.0 $name" fail "($detail)" ;;
  esac
done <<<"$out"
if [[ $status -ne 0 && $seen -eq 0 ]]; then
  record "python-2.3.0 run" fail "(exit $status; $(tail -3 "$WORK/client.err" | tr '\n' ' ' | cut -c1-300))"
fi

# The Inspector, legacy era.
inspector() { # NAME EXPECTED PYTHON-EXPRESSION INSPECTOR-ARGS...
  local name="$1" expected="$2" expression="$3" out got
  shift 3
  out="$(cd "$WORK" && HOME="$WORK/home" timeout "$STEP_TIMEOUT" mcp-inspector --cli "$URL" --transport http \
    --protocol-era legacy --format json "$@" 2>"$WORK/inspector.err")"
  local status=$?
  got="$(jq_py "$out" "$expression") exit $status"
  if [[ "$got" == "$expected" ]]; then
    record "inspector-legacy $name" ok "($got)"
  else
    record "inspector-legacy $name" fail "(expected $expected, got $got; $(cut -c1-200 <<<"$out") $(tail -2 "$WORK/inspector.err" | tr '\n' ' ' | cut -c1-200))"
  fi
}
# It follows the cursors itself: every page, each name once, none left.
inspector tools-list "True True False True exit 0" \
  "len(r['tools']) > $PAGE_SIZE, len({t['name'] for t in r['tools']}) == len(r['tools']), bool(r.get('nextCursor')), all('__' in t['name'] for t in r['tools'])" \
  --method tools/list
inspector call-everything "text exit 0" "r['content'][0]['type']" \
  --method tools/call --tool-name everything__test_simple_text
inspector call-fs "True exit 0" "'$FILE_NAME' in r['content'][0]['text']" \
  --method tools/call --tool-name fs__list_directory --tool-arg "path=$WORK/files"
inspector call-py1 "42 exit 0" "r['content'][0]['text']" \
  --method tools/call --tool-name py1__add --tool-arg a=2 b=40

# A backend killed under listening clients of both eras: while it cannot
# start again (its wrapper exits while $WORK/hold exists), both are told
# the list changed and list no fs__ tools, the others serve on, and its
# calls get the reason; once it can, both are told again and list them.
watch_lines() { # ERA PATTERN SECONDS: whether the watcher's output has a line matching PATTERN in time
  for _ in $(seq $(($3 * 10))); do
    grep -qE "$2" "$WORK/watch-$1.out" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
"$PEERS_PYTHON" "$SCRIPT_DIR/gateway_compose_watch.py" modern "$URL" fs__ >"$WORK/watch-modern.out" 2>"$WORK/watch-modern.err" &
PIDS+=($!)
"$PEERS_PYTHON1" "$SCRIPT_DIR/gateway_compose_watch.py" legacy "$URL" fs__ >"$WORK/watch-legacy.out" 2>"$WORK/watch-legacy.err" &
PIDS+=($!)
watching=1
for era in modern legacy; do
  if watch_lines "$era" '^listening' 20; then
    record "kill: $era client listening" ok ""
  else
    watching=0
    record "kill: $era client listening" fail "($(tr '\n' ' ' <"$WORK/watch-$era.out") $(tail -3 "$WORK/watch-$era.err" | tr '\n' ' ' | cut -c1-300))"
  fi
done
if [[ $watching -eq 1 ]]; then
  touch "$WORK/hold"
  killed="$(pgrep -f -- "mcp-server-filesystem $WORK/files" | wc -l)"
  pkill -f -- "mcp-server-filesystem $WORK/files"
  for era in modern legacy; do
    if watch_lines "$era" '^event [0-9]+ fs__=0 ' 15; then
      record "kill: $era client told, fs__ tools gone" ok "($killed processes killed; $(grep -m1 '^event' "$WORK/watch-$era.out"))"
    else
      record "kill: $era client told, fs__ tools gone" fail "($(tr '\n' ' ' <"$WORK/watch-$era.out") $(tail -3 "$WORK/watch-$era.err" | tr '\n' ' ' | cut -c1-300))"
    fi
  done
  inspector "kill: others serve" "42 exit 0" "r['content'][0]['text']" \
    --method tools/call --tool-name py1__add --tool-arg a=2 b=40
  # (The Inspector refuses a tool it did not list: asked with curl.)
  out="$(curl -s --max-time "$STEP_TIMEOUT" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/call' -H 'mcp-name: fs__list_directory' \
    -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fs__list_directory","arguments":{"path":"/"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
    "$URL")"
  if [[ "$out" == *'"code":-32603'*"the backend is unavailable"* ]]; then
    record "kill: its call gets the reason" ok "($(grep -o 'the backend is unavailable[^"]*' <<<"$out" | head -1 | cut -c1-160))"
  else
    record "kill: its call gets the reason" fail "($(tr '\n' ' ' <<<"$out" | cut -c1-300))"
  fi
  rm -f "$WORK/hold"
  for era in modern legacy; do
    if watch_lines "$era" '^done' 45; then
      record "kill: $era client told again, fs__ tools back" ok "($(grep '^event' "$WORK/watch-$era.out" | tail -1))"
    else
      record "kill: $era client told again, fs__ tools back" fail "($(tr '\n' ' ' <"$WORK/watch-$era.out") $(tail -3 "$WORK/watch-$era.err" | tr '\n' ' ' | cut -c1-300))"
    fi
  done
  inspector "kill: its tools served again" "True exit 0" "'$FILE_NAME' in r['content'][0]['text']" \
    --method tools/call --tool-name fs__list_directory --tool-arg "path=$WORK/files"
fi
stop_all

# A collision at start: two backends serving `add` unprefixed.
cat >"$WORK/collision.toml" <<EOF
[[backend]]
name = "one"
url = "http://127.0.0.1:$PY1_PORT/mcp"
prefix = "never"

[[backend]]
name = "two"
url = "http://127.0.0.1:$PY1_PORT/mcp"
prefix = "never"
EOF
"$PEERS_PYTHON1" "$SCRIPT_DIR/gateway_py1_server.py" http "$PY1_PORT" >"$WORK/py1.log" 2>&1 &
PIDS+=($!)
wait_http "http://127.0.0.1:$PY1_PORT/mcp"
err="$(timeout 30 "$GATEWAY" --listen "127.0.0.1:$(port 2)" --config "$WORK/collision.toml" 2>&1 >/dev/null)"
status=$?
if [[ $status -eq 1 && "$err" == *'backends "one" and "two" both serve a tool named'* ]]; then
  record "collision at start" ok "($(grep -m1 'both serve' <<<"$err" | cut -c1-200))"
else
  record "collision at start" fail "(exit $status: $(tail -2 <<<"$err" | tr '\n' ' ' | cut -c1-300))"
fi
stop_all

finish

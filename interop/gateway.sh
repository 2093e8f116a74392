#!/usr/bin/env bash
# The era gateway (`mcp-gateway/`) in front of real legacy-only servers
# written by others, reached through its HTTP front by real modern clients.
# Versions pinned by install-peers.sh. Each backend is checked to refuse a
# modern `server/discover` first.
#
#   1. `@modelcontextprotocol/server-everything` over stdio: modern requests
#      (curl) that call a tool, read a resource, get a prompt, and answer the
#      backend's sampling request as an MRTR round; then the modern clients
#      below; last, the official conformance suite (the server scenarios that
#      need no fixture tools, in both eras).
#   2. a FastMCP server on the Python SDK 1.x (interop/gateway_py1_server.py),
#      over stdio and over Streamable HTTP (the gateway with --url): the
#      modern clients list and call tools, read a resource, get a prompt;
#      the backend's elicitation and sampling are answered by the clients'
#      own callbacks through MRTR rounds (the tool returns the answer); a
#      tool it registers is announced on the clients' `subscriptions/listen`.
#   3. `@modelcontextprotocol/server-filesystem` over stdio, a temporary
#      directory allowed: the modern clients list the tools, read a file and
#      the directory by tool calls, and are refused a file outside it.
#
# The modern clients, each pinned to 2026-07-28: the Python SDK `mcp` 2.3.0
# (interop/gateway_py_client.py), the TypeScript SDK client 2.4.0
# (interop/gateway_ts_client.mjs), the Inspector CLI (`--protocol-era modern`;
# it answers no elicitation or sampling, so its eliciting call must come back
# as the backend's error, never as a round) and our own `mcp-probe --era
# modern --json` (built here), on every backend over the HTTP front and on
# every stdio backend over the stdio front too (mcp-probe starts the gateway):
# it lists the tools, calls one, reads a resource and gets a prompt in one
# run, each result checked for a fresh value the backend must return (py1: the
# colour it answers elicitation with, during the call and during the read); it
# declares no sampling, so its backend session is told none and a sampling
# tool must fail as it does for a client without sampling (py1: the
# gateway's client refuses the request, inside the tool's error;
# server-everything does not offer the tool); server-filesystem declares neither
# resources nor prompts, so the front must refuse both (-32601).
# Needs the peers (`bash interop/install-peers.sh`). Prints each result and
# ends with `N passed, M failed`; exits non-zero on any failure.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
# shellcheck source=interop/ports.sh
source "$SCRIPT_DIR/ports.sh"
PORT="$(pick_port "${PORT:-38801}")"
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
PIDS=() # every other process this script starts, stopped on exit
stop_all() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  PIDS=()
}
trap 'stop_all; rm -rf "$WORK"' EXIT
CLIENT_TIMEOUT="${CLIENT_TIMEOUT:-150}"
mkdir -p "$WORK/home" # the Inspector's HOME (it writes ~/.mcp-inspector)

wait_http() { # URL: up to 10 s for an HTTP answer
  for _ in $(seq 100); do
    curl -s -o /dev/null "$1" && return 0
    sleep 0.1
  done
  return 1
}

# A stdio backend is legacy-only: a modern `server/discover` is refused.
legacy_only() { # NAME COMMAND...
  local check="$1" direct
  shift
  direct="$(printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":$META}}" \
    | timeout 20 "$@" 2>/dev/null | head -1)"
  if [[ "$direct" == *'"error"'* ]]; then
    record "$check" ok "(server/discover: $(cut -c1-100 <<<"$direct"))"
  else
    record "$check" fail "(server/discover: ${direct:-no answer})"
  fi
}
legacy_only "backend-is-legacy-only" "${BACKEND[@]}"

if ! bash "$REPO_ROOT/interop/build.sh"; then
  record build fail ""
  finish
fi
GATEWAY="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-era-gateway"
PROBE="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-probe"
"$GATEWAY" --listen "127.0.0.1:$PORT" -- "${BACKEND[@]}" 2>"$WORK/gateway.log" &
server_pid=$!
wait_http "$URL"

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

# ---- modern clients through the gateway -------------------------------------
# Each client prints `ok|fail CHECK DETAIL` lines; each is recorded as
# "LABEL CHECK". A client that printed nothing or died says so.
client_checks() { # LABEL COMMAND...
  local label="$1" out status line verdict name detail seen=0 fails=0
  shift
  out="$(timeout "$CLIENT_TIMEOUT" "$@" 2>"$WORK/client.err")"
  status=$?
  while IFS= read -r line; do
    read -r verdict name detail <<<"$line"
    case "$verdict" in
      ok) seen=$((seen + 1)); record "$label $name" ok "($detail)" ;;
      fail) seen=$((seen + 1)); fails=$((fails + 1)); record "$label $name" fail "($detail)" ;;
    esac
  done <<<"$out"
  if [[ $seen -eq 0 || ($status -ne 0 && $fails -eq 0) ]]; then
    record "$label run" fail "(exit $status, $seen checks; $(tail -3 "$WORK/client.err" | tr '\n' ' ' | cut -c1-300))"
  fi
}
# ES modules resolve packages next to the script: run a copy from the npm dir.
cp "$SCRIPT_DIR/gateway_ts_client.mjs" "$PEERS_NPM_DIR/mcp-rs-gateway-ts-client.mjs"
modern_clients() { # LABEL URL PROFILE [PROFILE-ARGS...]
  local label="$1" url="$2" profile="$3"
  shift 3
  client_checks "$label python-2.3.0" "$PEERS_PYTHON" "$SCRIPT_DIR/gateway_py_client.py" "$profile" "$url" "$@"
  client_checks "$label ts-2.4.0" node "$PEERS_NPM_DIR/mcp-rs-gateway-ts-client.mjs" "$profile" "$url" "$@"
}

# The Inspector CLI, modern era, HTTP: prints what the Python expression
# makes of its JSON answer (`r`: the result, `e`: the error), then its exit
# code. A modern result from the gateway carries the backend's serverInfo in
# `_meta` (a legacy one does not): the expressions check it, except on
# tools/list, whose pages the Inspector merges into `{"tools": [...]}`.
inspector() { # URL PYTHON-EXPRESSION INSPECTOR-ARGS...
  local url="$1" expression="$2" out status
  shift 2
  out="$(HOME="$WORK/home" timeout 60 mcp-inspector --cli "$url" --transport http --protocol-era modern --format json "$@" 2>"$WORK/inspector.err")"
  status=$?
  python3 -c "import json,sys; a=json.loads(sys.argv[1]); r=a.get('result', {}); e=a.get('error', {}); v=($expression); print(*(v if isinstance(v, tuple) else [v]))" "$out" 2>/dev/null
  echo "exit $status"
}
MODERN_META='"io.modelcontextprotocol/serverInfo" in r.get("_meta", {})'
inspector_check() { # NAME EXPECTED URL PYTHON-EXPRESSION INSPECTOR-ARGS...
  local name="$1" expected="$2" got
  shift 2
  got="$(inspector "$@" | tr '\n' ' ')"
  got="${got% }"
  if [[ "$got" == "$expected" ]]; then
    record "$name" ok "($got)"
  else
    record "$name" fail "(expected $expected, got ${got:-nothing}; $(tail -2 "$WORK/inspector.err" | tr '\n' ' ' | cut -c1-200))"
  fi
}

# mcp-probe (ours), modern era, --json: one run asks for every operation at
# once (its report holds each result, what failed in `errors`), and each
# operation is recorded as a check of its own. It answers elicitation
# (--elicit-accept) but declares no sampling: its backend session is told no
# sampling, and the backend's sampling request (these backends ask anyway)
# must come back refused by the gateway's client, as a client without
# sampling refuses it, inside the tool's error; never as a round (our
# client would fail on a round it did not declare).
PROBE_OUT=""
PROBE_EXIT=""
probe_run() { # PROBE-ARGS...: keeps the report and the exit code for probe_checks
  PROBE_OUT="$(timeout 60 "$PROBE" --era modern --json "$@" 2>"$WORK/probe.err")"
  PROBE_EXIT=$?
}
# Each check: what the Python expression makes of the last run (`r`: its
# report, `code`: its exit code), one interpreter for all of them (-S: no
# site packages needed, and it starts in half the time).
probe_checks() { # (NAME EXPECTED PYTHON-EXPRESSION)...
  local args=("$@") expressions=() values=() i
  for ((i = 2; i < ${#args[@]}; i += 3)); do expressions+=("${args[i]}"); done
  mapfile -t values < <(python3 -S - "$PROBE_OUT" "$PROBE_EXIT" "${expressions[@]}" <<'PYEOF'
import json, sys
try:
    r = json.loads(sys.argv[1])
except ValueError:
    r = {}
scope = {"r": r, "code": int(sys.argv[2])}
for expression in sys.argv[3:]:
    try:
        v = eval(expression, scope)
        print(" ".join(str(x) for x in (v if isinstance(v, tuple) else [v])).replace("\n", "\\n"))
    except Exception:
        print()
PYEOF
  )
  for ((i = 0; i < ${#args[@]}; i += 3)); do
    local name="${args[i]}" expected="${args[i + 1]}" value="${values[i / 3]:-}"
    if [[ "$value" == "$expected" ]]; then
      record "$name" ok "($value)"
    else
      record "$name" fail "(expected $expected, got ${value:-nothing}; exit $PROBE_EXIT; $(tail -2 "$WORK/probe.err" | tr '\n' ' ' | cut -c1-200))"
    fi
  done
}
# What failed in the last run, `--flag:json-rpc-code` each, then its exit code.
PROBE_ERRORS='" ".join(e["operation"] + ":" + str(e.get("error", {}).get("code")) for e in r.get("errors", [])) or "none", "exit", code'
everything_probe() { # LABEL TARGET-ARGS... (--url URL, or -- COMMAND..., last)
  local label="$1 mcp-probe" message="probe-$RANDOM-$RANDOM" id="$RANDOM" city="City-$RANDOM"
  shift
  probe_run --list-tools --call echo --args "{\"message\":\"$message\"}" \
    --read "demo://resource/dynamic/text/$id" --get-prompt args-prompt --prompt-args "{\"city\":\"$city\"}" "$@"
  probe_checks \
    "$label discover" "modern mcp-servers/everything" 'r["era"], r["serverInfo"]["name"]' \
    "$label tools-list" "True" '"echo" in r["tools"] and "get-sum" in r["tools"]' \
    "$label tools-call" "complete Echo: $message" 'r["callResult"]["resultType"], r["callResult"]["content"][0]["text"]' \
    "$label resources-read" "True 0 private" \
    "r['readResult']['contents'][0]['text'].startswith('Resource $id: '), r['readResult']['ttlMs'], r['readResult']['cacheScope']" \
    "$label prompts-get" "user What's weather in $city?" \
    'r["promptResult"]["messages"][0]["role"], r["promptResult"]["messages"][0]["content"]["text"]' \
    "$label no-errors" "none exit 0" "$PROBE_ERRORS"
  probe_run --call trigger-sampling-request --args '{"prompt":"Say hi"}' "$@"
  # server-everything registers its sampling tool only for a client that
  # declares sampling: a session told none does not have it.
  probe_checks "$label undeclared-sampling-refused" "complete True True exit 1" \
    'r["callResult"]["resultType"], r["callResult"]["isError"], "Tool trigger-sampling-request not found" in r["callResult"]["content"][0]["text"], "exit", code'
}

modern_clients "everything" "$URL" everything
inspector_check "everything inspector tools-list" "True exit 0" "$URL" \
  '"get-sum" in [t["name"] for t in r["tools"]]' --method tools/list
inspector_check "everything inspector tools-call" "True The sum of 2 and 3 is 5. exit 0" "$URL" \
  "$MODERN_META, r['content'][0]['text']" --method tools/call --tool-name get-sum --tool-arg a=2 b=3
inspector_check "everything inspector resources-read" "True $first_resource exit 0" "$URL" \
  "$MODERN_META, r['contents'][0]['uri']" --method resources/read --uri "$first_resource"
inspector_check "everything inspector prompts-get" "True user exit 0" "$URL" \
  "$MODERN_META, r['messages'][0]['role']" --method prompts/get --prompt-name simple-prompt
everything_probe "everything" --url "$URL"

# ---- a Python SDK 1.x (FastMCP) backend, over stdio and over HTTP --------------
PY1=("$PEERS_PYTHON1" "$SCRIPT_DIR/gateway_py1_server.py")
legacy_only "py1 stdio backend-is-legacy-only" "${PY1[@]}" stdio
py1_inspector() { # LABEL URL
  local label="$1" url="$2" code
  code="print-$RANDOM"
  inspector_check "$label inspector tools-list" "True exit 0" "$url" \
    '"ask_color" in [t["name"] for t in r["tools"]]' --method tools/list
  inspector_check "$label inspector tools-call" "True 42 exit 0" "$url" \
    "$MODERN_META, r['content'][0]['text']" --method tools/call --tool-name add --tool-arg a=2 b=40
  inspector_check "$label inspector resources-read" "True gateway-py1 readme: served by FastMCP 1.x exit 0" "$url" \
    "$MODERN_META, r['contents'][0]['text']" --method resources/read --uri py1://notes/readme
  inspector_check "$label inspector prompts-get" "True Please review this code: $code exit 0" "$url" \
    "$MODERN_META, r['messages'][0]['content']['text']" --method prompts/get --prompt-name review --prompt-args "code=$code"
  # The Inspector declares no elicitation: the backend's request is refused
  # by the gateway (never a round), and the tool reports that as its error
  # (FastMCP's "Error executing tool ..."; exit 5: a tool error).
  inspector_check "$label inspector undeclared-elicitation-refused" "True exit 5" "$url" \
    'r["isError"] and r["content"][0]["text"].startswith("Error executing tool ask_color")' --method tools/call --tool-name ask_color
}

# mcp-probe answers the backend's elicitation (a fresh colour) during a
# tool call and during a resource read, each an MRTR round through the
# gateway; its undeclared sampling comes back as the tool's error.
py1_probe() { # LABEL TARGET-ARGS...
  local label="$1 mcp-probe" color="teal-$RANDOM$RANDOM" who="who-$RANDOM" code="print-$RANDOM"
  shift
  probe_run --list-tools --elicit-accept "{\"color\":\"$color\"}" --call ask_color \
    --read "py1://colors/$who" --get-prompt review --prompt-args "{\"code\":\"$code\"}" "$@"
  probe_checks \
    "$label discover" "modern gateway-py1" 'r["era"], r["serverInfo"]["name"]' \
    "$label tools-list" "True" '"ask_color" in r["tools"] and "add" in r["tools"]' \
    "$label tools-call-elicitation-round" "complete color=$color" \
    'r["callResult"]["resultType"], r["callResult"]["content"][0]["text"]' \
    "$label resources-read-elicitation-round" "$who likes $color" 'r["readResult"]["contents"][0]["text"]' \
    "$label prompts-get" "Please review this code: $code" 'r["promptResult"]["messages"][0]["content"]["text"]' \
    "$label no-errors" "none exit 0" "$PROBE_ERRORS"
  probe_run --call summarize --args '{"text":"probe"}' "$@"
  probe_checks "$label undeclared-sampling-refused" "complete True exit 1" \
    'r["callResult"]["resultType"], r["callResult"]["content"][0]["text"] == "Error executing tool summarize: sampling/createMessage is not supported by this client", "exit", code'
}

PY1_PORT="$(free_port)"
PY1_URL="http://127.0.0.1:$PY1_PORT/mcp"
"$GATEWAY" --listen "127.0.0.1:$PY1_PORT" -- "${PY1[@]}" stdio 2>"$WORK/gateway-py1-stdio.log" &
PIDS+=($!)
if wait_http "$PY1_URL"; then
  modern_clients "py1-stdio" "$PY1_URL" py1
  py1_inspector "py1-stdio" "$PY1_URL"
  py1_probe "py1-stdio" --url "$PY1_URL"
  # A call's progress, the last report just before the result: 20 calls,
  # each stream must carry 1, 2, 3 under the client's own token.
  progress="$(python3 - "$PY1_URL" <<'PYEOF'
import json, sys, urllib.request
url = sys.argv[1]
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
complete = 0
for n in range(20):
    token = f"tok-{n}"
    params = {"name": "count", "arguments": {"n": 3}, "_meta": dict(meta, progressToken=token)}
    body = json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params})
    request = urllib.request.Request(url, data=body.encode(), method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "count"})
    text = urllib.request.urlopen(request, timeout=30).read().decode()
    messages = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]
    steps = [m["params"]["progress"] for m in messages
             if m.get("method") == "notifications/progress" and m["params"]["progressToken"] == token]
    done = any(m.get("id") == n and "result" in m for m in messages)
    complete += steps == [1, 2, 3] and done
print(f"{complete}/20 calls with all their progress")
PYEOF
)"
  if [[ "$progress" == "20/20 calls with all their progress" ]]; then
    record "py1-stdio progress-before-result" ok "($progress)"
  else
    record "py1-stdio progress-before-result" fail "(${progress:-no answer})"
  fi
else
  record "py1-stdio gateway" fail "(not serving; $(tail -3 "$WORK/gateway-py1-stdio.log" | tr '\n' ' '))"
fi
stop_all

# The same server over Streamable HTTP, the gateway reaching it with --url.
BACKEND_PORT="$(free_port)"
BACKEND_URL="http://127.0.0.1:$BACKEND_PORT/mcp"
"${PY1[@]}" http "$BACKEND_PORT" >"$WORK/py1-http.log" 2>&1 &
PIDS+=($!)
if wait_http "$BACKEND_URL"; then
  direct="$(curl -s -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: server/discover' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":$META}}" "$BACKEND_URL")"
  if [[ "$direct" == *'"error"'* ]]; then
    record "py1-http backend-is-legacy-only" ok "(server/discover: $(cut -c1-100 <<<"$direct"))"
  else
    record "py1-http backend-is-legacy-only" fail "(server/discover: ${direct:-no answer})"
  fi
  PY1_PORT="$(free_port)"
  PY1_URL="http://127.0.0.1:$PY1_PORT/mcp"
  "$GATEWAY" --listen "127.0.0.1:$PY1_PORT" --url "$BACKEND_URL" 2>"$WORK/gateway-py1-http.log" &
  PIDS+=($!)
  if wait_http "$PY1_URL"; then
    modern_clients "py1-http" "$PY1_URL" py1
    py1_inspector "py1-http" "$PY1_URL"
    py1_probe "py1-http" --url "$PY1_URL"
  else
    record "py1-http gateway" fail "(not serving; $(tail -3 "$WORK/gateway-py1-http.log" | tr '\n' ' '))"
  fi
else
  record "py1-http backend" fail "(not serving; $(tail -3 "$WORK/py1-http.log" | tr '\n' ' '))"
fi
stop_all

# ---- the gateway's stdio front (no --listen) ---------------------------------
# The clients start the gateway themselves (the TS client twice: its discover
# probe goes to a short-lived copy), in front of the FastMCP backend; mcp-probe
# also in front of server-everything.
STDIO_FRONT="$GATEWAY -- ${PY1[*]} stdio"
client_checks "py1-stdio-front python-2.3.0" "$PEERS_PYTHON" "$SCRIPT_DIR/gateway_py_client.py" py1 "$STDIO_FRONT"
client_checks "py1-stdio-front ts-2.4.0" node "$PEERS_NPM_DIR/mcp-rs-gateway-ts-client.mjs" py1 "$STDIO_FRONT"
out="$(HOME="$WORK/home" timeout 60 mcp-inspector --cli --protocol-era modern --format json \
  --method tools/call --tool-name add --tool-arg a=2 b=40 -- "$GATEWAY" -- "${PY1[@]}" stdio 2>"$WORK/inspector.err")"
got="$(python3 -c 'import json,sys; r=json.loads(sys.argv[1])["result"]; print("io.modelcontextprotocol/serverInfo" in r.get("_meta", {}), r["content"][0]["text"])' "$out" 2>/dev/null)"
if [[ "$got" == "True 42" ]]; then
  record "py1-stdio-front inspector tools-call" ok "($got)"
else
  record "py1-stdio-front inspector tools-call" fail "(expected True 42, got ${got:-nothing}; $(tail -2 "$WORK/inspector.err" | tr '\n' ' ' | cut -c1-200))"
fi
# mcp-probe starts the gateway itself too, in front of each stdio backend.
py1_probe "py1-stdio-front" -- "$GATEWAY" -- "${PY1[@]}" stdio
everything_probe "everything-stdio-front" -- "$GATEWAY" -- "${BACKEND[@]}"

# ---- server-filesystem over stdio, one temporary directory allowed -----------
FS_DIR="$WORK/allowed"
mkdir -p "$FS_DIR"
FS_FILE="$FS_DIR/note-$RANDOM.txt"
echo "written by gateway.sh at $(date +%s.%N)" >"$FS_FILE"
FILESYSTEM=(mcp-server-filesystem "$FS_DIR")
legacy_only "filesystem backend-is-legacy-only" "${FILESYSTEM[@]}"
# server-filesystem declares tools only: the front declares no resources or
# prompts either, and refuses both itself (-32601).
filesystem_probe() { # LABEL TARGET-ARGS...
  local label="$1 mcp-probe"
  shift
  probe_run --list-tools --call read_text_file --args "{\"path\":\"$FS_FILE\"}" \
    --read "file://$FS_FILE" --get-prompt any "$@"
  probe_checks \
    "$label tools-list" "True" '"read_text_file" in r["tools"]' \
    "$label tools-call-read-file" "complete True" \
    "r['callResult']['resultType'], r['callResult']['content'][0]['text'] == open('$FS_FILE').read()" \
    "$label resources-prompts-undeclared" "--read:-32601 --get-prompt:-32601 exit 1" "$PROBE_ERRORS"
}
FS_PORT="$(free_port)"
FS_URL="http://127.0.0.1:$FS_PORT/mcp"
"$GATEWAY" --listen "127.0.0.1:$FS_PORT" -- "${FILESYSTEM[@]}" 2>"$WORK/gateway-filesystem.log" &
PIDS+=($!)
if wait_http "$FS_URL"; then
  modern_clients "filesystem" "$FS_URL" filesystem "$FS_DIR" "$FS_FILE"
  inspector_check "filesystem inspector tools-call-read-file" "True exit 0" "$FS_URL" \
    "$MODERN_META and r['content'][0]['text'] == open('$FS_FILE').read()" \
    --method tools/call --tool-name read_text_file --tool-arg "path=$FS_FILE"
  filesystem_probe "filesystem" --url "$FS_URL"
else
  record "filesystem gateway" fail "(not serving; $(tail -3 "$WORK/gateway-filesystem.log" | tr '\n' ' '))"
fi
stop_all
filesystem_probe "filesystem-stdio-front" -- "$GATEWAY" -- "${FILESYSTEM[@]}"

# Scenarios whose checks need only what the backend declares.
MODERN="tools-list resources-list prompts-list caching http-header-validation dns-rebinding-protection"
LEGACY="server-initialize ping tools-list resources-list prompts-list dns-rebinding-protection"
run_era 2026-07-28 "$MODERN"
run_era 2025-11-25 "$LEGACY"
finish

#!/usr/bin/env bash
# OAuth at both hops of the era gateway (`mcp-era-gateway`, feature auth),
# with real processes: the stand-in authorization server
# (interop/oauth_as.py) knows two resources, the gateway's HTTP front and
# an HTTP backend (`mcp-everything http --oauth-issuer ...`, scope
# mcp:read), and pre-registered clients: one for the front's client, one
# for the gateway itself (a secret, and a private key for private_key_jwt).
#
#   - the front refuses a request without a token (401 with the RFC 9728
#     resource_metadata challenge);
#   - the Python SDK 2.3.0 client, with its own client-credentials provider,
#     gets a token for the FRONT and lists and calls tools through the
#     gateway, in both eras (py_cc_client.py checks its side of the trace);
#   - the gateway reaches the backend with ITS OWN grant
#     (--backend-client-id with --backend-client-secret-env, then with
#     --backend-private-key): the backend refuses the front's token (401:
#     another audience), so a call served through the gateway proves the
#     front's token was not what the backend saw; the authorization server's
#     log shows client_credentials grants for the backend's resource, with a
#     secret and with a client assertion, and only for the fronts' otherwise;
#   - a secret variable that is not set stops the gateway at start (exit 2);
#   - a composition file's [[access]] rule for one client (the principal is
#     its token's subject): it lists and calls only the tools the rule
#     shows, another client sees them all; and a rule by scope
#     (missing_scope = "mcp:write"): the same client's token with mcp:read
#     alone neither lists test_audio_content nor calls it (unknown tool),
#     its token with mcp:read and mcp:write lists and calls it;
#   - a gateway with a wrong backend secret answers a front call with a
#     JSON-RPC error naming the refused grant, and does not hang.
#
# GATEWAY_BIN and EVERYTHING_BIN name prebuilt binaries (both with feature
# auth); without them both are built. PORT is the first port used
# (PORT..PORT+5). Needs the peers (`bash interop/install-peers.sh`). Prints
# `PASS name detail` / `FAIL name detail` and ends with `N passed, M
# failed`; exits non-zero on any failure.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
PORT="${PORT:-39261}"
STEP_TIMEOUT="${STEP_TIMEOUT:-60}"

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
trap 'stop_all; [[ -n "${KEEP_WORK:-}" ]] && echo "kept $WORK" || rm -rf "$WORK"' EXIT

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
wait_port() { # PORT: up to 15 s for a listener
  for _ in $(seq 150); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
check() { # NAME EXPECTED ACTUAL [CONTEXT]
  if [[ "$3" == "$2" ]]; then record "$1" ok "($3)"; else record "$1" fail "(expected $2, got ${3:-nothing}${4:+; $4})"; fi
}
secret() { python3 -c 'import secrets; print(secrets.token_hex(16))'; }

AS_PORT="$(port 0)"
BACK_PORT="$(port 1)"
ISSUER="http://127.0.0.1:$AS_PORT"
BACK_URL="http://localhost:$BACK_PORT/mcp"
FRONT_CLIENT="front-app:$(secret)"
OTHER_CLIENT="other-app:$(secret)"
GW_ID=gateway-svc
export GW_SECRET
GW_SECRET="$(secret)"
GW_KEY="$WORK/gateway-key.pem"
(umask 077 && "$PEERS_PYTHON" - "$GW_KEY" "$WORK/gateway-key.pub" <<'PY'
import sys
from cryptography.hazmat.primitives import serialization as s
from cryptography.hazmat.primitives.asymmetric import ec
key = ec.generate_private_key(ec.SECP256R1())
open(sys.argv[1], "wb").write(key.private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption()))
open(sys.argv[2], "wb").write(key.public_key().public_bytes(s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo))
PY
) || record "gateway key pair" fail ""

# The fronts: one gateway per way of authorizing at the backend, and one
# serving a composition file with an [[access]] rule for front-app.
FRONT_PORTS=("$(port 2)" "$(port 3)" "$(port 4)" "$(port 5)")
FRONT_URLS=()
for p in "${FRONT_PORTS[@]}"; do FRONT_URLS+=("http://localhost:$p/mcp"); done
resources=()
for url in "$BACK_URL" "${FRONT_URLS[@]}"; do resources+=(--resource "$url"); done

"$PEERS_PYTHON" "$SCRIPT_DIR/oauth_as.py" --port "$AS_PORT" "${resources[@]}" \
  --scopes "mcp:read mcp:write" --log "$WORK/as.jsonl" \
  --client "$FRONT_CLIENT" --client "$OTHER_CLIENT" --client "$GW_ID:$GW_SECRET" --jwt-client "$GW_ID-jwt:$WORK/gateway-key.pub" \
  >"$WORK/as.log" 2>&1 &
PIDS+=($!)
MCP_LOG=warn "$EVERYTHING" http --listen "127.0.0.1:$BACK_PORT" \
  --oauth-issuer "$ISSUER" --oauth-resource "$BACK_URL" --oauth-scope mcp:read >"$WORK/backend.log" 2>&1 &
PIDS+=($!)
wait_port "$AS_PORT" || record "authorization server" fail "($(tail -3 "$WORK/as.log" | tr '\n' ' '))"
wait_port "$BACK_PORT" || record "backend" fail "($(tail -3 "$WORK/backend.log" | tr '\n' ' '))"

start_gateway() { # INDEX BACKEND-CREDENTIAL-ARGS...
  local i="$1"
  shift
  MCP_LOG=info "$GATEWAY" --listen "127.0.0.1:${FRONT_PORTS[$i]}" \
    --oauth-issuer "$ISSUER" --oauth-resource "${FRONT_URLS[$i]}" --oauth-scope mcp:read \
    --per-principal 4 --timeout 20 --url "$BACK_URL" "$@" >"$WORK/gateway-$i.log" 2>&1 &
  PIDS+=($!)
}
start_gateway 0 --backend-client-id "$GW_ID" --backend-client-secret-env GW_SECRET
start_gateway 1 --backend-client-id "$GW_ID-jwt" --backend-private-key "$GW_KEY"
GW_SECRET=wrong start_gateway 2 --backend-client-id "$GW_ID" --backend-client-secret-env GW_SECRET
cat >"$WORK/composition.toml" <<EOF
[[backend]]
name = "everything"
command = "$EVERYTHING"
args = ["stdio"]

[[access]]
principal = "front-app"
tools = { include = ["test_simple_*"] }

[[access]]
missing_scope = "mcp:write"
tools = { exclude = ["test_audio_content"] }
EOF
MCP_LOG=info "$GATEWAY" --listen "127.0.0.1:${FRONT_PORTS[3]}" \
  --oauth-issuer "$ISSUER" --oauth-resource "${FRONT_URLS[3]}" --oauth-scope mcp:read \
  --config "$WORK/composition.toml" >"$WORK/gateway-3.log" 2>&1 &
PIDS+=($!)
for i in 0 1 2 3; do
  wait_port "${FRONT_PORTS[$i]}" || record "gateway $i" fail "(not serving; $(tail -3 "$WORK/gateway-$i.log" | tr '\n' ' '))"
done

# A token for a resource, by client ID:SECRET (client_secret_basic), with
# SCOPE (default mcp:read).
token_for() { # RESOURCE ID:SECRET [SCOPE]
  curl -s --max-time 10 -u "$2" -d grant_type=client_credentials --data-urlencode "resource=$1" \
    --data-urlencode "scope=${3:-mcp:read}" "$ISSUER/token" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("access_token", ""))' 2>/dev/null
}
DISCOVER='{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
post() { # URL [TOKEN]: prints the HTTP status, then the body
  local auth=()
  [[ -n "${2:-}" ]] && auth=(-H "authorization: Bearer $2")
  curl -s --max-time 30 -w '\n%{http_code}' -H 'content-type: application/json' \
    -H 'accept: application/json, text/event-stream' -H 'mcp-protocol-version: 2026-07-28' \
    -H 'mcp-method: tools/list' "${auth[@]}" -d "$DISCOVER" "$1"
}

# 1. The front is a resource server of its own.
answer="$(post "${FRONT_URLS[0]}")"
status="$(tail -1 <<<"$answer")"
challenge="$(curl -s -o /dev/null -D - --max-time 10 -H 'content-type: application/json' \
  -H 'accept: application/json, text/event-stream' -d "$DISCOVER" "${FRONT_URLS[0]}" | grep -i '^www-authenticate' | tr -d '\r')"
check "front without a token" 401 "$status"
if [[ "$challenge" == *resource_metadata=* ]]; then
  record "front challenge" ok "(${challenge:0:160})"
else
  record "front challenge" fail "(no resource_metadata in '${challenge}')"
fi

# 2. The front's token: accepted at the front, refused by the backend.
front_token="$(token_for "${FRONT_URLS[0]}" "$FRONT_CLIENT")"
[[ -n "$front_token" ]] || record "front token" fail "(the stand-in issued none)"
answer="$(post "${FRONT_URLS[0]}" "$front_token")"
tools="$(head -n -1 <<<"$answer" | sed -n 's/^data: //p;/^{/p' | head -1 \
  | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["result"]["tools"]))' 2>/dev/null)"
check "front token at the front: tools/list through the gateway" 200 "$(tail -1 <<<"$answer")" "tools: ${tools:-none}"
[[ "${tools:-0}" -gt 0 ]] && record "backend tools listed" ok "($tools tools)" || record "backend tools listed" fail "(${answer:0:200})"
check "front token at the backend (another audience)" 401 "$(post "$BACK_URL" "$front_token" | tail -1)"

# 3. Real clients with their own client-credentials support, through each
#    gateway authorized at the backend its own way.
for i in 0 1; do
  way=("secret" "private_key_jwt")
  for mode in 2026-07-28 legacy; do
    out="$(timeout "$STEP_TIMEOUT" "$PEERS_PYTHON" "$SCRIPT_DIR/py_cc_client.py" "$mode" "${FRONT_URLS[$i]}" \
      --issuer "$ISSUER" --scope mcp:read --secret "$FRONT_CLIENT" 2>&1)"
    status=$?
    summary="$(tail -1 <<<"$out")"
    if [[ $status -eq 0 ]]; then
      record "python mcp 2.3.0 cc $mode through the gateway (backend: ${way[$i]})" ok "(${summary:0:200})"
    else
      record "python mcp 2.3.0 cc $mode through the gateway (backend: ${way[$i]})" fail \
        "(exit $status; $(grep -m1 '^FAIL' <<<"$out" || tail -3 <<<"$out" | tr '\n' ' '))"
    fi
  done
done

# 4. What the authorization server saw: the gateway's own grants, for the
#    backend's resource only; the front client's, for fronts only.
grants="$(python3 - "$WORK/as.jsonl" "$BACK_URL" <<'PY'
import json, sys
from urllib.parse import parse_qs
# Every client here is the script's: the front client asks for front URLs
# only, so a grant for the backend's resource is the gateway's own.
seen = {True: set(), False: set()}
for line in open(sys.argv[1]):
    entry = json.loads(line)
    if entry["path"] != "/token" or entry["status"] != 200:
        continue
    form = {k: v[0] for k, v in parse_qs(entry["request_body"]).items()}
    how = "private_key_jwt" if "client_assertion_type" in form else \
        "basic" if "authorization" in {k.lower() for k in entry["request_headers"]} else "other"
    seen[form.get("resource") == sys.argv[2]].add(f"{form.get('grant_type')}/{how}")
print("backend:", ",".join(sorted(seen[True])), "fronts:", ",".join(sorted(seen[False])))
PY
)"
check "tokens issued for each hop" \
  "backend: client_credentials/basic,client_credentials/private_key_jwt fronts: client_credentials/basic" "$grants"

# 5. Credentials that cannot be read stop the gateway before it starts.
err="$(timeout 10 "$GATEWAY" --url "$BACK_URL" --backend-client-id "$GW_ID" \
  --backend-client-secret-env GATEWAY_AUTH_SH_UNSET 2>&1 >/dev/null)"
check "unset secret variable: exit 2 with the reason" \
  "2 True" "$? $(grep -q 'GATEWAY_AUTH_SH_UNSET: environment variable not found' <<<"$err" && echo True || echo False)"

# 6. An [[access]] rule: front-app (the subject of its token) sees and calls
#    only test_simple_*; other-app sees every tool.
tools_of() { # TOKEN: the tool names listed, space-separated
  post "${FRONT_URLS[3]}" "$1" | head -n -1 | sed -n 's/^data: //p;/^{/p' | head -1 \
    | python3 -c 'import json,sys; print(*sorted(t["name"] for t in json.load(sys.stdin)["result"]["tools"]))' 2>/dev/null
}
mine="$(tools_of "$(token_for "${FRONT_URLS[3]}" "$FRONT_CLIENT")")"
theirs="$(tools_of "$(token_for "${FRONT_URLS[3]}" "$OTHER_CLIENT")")"
only_simple="$(python3 -c 'import sys; n=sys.argv[1].split(); print(bool(n) and all(x.startswith("test_simple_") for x in n))' "$mine")"
check "access rule: front-app lists only test_simple_*" True "$only_simple" "$mine"
check "access rule: other-app lists the tools front-app's rule hides" True \
  "$([[ " $theirs " == *" test_image_content "* ]] && echo True || echo False)" "${theirs:0:200}"
call_tool() { # TOKEN NAME: the JSON-RPC answer to a tools/call of NAME
  curl -s --max-time 30 -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/call' -H "mcp-name: $2" \
    -H "authorization: Bearer $1" \
    -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"'"$2"'","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
    "${FRONT_URLS[3]}" | sed -n 's/^data: //p;/^{/p' | head -1
}
error_of() { # ANSWER: "CODE MESSAGE" of its error
  python3 -c 'import json,sys; e=json.loads(sys.argv[1])["error"]; print(e["code"], e["message"])' "$1" 2>/dev/null
}
call="$(call_tool "$(token_for "${FRONT_URLS[3]}" "$FRONT_CLIENT")" test_image_content)"
check "access rule: front-app calling a hidden tool gets unknown tool" "-32602 Unknown tool: test_image_content" \
  "$(error_of "$call")" "$call"

# 6b. A rule by scope: test_audio_content needs mcp:write. Two real tokens
#     of other-app, one without it and one with it.
reader_token="$(token_for "${FRONT_URLS[3]}" "$OTHER_CLIENT" "mcp:read")"
writer_token="$(token_for "${FRONT_URLS[3]}" "$OTHER_CLIENT" "mcp:read mcp:write")"
[[ -n "$reader_token" && -n "$writer_token" ]] || record "scoped tokens" fail "(the stand-in issued none)"
has_audio() { [[ " $1 " == *" test_audio_content "* ]] && echo True || echo False; }
reader_tools="$(tools_of "$reader_token")"
writer_tools="$(tools_of "$writer_token")"
check "scope rule: a token without mcp:write does not list test_audio_content" "False True" \
  "$(has_audio "$reader_tools") $([[ " $reader_tools " == *" test_image_content "* ]] && echo True || echo False)" \
  "${reader_tools:0:200}"
call="$(call_tool "$reader_token" test_audio_content)"
check "scope rule: a token without mcp:write calling test_audio_content gets unknown tool" \
  "-32602 Unknown tool: test_audio_content" "$(error_of "$call")" "${call:0:200}"
check "scope rule: a token with mcp:write lists test_audio_content" True "$(has_audio "$writer_tools")" \
  "${writer_tools:0:200}"
call="$(call_tool "$writer_token" test_audio_content)"
check "scope rule: a token with mcp:write calls test_audio_content" audio \
  "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["result"]["content"][0]["type"])' "$call" 2>/dev/null)" \
  "${call:0:200}"

# 7. A gateway refused by the backend's authorization server says so.
front_token="$(token_for "${FRONT_URLS[2]}" "$FRONT_CLIENT")"
answer="$(post "${FRONT_URLS[2]}" "$front_token")"
refusal="$(head -n -1 <<<"$answer" | sed -n 's/^data: //p;/^{/p' | head -1 \
  | python3 -c 'import json,sys; e=json.load(sys.stdin)["error"]; print(e["code"], "invalid_client" in e["message"])' 2>/dev/null)"
check "wrong backend secret: a JSON-RPC error naming the refused grant" "True" "${refusal#* }" "${answer:0:300}"

stop_all
finish

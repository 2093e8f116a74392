#!/usr/bin/env bash
# Interop tests for our client (mcp-client, through the mcp-probe CLI)
# against real peers written by others:
#
#   1. the Python SDK's dual-era MCPServer (mcp==2.3.0; interop/python_mcpserver.py),
#      stdio and Streamable HTTP, each era: auto and modern must give modern,
#      legacy must give legacy; 100 concurrent calls over one stdio pipe; its
#      eliciting tool answered through the client's handler (MRTR retry in
#      2026-07-28, a real elicitation/create request in 2025-11-25);
#   2. @modelcontextprotocol/server-everything@2026.8.31 (legacy only),
#      stdio and HTTP: auto must fall back to legacy, forced modern must fail
#      with exit code 4;
#   3. a deliberately silent stdio server (interop/silent_server.py): the
#      discover probe must time out, then fall back to initialize;
#   4. the conformance suite's client scenarios (listed below in
#      MODERN_SCENARIOS and LEGACY_SCENARIOS; every one must pass), each at
#      its own wire version, with --command "<mcp-probe> conformance": all
#      the scored client scenarios of both requirement sets, plus
#      json-schema-2020-12-preservation, the skills extension's
#      sep-2640-client-* and the auth extensions (each with --force at
#      2026-07-28): the grants without a user (GRANT_SCENARIOS: client
#      credentials with client_secret_basic and private_key_jwt, workload
#      identity, enterprise-managed) and DPoP (DPOP_SCENARIOS: auth/dpop,
#      auth/dpop-nonce; SEP-1932, RFC 9449); and four OAuth scenarios
#      through the probe's own --oauth flags (the authorization code, client
#      credentials with the secret in MCP_OAUTH_CLIENT_SECRET, a workload
#      token from a file, auth/dpop with --oauth-dpop always).
#
#   5. our own dual-era `mcp-everything` (stdio and HTTP): auto and modern
#      must give modern, legacy must give legacy.
#
# Needs the peers: run interop/install-peers.sh once (it writes
# target/peers/env.sh). Prints one line per check and a final
# "N passed, M failed"; exits non-zero if anything failed.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
ENV_SH="${PEERS_DIR:-$REPO_ROOT/target/peers}/env.sh"
if [[ ! -f "$ENV_SH" ]]; then
  echo "client-peers: $ENV_SH is missing; run interop/install-peers.sh first" >&2
  exit 2
fi
# shellcheck source=/dev/null
source "$ENV_SH"

cd "$REPO_ROOT"
bash interop/build.sh || { echo "client-peers: interop/build.sh failed" >&2; exit 2; }
PROBE="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-probe"
OURS="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-everything"
EVERYTHING="$PEERS_NPM_DIR/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
PY_SERVER="$SCRIPT_DIR/python_mcpserver.py"
SILENT="$SCRIPT_DIR/silent_server.py"
WORK="$(mktemp -d)"

PASSED=0
FAILED=0
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT

pass() { PASSED=$((PASSED + 1)); echo "PASS  $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL  $1${2:+: $2}"; }

# shellcheck source=interop/ports.sh
source "$SCRIPT_DIR/ports.sh"

wait_port() { # wait_port PORT: up to 15 s for something to listen
  for _ in $(seq 1 75); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}

# expect NAME ERA PROBE-ARGS...: mcp-probe exits 0 and reports era ERA.
# Every run lists the tools; --call runs are checked for a result.
expect() {
  local name="$1" era="$2"; shift 2
  local out="$WORK/out.json" err="$WORK/err.txt"
  if ! timeout 120 "$PROBE" --json --list-tools "$@" >"$out" 2>"$err"; then
    fail "$name" "exit $? ($(tail -1 "$err"))"
    return
  fi
  local got
  got="$("$PEERS_PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["era"], d["protocolVersion"], len(d.get("tools", [])), d.get("callResult", {}).get("isError", False))' "$out" 2>&1)"
  read -r got_era got_version ntools call_error <<<"$got"
  if [[ "$got_era" != "$era" ]]; then
    fail "$name" "era $got_era, expected $era"
  elif [[ "$ntools" == "0" ]]; then
    fail "$name" "no tools listed"
  elif [[ "$call_error" != "False" ]]; then
    fail "$name" "tool call returned isError"
  else
    pass "$name ($got_era, $got_version, $ntools tools)"
  fi
}

# expect_text NAME ERA TEXT PROBE-ARGS...: mcp-probe exits 0 in era ERA and
# the --call result's first text block is TEXT.
expect_text() {
  local name="$1" era="$2" text="$3"; shift 3
  local out="$WORK/out.json" err="$WORK/err.txt"
  if ! timeout 120 "$PROBE" --json "$@" >"$out" 2>"$err"; then
    fail "$name" "exit $? ($(tail -1 "$err"))"
    return
  fi
  local got
  got="$("$PEERS_PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["era"] + " " + d["callResult"]["content"][0]["text"])' "$out" 2>&1)"
  if [[ "$got" == "$era $text" ]]; then
    pass "$name ($got)"
  else
    fail "$name" "got '$got', expected '$era $text'"
  fi
}

# expect_exit NAME CODE PROBE-ARGS...: mcp-probe exits with CODE.
expect_exit() {
  local name="$1" code="$2"; shift 2
  timeout 120 "$PROBE" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
  local got=$?
  if [[ "$got" == "$code" ]]; then
    pass "$name (exit $got: $(tail -1 "$WORK/err.txt"))"
  else
    fail "$name" "exit $got, expected $code ($(tail -1 "$WORK/err.txt"))"
  fi
}

ADD=(--call add --args '{"a":2,"b":3}')

echo "== Python SDK MCPServer (mcp==2.3.0), stdio"
expect "python stdio auto"   modern --era auto   "${ADD[@]}" -- "$PEERS_PYTHON" "$PY_SERVER" stdio
expect "python stdio modern" modern --era modern "${ADD[@]}" -- "$PEERS_PYTHON" "$PY_SERVER" stdio
expect "python stdio legacy" legacy --era legacy "${ADD[@]}" -- "$PEERS_PYTHON" "$PY_SERVER" stdio
expect "python stdio modern, 100 concurrent calls" modern --era modern "${ADD[@]}" --concurrent 100 -- "$PEERS_PYTHON" "$PY_SERVER" stdio
expect "python stdio legacy, 100 concurrent calls" legacy --era legacy "${ADD[@]}" --concurrent 100 -- "$PEERS_PYTHON" "$PY_SERVER" stdio
GREET=(--elicit-accept '{"name":"Ada"}' --call greet)
expect_text "python stdio modern, elicitation by MRTR" modern "Hello, Ada!" --era modern "${GREET[@]}" -- "$PEERS_PYTHON" "$PY_SERVER" stdio
expect_text "python stdio legacy, elicitation request" legacy "Hello, Ada!" --era legacy "${GREET[@]}" -- "$PEERS_PYTHON" "$PY_SERVER" stdio

echo "== Python SDK MCPServer (mcp==2.3.0), Streamable HTTP"
PORT="$(free_port)"
"$PEERS_PYTHON" "$PY_SERVER" http "$PORT" >"$WORK/py-http.log" 2>&1 &
PIDS+=($!)
if wait_port "$PORT"; then
  URL="http://127.0.0.1:$PORT/mcp"
  expect "python http auto"   modern --era auto   "${ADD[@]}" --url "$URL"
  expect "python http modern" modern --era modern "${ADD[@]}" --url "$URL"
  expect "python http legacy" legacy --era legacy "${ADD[@]}" --url "$URL"
  expect_text "python http modern, elicitation by MRTR" modern "Hello, Ada!" --era modern "${GREET[@]}" --url "$URL"
  expect_text "python http legacy, elicitation request" legacy "Hello, Ada!" --era legacy "${GREET[@]}" --url "$URL"
else
  fail "python http" "the server did not start (see its log below)"; cat "$WORK/py-http.log"
fi

SIMPLE=(--call test_simple_text)
echo "== our mcp-everything (dual era), stdio"
expect "mcp-everything stdio auto"   modern --era auto   "${SIMPLE[@]}" -- "$OURS" stdio
expect "mcp-everything stdio modern" modern --era modern "${SIMPLE[@]}" -- "$OURS" stdio
expect "mcp-everything stdio legacy" legacy --era legacy "${SIMPLE[@]}" -- "$OURS" stdio

echo "== our mcp-everything (dual era), Streamable HTTP"
PORT="$(free_port)"
"$OURS" http --listen "127.0.0.1:$PORT" >"$WORK/ours-http.log" 2>&1 &
PIDS+=($!)
if wait_port "$PORT"; then
  URL="http://127.0.0.1:$PORT/mcp"
  expect "mcp-everything http auto"   modern --era auto   "${SIMPLE[@]}" --url "$URL"
  expect "mcp-everything http modern" modern --era modern "${SIMPLE[@]}" --url "$URL"
  expect "mcp-everything http legacy" legacy --era legacy "${SIMPLE[@]}" --url "$URL"
else
  fail "mcp-everything http" "the server did not start"; cat "$WORK/ours-http.log"
fi

SUM=(--call get-sum --args '{"a":2,"b":3}')
echo "== server-everything@2026.8.31 (legacy only), stdio"
expect "everything stdio auto falls back" legacy --era auto   "${SUM[@]}" -- node "$EVERYTHING" stdio
expect "everything stdio legacy"          legacy --era legacy "${SUM[@]}" -- node "$EVERYTHING" stdio
expect_exit "everything stdio modern refused" 4 --era modern -- node "$EVERYTHING" stdio

echo "== server-everything@2026.8.31 (legacy only), Streamable HTTP"
PORT="$(free_port)"
PORT="$PORT" node "$EVERYTHING" streamableHttp >"$WORK/everything-http.log" 2>&1 &
PIDS+=($!)
if wait_port "$PORT"; then
  URL="http://127.0.0.1:$PORT/mcp"
  expect "everything http auto falls back" legacy --era auto   "${SUM[@]}" --url "$URL"
  expect "everything http legacy"          legacy --era legacy "${SUM[@]}" --url "$URL"
  expect_exit "everything http modern refused" 4 --era modern --url "$URL"
else
  fail "everything http" "the server did not start"; cat "$WORK/everything-http.log"
fi

echo "== silent server (never answers server/discover), stdio"
expect "silent stdio auto times out, falls back" legacy --era auto --probe-timeout-ms 1000 \
  --call ping_tool -- python3 "$SILENT"
expect_exit "silent stdio modern times out, refused" 4 --era modern --probe-timeout-ms 1000 -- python3 "$SILENT"

# The suite's client scenarios this client must pass, per wire version.
AUTH_SCENARIOS=(
  auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
  auth/basic-cimd auth/scope-from-www-authenticate auth/scope-from-scopes-supported
  auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit
  auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
  auth/token-endpoint-auth-none auth/pre-registration
)
MODERN_SCENARIOS=(
  tools_call request-metadata sep-2322-client-request-state http-standard-headers
  http-custom-headers http-invalid-tool-headers json-schema-ref-no-deref
  json-schema-2020-12-preservation
  "${AUTH_SCENARIOS[@]}"
  auth/resource-mismatch auth/offline-access-scope auth/offline-access-not-supported
  auth/authorization-server-migration auth/iss-supported auth/iss-not-advertised
  auth/iss-supported-missing auth/iss-wrong-issuer auth/iss-unexpected
  auth/iss-normalized auth/metadata-issuer-mismatch
)
LEGACY_SCENARIOS=(
  initialize tools_call elicitation-sep1034-client-defaults sse-retry
  json-schema-2020-12-preservation
  "${AUTH_SCENARIOS[@]}"
)

# Extension scenarios (not on the spec timeline: run with --force at
# 2026-07-28): the skills extension, SEP-2640.
SKILLS_SCENARIOS=(
  sep-2640-client-no-prefetch sep-2640-client-verify-digest
  sep-2640-client-verify-size sep-2640-client-verify-frontmatter
)

# The auth extensions' grants without a user (SEP-1046, SEP-1933, SEP-990;
# not on the spec timeline: run with --force at 2026-07-28).
GRANT_SCENARIOS=(
  auth/client-credentials-basic auth/client-credentials-jwt
  auth/wif-jwt-bearer auth/enterprise-managed-authorization
)
# The DPoP extension (SEP-1932; RFC 9449): DPoP-bound tokens, and the
# authorization and resource servers' nonces. Required, with --force.
DPOP_SCENARIOS=(auth/dpop auth/dpop-nonce)

# conformance_scenario VERSION SCENARIO [COMMAND] [FLAG...]: one client
# scenario must pass.
conformance_scenario() {
  local version="$1" scenario="$2" command="${3:-$PROBE conformance}"
  local extra=("${@:4}")
  local log="$WORK/conformance-$version-${scenario//\//_}.log"
  (cd "$WORK" && timeout 300 conformance client --command "$command" \
    --scenario "$scenario" --spec-version "$version" "${extra[@]}" -o "$WORK/conformance-out") >"$log" 2>&1
  local code=$?
  local totals
  totals="$(grep -E '^Passed: ' "$log" | tail -1)"
  if [[ "$code" == 0 ]]; then
    pass "conformance $version $scenario ($totals)"
  else
    fail "conformance $version $scenario" "exit $code ($totals)"
    grep -E 'FAILURE|WARNING|timed out' "$log" | sed 's/^/      /'
  fi
}

echo "== conformance client scenarios at 2026-07-28"
for scenario in "${MODERN_SCENARIOS[@]}"; do conformance_scenario 2026-07-28 "$scenario"; done
echo "== conformance client scenarios at 2025-11-25"
for scenario in "${LEGACY_SCENARIOS[@]}"; do conformance_scenario 2025-11-25 "$scenario"; done
echo "== conformance client scenarios of the skills extension (--force)"
for scenario in "${SKILLS_SCENARIOS[@]}"; do
  conformance_scenario 2026-07-28 "$scenario" "$PROBE conformance" --force
done
echo "== conformance client scenarios of the auth extensions: machine grants and DPoP (--force)"
for scenario in "${GRANT_SCENARIOS[@]}" "${DPOP_SCENARIOS[@]}"; do
  conformance_scenario 2026-07-28 "$scenario" "$PROBE conformance" --force
done
echo "== OAuth through the probe's own flags"
conformance_scenario 2026-07-28 auth/metadata-default \
  "$PROBE --oauth --oauth-headless --oauth-redirect-uri http://localhost:3000/callback --list-tools --call test-tool --url"
# The suite's fixed client of auth/client-credentials-basic; the secret from the environment.
MCP_OAUTH_CLIENT_SECRET=conformance-test-secret conformance_scenario 2026-07-28 \
  auth/client-credentials-basic \
  "$PROBE --oauth --oauth-client-credentials --oauth-client-id conformance-test-client --list-tools --call test-tool --url" \
  --force
# The workload JWT of the context, as a platform would mount it: in a file.
WIF_WRAPPER="$WORK/wif-probe.sh"
cat >"$WIF_WRAPPER" <<EOF
#!/usr/bin/env bash
"$PEERS_PYTHON" -c 'import json, os; print(json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"])["valid_jwt"])' >"$WORK/workload.jwt"
exec "$PROBE" --oauth --oauth-client-id conformance-wif-workload --oauth-workload-token "$WORK/workload.jwt" --list-tools --call test-tool --url "\$@"
EOF
chmod +x "$WIF_WRAPPER"
conformance_scenario 2026-07-28 auth/wif-jwt-bearer "$WIF_WRAPPER" --force
conformance_scenario 2026-07-28 auth/dpop \
  "$PROBE --oauth --oauth-headless --oauth-dpop always --oauth-redirect-uri http://localhost:3000/callback --list-tools --call test-tool --url" --force

echo
echo "$PASSED passed, $FAILED failed"
[[ "$FAILED" == 0 ]]

#!/usr/bin/env bash
# Interop of our server against real peers (issue 4), pinned versions:
#   - conformance 0.2.0-alpha.12 against `mcp-everything http`, once with
#     --requirements 2026-07-28, once with --requirements 2025-11-25 and
#     once with --suite all (draft scenarios: 0 failed, no sep-2640 skip),
#     same URL;
#   - the Python SDK client mcp==2.3.0 (auto, 2026-07-28, legacy) and the
#     TypeScript client @modelcontextprotocol/client@2.4.0 (legacy, auto,
#     pin) over stdio and over HTTP: connect, report era + version, list
#     tools, call one;
#   - OAuth: a second `mcp-everything http` with --oauth-issuer/-resource
#     (feature auth) behind the authorization-server stand-in
#     interop/oauth_as.py; both clients run their own OAuth support headless
#     (py_oauth_client.py, ts_oauth_client.mjs): 401 challenge parsed, PRM,
#     RFC 8414 metadata, dynamic registration (each client auth method once),
#     PKCE + resource, token, call; Python also a refresh_token grant; then
#     per-tool step-up: each client, holding an mcp:read token, calls
#     test_scoped_write (#[tool(scopes = ["mcp:write"])]) and must step up
#     (403 insufficient_scope -> re-authorize with the union -> call again).
#   - OAuth client credentials (ext-auth oauth-client-credentials), same
#     server and stand-in: clients pre-registered on the stand-in's command
#     line (--client / --client-post ID:SECRET, --jwt-client ID:PUBLIC_KEY
#     with an RSA key pair made here per run); the stand-in's self-test
#     also covers this grant's refusals. Both SDKs' own providers
#     (py_cc_client.py, ts_cc_client.mjs): 401, PRM, metadata, one
#     client_credentials token request (secret, or an RFC 7523 assertion the
#     SDK signs), then list + call, in the modern and the legacy era; then
#     cc_principal_check.py: a task and a legacy session made with one
#     client's token are refused to the other client.
#   - DPoP at the token endpoint (RFC 9449): a second stand-in with --dpop
#     --dpop-nonce runs the self-test too (proof checks, use_dpop_nonce,
#     cnf.jkt, a public client's refresh token bound to the key), and the TS
#     SDK's own DPoP support gets a DPoP-bound token from it
#     (ts_dpop_token.mjs: nonce challenge, retry, cnf.jkt = its thumbprint);
#   - DPoP: `mcp-everything http --oauth-dpop-nonce` / `-required` against
#     proofs built by jose (interop/dpop_rs_check.mjs); then our client end
#     to end: mcp-probe gets a DPoP-bound token by client credentials
#     (secret, private_key_jwt) from the --dpop --dpop-nonce stand-in and
#     calls a tool on `mcp-everything --oauth-dpop-required
#     --oauth-dpop-nonce`.
# Needs the peers: `bash interop/install-peers.sh` (writes target/peers/env.sh).
# Prints each result and ends with a plain `N passed, M failed` line; exits
# non-zero on any failure. Every peer run has a timeout; the server is
# killed on exit.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
CONFORMANCE_VERSION="0.2.0-alpha.12"
STEP_TIMEOUT="${STEP_TIMEOUT:-60}"
SUITE_TIMEOUT="${SUITE_TIMEOUT:-600}"

if [[ ! -f "$PEERS_DIR/env.sh" ]]; then
  echo "peers missing: run bash interop/install-peers.sh first" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
# shellcheck disable=SC1091
source "$PEERS_DIR/env.sh"
NPM_DIR="$PEERS_DIR/npm"
OUT_DIR="$REPO_ROOT/target/interop/server-peers"
rm -rf "$OUT_DIR" && mkdir -p "$OUT_DIR"

PASSED=0
FAILED=0
RESULTS=()
record() { # name status detail
  if [[ "$2" == ok ]]; then PASSED=$((PASSED + 1)); RESULTS+=("PASS $1 $3"); else FAILED=$((FAILED + 1)); RESULTS+=("FAIL $1 $3"); fi
}

# With the auth feature for the OAuth checks; without --oauth-* flags the
# binary serves exactly as a build without it.
echo "== building the interop binaries (interop/build.sh)"
if ! bash "$REPO_ROOT/interop/build.sh"; then
  echo "build failed"; echo "0 passed, 1 failed"; exit 1
fi
BIN="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-everything"
PROBE="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-probe"

# A free loopback port.
# shellcheck source=interop/ports.sh
source "$SCRIPT_DIR/ports.sh"
wait_port() { # port: up to 5 s
  for _ in $(seq 1 50); do
    if (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}
stop() { # pid...: the processes this script started
  local pid
  for pid in "$@"; do
    if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  done
}
PORT="$(free_port)"
URL="http://localhost:$PORT/mcp"
SERVER_PID="" AS_PID="" AUTH_PID="" DPOP_AS_PID=""
cleanup() { stop "$SERVER_PID" "$AUTH_PID" "$AS_PID" "$DPOP_AS_PID"; }
trap cleanup EXIT INT TERM

MCP_LOG="${MCP_LOG:-warn}" "$BIN" http --listen "127.0.0.1:$PORT" >"$OUT_DIR/server.log" 2>&1 &
SERVER_PID=$!
wait_port "$PORT"
echo "== mcp-everything http on $URL (pid $SERVER_PID)"

# ---- conformance, both requirement sets, same URL ---------------------------
CONFORMANCE="$NPM_DIR/node_modules/.bin/conformance"
installed="$(node -p "require('$NPM_DIR/node_modules/@modelcontextprotocol/conformance/package.json').version" 2>/dev/null)"
if [[ "$installed" != "$CONFORMANCE_VERSION" ]]; then
  echo "conformance $installed installed, $CONFORMANCE_VERSION pinned: run interop/install-peers.sh" >&2
fi
for rev in 2026-07-28 2025-11-25; do
  echo "== conformance $CONFORMANCE_VERSION --requirements $rev"
  log="$OUT_DIR/conformance-$rev.txt"
  (cd "$NPM_DIR" && timeout "$SUITE_TIMEOUT" "$CONFORMANCE" server --url "$URL" --requirements "$rev" -o "$OUT_DIR/conformance-$rev") >"$log" 2>&1
  status=$?
  grep -E '^(✓|✗) |^Total:' "$log"
  total="$(grep -E '^Total:' "$log" | tail -1)"
  if [[ $status -eq 0 ]]; then record "conformance-$rev" ok "($total; every scored scenario passed)"; else record "conformance-$rev" fail "(exit $status; $total; see $log)"; fi
done

# ---- conformance --suite all (draft scenarios too: sep-2640 skills) ----------
# Required: 0 failed. Skipped checks are counted from the saved checks.json
# files and reported (the sep-2640 ones must not skip: the fixture declares
# the skills extension).
echo "== conformance $CONFORMANCE_VERSION --suite all"
log="$OUT_DIR/conformance-all.txt"
(cd "$NPM_DIR" && timeout "$SUITE_TIMEOUT" "$CONFORMANCE" server --url "$URL" --suite all -o "$OUT_DIR/conformance-all") >"$log" 2>&1
status=$?
grep -E '^(✓|✗) |^Total:' "$log"
total="$(grep -E '^Total:' "$log" | tail -1)"
skipped="$(cat "$OUT_DIR"/conformance-all/*/checks.json 2>/dev/null | grep -o '"status": *"SKIPPED"' | wc -l)"
skipped_skills="$(cat "$OUT_DIR"/conformance-all/server-sep-2640-*/checks.json 2>/dev/null | grep -o '"status": *"SKIPPED"' | wc -l)"
echo "   skipped checks: $skipped (sep-2640: $skipped_skills)"
if [[ $status -eq 0 && $skipped_skills -eq 0 ]]; then
  record "conformance-all" ok "($total; $skipped skipped, none in sep-2640)"
else
  record "conformance-all" fail "(exit $status; $total; sep-2640 skipped $skipped_skills; see $log)"
fi

# ---- Python SDK client -------------------------------------------------------
for mode in auto 2026-07-28 legacy; do
  for transport in stdio http; do
    if [[ $transport == stdio ]]; then target=("$BIN" stdio); else target=("$URL"); fi
    out="$(timeout "$STEP_TIMEOUT" "$PEERS_PYTHON" "$SCRIPT_DIR/py_client.py" "$mode" "${target[@]}" 2>&1)"
    status=$?
    summary="$(echo "$out" | head -1)"
    echo "== python mcp==2.3.0 $mode $transport: $summary"
    if [[ $status -eq 0 ]]; then record "python-$mode-$transport" ok "($summary)"; else echo "$out" | tail -20; record "python-$mode-$transport" fail "(exit $status)"; fi
  done
done

# ---- TypeScript SDK client ---------------------------------------------------
# ES modules resolve packages next to the script, so run a copy from the npm dir.
cp "$SCRIPT_DIR/ts_client.mjs" "$NPM_DIR/mcp-rs-ts-client.mjs"
for mode in legacy auto pin; do
  for transport in stdio http; do
    if [[ $transport == stdio ]]; then target=("$BIN" stdio); else target=("$URL"); fi
    out="$(timeout "$STEP_TIMEOUT" node "$NPM_DIR/mcp-rs-ts-client.mjs" "$mode" "${target[@]}" 2>&1)"
    status=$?
    summary="$(echo "$out" | head -1)"
    echo "== ts @modelcontextprotocol/client@2.4.0 $mode $transport: $summary"
    if [[ $status -eq 0 ]]; then record "ts-$mode-$transport" ok "($summary)"; else echo "$out" | tail -20; record "ts-$mode-$transport" fail "(exit $status)"; fi
  done
done

# ---- OAuth: both clients' own OAuth support, headless ---------------------------
# The authorization server is a stand-in (interop/oauth_as.py: in-memory,
# auto-approving, strict about what clients send); tokens live 3 s so that
# the Python run sees its refresh_token grant (the server allows 60 s of
# clock skew, so a token is still accepted after that).
AS_PORT="$(free_port)"
AUTH_PORT="$(free_port)"
ISSUER="http://127.0.0.1:$AS_PORT"
AUTH_URL="http://localhost:$AUTH_PORT/mcp"
TOKEN_TTL=3
# Client credentials: pre-registered clients, fresh secrets and a fresh
# RSA key pair (PKCS#8, as both SDKs read it) per run.
CC_SECRET="svc-basic:$("$PEERS_PYTHON" -c 'import secrets; print(secrets.token_hex(16))')"
CC_POST_SECRET="svc-post:$("$PEERS_PYTHON" -c 'import secrets; print(secrets.token_hex(16))')"
CC_KEY="$OUT_DIR/cc-client-key.pem"
(umask 077 && "$PEERS_PYTHON" - "$CC_KEY" "$OUT_DIR/cc-client-key.pub" <<'PY'
import sys
from cryptography.hazmat.primitives import serialization as s
from cryptography.hazmat.primitives.asymmetric import rsa
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
open(sys.argv[1], "wb").write(key.private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption()))
open(sys.argv[2], "wb").write(key.public_key().public_bytes(s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo))
PY
) || echo "could not make the private_key_jwt key pair" >&2
CC_JWT="svc-jwt:$CC_KEY"
"$PEERS_PYTHON" "$SCRIPT_DIR/oauth_as.py" --port "$AS_PORT" --resource "$AUTH_URL" \
  --scopes "mcp:read mcp:write" --token-ttl "$TOKEN_TTL" --log "$OUT_DIR/oauth-as.jsonl" \
  --client "$CC_SECRET" --client-post "$CC_POST_SECRET" --jwt-client "svc-jwt:$OUT_DIR/cc-client-key.pub" \
  >"$OUT_DIR/oauth-as.log" 2>&1 &
AS_PID=$!
# Server-wide scope mcp:read; test_scoped_write adds its own mcp:write.
MCP_LOG="${MCP_LOG:-warn}" "$BIN" http --listen "127.0.0.1:$AUTH_PORT" \
  --oauth-issuer "$ISSUER" --oauth-resource "$AUTH_URL" --oauth-scope mcp:read >"$OUT_DIR/auth-server.log" 2>&1 &
AUTH_PID=$!
wait_port "$AUTH_PORT"
wait_port "$AS_PORT"
echo "== OAuth: stand-in authorization server $ISSUER (pid $AS_PID), mcp-everything with auth on $AUTH_URL (pid $AUTH_PID)"
# The OAuth scripts below (and ts_dpop_token.mjs) import ./oauth_trace.mjs.
cp "$SCRIPT_DIR/oauth_trace.mjs" "$NPM_DIR/oauth_trace.mjs"
cp "$SCRIPT_DIR/ts_oauth_client.mjs" "$NPM_DIR/mcp-rs-ts-oauth-client.mjs"
cp "$SCRIPT_DIR/ts_cc_client.mjs" "$NPM_DIR/mcp-rs-ts-cc-client.mjs"
oauth_check() { # name label py|ts|py-cc|ts-cc|principal mode args...
  local name="$1" label="$2" client="$3" mode="$4" out status summary cmd
  shift 4
  case $client in
    py) cmd=("$PEERS_PYTHON" "$SCRIPT_DIR/py_oauth_client.py") ;;
    ts) cmd=(node "$NPM_DIR/mcp-rs-ts-oauth-client.mjs") ;;
    py-cc) cmd=("$PEERS_PYTHON" "$SCRIPT_DIR/py_cc_client.py") ;;
    ts-cc) cmd=(node "$NPM_DIR/mcp-rs-ts-cc-client.mjs") ;;
    principal) cmd=("$PEERS_PYTHON" "$SCRIPT_DIR/cc_principal_check.py"); mode="" ;;
  esac
  out="$(timeout "$STEP_TIMEOUT" "${cmd[@]}" ${mode:+"$mode"} "$AUTH_URL" --issuer "$ISSUER" "$@" 2>&1)"
  status=$?
  echo "$out" >"$OUT_DIR/$name.txt"
  if [[ $status -eq 0 ]]; then
    summary="$(echo "$out" | tail -1)"
  else
    summary="$(echo "$out" | grep -m1 '^FAIL' || echo "$out" | tail -1)"
  fi
  echo "== $label: $summary"
  if [[ $status -eq 0 ]]; then
    record "$name" ok "($summary)"
  else
    echo "$out" | tail -25
    record "$name" fail "(exit $status; see $OUT_DIR/$name.txt)"
  fi
}
# The stand-in refuses what a client could get wrong, or a pass below would
# prove little.
out="$(timeout "$STEP_TIMEOUT" "$PEERS_PYTHON" "$SCRIPT_DIR/oauth_as.py" self-test "$ISSUER" "$AUTH_URL" \
  --client "$CC_SECRET" --jwt-client "$CC_JWT" 2>&1)"
status=$?
echo "$out" >"$OUT_DIR/oauth-as-self-test.txt"
summary="$(echo "$out" | grep -c '^ok ') cases as expected, $(echo "$out" | grep -c '^FAIL') not"
echo "== oauth_as.py self-test: $summary"
if [[ $status -eq 0 ]]; then record oauth-as-self-test ok "($summary)"; else echo "$out" | grep '^FAIL'; record oauth-as-self-test fail "($summary)"; fi
# The same with DPoP: a stand-in that binds tokens to a proof's key and
# hands out nonces.
DPOP_AS_PORT="$(free_port)"
"$PEERS_PYTHON" "$SCRIPT_DIR/oauth_as.py" --port "$DPOP_AS_PORT" --resource "$AUTH_URL" \
  --scopes "mcp:read mcp:write" --client "$CC_SECRET" --jwt-client "svc-jwt:$OUT_DIR/cc-client-key.pub" \
  --dpop --dpop-nonce >"$OUT_DIR/oauth-as-dpop.log" 2>&1 &
DPOP_AS_PID=$!
wait_port "$DPOP_AS_PORT"
out="$(timeout "$STEP_TIMEOUT" "$PEERS_PYTHON" "$SCRIPT_DIR/oauth_as.py" self-test "http://127.0.0.1:$DPOP_AS_PORT" "$AUTH_URL" \
  --client "$CC_SECRET" --jwt-client "$CC_JWT" 2>&1)"
status=$?
echo "$out" >"$OUT_DIR/oauth-as-dpop-self-test.txt"
dpop_cases="$(echo "$out" | grep -ci '^ok .*\(dpop\|nonce\|jkt\)')"
summary="$(echo "$out" | grep -c '^ok ') cases as expected ($dpop_cases on DPoP), $(echo "$out" | grep -c '^FAIL') not"
echo "== oauth_as.py --dpop --dpop-nonce self-test: $summary"
if [[ $status -eq 0 ]] && echo "$out" | grep -q '^ok .*use_dpop_nonce with a DPoP-Nonce' \
  && echo "$out" | grep -q '^ok .*cnf.jkt is the RFC 7638 thumbprint'; then record oauth-as-dpop-self-test ok "($summary)"; else echo "$out" | grep '^FAIL'; record oauth-as-dpop-self-test fail "($summary)"; fi
# An independent DPoP implementation against it: the TS SDK's DpopSession.
cp "$SCRIPT_DIR/ts_dpop_token.mjs" "$NPM_DIR/mcp-rs-ts-dpop-token.mjs"
out="$(timeout "$STEP_TIMEOUT" node "$NPM_DIR/mcp-rs-ts-dpop-token.mjs" "http://127.0.0.1:$DPOP_AS_PORT" "$AUTH_URL" \
  --scope mcp:read --secret "$CC_SECRET" 2>&1)"
status=$?
stop "$DPOP_AS_PID"
DPOP_AS_PID=""
echo "$out" >"$OUT_DIR/ts-dpop-token.txt"
summary="$(echo "$out" | tail -1)"
echo "== ts @modelcontextprotocol/client@2.4.0 DPoP token from the --dpop stand-in: $summary"
if [[ $status -eq 0 ]]; then record ts-dpop-token ok "($summary)"; else echo "$out" | tail -15; record ts-dpop-token fail "(exit $status; see $OUT_DIR/ts-dpop-token.txt)"; fi
# Each client auth method once per client (none given: the RFC 7591 default,
# client_secret_basic).
oauth_check python-oauth-2026-07-28 "python mcp==2.3.0 OAuth 2026-07-28 (client_secret_basic, refresh)" \
  py 2026-07-28 --scope mcp:read --refresh-after "$((TOKEN_TTL + 1))"
oauth_check python-oauth-legacy "python mcp==2.3.0 OAuth legacy (client_secret_post)" \
  py legacy --scope mcp:read --auth-method client_secret_post
oauth_check python-oauth-auto "python mcp==2.3.0 OAuth auto (public client)" \
  py auto --scope mcp:read --auth-method none
oauth_check ts-oauth-auto "ts @modelcontextprotocol/client@2.4.0 OAuth auto (client_secret_basic)" \
  ts auto --scope mcp:read
oauth_check ts-oauth-legacy "ts @modelcontextprotocol/client@2.4.0 OAuth legacy (public client)" \
  ts legacy --scope mcp:read --auth-method none
oauth_check ts-oauth-pin "ts @modelcontextprotocol/client@2.4.0 OAuth pin (client_secret_post)" \
  ts pin --scope mcp:read --auth-method client_secret_post
# Per-tool step-up, same server: authorized for mcp:read, test_simple_text
# works, test_scoped_write gets 403 naming "mcp:read mcp:write"; Python's
# auth flow re-authorizes and resends inside the one call, TS redirects and
# throws UnauthorizedError, then finishAuth and the call again.
oauth_check python-oauth-step-up "python mcp==2.3.0 OAuth per-tool step-up" \
  py 2026-07-28 --scope mcp:read --step-up mcp:write
oauth_check ts-oauth-step-up "ts @modelcontextprotocol/client@2.4.0 OAuth per-tool step-up" \
  ts auto --scope mcp:read --step-up mcp:write
# Client credentials: no user, no redirect; each SDK's own provider, the
# token's sub is the client_id. The TS ClientCredentialsProvider sends
# client_secret_basic only; Python's is asked for each method once.
oauth_check python-cc-secret-2026-07-28 "python mcp==2.3.0 client_credentials 2026-07-28 (client_secret_basic)" \
  py-cc 2026-07-28 --scope mcp:read --secret "$CC_SECRET"
oauth_check python-cc-secret-legacy "python mcp==2.3.0 client_credentials legacy (client_secret_post)" \
  py-cc legacy --scope mcp:read --secret "$CC_POST_SECRET" --auth-method client_secret_post
oauth_check python-cc-jwt-2026-07-28 "python mcp==2.3.0 client_credentials 2026-07-28 (private_key_jwt)" \
  py-cc 2026-07-28 --scope mcp:read --jwt "$CC_JWT"
oauth_check python-cc-jwt-legacy "python mcp==2.3.0 client_credentials legacy (private_key_jwt)" \
  py-cc legacy --scope mcp:read --jwt "$CC_JWT"
oauth_check ts-cc-secret-auto "ts @modelcontextprotocol/client@2.4.0 client_credentials auto (client_secret_basic)" \
  ts-cc auto --scope mcp:read --secret "$CC_SECRET"
oauth_check ts-cc-secret-legacy "ts @modelcontextprotocol/client@2.4.0 client_credentials legacy (client_secret_basic)" \
  ts-cc legacy --scope mcp:read --secret "$CC_SECRET"
oauth_check ts-cc-jwt-pin "ts @modelcontextprotocol/client@2.4.0 client_credentials pin (private_key_jwt)" \
  ts-cc pin --scope mcp:read --jwt "$CC_JWT"
oauth_check ts-cc-jwt-legacy "ts @modelcontextprotocol/client@2.4.0 client_credentials legacy (private_key_jwt)" \
  ts-cc legacy --scope mcp:read --jwt "$CC_JWT"
oauth_check cc-principals "client-credentials principals: tasks and sessions stay with their client" \
  principal - --scope mcp:read --secret "$CC_SECRET" --jwt "$CC_JWT"
stop "$AUTH_PID" "$AS_PID"
AUTH_PID="" AS_PID=""

# DPoP (RFC 9449) at the resource server, from an independent
# implementation: jose builds the proof key, its RFC 7638 thumbprint, the
# bound token (signed with the test issuer key) and the proofs;
# dpop_rs_check.mjs also serves that issuer's metadata and JWKS.
cp "$SCRIPT_DIR/dpop_rs_check.mjs" "$NPM_DIR/mcp-rs-dpop-rs-check.mjs"
for mode in nonce required; do
  AS_PORT="$(free_port)" DPOP_PORT="$(free_port)"
  DPOP_URL="http://127.0.0.1:$DPOP_PORT/mcp"
  "$BIN" http --listen "127.0.0.1:$DPOP_PORT" --oauth-issuer "http://127.0.0.1:$AS_PORT" \
    --oauth-resource "$DPOP_URL" "--oauth-dpop-$mode" >"$OUT_DIR/dpop-$mode.log" 2>&1 &
  AUTH_PID=$!
  if wait_port "$DPOP_PORT" && out="$(timeout "$STEP_TIMEOUT" node "$NPM_DIR/mcp-rs-dpop-rs-check.mjs" \
      "$AS_PORT" "$DPOP_URL" "$REPO_ROOT/mcp-server/tests/auth/key1.pem" \
      "$REPO_ROOT/mcp-server/tests/auth/key1.jwks.json" 2>&1)"; then
    record "dpop-$mode" ok "jose proofs, --oauth-dpop-$mode: $(tail -1 <<<"$out")"
  else
    record "dpop-$mode" fail "$(tail -3 <<<"$out" | tr '\n' ' ')"
  fi
  stop "$AUTH_PID"
  AUTH_PID=""
done

# Our client against our server, end to end: mcp-probe obtains a DPoP-bound
# token by client credentials (secret, then private_key_jwt) from the
# --dpop --dpop-nonce stand-in (use_dpop_nonce at the token endpoint), and
# presents it to `mcp-everything http --oauth-dpop-required
# --oauth-dpop-nonce` (use_dpop_nonce at the resource): list and call.
AS_PORT="$(free_port)" E2E_PORT="$(free_port)"
E2E_URL="http://127.0.0.1:$E2E_PORT/mcp"
"$PEERS_PYTHON" "$SCRIPT_DIR/oauth_as.py" --port "$AS_PORT" --resource "$E2E_URL" \
  --scopes "mcp:read mcp:write" --client "$CC_SECRET" --jwt-client "svc-jwt:$OUT_DIR/cc-client-key.pub" \
  --dpop --dpop-nonce --log "$OUT_DIR/oauth-as-e2e.jsonl" >"$OUT_DIR/oauth-as-e2e.log" 2>&1 &
AS_PID=$!
"$BIN" http --listen "127.0.0.1:$E2E_PORT" --oauth-issuer "http://127.0.0.1:$AS_PORT" \
  --oauth-resource "$E2E_URL" --oauth-dpop-required --oauth-dpop-nonce >"$OUT_DIR/dpop-e2e.log" 2>&1 &
AUTH_PID=$!
wait_port "$AS_PORT"
wait_port "$E2E_PORT"
e2e_check() { # name probe-args...
  local name="$1" out status
  shift
  out="$(MCP_OAUTH_CLIENT_SECRET="${CC_SECRET#*:}" timeout "$STEP_TIMEOUT" "$PROBE" --oauth --oauth-client-credentials \
    --oauth-dpop always "$@" --list-tools --call greet --args '{"name":"dpop"}' --url "$E2E_URL" 2>&1)"
  status=$?
  echo "$out" >"$OUT_DIR/$name.txt"
  if [[ $status -eq 0 ]] && grep -q 'Hello, dpop!' <<<"$out"; then
    record "$name" ok "(mcp-probe -> mcp-everything --oauth-dpop-required --oauth-dpop-nonce: greet answered)"
  else
    tail -5 <<<"$out"; record "$name" fail "(exit $status; see $OUT_DIR/$name.txt)"
  fi
}
e2e_check dpop-e2e-secret --oauth-client-id "${CC_SECRET%%:*}"
e2e_check dpop-e2e-private-key-jwt --oauth-client-id svc-jwt --oauth-private-key "$CC_KEY"
# Each run's token request was refused once for a nonce, then bound (cnf.jkt).
nonce_refusals="$(grep -c 'use_dpop_nonce' "$OUT_DIR/oauth-as-e2e.jsonl")"
if [[ "$nonce_refusals" -ge 2 ]]; then record dpop-e2e-as-nonce ok "($nonce_refusals use_dpop_nonce answers honoured)"; else record dpop-e2e-as-nonce fail "($nonce_refusals use_dpop_nonce answers)"; fi
stop "$AUTH_PID" "$AS_PID"
AUTH_PID="" AS_PID=""

echo
echo "== summary"
printf '%s\n' "${RESULTS[@]}"
echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]

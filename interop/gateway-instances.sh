#!/usr/bin/env bash
# Two era gateway instances behind one balancer, with real processes: two
# `mcp-era-gateway --listen` processes, each in front of its own
# `mcp-everything stdio` spoken to as a legacy backend (--backend-era
# legacy: its elicitation is a real request during the call, so a round is
# a live backend call held by one process), named --instance gw-a and gw-b
# and --peer of each other, behind haproxy (docs/scaling/haproxy.cfg, a
# copy with this run's ports and two servers: round-robin, no stickiness).
# Through haproxy:
#   - the Python SDK 2.3.0 client, modern (interop/gateway_instances_client.py),
#     calls test_elicitation CALLS times (default 6): every call completes
#     with the value its elicitation callback gave, though each round's
#     retry may land on the instance that does not hold it;
#   - the gateways' logs show retries forwarded to the peer holding them,
#     and haproxy's statistics show both instances served;
#   - a raw retry (curl) whose requestState names an unknown instance gets
#     HTTP 400 and the clear -32602 (data: instance, heldBy, retryable).
#
# GATEWAY_BIN and EVERYTHING_BIN name prebuilt binaries; without them both
# are built. PORT is the first port used (PORT..PORT+3). Needs haproxy and
# the peers (`bash interop/install-peers.sh`). Prints `PASS name detail` /
# `FAIL name detail` and ends with `N passed, M failed`; exits non-zero on
# any failure. Everything started here is stopped by PID on exit.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
PORT="${PORT:-39471}"
STEP_TIMEOUT="${STEP_TIMEOUT:-60}"
CALLS="${CALLS:-6}"

# shellcheck source=interop/modern-lib.sh
source "$SCRIPT_DIR/modern-lib.sh"

if [[ ! -f "$PEERS_DIR/env.sh" ]]; then
  echo "peers missing: run bash interop/install-peers.sh first" >&2
  record peers fail ""
  finish
fi
if ! command -v haproxy >/dev/null; then
  echo "haproxy not found (apt-get install haproxy)" >&2
  record haproxy fail "(missing)"
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

PORT_A="$(port 0)" PORT_B="$(port 1)" LB_PORT="$(port 2)" STATS_PORT="$(port 3)"
start_gateway() { # ID PORT PEER-ID PEER-PORT
  MCP_LOG=info "$GATEWAY" --listen "127.0.0.1:$2" --instance "$1" \
    --peer "$3=http://127.0.0.1:$4/mcp" --backend-era legacy -- "$EVERYTHING" stdio \
    >"$WORK/$1.log" 2>&1 &
  PIDS+=($!)
}
start_gateway gw-a "$PORT_A" gw-b "$PORT_B"
start_gateway gw-b "$PORT_B" gw-a "$PORT_A"
for id in gw-a gw-b; do
  p="$PORT_A"; [[ $id == gw-b ]] && p="$PORT_B"
  if wait_http "http://127.0.0.1:$p/mcp"; then
    record "$id serving" ok "($(grep -m1 -o 'instance="gw-[ab]" peers=[^ ]*' "$WORK/$id.log"))"
  else
    record "$id serving" fail "($(tail -5 "$WORK/$id.log" | tr '\n' ' '))"
    finish
  fi
done

# haproxy: the documented config with this run's ports and two servers.
sed -e "s/127\.0\.0\.1:3001\b/127.0.0.1:$PORT_A/; s/127\.0\.0\.1:3002\b/127.0.0.1:$PORT_B/" \
  -e '/server mcp3 /d' \
  -e "s/127\.0\.0\.1:8080\b/127.0.0.1:$LB_PORT/; s/127\.0\.0\.1:8404\b/127.0.0.1:$STATS_PORT/" \
  "$REPO_ROOT/docs/scaling/haproxy.cfg" >"$WORK/haproxy.cfg"
if ! haproxy -c -q -f "$WORK/haproxy.cfg" >"$WORK/haproxy-check.txt" 2>&1; then
  record haproxy-config fail "($(tr '\n' ' ' <"$WORK/haproxy-check.txt" | cut -c1-300))"
  finish
fi
haproxy -db -f "$WORK/haproxy.cfg" >"$WORK/haproxy.log" 2>&1 &
PIDS+=($!)
stats() { # COLUMN SERVER: one figure of haproxy's statistics
  curl -s -m 5 "http://127.0.0.1:$STATS_PORT/stats;csv" | awk -F, -v col="$1" -v srv="$2" '
    NR == 1 { sub(/^# /, ""); for (i = 1; i <= NF; i++) at[$i] = i; next }
    $1 == "mcp_instances" && $2 == srv { print $(at[col]) }'
}
up=0
for _ in $(seq 150); do
  [[ "$(stats status mcp1)" == UP && "$(stats status mcp2)" == UP ]] && { up=1; break; }
  sleep 0.1
done
if [[ $up -eq 1 ]]; then
  record haproxy ok "(round-robin over gw-a and gw-b, both UP by its server/discover check)"
else
  record haproxy fail "(not both UP in 15 s: $(stats status mcp1) $(stats status mcp2))"
  finish
fi
URL="http://127.0.0.1:$LB_PORT/mcp"

# The modern SDK client, through the balancer.
out="$(timeout "$STEP_TIMEOUT" "$PEERS_PYTHON" "$SCRIPT_DIR/gateway_instances_client.py" \
  "$URL" "$CALLS" 2>"$WORK/client.err")"
status=$?
seen=0
while read -r verdict name detail; do
  case "$verdict" in
    ok) seen=$((seen + 1)); record "python-2.3.0 $name" ok "($detail)" ;;
    fail) seen=$((seen + 1)); record "python-2.3.0 $name" fail "($detail)" ;;
  esac
done <<<"$out"
if [[ $status -ne 0 || $seen -ne $CALLS ]]; then
  record "python-2.3.0 run" fail "(exit $status, $seen of $CALLS calls; $(tail -3 "$WORK/client.err" | tr '\n' ' ' | cut -c1-300))"
fi

# Each retry that reached the instance not holding its round was forwarded.
forwarded_a="$(grep -c 'a retry forwarded to the instance holding its round' "$WORK/gw-a.log")"
forwarded_b="$(grep -c 'a retry forwarded to the instance holding its round' "$WORK/gw-b.log")"
if [[ $((forwarded_a + forwarded_b)) -ge 1 ]]; then
  record "retries forwarded" ok "(gw-a forwarded $forwarded_a, gw-b $forwarded_b, of $CALLS rounds)"
else
  record "retries forwarded" fail "(none in the logs: gw-a $forwarded_a, gw-b $forwarded_b)"
fi
served_a="$(stats stot mcp1)" served_b="$(stats stot mcp2)"
if [[ "${served_a:-0}" -gt 0 && "${served_b:-0}" -gt 0 ]]; then
  record "both instances served" ok "(haproxy: gw-a $served_a requests, gw-b $served_b)"
else
  record "both instances served" fail "(haproxy: gw-a ${served_a:-?}, gw-b ${served_b:-?})"
fi

# A retry whose round an unknown instance holds: the clear, retryable error.
state="gw-zz.$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
params='{"name":"test_elicitation","arguments":{"message":"x?"},"inputResponses":{"gateway-1":{"action":"accept","content":{"response":"x"}}},"requestState":"'"$state"'","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}'
answer="$(curl -s -w '\n%{http_code}' -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
  -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/call' -H 'mcp-name: test_elicitation' \
  -d '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":'"$params"'}' "$URL")"
code="$(tail -1 <<<"$answer")"
got="$(head -n -1 <<<"$answer" | python3 -c '
import json, sys
e = json.load(sys.stdin).get("error", {})
d = e.get("data", {})
print(e.get("code"), d.get("heldBy"), d.get("instance") in ("gw-a", "gw-b"), d.get("retryable"),
      "held by gateway instance gw-zz" in e.get("message", "") and "without requestState" in e.get("message", ""))
' 2>/dev/null)"
if [[ "$code $got" == "400 -32602 gw-zz True True True" ]]; then
  record "unknown instance refused" ok "(HTTP $code; $(head -n -1 <<<"$answer" | cut -c1-220))"
else
  record "unknown instance refused" fail "(expected 400 -32602 gw-zz True True True, got $code $got; $(head -n -1 <<<"$answer" | cut -c1-300))"
fi

stop_all
finish

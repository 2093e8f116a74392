#!/usr/bin/env bash
# Scale-out with a real load balancer (issue 25): three `mcp-everything
# http` processes (feature redis) on one redis-server of their own, sharing
# tasks (--task-store), events (--event-bus), legacy sessions and their
# stream events (--session-store) and one sealed-requestState key ring made
# per run (--request-state-keys), behind haproxy (docs/scaling/haproxy.cfg:
# round-robin, no stickiness) and behind nginx (docs/scaling/nginx.conf,
# the same), each config run as a copy with this run's ports filled in.
# Through each balancer:
#   - the conformance suite 0.2.0-alpha.12, --requirements 2026-07-28 and
#     2025-11-25: 0 failed, as against one instance;
#   - interop/scale_check.py balancer: MRTR rounds whose retries land on
#     other instances (X-Served-By, set by the balancer), a legacy session
#     served by all three, a listen stream and a legacy GET stream hearing
#     an update raised on another instance.
# Through haproxy, the SDKs' own clients: interop/scale_check.py sdk
# (Python mcp==2.3.0, legacy and 2026-07-28) and interop/ts_scale_check.mjs
# (TypeScript @modelcontextprotocol/client@2.4.0, legacy and auto): list,
# call, MRTR rounds across instances, a session spread over them, events
# across them. Direct to chosen instances (deterministic): scale_check.py
# direct (MRTR sealed on A opened on B and C, a tampered state refused, a
# session on A, B, C in turn, an elicitation asked on A answered on B,
# listen and GET streams on A hearing B and C). Then instance A is killed
# (SIGKILL) mid-run: scale_check.py kill (a legacy session made on A goes on
# on B and C; A's GET stream resumed on B with Last-Event-ID gets the
# events it missed and the new ones; a task A ran reads failed on B once
# its runner lease lapses (--task-lease-ms); requests in flight get an
# answer or an error, none hangs; haproxy goes on on B and C); A is
# restarted, haproxy's health check takes it back, and the balancer checks
# run again on three. Last, the requests each instance served, from
# haproxy's statistics and both balancers' logs.
#
# Needs redis-server, haproxy, nginx and the peers (interop/install-peers.sh).
# SCALE_OUT_BUDGET (seconds after the build, default 360) bounds the run;
# every step has its own timeout as well. SCALE_OUT_EXPECTED_FAIL: names
# allowed to fail for now, separated by spaces or commas: a conformance
# scenario, `scenario:check-id`, or a check name of this script (with or
# without its `haproxy/`, `nginx/`, ... prefix); each such failure is
# printed XFAIL and not counted, and a listed name that passes is a
# failure (stale entry). Prints each result and ends with a plain
# `N passed, M failed` line; exits non-zero on any failure. Everything
# started here is stopped by PID on exit.
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
CONFORMANCE_VERSION="0.2.0-alpha.12"
BUDGET="${SCALE_OUT_BUDGET:-360}"
EXPECTED_FAIL="$(tr ',' ' ' <<<"${SCALE_OUT_EXPECTED_FAIL:-}")"

if [[ ! -f "$PEERS_DIR/env.sh" ]]; then
  echo "peers missing: run bash interop/install-peers.sh first" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
# shellcheck disable=SC1091
source "$PEERS_DIR/env.sh"
NPM_DIR="$PEERS_DIR/npm"
OUT_DIR="$REPO_ROOT/target/interop/scale-out"
rm -rf "$OUT_DIR" && mkdir -p "$OUT_DIR"

PASSED=0
FAILED=0
XFAILED=0
RESULTS=()
expected() { # name: listed in SCALE_OUT_EXPECTED_FAIL (whole, or without its prefix)?
  local entry
  for entry in $EXPECTED_FAIL; do
    if [[ "$entry" == "$1" || "$entry" == "${1#*/}" ]]; then return 0; fi
  done
  return 1
}
record() { # name ok|fail detail
  if [[ "$2" == ok ]]; then
    if expected "$1"; then
      FAILED=$((FAILED + 1)); RESULTS+=("FAIL $1 passes but is listed in SCALE_OUT_EXPECTED_FAIL (stale entry) $3")
    else
      PASSED=$((PASSED + 1)); RESULTS+=("PASS $1 $3")
    fi
  elif expected "$1"; then
    XFAILED=$((XFAILED + 1)); RESULTS+=("XFAIL $1 (allowed by SCALE_OUT_EXPECTED_FAIL) $3")
  else
    FAILED=$((FAILED + 1)); RESULTS+=("FAIL $1 $3")
  fi
}
finish() {
  echo
  echo "== summary"
  printf '%s\n' "${RESULTS[@]}"
  if [[ $XFAILED -gt 0 ]]; then echo "($XFAILED failures allowed by SCALE_OUT_EXPECTED_FAIL, not counted)"; fi
  echo "$PASSED passed, $FAILED failed"
  [[ $FAILED -eq 0 ]]
  exit $?
}

for tool in redis-server haproxy nginx curl; do
  if ! command -v "$tool" >/dev/null; then
    echo "$tool not found (apt-get install redis-server haproxy nginx curl)" >&2
    record "tools" fail "($tool missing)"
    finish
  fi
done

echo "== building the interop binaries (interop/build.sh)"
if ! bash "$REPO_ROOT/interop/build.sh"; then
  echo "build failed"; echo "0 passed, 1 failed"; exit 1
fi
BIN="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-everything"

# The budget counts from here (after the build).
START=$SECONDS
# A step's timeout: at most $1 s, and no more than the budget has left.
step_timeout() {
  local left=$((BUDGET - (SECONDS - START)))
  if [[ $left -lt $1 ]]; then echo "$left"; else echo "$1"; fi
}
# False (and a failure recorded) once the budget is spent.
within_budget() { # name
  if [[ $(step_timeout 1) -lt 1 ]]; then
    record "$1" fail "(not run: SCALE_OUT_BUDGET=${BUDGET}s spent)"
    return 1
  fi
}

# shellcheck source=interop/ports.sh
source "$SCRIPT_DIR/ports.sh"
wait_port() { # port: up to 5 s
  for _ in $(seq 1 50); do
    if (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}
stop() { # pid...: processes this script started
  local pid
  for pid in "$@"; do
    if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  done
}
REDIS_PID="" HAPROXY_PID="" NGINX_PID=""
INSTANCE_PIDS=("" "" "")
cleanup() { stop "$NGINX_PID" "$HAPROXY_PID" "${INSTANCE_PIDS[@]}" "$REDIS_PID"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- redis, three instances ----------------------------------------------------
REDIS_PORT="$(free_port)"
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
  >"$OUT_DIR/redis.log" 2>&1 &
REDIS_PID=$!
if ! wait_port "$REDIS_PORT"; then record redis fail "(redis-server did not listen; see $OUT_DIR/redis.log)"; finish; fi
REDIS="redis://127.0.0.1:$REDIS_PORT"

# One key ring for every instance, new each run: 32 random bytes, base64url.
KEYS="k1:$(python3 -c 'import secrets; print(secrets.token_urlsafe(32))')"
# A task whose runner died reads failed about two leases (3 s) later.
INSTANCE_FLAGS=(--task-store "$REDIS" --event-bus "$REDIS" --session-store "$REDIS"
  --request-state-keys "$KEYS" --task-lease-ms 3000)
NAMES=(A B C)
PORTS=("$(free_port)" "$(free_port)" "$(free_port)")
start_instance() { # index
  local i="$1"
  MCP_LOG="${MCP_LOG:-info}" "$BIN" http --listen "127.0.0.1:${PORTS[$i]}" "${INSTANCE_FLAGS[@]}" \
    >>"$OUT_DIR/instance-${NAMES[$i]}.log" 2>&1 &
  INSTANCE_PIDS[$i]=$!
  wait_port "${PORTS[$i]}"
}
for i in 0 1 2; do
  if ! start_instance "$i"; then record "instance-${NAMES[$i]}" fail "(did not listen; see $OUT_DIR/instance-${NAMES[$i]}.log)"; finish; fi
done
A="127.0.0.1:${PORTS[0]}" B="127.0.0.1:${PORTS[1]}" C="127.0.0.1:${PORTS[2]}"
echo "== redis-server on $REDIS (pid $REDIS_PID); instances A $A (pid ${INSTANCE_PIDS[0]}), B $B (pid ${INSTANCE_PIDS[1]}), C $C (pid ${INSTANCE_PIDS[2]})"
echo "   flags: ${INSTANCE_FLAGS[*]/$KEYS/k1:…}"

# The documented configs name 127.0.0.1:3001-3003 (instances), :8080 (the
# balancer) and :8404 (haproxy's statistics); the copies get this run's.
fill_ports() { # file: the config with this run's ports, on stdout
  sed -e "s/127\.0\.0\.1:3001\b/$A/; s/127\.0\.0\.1:3002\b/$B/; s/127\.0\.0\.1:3003\b/$C/" \
    -e "s/127\.0\.0\.1:8080\b/127.0.0.1:$2/; s/127\.0\.0\.1:8404\b/127.0.0.1:${3:-8404}/" "$1"
}

# ---- haproxy ---------------------------------------------------------------------
LB_PORT="$(free_port)" STATS_PORT="$(free_port)"
LB="127.0.0.1:$LB_PORT"
fill_ports "$REPO_ROOT/docs/scaling/haproxy.cfg" "$LB_PORT" "$STATS_PORT" >"$OUT_DIR/haproxy.cfg"
if haproxy -c -q -f "$OUT_DIR/haproxy.cfg" >"$OUT_DIR/haproxy-check.txt" 2>&1; then
  record haproxy-config ok "(docs/scaling/haproxy.cfg with this run's ports: haproxy -c passes)"
else
  cat "$OUT_DIR/haproxy-check.txt"; record haproxy-config fail "(haproxy -c; see $OUT_DIR/haproxy-check.txt)"; finish
fi
haproxy -db -f "$OUT_DIR/haproxy.cfg" >"$OUT_DIR/haproxy.log" 2>&1 &
HAPROXY_PID=$!
wait_port "$LB_PORT"
# haproxy's statistics, as CSV; `hstat COLUMN SERVER` reads one figure.
stats_csv() { curl -s -m 5 "http://127.0.0.1:$STATS_PORT/stats;csv"; }
hstat() {
  stats_csv | awk -F, -v col="$1" -v srv="$2" '
    NR == 1 { sub(/^# /, ""); for (i = 1; i <= NF; i++) at[$i] = i; next }
    $1 == "mcp_instances" && $2 == srv { print $(at[col]) }'
}
wait_up() { # server...: until haproxy's health check has each UP, at most 15 s
  local srv
  for _ in $(seq 1 150); do
    local all=1
    for srv in "$@"; do [[ "$(hstat status "$srv")" == UP ]] || all=0; done
    if [[ $all -eq 1 ]]; then return 0; fi
    sleep 0.1
  done
  return 1
}
if wait_up mcp1 mcp2 mcp3; then
  record haproxy-health ok "(the three instances UP by haproxy's server/discover check)"
else
  stats_csv | cut -d, -f1,2,18; record haproxy-health fail "(not all UP in 15 s)"
fi
echo "== haproxy on http://$LB/mcp (pid $HAPROXY_PID), statistics on :$STATS_PORT"

# ---- runners ---------------------------------------------------------------------
CONFORMANCE="$NPM_DIR/node_modules/.bin/conformance"
installed="$(node -p "require('$NPM_DIR/node_modules/@modelcontextprotocol/conformance/package.json').version" 2>/dev/null)"
if [[ "$installed" != "$CONFORMANCE_VERSION" ]]; then
  echo "conformance $installed installed, $CONFORMANCE_VERSION pinned: run interop/install-peers.sh" >&2
fi
# A run's figures from its checks.json files: `passed failed warnings`,
# then the scenarios run (one line), then each failed `scenario:check-id`.
tally() { # dir
  python3 - "$1" <<'PY'
import glob, json, re, sys
passed = failed = warnings = 0
failures = []
scenarios = []
for path in sorted(glob.glob(f"{sys.argv[1]}/*/checks.json")):
    scenario = re.sub(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", path.split("/")[-2]).removeprefix("server-")
    scenarios.append(scenario)
    try:
        checks = json.load(open(path))
    except ValueError:
        failed += 1
        failures.append(f"{scenario}:unreadable-checks-json")
        continue
    for c in checks:
        status = c.get("status")
        passed += status == "SUCCESS"
        warnings += status == "WARNING"
        if status == "FAILURE":
            failed += 1
            failures.append(f"{scenario}:{c.get('id') or c.get('name')}")
print(passed, failed, warnings)
print(" ".join(scenarios))
print("\n".join(failures))
PY
}
conformance() { # balancer-name url revision
  local name="$1/conformance-$3" dir="$OUT_DIR/$1-conformance-$3" log status counts unexpected=() allowed=() key
  within_budget "$name" || return
  log="$dir.txt"
  echo "== conformance $CONFORMANCE_VERSION --requirements $3 through $1"
  (cd "$NPM_DIR" && timeout "$(step_timeout 180)" "$CONFORMANCE" server --url "$2" --requirements "$3" -o "$dir") >"$log" 2>&1
  status=$?
  grep -E '^✗ |^Total:' "$log"
  if ! grep -q '^Total:' "$log"; then
    tail -5 "$log"; record "$name" fail "(exit $status, no summary; see $log)"; return
  fi
  mapfile -t counts < <(tally "$dir")
  for key in "${counts[@]:2}"; do
    [[ -z "$key" ]] && continue
    if expected "$key" || expected "${key%%:*}"; then allowed+=("$key"); else unexpected+=("$key"); fi
  done
  read -r p f w <<<"${counts[0]}"
  for key in "${allowed[@]}"; do echo "   XFAIL $key (allowed by SCALE_OUT_EXPECTED_FAIL)"; done
  for key in "${unexpected[@]}"; do echo "   FAIL $key"; done
  # A listed scenario (or scenario:check) of this run that failed nothing
  # is stale.
  local entry used
  for entry in $EXPECTED_FAIL; do
    [[ " ${counts[1]} " == *" ${entry%%:*} "* ]] || continue
    used=0
    for key in "${allowed[@]}"; do
      if [[ "$key" == "$entry" || "$key" == "$entry:"* ]]; then used=1; fi
    done
    if [[ $used -eq 0 ]]; then
      echo "   STALE $entry: passes, but is listed in SCALE_OUT_EXPECTED_FAIL"
      unexpected+=("stale:$entry")
    fi
  done
  local summary="$p passed, $f failed, $w warnings"
  if [[ ${#allowed[@]} -gt 0 ]]; then summary+="; ${#allowed[@]} failures allowed: ${allowed[*]}"; fi
  if [[ ${#unexpected[@]} -eq 0 && ( $status -eq 0 || $f -gt 0 ) ]]; then
    record "$name" ok "($summary)"
  else
    record "$name" fail "(exit $status; $summary; not allowed: ${unexpected[*]}; see $log)"
  fi
}
# Runs a check script; each of its `ok NAME: …` / `FAIL NAME: …` lines is a
# result (named PREFIX/NAME); a run that ends otherwise is one failure.
checks() { # prefix label seconds command...
  local prefix="$1" label="$2" limit="$3" out status line name detail any=0
  shift 3
  within_budget "$prefix/$label" || return
  echo "== $prefix: $label"
  out="$(timeout "$(step_timeout "$limit")" "$@" 2>&1)"
  status=$?
  echo "$out" >"$OUT_DIR/$prefix-$label.txt"
  while IFS= read -r line; do
    case "$line" in
      "ok "* | "FAIL "*)
        name="${line#* }"; name="${name%%:*}"; detail="${line#*: }"
        echo "   $line"
        if [[ "$line" == ok* ]]; then record "$prefix/$name" ok "($detail)"; else record "$prefix/$name" fail "($detail)"; fi
        any=1
        ;;
      "# "*) echo "   $line" ;;
    esac
  done <<<"$out"
  if [[ $any -eq 0 || ( $status -ne 0 && $status -ne 1 ) ]]; then
    echo "$out" | tail -15
    record "$prefix/$label" fail "(exit $status; see $OUT_DIR/$prefix-$label.txt)"
  fi
}
PY_CHECK=("$PEERS_PYTHON" "$SCRIPT_DIR/scale_check.py")
# ES modules resolve packages next to the script: run a copy from the npm dir.
cp "$SCRIPT_DIR/ts_scale_check.mjs" "$NPM_DIR/mcp-rs-ts-scale-check.mjs"

# ---- through haproxy -----------------------------------------------------------------
conformance haproxy "http://localhost:$LB_PORT/mcp" 2026-07-28
conformance haproxy "http://localhost:$LB_PORT/mcp" 2025-11-25
checks haproxy balancer 60 "${PY_CHECK[@]}" balancer "$LB"
checks haproxy python-legacy 60 "${PY_CHECK[@]}" sdk legacy "$LB"
checks haproxy python-2026-07-28 60 "${PY_CHECK[@]}" sdk 2026-07-28 "$LB"
checks haproxy ts-legacy 60 node "$NPM_DIR/mcp-rs-ts-scale-check.mjs" legacy "http://$LB/mcp"
checks haproxy ts-auto 60 node "$NPM_DIR/mcp-rs-ts-scale-check.mjs" auto "http://$LB/mcp"

# ---- direct to chosen instances --------------------------------------------------------
checks direct cross-instance 90 "${PY_CHECK[@]}" direct "$A" "$B" "$C"

# ---- through nginx ---------------------------------------------------------------------
NGINX_PORT="$(free_port)"
NGINX_DIR="$OUT_DIR/nginx"
mkdir -p "$NGINX_DIR"
fill_ports "$REPO_ROOT/docs/scaling/nginx.conf" "$NGINX_PORT" >"$NGINX_DIR/nginx.conf"
if nginx -t -q -p "$NGINX_DIR" -c "$NGINX_DIR/nginx.conf" -e stderr >"$NGINX_DIR/check.txt" 2>&1; then
  record nginx-config ok "(docs/scaling/nginx.conf with this run's ports: nginx -t passes)"
  nginx -p "$NGINX_DIR" -c "$NGINX_DIR/nginx.conf" -e stderr -g 'daemon off;' >"$NGINX_DIR/nginx.log" 2>&1 &
  NGINX_PID=$!
  if wait_port "$NGINX_PORT"; then
    echo "== nginx on http://127.0.0.1:$NGINX_PORT/mcp (pid $NGINX_PID)"
    conformance nginx "http://localhost:$NGINX_PORT/mcp" 2026-07-28
    conformance nginx "http://localhost:$NGINX_PORT/mcp" 2025-11-25
    checks nginx balancer 60 "${PY_CHECK[@]}" balancer "127.0.0.1:$NGINX_PORT"
  else
    record nginx-start fail "(nginx did not listen; see $NGINX_DIR/nginx.log)"
  fi
  stop "$NGINX_PID"
  NGINX_PID=""
else
  cat "$NGINX_DIR/check.txt"; record nginx-config fail "(nginx -t; see $NGINX_DIR/check.txt)"
fi

# ---- instance A killed mid-run, then restarted ----------------------------------------------
if within_budget kill/instance-a; then
  checks kill instance-a 90 "${PY_CHECK[@]}" kill "$A" "$B" "$C" "$LB" --pid "${INSTANCE_PIDS[0]}"
  if kill -0 "${INSTANCE_PIDS[0]}" 2>/dev/null; then
    record kill/instance-a-died fail "(instance A, pid ${INSTANCE_PIDS[0]}, still runs)"
    stop "${INSTANCE_PIDS[0]}"
  else
    wait "${INSTANCE_PIDS[0]}" 2>/dev/null
  fi
  session="$(grep -m1 '^# session ' "$OUT_DIR/kill-instance-a.txt" | cut -d' ' -f3)"
  echo "== restarting instance A on $A"
  echo "--- restarted" >>"$OUT_DIR/instance-A.log"
  if start_instance 0 && wait_up mcp1; then
    record restart/instance-a ok "(pid ${INSTANCE_PIDS[0]}, UP again in haproxy)"
    # The session made on A before it died, on the new A.
    if [[ -n "$session" ]]; then
      code="$(curl -s -m 10 -o "$OUT_DIR/restart-ping.txt" -w '%{http_code}' -X POST "http://$A/mcp" \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -H "Mcp-Session-Id: $session" -H 'MCP-Protocol-Version: 2025-11-25' \
        -d '{"jsonrpc":"2.0","id":1,"method":"ping"}')"
      if [[ "$code" == 200 ]] && grep -q '"result"' "$OUT_DIR/restart-ping.txt"; then
        record restart/session-on-new-a ok "(the session opened on the killed A answers on the restarted A)"
      else
        record restart/session-on-new-a fail "(HTTP $code: $(head -c 300 "$OUT_DIR/restart-ping.txt"))"
      fi
    fi
    checks restart balancer 60 "${PY_CHECK[@]}" balancer "$LB"
  else
    record restart/instance-a fail "(not UP again in haproxy; see $OUT_DIR/instance-A.log)"
  fi
fi

# ---- requests served per instance -----------------------------------------------------------
echo
echo "== requests served per instance (balancer traffic; direct checks not included)"
printf '   %-8s %-6s %8s %8s %8s %8s %6s %6s %6s %6s %8s %9s\n' haproxy status req_tot hrsp_2xx hrsp_4xx hrsp_5xx econ eresp wretr wredis chkdown log_lines
for i in 0 1 2; do
  srv="mcp$((i + 1))"
  lines="$(grep -c "mcp_instances/$srv " "$OUT_DIR/haproxy.log")"
  printf '   %-8s %-6s %8s %8s %8s %8s %6s %6s %6s %6s %8s %9s\n' "$srv=${NAMES[$i]}" "$(hstat status "$srv")" \
    "$(hstat req_tot "$srv")" "$(hstat hrsp_2xx "$srv")" "$(hstat hrsp_4xx "$srv")" "$(hstat hrsp_5xx "$srv")" \
    "$(hstat econ "$srv")" "$(hstat eresp "$srv")" "$(hstat wretr "$srv")" "$(hstat wredis "$srv")" \
    "$(hstat chkdown "$srv")" "$lines"
done
stats_csv >"$OUT_DIR/haproxy-stats.csv"
for i in 0 1 2; do
  printf '   nginx %-3s %s requests (access log)\n' "${NAMES[$i]}" "$(grep -c "upstream=127.0.0.1:${PORTS[$i]}\b" "$NGINX_DIR/nginx.log" 2>/dev/null)"
done
for i in 0 1 2; do
  printf '   instance %s: %s legacy sessions started (its log)\n' "${NAMES[$i]}" "$(grep -c 'legacy session started' "$OUT_DIR/instance-${NAMES[$i]}.log")"
done
echo "   run time after the build: $((SECONDS - START)) s (budget ${BUDGET} s)"

stop "$HAPROXY_PID" "${INSTANCE_PIDS[@]}" "$REDIS_PID"
HAPROXY_PID="" INSTANCE_PIDS=("" "" "") REDIS_PID=""
finish

#!/usr/bin/env bash
# The official conformance suite's server scenarios for 2026-07-28 (or SPEC),
# check by check, directly against a modern `mcp-everything http` and through the era
# gateway in front of a legacy-only backend that has the suite's fixtures:
#   direct   mcp-everything http (dual-era; the suite speaks 2026-07-28)
#   gw-stdio mcp-era-gateway --backend-era legacy -- mcp-everything stdio
#   gw-http  mcp-era-gateway --backend-era legacy --url <a second mcp-everything http>
# With --backend-era legacy the gateway speaks only 2025-11-25 to the
# fixture, which stands in for a legacy-only backend. Two more targets put
# the gateway in front of the fixture serving 2026-07-28 alone (a
# modern-only backend, `--modern-only`):
#   gw-modern-stdio  mcp-era-gateway -- mcp-everything stdio --modern-only
#   gw-modern-http   mcp-era-gateway --url <mcp-everything http --modern-only>
#   gw-chain         mcp-era-gateway -- mcp-era-gateway --url <mcp-everything http --modern-only>
#   gw-legacy-chain  mcp-era-gateway --backend-era legacy -- mcp-era-gateway --backend-era legacy --url <mcp-everything http>
#   gw-compose       mcp-era-gateway --config <one backend, mcp-everything http, prefix = "never">
# With SPEC=2025-11-25 and these, the suite's legacy scenarios check legacy
# clients through the gateway to a modern-only server; with the default
# SPEC they check the gateway as a transport bridge in one era (gw-chain:
# an HTTP front on a stdio backend that is itself a gateway's stdio front
# on an HTTP backend, both bridges at once; gw-legacy-chain is the same in
# 2025-11-25 at both hops, for SPEC=2025-11-25). A column is a target
# run with every scenario against one server (as the suite's own runs do),
# or, named TARGET:fresh, with a new server (gateway and backend) for each
# scenario, so that no scenario inherits what an earlier one left behind.
#
# Scenarios: every server scenario the suite lists for 2026-07-28 (`list
# --server --spec-version 2026-07-28`, pending ones included) plus the
# server scenarios of `list --requirements 2026-07-28` (the unscored tasks
# extension ones included), each run alone with `--spec-version 2026-07-28
# --force -o DIR` under a time limit; each run's checks.json is read. A run
# that wrote none is one row `(no checks.json)` with its exit status.
#
# Prints a table (scenario, check, one column per target), the counts per
# column, every differing check with each column's status, errorMessage and
# details, then `N checks, D differ` (a check differs when any column's
# status is not the direct one's). Exits non-zero only when it could not
# run (no peers, build failed, a server did not start, a column with no
# checks at all), never on differences.
#
# Needs the peers: `bash interop/install-peers.sh` (or PEERS_DIR naming an
# installed set). Environment: PEERS_DIR, CARGO_TARGET_DIR, SKIP_BUILD=1,
# SPEC (the revision the suite speaks, default 2026-07-28),
# SCENARIO_TIMEOUT (s per suite run, default 90), TARGETS (default
# "direct gw-stdio gw-http gw-stdio:fresh gw-http:fresh"), SCENARIOS (instead
# of the suite's list), OUT_DIR (default target/interop/gateway-conformance),
# TABLE_MD (a file to write the markdown table and the differences to).
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
TARGET_DIR="${CARGO_TARGET_DIR:-$REPO_ROOT/target}"
SCENARIO_TIMEOUT="${SCENARIO_TIMEOUT:-90}"
TARGETS="${TARGETS:-direct gw-stdio gw-http gw-stdio:fresh gw-http:fresh}"
OUT_DIR="${OUT_DIR:-$TARGET_DIR/interop/gateway-conformance}"
SPEC="${SPEC:-2026-07-28}"

die() { echo "could not run: $*" >&2; echo "0 checks, 0 differ"; exit 2; }

[[ -f "$PEERS_DIR/env.sh" ]] || die "peers missing at $PEERS_DIR: run bash interop/install-peers.sh first"
# shellcheck disable=SC1091
source "$PEERS_DIR/env.sh"
CONFORMANCE="$PEERS_NPM_DIR/node_modules/.bin/conformance"
[[ -x "$CONFORMANCE" ]] || die "no conformance CLI at $CONFORMANCE"
SUITE_VERSION="$(node -p "require('$PEERS_NPM_DIR/node_modules/@modelcontextprotocol/conformance/package.json').version" 2>/dev/null)"

if [[ "${SKIP_BUILD:-}" != 1 ]]; then
  echo "== building the interop binaries (interop/build.sh)"
  bash "$REPO_ROOT/interop/build.sh" || die "build failed"
fi
EVERYTHING="$TARGET_DIR/debug/mcp-everything"
GATEWAY="$TARGET_DIR/debug/mcp-era-gateway"
[[ -x "$EVERYTHING" && -x "$GATEWAY" ]] || die "binaries missing in $TARGET_DIR/debug"

rm -rf "$OUT_DIR" && mkdir -p "$OUT_DIR"

# shellcheck source=interop/ports.sh
source "$SCRIPT_DIR/ports.sh"
wait_port() { # PORT: up to 10 s
  for _ in $(seq 1 100); do
    if (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the targets, each on its own loopback port ------------------------------
declare -A URLS TARGET_PIDS
start_target() { # NAME [LOG-SUFFIX]
  local port backend_port log="$OUT_DIR/logs/$1${2:+-$2}" pids=()
  port="$(free_port)"
  mkdir -p "$OUT_DIR/logs"
  case "$1" in
    direct)
      MCP_LOG="${MCP_LOG:-warn}" "$EVERYTHING" http --listen "127.0.0.1:$port" >"$log.log" 2>&1 &
      pids+=($!) PIDS+=($!) ;;
    gw-stdio)
      MCP_LOG="${MCP_LOG:-warn}" "$GATEWAY" --listen "127.0.0.1:$port" --backend-era legacy \
        -- "$EVERYTHING" stdio >"$log.log" 2>&1 &
      pids+=($!) PIDS+=($!) ;;
    gw-http)
      backend_port="$(free_port)"
      MCP_LOG="${MCP_LOG:-warn}" "$EVERYTHING" http --listen "127.0.0.1:$backend_port" >"$log-backend.log" 2>&1 &
      pids+=($!) PIDS+=($!)
      wait_port "$backend_port" || die "gw-http: backend mcp-everything http did not start"
      MCP_LOG="${MCP_LOG:-warn}" "$GATEWAY" --listen "127.0.0.1:$port" --backend-era legacy \
        --url "http://127.0.0.1:$backend_port/mcp" >"$log.log" 2>&1 &
      pids+=($!) PIDS+=($!) ;;
    gw-modern-stdio)
      MCP_LOG="${MCP_LOG:-warn}" "$GATEWAY" --listen "127.0.0.1:$port" \
        -- "$EVERYTHING" stdio --modern-only >"$log.log" 2>&1 &
      pids+=($!) PIDS+=($!) ;;
    gw-modern-http)
      backend_port="$(free_port)"
      MCP_LOG="${MCP_LOG:-warn}" "$EVERYTHING" http --modern-only --listen "127.0.0.1:$backend_port" >"$log-backend.log" 2>&1 &
      pids+=($!) PIDS+=($!)
      wait_port "$backend_port" || die "gw-modern-http: backend mcp-everything http did not start"
      MCP_LOG="${MCP_LOG:-warn}" "$GATEWAY" --listen "127.0.0.1:$port" \
        --url "http://127.0.0.1:$backend_port/mcp" >"$log.log" 2>&1 &
      pids+=($!) PIDS+=($!) ;;
    gw-chain)
      backend_port="$(free_port)"
      MCP_LOG="${MCP_LOG:-warn}" "$EVERYTHING" http --modern-only --listen "127.0.0.1:$backend_port" >"$log-backend.log" 2>&1 &
      pids+=($!) PIDS+=($!)
      wait_port "$backend_port" || die "gw-chain: backend mcp-everything http did not start"
      MCP_LOG="${MCP_LOG:-warn}" "$GATEWAY" --listen "127.0.0.1:$port" \
        -- "$GATEWAY" --url "http://127.0.0.1:$backend_port/mcp" >"$log.log" 2>&1 &
      pids+=($!) PIDS+=($!) ;;
    gw-legacy-chain)
      backend_port="$(free_port)"
      MCP_LOG="${MCP_LOG:-warn}" "$EVERYTHING" http --listen "127.0.0.1:$backend_port" >"$log-backend.log" 2>&1 &
      pids+=($!) PIDS+=($!)
      wait_port "$backend_port" || die "gw-legacy-chain: backend mcp-everything http did not start"
      MCP_LOG="${MCP_LOG:-warn}" "$GATEWAY" --listen "127.0.0.1:$port" --backend-era legacy \
        -- "$GATEWAY" --backend-era legacy --url "http://127.0.0.1:$backend_port/mcp" >"$log.log" 2>&1 &
      pids+=($!) PIDS+=($!) ;;
    gw-compose)
      backend_port="$(free_port)"
      MCP_LOG="${MCP_LOG:-warn}" "$EVERYTHING" http --listen "127.0.0.1:$backend_port" >"$log-backend.log" 2>&1 &
      pids+=($!) PIDS+=($!)
      wait_port "$backend_port" || die "gw-compose: backend mcp-everything http did not start"
      printf '[[backend]]\nname = "everything"\nurl = "http://127.0.0.1:%s/mcp"\nprefix = "never"\n' \
        "$backend_port" >"$log.toml"
      MCP_LOG="${MCP_LOG:-warn}" "$GATEWAY" --listen "127.0.0.1:$port" --config "$log.toml" >"$log.log" 2>&1 &
      pids+=($!) PIDS+=($!) ;;
    *) die "unknown target $1" ;;
  esac
  TARGET_PIDS[$1]="${pids[*]}"
  wait_port "$port" || die "$1 did not start (see $log.log)"
  URLS[$1]="http://localhost:$port/mcp"
}
stop_target() { # NAME: its processes, by PID (the gateway first)
  local pid pids i kept=()
  read -r -a pids <<<"${TARGET_PIDS[$1]}"
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null; wait "${pids[i]}" 2>/dev/null; done
  TARGET_PIDS[$1]=""
  for pid in "${PIDS[@]}"; do [[ " ${pids[*]} " == *" $pid "* ]] || kept+=("$pid"); done
  PIDS=("${kept[@]}")
}

# ---- the scenarios -------------------------------------------------------------
if [[ -z "${SCENARIOS:-}" ]]; then
  listed="$(cd "$PEERS_NPM_DIR" && "$CONFORMANCE" list --server --spec-version "$SPEC" 2>&1)" || die "conformance list failed: $listed"
  required="$(cd "$PEERS_NPM_DIR" && "$CONFORMANCE" list --server --requirements "$SPEC" 2>&1)" || die "conformance list --requirements failed: $required"
  SCENARIOS="$(
    {
      # `  - name [versions]` under "Server scenarios"
      awk '/^Server scenarios/{s=1; next} /^[^ ]/{s=0} s && /^  - /{print $2}' <<<"$listed"
      # the requirement set's server section, then its unscored `[server]` entries
      awk '/^Server scenarios/{s=1; next} /^[^ ]/{s=0} s && /^  - /{print $2}' <<<"$required"
      awk '/^Run and reported/{s=1} s && /\[server\]/{print $2}' <<<"$required"
    } | awk '!seen[$0]++'
  )"
fi
[[ -n "$SCENARIOS" ]] || die "no scenarios listed"
echo "== conformance $SUITE_VERSION: $(wc -w <<<"$SCENARIOS") server scenarios at $SPEC, ${SCENARIO_TIMEOUT}s each"

run_one() { # COLUMN SCENARIO
  local dir="$OUT_DIR/runs/$1/$2" start=$SECONDS status
  mkdir -p "$dir"
  (cd "$PEERS_NPM_DIR" && timeout -k 5 "$SCENARIO_TIMEOUT" "$CONFORMANCE" server --url "${URLS[${1%%:*}]}" \
    --scenario "$2" --spec-version "$SPEC" --force -o "$dir") >"$dir/output.txt" 2>&1
  status=$?
  echo "$status" >"$dir/exit"
  printf '   %-14s %-48s exit %3s  %3ss  %s\n' "$1" "$2" "$status" "$((SECONDS - start))" \
    "$(grep -o 'Passed: [0-9]*/[0-9]*, [0-9]* failed' "$dir/output.txt" | tail -1)"
}
for column in $TARGETS; do
  target="${column%%:*}"
  if [[ "$column" == *:fresh ]]; then
    echo "== $column: a fresh $target (gateway and backend) for each scenario"
    for scenario in $SCENARIOS; do
      start_target "$target" "$scenario"
      run_one "$column" "$scenario"
      stop_target "$target"
    done
  else
    start_target "$target"
    echo "== $column on ${URLS[$target]}: every scenario against this one server"
    for scenario in $SCENARIOS; do run_one "$column" "$scenario"; done
    stop_target "$target"
  fi
done

# ---- the table -----------------------------------------------------------------
# shellcheck disable=SC2086 # one argument per scenario
SPEC="$SPEC" python3 - "$OUT_DIR" "$SUITE_VERSION" "${TABLE_MD:-}" "$TARGETS" $SCENARIOS <<'PY'
import glob, json, os, sys

out, suite, table_md, targets = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
scenarios = sys.argv[5:]
SHORT = {"SUCCESS": "pass", "FAILURE": "FAIL", "WARNING": "warn", "SKIPPED": "skip", "INFO": "info"}

def load(target, scenario):
    """[(check key, check)] in the suite's order; duplicate ids numbered."""
    run = os.path.join(out, "runs", target, scenario)
    files = sorted(glob.glob(os.path.join(run, "*", "checks.json")))
    try:
        exit_status = open(os.path.join(run, "exit")).read().strip()
    except OSError:
        exit_status = "?"
    if not files:
        tail = ""
        try:
            tail = " ".join(open(os.path.join(run, "output.txt"), errors="replace").read().split()[-30:])
        except OSError:
            pass
        why = "timed out" if exit_status in ("124", "137") else f"exit {exit_status}"
        return [("(no checks.json)", {"status": "NORUN", "errorMessage": f"{why}: {tail}"})]
    checks = json.load(open(files[-1]))
    seen, rows = {}, []
    for check in checks:
        cid = check.get("id") or check.get("name") or "?"
        seen[cid] = seen.get(cid, 0) + 1
        rows.append((cid if seen[cid] == 1 else f"{cid} #{seen[cid]}", check))
    return rows

rows, differ, totals = [], [], {t: {} for t in targets}
for scenario in scenarios:
    per = {t: load(t, scenario) for t in targets}
    order, index = [], {}
    for t in targets:
        for key, check in per[t]:
            if key not in index:
                index[key] = {}
                order.append(key)
            index[key][t] = check
    for key in order:
        cells = {t: index[key].get(t) for t in targets}
        status = {t: (c["status"] if c else "absent") for t, c in cells.items()}
        for t in targets:
            totals[t][status[t]] = totals[t].get(status[t], 0) + 1
        rows.append((scenario, key, status))
        if len(set(status.values())) > 1:
            differ.append((scenario, key, cells))

def cell(s):
    return SHORT.get(s, s)

lines = [
    f"| scenario | check | {' | '.join(targets)} |",
    "|---|---|" + "---|" * len(targets),
]
for scenario, key, status in rows:
    mark = " **≠**" if len(set(status.values())) > 1 else ""
    lines.append(f"| {scenario} | `{key}`{mark} | " + " | ".join(cell(status[t]) for t in targets) + " |")
table = "\n".join(lines)

def clip(text, n=600):
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"

detail = []
for scenario, key, cells in differ:
    detail.append(f"### {scenario} / `{key}`\n")
    for t in targets:
        c = cells[t]
        if c is None:
            detail.append(f"- {t}: absent (the run did not emit this check)")
            continue
        msg = c.get("errorMessage") or ""
        extra = c.get("details")
        line = f"- {t}: {c['status']}"
        if msg:
            line += f": {clip(msg)}"
        if extra and c["status"] not in ("SUCCESS", "INFO"):
            line += f" — details: `{clip(json.dumps(extra), 500)}`"
        detail.append(line)
    detail.append("")

summary = []
for t in targets:
    counts = totals[t]
    summary.append(f"- {t}: " + ", ".join(f"{cell(k)} {v}" for k, v in sorted(counts.items())))

print(f"\n== conformance {suite}, server scenarios at {os.environ['SPEC']}: {len(scenarios)} scenarios\n")
print(table)
print("\n== per target")
print("\n".join(summary))
print("\n== differing checks\n")
print("\n".join(detail) if detail else "(none)")
json.dump({"suite": suite, "targets": targets, "rows": [[s, k, st] for s, k, st in rows]},
          open(os.path.join(out, "table.json"), "w"), indent=1)
if table_md:
    with open(table_md, "w") as f:
        f.write(table + "\n\n" + "\n".join(summary) + "\n\n" + ("\n".join(detail) if detail else "(none)\n"))
print(f"{len(rows)} checks, {len(differ)} differ")
sys.exit(3 if any(sum(v for k, v in totals[t].items() if k not in ("NORUN", "absent")) == 0 for t in targets) else 0)
PY
status=$?
[[ $status -eq 0 ]] || { echo "could not run: a target produced no checks (see $OUT_DIR/runs)" >&2; exit 3; }

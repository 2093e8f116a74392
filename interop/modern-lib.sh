# Shared by interop/dynamic.sh and interop/gateway.sh (sourced, not run):
# results, the conformance suite's server scenarios, and one modern request
# over HTTP. The sourcing script sets URL, WORK, STEP_TIMEOUT and, once
# started, server_pid; PEERS_NPM_DIR comes from the peers' env.sh.

passed=0
failed=0
record() { # NAME ok|fail DETAIL
  if [[ "$2" == ok ]]; then passed=$((passed + 1)); echo "PASS $1 $3"; else failed=$((failed + 1)); echo "FAIL $1 $3"; fi
}
finish() {
  [[ -n "${server_pid:-}" ]] && kill "$server_pid" 2>/dev/null
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
  exit $?
}

# The official suite's server scenarios against $URL, each recorded.
run_era() { # ERA "SCENARIO..." [--force: extension scenarios, off the spec's timeline]
  local era="$1" scenarios="$2" scenario log summary force=("${@:3}")
  for scenario in $scenarios; do
    log="$WORK/$era-$scenario.txt"
    (cd "$PEERS_NPM_DIR" && timeout "$STEP_TIMEOUT" ./node_modules/.bin/conformance server \
      --url "$URL" --scenario "$scenario" --spec-version "$era" "${force[@]}") >"$log" 2>&1
    local status=$?
    summary="$(grep -o 'Passed: [0-9]*/[0-9]*, [0-9]* failed' "$log" | tail -1)"
    if [[ $status -eq 0 && "$summary" == *", 0 failed" ]]; then
      record "conformance-$era $scenario" ok "($summary)"
    else
      record "conformance-$era $scenario" fail "(exit $status; ${summary:-no summary}; $(tail -3 "$log" | tr '\n' ' '))"
    fi
  done
}

# A modern request to $URL, declaring CLIENT_CAPABILITIES (JSON, default
# none); prints what the Python expression makes of the answer (`r`: the
# result, `e`: the error).
ask() { # METHOD PARAMS-JSON PYTHON-EXPRESSION [MCP-NAME]
  local body name=() capabilities="${CLIENT_CAPABILITIES:-}"
  [[ -n "${4:-}" ]] && name=(-H "mcp-name: $4")
  [[ -n "$capabilities" ]] || capabilities='{}'
  body="$(python3 -c 'import json,sys; p=json.loads(sys.argv[2]); p["_meta"]={"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":json.loads(sys.argv[3])}; print(json.dumps({"jsonrpc":"2.0","id":1,"method":sys.argv[1],"params":p}))' "$1" "$2" "$capabilities")"
  curl -s -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H 'mcp-protocol-version: 2026-07-28' -H "mcp-method: $1" "${name[@]}" -d "$body" "$URL" \
    | python3 -c "import json,sys; a=json.load(sys.stdin); r=a.get('result', {}); e=a.get('error', {}); print($3)" 2>/dev/null
}

-- wrk script for bench/gateway.sh: the modern (2026-07-28) tools/call of
-- test_simple_text, no initialize, with the headers a modern client sends.
-- Every answer is checked: HTTP 200 holding the expected text and no
-- "isError":true, else it counts as bad. `done` prints one line
--   RESULT requests=.. duration_us=.. p50_us=.. p99_us=.. ... ok=.. bad=..
-- that bench/gateway.sh reads (latencies in microseconds).

local expected = os.getenv("EXPECTED_TEXT") or "This is a simple text response for testing."

wrk.method = "POST"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text",'
  .. '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
  .. '"io.modelcontextprotocol/clientCapabilities":{}}}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "test_simple_text"

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

-- Per thread (each wrk thread has its own Lua state): read back in `done`.
good_answers = 0
bad_answers = 0
first_bad = ""

function response(status, headers, body)
  if status == 200 and body and string.find(body, expected, 1, true)
      and not string.find(body, '"isError":true', 1, true) then
    good_answers = good_answers + 1
  else
    bad_answers = bad_answers + 1
    if first_bad == "" then
      first_bad = tostring(status) .. " " .. string.sub(tostring(body), 1, 200)
    end
  end
end

function done(summary, latency, requests)
  local ok, bad, sample = 0, 0, ""
  for _, t in ipairs(threads) do
    ok = ok + t:get("good_answers")
    bad = bad + t:get("bad_answers")
    local fb = t:get("first_bad")
    if sample == "" and fb and fb ~= "" then sample = fb end
  end
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d mean_us=%.1f max_us=%d "
      .. "connect=%d read=%d write=%d status=%d timeout=%d ok=%d bad=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency.mean, latency.max, e.connect, e.read, e.write, e.status, e.timeout, ok, bad))
  if sample ~= "" then
    io.write("FIRST_BAD " .. string.gsub(sample, "\n", " ") .. "\n")
  end
end

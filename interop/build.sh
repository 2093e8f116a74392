#!/usr/bin/env bash
# Builds every binary the interop scripts run, in one cargo invocation that
# each script repeats: the same packages and features each time, so cargo
# unifies features alike and only the first script compiles. (A script that
# built only what it ran rebuilt mcp-era-server for each other feature set,
# and overwrote the binaries of the one before.) Outputs land in
# ${CARGO_TARGET_DIR:-target}/debug and debug/examples:
#   mcp-everything (features auth, redis), mcp-everything-otel, mcp-probe,
#   mcp-era-gateway (feature auth), examples dynamic and apps (mcp-era),
#   apps_wire (mcp-era-types).
# None of these features acts unless its flag is given.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec cargo build -q --locked \
    -p mcp-everything -p mcp-probe -p mcp-era-gateway -p mcp-era -p mcp-era-types \
    --bins --example dynamic --example apps --example apps_wire \
    --features mcp-everything/auth,mcp-everything/redis,mcp-everything/otel \
    --features mcp-era-gateway/auth,mcp-era-types/named

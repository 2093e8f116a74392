#!/usr/bin/env bash
# Builds the README's server snippet as a new project outside the workspace
# that depends on the `mcp-era` facade alone (by path), then talks to it over
# stdio: a modern `server/discover`, a tool call, and a legacy `initialize`.
# The snippet is the first ```rust block after the README's
# `<!-- outside-workspace-check -->` marker. Ends with `N passed, M failed`.
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

awk '/<!-- outside-workspace-check -->/ {found=1; next}
     found && /^```rust/ {inside=1; next}
     inside && /^```/ {exit}
     inside {print}' "$REPO_ROOT/README.md" > "$WORK/main.rs"
if [[ ! -s "$WORK/main.rs" ]]; then
    echo "no snippet after <!-- outside-workspace-check --> in README.md" >&2
    echo "0 passed, 1 failed"
    exit 1
fi

mkdir -p "$WORK/hello/src"
mv "$WORK/main.rs" "$WORK/hello/src/main.rs"
cat > "$WORK/hello/Cargo.toml" <<TOML
[package]
name = "hello"
version = "0.1.0"
edition = "2024"

[dependencies]
mcp-era = { path = "$REPO_ROOT/mcp-era" }
TOML
# The workspace's lock file pins the same versions; cargo trims it to this
# project's graph. Offline: `cargo fetch` of the workspace brought every crate.
cp "$REPO_ROOT/Cargo.lock" "$WORK/hello/Cargo.lock"
(cd "$WORK/hello" && CARGO_TARGET_DIR="$REPO_ROOT/target/outside" cargo build --quiet --offline)
BIN="$REPO_ROOT/target/outside/debug/hello"

passed=0
failed=0
check() { # name, input lines, a string the output must contain
    local out
    out="$(printf '%s\n' "$2" | timeout 20 "$BIN" 2>/dev/null || true)"
    if grep -qF -- "$3" <<<"$out"; then
        echo "ok: $1"
        passed=$((passed + 1))
    else
        echo "FAILED: $1: expected $3 in: $out"
        failed=$((failed + 1))
    fi
}
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
check "server/discover (modern)" \
    '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{'"$META"'}}' \
    '"supportedVersions":["2026-07-28"]'
check "tools/call (modern)" \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3},'"$META"'}}' \
    '"text":"5"'
check "initialize (legacy 2025-11-25)" \
    '{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"0"}}}' \
    '"protocolVersion":"2025-11-25"'
echo "outside-workspace: $passed passed, $failed failed"
[[ $failed -eq 0 ]]

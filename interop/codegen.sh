#!/usr/bin/env bash
# Typed clients generated from real peers' tool catalogues (issue 27):
# `mcp-probe --codegen` lists the tools of
#
#   1. @modelcontextprotocol/server-everything (npm, stdio, legacy only),
#   2. a Python SDK server (mcp==2.3.0; interop/python_typed_server.py,
#      stdio, dual era),
#
# and writes one Rust module each; a scratch crate OUTSIDE the workspace
# (the workspace's Cargo.lock, --offline, target/outside shared with
# .ci/outside-workspace.sh) includes both and calls three tools of each
# through the generated methods, checking the values that come back.
# Prints one line per check and "N passed, M failed"; exits non-zero if
# anything failed.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
ENV_SH="${PEERS_DIR:-$REPO_ROOT/target/peers}/env.sh"
if [[ ! -f "$ENV_SH" ]]; then
  echo "codegen: $ENV_SH is missing; run interop/install-peers.sh first" >&2
  exit 2
fi
# shellcheck source=/dev/null
source "$ENV_SH"

cd "$REPO_ROOT"
bash interop/build.sh
PROBE="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/mcp-probe"
EVERYTHING="$PEERS_NPM_DIR/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
PY_SERVER="$SCRIPT_DIR/python_typed_server.py"
NODE="${PEERS_NODE:-node}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

PASSED=0
FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "PASS  $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL  $1${2:+: $2}"; }

mkdir -p "$WORK/typed/src"
# generate NAME STRUCT -- CMD...: the module for one server, warnings shown.
generate() {
  local name="$1" struct="$2"; shift 3
  if timeout 120 "$PROBE" --json --codegen "$WORK/typed/src/$name.rs" \
      --save-tools "$WORK/$name-tools.json" --codegen-name "$struct" -- "$@" \
      >"$WORK/$name.json" 2>"$WORK/$name.err"; then
    pass "generate $name ($("$PEERS_PYTHON" -c 'import json, sys; r = json.load(open(sys.argv[1]))["codegen"]; print(r["tools"], "tools,", len(r["warnings"]), "warnings")' "$WORK/$name.json"))"
  else
    fail "generate $name" "$(tail -3 "$WORK/$name.err")"
  fi
  grep 'codegen warning' "$WORK/$name.err" | sed 's/^/      /' || true
}
generate everything Everything -- "$NODE" "$EVERYTHING" stdio
generate python Python -- "$PEERS_PYTHON" "$PY_SERVER" stdio

cat > "$WORK/typed/Cargo.toml" <<TOML
[package]
name = "typed-peers"
version = "0.1.0"
edition = "2024"

[dependencies]
mcp-era = { path = "$REPO_ROOT/mcp-era", default-features = false, features = ["client"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
tokio = { version = "1", features = ["rt", "macros"] }
TOML
cat > "$WORK/typed/src/main.rs" <<'RUST'
//! Calls three tools of each peer through the generated typed clients.

mod everything {
    include!("everything.rs");
}
mod python {
    include!("python.rs");
}

use std::process::ExitCode;

use mcp_era::client::mcp_era_types::v2026_07_28::ContentBlock;
use mcp_era::client::{Client, ClientOptions};

fn text(content: &[ContentBlock]) -> String {
    match content.first() {
        Some(ContentBlock::TextContent(t)) => t.text.clone(),
        other => format!("not a text block: {other:?}"),
    }
}

fn check(name: &str, ok: bool, detail: String, failed: &mut u32) {
    if ok {
        println!("PASS  {name}");
    } else {
        println!("FAIL  {name}: {detail}");
        *failed += 1;
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [node, everything_js, python, python_server] = args.as_slice() else {
        eprintln!("usage: typed-peers NODE EVERYTHING_JS PYTHON PY_SERVER");
        return ExitCode::FAILURE;
    };
    let mut failed = 0;

    let client = Client::connect_stdio(node, &[everything_js.clone(), "stdio".into()], ClientOptions::default())
        .await
        .expect("connect to server-everything");
    let e = everything::EverythingClient::new(client);
    let echo = e.echo(everything::EchoArgs { message: "typed hello".into() }).await;
    let echo = echo.map(|c| text(&c));
    check("server-everything: echo", matches!(&echo, Ok(t) if t == "Echo: typed hello"), format!("{echo:?}"), &mut failed);
    let sum = e.get_sum(everything::GetSumArgs { a: 2.0, b: 3.5 }).await.map(|c| text(&c));
    check("server-everything: get-sum", matches!(&sum, Ok(t) if t.contains("is 5.5")), format!("{sum:?}"), &mut failed);
    let weather = e
        .get_structured_content(everything::GetStructuredContentArgs {
            location: everything::get_structured_content::args::GetStructuredContentArgsLocation::Chicago,
        })
        .await;
    check(
        "server-everything: get-structured-content (typed output)",
        matches!(&weather, Ok(w) if w.temperature == 36.0 && w.conditions == "Light rain / drizzle"),
        format!("{weather:?}"),
        &mut failed,
    );

    let client = Client::connect_stdio(python, &[python_server.clone(), "stdio".into()], ClientOptions::default())
        .await
        .expect("connect to the Python server");
    let p = python::PythonClient::new(client);
    let sum = p.add(python::AddArgs { a: 2, b: 3 }).await.map(|o| o.result);
    check("python: add", matches!(&sum, Ok(t) if t == "5"), format!("{sum:?}"), &mut failed);
    let weather = p
        .get_weather(python::GetWeatherArgs {
            city: "Paris".into(),
            unit: Some(python::get_weather::args::Unit::Fahrenheit),
        })
        .await;
    check(
        "python: get-weather (typed output, enum argument)",
        matches!(&weather, Ok(w) if w.city == "Paris" && w.temperature == 69.8
            && w.unit == python::get_weather::output::Unit::Fahrenheit),
        format!("{weather:?}"),
        &mut failed,
    );
    let joined = p
        .join(python::JoinArgs { words: vec!["a".into(), "b".into()], separator: Some("+".into()) })
        .await;
    check("python: join", matches!(&joined, Ok(j) if j.result == "a+b"), format!("{joined:?}"), &mut failed);

    if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
RUST
cp "$REPO_ROOT/Cargo.lock" "$WORK/typed/Cargo.lock"
if (cd "$WORK/typed" && CARGO_TARGET_DIR="$REPO_ROOT/target/outside" cargo build --quiet --offline) 2>"$WORK/build.err"; then
  pass "the generated modules compile outside the workspace"
  OUT="$(timeout 120 "$REPO_ROOT/target/outside/debug/typed-peers" "$NODE" "$EVERYTHING" "$PEERS_PYTHON" "$PY_SERVER" 2>"$WORK/run.err" || true)"
  echo "$OUT"
  PASSED=$((PASSED + $(grep -c '^PASS' <<<"$OUT" || true)))
  FAILED=$((FAILED + $(grep -c '^FAIL' <<<"$OUT" || true)))
  if [[ $(grep -c '^PASS\|^FAIL' <<<"$OUT" || true) -ne 6 ]]; then
    fail "six typed calls" "$(tail -3 "$WORK/run.err")"
  fi
else
  fail "the generated modules compile outside the workspace" "$(grep -m5 -A5 '^error' "$WORK/build.err")"
fi
echo "codegen: $PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]

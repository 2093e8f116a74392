//! The `mcp-probe` binary end to end: output formats and exit codes, with a
//! legacy server written in `sh` that never answers `server/discover`.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

use std::process::{Command, Output};

const SILENT_LEGACY: &str = r#"while IFS= read -r line; do
  case "$line" in
    *'"initialize"'*) echo '{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sh-server","version":"7"},"instructions":"hello"}}' ;;
  esac
done"#;

/// A legacy server whose `tools/list` has two pages, or with `REPEAT=1`
/// one whose cursor never changes.
const PAGED_LEGACY: &str = r#"while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"initialize"'*) echo '{"jsonrpc":"2.0","id":'"$id"',"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"pages","version":"1"}}}' ;;
    *'"tools/list"'*'"cursor"'*) [ -n "$REPEAT" ] && next=',"nextCursor":"p2"' || next=''
      echo '{"jsonrpc":"2.0","id":'"$id"',"result":{"tools":[{"name":"second","inputSchema":{"type":"object"}}]'"$next"'}}' ;;
    *'"tools/list"'*) echo '{"jsonrpc":"2.0","id":'"$id"',"result":{"tools":[{"name":"first","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}' ;;
  esac
done"#;

/// A legacy server whose every string tries to drive the terminal: a
/// title change (OSC 0), a screen clear, hidden text, a C1 CSI, bidi
/// overrides.
const HOSTILE_LEGACY: &str = r#"while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"initialize"'*) printf '%s\n' '{"jsonrpc":"2.0","id":'"$id"',"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"prompts":{}},"serverInfo":{"name":"evil\u001b]0;pwned\u0007","title":"\u202eeltit","version":"1\u009b2J"},"instructions":"first\n\u001b[2Jsecond"}}' ;;
    *'"tools/list"'*) printf '%s\n' '{"jsonrpc":"2.0","id":'"$id"',"result":{"tools":[{"name":"t\u001b[8m","inputSchema":{"type":"object"}}]}}' ;;
    *'"prompts/list"'*) printf '%s\n' '{"jsonrpc":"2.0","id":'"$id"',"result":{"prompts":[{"name":"p\u2066","description":"d\u001b[31m\r"}]}}' ;;
    *'"tools/call"'*) printf '%s\n' '{"jsonrpc":"2.0","id":'"$id"',"error":{"code":-32602,"message":"bad\u001b[2J"}}' ;;
  esac
done"#;

/// A modern server whose `skills/list` has two pages, or with `REPEAT=1`
/// a second page that names its own cursor again.
const PAGED_SKILLS: &str = r#"entry() { printf '{"uri":"skill://%s/SKILL.md","frontmatter":{"name":"%s","description":"d"},"resources":"dynamic"}' "$1" "$1"; }
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"server/discover"'*) printf '%s\n' '{"jsonrpc":"2.0","id":'"$id"',"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"io.modelcontextprotocol/skills":{}}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"skills","version":"1"}}}}' ;;
    *'"skills/list"'*'"cursor"'*) [ -n "$REPEAT" ] && next=',"nextCursor":"p2"' || next=''
      printf '%s\n' '{"jsonrpc":"2.0","id":'"$id"',"result":{"resultType":"complete","skills":['"$(entry b)"']'"$next"'}}' ;;
    *'"skills/list"'*) printf '%s\n' '{"jsonrpc":"2.0","id":'"$id"',"result":{"resultType":"complete","skills":['"$(entry a)"'],"nextCursor":"p2"}}' ;;
  esac
done"#;

fn probe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-probe"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn readable_and_json_output_for_a_silent_legacy_server() {
    let out = probe(&["--probe-timeout-ms", "200", "--", "sh", "-c", SILENT_LEGACY]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("era:                legacy"), "{text}");
    assert!(text.contains("protocol version:   2025-11-25"), "{text}");
    assert!(text.contains("server:             sh-server 7"), "{text}");
    // The session is legacy; the server may speak both eras.
    assert!(
        text.contains("supported versions: (not reported: legacy session)"),
        "{text}"
    );
    assert!(text.contains("  hello"), "{text}");

    let out = probe(&[
        "--json",
        "--probe-timeout-ms",
        "200",
        "--",
        "sh",
        "-c",
        SILENT_LEGACY,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["era"], "legacy");
    assert_eq!(json["protocolVersion"], "2025-11-25");
    assert_eq!(json["supportedVersions"], serde_json::Value::Null);
    assert_eq!(json["serverInfo"]["name"], "sh-server");
    assert_eq!(json["capabilities"], serde_json::json!({"tools": {}}));
    assert_eq!(json["instructions"], "hello");
}

#[test]
fn exit_codes() {
    // 2: usage.
    assert_eq!(probe(&[]).status.code(), Some(2));
    assert_eq!(
        probe(&["--url", "http://x/", "--", "cmd"]).status.code(),
        Some(2)
    );
    // https is a usage error without TLS; with it, an unreachable server.
    let https = probe(&["--url", "https://127.0.0.1:1/mcp"]).status.code();
    assert_eq!(https, Some(if cfg!(feature = "rustls") { 3 } else { 2 }));
    // 3: cannot reach the server; with --json, still one JSON document.
    assert_eq!(probe(&["--", "/nonexistent/server"]).status.code(), Some(3));
    let out = probe(&["--json", "--", "/nonexistent/server"]);
    assert_eq!(out.status.code(), Some(3));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors = json["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{json}");
    assert_eq!(errors[0]["operation"], "connect");
    assert_eq!(errors[0]["exitCode"], 3);
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/server"),
        "{json}"
    );
    // A usage error found after parsing, too.
    let out = probe(&["--json", "--args", "[]", "--call", "x", "--", "cmd"]);
    assert_eq!(out.status.code(), Some(2));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["errors"][0]["message"], "--args must be a JSON object");
    // 4: forced modern against a legacy server.
    let out = probe(&[
        "--era",
        "modern",
        "--probe-timeout-ms",
        "200",
        "--",
        "sh",
        "-c",
        SILENT_LEGACY,
    ]);
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not speak the modern protocol"));
    // 5: timeout (the server answers nothing, not even initialize).
    let out = probe(&[
        "--era",
        "legacy",
        "--timeout-ms",
        "200",
        "--",
        "sh",
        "-c",
        "cat >/dev/null",
    ]);
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn list_tools_follows_every_page() {
    let args = [
        "--era",
        "legacy",
        "--list-tools",
        "--",
        "sh",
        "-c",
        PAGED_LEGACY,
    ];
    let out = probe(&args);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("tools:              first, second"), "{text}");

    // A cursor that comes back is an error, not an endless loop.
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-probe"))
        .args(args)
        .env("REPEAT", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(
        err.contains("--list-tools: ") && err.contains("repeated cursor `p2`"),
        "{err}"
    );
}

#[test]
fn server_text_cannot_drive_the_terminal() {
    let args = [
        "--era",
        "legacy",
        "--list-tools",
        "--list-prompts",
        "--call",
        "x",
        "--",
        "sh",
        "-c",
        HOSTILE_LEGACY,
    ];
    let out = probe(&args);
    let (text, err) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert_eq!(out.status.code(), Some(1), "{err}");
    for shown in [&text, &err] {
        assert!(
            !shown.contains(['\u{1b}', '\u{7}', '\r', '\u{9b}', '\u{202e}', '\u{2066}']),
            "{shown:?}"
        );
    }
    for expected in [
        r"server:             evil\x1b]0;pwned\x07 1\u{9b}2J (\u{202e}eltit)",
        "instructions:\n  first\n  \\x1b[2Jsecond\n",
        r"tools:              t\x1b[8m",
        "  p\\u{2066}\n      d\\x1b[31m\\x0d\n",
    ] {
        assert!(text.contains(expected), "no {expected:?} in\n{text}");
    }
    assert!(err.contains(r"bad\x1b[2J"), "{err}");

    // JSON stays exact: the text as the server sent it, escaped by JSON.
    let mut json_args = vec!["--json"];
    json_args.extend_from_slice(&args);
    let out = probe(&json_args);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["serverInfo"]["name"], "evil\u{1b}]0;pwned\u{7}");
    assert_eq!(json["tools"][0], "t\u{1b}[8m");
}

#[test]
fn list_skills_follows_every_page_and_stops_at_a_repeated_cursor() {
    let args = ["--list-skills", "--", "sh", "-c", PAGED_SKILLS];
    let out = probe(&args);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("skills (2):\n  a  skill://a/SKILL.md  (dynamic)\n"),
        "{text}"
    );
    assert!(
        text.contains("  b  skill://b/SKILL.md  (dynamic)"),
        "{text}"
    );

    // Not a quiet stop with part of the list.
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-probe"))
        .args(args)
        .env("REPEAT", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(
        err.contains("--list-skills: skills/list: the server repeated cursor `p2`"),
        "{err}"
    );
}

//! `mcp-everything demo` as a newcomer runs it: it succeeds, shows every
//! message it sends (the legacy `notifications/initialized` too), and no
//! line runs on for kilobytes.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::process::Command;

#[test]
fn the_demo_is_compact_and_shows_every_message() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-everything"))
        .arg("demo")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.trim_end().ends_with(
            "OK: modern discover, version negotiation, tools, and a legacy session all answered."
        ),
        "{text}"
    );
    let longest = text.lines().map(str::len).max().unwrap();
    assert!(longest <= 480, "a line of {longest} bytes in\n{text}");
    // tools/list is kilobytes: shown with its middle elided and counted.
    let listed = text
        .lines()
        .find(|l| l.starts_with(r#"<- {"jsonrpc":"2.0","id":3,"result":"#))
        .unwrap();
    assert!(listed.contains(r#""tools":[{"#), "{listed}");
    assert!(listed.contains(" bytes … "), "{listed}");
    assert!(text.contains("tools: test_simple_text, "), "{text}");
    // The notification the legacy client sends, shown like the requests.
    assert!(
        text.contains(
            "== legacy: notifications/initialized (a notification: no answer)\n\
             -> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
        ),
        "{text}"
    );
    // Each request shown is answered by a line shown.
    let sent = text
        .lines()
        .filter(|l| l.starts_with("-> ") && l.contains(r#""id":"#))
        .count();
    let answered = text
        .lines()
        .filter(|l| l.starts_with("<- ") && l.contains(r#""id":"#))
        .count();
    assert_eq!(sent, answered, "{text}");
}

//! typify panics on some schemas (enum values that collide once made Rust
//! names); the generator catches them, and the panic must show only as the
//! documented warning: no "thread … panicked" on stderr, and the hooks of
//! other threads and of the caller left as they were.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_era_codegen::client::{ClientOptions, generate};
use serde_json::{Value, json};

/// Tools whose argument enums typify panics on.
fn colliding() -> Value {
    json!([
        {"name": "dash", "inputSchema": {"type": "object", "properties": {
            "mode": {"type": "string", "enum": ["a-b", "a_b"]}}}},
        {"name": "case", "inputSchema": {"type": "object", "properties": {
            "mode": {"type": "string", "enum": ["A", "a"]}}}}
    ])
}

fn panicked_warnings(g: &mcp_era_codegen::client::Generated) -> usize {
    g.warnings
        .iter()
        .filter(|w| w.message == "typify panicked on this schema")
        .count()
}

#[test]
fn the_cli_reports_a_typify_panic_as_a_warning_only() {
    let tools = std::env::temp_dir().join(format!("colliding-{}.json", std::process::id()));
    std::fs::write(&tools, colliding().to_string()).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-era-codegen"))
        .args(["client", "--tools"])
        .arg(&tools)
        .output()
        .unwrap();
    std::fs::remove_file(&tools).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked at"), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines,
        [
            "warning: tool `case` at `/inputSchema`: typify panicked on this schema",
            "warning: tool `dash` at `/inputSchema`: typify panicked on this schema",
        ],
        "{stderr}"
    );
}

#[test]
fn concurrent_generation_silences_only_its_own_panics() {
    // A hook of the caller's: counts the panics it is shown.
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    std::panic::set_hook(Box::new(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    }));
    let workers: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                let g = generate(&colliding(), &ClientOptions::default()).unwrap();
                panicked_warnings(&g)
            })
        })
        .collect();
    // A panic elsewhere while generation runs still reaches the caller's hook.
    let outside = std::thread::spawn(|| panic!("outside")).join();
    let warned: Vec<usize> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    let during = seen.load(Ordering::SeqCst);
    // Afterwards the caller's hook is in place again.
    let after = std::panic::catch_unwind(|| panic!("after"));
    let later = seen.load(Ordering::SeqCst);
    // The default hook again, so that a failed assertion below is shown.
    drop(std::panic::take_hook());
    assert!(outside.is_err() && after.is_err());
    assert_eq!(warned, [2, 2, 2, 2]);
    assert_eq!(during, 1, "typify's panics reached the caller's hook");
    assert_eq!(later, 2, "the caller's hook was not restored");
}

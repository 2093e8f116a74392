//! Validates a JSON message as a named MCP schema type and shows how it was
//! understood: the re-serialized message and the variant each union chose.
//!
//! ```text
//! cargo run -p mcp-era-types --example validate -- [--revision 2025-11-25] TYPE [FILE]
//! ```
//!
//! Reads FILE (or standard input). Exit code 0: valid; 1: invalid; 2: usage.

use std::io::Read;
use std::process::ExitCode;

use mcp_era_types::{v2025_11_25, v2026_07_28};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let revision = match args.iter().position(|a| a == "--revision") {
        Some(i) if i + 1 < args.len() => {
            let value = args.remove(i + 1);
            args.remove(i);
            value
        }
        Some(_) => return usage("--revision needs a value"),
        None => v2026_07_28::VERSION.to_owned(),
    };
    let (type_name, file) = match args.as_slice() {
        [type_name] => (type_name.clone(), None),
        [type_name, file] => (type_name.clone(), Some(file.clone())),
        _ => return usage("expected TYPE [FILE]"),
    };
    let mut text = String::new();
    let read = match &file {
        Some(path) => std::fs::read_to_string(path).map(|t| text = t),
        None => std::io::stdin().read_to_string(&mut text).map(drop),
    };
    if let Err(e) = read {
        eprintln!("cannot read input: {e}");
        return ExitCode::from(2);
    }
    let value: serde_json::Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(e) => {
            eprintln!("invalid: not JSON: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (roundtrip, choices) = match revision.as_str() {
        v2026_07_28::VERSION => (
            v2026_07_28::roundtrip_named(&type_name, value.clone()),
            v2026_07_28::union_choices_named(&type_name, value.clone()),
        ),
        v2025_11_25::VERSION => (
            v2025_11_25::roundtrip_named(&type_name, value.clone()),
            v2025_11_25::union_choices_named(&type_name, value.clone()),
        ),
        other => return usage(&format!("no generated module for revision {other}")),
    };
    match (roundtrip, choices) {
        (Ok(back), Ok(choices)) => {
            println!("valid {revision} {type_name}");
            for choice in choices {
                let path = if choice.path.is_empty() {
                    "/"
                } else {
                    &choice.path
                };
                println!("  {path}: {}::{}", choice.union, choice.variant);
            }
            println!("{back}");
            if back != value {
                eprintln!("note: the value changed on the round-trip");
            }
            ExitCode::SUCCESS
        }
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("invalid: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage(problem: &str) -> ExitCode {
    eprintln!(
        "{problem}\nusage: validate [--revision {}|{}] TYPE [FILE]",
        v2026_07_28::VERSION,
        v2025_11_25::VERSION
    );
    ExitCode::from(2)
}

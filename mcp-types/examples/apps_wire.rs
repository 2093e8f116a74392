//! Checks a recording of the messages between an MCP Apps host and its App
//! against the types generated from the Apps schema: each `ui/` request
//! and notification must parse as exactly one `McpUi*Request` or
//! `McpUi*Notification`, each answer to a `ui/` request as that request's
//! `McpUi*Result`, and each must come back unchanged when written again.
//! Core MCP messages (`tools/call`, `ping`, …) are counted, not checked.
//!
//! ```text
//! cargo run -p mcp-era-types --example apps_wire -- FILE
//! ```
//!
//! FILE holds JSON lines `{"from": "host"|"app", "message": {...}}`, as
//! `interop/apps/run.mjs --wire` writes them from a real browser. Exit code
//! 0: every `ui/` message checked (and there was one); 1: not; 2: usage.

use std::collections::HashMap;
use std::process::ExitCode;

use mcp_era_types::ext::apps::{TYPE_NAMES, roundtrip_named};
use serde_json::{Value, json};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file] = args.as_slice() else {
        eprintln!("usage: apps_wire FILE");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("cannot read {file}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut problems = Vec::new();
    let (mut checked, mut core) = (0, 0);
    // The `ui/` requests each side sent, by id: their answers come from the other.
    let mut asked: HashMap<(String, String), String> = HashMap::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let entry: Value = match serde_json::from_str(line) {
            Ok(entry) => entry,
            Err(e) => {
                problems.push(format!("line {}: not JSON: {e}", n + 1));
                continue;
            }
        };
        let from = entry["from"].as_str().unwrap_or("?").to_owned();
        let message = &entry["message"];
        let id = message.get("id").map(Value::to_string);
        let checked_as = match (message["method"].as_str(), id) {
            (Some(method), id) if method.starts_with("ui/") => {
                let body = match message.get("params") {
                    Some(params) => json!({"method": method, "params": params}),
                    None => json!({"method": method}),
                };
                let kind = if id.is_some() {
                    "Request"
                } else {
                    "Notification"
                };
                let result = check_one_of(kind, &body);
                if let (Ok(name), Some(id)) = (&result, id) {
                    asked.insert((from.clone(), id), name.clone());
                }
                Some(result)
            }
            (None, Some(id)) => {
                let other = if from == "host" { "app" } else { "host" };
                match asked.remove(&(other.to_owned(), id)) {
                    Some(request) => {
                        let name = request.replacen("Request", "Result", 1);
                        Some(check(&name, &message["result"]).map(|()| name))
                    }
                    None => None,
                }
            }
            _ => None,
        };
        match checked_as {
            Some(Ok(name)) => {
                println!("  {from}: {name}");
                checked += 1;
            }
            Some(Err(problem)) => problems.push(format!("line {} ({from}): {problem}", n + 1)),
            None => core += 1,
        }
    }
    if checked == 0 {
        problems.push("no `ui/` message was recorded".to_owned());
    }
    println!("{checked} MCP Apps messages checked, {core} core MCP messages not");
    for problem in &problems {
        println!("FAIL: {problem}");
    }
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The one `McpUi*<kind>` type `body` is, checked to round-trip.
fn check_one_of(kind: &str, body: &Value) -> Result<String, String> {
    let matches: Vec<&str> = TYPE_NAMES
        .iter()
        .copied()
        .filter(|name| name.ends_with(kind) && roundtrip_named(name, body.clone()).is_ok())
        .collect();
    match matches.as_slice() {
        [name] => check(name, body).map(|()| (*name).to_owned()),
        [] => Err(format!("{body} is no McpUi*{kind}")),
        many => Err(format!("{body} is several types: {many:?}")),
    }
}

/// `value` parses as `type_name` and is written back unchanged.
fn check(type_name: &str, value: &Value) -> Result<(), String> {
    match roundtrip_named(type_name, value.clone()) {
        Ok(back) if &back == value => Ok(()),
        Ok(back) => Err(format!("{type_name}: {value} came back as {back}")),
        Err(e) => Err(format!("{type_name}: {value}: {e}")),
    }
}

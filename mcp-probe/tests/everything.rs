//! `mcp-probe` against the `mcp-everything` fixture: resources and prompts
//! over stdio in both eras and over HTTP, with exit codes.
//!
//! Cargo builds no other package's binary for these tests, so this file has
//! its own `main` (`harness = false`): run with [`FIXTURE`] as its argument
//! it is the stdio fixture server, which the probe spawns.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

use std::net::SocketAddr;
use std::panic;
use std::process::{Command, ExitCode, Output};
use std::sync::{Arc, OnceLock};

use mcp_era_server::http::HttpConfig;
use mcp_everything::Everything;
use serde_json::{Value, json};

const FIXTURE: &str = "--serve-everything-stdio";

fn probe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-probe"))
        .args(args)
        .output()
        .unwrap()
}

/// The probe against this binary's stdio fixture, speaking `era`.
fn stdio(era: &str, args: &[&str]) -> Output {
    let me = std::env::current_exe().unwrap();
    let mut all = vec!["--era", era];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--", me.to_str().unwrap(), FIXTURE]);
    probe(&all)
}

/// The URL of an in-process HTTP fixture on a loopback port (one per run).
fn http_url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let server = Arc::new(Everything::new());
                mcp_era_server::http::serve_listener(server, listener, HttpConfig::new(addr)).await
            })
        });
        format!("http://{addr}/mcp")
    })
}

fn ok(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_str(&ok(out)).unwrap()
}

fn names(list: &Value, field: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|i| i[field].as_str().unwrap().to_owned())
        .collect()
}

fn lists_in_both_eras() {
    for era in ["modern", "legacy"] {
        let text = ok(&stdio(
            era,
            &["--list-resources", "--list-templates", "--list-prompts"],
        ));
        for expected in [
            &format!("era:                {era}"),
            "  static-text (Static Text Resource)  test://static-text  [text/plain]",
            "      A static text resource for testing",
            "  template (Resource Template)  test://template/{id}/data  [application/json]",
            "  test_simple_prompt (Simple Test Prompt)",
            "  test_prompt_with_arguments (Prompt With Arguments)  arguments: arg1 (required), arg2 (required)",
        ] {
            assert!(text.contains(expected), "{era}: no {expected:?} in\n{text}");
        }

        let json = json_of(&stdio(
            era,
            &[
                "--json",
                "--list-resources",
                "--list-templates",
                "--list-prompts",
            ],
        ));
        assert_eq!(json["era"], era);
        let uris = names(&json["resources"], "uri");
        assert_eq!(uris[..2], ["test://static-text", "test://static-binary"]);
        // One catalogue for both eras (the fixture is a `#[router]`).
        assert!(
            uris.iter().any(|u| u == "test://stateless-static-text"),
            "{uris:?}"
        );
        assert_eq!(
            names(&json["resourceTemplates"], "uriTemplate"),
            ["test://template/{id}/data"]
        );
        let prompts = names(&json["prompts"], "name");
        assert!(prompts.contains(&"test_prompt_with_arguments".to_owned()));
    }
}

fn reads_in_both_eras() {
    for era in ["modern", "legacy"] {
        let text = ok(&stdio(era, &["--read", "test://static-text"]));
        assert!(
            text.contains("  test://static-text [text/plain], text:\n    This is the content of the static text resource.\n"),
            "{era}: {text}"
        );
        // The fixture's PNG is 96 Base64 characters with two of padding.
        let text = ok(&stdio(era, &["--read", "test://static-binary"]));
        assert!(
            text.contains("  test://static-binary [image/png], blob of 70 bytes"),
            "{era}: {text}"
        );
        let json = json_of(&stdio(
            era,
            &["--json", "--read", "test://template/42/data"],
        ));
        let content = &json["readResult"]["contents"][0];
        assert_eq!(content["uri"], "test://template/42/data");
        let data: Value = serde_json::from_str(content["text"].as_str().unwrap()).unwrap();
        assert_eq!(data["id"], "42");
    }
}

fn prompts_in_both_eras() {
    for era in ["modern", "legacy"] {
        let text = ok(&stdio(era, &["--get-prompt", "test_simple_prompt"]));
        assert!(
            text.contains(
                "prompt:\n  description: A simple prompt without arguments\n  user: This is a simple prompt for testing.\n"
            ),
            "{era}: {text}"
        );
        let args = r#"{"arg1": "one", "arg2": "two"}"#;
        let text = ok(&stdio(
            era,
            &[
                "--get-prompt",
                "test_prompt_with_arguments",
                "--prompt-args",
                args,
            ],
        ));
        assert!(
            text.contains("  user: Prompt with arguments: arg1='one', arg2='two'"),
            "{era}: {text}"
        );
        let json = json_of(&stdio(
            era,
            &[
                "--json",
                "--get-prompt",
                "test_prompt_with_arguments",
                "--prompt-args",
                args,
            ],
        ));
        assert_eq!(
            json["promptResult"]["messages"][0],
            json!({"role": "user", "content": {"type": "text", "text": "Prompt with arguments: arg1='one', arg2='two'"}})
        );
    }
}

fn errors_and_usage() {
    // A missing resource: the JSON-RPC error, exit 1 (-32602 modern, -32002 legacy).
    for (era, code) in [("modern", "-32602"), ("legacy", "-32002")] {
        let out = stdio(era, &["--read", "test://no-such-resource"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{era}: {err}");
        assert!(
            err.contains(&format!("JSON-RPC error {code}")),
            "{era}: {err}"
        );
        assert!(err.contains("test://no-such-resource"), "{era}: {err}");
    }
    // An unknown prompt is a JSON-RPC error too.
    let out = stdio("modern", &["--get-prompt", "no_such_prompt"]);
    assert_eq!(out.status.code(), Some(1));
    // Usage: prompt arguments are strings, in an object, for --get-prompt.
    for bad in [r#"{"arg1": 1}"#, r#"["arg1"]"#, "{"] {
        let out = stdio("modern", &["--get-prompt", "x", "--prompt-args", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--prompt-args"), "{bad}: {err}");
    }
    let out = stdio("modern", &["--prompt-args", "{}"]);
    assert_eq!(out.status.code(), Some(2));
}

/// One failing operation hides nothing: what succeeded is printed, then
/// each failure (stderr; `errors` with `--json`), and the exit code is the
/// first failure's.
fn partial_failures() {
    let args = [
        "--list-tools",
        "--call",
        "no_such_tool",
        "--read",
        "test://no-such-resource",
        "--get-prompt",
        "test_simple_prompt",
    ];
    for era in ["modern", "legacy"] {
        let out = stdio(era, &args);
        let (text, err) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(1), "{era}: {err}");
        assert!(
            text.contains(&format!("era:                {era}")),
            "{text}"
        );
        assert!(text.contains("tools:              test_"), "{text}");
        assert!(
            text.contains("  user: This is a simple prompt for testing."),
            "{era}: {text}"
        );
        let call = err.find("mcp-probe: --call no_such_tool: ");
        let read = err.find("mcp-probe: --read test://no-such-resource: ");
        assert!(
            call.is_some() && read.is_some() && call < read,
            "{era}: {err}"
        );

        let mut all = vec!["--json"];
        all.extend_from_slice(&args);
        let out = stdio(era, &all);
        assert_eq!(out.status.code(), Some(1), "{era}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(report["tools"].as_array().is_some_and(|t| !t.is_empty()));
        assert_eq!(
            report["promptResult"]["messages"][0]["content"]["text"],
            "This is a simple prompt for testing."
        );
        assert!(report.get("callResult").is_none() && report.get("readResult").is_none());
        let errors = report["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 2, "{report}");
        assert_eq!(errors[0]["operation"], "--call");
        assert_eq!(errors[0]["target"], "no_such_tool");
        assert_eq!(errors[0]["exitCode"], 1);
        assert_eq!(errors[1]["operation"], "--read");
        assert_eq!(errors[1]["target"], "test://no-such-resource");
        let code = if era == "modern" { -32602 } else { -32002 };
        assert_eq!(errors[1]["error"]["code"], code, "{era}: {report}");
        assert!(
            errors[1]["message"]
                .as_str()
                .unwrap()
                .contains("no-such-resource")
        );
    }
    // A tool result with isError is printed, and is a failure too.
    let out = stdio("modern", &["--json", "--call", "test_error_handling"]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["callResult"]["isError"], true);
    assert_eq!(
        report["errors"],
        json!([{"operation": "--call", "target": "test_error_handling", "exitCode": 1,
            "message": "the tool's result has isError: true"}])
    );
}

fn over_http() {
    let url = http_url();
    for era in ["modern", "legacy"] {
        let text = ok(&probe(&[
            "--era",
            era,
            "--url",
            url,
            "--list-resources",
            "--read",
            "test://static-text",
            "--get-prompt",
            "test_prompt_with_arguments",
            "--prompt-args",
            r#"{"arg1": "a b", "arg2": "é"}"#,
        ]));
        assert!(
            text.contains(&format!("era:                {era}")),
            "{text}"
        );
        assert!(text.contains("test://static-binary  [image/png]"), "{text}");
        assert!(
            text.contains("This is the content of the static text resource."),
            "{text}"
        );
        assert!(text.contains("arg1='a b', arg2='é'"), "{text}");
    }
    // A URI needing Base64 in Mcp-Name still reaches the resource lookup.
    let out = probe(&[
        "--era",
        "modern",
        "--url",
        url,
        "--read",
        "test://template/ü/data",
    ]);
    let text = ok(&out);
    assert!(text.contains("Data for ID: ü"), "{text}");
    let out = probe(&["--url", url, "--read", "test://no-such-resource"]);
    assert_eq!(out.status.code(), Some(1));
}

/// `--call TOOL --as-task`: the task's id and status changes on stderr,
/// its statuses in the report; a failed task exits 1; a tool that is never
/// a task answers at once.
fn calls_as_tasks() {
    let url = http_url();
    for via in ["stdio", "http"] {
        let run = |args: &[&str]| match via {
            "stdio" => stdio("modern", args),
            _ => {
                let mut all = vec!["--era", "modern", "--url", url];
                all.extend_from_slice(args);
                probe(&all)
            }
        };
        let out = run(&[
            "--json",
            "--call",
            "slow_compute",
            "--args",
            r#"{"seconds": 0.2, "label": "p"}"#,
            "--as-task",
        ]);
        let report = json_of(&out);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("task ") && err.contains("  working"),
            "{via}: {err}"
        );
        assert!(err.contains("  completed"), "{via}: {err}");
        assert_eq!(
            report["task"]["statuses"],
            json!(["working", "completed"]),
            "{via}"
        );
        assert_eq!(
            report["callResult"]["content"][0]["text"],
            "Computed p in 0.2 s"
        );

        let out = run(&["--call", "protocol_error_job", "--as-task"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{via}: {err}");
        assert!(
            err.contains("  failed") && err.contains("-32603"),
            "{via}: {err}"
        );

        let out = run(&["--call", "failing_job", "--as-task"]);
        assert_eq!(out.status.code(), Some(1), "isError exits 1");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("(working → completed)"), "{via}: {text}");

        let out = run(&[
            "--call",
            "greet",
            "--args",
            r#"{"name": "Bo"}"#,
            "--as-task",
        ]);
        let text = ok(&out);
        assert!(text.contains("Hello, Bo!"), "{via}: {text}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("answered at once"));
    }
    let out = stdio(
        "modern",
        &["--call", "greet", "--as-task", "--concurrent", "2"],
    );
    assert_eq!(out.status.code(), Some(2));
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(FIXTURE) {
        return match mcp_era_server::stdio::run(Everything::new()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("fixture: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let tests: [(&str, fn()); 7] = [
        ("lists_in_both_eras", lists_in_both_eras),
        ("reads_in_both_eras", reads_in_both_eras),
        ("prompts_in_both_eras", prompts_in_both_eras),
        ("errors_and_usage", errors_and_usage),
        ("partial_failures", partial_failures),
        ("over_http", over_http),
        ("calls_as_tasks", calls_as_tasks),
    ];
    // Like libtest: the first argument not starting with `-` filters by name.
    let filter = args.iter().find(|a| !a.starts_with('-'));
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, test) in tests {
        if filter.is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        let passed = panic::catch_unwind(test).is_ok();
        println!("test {name} ... {}", if passed { "ok" } else { "FAILED" });
        if !passed {
            failed.push(name);
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed",
        if failed.is_empty() { "ok" } else { "FAILED" },
        ran - failed.len(),
        failed.len()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

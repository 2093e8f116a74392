//! The `mcp-era-gateway` binary itself: its stdio front in front of a small
//! legacy backend written in `sh`, reached by our client in the modern era
//! (discover, `tools/list`, `tools/call`, and a backend's
//! `notifications/tools/list_changed` on a `subscriptions/listen` stream);
//! and its usage errors.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_era_client::mcp_era_types::v2026_07_28 as m;
use mcp_era_client::{Client, ClientOptions, Era, EraMode};
use serde_json::{Map, Value, json};

const GATEWAY: &str = env!("CARGO_BIN_EXE_mcp-era-gateway");

/// The longest any step may take; a step still unfinished then hangs.
const NO_HANG: Duration = Duration::from_secs(20);

/// A legacy-only server in `sh`: refuses `server/discover` (as a
/// 2025-11-25 server does), answers `initialize` declaring
/// `tools.listChanged`, lists two tools; `echo` answers `echo: TEXT` (its
/// `text` argument), `change` sends `notifications/tools/list_changed`
/// before its result.
const BACKEND: &str = r#"answer() { printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$id" "$1"; }
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"server/discover"'*)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
    *'"method":"initialize"'*)
      answer '{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"sh-backend","version":"7.0.1"}}' ;;
    *'"method":"tools/list"'*)
      answer '{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"change","inputSchema":{"type":"object"}}]}' ;;
    *'"method":"tools/call"'*'"name":"echo"'*)
      text=$(printf '%s' "$line" | sed -n 's/.*"text":"\([^"]*\)".*/\1/p')
      answer "{\"content\":[{\"type\":\"text\",\"text\":\"echo: $text\"}]}" ;;
    *'"method":"tools/call"'*'"name":"change"'*)
      printf '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
      answer '{"content":[{"type":"text","text":"changed"}]}' ;;
  esac
done"#;

/// Our client, modern era, with the binary's stdio front in front of
/// [`BACKEND`] (the gateway left to detect the backend's era).
async fn connect() -> Client {
    connect_with(&[]).await
}

/// [`connect`], the binary also given `options`.
async fn connect_with(options: &[&str]) -> Client {
    let args: Vec<String> = options
        .iter()
        .chain(&["--", "sh", "-c", BACKEND])
        .map(|arg| (*arg).to_owned())
        .collect();
    let options = ClientOptions {
        era: EraMode::Modern,
        request_timeout: Duration::from_secs(10),
        ..ClientOptions::default()
    };
    tokio::time::timeout(NO_HANG, Client::connect_stdio(GATEWAY, &args, options))
        .await
        .expect("connecting hung")
        .expect("connecting failed")
}

/// `what` within [`NO_HANG`], failing the test if it hangs.
async fn bounded<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(NO_HANG, future)
        .await
        .unwrap_or_else(|_| panic!("{what} hung"))
}

fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap()
}

/// An echo of `text` through `client`, which must come back; the result.
async fn echoes(client: &Client, text: &str) -> Value {
    let mut arguments = Map::new();
    arguments.insert("text".into(), json!(text));
    let result = to_json(
        &bounded("tools/call", client.call_tool("echo", arguments))
            .await
            .unwrap(),
    );
    assert_eq!(
        result["content"][0]["text"],
        format!("echo: {text}"),
        "{result}"
    );
    result
}

#[tokio::test]
async fn the_stdio_front_serves_a_legacy_backend_to_a_modern_client() {
    let client = connect().await;
    assert_eq!(client.era(), Era::Modern);
    assert_eq!(client.protocol_version(), "2026-07-28");

    // discover is answered from the backend's initialize.
    let discover = bounded("server/discover", client.discover()).await.unwrap();
    let discover = to_json(&discover.expect("a modern discover result"));
    let info = &discover["_meta"]["io.modelcontextprotocol/serverInfo"];
    assert_eq!(info["name"], "sh-backend", "{discover}");
    assert_eq!(info["version"], "7.0.1", "{discover}");
    assert_eq!(
        discover["capabilities"]["tools"]["listChanged"], true,
        "{discover}"
    );

    let tools = to_json(
        &bounded("tools/list", client.list_tools(None))
            .await
            .unwrap(),
    );
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["echo", "change"], "{tools}");
    // A legacy backend states no cache hints: the gateway forbids caching.
    assert_eq!(tools["ttlMs"], 0, "{tools}");

    let result = echoes(&client, &format!("fresh-{}", std::process::id())).await;
    assert_eq!(result["resultType"], "complete", "{result}");
    client.close().await;
}

#[tokio::test]
async fn a_backend_list_change_reaches_a_listen_stream_on_the_stdio_front() {
    let client = connect().await;
    let mut changes = bounded(
        "subscriptions/listen",
        client.subscribe(m::SubscriptionFilter::new().with_tools_list_changed(true)),
    )
    .await
    .unwrap();
    let result = to_json(
        &bounded("tools/call change", client.call_tool("change", Map::new()))
            .await
            .unwrap(),
    );
    assert_eq!(result["content"][0]["text"], "changed", "{result}");
    let note = bounded("the list change", changes.next())
        .await
        .expect("the listen stream ended");
    assert_eq!(note.method, "notifications/tools/list_changed");
    drop(changes);
    client.close().await;
}

/// With `--listen` and `--stdio` both fronts serve the same gateway: one
/// backend, one event hub (the stdio client's list change reaches a
/// listener on the HTTP front); the HTTP front ends with the process.
#[tokio::test]
async fn with_listen_and_stdio_both_fronts_serve_one_backend() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let listen = format!("127.0.0.1:{port}");
    let stdio = connect_with(&["--listen", &listen, "--stdio"]).await;
    echoes(&stdio, "over stdio").await;
    let options = ClientOptions {
        era: EraMode::Modern,
        request_timeout: Duration::from_secs(10),
        ..ClientOptions::default()
    };
    let url = format!("http://{listen}/mcp");
    let http = bounded("the HTTP front", Client::connect_http(&url, options))
        .await
        .unwrap();
    echoes(&http, "over http").await;
    let mut changes = bounded(
        "subscriptions/listen",
        http.subscribe(m::SubscriptionFilter::new().with_tools_list_changed(true)),
    )
    .await
    .unwrap();
    bounded("tools/call change", stdio.call_tool("change", Map::new()))
        .await
        .unwrap();
    let note = bounded("the list change", changes.next())
        .await
        .expect("the listen stream ended");
    assert_eq!(note.method, "notifications/tools/list_changed");
    drop(changes);
    stdio.close().await;
    // The HTTP front goes with the process.
    let deadline = Instant::now() + NO_HANG;
    while std::net::TcpStream::connect(&listen).is_ok() {
        assert!(Instant::now() < deadline, "the HTTP front outlived stdio");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The binary run with `args`, its stdin closed; its exit code, stdout and
/// stderr, failing the test if it is still running after [`NO_HANG`].
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = Command::new(GATEWAY)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + NO_HANG;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("mcp-era-gateway {args:?} did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn usage_errors_exit_2_with_the_reason_and_the_usage_on_stderr() {
    let cases: [(&[&str], &str); 13] = [
        (&["--bogus", "--", "true"], "unknown argument \"--bogus\""),
        (
            &[],
            "no backend: --url URL, -- COMMAND [ARGS...] or --config FILE",
        ),
        (
            &["--timeout", "soon", "--", "true"],
            "bad --timeout \"soon\"",
        ),
        (
            &["--url", "http://127.0.0.1:9/mcp", "--", "true"],
            "one backend: --url or a command, not both",
        ),
        (
            &["--stdio", "--", "true"],
            "--stdio serves stdio beside --listen ADDR",
        ),
        (
            &["--per-principal", "0", "--", "true"],
            "bad --per-principal \"0\"",
        ),
        (
            &[
                "--listen",
                "127.0.0.1:0",
                "--oauth-issuer",
                "http://as",
                "--",
                "true",
            ],
            "--oauth-issuer and --oauth-resource go together",
        ),
        (
            &[
                "--oauth-issuer",
                "http://as",
                "--oauth-resource",
                "http://gw/mcp",
                "--",
                "true",
            ],
            "--oauth-* protect the HTTP front: they need --listen ADDR",
        ),
        (
            &["--backend-client-id", "gw", "--", "true"],
            "--backend-client-id authorizes an HTTP backend: it needs --url",
        ),
        (
            &["--instance", "a.b", "--", "true"],
            "--instance: bad instance id \"a.b\"",
        ),
        (&["--peer", "b", "--", "true"], "bad --peer \"b\": ID=URL"),
        (
            &[
                "--instance",
                "a",
                "--peer",
                "a=http://h:1/mcp",
                "--",
                "true",
            ],
            "--peer: peer \"a\" is this instance's own id",
        ),
        (
            &["--peer", "b=https://h:1/mcp", "--", "true"],
            "--peer: peer b: \"https://h:1/mcp\" is not an http://host:port/path URL",
        ),
    ];
    for (args, reason) in cases {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("mcp-era-gateway: {reason}")),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains("usage: mcp-era-gateway"),
            "{args:?}: {stderr}"
        );
        // Nothing on stdout, where a stdio client would read it as MCP.
        assert_eq!(stdout, "", "{args:?}");
    }
}

/// The OAuth flags name what is wrong before anything starts: the missing
/// feature, or (with it) a credential that cannot be read.
#[test]
fn oauth_flags_are_checked_before_the_backend_starts() {
    let url = [
        "--url",
        "http://127.0.0.1:9/mcp",
        "--backend-client-id",
        "gw",
    ];
    let cases: Vec<(Vec<&str>, &str)> = if cfg!(feature = "auth") {
        vec![
            (
                [
                    &url[..],
                    &["--backend-client-secret-env", "MCP_GATEWAY_TEST_UNSET"],
                ]
                .concat(),
                "--backend-client-secret-env MCP_GATEWAY_TEST_UNSET: environment variable not found",
            ),
            (
                [&url[..], &["--backend-private-key", "/nonexistent/key.pem"]].concat(),
                "--backend-private-key /nonexistent/key.pem: ",
            ),
            (url.to_vec(), "--backend-client-id takes one of"),
            (
                vec![
                    "--url",
                    "http://127.0.0.1:9/mcp",
                    "--backend-private-key",
                    "k.pem",
                ],
                "the --backend-* credentials need --backend-client-id",
            ),
        ]
    } else {
        vec![(
            [&url[..], &["--backend-client-secret-env", "SECRET"]].concat(),
            "OAuth needs the gateway built with the `auth` feature",
        )]
    };
    for (args, reason) in cases {
        let (code, _, stderr) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("mcp-era-gateway: {reason}")),
            "{args:?}: {stderr}"
        );
    }
}

/// A composition file `label.toml` of `tables` (each a `[[backend]]`
/// running [`BACKEND`] under a name, with extra settings) in a temporary
/// directory of this process: its path.
fn composition(label: &str, tables: &[(&str, &str)]) -> std::path::PathBuf {
    let script = BACKEND
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n");
    let text: String = tables
        .iter()
        .map(|(name, extra)| {
            format!(
                "[[backend]]\nname = \"{name}\"\ncommand = \"sh\"\nargs = [\"-c\", \"{script}\"]\n{extra}\n"
            )
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("mcp-gateway-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{label}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test]
async fn a_composition_file_serves_several_backends_under_their_names() {
    let path = composition("two-backends", &[("one", ""), ("two", "")]);
    let args = vec!["--config".to_owned(), path.display().to_string()];
    let options = ClientOptions {
        era: EraMode::Modern,
        request_timeout: Duration::from_secs(10),
        ..ClientOptions::default()
    };
    let client = bounded("connecting", Client::connect_stdio(GATEWAY, &args, options))
        .await
        .unwrap();
    let tools = to_json(
        &bounded("tools/list", client.list_tools(None))
            .await
            .unwrap(),
    );
    let mut names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["one__change", "one__echo", "two__change", "two__echo"]
    );
    let mut arguments = Map::new();
    arguments.insert("text".into(), json!("composed"));
    let result = to_json(
        &bounded("tools/call", client.call_tool("two__echo", arguments))
            .await
            .unwrap(),
    );
    assert_eq!(result["content"][0]["text"], "echo: composed", "{result}");
}

#[test]
fn a_name_two_backends_serve_stops_the_binary_with_the_reason() {
    let path = composition(
        "collision",
        &[("one", "prefix = \"never\""), ("two", "prefix = \"never\"")],
    );
    let (code, stdout, stderr) = run(&["--config", &path.display().to_string()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("backends \"one\" and \"two\" both serve a tool named \"change\"")
            || stderr.contains("backends \"one\" and \"two\" both serve a tool named \"echo\""),
        "{stderr}"
    );
    assert_eq!(stdout, "");
    let (code, _, stderr) = run(&["--config", "/nonexistent/gateway.toml"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("--config /nonexistent/gateway.toml: "),
        "{stderr}"
    );
}

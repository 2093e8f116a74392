//! `mcp-era-gateway`: one backend server, started as a child process,
//! served to clients of both eras over stdio or Streamable HTTP.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcp_era_gateway::{BackendOptions, BackendSpec, EraMode, Gateway};
use mcp_era_server::http::{self, HttpConfig};
use mcp_era_server::stdio;

const USAGE: &str = "usage: mcp-era-gateway [--listen ADDR [--stdio]] [--timeout SECONDS] [--input-timeout SECONDS] [--backend-era auto|legacy|modern] [--no-input] [--one-session] (--url URL | -- COMMAND [ARGS...])

Starts COMMAND, an MCP server speaking stdio (or reaches the Streamable
HTTP server at URL), and serves it to clients of both eras: on stdio, or
on Streamable HTTP at http://ADDR/mcp with --listen, or on both with
--listen and --stdio (until either ends: the stdio client closing its
side, or ctrl-c).

The backend's elicitation, sampling and roots requests reach modern
clients as input_required rounds and legacy clients as requests in their
session (over a legacy stdio backend, one call at a time). The backend is
told the input capabilities of the clients it serves: a modern backend
with each request; a legacy one at initialize, so clients that declare
different ones get legacy backend sessions of their own (at most 8, the
one unused the longest stopped first), and the calls of clients that
declare none run side by side. --one-session keeps one legacy session,
told every kind the gateway forwards; --no-input tells the backend the
clients answer none.

A backend that cannot be started, or a COMMAND that exits, is started
again after a delay doubling from 250 ms to 30 s; meanwhile requests are
refused with the reason. --timeout (default 60) bounds each forwarded
request; --input-timeout (default 60) the wait for a client's retry with
its input, after which the call is cancelled at the backend. Logs go to
stderr (MCP_LOG or RUST_LOG filters them).";

struct Args {
    listen: Option<String>,
    /// With `listen`: serve stdio too.
    stdio: bool,
    options: BackendOptions,
    command: Vec<String>,
    url: Option<String>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut parsed = Args {
        listen: None,
        stdio: false,
        options: BackendOptions::default(),
        command: Vec::new(),
        url: None,
    };
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--" => {
                parsed.command = rest.cloned().collect();
                break;
            }
            "--listen" => parsed.listen = Some(rest.next().ok_or("--listen needs ADDR")?.clone()),
            "--stdio" => parsed.stdio = true,
            "--url" => parsed.url = Some(rest.next().ok_or("--url needs URL")?.clone()),
            "--timeout" => parsed.options.request_timeout = seconds(arg, rest.next())?,
            "--input-timeout" => parsed.options.input_timeout = seconds(arg, rest.next())?,
            "--backend-era" => {
                parsed.options.era = match rest.next().map(String::as_str) {
                    Some("auto") => EraMode::Auto,
                    Some("legacy") => EraMode::Legacy,
                    Some("modern") => EraMode::Modern,
                    other => return Err(format!("bad --backend-era {other:?}")),
                }
            }
            "--no-input" => parsed.options.input = false,
            "--one-session" => parsed.options.per_capability_set = false,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if parsed.stdio && parsed.listen.is_none() {
        return Err(
            "--stdio serves stdio beside --listen ADDR (without it, stdio is the front)".into(),
        );
    }
    match (parsed.url.is_some(), parsed.command.is_empty()) {
        (false, true) => return Err("no backend: --url URL or -- COMMAND [ARGS...]".into()),
        (true, false) => return Err("one backend: --url or a command, not both".into()),
        _ => {}
    }
    Ok(parsed)
}

/// The value of option `name`, a number of seconds.
fn seconds(name: &str, value: Option<&String>) -> Result<Duration, String> {
    let value = value.ok_or(format!("{name} needs SECONDS"))?;
    let seconds: u64 = value
        .parse()
        .map_err(|e| format!("bad {name} {value:?}: {e}"))?;
    Ok(Duration::from_secs(seconds))
}

async fn run(args: Args) -> Result<(), String> {
    let spec = match (args.url, args.command.split_first()) {
        (Some(url), _) => BackendSpec::Url(url),
        (None, Some((program, program_args))) => BackendSpec::Command {
            program: program.clone(),
            args: program_args.to_vec(),
        },
        (None, None) => return Err("no backend".into()),
    };
    let name = spec.to_string();
    let gateway = Gateway::start(spec, args.options).await;
    if let Some(backend) = gateway.backend() {
        tracing::info!(?backend, "backend connected");
    }
    let events = gateway.events().clone();
    let stdio_config = stdio::StdioConfig {
        events: events.clone(),
        ..stdio::StdioConfig::default()
    };
    let gateway = Arc::new(gateway);
    let serve_stdio = || {
        let (stdin, stdout) = (tokio::io::stdin(), tokio::io::stdout());
        stdio::serve_with(Arc::clone(&gateway), stdin, stdout, stdio_config.clone())
    };
    let Some(addr) = args.listen else {
        return serve_stdio().await.map_err(|e| e.to_string());
    };
    let mut config = HttpConfig::bind(&addr).map_err(|e| format!("--listen {addr}: {e}"))?;
    config.events = events;
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("--listen {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("mcp-era-gateway: serving {name} on http://{bound}/mcp");
    let serve_http = http::serve_listener_until(
        Arc::clone(&gateway),
        listener,
        config,
        http::shutdown_signal(),
    );
    if !args.stdio {
        return serve_http.await.map_err(|e| e.to_string());
    }
    tokio::select! {
        served = serve_http => served,
        served = serve_stdio() => served,
    }
    .map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    mcp_era_server::log_to_stderr();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse(&args) {
        Ok(args) => args,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("mcp-era-gateway: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcp-era-gateway: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-era-gateway: {e}");
            ExitCode::FAILURE
        }
    }
}

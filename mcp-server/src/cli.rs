//! The command line most servers need: `stdio` or `http [ADDR]`
//! ([`serve_from_args`]), above both transports.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::http::{self, HttpConfig};
use crate::model::server::McpServer;
use crate::state::request_state::{REQUEST_STATE_KEYS_ENV, RequestStateKeys};
use crate::stdio;

/// Where `http` without an address listens: this machine only.
pub const DEFAULT_HTTP_ADDR: &str = "127.0.0.1:8080";

/// The variables [`log_to_stderr`] reads its filter from; the first one
/// set wins.
pub const LOG_ENV: [&str; 2] = ["MCP_LOG", "RUST_LOG"];

/// Installs a `tracing` subscriber that writes to **stderr**, filtered by
/// `MCP_LOG`, else `RUST_LOG` (warnings and errors when neither is set),
/// unless a global subscriber is installed already: an application's own
/// subscriber wins. Returns whether this one was installed.
///
/// [`serve_from_args`] calls it, so `RUST_LOG=info` shows the runtime's
/// log and the lines of [`RequestLogLayer`](crate::middleware::RequestLogLayer);
/// a `main` that runs a transport itself calls it first:
///
/// ```no_run
/// mcp_era_server::log_to_stderr(); // `mcp_era::server::log_to_stderr()` through the facade
/// ```
///
/// A filter is `level` (`info`), `target=level` directives, or both
/// (`mcp_era_server=debug,warn`), as `tracing_subscriber::filter::Targets`
/// reads them; `EnvFilter`'s span and field filters are not understood,
/// and a value that does not parse is reported on stderr and warnings are
/// logged.
///
/// Over stdio, stdout carries the protocol and nothing else: a subscriber
/// of your own must write to stderr
/// (`tracing_subscriber::fmt().with_writer(std::io::stderr)`); one line
/// logged to stdout corrupts the stream the client reads.
pub fn log_to_stderr() -> bool {
    let (filter, problem) = log_filter(|name| std::env::var(name).ok());
    let output = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        // Colour codes only for a person watching; a host's log file gets plain text.
        .with_ansi(std::io::stderr().is_terminal());
    let installed = tracing_subscriber::registry()
        .with(output)
        .with(filter)
        .try_init()
        .is_ok();
    if let (true, Some(problem)) = (installed, problem) {
        tracing::warn!("{problem}");
    }
    installed
}

/// The filter the variables of [`LOG_ENV`] ask for (`var` reads one), and
/// what is wrong with the value, if anything.
fn log_filter(var: impl Fn(&str) -> Option<String>) -> (Targets, Option<String>) {
    let warnings = Targets::new().with_default(LevelFilter::WARN);
    for name in LOG_ENV {
        let Some(value) = var(name).filter(|v| !v.trim().is_empty()) else {
            continue;
        };
        return match value.parse::<Targets>() {
            Ok(filter) => (filter, None),
            Err(e) => (
                warnings,
                Some(format!(
                    "{name}={value:?} is not a log filter ({e}); logging warnings"
                )),
            ),
        };
    }
    (warnings, None)
}

/// What the arguments ask for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Stdio,
    Http(String),
    Help,
}

/// Reads the arguments after the program name; `Err` says what is wrong.
fn parse(args: &[String]) -> Result<Command, String> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return Ok(Command::Help);
    }
    let (command, rest) = match args {
        [] => return Ok(Command::Stdio),
        [first, rest @ ..] => (first.as_str(), rest),
    };
    let (parsed, rest) = match (command, rest) {
        ("help", rest) => (Command::Help, rest),
        ("stdio", rest) => (Command::Stdio, rest),
        ("http", [addr, rest @ ..]) if !addr.starts_with('-') => {
            (Command::Http(addr.clone()), rest)
        }
        ("http", rest) => (Command::Http(DEFAULT_HTTP_ADDR.to_owned()), rest),
        (other, _) => return Err(format!("unknown argument `{other}`")),
    };
    match rest {
        [] => Ok(parsed),
        [extra, ..] => Err(format!("unexpected `{extra}` after `{command}`")),
    }
}

/// The usage text, naming the program `program`.
fn usage(program: &str) -> String {
    format!(
        "usage: {program} [stdio | http [ADDR]]\n\
         \x20 stdio        serve MCP on stdin/stdout (the default)\n\
         \x20 http [ADDR]  serve MCP over HTTP at http://ADDR/mcp; ADDR is HOST:PORT\n\
         \x20              (default {DEFAULT_HTTP_ADDR}; e.g. localhost:8101, [::1]:8080,\n\
         \x20              0.0.0.0:8080 for every interface, port 0 for any free port)"
    )
}

/// The program's name as run (`notes` for `target/debug/notes`).
fn program_name(argv0: Option<OsString>) -> String {
    argv0
        .as_deref()
        .and_then(|p| Path::new(p).file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "server".to_owned())
}

/// Serves `server` the way the command line says, for a `main` of one
/// line:
///
/// ```no_run
/// # use mcp_era_server::McpServer;
/// # #[derive(McpServer)] #[mcp(name = "notes", version = "1.0.0")] struct Notes;
/// fn main() -> std::process::ExitCode {
///     mcp_era_server::serve_from_args(Notes)
/// }
/// ```
///
/// | arguments | does |
/// |---|---|
/// | none, or `stdio` | [`stdio::run`]: MCP on stdin/stdout; stdout carries protocol messages only |
/// | `http` | [`http::run`] on [`DEFAULT_HTTP_ADDR`] (`127.0.0.1:8080`) |
/// | `http ADDR` | [`http::run`] on `ADDR`, `HOST:PORT` as [`HttpConfig::bind`] reads it (`localhost:8101`, `[::1]:8080`, `0.0.0.0:0`) |
/// | `--help`, `-h`, `help` | prints the usage on stdout, exit code 0 |
///
/// Anything else prints what is wrong and the usage on stderr and gives
/// exit code 2; so does an `ADDR` that is not `HOST:PORT` or does not
/// resolve. A server that fails while running (the port is taken, stdin
/// fails) prints `PROGRAM: error` on stderr and gives exit code 1. Over
/// HTTP the server says where it listens (see [`http::serve`]).
///
/// The keys that seal `requestState` come from `MCP_REQUEST_STATE_KEYS`
/// when it is set ([`RequestStateKeys::from_env`]; a bad value is a usage
/// error), else a random key per process: replicas set the same value.
///
/// Logs go to stderr through [`log_to_stderr`] (`RUST_LOG=info` or
/// `MCP_LOG=debug`, say), unless the program installed a `tracing`
/// subscriber of its own first.
///
/// For other settings (allowed hosts, TLS, auth) build an
/// [`HttpConfig`] and call [`http::run`] yourself.
pub fn serve_from_args<S: McpServer + 'static>(server: S) -> ExitCode {
    let mut args = std::env::args_os();
    let program = program_name(args.next());
    let args: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).collect();
    let command = parse(&args);
    if !matches!(command, Ok(Command::Help)) {
        log_to_stderr();
        match RequestStateKeys::from_env() {
            Ok(Some(keys)) => server.declaration().request_state().set_keys(keys),
            Ok(None) => {}
            Err(e) => return usage_error(&program, &format!("{REQUEST_STATE_KEYS_ENV}: {e}")),
        }
    }
    let outcome = match command {
        Ok(Command::Help) => {
            // Best effort: a closed stdout leaves nothing else to tell.
            let _ = writeln!(std::io::stdout(), "{}", usage(&program));
            return ExitCode::SUCCESS;
        }
        Ok(Command::Stdio) => stdio::run(server),
        Ok(Command::Http(addr)) => match HttpConfig::bind(&addr) {
            Ok(config) => http::run(server, config),
            Err(e) => return usage_error(&program, &e.to_string()),
        },
        Err(message) => return usage_error(&program, &message),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `message` and the usage on stderr; exit code 2.
fn usage_error(program: &str, message: &str) -> ExitCode {
    eprintln!("{program}: {message}\n{}", usage(program));
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Command, String> {
        parse(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn stdio_is_the_default() {
        assert_eq!(parsed(&[]), Ok(Command::Stdio));
        assert_eq!(parsed(&["stdio"]), Ok(Command::Stdio));
    }

    #[test]
    fn http_with_and_without_an_address() {
        assert_eq!(
            parsed(&["http"]),
            Ok(Command::Http("127.0.0.1:8080".to_owned()))
        );
        assert_eq!(
            parsed(&["http", "localhost:8101"]),
            Ok(Command::Http("localhost:8101".to_owned()))
        );
        assert_eq!(
            parsed(&["http", "[::1]:0"]),
            Ok(Command::Http("[::1]:0".to_owned()))
        );
    }

    #[test]
    fn help() {
        for flag in ["--help", "-h", "help"] {
            assert_eq!(parsed(&[flag]), Ok(Command::Help));
        }
        let text = usage("notes");
        assert!(
            text.starts_with("usage: notes [stdio | http [ADDR]]\n"),
            "{text}"
        );
        assert!(text.contains("default 127.0.0.1:8080"), "{text}");
    }

    #[test]
    fn bad_arguments_say_what_is_wrong() {
        for (args, message) in [
            (&["serve"][..], "unknown argument `serve`"),
            (&["--port", "80"], "unknown argument `--port`"),
            (&["help", "me"], "unexpected `me` after `help`"),
            (&["stdio", "x"], "unexpected `x` after `stdio`"),
            (&["http", "a:1", "b:2"], "unexpected `b:2` after `http`"),
            (&["http", "-v"], "unexpected `-v` after `http`"),
        ] {
            assert_eq!(parsed(args), Err(message.to_owned()), "{args:?}");
        }
        // Help wins wherever it is asked for.
        assert_eq!(parsed(&["http", "--help"]), Ok(Command::Help));
    }

    fn filter_of(vars: &[(&str, &str)]) -> (Targets, Option<String>) {
        log_filter(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn the_log_filter_comes_from_mcp_log_then_rust_log() {
        use tracing::Level;
        let (none, problem) = filter_of(&[]);
        assert!(none.would_enable("mcp_era_server", &Level::WARN));
        assert!(!none.would_enable("mcp_era_server", &Level::INFO));
        assert_eq!(problem, None);

        let (rust_log, _) = filter_of(&[("RUST_LOG", "info")]);
        assert!(rust_log.would_enable("mcp_era_server::middleware", &Level::INFO));
        assert!(!rust_log.would_enable("mcp_era_server::middleware", &Level::DEBUG));

        let (both, _) = filter_of(&[
            ("RUST_LOG", "info"),
            ("MCP_LOG", "mcp_era_server=debug,error"),
        ]);
        assert!(both.would_enable("mcp_era_server::stdio", &Level::DEBUG));
        assert!(!both.would_enable("hyper", &Level::WARN));

        let (bad, problem) = filter_of(&[("RUST_LOG", "mcp=loud")]);
        assert!(bad.would_enable("x", &Level::WARN) && !bad.would_enable("x", &Level::INFO));
        assert!(
            problem.is_some_and(|p| p.starts_with("RUST_LOG=\"mcp=loud\" is not a log filter"))
        );
    }

    #[test]
    fn the_program_is_named_by_its_file() {
        assert_eq!(program_name(Some("target/debug/notes".into())), "notes");
        assert_eq!(program_name(Some("notes.exe".into())), "notes");
        assert_eq!(program_name(None), "server");
    }
}

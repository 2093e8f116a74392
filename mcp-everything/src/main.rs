//! The `mcp-everything` binary: `stdio`, `http --listen ADDR`, `demo`.

use std::net::SocketAddr;
use std::process::ExitCode;

use mcp_era_server::McpServerExt;
use mcp_era_server::http::HttpConfig;
use mcp_everything::Everything;

const USAGE: &str = "usage: mcp-everything stdio [--modern-only] [--task-store STORE] [--skills DIR]
                            [--request-state-keys KID:KEY[,KID:KEY]...]
       mcp-everything http [--modern-only] [--listen 127.0.0.1:3001] [--allow-host HOST]... [--task-store STORE]
                           [--event-bus BUS] [--task-end-retry-ms MS] [--task-lease-ms MS]
                           [--request-state-keys KID:KEY[,KID:KEY]...]
                           [--session-store STORE] [--session-idle-timeout-ms MS] [--skills DIR]
                           [--max-connections N] [--max-sessions N] [--header-timeout-ms MS]
                           [--max-streams N] [--max-streams-per-principal N]
                           [--tls-cert PEM --tls-key PEM]   (feature rustls)
                           [--oauth-issuer URL --oauth-resource URL [--oauth-scope SCOPE]...]
                           [--oauth-dpop] [--oauth-dpop-required] [--oauth-dpop-nonce]
                                                            (feature auth: JWTs from the issuer's JWKS)
       mcp-everything demo
--modern-only: serve 2026-07-28 only: a legacy `initialize` is refused, as a
modern-only server refuses it (a backend for the era gateway's legacy clients).
--task-store: where tasks (io.modelcontextprotocol/tasks) live: `memory`
(default, this process only) or `redis://HOST:PORT` (shared by every
process using it; needs the `redis` feature). Run several `http` processes
on one Redis behind a load balancer and any of them serves any task.
--event-bus: where server events (list changes, resource updates, task
status notifications) go: `local` (default, this process's listeners only)
or `redis://HOST:PORT` (every process on that Redis gets every process's
events, each at most once; needs the `redis` feature).
--task-end-retry-ms: how long the end of a task round is retried when the
task store cannot take it before the task is recorded failed (default 30000).
--task-lease-ms: on a shared task store, the lease a running round holds and
renews; a task whose process stopped is recorded failed about two leases
later (default 30000).
--session-store: where 2025-11-25 sessions and the events of their SSE
streams (for Last-Event-ID) live: `memory` (default, this process only) or
`redis://HOST:PORT` (any process on that Redis serves any session; needs the
`redis` feature). --session-idle-timeout-ms: a session unused this long
ends, on every process (default 1800000).
--request-state-keys: the keys that seal the requestState of MRTR rounds,
each KID (A-Z a-z 0-9 _ -) with at least 32 bytes of base64url KEY; the first
seals, the others still open (rotation). Default: env MCP_REQUEST_STATE_KEYS
(the flag wins), else a random key for this process: processes behind one
load balancer need the same keys, or a retry on another one is refused.
--skills: serve the skills of DIR (one subdirectory per skill, each with a
SKILL.md) instead of the embedded ones; what cannot be served is reported
on stderr and left out.
--oauth-dpop: also accept DPoP-bound tokens (RFC 9449) under the DPoP
scheme; --oauth-dpop-required: accept only those; --oauth-dpop-nonce: proofs
must carry a nonce this server issued (each implies --oauth-dpop).
Logs go to stderr; set MCP_LOG=debug|info|warn|error (default warn).";

fn init_logging() {
    let level = match std::env::var("MCP_LOG").as_deref() {
        Ok("trace") => tracing::Level::TRACE,
        Ok("debug") => tracing::Level::DEBUG,
        Ok("info") => tracing::Level::INFO,
        Ok("error") => tracing::Level::ERROR,
        _ => tracing::Level::WARN,
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .with_ansi(false)
        .init();
}

/// Points the fixture's tasks at `store` (`memory` or `redis://…`).
fn use_task_store(server: &Everything, store: &str) -> Result<(), String> {
    if store == "memory" {
        return Ok(());
    }
    if store.starts_with("redis://") || store.starts_with("rediss://") {
        #[cfg(feature = "redis")]
        {
            use mcp_era_server::McpServer;
            let redis = mcp_era_server::tasks::RedisTaskStore::open(store)
                .map_err(|e| format!("bad --task-store {store:?}: {e}"))?;
            server
                .declaration()
                .tasks()
                .set_store(std::sync::Arc::new(redis));
            return Ok(());
        }
        #[cfg(not(feature = "redis"))]
        {
            let _ = server;
            return Err(format!(
                "--task-store {store:?}: this binary was built without the `redis` feature"
            ));
        }
    }
    Err(format!(
        "unknown --task-store {store:?}: use memory or redis://HOST:PORT"
    ))
}

/// The event hub of `--event-bus BUS` (`local` or `redis://…`).
fn event_bus(bus: &str) -> Result<mcp_era_server::ServerEvents, String> {
    if bus == "local" {
        return Ok(mcp_era_server::ServerEvents::new());
    }
    if bus.starts_with("redis://") || bus.starts_with("rediss://") {
        #[cfg(feature = "redis")]
        {
            use mcp_era_server::{RedisEventBus, ServerEvents};
            let bus =
                RedisEventBus::open(bus).map_err(|e| format!("bad --event-bus {bus:?}: {e}"))?;
            return ServerEvents::with_redis(bus).map_err(|e| format!("--event-bus: {e}"));
        }
        #[cfg(not(feature = "redis"))]
        return Err(format!(
            "--event-bus {bus:?}: this binary was built without the `redis` feature"
        ));
    }
    Err(format!(
        "unknown --event-bus {bus:?}: use local or redis://HOST:PORT"
    ))
}

/// Points the HTTP sessions and their stream events at `store` (`memory`
/// or `redis://…`).
fn use_session_store(config: &mut HttpConfig, store: &str) -> Result<(), String> {
    if store == "memory" {
        return Ok(());
    }
    if store.starts_with("redis://") || store.starts_with("rediss://") {
        #[cfg(feature = "redis")]
        {
            use mcp_era_server::sessions::{DEFAULT_EVENT_WINDOW, RedisSessionStore};
            let redis = RedisSessionStore::open(store)
                .map_err(|e| format!("bad --session-store {store:?}: {e}"))?;
            config.event_store = std::sync::Arc::new(redis.event_store(DEFAULT_EVENT_WINDOW));
            config.session_store = std::sync::Arc::new(redis);
            return Ok(());
        }
        #[cfg(not(feature = "redis"))]
        return Err(format!(
            "--session-store {store:?}: this binary was built without the `redis` feature"
        ));
    }
    let _ = config;
    Err(format!(
        "unknown --session-store {store:?}: use memory or redis://HOST:PORT"
    ))
}

/// `--request-state-keys` (`flag`), else `MCP_REQUEST_STATE_KEYS`, else the
/// runtime's random per-process key.
fn use_request_state_keys(server: &Everything, flag: Option<&str>) -> Result<(), String> {
    use mcp_era_server::{McpServer, RequestStateKeys};
    let keys = match flag {
        Some(text) => {
            Some(RequestStateKeys::parse(text).map_err(|e| format!("--request-state-keys: {e}"))?)
        }
        None => RequestStateKeys::from_env().map_err(|e| {
            format!(
                "{}: {e}",
                mcp_era_server::request_state::REQUEST_STATE_KEYS_ENV
            )
        })?,
    };
    if let Some(keys) = keys {
        server.declaration().request_state().set_keys(keys);
    }
    Ok(())
}

/// `--skills DIR`: serves DIR's skills in place of the embedded ones,
/// reporting on stderr what was left out.
fn use_skills_dir(server: &Everything, dir: &str) -> Result<(), String> {
    use mcp_era_server::McpServer;
    let report = server
        .declaration()
        .skills()
        .load_dir(dir)
        .map_err(|e| format!("--skills {dir:?}: {e}"))?;
    for problem in &report.problems {
        eprintln!("mcp-everything: not served: {problem}");
    }
    Ok(())
}

/// The fixture's declaration narrowed to 2026-07-28 (`--modern-only`),
/// sharing its tasks, skills and `requestState` keys.
fn modern_only_declaration(
    server: &Everything,
) -> std::io::Result<mcp_era_server::ServerDeclaration> {
    use mcp_era_server::McpServer;
    server
        .declaration()
        .duplicate()
        .with_versions(["2026-07-28"], [] as [&str; 0])
        .map_err(std::io::Error::other)
}

fn main() -> ExitCode {
    init_logging();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("stdio") => {
            let server = Everything::new();
            let mut keys = None::<&str>;
            let mut modern_only = false;
            let mut rest = args[1..].iter();
            while let Some(arg) = rest.next() {
                if arg == "--modern-only" {
                    modern_only = true;
                    continue;
                }
                let done = match (arg.as_str(), rest.next()) {
                    ("--task-store", Some(store)) => use_task_store(&server, store),
                    ("--skills", Some(dir)) => use_skills_dir(&server, dir),
                    ("--request-state-keys", Some(text)) => {
                        keys = Some(text);
                        Ok(())
                    }
                    _ => Err(String::new()),
                };
                if let Err(e) = done {
                    eprintln!("{e}\n{USAGE}");
                    return ExitCode::from(2);
                }
            }
            if let Err(e) = use_request_state_keys(&server, keys) {
                eprintln!("{e}\n{USAGE}");
                return ExitCode::from(2);
            }
            if modern_only {
                modern_only_declaration(&server)
                    .and_then(|narrowed| mcp_era_server::stdio::run(server.redeclared(narrowed)))
            } else {
                mcp_era_server::stdio::run(server)
            }
        }
        Some("http") => {
            let server = Everything::new();
            let mut listen: SocketAddr = SocketAddr::from(([127, 0, 0, 1], 3001));
            let mut hosts = Vec::new();
            let mut config = HttpConfig::new(listen);
            #[cfg(feature = "rustls")]
            let (mut tls_cert, mut tls_key) = (None::<String>, None::<String>);
            #[cfg(feature = "auth")]
            let (mut oauth_issuer, mut oauth_resource, mut oauth_scopes) =
                (None::<String>, None::<String>, Vec::<String>::new());
            #[cfg(feature = "auth")]
            let mut dpop = None::<mcp_era_server::http::auth::DpopConfig>;
            let number = |flag: &str, value: &str| -> Result<u64, ExitCode> {
                value.parse().map_err(|e| {
                    eprintln!("bad {flag} {value:?}: {e}\n{USAGE}");
                    ExitCode::from(2)
                })
            };
            let mut skills_dir = None::<String>;
            let mut keys = None::<String>;
            let mut modern_only = false;
            let mut rest = args[1..].iter();
            while let Some(arg) = rest.next() {
                if arg == "--modern-only" {
                    modern_only = true;
                    continue;
                }
                // The DPoP switches take no value.
                #[cfg(feature = "auth")]
                if let Some(switch) = arg.strip_prefix("--oauth-dpop") {
                    let current = dpop.take().unwrap_or_default();
                    dpop = Some(match switch {
                        "" => current,
                        "-required" => current.required(true),
                        "-nonce" => current.require_nonce(true),
                        _ => {
                            eprintln!("{USAGE}");
                            return ExitCode::from(2);
                        }
                    });
                    continue;
                }
                match (arg.as_str(), rest.next()) {
                    ("--skills", Some(dir)) => skills_dir = Some(dir.clone()),
                    ("--request-state-keys", Some(text)) => keys = Some(text.clone()),
                    ("--task-store", Some(store)) => {
                        if let Err(e) = use_task_store(&server, store) {
                            eprintln!("{e}\n{USAGE}");
                            return ExitCode::from(2);
                        }
                    }
                    ("--event-bus", Some(bus)) => match event_bus(bus) {
                        Ok(events) => config.events = events,
                        Err(e) => {
                            eprintln!("{e}\n{USAGE}");
                            return ExitCode::from(2);
                        }
                    },
                    ("--session-store", Some(store)) => {
                        if let Err(e) = use_session_store(&mut config, store) {
                            eprintln!("{e}\n{USAGE}");
                            return ExitCode::from(2);
                        }
                    }
                    ("--listen", Some(addr)) => match addr.parse() {
                        Ok(addr) => listen = addr,
                        Err(e) => {
                            eprintln!("bad --listen address {addr:?}: {e}\n{USAGE}");
                            return ExitCode::from(2);
                        }
                    },
                    ("--allow-host", Some(host)) => hosts.push(host.clone()),
                    #[cfg(feature = "auth")]
                    ("--oauth-issuer", Some(url)) => oauth_issuer = Some(url.clone()),
                    #[cfg(feature = "auth")]
                    ("--oauth-resource", Some(url)) => oauth_resource = Some(url.clone()),
                    #[cfg(feature = "auth")]
                    ("--oauth-scope", Some(scope)) => oauth_scopes.push(scope.clone()),
                    #[cfg(feature = "rustls")]
                    ("--tls-cert", Some(cert)) => tls_cert = Some(cert.clone()),
                    #[cfg(feature = "rustls")]
                    ("--tls-key", Some(key)) => tls_key = Some(key.clone()),
                    (
                        flag @ ("--max-connections"
                        | "--max-sessions"
                        | "--header-timeout-ms"
                        | "--max-streams"
                        | "--max-streams-per-principal"
                        | "--task-end-retry-ms"
                        | "--task-lease-ms"
                        | "--session-idle-timeout-ms"),
                        Some(value),
                    ) => {
                        let n = match number(flag, value) {
                            Ok(n) => n,
                            Err(code) => return code,
                        };
                        match flag {
                            "--max-connections" => config.max_connections = n as usize,
                            "--max-sessions" => config.max_sessions = n as usize,
                            "--max-streams" => config.max_streams = n as usize,
                            "--max-streams-per-principal" => {
                                config.max_streams_per_principal = n as usize
                            }
                            "--task-end-retry-ms" => {
                                use mcp_era_server::McpServer;
                                server
                                    .declaration()
                                    .tasks()
                                    .set_end_retry_window(std::time::Duration::from_millis(n));
                            }
                            "--task-lease-ms" => {
                                use mcp_era_server::McpServer;
                                server
                                    .declaration()
                                    .tasks()
                                    .set_lease(std::time::Duration::from_millis(n));
                            }
                            "--session-idle-timeout-ms" => {
                                config.session_idle_timeout = std::time::Duration::from_millis(n)
                            }
                            _ => config.header_read_timeout = std::time::Duration::from_millis(n),
                        }
                    }
                    _ => {
                        eprintln!("{USAGE}");
                        return ExitCode::from(2);
                    }
                }
            }
            config.listen = listen;
            #[cfg(feature = "auth")]
            match (oauth_issuer, oauth_resource) {
                (Some(issuer), Some(resource)) => {
                    use mcp_era_server::http::auth::{AuthConfig, JwtValidator};
                    let validator = JwtValidator::new(issuer.clone(), resource.clone());
                    let mut auth =
                        AuthConfig::new(resource, issuer, std::sync::Arc::new(validator))
                            .require_scopes(oauth_scopes);
                    if let Some(dpop) = dpop {
                        auth = auth.with_dpop(dpop);
                    }
                    config.auth = Some(auth);
                }
                (None, None) if dpop.is_some() => {
                    eprintln!("--oauth-dpop needs --oauth-issuer and --oauth-resource\n{USAGE}");
                    return ExitCode::from(2);
                }
                (None, None) => {}
                _ => {
                    eprintln!("--oauth-issuer and --oauth-resource go together\n{USAGE}");
                    return ExitCode::from(2);
                }
            }
            #[cfg(feature = "rustls")]
            match (tls_cert, tls_key) {
                (Some(cert), Some(key)) => {
                    config.tls = Some(mcp_era_server::http::TlsConfig::from_pem_files(cert, key));
                }
                (None, None) => {}
                _ => {
                    eprintln!("--tls-cert and --tls-key go together\n{USAGE}");
                    return ExitCode::from(2);
                }
            }
            for host in hosts {
                config = config.allow_host(host);
            }
            if let Err(e) = use_request_state_keys(&server, keys.as_deref()) {
                eprintln!("{e}\n{USAGE}");
                return ExitCode::from(2);
            }
            if let Some(dir) = skills_dir
                && let Err(e) = use_skills_dir(&server, &dir)
            {
                eprintln!("{e}\n{USAGE}");
                return ExitCode::from(2);
            }
            if modern_only {
                modern_only_declaration(&server).and_then(|narrowed| {
                    mcp_era_server::http::run(server.redeclared(narrowed), config)
                })
            } else {
                mcp_era_server::http::run(server, config)
            }
        }
        Some("demo") => mcp_everything::demo::run(),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-everything: {e}");
            ExitCode::FAILURE
        }
    }
}

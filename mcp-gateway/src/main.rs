//! `mcp-era-gateway`: one backend server, started as a child process,
//! served to clients of both eras over stdio or Streamable HTTP.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcp_era_gateway::{
    BackendOptions, BackendSpec, Composite, Composition, EraMode, Gateway, Instances, Restart,
};
use mcp_era_server::http::{self, HttpConfig};
use mcp_era_server::stdio;
use mcp_era_server::{McpServer, ServerEvents};

const USAGE: &str = "usage: mcp-era-gateway [--listen ADDR [--stdio]] [--timeout SECONDS] [--input-timeout SECONDS] [--backend-era auto|legacy|modern] [--no-input] [--one-session] [--no-restart] [--per-principal N]
                       [--instance ID] [--peer ID=URL]...
                       [--oauth-issuer URL --oauth-resource URL [--oauth-scope SCOPE]...]
                       [--backend-client-id ID (--backend-client-secret-env VAR | --backend-private-key FILE | --backend-workload-token FILE)]
                       (--url URL | -- COMMAND [ARGS...] | --config FILE)

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
again after a delay doubling from 250 ms to 30 s (never with
--no-restart); meanwhile requests are refused with the reason. --timeout (default 60) bounds each forwarded
request; --input-timeout (default 60) the wait for a client's retry with
its input, after which the call is cancelled at the backend.
--config FILE serves several backends as one, each started as above,
from a TOML file: a [[backend]] table each, with name, command and args
or url, and optionally prefix (always, never, or conditional: only when
there are several backends), timeout (seconds), era and restart (always
or never); a top-level
separator (default __) goes between a backend's name and its tool and
prompt names. Resource URIs are kept. Two backends serving one name at
start is an error naming both; docs/gateway.md has the rules.
--per-principal N gives each front principal (the OAuth subject with
--oauth-issuer) backend sessions of its own, at most N kept.

Several instances behind one load balancer: --instance ID (A-Z a-z 0-9
_ -; default a random 8-hex id, logged at start) names this process in
the requestState of a legacy backend's input rounds, and each --peer
ID=URL gives another instance's HTTP front (http://host:port/mcp). A
retry whose round another instance holds is forwarded to that peer's
front (once: a forwarded request is never forwarded again) and its
answer returned; one held by an unknown or unreachable instance gets a
retryable -32602 naming it. A modern backend's own requestState passes
through untouched.

OAuth (feature auth) at each hop, never one token for both:
--oauth-issuer and --oauth-resource make the HTTP front a resource
server accepting the issuer's JWTs for that resource (--oauth-scope: a
scope every request needs). --backend-client-id authorizes the gateway
at an HTTP backend that answers 401 with a grant without a user: client
credentials with the secret in environment variable VAR or a private
key (PKCS#8 PEM or JWK: private_key_jwt), or workload identity (the JWT
bearer grant with the token in FILE, read again on each grant). A front
client's token never reaches the backend. Logs go to stderr (MCP_LOG or
RUST_LOG filters them).";

struct Args {
    listen: Option<String>,
    /// With `listen`: serve stdio too.
    stdio: bool,
    options: BackendOptions,
    command: Vec<String>,
    url: Option<String>,
    /// A composition file: several backends instead of one.
    config: Option<String>,
    front_auth: FrontAuth,
    backend_auth: BackendAuth,
}

/// The `--instance` and `--peer` flags, checked once all are read.
#[derive(Default)]
struct InstanceFlags {
    id: Option<String>,
    peers: Vec<(String, String)>,
}

impl InstanceFlags {
    fn build(self) -> Result<Instances, String> {
        let mut instances = match self.id {
            Some(id) => Instances::new(id).map_err(|e| format!("--instance: {e}"))?,
            None => Instances::random(),
        };
        for (id, url) in self.peers {
            instances = instances
                .with_peer(id, &url)
                .map_err(|e| format!("--peer: {e}"))?;
        }
        Ok(instances)
    }
}

/// The `--oauth-*` flags: the HTTP front as a resource server.
#[derive(Default)]
struct FrontAuth {
    issuer: Option<String>,
    resource: Option<String>,
    scopes: Vec<String>,
}

/// The `--backend-*` credential flags: the gateway's own grant at an
/// HTTP backend.
#[derive(Default)]
struct BackendAuth {
    client_id: Option<String>,
    secret_env: Option<String>,
    private_key: Option<String>,
    workload_token: Option<String>,
}

impl BackendAuth {
    /// Whether a credential flag (secret, key or token) was given.
    fn has_credential(&self) -> bool {
        self.secret_env.is_some() || self.private_key.is_some() || self.workload_token.is_some()
    }
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut parsed = Args {
        listen: None,
        stdio: false,
        options: BackendOptions::default(),
        command: Vec::new(),
        url: None,
        config: None,
        front_auth: FrontAuth::default(),
        backend_auth: BackendAuth::default(),
    };
    let mut instance = InstanceFlags::default();
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
            "--config" => parsed.config = Some(rest.next().ok_or("--config needs FILE")?.clone()),
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
            "--no-restart" => parsed.options.restart = Restart::Never,
            "--per-principal" => {
                let value = rest.next().ok_or("--per-principal needs N")?;
                match value.parse::<usize>() {
                    Ok(n) if n > 0 => parsed.options.per_principal = Some(n),
                    _ => return Err(format!("bad --per-principal {value:?}: a number above 0")),
                }
            }
            "--oauth-issuer"
            | "--oauth-resource"
            | "--oauth-scope"
            | "--backend-client-id"
            | "--backend-client-secret-env"
            | "--backend-private-key"
            | "--backend-workload-token" => {
                let value = rest.next().ok_or(format!("{arg} needs a value"))?.clone();
                let slot = match arg.as_str() {
                    "--oauth-issuer" => &mut parsed.front_auth.issuer,
                    "--oauth-resource" => &mut parsed.front_auth.resource,
                    "--oauth-scope" => {
                        parsed.front_auth.scopes.push(value);
                        continue;
                    }
                    "--backend-client-id" => &mut parsed.backend_auth.client_id,
                    "--backend-client-secret-env" => &mut parsed.backend_auth.secret_env,
                    "--backend-private-key" => &mut parsed.backend_auth.private_key,
                    _ => &mut parsed.backend_auth.workload_token,
                };
                *slot = Some(value);
            }
            "--instance" => instance.id = Some(rest.next().ok_or("--instance needs ID")?.clone()),
            "--peer" => {
                let value = rest.next().ok_or("--peer needs ID=URL")?;
                let (id, url) = value
                    .split_once('=')
                    .ok_or(format!("bad --peer {value:?}: ID=URL"))?;
                if instance.peers.iter().any(|(known, _)| known == id) {
                    return Err(format!("--peer {id} given twice"));
                }
                instance.peers.push((id.to_owned(), url.to_owned()));
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if parsed.stdio && parsed.listen.is_none() {
        return Err(
            "--stdio serves stdio beside --listen ADDR (without it, stdio is the front)".into(),
        );
    }
    match (
        parsed.url.is_some(),
        parsed.command.is_empty(),
        parsed.config.is_some(),
    ) {
        (false, true, false) => {
            return Err("no backend: --url URL, -- COMMAND [ARGS...] or --config FILE".into());
        }
        (true, false, _) => return Err("one backend: --url or a command, not both".into()),
        (true, _, true) | (_, false, true) => {
            return Err("--config names the backends: no --url or command beside it".into());
        }
        _ => {}
    }
    parsed.options.instances = instance.build()?;
    let front = &parsed.front_auth;
    if front.issuer.is_some() != front.resource.is_some()
        || (!front.scopes.is_empty() && front.issuer.is_none())
    {
        return Err(
            "--oauth-issuer and --oauth-resource go together (--oauth-scope needs both)".into(),
        );
    }
    if front.issuer.is_some() && parsed.listen.is_none() {
        return Err("--oauth-* protect the HTTP front: they need --listen ADDR".into());
    }
    let backend = &parsed.backend_auth;
    if backend.client_id.is_some() && parsed.url.is_none() && parsed.config.is_none() {
        return Err("--backend-client-id authorizes an HTTP backend: it needs --url".into());
    }
    #[cfg(feature = "auth")]
    {
        parsed.options.oauth = backend_grant(backend)?;
    }
    #[cfg(not(feature = "auth"))]
    if front.issuer.is_some()
        || front.resource.is_some()
        || !front.scopes.is_empty()
        || backend.client_id.is_some()
        || backend.has_credential()
    {
        return Err("OAuth needs the gateway built with the `auth` feature \
             (cargo install mcp-era-gateway --features auth)"
            .into());
    }
    Ok(parsed)
}

/// The gateway's own grant at an HTTP backend, as the `--backend-*` flags
/// name it (`None`: no credentials; a `401` from the backend is an error).
#[cfg(feature = "auth")]
fn backend_grant(
    flags: &BackendAuth,
) -> Result<Option<mcp_era_client::auth::OAuthOptions>, String> {
    use mcp_era_client::auth::{
        ClientAuth, Credential, Grant, OAuthOptions, SecretMethod, SigningKey, TokenSource,
    };
    let Some(client_id) = flags.client_id.clone() else {
        if flags.has_credential() {
            return Err("the --backend-* credentials need --backend-client-id".into());
        }
        return Ok(None);
    };
    let grant = match (&flags.secret_env, &flags.private_key, &flags.workload_token) {
        (Some(var), None, None) => {
            // From the environment: a secret on the command line is visible to every user of `ps`.
            let secret = std::env::var(var)
                .map_err(|e| format!("--backend-client-secret-env {var}: {e}"))?;
            let method = SecretMethod::Auto;
            Grant::ClientCredentials(ClientAuth::new(
                client_id,
                Credential::Secret { secret, method },
            ))
        }
        (None, Some(path), None) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--backend-private-key {path}: {e}"))?;
            let key = if text.trim_start().starts_with('{') {
                SigningKey::from_jwk(&text, None)
            } else {
                SigningKey::from_pem(&text, None)
            }
            .map_err(|e| format!("--backend-private-key {path}: {e}"))?;
            Grant::ClientCredentials(ClientAuth::new(client_id, Credential::PrivateKey(key)))
        }
        (None, None, Some(path)) => Grant::WorkloadIdentity {
            client: ClientAuth::new(client_id, Credential::None),
            token: TokenSource::File(path.into()),
        },
        _ => {
            return Err(
                "--backend-client-id takes one of --backend-client-secret-env, \
                 --backend-private-key or --backend-workload-token"
                    .into(),
            );
        }
    };
    let mut oauth = OAuthOptions::machine(grant);
    oauth.client_name = "mcp-era-gateway".into();
    Ok(Some(oauth))
}

/// The HTTP front's resource server, as the `--oauth-*` flags (checked by
/// [`parse`]) name it.
#[cfg(feature = "auth")]
fn front_auth(flags: FrontAuth) -> Option<http::auth::AuthConfig> {
    use http::auth::{AuthConfig, JwtValidator};
    let (issuer, resource) = (flags.issuer?, flags.resource?);
    let validator = JwtValidator::new(issuer.clone(), resource.clone());
    Some(AuthConfig::new(resource, issuer, Arc::new(validator)).require_scopes(flags.scopes))
}

/// The value of option `name`, a number of seconds.
fn seconds(name: &str, value: Option<&String>) -> Result<Duration, String> {
    let value = value.ok_or(format!("{name} needs SECONDS"))?;
    let seconds: u64 = value
        .parse()
        .map_err(|e| format!("bad {name} {value:?}: {e}"))?;
    Ok(Duration::from_secs(seconds))
}

async fn run(mut args: Args) -> Result<(), String> {
    let instances = &args.options.instances;
    let peers: Vec<&str> = instances.peers().collect();
    tracing::info!(
        instance = instances.id(),
        ?peers,
        "gateway instance (its rounds' requestState names it)"
    );
    if let Some(path) = args.config.take() {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("--config {path}: {e}"))?;
        let composition =
            Composition::from_toml(&text).map_err(|e| format!("--config {path}: {e}"))?;
        let names: Vec<&str> = composition
            .members
            .iter()
            .map(|m| m.name.as_str())
            .collect();
        let name = format!("{} backends ({})", names.len(), names.join(", "));
        let composite = Composite::start(composition, args.options.clone()).await?;
        let events = composite.events().clone();
        return serve(Arc::new(composite), events, &name, args).await;
    }
    let spec = match (args.url.take(), args.command.split_first()) {
        (Some(url), _) => BackendSpec::Url(url),
        (None, Some((program, program_args))) => BackendSpec::Command {
            program: program.clone(),
            args: program_args.to_vec(),
            env: Vec::new(),
        },
        (None, None) => return Err("no backend".into()),
    };
    let name = spec.to_string();
    let gateway = Gateway::start(spec, args.options.clone()).await;
    if let Some(backend) = gateway.backend() {
        tracing::info!(?backend, "backend connected");
    }
    let events = gateway.events().clone();
    serve(Arc::new(gateway), events, &name, args).await
}

/// Serves `server` (publishing on `events`) at the fronts `args` name.
async fn serve<S: McpServer + 'static>(
    server: Arc<S>,
    events: ServerEvents,
    name: &str,
    args: Args,
) -> Result<(), String> {
    let stdio_config = stdio::StdioConfig {
        events: events.clone(),
        ..stdio::StdioConfig::default()
    };
    let serve_stdio = || stdio::serve_stdio(Arc::clone(&server), stdio_config.clone());
    let Some(addr) = args.listen else {
        return serve_stdio().await.map_err(|e| e.to_string());
    };
    let mut config = HttpConfig::bind(&addr).map_err(|e| format!("--listen {addr}: {e}"))?;
    config.events = events;
    #[cfg(feature = "auth")]
    {
        config.auth = front_auth(args.front_auth);
    }
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("--listen {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("mcp-era-gateway: serving {name} on http://{bound}/mcp");
    let serve_http = http::serve_listener_until(
        Arc::clone(&server),
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

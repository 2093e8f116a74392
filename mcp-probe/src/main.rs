//! `mcp-probe`: connect to an MCP server, tell its era apart, and print
//! what it said about itself; optionally list and call tools, list and read
//! resources, list and get prompts, list and get skills. Also the conformance client
//! (`mcp-probe conformance URL`).
//!
//! Every requested operation runs even when an earlier one fails: the
//! report shows what succeeded, then what failed (on stderr; with `--json`
//! as an `errors` array in the one JSON document printed, which is also
//! printed when connecting fails). The exit code is that of the first
//! failure:
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success |
//! | 1 | the server answered a requested operation with an error (JSON-RPC error, or a tool result with `isError`) |
//! | 2 | usage error (bad arguments) |
//! | 3 | could not reach the server (spawn failed, connection refused, closed, HTTP failure) |
//! | 4 | protocol failure (no mutual version, not modern under `--era modern`, malformed answers) |
//! | 5 | timeout |
//!
//! Readable output shows control characters in the server's text escaped
//! (`human`); `--json` prints the text exactly, JSON-escaped.

mod codegen;
mod conformance;
mod grants;
mod human;
mod skills;

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use mcp_era_client::{ByEra, Client, ClientOptions, Era, EraMode, Error};
use serde_json::{Map, Value, json};

use human::{errln, outln, outtext};

/// Probe an MCP server (2026-07-28 and 2025-11-25 eras): print its era, the
/// negotiated version, supportedVersions, serverInfo, capabilities and
/// instructions.
///
/// Every requested operation runs even if another fails; the report shows
/// what succeeded, then what failed (with --json: an `errors` array).
///
/// Exit codes (of the first failure): 0 ok, 1 the server returned an error
/// for a requested operation, 2 usage error, 3 cannot reach the server, 4
/// protocol failure (no mutual version, wrong era, malformed answer), 5
/// timeout.
#[derive(Debug, Parser)]
#[command(name = "mcp-probe", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Streamable HTTP endpoint (http:// only).
    #[arg(long, conflicts_with = "server")]
    url: Option<String>,

    /// Which era to speak.
    #[arg(long, value_enum, default_value_t = EraArg::Auto)]
    era: EraArg,

    /// Print one JSON object instead of readable text (failures in its
    /// `errors` array).
    #[arg(long)]
    json: bool,

    /// How long the server/discover probe waits before falling back to legacy (ms).
    #[arg(long, default_value_t = 3000)]
    probe_timeout_ms: u64,

    /// How long any other request waits (ms).
    #[arg(long, default_value_t = 30000)]
    timeout_ms: u64,

    /// HTTP Authorization header value.
    #[arg(long)]
    authorization: Option<String>,

    /// Authorize with OAuth when the server asks (prints the URL to open,
    /// then waits for the browser on --oauth-redirect-uri).
    #[arg(long)]
    oauth: bool,

    /// The OAuth redirect URI (a loopback address).
    #[arg(
        long,
        requires = "oauth",
        default_value = "http://127.0.0.1:33418/callback"
    )]
    oauth_redirect_uri: String,

    /// A pre-registered OAuth client id (else: metadata document or dynamic registration).
    #[arg(long, requires = "oauth")]
    oauth_client_id: Option<String>,

    /// The pre-registered client's secret (else $MCP_OAUTH_CLIENT_SECRET).
    #[arg(long, requires = "oauth_client_id")]
    oauth_client_secret: Option<String>,

    /// The grants without a user (--oauth-client-credentials, …).
    #[command(flatten)]
    grant: grants::GrantArgs,

    /// A client ID metadata document URL, used when the server supports them.
    #[arg(long, requires = "oauth")]
    oauth_client_metadata_url: Option<String>,

    /// Follow the authorization URL without a browser (servers that redirect at once).
    #[arg(long, requires = "oauth")]
    oauth_headless: bool,

    /// DPoP-bound tokens (RFC 9449): auto = when the servers offer them.
    #[arg(long, requires = "oauth", value_enum, default_value_t = DpopArg::Auto)]
    oauth_dpop: DpopArg,

    /// Also trust the CA certificate(s) in FILE (PEM or DER) for https.
    #[cfg(feature = "rustls")]
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<std::path::PathBuf>,

    /// Also list the tools.
    #[arg(long)]
    list_tools: bool,

    /// Write a typed Rust client for every listed tool to FILE
    /// (`mcp_era_codegen::client`; warnings on stderr).
    #[arg(long, value_name = "FILE")]
    codegen: Option<std::path::PathBuf>,

    /// Write the whole tool catalogue (`{"tools": [...]}`, every page) to
    /// FILE: a snapshot for `mcp_era_codegen::client::build`.
    #[arg(long, value_name = "FILE")]
    save_tools: Option<std::path::PathBuf>,

    /// The --codegen client struct is NAMEClient.
    #[arg(long, default_value = "Tools", value_name = "NAME")]
    codegen_name: String,

    /// The client crate path in the --codegen module.
    #[arg(long, default_value = "::mcp_era::client", value_name = "PATH")]
    client_path: String,

    /// Call this tool after connecting.
    #[arg(long)]
    call: Option<String>,

    /// Arguments for --call, as a JSON object.
    #[arg(long, requires = "call", default_value = "{}")]
    args: String,

    /// Let the server run the --call as a task (declares the tasks
    /// extension): its id and status changes are printed to stderr as they
    /// happen, and Ctrl-C cancels it (`tasks/cancel`).
    #[arg(long, requires = "call")]
    as_task: bool,

    /// Declare elicitation and accept every elicitation with this JSON
    /// object as the content (MRTR retries and legacy requests alike).
    #[arg(long, value_name = "JSON")]
    elicit_accept: Option<String>,

    /// Make the --call this many times at once over the one connection
    /// (all must succeed with the same result).
    #[arg(long, requires = "call", default_value_t = 1, value_name = "N")]
    concurrent: usize,

    /// Also list the resources (every page).
    #[arg(long)]
    list_resources: bool,

    /// Also list the resource templates (every page).
    #[arg(long)]
    list_templates: bool,

    /// Read this resource after connecting.
    #[arg(long, value_name = "URI")]
    read: Option<String>,

    /// Also list the prompts (every page).
    #[arg(long)]
    list_prompts: bool,

    /// Get this prompt after connecting.
    #[arg(long, value_name = "NAME")]
    get_prompt: Option<String>,

    /// Arguments for --get-prompt, as a JSON object of strings.
    #[arg(
        long,
        requires = "get_prompt",
        default_value = "{}",
        value_name = "JSON"
    )]
    prompt_args: String,

    /// Also list the skills (skills extension; every page). Reads no
    /// skill file.
    #[arg(long)]
    list_skills: bool,

    /// Get this skill (a name from the listing, or a SKILL.md URI): its
    /// entry, and its SKILL.md read and verified (size, digest,
    /// frontmatter). Supporting files are listed, not read.
    #[arg(long, value_name = "NAME|URI")]
    get_skill: Option<String>,

    /// Show tool TOOL's MCP App: its `_meta.ui` link, then the `ui://`
    /// resource's MIME type, `_meta.ui` and size in bytes. Declares the
    /// Apps extension, so tools only an App may call are found too.
    #[arg(long, value_name = "TOOL")]
    ui: Option<String>,

    /// The server command and its arguments (after `--`).
    #[arg(last = true, num_args = 1.., value_name = "CMD")]
    server: Vec<String>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run as the conformance suite's client: `npx conformance client
    /// --command "mcp-probe conformance"` appends the URL and sets
    /// MCP_CONFORMANCE_SCENARIO.
    Conformance {
        /// The scenario server's URL (appended by the suite).
        url: String,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum EraArg {
    Auto,
    Modern,
    Legacy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DpopArg {
    Auto,
    Always,
    Never,
}

/// A failure with its exit code.
struct Failure {
    code: u8,
    message: String,
    /// The JSON-RPC error, when the server answered with one.
    rpc: Option<Value>,
}

impl Failure {
    fn new(code: u8, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
            rpc: None,
        }
    }
}

/// One requested operation that failed: the flag that asked for it
/// (`connect` for connecting), its argument, and why.
struct Failed {
    operation: &'static str,
    target: Option<String>,
    failure: Failure,
}

impl Failed {
    fn new(operation: &'static str, target: Option<&str>, failure: impl Into<Failure>) -> Self {
        Failed {
            operation,
            target: target.map(str::to_owned),
            failure: failure.into(),
        }
    }

    /// The entry of the report's `errors` array.
    fn to_json(&self) -> Value {
        let mut entry = Map::new();
        entry.insert("operation".into(), json!(self.operation));
        if let Some(target) = &self.target {
            entry.insert("target".into(), json!(target));
        }
        entry.insert("exitCode".into(), json!(self.failure.code));
        entry.insert("message".into(), json!(self.failure.message));
        if let Some(rpc) = &self.failure.rpc {
            entry.insert("error".into(), rpc.clone());
        }
        Value::Object(entry)
    }

    /// The line on stderr: `mcp-probe: --read URI: message`.
    fn line(&self) -> String {
        let message = &self.failure.message;
        match (self.operation, &self.target) {
            ("connect", _) => format!("mcp-probe: {message}"),
            (operation, Some(target)) => format!("mcp-probe: {operation} {target}: {message}"),
            (operation, None) => format!("mcp-probe: {operation}: {message}"),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        let code = match &e {
            Error::Rpc { .. }
            | Error::Auth { .. }
            | Error::TaskFailed { .. }
            | Error::TaskCancelled { .. } => 1,
            Error::Spawn { .. } | Error::Io(_) | Error::Closed { .. } | Error::Http { .. } => 3,
            Error::InvalidUrl { .. } => 2,
            Error::Timeout { .. } => 5,
            _ => 4,
        };
        let rpc = match &e {
            Error::Rpc { error, .. } => serde_json::to_value(error).ok(),
            _ => None,
        };
        Failure {
            code,
            message: e.to_string(),
            rpc,
        }
    }
}

/// The DER certificates of a PEM file (every CERTIFICATE block) or of a
/// DER file (one certificate).
#[cfg(feature = "rustls")]
fn read_certificates(path: &std::path::Path) -> Result<Vec<Vec<u8>>, String> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;

    let bytes = std::fs::read(path).map_err(|e| format!("--ca-cert {}: {e}", path.display()))?;
    if !bytes.starts_with(b"-----BEGIN") {
        return Ok(vec![bytes]);
    }
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .map(|cert| cert.map(|c| c.to_vec()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("--ca-cert {}: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "--ca-cert {}: no CERTIFICATE in the file",
            path.display()
        ));
    }
    Ok(certs)
}

/// The most pages any list follows: a server whose cursors never end
/// (each new) is cut off with an error rather than followed forever.
pub(crate) const MAX_PAGES: usize = 1000;

fn usage(message: impl Into<String>) -> Failure {
    Failure::new(2, message)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Conformance { url }) => conformance::run(url).await,
        None => Ok(probe(&cli).await),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            errln!("mcp-probe: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

/// `--elicit-accept`: accepts every elicitation with the given content.
struct Accept(Map<String, Value>);

impl mcp_era_client::ClientHandler for Accept {
    fn elicit(
        &self,
        _request: mcp_era_client::mcp_era_types::v2026_07_28::ElicitRequestParams,
    ) -> mcp_era_client::transport::BoxFuture<
        '_,
        Result<
            mcp_era_client::mcp_era_types::v2026_07_28::ElicitResult,
            mcp_era_client::HandlerError,
        >,
    > {
        let result = json!({"action": "accept", "content": self.0});
        Box::pin(async move {
            serde_json::from_value(result)
                .map_err(|e| mcp_era_client::HandlerError::new(-32603, e.to_string()))
        })
    }
}

/// Connects, runs the requested operations, prints the report and what
/// failed; returns the exit code.
async fn probe(cli: &Cli) -> u8 {
    let (report, failed) = match connect(cli).await {
        Ok((client, call_args, prompt_args)) => {
            let mut report = summary(&client);
            let failed = operations(cli, &client, &mut report, call_args, prompt_args).await;
            // Close the connection (ending a legacy session) whatever failed.
            client.close().await;
            (Some(report), failed)
        }
        Err(failure) => (None, vec![failure]),
    };
    print_report(cli.json, report, &failed);
    failed.first().map_or(0, |f| f.failure.code)
}

/// The report on stdout (readable, or one JSON document whose `errors`
/// lists what failed), then each failure on stderr.
fn print_report(json: bool, report: Option<Map<String, Value>>, failed: &[Failed]) {
    if json {
        let mut document = report.unwrap_or_default();
        if !failed.is_empty() {
            let errors = failed.iter().map(Failed::to_json).collect();
            document.insert("errors".into(), Value::Array(errors));
        }
        // Exact JSON: serde_json has escaped every control character.
        println!("{}", Value::Object(document));
    } else if let Some(report) = &report {
        print_readable(report);
    }
    for f in failed {
        errln!("{}", f.line());
    }
}

/// Checks the arguments and connects; also returns the parsed `--args`
/// and `--prompt-args`.
async fn connect(
    cli: &Cli,
) -> Result<(Client, Map<String, Value>, BTreeMap<String, String>), Failed> {
    let bad = |failure: Failure| Failed::new("connect", None, failure);
    let mut opts = ClientOptions {
        era: match cli.era {
            EraArg::Auto => EraMode::Auto,
            EraArg::Modern => EraMode::Modern,
            EraArg::Legacy => EraMode::Legacy,
        },
        probe_timeout: Duration::from_millis(cli.probe_timeout_ms),
        request_timeout: Duration::from_millis(cli.timeout_ms),
        authorization: cli.authorization.clone(),
        #[cfg(feature = "rustls")]
        extra_root_certificates: match &cli.ca_cert {
            Some(path) => read_certificates(path).map_err(|e| bad(usage(e)))?,
            None => Vec::new(),
        },
        client_info: mcp_era_client::mcp_era_types::v2026_07_28::Implementation::builder()
            .name("mcp-probe")
            .version(env!("CARGO_PKG_VERSION"))
            .build(),
        oauth: match cli.oauth {
            true => Some(oauth_options(cli).map_err(|e| bad(usage(e)))?),
            false => None,
        },
        tasks: cli.as_task,
        max_pages: MAX_PAGES,
        ..ClientOptions::default()
    };
    if cli.ui.is_some() {
        opts.declare_apps();
    }
    if let Some(raw) = &cli.elicit_accept {
        let Ok(Value::Object(content)) = serde_json::from_str(raw) else {
            return Err(bad(usage("--elicit-accept must be a JSON object")));
        };
        opts.capabilities = serde_json::from_value(json!({"elicitation": {"form": {}}}))
            .map_err(|e| bad(usage(e.to_string())))?;
        opts.handler = Some(std::sync::Arc::new(Accept(content)));
    }
    let call_args: Map<String, Value> = match serde_json::from_str(&cli.args) {
        Ok(Value::Object(m)) => m,
        _ => return Err(bad(usage("--args must be a JSON object"))),
    };
    if cli.as_task && cli.concurrent > 1 {
        return Err(bad(usage("--as-task makes one call: drop --concurrent")));
    }
    let prompt_args = prompt_arguments(&cli.prompt_args).map_err(|e| bad(usage(e)))?;
    let client = match (&cli.url, cli.server.split_first()) {
        (Some(url), None) => Client::connect_http(url, opts).await,
        (None, Some((program, args))) => Client::connect_stdio(program, args, opts).await,
        _ => return Err(bad(usage("give either --url URL or -- CMD ARGS..."))),
    };
    let client = client.map_err(|e| bad(e.into()))?;
    Ok((client, call_args, prompt_args))
}

/// The `--oauth*` flags as options.
fn oauth_options(cli: &Cli) -> Result<mcp_era_client::auth::OAuthOptions, String> {
    use mcp_era_client::auth::{
        Authorizer, DpopPolicy, HeadlessAuthorizer, LoopbackAuthorizer, OAuthOptions,
    };
    use std::sync::Arc;

    let dpop = match cli.oauth_dpop {
        DpopArg::Auto => DpopPolicy::Auto,
        DpopArg::Always => DpopPolicy::Always,
        DpopArg::Never => DpopPolicy::Never,
    };
    let client_secret = cli
        .oauth_client_secret
        .clone()
        .or_else(|| std::env::var("MCP_OAUTH_CLIENT_SECRET").ok());
    if let Some(grant) = grants::from_flags(
        &cli.grant,
        cli.oauth_client_id.as_deref(),
        client_secret.clone(),
    )? {
        let mut o = OAuthOptions::machine(grant);
        o.dpop = dpop;
        return Ok(o);
    }

    let authorizer: Arc<dyn Authorizer> = if cli.oauth_headless {
        Arc::new(HeadlessAuthorizer)
    } else {
        Arc::new(LoopbackAuthorizer::printing())
    };
    let mut o = OAuthOptions::new(cli.oauth_redirect_uri.clone(), authorizer);
    o.client_name = "mcp-probe".into();
    o.client_id = cli.oauth_client_id.clone();
    o.client_secret = client_secret.filter(|_| o.client_id.is_some());
    o.client_metadata_url = cli.oauth_client_metadata_url.clone();
    o.dpop = dpop;
    Ok(o)
}

/// `--prompt-args`: a JSON object whose values are all strings.
fn prompt_arguments(raw: &str) -> Result<BTreeMap<String, String>, String> {
    let Ok(Value::Object(m)) = serde_json::from_str(raw) else {
        return Err("--prompt-args must be a JSON object".into());
    };
    m.into_iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k, s)),
            other => Err(format!(
                "--prompt-args: prompt arguments are strings, but `{k}` is {other}"
            )),
        })
        .collect()
}

/// Runs every requested operation, adding what succeeded to `report`;
/// returns what failed, in order (a tool result with `isError` included).
async fn operations(
    cli: &Cli,
    client: &Client,
    report: &mut Map<String, Value>,
    call_args: Map<String, Value>,
    prompt_args: BTreeMap<String, String>,
) -> Vec<Failed> {
    let mut failed = Vec::new();
    // What succeeded goes in the report under `key`, what failed in `failed`.
    fn record(
        report: &mut Map<String, Value>,
        failed: &mut Vec<Failed>,
        key: &str,
        outcome: Result<Value, Failed>,
    ) {
        match outcome {
            Ok(value) => {
                report.insert(key.into(), value);
            }
            Err(f) => failed.push(f),
        }
    }
    if cli.codegen.is_some() || cli.save_tools.is_some() {
        let request = codegen::Request {
            out: cli.codegen.as_deref(),
            save_tools: cli.save_tools.as_deref(),
            name: &cli.codegen_name,
            client_path: &cli.client_path,
        };
        let result = codegen::run(client, &request).await;
        record(
            report,
            &mut failed,
            "codegen",
            result.map_err(|e| Failed::new("--codegen", None, e)),
        );
    }
    if cli.list_tools {
        let tools = client.list_all_tools().await.map(|tools| {
            let names = to_json(&tools)["tools"]
                .as_array()
                .map(|t| t.iter().map(|t| t["name"].clone()).collect())
                .unwrap_or_default();
            Value::Array(names)
        });
        record(
            report,
            &mut failed,
            "tools",
            tools.map_err(|e| Failed::new("--list-tools", None, e)),
        );
    }
    if let Some(name) = &cli.call {
        let result = if cli.as_task {
            call_as_task(client, name, call_args, report).await
        } else {
            call(client, name, call_args, cli.concurrent, report).await
        };
        let is_error = matches!(&result, Ok(r) if r["isError"] == json!(true));
        record(
            report,
            &mut failed,
            "callResult",
            result.map_err(|e| Failed::new("--call", Some(name), e)),
        );
        if is_error {
            failed.push(Failed::new(
                "--call",
                Some(name),
                Failure::new(1, "the tool's result has isError: true"),
            ));
        }
    }
    if let Some(name) = &cli.ui {
        let app = app_of(client, name).await;
        record(
            report,
            &mut failed,
            "app",
            app.map_err(|e| Failed::new("--ui", Some(name), e)),
        );
    }
    if cli.list_resources {
        let list = client.list_resources().await;
        let list = list.map(|l| to_json(&l)["resources"].clone());
        record(
            report,
            &mut failed,
            "resources",
            list.map_err(|e| Failed::new("--list-resources", None, e)),
        );
    }
    if cli.list_templates {
        let list = client.list_resource_templates().await;
        let list = list.map(|l| to_json(&l)["resourceTemplates"].clone());
        record(
            report,
            &mut failed,
            "resourceTemplates",
            list.map_err(|e| Failed::new("--list-templates", None, e)),
        );
    }
    if let Some(uri) = &cli.read {
        let result = client.read_resource(uri).await.map(|r| to_json(&r));
        record(
            report,
            &mut failed,
            "readResult",
            result.map_err(|e| Failed::new("--read", Some(uri), e)),
        );
    }
    if cli.list_prompts {
        let list = client.list_prompts().await;
        let list = list.map(|l| to_json(&l)["prompts"].clone());
        record(
            report,
            &mut failed,
            "prompts",
            list.map_err(|e| Failed::new("--list-prompts", None, e)),
        );
    }
    if let Some(name) = &cli.get_prompt {
        let result = client.get_prompt(name, prompt_args).await;
        record(
            report,
            &mut failed,
            "promptResult",
            result
                .map(|r| to_json(&r))
                .map_err(|e| Failed::new("--get-prompt", Some(name), e)),
        );
    }
    if cli.list_skills {
        let list = skills::list(client).await;
        record(
            report,
            &mut failed,
            "skills",
            list.map_err(|e| Failed::new("--list-skills", None, e)),
        );
    }
    if let Some(name) = &cli.get_skill {
        let skill = skills::get(client, name).await;
        record(
            report,
            &mut failed,
            "skill",
            skill.map_err(|e| Failed::new("--get-skill", Some(name), e)),
        );
    }
    failed
}

/// `--ui TOOL`: the tool's link to its App and what reading the App gave.
async fn app_of(client: &Client, name: &str) -> Result<Value, Failure> {
    let tools = client.list_all("tools/list", "tools").await?;
    let tool = tools["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == name))
        .ok_or_else(|| Failure::new(1, format!("no tool `{name}` in tools/list")))?;
    let link = mcp_era_client::apps::tool_ui(tool["_meta"].as_object())?;
    let Some(uri) = link.as_ref().and_then(|l| l.resource_uri.clone()) else {
        return Err(Failure::new(1, format!("tool `{name}` links no App")));
    };
    let app = client.read_app(&uri).await?;
    Ok(json!({
        "tool": name,
        "link": link,
        "mimeType": app.mime_type,
        "ui": app.ui,
        // CSP entries a host must not join into a policy.
        "problems": app.problems,
        "size": app.html.len(),
    }))
}

/// `--call NAME` (`--concurrent N` times at once): the result, which every
/// call must give alike.
async fn call(
    client: &Client,
    name: &str,
    args: Map<String, Value>,
    concurrent: usize,
    report: &mut Map<String, Value>,
) -> Result<Value, Failure> {
    let calls = (0..concurrent.max(1)).map(|_| {
        let (client, name, args) = (client.clone(), name.to_owned(), args.clone());
        tokio::spawn(async move { client.call_tool(&name, args).await })
    });
    let mut results = Vec::new();
    for call in calls.collect::<Vec<_>>() {
        let outcome = call
            .await
            .map_err(|e| Failure::new(4, format!("a concurrent call failed: {e}")))?;
        results.push(to_json(&outcome?));
    }
    let result = results.first().cloned().unwrap_or(Value::Null);
    if results.iter().any(|r| r["content"] != result["content"]) {
        return Err(Failure::new(
            4,
            format!("{} concurrent calls gave different results", results.len()),
        ));
    }
    if results.len() > 1 {
        report.insert("concurrentCalls".into(), json!(results.len()));
    }
    Ok(result)
}

/// `--call NAME --as-task`: the call, and if the server made it a task,
/// its status changes on stderr (and as `task` in the report) until it
/// ends; Ctrl-C sends `tasks/cancel` and waits for the task to say so.
async fn call_as_task(
    client: &Client,
    name: &str,
    args: Map<String, Value>,
    report: &mut Map<String, Value>,
) -> Result<Value, Failure> {
    use mcp_era_client::TaskCall;

    let task = match client.call_tool_as_task(name, args).await? {
        TaskCall::Complete(result) => {
            errln!("{name}: answered at once (no task)");
            return Ok(serde_json::to_value(&result).unwrap_or(Value::Null));
        }
        TaskCall::Task(task) => task,
    };
    errln!("task {}", task.id());
    let mut statuses: Vec<Value> = Vec::new();
    let outcome = {
        let waiting = task.wait_with(|t| {
            match &t.status_message {
                Some(m) => errln!("  {} ({m})", t.status.as_str()),
                None => errln!("  {}", t.status.as_str()),
            }
            statuses.push(json!(t.status.as_str()));
        });
        tokio::pin!(waiting);
        tokio::select! {
            outcome = &mut waiting => outcome,
            _ = tokio::signal::ctrl_c() => {
                errln!("  cancelling");
                task.cancel().await?;
                // The next poll sees `cancelled` (or the end it reached first).
                waiting.await
            }
        }
    };
    let mut summary = Map::new();
    summary.insert("taskId".into(), json!(task.id()));
    summary.insert("statuses".into(), Value::Array(statuses));
    report.insert("task".into(), Value::Object(summary));
    Ok(serde_json::to_value(&outcome?).unwrap_or(Value::Null))
}

fn to_json<M: serde::Serialize, L: serde::Serialize>(v: &ByEra<M, L>) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// What the probe prints, as JSON (camelCase keys).
fn summary(client: &Client) -> Map<String, Value> {
    let mut m = Map::new();
    let era = match client.era() {
        Era::Modern => "modern",
        Era::Legacy => "legacy",
    };
    m.insert("era".into(), json!(era));
    m.insert("protocolVersion".into(), json!(client.protocol_version()));
    m.insert(
        "supportedVersions".into(),
        json!(client.supported_versions()),
    );
    m.insert(
        "serverInfo".into(),
        client
            .server_info()
            .map(|i| to_json(&i))
            .unwrap_or(Value::Null),
    );
    m.insert("capabilities".into(), to_json(&client.capabilities()));
    m.insert("instructions".into(), json!(client.instructions()));
    if let Some(d) = client.discover_result() {
        m.insert("ttlMs".into(), json!(d.ttl_ms));
        m.insert(
            "cacheScope".into(),
            serde_json::to_value(d.cache_scope).unwrap_or(Value::Null),
        );
    }
    if let Some(id) = client.session_id() {
        m.insert("sessionId".into(), json!(id));
    }
    m
}

fn print_readable(r: &Map<String, Value>) {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => "(none)".into(),
        other => other.to_string(),
    };
    outln!("era:                {}", text(&r["era"]));
    outln!("protocol version:   {}", text(&r["protocolVersion"]));
    let supported = match &r["supportedVersions"] {
        Value::Array(a) => a.iter().map(text).collect::<Vec<_>>().join(", "),
        // A dual-era server reached in legacy mode reports none either.
        _ => "(not reported: legacy session)".into(),
    };
    outln!("supported versions: {supported}");
    let info = &r["serverInfo"];
    match info {
        Value::Object(_) => {
            let title = info
                .get("title")
                .map(|t| format!(" ({})", text(t)))
                .unwrap_or_default();
            outln!(
                "server:             {} {}{title}",
                text(&info["name"]),
                text(&info["version"])
            );
        }
        _ => outln!("server:             (not reported)"),
    }
    outln!("capabilities:       {}", text(&r["capabilities"]));
    if let Some(ttl) = r.get("ttlMs") {
        outln!(
            "discover caching:   ttlMs {}, cacheScope {}",
            text(ttl),
            text(&r["cacheScope"])
        );
    }
    if let Some(id) = r.get("sessionId") {
        outln!("session id:         {}", text(id));
    }
    match r["instructions"].as_str() {
        Some(i) => {
            outln!("instructions:");
            for line in i.lines() {
                outln!("  {line}");
            }
        }
        None => outln!("instructions:       (none)"),
    }
    if let Some(Value::Array(tools)) = r.get("tools") {
        outln!(
            "tools:              {}",
            tools.iter().map(text).collect::<Vec<_>>().join(", ")
        );
    }
    if let Some(task) = r.get("task") {
        let statuses = task["statuses"]
            .as_array()
            .map(|a| a.iter().map(text).collect::<Vec<_>>().join(" → "))
            .unwrap_or_default();
        outln!("task:               {} ({statuses})", text(&task["taskId"]));
    }
    if let Some(result) = r.get("callResult") {
        outln!("call result:        {result}");
    }
    if let Some(app) = r.get("app") {
        outln!("app:                {app}");
    }
    if let Some(list) = r.get("resources") {
        print_catalogue("resources", list, "uri");
    }
    if let Some(list) = r.get("resourceTemplates") {
        print_catalogue("resource templates", list, "uriTemplate");
    }
    if let Some(result) = r.get("readResult") {
        print_read(result);
    }
    if let Some(list) = r.get("prompts") {
        print_catalogue("prompts", list, "");
    }
    if let Some(result) = r.get("promptResult") {
        print_prompt(result);
    }
    if let Some(list) = r.get("skills") {
        skills::print_list(list);
    }
    if let Some(skill) = r.get("skill") {
        skills::print_skill(skill);
    }
}

/// One line per item (name, title, address, mime type, arguments), then
/// its description indented.
fn print_catalogue(heading: &str, list: &Value, address: &str) {
    let items = list.as_array().map(Vec::as_slice).unwrap_or_default();
    outln!("{heading} ({}):", items.len());
    for item in items {
        let mut line = format!("  {}", item["name"].as_str().unwrap_or("?"));
        if let Some(title) = item["title"].as_str() {
            line.push_str(&format!(" ({title})"));
        }
        if let Some(at) = item.get(address).and_then(Value::as_str) {
            line.push_str(&format!("  {at}"));
        }
        if let Some(mime) = item["mimeType"].as_str() {
            line.push_str(&format!("  [{mime}]"));
        }
        if let Some(args) = item["arguments"].as_array() {
            let args: Vec<String> = args
                .iter()
                .map(|a| {
                    let name = a["name"].as_str().unwrap_or("?");
                    match a["required"].as_bool() {
                        Some(true) => format!("{name} (required)"),
                        _ => name.to_owned(),
                    }
                })
                .collect();
            line.push_str(&format!("  arguments: {}", args.join(", ")));
        }
        outln!("{line}");
        if let Some(description) = item["description"].as_str() {
            outln!("      {description}");
        }
    }
}

/// A `resources/read` result: each content's uri and mime type, then its
/// text, or for a blob its size.
fn print_read(result: &Value) {
    if print_input_required(result) {
        return;
    }
    outln!("contents:");
    for c in result["contents"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let mime = c["mimeType"].as_str().unwrap_or("no mime type");
        let uri = c["uri"].as_str().unwrap_or("?");
        match (c["text"].as_str(), c["blob"].as_str()) {
            (Some(text), _) => {
                outln!("  {uri} [{mime}], text:");
                for line in text.lines() {
                    outln!("    {line}");
                }
            }
            (None, Some(blob)) => {
                outln!(
                    "  {uri} [{mime}], blob of {}",
                    human::count(base64_len(blob) as u64, "byte")
                );
            }
            (None, None) => outln!("  {uri} [{mime}], {c}"),
        }
    }
}

/// A `prompts/get` result: the description, then each message as
/// `role: text` (other content summarised in brackets).
fn print_prompt(result: &Value) {
    if print_input_required(result) {
        return;
    }
    outln!("prompt:");
    if let Some(d) = result["description"].as_str() {
        outln!("  description: {d}");
    }
    for m in result["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let role = m["role"].as_str().unwrap_or("?");
        let c = &m["content"];
        let mime = c["mimeType"].as_str().unwrap_or("no mime type");
        let shown = match c["type"].as_str() {
            Some("text") => c["text"].as_str().unwrap_or_default().to_owned(),
            Some(kind @ ("image" | "audio")) => {
                let len = base64_len(c["data"].as_str().unwrap_or_default());
                format!("[{kind} {mime}, {}]", human::count(len as u64, "byte"))
            }
            Some("resource") => {
                let r = &c["resource"];
                let uri = r["uri"].as_str().unwrap_or("?");
                match r["text"].as_str() {
                    Some(text) => format!("[resource {uri}] {text}"),
                    None => format!("[resource {uri}]"),
                }
            }
            Some("resource_link") => format!("[link {}]", c["uri"].as_str().unwrap_or("?")),
            _ => c.to_string(),
        };
        outtext!("  {role}: {shown}");
    }
}

/// A modern `input_required` result: the probe cannot answer it, so it
/// shows what the server asked for.
fn print_input_required(result: &Value) -> bool {
    if result["resultType"] != "input_required" {
        return false;
    }
    outln!(
        "input required (mcp-probe does not answer it): {}",
        result["inputRequests"]
    );
    true
}

/// The decoded size of Base64 text (padded or not), without decoding it.
fn base64_len(b64: &str) -> usize {
    let chars = b64.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    let pad = b64
        .trim_end()
        .bytes()
        .rev()
        .take_while(|&b| b == b'=')
        .count();
    (chars - pad.min(chars)) * 3 / 4
}

#[cfg(test)]
mod helper_tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::{Failed, Failure, base64_len, prompt_arguments};
    use serde_json::json;

    #[test]
    fn a_failure_names_its_operation() {
        let failed = Failed::new("--list-tools", None, Failure::new(5, "timed out"));
        assert_eq!(failed.line(), "mcp-probe: --list-tools: timed out");
        assert_eq!(
            failed.to_json(),
            json!({"operation": "--list-tools", "exitCode": 5, "message": "timed out"})
        );
        let failed = Failed::new("--read", Some("test://x"), Failure::new(1, "not found"));
        assert_eq!(failed.line(), "mcp-probe: --read test://x: not found");
        let failed = Failed::new("connect", None, Failure::new(3, "refused"));
        assert_eq!(failed.line(), "mcp-probe: refused");
    }

    #[test]
    fn base64_sizes() {
        assert_eq!(base64_len(""), 0);
        assert_eq!(base64_len("QQ=="), 1);
        assert_eq!(base64_len("QUI="), 2);
        assert_eq!(base64_len("QUJD"), 3);
        assert_eq!(base64_len("QUJDRA"), 4);
        assert_eq!(base64_len("QUJD\nREVG\n"), 6);
    }

    #[test]
    fn prompt_arguments_are_an_object_of_strings() {
        let args = prompt_arguments(r#"{"arg1": "a", "arg2": "b"}"#).unwrap();
        assert_eq!(args.len(), 2);
        assert_eq!(args["arg1"], "a");
        let e = prompt_arguments(r#"{"arg1": 1}"#).unwrap_err();
        assert!(e.contains("`arg1` is 1"), "{e}");
        assert!(prompt_arguments("[]").is_err());
        assert!(prompt_arguments("{").is_err());
    }
}

#[cfg(all(test, feature = "rustls"))]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::read_certificates;

    const CA_DER: &[u8] = include_bytes!("../../mcp-client/tests/tls/ca.der");

    #[test]
    fn ca_cert_reads_pem_and_der() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let pem = read_certificates(&dir.join("test-ca.pem")).unwrap();
        assert_eq!(pem, vec![CA_DER.to_vec()]);
        let der =
            std::env::temp_dir().join(format!("mcp-probe-test-ca-{}.der", std::process::id()));
        std::fs::write(&der, CA_DER).unwrap();
        assert_eq!(read_certificates(&der).unwrap(), vec![CA_DER.to_vec()]);
        std::fs::remove_file(&der).unwrap();
        let missing = read_certificates(&dir.join("no-such.pem")).unwrap_err();
        assert!(missing.contains("no-such.pem"), "{missing}");
    }
}

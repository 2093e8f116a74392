//! The probes behind [`check_server`](super::check_server): raw messages
//! sent to the entry point, their answers judged against [`rules`].

use std::collections::BTreeSet;
use std::sync::Arc;

use mcp_era_server::McpServer;
use mcp_era_server::transport::{HttpHeaders, LegacySession, MessageContext};
use serde_json::{Value, json};

use super::Report;
use super::rules::{self, Rule};
use crate::raw::{self, HttpAnswer, error_code};

const DISCOVER: &str = "server/discover";
const UNKNOWN_VERSION: &str = "v999.0.0";
const MISSING_URI: &str = "mcp-era-testing://missing/4d1f9c0e";
const MISSING_NAME: &str = "mcp-era-testing-no-such-name";
const BAD_CURSOR: &str = "mcp-era-testing: not a cursor";
/// The most pages one list may take before the check gives up on it.
const MAX_PAGES: usize = 1000;

/// The lists: method, result array member, capability.
const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "tools", "tools"),
    ("resources/list", "resources", "resources"),
    ("resources/templates/list", "resourceTemplates", "resources"),
    ("prompts/list", "prompts", "prompts"),
];

struct Probe<'a, S> {
    server: &'a Arc<S>,
    report: &'a mut Report,
    /// The version requests declare: the first one discover advertises.
    version: String,
    next_id: i64,
}

pub(super) async fn run<S: McpServer + 'static>(server: &Arc<S>, report: &mut Report) {
    let mut p = Probe {
        server,
        report,
        version: raw::MODERN_VERSION.to_owned(),
        next_id: 0,
    };
    let supported = p.discover().await;
    if let Some(first) = supported.first() {
        p.version.clone_from(first);
    }
    p.versions(&supported).await;
    p.meta_required().await;
    p.methods().await;
    p.envelopes().await;
    p.notifications().await;
    p.http_headers().await;
    let capabilities =
        serde_json::to_value(server.declaration().capabilities()).unwrap_or_default();
    let has = |name: &str| capabilities.get(name).is_some_and(|c| !c.is_null());
    p.capabilities(&has).await;
    let mut tools = None;
    for (method, items, capability) in LISTS {
        if has(capability) {
            // A list that fails was reported by `capabilities`.
            let Some(found) = p.list(method, items).await else {
                continue;
            };
            if method == "tools/list" {
                tools = Some(found);
            } else if method == "resources/list" {
                p.read_first(&found).await;
            }
        }
    }
    if let Some(tools) = tools {
        p.tools(&tools).await;
    }
    if has("resources") {
        p.missing_resource().await;
    }
    if has("prompts") {
        p.unknown_prompt().await;
    }
    let declaration = server.declaration();
    if declaration.is_dual_era() {
        p.legacy_initialize(declaration.initialize_versions(), &supported)
            .await;
        if has("resources") {
            p.legacy_missing_resource(declaration.initialize_versions())
                .await;
        }
        if has("tools") {
            p.legacy_tools(declaration.initialize_versions()).await;
        }
    } else {
        p.modern_only_initialize(&supported).await;
    }
}

fn short(value: Option<&Value>) -> String {
    let text = value.map_or_else(|| "no answer".to_owned(), Value::to_string);
    if text.len() > 300 {
        let cut = (0..=300)
            .rev()
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(0);
        format!("{}…", &text[..cut])
    } else {
        text
    }
}

impl<S: McpServer + 'static> Probe<'_, S> {
    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.id();
        raw::request_with_version(id, method, params, &self.version)
    }

    fn fail(&mut self, rule: Rule, detail: String) {
        self.report.violation(rule, detail);
    }

    fn checking(&mut self, rule: Rule) {
        self.report.checking(rule);
    }

    async fn stdio(&mut self, message: &Value) -> Option<Value> {
        raw::stdio(self.server, message).await
    }

    async fn http(&mut self, message: &Value, headers: HttpHeaders) -> HttpAnswer {
        raw::http(self.server, message, headers).await
    }

    /// Checks that `answer` is an error with `code` (and that it echoes the
    /// id of `sent`, when that id is readable). Returns whether it was.
    fn expect_error(
        &mut self,
        rule: Rule,
        what: &str,
        sent: &Value,
        answer: Option<&Value>,
        code: i64,
    ) -> bool {
        self.checking(rule);
        if error_code(answer) != Some(code) {
            self.fail(
                rule,
                format!("{what}: expected error {code}, got {}", short(answer)),
            );
            return false;
        }
        self.echoes_id(what, sent, answer);
        true
    }

    fn echoes_id(&mut self, what: &str, sent: &Value, answer: Option<&Value>) {
        self.checking(rules::ERROR_ID_ECHO);
        let Some(id) = sent
            .get("id")
            .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
        else {
            return;
        };
        if answer.and_then(|a| a.get("id")) != Some(id) {
            self.fail(
                rules::ERROR_ID_ECHO,
                format!(
                    "{what}: sent id {id}, the error has {}",
                    short(answer.and_then(|a| a.get("id")))
                ),
            );
        }
    }

    /// [`expect_error`](Self::expect_error) plus the HTTP status.
    fn expect_http(
        &mut self,
        rule: Rule,
        what: &str,
        sent: &Value,
        answer: &HttpAnswer,
        code: i64,
        status: u16,
    ) {
        let what = format!("{what} (HTTP)");
        if self.expect_error(rule, &what, sent, answer.body.as_ref(), code)
            && answer.status != status
        {
            self.fail(
                rule,
                format!(
                    "{what}: expected HTTP {status} with error {code}, got HTTP {}",
                    answer.status
                ),
            );
        }
    }

    /// The result of a success answer, or a violation of `rule`.
    fn expect_result<'v>(
        &mut self,
        rule: Rule,
        what: &str,
        answer: Option<&'v Value>,
    ) -> Option<&'v Value> {
        self.checking(rule);
        match answer.and_then(|a| a.get("result")) {
            Some(result) => Some(result),
            None => {
                self.fail(
                    rule,
                    format!("{what}: expected a result, got {}", short(answer)),
                );
                None
            }
        }
    }

    /// `resultType`, `_meta.serverInfo` and, for cacheable ones, the hints.
    fn result_basics(&mut self, what: &str, result: &Value, cacheable: bool) {
        self.checking(rules::RESULT_TYPE);
        if result.get("resultType").and_then(Value::as_str) != Some("complete") {
            self.fail(
                rules::RESULT_TYPE,
                format!("{what}: resultType is {}", short(result.get("resultType"))),
            );
        }
        self.checking(rules::SERVER_INFO_IN_META);
        let info = result.pointer("/_meta/io.modelcontextprotocol~1serverInfo");
        let named = info.is_some_and(|i| {
            i.get("name").is_some_and(Value::is_string)
                && i.get("version").is_some_and(Value::is_string)
        });
        if !named {
            self.fail(
                rules::SERVER_INFO_IN_META,
                format!("{what}: _meta serverInfo is {}", short(info)),
            );
        }
        if cacheable {
            self.cache_hints(what, result);
        }
    }

    fn cache_hints(&mut self, what: &str, result: &Value) {
        self.checking(rules::CACHE_HINTS);
        if !result.get("ttlMs").is_some_and(|t| t.is_u64()) {
            self.fail(
                rules::CACHE_HINTS,
                format!("{what}: ttlMs is {}", short(result.get("ttlMs"))),
            );
        }
        if !matches!(
            result.get("cacheScope").and_then(Value::as_str),
            Some("public" | "private")
        ) {
            self.fail(
                rules::CACHE_HINTS,
                format!("{what}: cacheScope is {}", short(result.get("cacheScope"))),
            );
        }
    }

    /// `server/discover`: its shape; returns `supportedVersions`.
    async fn discover(&mut self) -> Vec<String> {
        let rule = rules::DISCOVER_SHAPE;
        let sent = self.request(DISCOVER, json!({}));
        let answer = self.stdio(&sent).await;
        let Some(result) = self.expect_result(rule, "server/discover", answer.as_ref()) else {
            return Vec::new();
        };
        let result = result.clone();
        self.result_basics("server/discover", &result, true);
        let versions: Vec<String> = match result.get("supportedVersions").and_then(Value::as_array)
        {
            Some(list) if !list.is_empty() && list.iter().all(Value::is_string) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => {
                let listed = short(result.get("supportedVersions"));
                self.fail(rule, format!("supportedVersions is {listed}"));
                Vec::new()
            }
        };
        if !result.get("capabilities").is_some_and(Value::is_object) {
            self.fail(
                rule,
                format!("capabilities is {}", short(result.get("capabilities"))),
            );
        }
        for field in ["serverInfo", "protocolVersion"] {
            if result.get(field).is_some() {
                self.fail(rule, format!("the result body has `{field}`"));
            }
        }
        versions
    }

    /// The version gate: each advertised version accepted, an unknown one
    /// and legacy ones refused with `-32022`.
    async fn versions(&mut self, supported: &[String]) {
        self.checking(rules::SUPPORTED_VERSIONS_ACCEPTED);
        for version in supported {
            let id = self.id();
            let sent = raw::request_with_version(id, DISCOVER, json!({}), version);
            let answer = self.stdio(&sent).await;
            if answer.as_ref().and_then(|a| a.get("result")).is_none() {
                self.fail(
                    rules::SUPPORTED_VERSIONS_ACCEPTED,
                    format!(
                        "discover with advertised version {version}: {}",
                        short(answer.as_ref())
                    ),
                );
            }
        }
        let id = self.id();
        let sent = raw::request_with_version(id, DISCOVER, json!({}), UNKNOWN_VERSION);
        let answer = self.stdio(&sent).await;
        self.version_error(&sent, answer.as_ref(), supported, "unknown version");
        let http = self.http(&sent, raw::headers_for(&sent)).await;
        let what = "unknown version (HTTP)";
        self.version_error(&sent, http.body.as_ref(), supported, what);
        if http.status != 400 {
            self.fail(
                rules::VERSION_GATE,
                format!("{what}: HTTP {} instead of 400", http.status),
            );
        }
        for legacy in ["2025-11-25", "2024-11-05"] {
            let id = self.id();
            let sent = raw::request_with_version(id, DISCOVER, json!({}), legacy);
            let answer = self.stdio(&sent).await;
            let what = format!("`_meta` protocolVersion {legacy}");
            self.expect_error(
                rules::LEGACY_VERSION_IN_MODERN_META,
                &what,
                &sent,
                answer.as_ref(),
                -32022,
            );
        }
    }

    fn version_error(
        &mut self,
        sent: &Value,
        answer: Option<&Value>,
        supported: &[String],
        what: &str,
    ) {
        let rule = rules::VERSION_GATE;
        if !self.expect_error(rule, what, sent, answer, -32022) {
            return;
        }
        let data = answer.and_then(|a| a.pointer("/error/data"));
        let listed = data
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array);
        let listed: Option<Vec<&str>> =
            listed.map(|l| l.iter().filter_map(Value::as_str).collect());
        if listed.as_deref().is_none_or(|l| {
            l.is_empty() || l.iter().copied().ne(supported.iter().map(String::as_str))
        }) {
            self.fail(
                rule,
                format!(
                    "{what}: data.supported is {}, discover lists {supported:?}",
                    short(data.and_then(|d| d.get("supported")))
                ),
            );
        }
        if data
            .and_then(|d| d.get("requested"))
            .and_then(Value::as_str)
            != Some(UNKNOWN_VERSION)
        {
            self.fail(
                rule,
                format!(
                    "{what}: data.requested is {}, sent {UNKNOWN_VERSION}",
                    short(data.and_then(|d| d.get("requested")))
                ),
            );
        }
    }

    /// The three required `_meta` variants, and `params` missing.
    async fn meta_required(&mut self) {
        let rule = rules::META_REQUIRED;
        let full = self.request(DISCOVER, json!({}));
        let mut variants: Vec<(&str, Value)> = Vec::new();
        let mut no_meta = full.clone();
        if let Some(params) = no_meta["params"].as_object_mut() {
            params.remove("_meta");
        }
        variants.push(("no params._meta", no_meta));
        for key in ["protocolVersion", "clientCapabilities"] {
            let mut without = full.clone();
            if let Some(meta) = without["params"]["_meta"].as_object_mut() {
                meta.remove(&format!("io.modelcontextprotocol/{key}"));
            }
            variants.push((
                if key == "protocolVersion" {
                    "no _meta protocolVersion"
                } else {
                    "no _meta clientCapabilities"
                },
                without,
            ));
        }
        let mut no_params = full.clone();
        if let Some(message) = no_params.as_object_mut() {
            message.remove("params");
        }
        variants.push(("no params", no_params));
        for (what, sent) in variants {
            let answer = self.stdio(&sent).await;
            self.expect_error(rule, what, &sent, answer.as_ref(), -32602);
            let headers = HttpHeaders {
                protocol_version: Some(self.version.as_str().into()),
                method: Some(Some(DISCOVER.into())),
                ..HttpHeaders::default()
            };
            let http = self.http(&sent, headers).await;
            self.expect_http(rule, what, &sent, &http, -32602, 400);
        }
    }

    /// Unknown and removed methods.
    async fn methods(&mut self) {
        let unknown = self.request("unknown/method", json!({}));
        let answer = self.stdio(&unknown).await;
        self.expect_error(
            rules::UNKNOWN_METHOD,
            "unknown/method",
            &unknown,
            answer.as_ref(),
            -32601,
        );
        let http = self.http(&unknown, raw::headers_for(&unknown)).await;
        self.expect_http(
            rules::UNKNOWN_METHOD,
            "unknown/method",
            &unknown,
            &http,
            -32601,
            404,
        );
        // A string id must come back a string.
        let mut string_id = unknown.clone();
        string_id["id"] = json!("7");
        let answer = self.stdio(&string_id).await;
        self.expect_error(
            rules::UNKNOWN_METHOD,
            "unknown/method with id \"7\"",
            &string_id,
            answer.as_ref(),
            -32601,
        );
        let initialize = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "mcp-era-testing", "version": "1"},
        });
        let removed = [
            ("ping", json!({})),
            ("initialize", initialize),
            ("logging/setLevel", json!({"level": "info"})),
            ("resources/subscribe", json!({"uri": MISSING_URI})),
            ("resources/unsubscribe", json!({"uri": MISSING_URI})),
        ];
        for (method, params) in removed {
            let sent = self.request(method, params);
            let answer = self.stdio(&sent).await;
            let what = format!("{method} with modern _meta");
            self.expect_error(
                rules::REMOVED_METHODS,
                &what,
                &sent,
                answer.as_ref(),
                -32601,
            );
            let http = self.http(&sent, raw::headers_for(&sent)).await;
            self.expect_http(rules::REMOVED_METHODS, &what, &sent, &http, -32601, 404);
        }
    }

    /// Bad envelopes and bad JSON.
    async fn envelopes(&mut self) {
        let good = self.request(DISCOVER, json!({}));
        let mut cases: Vec<(&str, Value)> = Vec::new();
        for (what, id) in [
            ("an object id", json!({"a": 1})),
            ("a fractional id", json!(1.5)),
            ("a null id", Value::Null),
        ] {
            let mut sent = good.clone();
            sent["id"] = id;
            cases.push((what, sent));
        }
        let mut no_jsonrpc = good.clone();
        if let Some(m) = no_jsonrpc.as_object_mut() {
            m.remove("jsonrpc");
        }
        cases.push(("no jsonrpc", no_jsonrpc));
        cases.push(("a batch array", json!([good.clone()])));
        for (what, sent) in cases {
            let rule = rules::INVALID_REQUEST;
            let answer = self.stdio(&sent).await;
            // The id of a bad envelope may be unreadable: only the code counts.
            self.checking(rule);
            if error_code(answer.as_ref()) != Some(-32600) {
                self.fail(
                    rule,
                    format!(
                        "{what}: expected error -32600, got {}",
                        short(answer.as_ref())
                    ),
                );
            }
            let http = self.http(&sent, raw::headers_for(&good)).await;
            if http.error_code() != Some(-32600) || http.status != 400 {
                self.fail(
                    rule,
                    format!(
                        "{what} (HTTP): expected 400 with -32600, got HTTP {} {}",
                        http.status,
                        short(http.body.as_ref())
                    ),
                );
            }
        }
        let rule = rules::PARSE_ERROR;
        self.checking(rule);
        let garbage = b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ";
        let answer = raw::bytes(self.server, garbage, &MessageContext::stdio()).await;
        let id_less = |a: &Value| a.get("id").is_none_or(Value::is_null);
        if error_code(answer.as_ref()) != Some(-32700) || !answer.as_ref().is_some_and(id_less) {
            self.fail(
                rule,
                format!(
                    "truncated JSON: expected -32700 without id, got {}",
                    short(answer.as_ref())
                ),
            );
        }
        let http = raw::http_bytes(self.server, garbage, raw::headers_for(&good)).await;
        if http.error_code() != Some(-32700) || http.status != 400 {
            self.fail(
                rule,
                format!(
                    "truncated JSON (HTTP): expected 400 with -32700, got HTTP {} {}",
                    http.status,
                    short(http.body.as_ref())
                ),
            );
        }
    }

    async fn notifications(&mut self) {
        let rule = rules::NOTIFICATIONS_UNANSWERED;
        self.checking(rule);
        let notes = [
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 424242}}),
            json!({"jsonrpc": "2.0", "method": "notifications/mcp-era-testing/unknown", "params": {}}),
        ];
        for note in notes {
            let method = note["method"].as_str().unwrap_or_default().to_owned();
            if let Some(answer) = self.stdio(&note).await {
                self.fail(
                    rule,
                    format!("{method} was answered: {}", short(Some(&answer))),
                );
            }
            let http = self.http(&note, HttpHeaders::default()).await;
            if http.body.is_some() || !(http.status == 202 || (400..500).contains(&http.status)) {
                self.fail(
                    rule,
                    format!(
                        "{method} (HTTP): HTTP {} {}",
                        http.status,
                        short(http.body.as_ref())
                    ),
                );
            }
        }
    }

    async fn http_headers(&mut self) {
        let rule = rules::HTTP_HEADERS;
        let sent = self.request(DISCOVER, json!({}));
        let good = raw::headers_for(&sent);
        let ok = self.http(&sent, good.clone()).await;
        self.checking(rule);
        if ok.status != 200 || ok.body.as_ref().and_then(|b| b.get("result")).is_none() {
            self.fail(
                rule,
                format!(
                    "server/discover with correct headers: HTTP {} {}",
                    ok.status,
                    short(ok.body.as_ref())
                ),
            );
        }
        let cases = [
            (
                "no MCP-Protocol-Version header",
                HttpHeaders {
                    protocol_version: None,
                    ..good.clone()
                },
            ),
            (
                "MCP-Protocol-Version other than _meta's",
                HttpHeaders {
                    protocol_version: Some(UNKNOWN_VERSION.into()),
                    ..good.clone()
                },
            ),
            (
                "no Mcp-Method header",
                HttpHeaders {
                    method: Some(None),
                    ..good.clone()
                },
            ),
            (
                "Mcp-Method tools/list on server/discover",
                HttpHeaders {
                    method: Some(Some("tools/list".into())),
                    ..good.clone()
                },
            ),
            (
                "Mcp-Method SERVER/DISCOVER",
                HttpHeaders {
                    method: Some(Some("SERVER/DISCOVER".into())),
                    ..good.clone()
                },
            ),
        ];
        for (what, headers) in cases {
            let answer = self.http(&sent, headers).await;
            self.expect_http(rule, what, &sent, &answer, -32020, 400);
        }
    }

    /// Declared ⇔ served.
    async fn capabilities(&mut self, has: &dyn Fn(&str) -> bool) {
        let rule = rules::CAPABILITIES_TRUTHFUL;
        self.checking(rule);
        for (method, capability) in [
            ("tools/list", "tools"),
            ("resources/list", "resources"),
            ("prompts/list", "prompts"),
        ] {
            let sent = self.request(method, json!({}));
            let answer = self.stdio(&sent).await;
            let served = answer.as_ref().and_then(|a| a.get("result")).is_some();
            if has(capability) && !served {
                self.fail(
                    rule,
                    format!(
                        "`{capability}` is declared but {method} answers {}",
                        short(answer.as_ref())
                    ),
                );
            } else if !has(capability) {
                let what = format!("`{capability}` is not declared: {method}");
                self.expect_error(rule, &what, &sent, answer.as_ref(), -32601);
            }
        }
        if !has("completions") {
            let sent = self.request(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": MISSING_NAME}, "argument": {"name": "a", "value": ""}}),
            );
            let answer = self.stdio(&sent).await;
            self.expect_error(
                rule,
                "`completions` is not declared: completion/complete",
                &sent,
                answer.as_ref(),
                -32601,
            );
        }
    }

    /// Every page of a list: hints, cursors, scope; then a bad cursor. Returns the items, or `None` when the
    /// first page fails.
    async fn list(&mut self, method: &str, items: &str) -> Option<Vec<Value>> {
        let rule = rules::PAGINATION;
        self.checking(rule);
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = BTreeSet::new();
        let mut scope: Option<Value> = None;
        for page in 1..=MAX_PAGES {
            let params = cursor
                .as_ref()
                .map_or_else(|| json!({}), |c| json!({"cursor": c}));
            let sent = self.request(method, params);
            let answer = self.stdio(&sent).await;
            let what = format!("{method} page {page}");
            if page == 1 && answer.as_ref().and_then(|a| a.get("result")).is_none() {
                return None;
            }
            let Some(result) =
                self.expect_result(rules::CAPABILITIES_TRUTHFUL, &what, answer.as_ref())
            else {
                return Some(all);
            };
            let result = result.clone();
            self.result_basics(&what, &result, true);
            match (&scope, result.get("cacheScope")) {
                (None, s) => scope = s.cloned(),
                (Some(first), Some(s)) if first != s => {
                    self.fail(
                        rule,
                        format!("{what}: cacheScope {s}, the first page said {first}"),
                    );
                }
                _ => {}
            }
            match result.get(items).and_then(Value::as_array) {
                Some(found) => all.extend(found.iter().cloned()),
                None => self.fail(
                    rules::CAPABILITIES_TRUTHFUL,
                    format!("{what}: no `{items}` array"),
                ),
            }
            match result.get("nextCursor") {
                None | Some(Value::Null) => break,
                Some(Value::String(next)) if seen.insert(next.clone()) => {
                    cursor = Some(next.clone())
                }
                Some(other) => {
                    self.fail(
                        rule,
                        format!("{what}: nextCursor {other} repeats or is not a string"),
                    );
                    break;
                }
            }
            if page == MAX_PAGES {
                self.fail(rule, format!("{method}: more than {MAX_PAGES} pages"));
            }
        }
        {
            let sent = self.request(method, json!({"cursor": BAD_CURSOR}));
            let answer = self.stdio(&sent).await;
            self.expect_error(
                rule,
                &format!("{method} with an invalid cursor"),
                &sent,
                answer.as_ref(),
                -32602,
            );
        }
        Some(all)
    }

    /// A complete `resources/read` of the first listed resource carries hints.
    async fn read_first(&mut self, resources: &[Value]) {
        let Some(uri) = resources
            .first()
            .and_then(|r| r.get("uri"))
            .and_then(Value::as_str)
        else {
            return;
        };
        let sent = self.request("resources/read", json!({"uri": uri}));
        let answer = self.stdio(&sent).await;
        let result = answer.as_ref().and_then(|a| a.get("result"));
        // An input_required answer has no hints; an error is the handler's business.
        if let Some(result) =
            result.filter(|r| r.get("resultType").and_then(Value::as_str) == Some("complete"))
        {
            self.cache_hints(&format!("resources/read {uri}"), result);
        }
    }

    /// Names, schemas, `x-mcp-header`, and an unknown tool.
    async fn tools(&mut self, tools: &[Value]) {
        let mut names = BTreeSet::new();
        self.checking(rules::TOOL_NAMES);
        self.checking(rules::TOOL_SCHEMAS);
        self.checking(rules::X_MCP_HEADER);
        let mut annotated: Option<(String, String, String, Value)> = None;
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                self.fail(
                    rules::TOOL_NAMES,
                    format!("a tool without a string name: {}", short(Some(tool))),
                );
                continue;
            };
            if !valid_tool_name(name) {
                self.fail(rules::TOOL_NAMES, format!("tool name `{name}`"));
            }
            if !names.insert(name.to_owned()) {
                self.fail(
                    rules::TOOL_NAMES,
                    format!("tool name `{name}` is listed twice"),
                );
            }
            for key in ["inputSchema", "outputSchema"] {
                let schema = tool.get(key);
                if key == "outputSchema" && schema.is_none() {
                    continue;
                }
                if let Err(problem) = object_schema(schema, key == "inputSchema") {
                    self.fail(
                        rules::TOOL_SCHEMAS,
                        format!("tool `{name}`: {key} {problem}"),
                    );
                }
            }
            match param_headers(tool.get("inputSchema")) {
                Err(problem) => self.fail(rules::X_MCP_HEADER, format!("tool `{name}`: {problem}")),
                Ok(found) => {
                    if annotated.is_none()
                        && let Some((argument, header, value)) = found.into_iter().next()
                    {
                        annotated = Some((name.to_owned(), argument, header, value));
                    }
                }
            }
        }
        if let Some((tool, argument, header, value)) = annotated {
            let sent = self.request(
                "tools/call",
                json!({"name": tool, "arguments": {argument.clone(): value}}),
            );
            let answer = self.http(&sent, raw::headers_for(&sent)).await;
            let what = format!("tools/call `{tool}` with `{argument}` but no Mcp-Param-{header}");
            self.expect_http(rules::X_MCP_HEADER, &what, &sent, &answer, -32020, 400);
        }
        let mut unknown = MISSING_NAME.to_owned();
        while names.contains(&unknown) {
            unknown.push('x');
        }
        let sent = self.request("tools/call", json!({"name": unknown, "arguments": {}}));
        let answer = self.stdio(&sent).await;
        self.expect_error(
            rules::UNKNOWN_TOOL_OR_PROMPT,
            "tools/call of an unknown tool",
            &sent,
            answer.as_ref(),
            -32602,
        );
        let no_name = HttpHeaders {
            name: None,
            ..raw::headers_for(&sent)
        };
        let answer = self.http(&sent, no_name).await;
        self.expect_http(
            rules::HTTP_HEADERS,
            "tools/call without Mcp-Name",
            &sent,
            &answer,
            -32020,
            400,
        );
    }

    async fn unknown_prompt(&mut self) {
        let sent = self.request("prompts/get", json!({"name": MISSING_NAME}));
        let answer = self.stdio(&sent).await;
        self.expect_error(
            rules::UNKNOWN_TOOL_OR_PROMPT,
            "prompts/get of an unknown prompt",
            &sent,
            answer.as_ref(),
            -32602,
        );
    }

    async fn missing_resource(&mut self) {
        let rule = rules::RESOURCE_NOT_FOUND;
        self.checking(rule);
        let sent = self.request("resources/read", json!({"uri": MISSING_URI}));
        let answer = self.stdio(&sent).await;
        // A catch-all template may serve any URI: only an error is judged.
        if error_code(answer.as_ref()).is_some() {
            self.expect_error(
                rule,
                &format!("resources/read {MISSING_URI}"),
                &sent,
                answer.as_ref(),
                -32602,
            );
        }
    }

    /// Sends `method` inside a fresh legacy session of the newest legacy
    /// version; `None` for a modern-only server.
    async fn legacy(
        &mut self,
        legacy_versions: &[&str],
        method: &str,
        params: Value,
    ) -> Option<(Value, Option<Value>)> {
        let version = legacy_versions.first()?;
        let session = LegacySession::new(
            (*version).to_owned(),
            json!({}),
            json!({"name": "mcp-era-testing", "version": "1"}),
        );
        let ctx = MessageContext::stdio().with_legacy_session(session);
        let id = self.id();
        let sent = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let answer = raw::bytes(
            self.server,
            &serde_json::to_vec(&sent).unwrap_or_default(),
            &ctx,
        )
        .await;
        Some((sent, answer))
    }

    /// A legacy `tools/list` follows the 2025-11-25 schema: object-rooted
    /// input and output schemas.
    async fn legacy_tools(&mut self, legacy_versions: &[&str]) {
        let rule = rules::TOOL_SCHEMAS;
        let Some((_, answer)) = self.legacy(legacy_versions, "tools/list", json!({})).await else {
            return;
        };
        let Some(result) = self.expect_result(
            rules::CAPABILITIES_TRUTHFUL,
            "legacy tools/list",
            answer.as_ref(),
        ) else {
            return;
        };
        let tools = result
            .get("tools")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for tool in tools {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
            for key in ["inputSchema", "outputSchema"] {
                let schema = tool.get(key);
                if key == "outputSchema" && schema.is_none() {
                    continue;
                }
                if let Err(problem) = object_schema(schema, true) {
                    self.fail(
                        rule,
                        format!("legacy tools/list, tool `{name}`: {key} {problem}"),
                    );
                }
            }
        }
    }

    async fn legacy_missing_resource(&mut self, legacy_versions: &[&str]) {
        let rule = rules::LEGACY_RESOURCE_NOT_FOUND;
        self.checking(rule);
        let params = json!({"uri": MISSING_URI});
        let Some((sent, answer)) = self.legacy(legacy_versions, "resources/read", params).await
        else {
            return;
        };
        if error_code(answer.as_ref()).is_some() {
            let what = format!("legacy resources/read {MISSING_URI}");
            self.expect_error(rule, &what, &sent, answer.as_ref(), -32002);
        }
    }

    fn initialize(&mut self, version: &str) -> Value {
        let id = self.id();
        json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "mcp-era-testing", "version": "1"},
        }})
    }

    async fn legacy_initialize(&mut self, legacy_versions: &[&str], modern: &[String]) {
        let rule = rules::LEGACY_INITIALIZE;
        self.checking(rule);
        let mut asked: Vec<&str> = legacy_versions.to_vec();
        asked.extend(["2026-07-28", "2099-01-01"]);
        for requested in asked {
            let sent = self.initialize(requested);
            let answer = self.stdio(&sent).await;
            let what = format!("initialize requesting {requested}");
            let Some(result) = self.expect_result(rule, &what, answer.as_ref()) else {
                continue;
            };
            let agreed = result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let expected = if legacy_versions.contains(&requested) {
                Some(requested)
            } else {
                None
            };
            if modern.iter().any(|m| m == agreed) || agreed == raw::MODERN_VERSION {
                self.fail(rule, format!("{what}: agreed to modern version {agreed}"));
            } else if let Some(expected) = expected.filter(|e| *e != agreed) {
                self.fail(
                    rule,
                    format!("{what}: agreed to {agreed}, not the requested {expected}"),
                );
            } else if !legacy_versions.contains(&agreed) {
                self.fail(
                    rule,
                    format!("{what}: agreed to {agreed}, which the server does not declare"),
                );
            }
            let info = result.get("serverInfo");
            if !info.is_some_and(|i| {
                i.get("name").is_some_and(Value::is_string)
                    && i.get("version").is_some_and(Value::is_string)
            }) {
                self.fail(rule, format!("{what}: serverInfo is {}", short(info)));
            }
            if !result.get("capabilities").is_some_and(Value::is_object) {
                self.fail(
                    rule,
                    format!(
                        "{what}: capabilities is {}",
                        short(result.get("capabilities"))
                    ),
                );
            }
        }
    }

    async fn modern_only_initialize(&mut self, supported: &[String]) {
        let rule = rules::MODERN_ONLY_INITIALIZE;
        self.checking(rule);
        let sent = self.initialize("2025-11-25");
        let answer = self.stdio(&sent).await;
        self.named_versions(&sent, answer.as_ref(), supported, "initialize");
        let http = self.http(&sent, HttpHeaders::default()).await;
        self.named_versions(
            &sent,
            http.body.as_ref(),
            supported,
            "initialize (HTTP, no headers)",
        );
        if http.status != 400 || http.error_code() != Some(-32020) {
            self.fail(
                rule,
                format!(
                    "initialize (HTTP, no headers): expected 400 with -32020, got HTTP {} {}",
                    http.status,
                    short(http.body.as_ref())
                ),
            );
        }
    }

    fn named_versions(
        &mut self,
        sent: &Value,
        answer: Option<&Value>,
        supported: &[String],
        what: &str,
    ) {
        let rule = rules::MODERN_ONLY_INITIALIZE;
        let Some(error) = answer.and_then(|a| a.get("error")) else {
            self.fail(
                rule,
                format!("{what}: expected an error, got {}", short(answer)),
            );
            return;
        };
        self.echoes_id(what, sent, answer);
        let listed: Vec<&str> = error
            .pointer("/data/supported")
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if listed.is_empty() || !supported.iter().all(|v| listed.contains(&v.as_str())) {
            self.fail(
                rule,
                format!("{what}: data.supported is {listed:?}, discover lists {supported:?}"),
            );
        }
    }
}

/// The tools spec's name rule: 1 to 128 characters of `A-Z a-z 0-9 _ - .`.
pub(crate) fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// What is wrong with a tool's input or output schema, if anything. An
/// input schema (and a 2025-11-25 output schema) must have
/// `"type": "object"` at the root (`object_root`); a 2026-07-28
/// `outputSchema` may be any JSON Schema.
fn object_schema(schema: Option<&Value>, object_root: bool) -> Result<(), String> {
    let Some(Value::Object(schema)) = schema else {
        return Err(format!("is {}, not an object", short(schema)));
    };
    if object_root && schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(format!(
            "has type {}, not \"object\"",
            short(schema.get("type"))
        ));
    }
    if schema.get("properties").is_some_and(|p| !p.is_object()) {
        return Err(format!(
            "has properties {}",
            short(schema.get("properties"))
        ));
    }
    let strings = |r: &Value| r.as_array().is_some_and(|l| l.iter().all(Value::is_string));
    if schema.get("required").is_some_and(|r| !strings(r)) {
        return Err(format!("has required {}", short(schema.get("required"))));
    }
    Ok(())
}

/// The `x-mcp-header` annotations of an input schema as (argument, header,
/// a sample value of the property's type), or what is wrong with them.
fn param_headers(schema: Option<&Value>) -> Result<Vec<(String, String, Value)>, String> {
    let Some(Value::Object(properties)) = schema.and_then(|s| s.get("properties")) else {
        return Ok(Vec::new());
    };
    let mut found: Vec<(String, String, Value)> = Vec::new();
    for (argument, property) in properties {
        let Some(header) = property.get("x-mcp-header") else {
            continue;
        };
        let token = |h: &str| {
            !h.is_empty()
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
        };
        let Some(header) = header.as_str().filter(|h| token(h)) else {
            return Err(format!(
                "argument `{argument}`: x-mcp-header {header} is not a header name token"
            ));
        };
        let sample = |t: &str| match t {
            "string" => Some(json!("mcp-era-testing")),
            "integer" => Some(json!(1)),
            "boolean" => Some(json!(true)),
            _ => None,
        };
        let types: Vec<&str> = match property.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let primitive = mcp_era_server::mcp_era_types::headers::mirrorable_type(property);
        let Some(value) = types.iter().find_map(|t| sample(t)).filter(|_| primitive) else {
            return Err(format!(
                "argument `{argument}`: x-mcp-header on a property of type {}",
                short(property.get("type"))
            ));
        };
        let lower = header.to_ascii_lowercase();
        if found.iter().any(|(_, h, _)| h.eq_ignore_ascii_case(&lower)) {
            return Err(format!(
                "x-mcp-header `{header}` is used twice (names are case-insensitive)"
            ));
        }
        found.push((argument.clone(), lower, value));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_follow_the_spec() {
        assert!(valid_tool_name("get_weather.v2-beta"));
        assert!(!valid_tool_name(""));
        assert!(!valid_tool_name("has space"));
        assert!(!valid_tool_name("ünï"));
        assert!(!valid_tool_name(&"a".repeat(129)));
    }

    #[test]
    fn schemas_must_be_object_schemas() {
        assert!(object_schema(Some(&json!({"type": "object"})), true).is_ok());
        assert!(object_schema(Some(&json!({"type": "string"})), true).is_err());
        assert!(object_schema(Some(&json!({"type": "array"})), false).is_ok());
        assert!(object_schema(Some(&json!({"type": "object", "properties": []})), true).is_err());
        assert!(object_schema(Some(&json!({"type": "object", "required": [1]})), true).is_err());
        assert!(object_schema(Some(&json!(true)), false).is_err());
        assert!(object_schema(None, true).is_err());
    }

    #[test]
    fn header_annotations_are_checked() {
        let ok = json!({"properties": {"r": {"type": "string", "x-mcp-header": "Region"}}});
        assert_eq!(param_headers(Some(&ok)).map(|f| f.len()), Ok(1));
        for bad in [
            json!({"properties": {"r": {"type": "object", "x-mcp-header": "R"}}}),
            json!({"properties": {"r": {"type": "string", "x-mcp-header": "A B"}}}),
            json!({"properties": {"r": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}}),
        ] {
            assert!(param_headers(Some(&bad)).is_err(), "{bad}");
        }
    }
}

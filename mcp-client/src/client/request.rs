//! A request's whole life: its timeout, the era repairs (a wrong cached era
//! re-probed, an expired legacy session renewed), MRTR `input_required`
//! rounds answered through the handler, and the `x-mcp-header`
//! annotations learned from `tools/list`.

use std::time::Duration;

use mcp_era_types::v2026_07_28::{self as modern, methods};
use mcp_era_types::versions::Era;
use serde_json::{Map, Value, json};

use super::connect::assumption_failed;
use super::options::EraMode;
use super::{Client, Conn, lock};
use crate::error::{Error, Result};
use crate::headers;

/// The methods whose result may be `input_required` (MRTR).
const INPUT_METHODS: [&str; 3] = [
    methods::TOOLS_CALL,
    methods::PROMPTS_GET,
    methods::RESOURCES_READ,
];

impl Client {
    async fn request_once(&self, method: &str, params: Value, timeout: Duration) -> Result<Value> {
        let (era, version) = {
            let st = self.state();
            (st.era, st.version.clone())
        };
        match era {
            Era::Modern => {
                self.modern_request_with(method, params, version, true, timeout)
                    .await
            }
            Era::Legacy => {
                let x = self
                    .exchange(method, params, None, timeout, Vec::new())
                    .await?;
                self.reply(method, x)?.map_err(|error| Error::Rpc {
                    method: method.to_owned(),
                    error,
                })
            }
        }
    }

    /// One request with the era-repair rules, without MRTR.
    async fn request_plain(&self, method: &str, params: Value, timeout: Duration) -> Result<Value> {
        match self.request_once(method, params.clone(), timeout).await {
            Err(e) if self.era_from_cache() && assumption_failed(&e) => {
                // The cached era was wrong (the server changed): probe again, once.
                {
                    let _one = self.inner.reconnect.lock().await;
                    if self.era_from_cache() {
                        self.forget_cached_era();
                        self.probe(self.opts().era == EraMode::Modern).await?;
                    }
                }
                self.request_once(method, params, timeout).await
            }
            Err(Error::Http {
                status: Some(404), ..
            }) if self.era() == Era::Legacy && self.session_id().is_some() => {
                // The legacy session expired: start a new one and retry once.
                {
                    let _one = self.inner.reconnect.lock().await;
                    self.initialize().await?;
                }
                self.request_once(method, params, timeout).await
            }
            other => other,
        }
    }

    /// Sends any request and returns its `result`. In the modern era
    /// `params` gets the `_meta` envelope (keys you set in `params._meta`
    /// are kept, the required ones are ours); an `input_required` result is
    /// answered through the handler and the request retried until complete.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value> {
        self.request_with_timeout(method, params, self.request_timeout())
            .await
    }

    /// [`request`](Self::request) with its own timeout (per round trip).
    pub async fn request_with_timeout(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value> {
        self.request_rounds(method, params, timeout, true).await
    }

    /// [`request`](Self::request), but an `input_required` result is
    /// returned as it came (its `requestState` checked against
    /// [`max_request_state_bytes`](crate::ClientOptions::max_request_state_bytes)):
    /// for a proxy that hands a modern server's input rounds to its own
    /// client, who answers by sending the request again with
    /// `inputResponses` and that `requestState` (kept in `params`).
    pub async fn request_one_round(&self, method: &str, params: Value) -> Result<Value> {
        let result = self
            .request_rounds(method, params, self.request_timeout(), false)
            .await?;
        if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
            self.check_request_state(method, &result)?;
        }
        Ok(result)
    }

    async fn request_rounds(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        answer_input: bool,
    ) -> Result<Value> {
        let modern = self.era() == Era::Modern;
        let outcome = if answer_input && modern && INPUT_METHODS.contains(&method) {
            self.request_answering_input(method, params.clone(), timeout)
                .await
        } else {
            self.request_plain(method, params.clone(), timeout).await
        };
        let mut result = match outcome {
            // A tool called before any tools/list: its Mcp-Param-* headers
            // were unknown. Learn them from the list and try once more.
            Err(Error::Rpc { error, .. })
                if modern
                    && method == methods::TOOLS_CALL
                    && error.code == modern::error_codes::HEADER_MISMATCH_ERROR
                    && matches!(self.inner.conn, Conn::Http(_))
                    && !self.knows_tool_headers(&params) =>
            {
                self.learn_tool_headers(timeout).await?;
                if answer_input {
                    self.request_answering_input(method, params, timeout)
                        .await?
                } else {
                    self.request_plain(method, params, timeout).await?
                }
            }
            other => other?,
        };
        if method == methods::TOOLS_LIST && modern {
            self.screen_tools(&mut result);
        }
        Ok(result)
    }

    /// MRTR: answers `inputRequests` and retries with `inputResponses` (and
    /// the `requestState` exactly as received) under a new id.
    async fn request_answering_input(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value> {
        let mut attempt = params.clone();
        let mut rounds = 0;
        loop {
            let result = self.request_plain(method, attempt, timeout).await?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            if rounds >= self.opts().max_input_rounds {
                return Err(Error::TooManyInputRounds {
                    method: method.to_owned(),
                    rounds,
                });
            }
            rounds += 1;
            // Checked before anyone is asked: it would go back with the answers.
            self.check_request_state(method, &result)?;
            let empty = Map::new();
            let requests = result
                .get("inputRequests")
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            let responses = self.answer_inputs(method, requests).await?;
            // Each retry is the original request plus this round's answers.
            let mut next = match &params {
                Value::Object(m) => m.clone(),
                _ => Map::new(),
            };
            next.insert("inputResponses".into(), Value::Object(responses));
            if let Some(state) = result.get("requestState") {
                next.insert("requestState".into(), state.clone());
            }
            attempt = Value::Object(next);
        }
    }

    /// Refuses an `input_required` result whose `requestState` is over
    /// [`ClientOptions::max_request_state_bytes`](crate::ClientOptions::max_request_state_bytes).
    fn check_request_state(&self, method: &str, result: &Value) -> Result<()> {
        let bytes = match result.get("requestState") {
            None => return Ok(()),
            Some(Value::String(state)) => state.len(),
            Some(other) => other.to_string().len(),
        };
        let limit = self.opts().max_request_state_bytes;
        if bytes > limit {
            return Err(Error::RequestStateTooLarge {
                method: method.to_owned(),
                bytes,
                limit,
            });
        }
        Ok(())
    }

    /// Answers input requests (`{key: {method, params}}`) through the
    /// handler: MRTR rounds and task `input_required` rounds alike.
    pub(super) async fn answer_inputs(
        &self,
        method: &str,
        requests: &Map<String, Value>,
    ) -> Result<Map<String, Value>> {
        let mut responses = Map::new();
        for (key, request) in requests {
            let input = request
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let input_params = request.get("params").cloned().unwrap_or_else(|| json!({}));
            if !self.inner.responder.declares(input, &input_params) {
                return Err(Error::UndeclaredInput {
                    method: method.to_owned(),
                    input: input.to_owned(),
                });
            }
            let answer = self
                .inner
                .responder
                .answer(input, input_params)
                .await
                .map_err(|error| Error::Handler {
                    method: method.to_owned(),
                    error,
                })?;
            responses.insert(key.clone(), answer);
        }
        Ok(responses)
    }

    pub(super) fn max_input_rounds(&self) -> usize {
        self.opts().max_input_rounds
    }

    /// Reads every `tools/list` page for the tools' `x-mcp-header` annotations.
    async fn learn_tool_headers(&self, timeout: Duration) -> Result<()> {
        let mut cursor: Option<String> = None;
        for _ in 0..self.opts().max_pages.max(1) {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let mut page = self
                .request_plain(methods::TOOLS_LIST, params, timeout)
                .await?;
            self.screen_tools(&mut page);
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if cursor.as_deref() != Some(next) => cursor = Some(next.to_owned()),
                _ => break,
            }
        }
        Ok(())
    }

    /// Whether the `x-mcp-header` annotations of the tool `params` call are known.
    fn knows_tool_headers(&self, params: &Value) -> bool {
        params
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(|name| lock(&self.inner.tool_headers).contains_key(name))
    }

    /// Drops tools whose `x-mcp-header` annotations are invalid (with a
    /// warning) and remembers the annotations of the others.
    fn screen_tools(&self, result: &mut Value) {
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
            return;
        };
        let mut table = lock(&self.inner.tool_headers);
        tools.retain(|tool| {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            match headers::tool_param_headers(tool) {
                Ok(annotations) => {
                    table.insert(name.to_owned(), annotations);
                    true
                }
                Err(why) => {
                    tracing::warn!(
                        tool = name,
                        "tool excluded: invalid x-mcp-header annotation: {why}"
                    );
                    table.remove(name);
                    false
                }
            }
        });
    }
}

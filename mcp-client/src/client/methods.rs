//! The typed methods: one for each request a user makes (`list_tools`,
//! `call_tool` with its transparent task wait, `read_resource`, …), list
//! methods that follow every page and reuse a fresh cached list,
//! `discover`, and `subscribe`.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::Ordering;
use std::time::Duration;

use mcp_era_types::v2025_11_25 as legacy;
use mcp_era_types::v2026_07_28::{self as modern, DiscoverResult, methods};
use mcp_era_types::versions::Era;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::exchange::{parse, to_value, with_meta};
use super::tasks::{TaskHandle, is_create_task_result};
use super::{ByEra, Client, Conn};
use crate::cache::normalise_discover;
use crate::error::{Error, Result};
use crate::headers;
use crate::negotiate::split_response;
use crate::subscription::Subscription;

impl Client {
    /// Lists tools (one page). Tools with invalid `x-mcp-header`
    /// annotations are left out (modern servers).
    pub async fn list_tools(
        &self,
        cursor: Option<&str>,
    ) -> Result<ByEra<modern::ListToolsResult, legacy::ListToolsResult>> {
        let params = match cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let result = self.request(methods::TOOLS_LIST, params).await?;
        self.typed(methods::TOOLS_LIST, result)
    }

    /// Lists every tool, following `nextCursor` like
    /// [`list_resources`](Self::list_resources).
    pub async fn list_all_tools(
        &self,
    ) -> Result<ByEra<modern::ListToolsResult, legacy::ListToolsResult>> {
        let result = self.list_all(methods::TOOLS_LIST, "tools").await?;
        self.typed(methods::TOOLS_LIST, result)
    }

    /// Calls a tool. With
    /// [`ClientOptions::tasks`](crate::ClientOptions::tasks) set the server
    /// may make the call a task: it is then polled until it ends (see
    /// [`TaskHandle::wait`](crate::tasks::TaskHandle::wait)) and its result
    /// returned; [`call_tool_as_task`](Self::call_tool_as_task) gives the
    /// handle instead.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<ByEra<modern::CallToolResultResponseResult, legacy::CallToolResult>> {
        let result = self
            .request(
                methods::TOOLS_CALL,
                json!({"name": name, "arguments": arguments}),
            )
            .await?;
        if self.era() == Era::Modern && is_create_task_result(&result) {
            let created = parse(methods::TOOLS_CALL, result)?;
            let done = TaskHandle::new(self.clone(), created).wait().await?;
            return Ok(ByEra::Modern(
                modern::CallToolResultResponseResult::CallToolResult(done),
            ));
        }
        self.typed(methods::TOOLS_CALL, result)
    }

    /// Lists every resource, following `nextCursor` (at most
    /// [`ClientOptions::max_pages`](crate::ClientOptions::max_pages) pages).
    /// The result holds all pages' resources and no `nextCursor`. A fresh cached list (by `ttlMs`,
    /// dropped on `notifications/resources/list_changed`) is reused.
    pub async fn list_resources(
        &self,
    ) -> Result<ByEra<modern::ListResourcesResult, legacy::ListResourcesResult>> {
        let result = self.list_all(methods::RESOURCES_LIST, "resources").await?;
        self.typed(methods::RESOURCES_LIST, result)
    }

    /// Lists every resource template, following `nextCursor` like
    /// [`list_resources`](Self::list_resources).
    pub async fn list_resource_templates(
        &self,
    ) -> Result<ByEra<modern::ListResourceTemplatesResult, legacy::ListResourceTemplatesResult>>
    {
        let result = self
            .list_all(methods::RESOURCES_TEMPLATES_LIST, "resourceTemplates")
            .await?;
        self.typed(methods::RESOURCES_TEMPLATES_LIST, result)
    }

    /// Reads a resource. A missing one is an [`Error::Rpc`] (`-32602` with
    /// `data.uri` from a modern server, `-32002` from a legacy one).
    pub async fn read_resource(
        &self,
        uri: &str,
    ) -> Result<ByEra<modern::ReadResourceResultResponseResult, legacy::ReadResourceResult>> {
        let result = self
            .request(methods::RESOURCES_READ, json!({"uri": uri}))
            .await?;
        self.typed(methods::RESOURCES_READ, result)
    }

    /// Lists every prompt, following `nextCursor` like
    /// [`list_resources`](Self::list_resources).
    pub async fn list_prompts(
        &self,
    ) -> Result<ByEra<modern::ListPromptsResult, legacy::ListPromptsResult>> {
        let result = self.list_all(methods::PROMPTS_LIST, "prompts").await?;
        self.typed(methods::PROMPTS_LIST, result)
    }

    /// Gets a prompt, filled in with `arguments` (left out when empty).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<ByEra<modern::GetPromptResultResponseResult, legacy::GetPromptResult>> {
        let mut params = json!({"name": name});
        if !arguments.is_empty() {
            params["arguments"] = json!(arguments);
        }
        let result = self.request(methods::PROMPTS_GET, params).await?;
        self.typed(methods::PROMPTS_GET, result)
    }

    /// `completion/complete`: completions for argument `name` (typed so far:
    /// `value`) of `reference` (`{"type": "ref/prompt", "name": …}` or
    /// `{"type": "ref/resource", "uri": …}`), with the values of the other
    /// arguments in `context`.
    pub async fn complete(
        &self,
        reference: Value,
        name: &str,
        value: &str,
        context: BTreeMap<String, String>,
    ) -> Result<ByEra<modern::CompleteResult, legacy::CompleteResult>> {
        let mut params = json!({"ref": reference, "argument": {"name": name, "value": value}});
        if !context.is_empty() {
            params["context"] = json!({"arguments": context});
        }
        let result = self.request(methods::COMPLETION_COMPLETE, params).await?;
        self.typed(methods::COMPLETION_COMPLETE, result)
    }

    /// Fetches every page of a list method (`items` names the array member)
    /// and merges them into one result: the items appended, the shortest
    /// `ttlMs`, `"private"` if any page says so. A fresh cached one is reused. A repeated cursor
    /// or more than `max_pages` pages is an [`Error::InvalidResult`].
    pub async fn list_all(&self, method: &str, items: &str) -> Result<Value> {
        let modern = self.era() == Era::Modern;
        if modern
            && let Some(hit) =
                self.opts()
                    .cache
                    .list(&self.inner.server, self.inner.auth.as_ref(), method)
        {
            return Ok(hit);
        }
        // A list_changed during the fetch makes the merged list stale.
        let generation = self.inner.routes.generation();
        let invalid = |detail: String| Error::InvalidResult {
            method: method.to_owned(),
            detail,
        };
        let mut merged: Option<Map<String, Value>> = None;
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        for _ in 0..self.opts().max_pages.max(1) {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let Value::Object(mut page) = self.request(method, params).await? else {
                return Err(invalid("the result is not an object".into()));
            };
            let next = match page.remove("nextCursor") {
                None | Some(Value::Null) => None,
                Some(Value::String(c)) => Some(c),
                Some(other) => return Err(invalid(format!("`nextCursor` is {other}"))),
            };
            merged = Some(match merged {
                None => page,
                Some(mut all) => {
                    merge_page(&mut all, page, items);
                    all
                }
            });
            match next {
                None => {
                    let all = Value::Object(merged.unwrap_or_default());
                    if modern && self.inner.routes.generation() == generation {
                        self.opts().cache.store_list(
                            self.inner.server.clone(),
                            self.inner.auth.as_ref(),
                            method,
                            &all,
                        );
                    }
                    return Ok(all);
                }
                Some(c) if !seen.insert(c.clone()) => {
                    return Err(invalid(format!("the server repeated cursor `{c}`")));
                }
                Some(c) => cursor = Some(c),
            }
        }
        Err(invalid(format!(
            "more than {} pages (ClientOptions::max_pages)",
            self.opts().max_pages.max(1)
        )))
    }

    fn typed<M: DeserializeOwned, L: DeserializeOwned>(
        &self,
        method: &str,
        result: Value,
    ) -> Result<ByEra<M, L>> {
        Ok(match self.era() {
            Era::Modern => ByEra::Modern(parse(method, result)?),
            Era::Legacy => ByEra::Legacy(parse(method, result)?),
        })
    }

    /// Fetches `server/discover` again unless a fresh cached result exists
    /// (modern servers only; `None` for legacy ones).
    pub async fn discover(&self) -> Result<Option<DiscoverResult>> {
        if self.era() == Era::Legacy {
            return Ok(None);
        }
        let cache = &self.opts().cache;
        let result = match cache.discover(&self.inner.server, self.inner.auth.as_ref()) {
            Some(d) => d,
            None => {
                let mut raw = self.request(methods::SERVER_DISCOVER, json!({})).await?;
                normalise_discover(&mut raw);
                let d: DiscoverResult = parse(methods::SERVER_DISCOVER, raw)?;
                cache.store_discover(
                    self.inner.server.clone(),
                    self.inner.auth.as_ref(),
                    d.clone(),
                );
                d
            }
        };
        self.state().hello = ByEra::Modern(result.clone());
        Ok(Some(result))
    }

    /// Opens a stream of server notifications. Modern servers:
    /// `subscriptions/listen` with `filter`, returned once the server
    /// acknowledged it; every notification on it (list changes, resource
    /// updates) comes out of the stream, which ends when the server closes
    /// it. Dropping the [`Subscription`] ends the listen request. Legacy
    /// servers: the notifications the session sends anyway (`filter` is
    /// not sent). Either way a list-changed notification also drops the
    /// cached list.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_era_client::Client) -> Result<(), mcp_era_client::Error> {
    /// use mcp_era_client::mcp_era_types::v2026_07_28::SubscriptionFilter;
    ///
    /// let mut changes = client
    ///     .subscribe(SubscriptionFilter::new().with_tools_list_changed(true))
    ///     .await?;
    /// while let Some(note) = changes.next().await {
    ///     println!("{}", note.method);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn subscribe(&self, filter: modern::SubscriptionFilter) -> Result<Subscription> {
        if self.era() == Era::Legacy {
            // Unsolicited legacy notifications come on the session's GET stream.
            let sub = self.inner.routes.general();
            self.open_standalone_stream(false).await;
            return Ok(sub);
        }
        let version = self.state().version.clone();
        let id = json!(self.inner.next_id.fetch_add(1, Ordering::Relaxed) + 1);
        let params = with_meta(
            json!({"notifications": to_value(&filter)?}),
            self.meta(&version)?,
        );
        let message =
            json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params});
        let (tx, rx) = mpsc::unbounded_channel();
        let mut sub = match &self.inner.conn {
            Conn::Stdio(t) => {
                self.inner.routes.listen(&id, tx.clone());
                let t2 = t.clone();
                let (message2, routes) = (message.clone(), self.inner.routes.clone());
                // The listen request stays pending for the stream's life; its
                // response (the server closing it) ends the stream.
                let task = tokio::spawn(async move {
                    let forever = Duration::from_secs(100 * 365 * 24 * 3600);
                    if let Ok(response) = t2.request(&message2, forever).await {
                        let _ = tx.send(response);
                    }
                    routes.unlisten(&message2["id"]);
                });
                Subscription::new(rx, self.inner.routes.clone()).with_cancel(
                    id.clone(),
                    t.clone(),
                    task,
                )
            }
            Conn::Http(t) => {
                let h =
                    headers::standard_headers(&version, "subscriptions/listen", &message["params"]);
                let reply = t.post_streaming(&message, &h, tx).await?;
                if let Some(msg) = reply.message {
                    // Answered at once (an error): no stream.
                    if let Some(Err(error)) = split_response(&msg) {
                        return Err(Error::Rpc {
                            method: "subscriptions/listen".into(),
                            error,
                        });
                    }
                }
                if !(200..300).contains(&reply.status) {
                    return Err(Error::Http {
                        method: "subscriptions/listen".into(),
                        status: Some(reply.status),
                        detail: reply.body,
                    });
                }
                Subscription::new(rx, self.inner.routes.clone())
            }
        };
        sub.acknowledged(self.request_timeout()).await?;
        Ok(sub)
    }

    /// Every notification the server sends outside a listen stream (progress,
    /// logs, legacy list changes), from now on.
    pub fn notifications(&self) -> Subscription {
        self.inner.routes.general()
    }
}

/// Adds one page to the result so far: its `items` are appended; a modern
/// page's caching hints combine so the whole stays valid (the shortest
/// `ttlMs`, `"private"` if any page says so). Other members come from the
/// first page.
fn merge_page(all: &mut Map<String, Value>, page: Map<String, Value>, items: &str) {
    for (key, value) in page {
        match (key.as_str(), all.get_mut(&key), value) {
            (k, Some(Value::Array(so_far)), Value::Array(more)) if k == items => {
                so_far.extend(more);
            }
            ("ttlMs", Some(so_far), Value::Number(n)) => {
                if let (Some(a), Some(b)) = (so_far.as_u64(), n.as_u64()) {
                    *so_far = json!(a.min(b));
                }
            }
            ("cacheScope", Some(so_far), Value::String(scope)) if scope == "private" => {
                *so_far = json!(scope);
            }
            (_, None, value) => {
                all.insert(key, value);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_merge_items_and_the_strictest_caching_hints() {
        let mut all = json!({"resultType": "complete", "prompts": [{"name": "a"}], "ttlMs": 5000, "cacheScope": "public"});
        let Value::Object(all_map) = &mut all else {
            panic!()
        };
        let page = json!({"prompts": [{"name": "b"}], "ttlMs": 100, "cacheScope": "private", "_meta": {"x": 1}});
        let Value::Object(page) = page else { panic!() };
        merge_page(all_map, page, "prompts");
        assert_eq!(
            all,
            json!({"resultType": "complete", "prompts": [{"name": "a"}, {"name": "b"}],
                "ttlMs": 100, "cacheScope": "private", "_meta": {"x": 1}})
        );
    }
}

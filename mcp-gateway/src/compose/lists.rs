//! The merged lists: each member's list read (or taken from the
//! catalogue), its items named as the front names them, claimed, filtered,
//! sorted and paged.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::future::join_all;
use mcp_era_server::{HandlerResult, McpServer, RequestContext, errors};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::Composite;
use super::access;
use super::catalogue::Listing;
use super::kind::Kind;
use super::owners::Owners;
use super::skill_uris;

/// Pages read from one backend for one merged list, at most: a backend
/// whose cursors never end is cut off there.
const MOST_PAGES: usize = 1000;

impl Composite {
    /// Member `index`'s list `kind` as `ctx`'s client would get it: kept,
    /// or read (and kept when the member announces its changes).
    pub(super) async fn listing(
        &self,
        index: usize,
        kind: Kind,
        params: Value,
        ctx: &RequestContext,
    ) -> HandlerResult<Arc<Listing>> {
        if !self.announces_changes(index, kind) {
            return Ok(Arc::new(self.all_pages(index, kind, params, ctx).await?));
        }
        // Its backend session, and what a modern backend is told, follow
        // the principal and the client's declared capabilities.
        let audience = format!(
            "{:?} {}",
            access::principal_of(ctx),
            serde_json::to_string(ctx.client_capabilities()).unwrap_or_default()
        );
        let generation = match self.catalogue.get(index, kind, &audience) {
            Ok(kept) => return Ok(kept),
            Err(generation) => generation,
        };
        let listing = Arc::new(self.all_pages(index, kind, params, ctx).await?);
        self.catalogue
            .keep(index, kind, audience, generation, Arc::clone(&listing));
        Ok(listing)
    }

    /// Whether member `index` declares that it announces changes of its
    /// list `kind`.
    pub(super) fn announces_changes(&self, index: usize, kind: Kind) -> bool {
        let declaration = self.members[index].declaration();
        let capabilities = declaration.capabilities();
        let announced = match kind {
            Kind::Tools => capabilities.tools.as_ref().and_then(|c| c.list_changed),
            Kind::Prompts => capabilities.prompts.as_ref().and_then(|c| c.list_changed),
            Kind::Resources | Kind::Templates => {
                capabilities.resources.as_ref().and_then(|c| c.list_changed)
            }
            // Skill changes are announced as resource list changes, which
            // do not say whose: read afresh.
            Kind::Skills => None,
        };
        announced == Some(true)
    }

    /// Every item of member `index`'s list `kind`, page after page, asked
    /// with `params` (the client's, without its cursor), and the first
    /// page's result (its cache hints).
    pub(super) async fn all_pages(
        &self,
        index: usize,
        kind: Kind,
        mut params: Value,
        ctx: &RequestContext,
    ) -> HandlerResult<Listing> {
        let member = &self.members[index];
        let mut items = Vec::new();
        let mut first = None;
        for page_number in 1..=MOST_PAGES {
            let permit = self.permit(index).await?;
            let mut page: Value = member.forward(kind.method(), params.clone(), ctx).await?;
            drop(permit);
            if let Some(Value::Array(more)) = page.get_mut(kind.items()).map(Value::take) {
                items.extend(more);
            }
            let next = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            first.get_or_insert(page);
            match next {
                Some(_) if page_number == MOST_PAGES => {
                    tracing::warn!(backend = %self.composition.members[index].name, "{} gave more than {MOST_PAGES} pages", kind.method());
                }
                Some(cursor) => params["cursor"] = Value::String(cursor),
                None => break,
            }
        }
        Ok(Listing {
            items,
            first: first.unwrap_or_default(),
        })
    }

    /// One page of the merged list `kind`: every member's items under
    /// their front names, sorted, after the client's cursor.
    pub(super) async fn merged(
        &self,
        kind: Kind,
        mut params: Value,
        ctx: &RequestContext,
    ) -> HandlerResult<Value> {
        let after = match params.as_object_mut().and_then(|p| p.remove("cursor")) {
            None | Some(Value::Null) => None,
            Some(Value::String(cursor)) => Some(
                cursor
                    .strip_prefix("gw:")
                    .map(str::to_owned)
                    .ok_or_else(|| errors::invalid_params(format!("invalid cursor {cursor:?}")))?,
            ),
            Some(other) => return Err(errors::invalid_params(format!("invalid cursor {other}"))),
        };
        let mut listed: Vec<(String, usize, Value)> = Vec::new();
        let mut shape: Option<Value> = None;
        let mut ttl: Option<u64> = None;
        let mut failed = Vec::new();
        // Every backend at once: a list costs the slowest backend's, not
        // the sum.
        let asked: Vec<usize> = (0..self.members.len())
            .filter(|&index| self.members.len() == 1 || self.declares(index, kind))
            .collect();
        let listings = join_all(
            asked
                .iter()
                .map(|&index| self.listing(index, kind, params.clone(), ctx)),
        )
        .await;
        for (index, listing) in asked.into_iter().zip(listings) {
            let listing = match listing {
                Ok(listing) => listing,
                // One backend alone answers as it would directly.
                Err(e) if self.members.len() == 1 => return Err(e),
                Err(e) => {
                    tracing::warn!(backend = %self.composition.members[index].name, "{} left out: {}", kind.method(), e.message);
                    failed.push(index);
                    continue;
                }
            };
            let first = &listing.first;
            if let Some(member_ttl) = first.get("ttlMs").and_then(Value::as_u64) {
                ttl = Some(ttl.map_or(member_ttl, |t| t.min(member_ttl)));
            }
            shape.get_or_insert_with(|| first.clone());
            for item in &listing.items {
                let Some(key) = item.get(kind.key()).and_then(Value::as_str) else {
                    continue;
                };
                if !self.composition.members[index].filters.allows(kind, key) {
                    continue;
                }
                let mut item = item.clone();
                let key = if kind.prefixed() {
                    let front = self.composition.front_name(index, key);
                    item[kind.key()] = Value::String(front.clone());
                    front
                } else {
                    // A prefixed backend's skill URIs (its skills, its
                    // listed `SKILL.md`) gain its name.
                    skill_uris::to_front(&self.composition, index, &mut item);
                    let front = item.get(kind.key()).and_then(Value::as_str);
                    front.unwrap_or(key).to_owned()
                };
                listed.push((key, index, item));
            }
        }
        let listed = self.claim(kind, listed, &failed);
        let mut rest = listed
            .into_iter()
            .filter(|(key, _)| self.visible(ctx, kind, key))
            .filter(|(key, _)| after.as_deref().is_none_or(|after| key.as_str() > after))
            .peekable();
        let size = self.composition.page_size;
        let mut page: Vec<Value> = Vec::with_capacity(size.min(1024));
        let mut last = None;
        while page.len() < size {
            let Some((key, item)) = rest.next() else {
                break;
            };
            page.push(item);
            last = Some(key);
        }
        let next = rest.peek().and(last).map(|last| format!("gw:{last}"));
        let mut result = match shape {
            Some(Value::Object(first)) => first,
            _ => Map::new(),
        };
        result.remove("nextCursor");
        if self.members.len() > 1 {
            result.remove("_meta"); // one backend's, not the merge's
        }
        result.insert(kind.items().into(), Value::Array(page));
        if let Some(cursor) = next {
            result.insert("nextCursor".into(), Value::String(cursor));
        }
        if let Some(ttl) = ttl {
            result.insert("ttlMs".into(), ttl.into());
        }
        Ok(Value::Object(result))
    }

    /// The listed items each front key's owner serves, sorted by key: the
    /// backend that had the key keeps it while it lists it (or could not
    /// be asked); otherwise the first in file order that lists it takes
    /// it. A key two backends list is logged.
    pub(super) fn claim(
        &self,
        kind: Kind,
        listed: Vec<(String, usize, Value)>,
        failed: &[usize],
    ) -> Vec<(String, Value)> {
        let mut owners = self.lock_owners();
        let Owners { by_kind, reported } = &mut *owners;
        let known = by_kind.entry(kind.method()).or_default();
        let mut by_key: HashMap<String, Vec<(usize, Value)>> = HashMap::new();
        for (key, index, item) in listed {
            by_key.entry(key).or_default().push((index, item));
        }
        // A key this listing lacks stays its owner's: another audience may
        // see it (an App's app-only tool), and if it is gone the owner
        // answers for it. It goes to another backend only when that one
        // lists it and the owner, asked, does not.
        let mut kept: Vec<(String, Value)> = Vec::with_capacity(by_key.len());
        for (key, mut claimants) in by_key {
            let owner = match known.get(&key) {
                Some(&owner)
                    if claimants.iter().any(|(index, _)| *index == owner)
                        || failed.contains(&owner) =>
                {
                    owner
                }
                _ => claimants
                    .iter()
                    .map(|(index, _)| *index)
                    .min()
                    .unwrap_or_default(),
            };
            if claimants.len() > 1 && reported.insert((kind.method(), key.clone())) {
                let names: Vec<&str> = claimants
                    .iter()
                    .map(|(index, _)| self.composition.members[*index].name.as_str())
                    .collect();
                tracing::warn!(
                    key,
                    backends = ?names,
                    owner = %self.composition.members[owner].name,
                    "a {} key served by two backends: the first owner keeps it",
                    kind.items()
                );
            }
            known.insert(key.clone(), owner);
            if let Some(position) = claimants.iter().position(|(index, _)| *index == owner) {
                kept.push((key, claimants.swap_remove(position).1));
            }
        }
        kept.sort_by(|a, b| a.0.cmp(&b.0));
        kept
    }

    /// The merged list `kind`, checked as `T`.
    pub(super) async fn list<T: DeserializeOwned>(
        &self,
        kind: Kind,
        params: Value,
        ctx: &RequestContext,
    ) -> HandlerResult<T> {
        let merged = self.merged(kind, params, ctx).await?;
        serde_json::from_value(merged).map_err(|e| {
            errors::internal_error(format!("the merged {} is not valid: {e}", kind.method()))
        })
    }
}

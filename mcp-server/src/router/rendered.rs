//! `*/list` pages rendered once per catalogue version: the result bytes of
//! each page our cursors name, by era and audience, so that a list request
//! costs a lookup and a copy whatever the size of the catalogue.

use std::sync::{PoisonError, RwLock};

use mcp_era_types::v2026_07_28::CacheScope;

use super::names::NameMap;
use super::page::PAGE_SIZE;
use crate::model::context::{Era, RequestContext};
use crate::wire::errors::HandlerResult;
use crate::wire::reply::{self, Reply, ResultMeta};

/// The most pages one catalogue keeps (four audiences of 25,600 entries);
/// past it, pages are rendered per request.
const MAX_KEPT: usize = 1024;

/// What a page's bytes depend on besides the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PageKey {
    start: usize,
    era: Era,
    /// The client renders MCP Apps (app-only tools are listed to it).
    apps: bool,
    ttl_ms: u64,
    scope: CacheScope,
    /// The declaration whose `serverInfo` the result carries.
    server_info: Option<u64>,
}

impl PageKey {
    /// The page `cursor` names for `ctx`, if it is one our cursors name (an
    /// offset that is a multiple of the page size); other offsets, valid or
    /// not, are not kept.
    pub(crate) fn new(cursor: Option<&str>, apps: bool, ctx: &RequestContext) -> Option<Self> {
        let start = match cursor {
            None => 0,
            Some(cursor) => cursor.parse::<usize>().ok()?,
        };
        (start % PAGE_SIZE == 0).then(|| Self {
            start,
            era: ctx.era(),
            apps,
            ttl_ms: ctx.cache_ttl_ms(),
            scope: ctx.cache_scope(),
            server_info: ctx.result_server_info_key(),
        })
    }
}

/// The kept pages of one catalogue version.
#[derive(Default)]
pub(crate) struct RenderedPages(RwLock<NameMap<PageKey, Reply>>);

impl RenderedPages {
    /// The page `key` names: kept bytes, or `render`'s, kept when `key` is
    /// set and there is room. An error is never kept.
    pub(crate) fn get_or_render(
        &self,
        key: Option<PageKey>,
        render: impl FnOnce() -> HandlerResult<Reply>,
    ) -> HandlerResult<Reply> {
        let Some(key) = key else { return render() };
        let kept = self.read().get(&key).cloned();
        if let Some(kept) = kept {
            return Ok(kept);
        }
        let reply = render()?.shared();
        let mut pages = self.0.write().unwrap_or_else(PoisonError::into_inner);
        if pages.len() < MAX_KEPT {
            pages.insert(key, reply.clone());
        }
        Ok(reply)
    }

    /// The `*/list` page `cursor` names for `ctx` (no MCP Apps audience):
    /// kept bytes, or `list`'s result rendered and kept.
    pub(crate) fn list_reply<T: ResultMeta>(
        &self,
        cursor: Option<&str>,
        ctx: &RequestContext,
        list: impl FnOnce() -> HandlerResult<T>,
    ) -> HandlerResult<Reply> {
        let key = PageKey::new(cursor, false, ctx);
        self.get_or_render(key, || reply::render(list()?, ctx.result_server_info()))
    }

    /// Forgets every page (the catalogue changed).
    pub(crate) fn clear(&mut self) {
        self.0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, NameMap<PageKey, Reply>> {
        self.0.read().unwrap_or_else(PoisonError::into_inner)
    }
}

impl std::fmt::Debug for RenderedPages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RenderedPages")
            .field("kept", &self.read().len())
            .finish()
    }
}

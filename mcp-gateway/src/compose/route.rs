//! Which member a request goes to: by a name's prefix, by who listed it
//! last, by a URI's template or skill, by the backend that made a task;
//! and whether the caller may see it (a hidden item is an unknown one).

use std::sync::PoisonError;

use mcp_era_server::{HandlerResult, RequestContext, errors};
use serde_json::json;

use super::Composite;
use super::access;
use super::kind::Kind;
use super::skill_uris;

/// The error for an item no backend serves to the caller.
fn unknown(kind: Kind, name: &str) -> mcp_era_server::mcp_era_types::v2026_07_28::Error {
    match kind {
        Kind::Tools => errors::invalid_params(format!("Unknown tool: {name}")),
        Kind::Prompts => errors::invalid_params(format!("Unknown prompt: {name}")),
        Kind::Resources | Kind::Templates => errors::resource_not_found(name),
        Kind::Skills => errors::invalid_params(format!("Unknown skill: {name}")),
    }
}

impl Composite {
    /// The member serving front name `name` of `kind`, and the name it
    /// knows: by its prefix, else by the last listing (listed again once
    /// when unknown), else the one backend if there is one.
    pub(super) async fn find(
        &self,
        kind: Kind,
        name: &str,
        ctx: &RequestContext,
    ) -> HandlerResult<(usize, String)> {
        if let Some(found) = self.route_known(kind, name) {
            return Ok(found);
        }
        let _ = self.merged(kind, json!({}), ctx).await;
        if let Some(found) = self.route_known(kind, name) {
            return Ok(found);
        }
        if self.members.len() == 1 {
            return Ok((0, name.to_owned()));
        }
        Err(unknown(kind, name))
    }

    /// [`find`](Self::find), for an item `ctx`'s principal may see (a
    /// hidden one is as unknown as one no backend has).
    pub(super) async fn route(
        &self,
        kind: Kind,
        name: &str,
        ctx: &RequestContext,
    ) -> HandlerResult<(usize, String)> {
        let (index, bare) = self.find(kind, name, ctx).await?;
        if self.shown(index, kind, &bare, name, ctx) {
            Ok((index, bare))
        } else {
            Err(unknown(kind, name))
        }
    }

    /// [`find_uri`](Self::find_uri), for a resource `ctx`'s principal may
    /// see.
    pub(super) async fn route_uri(&self, uri: &str, ctx: &RequestContext) -> HandlerResult<usize> {
        let index = self.find_uri(uri, ctx).await?;
        if self.shown(index, Kind::Resources, uri, uri, ctx) {
            Ok(index)
        } else {
            Err(unknown(Kind::Resources, uri))
        }
    }

    /// Whether member `index`'s item (`bare` there, `front` at the front)
    /// is shown to `ctx`'s principal.
    pub(super) fn shown(
        &self,
        index: usize,
        kind: Kind,
        bare: &str,
        front: &str,
        ctx: &RequestContext,
    ) -> bool {
        self.composition.members[index].filters.allows(kind, bare) && self.visible(ctx, kind, front)
    }

    /// Whether the access rules that apply to `ctx` (by its principal, or
    /// its token's scopes) show `front`: every one of them must.
    pub(super) fn visible(&self, ctx: &RequestContext, kind: Kind, front: &str) -> bool {
        let (principal, scopes) = (access::principal_of(ctx), access::scopes_of(ctx));
        self.composition
            .access
            .iter()
            .filter(|rule| rule.selector.applies(principal, scopes))
            .all(|rule| rule.filters.allows(kind, front))
    }

    pub(super) fn route_known(&self, kind: Kind, name: &str) -> Option<(usize, String)> {
        let separator = &self.composition.separator;
        for (index, member) in self.composition.members.iter().enumerate() {
            if kind.prefixed()
                && self.composition.prefixed(index)
                && let Some(bare) = name
                    .strip_prefix(member.name.as_str())
                    .and_then(|rest| rest.strip_prefix(separator.as_str()))
            {
                return Some((index, bare.to_owned()));
            }
        }
        let owner = self.lock_owners().of(kind, name)?;
        (!kind.prefixed() || !self.composition.prefixed(owner)).then(|| (owner, name.to_owned()))
    }

    /// The member serving resource `uri`: the one that listed it, else the
    /// one whose template's fixed start it has (the longest), else as
    /// [`route`](Self::route).
    pub(super) async fn find_uri(&self, uri: &str, ctx: &RequestContext) -> HandlerResult<usize> {
        for attempt in 0..2 {
            if let Some(owner) = self.lock_owners().of(Kind::Resources, uri) {
                return Ok(owner);
            }
            if let Some(owner) = self.skill_owner(uri) {
                return Ok(owner);
            }
            let by_template = {
                let owners = self.lock_owners();
                owners
                    .by_kind
                    .get(Kind::Templates.method())
                    .into_iter()
                    .flatten()
                    .filter_map(|(template, &owner)| {
                        let fixed = template.split('{').next().unwrap_or_default();
                        (!fixed.is_empty() && uri.starts_with(fixed))
                            .then_some((fixed.len(), owner))
                    })
                    .max()
                    .map(|(_, owner)| owner)
            };
            if let Some(owner) = by_template {
                return Ok(owner);
            }
            if self.members.len() == 1 {
                return Ok(0);
            }
            if attempt == 0 {
                let _ = self.merged(Kind::Resources, json!({}), ctx).await;
                let _ = self.merged(Kind::Templates, json!({}), ctx).await;
                if uri.starts_with(skill_uris::SCHEME) {
                    let _ = self.merged(Kind::Skills, json!({}), ctx).await;
                }
            }
        }
        Err(errors::resource_not_found(uri))
    }

    /// The member serving the skill `uri` is in (a file under the skill
    /// whose `SKILL.md` URI shares the longest start with it), as the last
    /// `skills/list` found them.
    pub(super) fn skill_owner(&self, uri: &str) -> Option<usize> {
        if !uri.starts_with(skill_uris::SCHEME) {
            return None;
        }
        let owners = self.lock_owners();
        owners
            .by_kind
            .get(Kind::Skills.method())?
            .iter()
            .filter_map(|(skill, &owner)| {
                let root = skill.strip_suffix("SKILL.md")?;
                (uri.starts_with(root) || uri == root.trim_end_matches('/'))
                    .then_some((root.len(), owner))
            })
            .max()
            .map(|(_, owner)| owner)
    }

    /// The member a request of the skills extension about `uri` goes to.
    pub(super) async fn route_skill(
        &self,
        uri: &str,
        ctx: &RequestContext,
    ) -> HandlerResult<usize> {
        let index = match self.skill_owner(uri) {
            Some(index) => index,
            None => {
                let _ = self.merged(Kind::Skills, json!({}), ctx).await;
                match self.skill_owner(uri) {
                    Some(index) => index,
                    None if self.members.len() == 1 => 0,
                    None => return Err(unknown(Kind::Skills, uri)),
                }
            }
        };
        let bare = skill_uris::backend(&self.composition, index, uri);
        if self.shown(index, Kind::Skills, &bare, uri, ctx) {
            Ok(index)
        } else {
            Err(unknown(Kind::Skills, uri))
        }
    }

    /// The member that made task `task_id` (its `tools/call` answered a
    /// task), or the one member.
    pub(super) fn task_owner(&self, task_id: &str) -> HandlerResult<usize> {
        let tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        match tasks.owners.get(task_id) {
            Some(&index) => Ok(index),
            None if self.members.len() == 1 => Ok(0),
            // As the runtime answers an unknown task.
            None => Err(errors::invalid_params(
                "Failed to retrieve task: Task not found",
            )),
        }
    }
}

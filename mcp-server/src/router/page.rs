//! Cursor pagination, opaque to clients. Over a table built once the
//! cursor is the offset of the next page. `resources/list` adds the live
//! instances of listed templates, produced afresh on each call: past the
//! fixed entries the cursor names the URI of the last instance sent, and
//! the next page resumes after it in URI order.

use crate::wire::errors::{self, HandlerResult};

/// How many entries one `*/list` page holds.
pub const PAGE_SIZE: usize = 100;

/// The page of `items` that `cursor` names, and the cursor of the next page.
/// An unreadable or out-of-range cursor is `-32602`.
pub(crate) fn page<'a, T>(
    items: &'a [T],
    cursor: Option<&str>,
) -> HandlerResult<(&'a [T], Option<String>)> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .ok()
            .filter(|start| *start <= items.len())
            .ok_or_else(|| errors::invalid_params(format!("Invalid cursor: {cursor}")))?,
    };
    let end = items.len().min(start.saturating_add(PAGE_SIZE));
    let next = (end < items.len()).then(|| end.to_string());
    Ok((&items[start..end], next))
}

/// Where a `resources/list` page starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resume {
    /// At this offset of the fixed entries (then the live ones).
    Fixed(usize),
    /// After this URI among the live instances.
    After(String),
}

const AFTER: &str = "after:";

impl Resume {
    /// Reads `cursor`: an offset up to `fixed` or, when there are live
    /// instances, `after:` and a URI. Anything else is `-32602`.
    pub(crate) fn read(cursor: Option<&str>, fixed: usize, live: bool) -> HandlerResult<Self> {
        let Some(cursor) = cursor else {
            return Ok(Self::Fixed(0));
        };
        let resume = match cursor.strip_prefix(AFTER) {
            Some(uri) if live => Some(Self::After(uri.to_owned())),
            Some(_) => None,
            None => cursor
                .parse::<usize>()
                .ok()
                .filter(|start| *start <= fixed)
                .map(Self::Fixed),
        };
        resume.ok_or_else(|| errors::invalid_params(format!("Invalid cursor: {cursor}")))
    }

    /// Whether the page needs the live instances: it reaches past the
    /// fixed entries, or must say whether any follow them.
    pub(crate) fn needs_live(&self, fixed: usize) -> bool {
        match self {
            Self::Fixed(start) => start.saturating_add(PAGE_SIZE) >= fixed,
            Self::After(_) => true,
        }
    }
}

/// The page of `fixed` then `live` (sorted by `uri`, each once) that
/// starts at `at`, and the cursor of the next. An instance that appears or
/// vanishes between two pages moves no other: a walk lists, once each,
/// every instance present throughout it.
pub(crate) fn live_page<T: Clone>(
    fixed: &[T],
    live: &[T],
    uri: impl Fn(&T) -> &str,
    at: &Resume,
) -> (Vec<T>, Option<String>) {
    let (fixed, live) = match at {
        Resume::Fixed(start) => (&fixed[(*start).min(fixed.len())..], live),
        Resume::After(after) => (
            &fixed[..0],
            &live[live.partition_point(|item| uri(item) <= after.as_str())..],
        ),
    };
    let from_fixed = fixed.len().min(PAGE_SIZE);
    let from_live = live.len().min(PAGE_SIZE - from_fixed);
    let mut page = fixed[..from_fixed].to_vec();
    page.extend_from_slice(&live[..from_live]);
    let next = if from_fixed == fixed.len() && from_live == live.len() {
        None
    } else if from_live == 0 {
        // The page holds fixed entries only; the next starts after them.
        Some(match at {
            Resume::Fixed(start) => (start + from_fixed).to_string(),
            Resume::After(after) => format!("{AFTER}{after}"),
        })
    } else {
        Some(format!("{AFTER}{}", uri(&live[from_live - 1])))
    };
    (page, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_pages_resume_after_the_last_uri() {
        let fixed: Vec<String> = (0..PAGE_SIZE - 1)
            .map(|i| format!("fixed://{i:03}"))
            .collect();
        let live: Vec<String> = (0..PAGE_SIZE + 5)
            .map(|i| format!("live://{i:03}"))
            .collect();
        fn uri(s: &String) -> &str {
            s
        }
        let at = Resume::read(None, fixed.len(), true).expect("start");
        assert!(at.needs_live(fixed.len()));
        let (first, next) = live_page(&fixed, &live, uri, &at);
        assert_eq!(first.len(), PAGE_SIZE);
        assert_eq!(first[PAGE_SIZE - 1], "live://000");
        let next = next.expect("a second page");
        assert_eq!(next, "after:live://000");
        // One instance added before the cursor, one removed after it: the
        // rest are listed once each.
        let mut changed = live.clone();
        changed.insert(0, "live://!".to_owned());
        changed.retain(|u| u != "live://050");
        let at = Resume::read(Some(&next), fixed.len(), true).expect("cursor");
        let (second, next) = live_page(&fixed, &changed, uri, &at);
        assert_eq!(second.first().map(String::as_str), Some("live://001"));
        assert_eq!(second.len(), PAGE_SIZE);
        let at = Resume::read(next.as_deref(), fixed.len(), true).expect("cursor");
        let (third, next) = live_page(&fixed, &changed, uri, &at);
        assert_eq!(third, ["live://102", "live://103", "live://104"]);
        assert_eq!(next, None);
        for bad in ["after:x", "x"] {
            assert_eq!(
                Resume::read(Some(bad), 3, false)
                    .expect_err("no live list")
                    .code,
                -32602
            );
        }
        assert_eq!(
            Resume::read(Some("4"), 3, true)
                .expect_err("past the end")
                .code,
            -32602
        );
    }

    #[test]
    fn pages_follow_cursors_and_reject_bad_ones() {
        let items: Vec<usize> = (0..PAGE_SIZE * 2 + 1).collect();
        let (first, next) = page(&items, None).expect("first page");
        assert_eq!(first.len(), PAGE_SIZE);
        let (second, next) = page(&items, next.as_deref()).expect("second page");
        assert_eq!(second[0], PAGE_SIZE);
        let (last, next) = page(&items, next.as_deref()).expect("last page");
        assert_eq!((last.len(), next), (1, None));
        for bad in ["x", "-1", "999999"] {
            let error = page(&items, Some(bad)).expect_err("bad cursor");
            assert_eq!(error.code, -32602);
        }
    }
}

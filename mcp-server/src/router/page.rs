//! Cursor pagination over a table built once: the cursor is the offset of
//! the next page, opaque to clients.

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

#[cfg(test)]
mod tests {
    use super::*;

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

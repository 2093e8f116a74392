//! `cargo xtask layers`: no file imports across the layers that ARCHITECTURE.md declares.
//!
//! Each fenced code block of `ARCHITECTURE.md` whose info string is `layers`
//! declares one crate:
//!
//! ```text
//! crate mcp-server/src
//! 0 wire/
//! 1 model/
//! 2 router/ | features/
//! 6 lib.rs private.rs
//! ```
//!
//! The first line names the crate's source directory (from the repository
//! root); each other line is a layer number and one or more groups split by
//! `|`, a group being members split by spaces: a directory (`router/`, every
//! `.rs` file below it) or a file, from the source directory. Blank lines and
//! lines starting with `#` are ignored. Every `.rs` file belongs to exactly
//! one group (the longest member that matches it wins); a file in none, or a
//! member that matches no file, is an error, so the doc follows the tree.
//!
//! For every file A and every file B whose module A names: B's layer is at
//! most A's; on the same layer B is in A's group (sibling groups never import
//! each other); and no files import each other in a circle.
//!
//! The reader works on tokens, not on a syntax tree: comments and the insides
//! of strings and char literals are dropped, then every path that the crate
//! can resolve counts: `use` trees (nested groups, `self`, `as`, globs) and
//! paths in code (`crate::errors::invalid_params(..)`, `super::State`,
//! `store::TaskRecord` for a child module `store`, a name a `use` brought
//! in). A path lands in the file of the longest module that prefixes it;
//! when the rest of the path is a name that module only re-exports
//! (`crate::DeclaredScopes` through lib.rs's `pub use`), it lands in the file
//! that the re-export names. `#[path = "..."]` is read on `mod NAME;` at a
//! file's top level (lib.rs's `__private`) and refused elsewhere.
//!
//! A `main.rs` beside `lib.rs` is the package's binary, another crate: its
//! paths through the library's name (`mcp_era_codegen::emit::..`, the
//! `[lib]` or package name of the `Cargo.toml` above the source directory)
//! land in the library's files, so it belongs on a layer like any file.
//! Such a `main.rs` may not declare modules of its own; `bin/` is refused.
//!
//! `cargo xtask layers --doc FILE` reads the blocks from another file (a
//! draft); their crate paths are still from the repository root.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

/// Where the rules are read from, at the repository root.
pub const DOC: &str = "ARCHITECTURE.md";

/// Re-exports and `use` aliases followed before a path is given up on.
const MAX_HOPS: usize = 16;

/// Names listed after an arrow before the rest is only counted.
const MAX_NAMES: usize = 10;

/// Checks every crate that `doc` declares, reading the crates from `root`.
/// `Ok`: one summary line per crate; `Err`: every problem, then the summaries.
pub fn run(root: &Path, doc: &Path) -> Result<String, String> {
    let doc_name = doc.strip_prefix(root).unwrap_or(doc).display().to_string();
    let text = std::fs::read_to_string(doc).map_err(|e| {
        format!(
            "cannot read {}: {e} (the layering rules live there)",
            doc.display()
        )
    })?;
    let crates = parse_rules(&text, &doc_name)?;
    let mut problems = Vec::new();
    let mut summaries = Vec::new();
    for rules in &crates {
        let files = match read_tree(&root.join(&rules.src)) {
            Ok(files) => files,
            Err(e) => {
                problems.push(format!(
                    "{doc_name}:{}: crate {}: {e}",
                    rules.line, rules.src
                ));
                continue;
            }
        };
        let lib = lib_name(&root.join(&rules.src));
        let report = check(rules, &files, &doc_name, lib.as_deref());
        problems.extend(report.problems);
        summaries.push(report.summary);
    }
    let mut out = String::new();
    for line in problems.iter().chain(&summaries) {
        out.push_str(line);
        out.push('\n');
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        // A circle's arrows are indented under it, and not counted apart.
        let count = problems.iter().filter(|p| !p.starts_with(' ')).count();
        out.push_str(&format!(
            "layers: {count} problem(s); the rules are the ```layers blocks of {doc_name}"
        ));
        Err(out)
    }
}

/// The library's crate name (`[lib] name`, else the package name with `_`
/// for `-`), from the `Cargo.toml` above the source directory `src`.
fn lib_name(src: &Path) -> Option<String> {
    let text = std::fs::read_to_string(src.parent()?.join("Cargo.toml")).ok()?;
    let mut section = "";
    let (mut lib, mut package) = (None, None);
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let Some(value) = line.strip_prefix("name").map(str::trim_start) else {
            continue;
        };
        let Some(value) = value.strip_prefix('=') else {
            continue;
        };
        let value = value.trim().trim_matches('"').replace('-', "_");
        match section {
            "[lib]" => lib = Some(value),
            "[package]" => package = Some(value),
            _ => {}
        }
    }
    lib.or(package)
}

/// Every `.rs` file below `dir`, by its path from `dir` (`/`-separated).
fn read_tree(dir: &Path) -> Result<BTreeMap<String, String>, String> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) -> Result<(), String> {
        let entries =
            std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            if path.is_dir() {
                walk(&path, &format!("{rel}/"), out)?;
            } else if name.ends_with(".rs") {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                out.insert(rel, text);
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    walk(dir, "", &mut out)?;
    Ok(out)
}

// ---------------------------------------------------------------- the rules

/// One ```layers block: a crate and its groups.
#[derive(Debug)]
struct CrateRules {
    /// The source directory, from the repository root, without a trailing `/`.
    src: String,
    /// The line of the block's `crate` line in the doc.
    line: usize,
    groups: Vec<Group>,
}

#[derive(Debug)]
struct Group {
    layer: u32,
    /// Directories (with a trailing `/`) and files, from the source directory.
    members: Vec<String>,
    line: usize,
}

impl Group {
    fn label(&self) -> String {
        self.members.join(" ")
    }
}

/// The ```layers blocks of `doc`; `Err` lists every mistake, by line.
fn parse_rules(doc: &str, doc_name: &str) -> Result<Vec<CrateRules>, String> {
    let mut crates: Vec<CrateRules> = Vec::new();
    let mut errors = Vec::new();
    let lines: Vec<&str> = doc.lines().collect();
    let mut n = 0;
    while n < lines.len() {
        let Some((fence, info)) = fence_open(lines[n]) else {
            n += 1;
            continue;
        };
        let start = n;
        n += 1;
        let mut body = Vec::new();
        while n < lines.len() && !fence_closes(lines[n], &fence) {
            body.push((n + 1, lines[n]));
            n += 1;
        }
        if n == lines.len() && info == "layers" {
            errors.push(format!(
                "{doc_name}:{}: the ```layers block is never closed",
                start + 1
            ));
        }
        n += 1;
        if info != "layers" {
            continue;
        }
        match parse_block(&body, doc_name) {
            Ok(Some(rules)) => {
                if let Some(other) = crates.iter().find(|c| c.src == rules.src) {
                    errors.push(format!(
                        "{doc_name}:{}: crate {} is declared twice (also line {})",
                        rules.line, rules.src, other.line
                    ));
                } else {
                    crates.push(rules);
                }
            }
            Ok(None) => errors.push(format!(
                "{doc_name}:{}: the ```layers block is empty; its first line is `crate <src dir>`",
                start + 1
            )),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if crates.is_empty() && errors.is_empty() {
        errors.push(format!(
            "{doc_name} has no ```layers block: nothing to check (see xtask/src/layers.rs for the syntax)"
        ));
    }
    if errors.is_empty() {
        Ok(crates)
    } else {
        Err(errors.join("\n"))
    }
}

/// The fence and the info string of a line that opens a fenced code block.
fn fence_open(line: &str) -> Option<(String, String)> {
    let trimmed = line.trim_start();
    let ch = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = trimmed.chars().take_while(|c| *c == ch).count();
    if len < 3 {
        return None;
    }
    let fence: String = std::iter::repeat_n(ch, len).collect();
    Some((fence, trimmed[len..].trim().to_owned()))
}

fn fence_closes(line: &str, fence: &str) -> bool {
    let trimmed = line.trim();
    let ch = fence.chars().next().unwrap_or('`');
    trimmed.len() >= fence.len() && trimmed.chars().all(|c| c == ch)
}

fn parse_block(body: &[(usize, &str)], doc_name: &str) -> Result<Option<CrateRules>, Vec<String>> {
    let mut errors = Vec::new();
    let mut rules: Option<CrateRules> = None;
    let mut members: HashMap<String, usize> = HashMap::new();
    let mut layers: HashMap<u32, usize> = HashMap::new();
    for &(line, text) in body {
        let text = text.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let Some(rules) = rules.as_mut() else {
            match text.strip_prefix("crate ") {
                Some(src) if !src.trim().is_empty() => {
                    rules = Some(CrateRules {
                        src: src.trim().trim_end_matches('/').to_owned(),
                        line,
                        groups: Vec::new(),
                    });
                }
                _ => errors.push(format!(
                    "{doc_name}:{line}: a ```layers block starts with `crate <src dir>`, not `{text}`"
                )),
            }
            continue;
        };
        let (number, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        let Ok(layer) = number.parse::<u32>() else {
            errors.push(format!(
                "{doc_name}:{line}: expected `<layer number> <members> [| <members>...]`, not `{text}`"
            ));
            continue;
        };
        if let Some(other) = layers.insert(layer, line) {
            errors.push(format!(
                "{doc_name}:{line}: layer {layer} is declared twice (also line {other}); put its groups on one line, split by `|`"
            ));
        }
        for group in rest.split('|') {
            let group_members: Vec<String> = group.split_whitespace().map(str::to_owned).collect();
            if group_members.is_empty() {
                errors.push(format!(
                    "{doc_name}:{line}: layer {layer} has an empty group"
                ));
                continue;
            }
            for member in &group_members {
                if member.starts_with('/')
                    || member.split('/').any(|part| part == ".." || part == ".")
                {
                    errors.push(format!(
                        "{doc_name}:{line}: {member}: members are paths inside {} (no leading /, no . or ..)",
                        rules.src
                    ));
                } else if !member.ends_with('/') && !member.ends_with(".rs") {
                    errors.push(format!(
                        "{doc_name}:{line}: {member}: a member is a directory ending in / or a .rs file"
                    ));
                } else if let Some(other) = members.insert(member.clone(), line) {
                    errors.push(format!(
                        "{doc_name}:{line}: {member} is named twice (also line {other})"
                    ));
                }
            }
            rules.groups.push(Group {
                layer,
                members: group_members,
                line,
            });
        }
    }
    if let Some(rules) = &rules
        && rules.groups.is_empty()
    {
        errors.push(format!(
            "{doc_name}:{}: crate {} has no layers",
            rules.line, rules.src
        ));
    }
    if errors.is_empty() {
        Ok(rules)
    } else {
        Err(errors)
    }
}

// ---------------------------------------------------------------- tokens

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
    /// A string literal (normal, raw, byte or C), its contents kept only for `#[path = "..."]`.
    Str(String),
    /// A number or a char literal.
    Lit,
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// The tokens of `source`, each with its line; comments are dropped.
fn tokenize(source: &str) -> Result<Vec<(Tok, usize)>, String> {
    let c: Vec<char> = source.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        let start_line = line;
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 1;
            i += 2;
            while depth > 0 {
                if i >= c.len() {
                    return Err(format!("line {start_line}: unterminated block comment"));
                }
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if ch == '"' {
            let (text, end) = quoted(&c, i + 1, &mut line)
                .ok_or_else(|| format!("line {start_line}: unterminated string"))?;
            out.push((Tok::Str(text), start_line));
            i = end;
        } else if ch == '\'' {
            if at(i + 1) == '\\' {
                // '\n', '\'', '\u{7f}'
                i += 3;
                while i < c.len() && c[i] != '\'' && c[i] != '\n' {
                    i += 1;
                }
                i += 1;
                out.push((Tok::Lit, start_line));
            } else if at(i + 2) == '\'' && at(i + 1) != '\n' {
                i += 3;
                out.push((Tok::Lit, start_line));
            } else {
                // A lifetime or a label: 'a, 'static, 'outer.
                i += 1;
                while i < c.len() && is_ident_continue(c[i]) {
                    i += 1;
                }
            }
        } else if is_ident_start(ch) {
            let start = i;
            while i < c.len() && is_ident_continue(c[i]) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
            if raw_prefix && (at(i) == '"' || at(i) == '#') {
                let hashes = c[i..].iter().take_while(|&&h| h == '#').count();
                if at(i + hashes) == '"' {
                    let (text, end) = raw_quoted(&c, i + hashes + 1, hashes, &mut line)
                        .ok_or_else(|| format!("line {start_line}: unterminated raw string"))?;
                    out.push((Tok::Str(text), start_line));
                    i = end;
                    continue;
                }
                if word == "r" && hashes == 1 && is_ident_start(at(i + 1)) {
                    // A raw identifier: r#type.
                    let start = i + 1;
                    i = start;
                    while i < c.len() && is_ident_continue(c[i]) {
                        i += 1;
                    }
                    out.push((Tok::Ident(c[start..i].iter().collect()), start_line));
                    continue;
                }
            }
            // The `b` of b"..." and b'x' (and the `c` of c"...") stays an
            // ident before its literal: harmless.
            out.push((Tok::Ident(word), start_line));
        } else if ch.is_ascii_digit() {
            while i < c.len() && is_ident_continue(c[i]) {
                i += 1;
            }
            out.push((Tok::Lit, start_line));
        } else if ch == ':' && at(i + 1) == ':' {
            out.push((Tok::Sep, start_line));
            i += 2;
        } else {
            out.push((Tok::Punct(ch), start_line));
            i += 1;
        }
    }
    Ok(out)
}

/// The contents of a `"`-string whose body starts at `i`, and the index past its end.
fn quoted(c: &[char], mut i: usize, line: &mut usize) -> Option<(String, usize)> {
    let start = i;
    while i < c.len() {
        match c[i] {
            '\\' => {
                *line += usize::from(c.get(i + 1) == Some(&'\n'));
                i += 2;
            }
            '"' => return Some((c[start..i].iter().collect(), i + 1)),
            other => {
                *line += usize::from(other == '\n');
                i += 1;
            }
        }
    }
    None
}

/// Like [`quoted`] for a raw string closed by `"` and `hashes` `#`.
fn raw_quoted(
    c: &[char],
    mut i: usize,
    hashes: usize,
    line: &mut usize,
) -> Option<(String, usize)> {
    let start = i;
    while i < c.len() {
        if c[i] == '"'
            && c[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&h| h == '#')
                .count()
                == hashes
        {
            return Some((c[start..i].iter().collect(), i + 1 + hashes));
        }
        *line += usize::from(c[i] == '\n');
        i += 1;
    }
    None
}

// ---------------------------------------------------------------- one file

/// A path as written, in the inline module `scope` of its file.
#[derive(Debug, Clone)]
struct Written {
    scope: Vec<String>,
    segs: Vec<String>,
    glob: bool,
}

/// What a `use` puts in scope: `name` stands for `segs`.
#[derive(Debug, Clone)]
struct Binding {
    scope: Vec<String>,
    name: String,
    segs: Vec<String>,
    /// Made at the module's item level (not inside a function body).
    item_level: bool,
}

/// What one file says, before any of it is resolved.
#[derive(Debug, Default)]
struct Facts {
    refs: Vec<Written>,
    bindings: Vec<Binding>,
    /// `use ...::*`, by scope.
    globs: Vec<Written>,
    /// Items defined at a module's item level, by scope.
    defs: Vec<(Vec<String>, String)>,
    /// Inline modules (`mod tests { ... }`), as scopes of this file.
    inline: Vec<Vec<String>>,
    /// `#[path = "..."] mod name;`: (name, path, line).
    path_mods: Vec<(String, String, usize)>,
    errors: Vec<String>,
}

/// Macros whose input is code for another crate (a code generator's output):
/// their paths are not this crate's imports.
const QUOTING: &[&str] = &[
    "quote",
    "quote_spanned",
    "parse_quote",
    "parse_quote_spanned",
];

const ITEM_KEYWORDS: &[&str] = &[
    "fn", "struct", "enum", "trait", "type", "const", "static", "union",
];
/// Words after an item keyword that are not the item's name (`const fn f`, `static mut X`).
const NOT_A_NAME: &[&str] = &["fn", "mut", "unsafe", "async", "extern", "_"];

fn read_facts(source: &str) -> Facts {
    let mut facts = Facts::default();
    let toks = match tokenize(source) {
        Ok(toks) => toks,
        Err(e) => {
            facts.errors.push(e);
            return facts;
        }
    };
    let tok = |i: usize| toks.get(i).map(|t| &t.0);
    let ident = |i: usize| match tok(i) {
        Some(Tok::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    let punct = |i: usize, p: char| tok(i) == Some(&Tok::Punct(p));
    // Inline modules open at this point: (name, brace depth of their items).
    let mut open: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut pending_path: Option<(String, usize)> = None;
    let mut i = 0;
    while i < toks.len() {
        let line = toks[i].1;
        let scope: Vec<String> = open.iter().map(|(name, _)| name.clone()).collect();
        let item_level = depth == open.last().map_or(0, |o| o.1);
        if (punct(i, '{') || punct(i, ';'))
            && let Some((_, at)) = pending_path.take()
        {
            facts.errors.push(format!(
                "line {at}: #[path] is supported only on `mod NAME;`"
            ));
        }
        match &toks[i].0 {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if open.last().is_some_and(|o| o.1 == depth) {
                    open.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Tok::Punct('#')
                if punct(i + 1, '[')
                    && ident(i + 2) == Some("path")
                    && punct(i + 3, '=')
                    && punct(i + 5, ']') =>
            {
                if let Some(Tok::Str(path)) = tok(i + 4) {
                    pending_path = Some((path.clone(), line));
                    i += 6;
                    continue;
                }
            }
            Tok::Ident(word) if word == "mod" => {
                if let Some(name) = ident(i + 1) {
                    if item_level {
                        facts.defs.push((scope.clone(), name.to_owned()));
                    }
                    if punct(i + 2, '{') {
                        let mut inner = scope.clone();
                        inner.push(name.to_owned());
                        facts.inline.push(inner);
                        if let Some((_, at)) = pending_path.take() {
                            facts.errors.push(format!(
                                "line {at}: #[path] on an inline module is not supported"
                            ));
                        }
                        open.push((name.to_owned(), depth + 1));
                    } else if punct(i + 2, ';')
                        && let Some((path, at)) = pending_path.take()
                    {
                        if scope.is_empty() {
                            facts.path_mods.push((name.to_owned(), path, at));
                        } else {
                            facts.errors.push(format!(
                                "line {at}: #[path] inside an inline module is not supported"
                            ));
                        }
                    }
                    i += 2;
                    continue;
                }
            }
            Tok::Ident(word) if word == "use" && !punct(i + 1, '<') => {
                let mut leaves = Vec::new();
                let mut j = i + 1;
                if use_tree(&toks, &mut j, Vec::new(), &mut leaves) && punct(j, ';') {
                    for (segs, glob, alias) in leaves {
                        let written = Written {
                            scope: scope.clone(),
                            segs: segs.clone(),
                            glob,
                        };
                        if glob {
                            facts.globs.push(written.clone());
                        } else {
                            let name = alias.or_else(|| segs.last().cloned());
                            if let Some(name) = name.filter(|n| n != "_") {
                                facts.bindings.push(Binding {
                                    scope: scope.clone(),
                                    name,
                                    segs: segs.clone(),
                                    item_level,
                                });
                            }
                        }
                        facts.refs.push(written);
                    }
                    i = j + 1;
                } else {
                    facts
                        .errors
                        .push(format!("line {line}: cannot read this `use`"));
                    i += 1;
                }
                continue;
            }
            Tok::Ident(word) if QUOTING.contains(&word.as_str()) && punct(i + 1, '!') => {
                // Code written for another crate: skip to the closing delimiter.
                if let Some(Tok::Punct(open @ ('(' | '[' | '{'))) = tok(i + 2) {
                    let close = match open {
                        '(' => ')',
                        '[' => ']',
                        _ => '}',
                    };
                    let mut nested = 0usize;
                    let mut j = i + 2;
                    while j < toks.len() {
                        if punct(j, *open) {
                            nested += 1;
                        } else if punct(j, close) {
                            nested -= 1;
                            if nested == 0 {
                                break;
                            }
                        }
                        j += 1;
                    }
                    i = j + 1;
                    continue;
                }
            }
            Tok::Ident(word) if word == "macro_rules" && punct(i + 1, '!') => {
                if let Some(name) = ident(i + 2)
                    && item_level
                {
                    facts.defs.push((scope.clone(), name.to_owned()));
                }
            }
            Tok::Ident(word) if ITEM_KEYWORDS.contains(&word.as_str()) => {
                let mut k = i + 1;
                if ident(k) == Some("mut") {
                    k += 1;
                }
                if let Some(name) = ident(k)
                    && item_level
                    && !NOT_A_NAME.contains(&name)
                {
                    facts.defs.push((scope.clone(), name.to_owned()));
                }
            }
            Tok::Ident(word) => {
                let after_sep_or_dot =
                    i > 0 && matches!(tok(i - 1), Some(Tok::Sep | Tok::Punct('.')));
                let metavariable = i > 0 && punct(i - 1, '$') && word != "crate";
                if !after_sep_or_dot
                    && !metavariable
                    && tok(i + 1) == Some(&Tok::Sep)
                    && ident(i + 2).is_some()
                {
                    let mut segs = vec![word.clone()];
                    let mut j = i + 1;
                    while tok(j) == Some(&Tok::Sep)
                        && let Some(next) = ident(j + 1)
                    {
                        segs.push(next.to_owned());
                        j += 2;
                    }
                    // `quote::quote! { ... }`: on to the macro's name, which skips its input.
                    let quoting = segs.last().is_some_and(|s| QUOTING.contains(&s.as_str()));
                    facts.refs.push(Written {
                        scope,
                        segs,
                        glob: false,
                    });
                    i = if quoting && punct(j, '!') { j - 1 } else { j };
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if let Some((_, at)) = pending_path {
        facts.errors.push(format!(
            "line {at}: #[path] is supported only on `mod NAME;`"
        ));
    }
    facts
}

/// Reads one use tree at `*i`, pushing (path, glob, alias) per leaf; false when it cannot.
fn use_tree(
    toks: &[(Tok, usize)],
    i: &mut usize,
    mut segs: Vec<String>,
    leaves: &mut Vec<(Vec<String>, bool, Option<String>)>,
) -> bool {
    let in_group = !segs.is_empty();
    if segs.is_empty() && toks.get(*i).map(|t| &t.0) == Some(&Tok::Sep) {
        // `use ::name`: an extern crate.
        segs.push("::".to_owned());
        *i += 1;
    }
    loop {
        match toks.get(*i).map(|t| &t.0) {
            Some(Tok::Punct('{')) => {
                *i += 1;
                loop {
                    match toks.get(*i).map(|t| &t.0) {
                        Some(Tok::Punct('}')) => {
                            *i += 1;
                            return true;
                        }
                        Some(Tok::Punct(',')) => *i += 1,
                        Some(_) => {
                            if !use_tree(toks, i, segs.clone(), leaves) {
                                return false;
                            }
                        }
                        None => return false,
                    }
                }
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                leaves.push((segs, true, None));
                return true;
            }
            Some(Tok::Punct('$')) => *i += 1,
            Some(Tok::Ident(word)) => {
                segs.push(word.clone());
                *i += 1;
                if toks.get(*i).map(|t| &t.0) == Some(&Tok::Sep) {
                    *i += 1;
                    continue;
                }
                let mut alias = None;
                if let Some(Tok::Ident(as_)) = toks.get(*i).map(|t| &t.0)
                    && as_ == "as"
                {
                    match toks.get(*i + 1).map(|t| &t.0) {
                        Some(Tok::Ident(name)) => alias = Some(name.clone()),
                        _ => return false,
                    }
                    *i += 2;
                }
                if in_group && segs.len() > 1 && segs.last().is_some_and(|s| s == "self") {
                    segs.pop();
                }
                leaves.push((segs, false, alias));
                return true;
            }
            _ => return false,
        }
    }
}

// ---------------------------------------------------------------- the crate

/// What one crate's check found.
#[derive(Debug)]
struct Report {
    summary: String,
    problems: Vec<String>,
    /// (from, to) files, from the source directory, and the names that tie them.
    #[cfg_attr(not(test), allow(dead_code, reason = "read by the tests"))]
    edges: BTreeMap<(String, String), BTreeSet<String>>,
}

/// The module scope where a name was written or bound.
#[derive(Debug, Default)]
struct Scope {
    bindings: Vec<(String, Vec<String>, bool)>,
    globs: Vec<Vec<String>>,
    defs: HashSet<String>,
}

/// Every module of the crate, and what each scope binds.
struct Index {
    /// Module path -> file (index into the file list). Inline modules too.
    modules: HashMap<Vec<String>, usize>,
    scopes: HashMap<Vec<String>, Scope>,
    /// The library's name, which the binary beside it writes for `crate`.
    lib: Option<String>,
}

impl Index {
    /// The absolute module path that `segs`, written in `scope`, names;
    /// `None` when it leaves the crate (std, a dependency, a local type).
    fn absolute(&self, scope: &[String], segs: &[String], hops: usize) -> Option<Vec<String>> {
        if hops > MAX_HOPS {
            return None;
        }
        let first = segs.first()?;
        let (mut base, rest) = match first.as_str() {
            // In the binary (`<main.rs>`), `crate` is the binary itself.
            "crate" => (
                scope
                    .iter()
                    .take(1)
                    .filter(|s| s.starts_with('<'))
                    .cloned()
                    .collect(),
                &segs[1..],
            ),
            name if self.lib.as_deref() == Some(name) => (Vec::new(), &segs[1..]),
            "self" | "super" => {
                let mut base = scope.to_vec();
                let mut k = 0;
                while let Some(seg) = segs.get(k).filter(|s| *s == "self" || *s == "super") {
                    if seg == "super" {
                        base.pop()?;
                    }
                    k += 1;
                }
                (base, &segs[k..])
            }
            "::" => return None,
            name => (self.lookup(scope, name, hops + 1)?, &segs[1..]),
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// What `name`, written in `scope` without a prefix, stands for, when it is the crate's.
    fn lookup(&self, scope: &[String], name: &str, hops: usize) -> Option<Vec<String>> {
        if hops > MAX_HOPS {
            return None;
        }
        let here = self.scopes.get(scope);
        // A name may stand for one thing in each namespace (lib.rs's `pub use
        // mcp_era_derive::router;`, a macro, beside `mod router;`): the first
        // that is the crate's is taken. `use serde_json;` binds a name to
        // itself, which names nothing here.
        let bindings = here.map(|s| s.bindings.as_slice()).unwrap_or_default();
        for (_, segs, _) in bindings
            .iter()
            .filter(|b| b.0 == name && !(b.1.len() == 1 && b.1[0] == name))
        {
            if let Some(found) = self.absolute(scope, segs, hops + 1) {
                return Some(found);
            }
        }
        let mut child = scope.to_vec();
        child.push(name.to_owned());
        if self.modules.contains_key(&child) || here.is_some_and(|s| s.defs.contains(name)) {
            return Some(child);
        }
        for glob in here.map(|s| s.globs.as_slice()).unwrap_or_default() {
            if let Some(source) = self.absolute(scope, glob, hops + 1)
                && source != scope
                && let Some(found) = self.lookup(&source, name, hops + 1)
            {
                return Some(found);
            }
        }
        None
    }

    /// The file that the absolute `path` lands in, the name it takes there,
    /// and the file it went through when that only re-exports the name.
    fn target(&self, path: &[String], hops: usize) -> Option<(usize, String, Option<usize>)> {
        let k = (0..=path.len())
            .rev()
            .find(|k| self.modules.contains_key(&path[..*k]))?;
        let module = &path[..k];
        let file = self.modules[module];
        let Some(name) = path.get(k) else {
            return Some((
                file,
                path.last().cloned().unwrap_or_else(|| "crate".into()),
                None,
            ));
        };
        let direct = Some((file, name.clone(), None));
        if hops > MAX_HOPS {
            return direct;
        }
        let Some(scope) = self.scopes.get(module) else {
            return direct;
        };
        if scope.defs.contains(name) {
            return direct;
        }
        let through = scope
            .bindings
            .iter()
            .filter(|b| &b.0 == name && b.2)
            .find_map(|(_, segs, _)| self.absolute(module, segs, hops + 1))
            .or_else(|| {
                scope.globs.iter().find_map(|glob| {
                    let source = self.absolute(module, glob, hops + 1)?;
                    if source == module {
                        return None;
                    }
                    self.lookup(&source, name, hops + 1)
                })
            });
        let Some(mut real) = through else {
            return direct;
        };
        real.extend(path[k + 1..].iter().cloned());
        match self.target(&real, hops + 1) {
            Some((to, name, _)) if to != file => Some((to, name, Some(file))),
            _ => direct,
        }
    }
}

/// Whether a crate root declares a module in a file of its own (`mod name;`).
fn declares_modules(source: &str) -> bool {
    source.lines().any(|line| {
        let line = line.trim_start();
        let line = match line.strip_prefix("pub") {
            Some(rest) => rest.trim_start_matches(|c: char| c != ' ').trim_start(),
            None => line,
        };
        line.strip_prefix("mod ")
            .is_some_and(|rest| rest.trim_end().ends_with(';'))
    })
}

/// The module path of a file by its place: `lib.rs` the root, `a.rs` and
/// `a/mod.rs` `a`, `a/b.rs` `a::b`.
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.split('/').map(str::to_owned).collect();
    let last = parts.pop().unwrap_or_default();
    if parts.is_empty() && (last == "lib.rs" || last == "main.rs") {
        return parts;
    }
    if last != "mod.rs" {
        parts.push(last.trim_end_matches(".rs").to_owned());
    }
    parts
}

/// `dir/path` with `.` and `..` taken out.
fn join_normalized(dir: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

fn names_list(names: &BTreeSet<String>) -> String {
    let shown: Vec<&str> = names.iter().take(MAX_NAMES).map(String::as_str).collect();
    let mut out = shown.join(", ");
    if names.len() > MAX_NAMES {
        out.push_str(&format!(", and {} more", names.len() - MAX_NAMES));
    }
    out
}

fn check(
    rules: &CrateRules,
    files: &BTreeMap<String, String>,
    doc_name: &str,
    lib: Option<&str>,
) -> Report {
    let src = &rules.src;
    let shown = |rel: &str| format!("{src}/{rel}");
    let mut problems = Vec::new();
    let rels: Vec<&String> = files.keys().collect();

    // Each file's group: the longest member that matches it.
    let group_of: Vec<Option<usize>> = rels
        .iter()
        .map(|rel| {
            rules
                .groups
                .iter()
                .enumerate()
                .flat_map(|(g, group)| group.members.iter().map(move |m| (g, m)))
                .filter(|(_, m)| {
                    if m.ends_with('/') {
                        rel.starts_with(m.as_str())
                    } else {
                        rel == m
                    }
                })
                .max_by_key(|(_, m)| m.len())
                .map(|(g, _)| g)
        })
        .collect();
    for (rel, group) in rels.iter().zip(&group_of) {
        if group.is_none() {
            problems.push(format!("{} is in no layer of {doc_name}", shown(rel)));
        }
    }
    for group in &rules.groups {
        for member in &group.members {
            let matches = |rel: &&String| {
                if member.ends_with('/') {
                    rel.starts_with(member.as_str())
                } else {
                    *rel == member
                }
            };
            if !rels.iter().any(matches) {
                problems.push(format!(
                    "{doc_name}:{}: {} names no .rs file",
                    group.line,
                    shown(member)
                ));
            }
        }
    }

    // What each file says, and where each module is.
    let facts: Vec<Facts> = files.values().map(String::as_str).map(read_facts).collect();
    for (rel, facts) in rels.iter().zip(&facts) {
        for error in &facts.errors {
            problems.push(format!("{}: {error}", shown(rel)));
        }
    }
    // main.rs or bin/ beside lib.rs: other crates, whose `crate::` is not lib.rs's.
    let other_root =
        |rel: &str| files.contains_key("lib.rs") && (rel == "main.rs" || rel.starts_with("bin/"));
    // main.rs alone is read, through the library's name, when it has no modules:
    // their files would sit among the library's.
    let read_root = |rel: &str| rel == "main.rs" && lib.is_some() && !declares_modules(&files[rel]);
    for rel in rels.iter().filter(|rel| other_root(rel) && !read_root(rel)) {
        problems.push(format!(
            "{}: a second crate root beside lib.rs is not supported (its imports are not read)",
            shown(rel)
        ));
    }
    if !files.contains_key("lib.rs") && !files.contains_key("main.rs") {
        problems.push(format!("{src}: no lib.rs or main.rs, so no crate root"));
    }
    let mut module_path: Vec<Vec<String>> = rels
        .iter()
        .map(|rel| {
            if other_root(rel) {
                // A module that no path can name.
                vec![format!("<{rel}>")]
            } else {
                module_of(rel)
            }
        })
        .collect();
    for (f, rel) in rels.iter().enumerate() {
        for (name, path, line) in &facts[f].path_mods {
            let dir = rel.rsplit_once('/').map_or("", |(dir, _)| dir);
            let target = join_normalized(dir, path);
            match target
                .as_deref()
                .and_then(|t| rels.iter().position(|r| r.as_str() == t))
            {
                Some(t) => {
                    let mut module = module_path[f].clone();
                    module.push(name.clone());
                    module_path[t] = module;
                }
                None => problems.push(format!(
                    "{}: line {line}: #[path = \"{path}\"] names no .rs file of {src}",
                    shown(rel)
                )),
            }
        }
    }
    let mut index = Index {
        modules: HashMap::new(),
        scopes: HashMap::new(),
        lib: lib.map(str::to_owned),
    };
    for (f, module) in module_path.iter().enumerate() {
        if let Some(other) = index.modules.insert(module.clone(), f) {
            problems.push(format!(
                "{} and {} are both module `{}`",
                shown(rels[other]),
                shown(rels[f]),
                module.join("::")
            ));
        }
        for inline in &facts[f].inline {
            let mut path = module.clone();
            path.extend(inline.iter().cloned());
            index.modules.entry(path).or_insert(f);
        }
    }
    let absolute_scope = |f: usize, scope: &[String]| {
        let mut path = module_path[f].clone();
        path.extend(scope.iter().cloned());
        path
    };
    for (f, facts) in facts.iter().enumerate() {
        for binding in &facts.bindings {
            let scope = index
                .scopes
                .entry(absolute_scope(f, &binding.scope))
                .or_default();
            scope.bindings.push((
                binding.name.clone(),
                binding.segs.clone(),
                binding.item_level,
            ));
        }
        for glob in &facts.globs {
            let scope = index
                .scopes
                .entry(absolute_scope(f, &glob.scope))
                .or_default();
            scope.globs.push(glob.segs.clone());
        }
        for (scope, name) in &facts.defs {
            let scope = index.scopes.entry(absolute_scope(f, scope)).or_default();
            scope.defs.insert(name.clone());
        }
    }
    // Item-level bindings first, so a module's own `use` wins over one in a function body.
    for scope in index.scopes.values_mut() {
        scope.bindings.sort_by_key(|b| !b.2);
    }

    // The arrows.
    let mut arrows: BTreeMap<(usize, usize), BTreeSet<String>> = BTreeMap::new();
    for (f, facts) in facts.iter().enumerate() {
        if other_root(rels[f]) && !read_root(rels[f]) {
            continue;
        }
        for written in &facts.refs {
            let scope = absolute_scope(f, &written.scope);
            let Some(path) = index.absolute(&scope, &written.segs, 0) else {
                continue;
            };
            let Some((to, name, via)) = index.target(&path, 0) else {
                continue;
            };
            if to == f {
                continue;
            }
            let name = if written.glob { "*".to_owned() } else { name };
            let name = match via {
                Some(via) if via != f => format!("{name} via {}", rels[via]),
                _ => name,
            };
            arrows.entry((f, to)).or_default().insert(name);
        }
    }

    // The layers.
    let mut upward = 0;
    let mut sideways = 0;
    for ((from, to), names) in &arrows {
        let (Some(a), Some(b)) = (group_of[*from], group_of[*to]) else {
            continue;
        };
        let (ga, gb) = (&rules.groups[a], &rules.groups[b]);
        if gb.layer > ga.layer {
            upward += 1;
            problems.push(format!(
                "{} -> {} (layer {} imports layer {}: {})",
                shown(rels[*from]),
                shown(rels[*to]),
                ga.layer,
                gb.layer,
                names_list(names)
            ));
        } else if gb.layer == ga.layer && a != b {
            sideways += 1;
            problems.push(format!(
                "{} -> {} (layer {}: {} imports its sibling {}: {})",
                shown(rels[*from]),
                shown(rels[*to]),
                ga.layer,
                ga.label(),
                gb.label(),
                names_list(names)
            ));
        }
    }

    // The circles.
    let circles = strongly_connected(rels.len(), arrows.keys().copied());
    for circle in &circles {
        let members: Vec<String> = circle.iter().map(|f| shown(rels[*f])).collect();
        problems.push(format!(
            "circle of {} files: {}",
            circle.len(),
            members.join(", ")
        ));
        for ((from, to), names) in &arrows {
            if circle.contains(from) && circle.contains(to) {
                problems.push(format!(
                    "  {} -> {}: {}",
                    shown(rels[*from]),
                    shown(rels[*to]),
                    names_list(names)
                ));
            }
        }
    }

    let layers: BTreeSet<u32> = rules.groups.iter().map(|g| g.layer).collect();
    let references: usize = arrows.values().map(BTreeSet::len).sum();
    let circle_words = match circles.len() {
        0 => "no circle".to_owned(),
        1 => "1 circle".to_owned(),
        n => format!("{n} circles"),
    };
    let direction_words = if upward == 0 && sideways == 0 {
        "none upward".to_owned()
    } else {
        format!("{upward} upward, {sideways} between siblings")
    };
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let summary = format!(
        "{src}: {} on {}, {}, {circle_words}, {direction_words}",
        plural(rels.len(), "file"),
        plural(layers.len(), "layer"),
        plural(references, "reference"),
    );
    let edges = arrows
        .into_iter()
        .map(|((from, to), names)| ((rels[from].clone(), rels[to].clone()), names))
        .collect();
    Report {
        summary,
        problems,
        edges,
    }
}

/// The strongly connected components of more than one node (Tarjan), each sorted, in order of their first node.
fn strongly_connected(
    nodes: usize,
    edges: impl Iterator<Item = (usize, usize)>,
) -> Vec<Vec<usize>> {
    struct Tarjan {
        next: Vec<Vec<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        found: Vec<Vec<usize>>,
    }
    impl Tarjan {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.counter);
            self.low[v] = self.counter;
            self.counter += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for w in self.next[v].clone() {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort_unstable();
                    self.found.push(component);
                }
            }
        }
    }
    let mut next = vec![Vec::new(); nodes];
    for (from, to) in edges {
        next[from].push(to);
    }
    let mut tarjan = Tarjan {
        next,
        index: vec![None; nodes],
        low: vec![0; nodes],
        on_stack: vec![false; nodes],
        stack: Vec::new(),
        counter: 0,
        found: Vec::new(),
    };
    for v in 0..nodes {
        if tarjan.index[v].is_none() {
            tarjan.visit(v);
        }
    }
    tarjan.found.sort();
    tarjan.found
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        reason = "test code: a panic is the failure report"
    )]

    use super::*;

    /// Checks the in-memory tree `files` against the one ```layers block `layers`.
    fn check_tree(layers: &str, files: &[(&str, &str)]) -> Report {
        let doc = format!("# Architecture\n\n```layers\ncrate demo/src\n{layers}\n```\n");
        let rules = parse_rules(&doc, DOC).unwrap();
        assert_eq!(rules.len(), 1);
        let files: BTreeMap<String, String> = files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        check(&rules[0], &files, DOC, Some("demo"))
    }

    fn edge(report: &Report, from: &str, to: &str) -> Option<Vec<String>> {
        report
            .edges
            .get(&(from.to_owned(), to.to_owned()))
            .map(|names| names.iter().cloned().collect())
    }

    const LAYERS: &str = "0 base.rs\n1 model/\n2 stdio.rs | http.rs\n3 lib.rs";

    fn clean_tree() -> Vec<(&'static str, &'static str)> {
        vec![
            (
                "lib.rs",
                "mod base;\nmod model;\nmod stdio;\nmod http;\npub use model::Thing;\n",
            ),
            ("base.rs", "pub struct Id;\n"),
            ("model/mod.rs", "mod thing;\npub use thing::Thing;\n"),
            (
                "model/thing.rs",
                "use crate::base::Id;\npub struct Thing(Id);\n",
            ),
            (
                "stdio.rs",
                "use crate::model::Thing;\nfn f(_: Thing, _: crate::base::Id) {}\n",
            ),
            ("http.rs", "use crate::{base::Id, model::Thing};\n"),
        ]
    }

    #[test]
    fn a_clean_tree_passes() {
        let report = check_tree(LAYERS, &clean_tree());
        assert_eq!(report.problems, Vec::<String>::new());
        assert_eq!(
            report.summary,
            "demo/src: 6 files on 4 layers, 7 references, no circle, none upward"
        );
        // Through the re-export of model/mod.rs, stdio.rs takes Thing from model/thing.rs.
        assert_eq!(
            edge(&report, "stdio.rs", "model/thing.rs").unwrap(),
            ["Thing via model/mod.rs"]
        );
        assert_eq!(edge(&report, "stdio.rs", "base.rs").unwrap(), ["Id"]);
        assert_eq!(
            edge(&report, "model/mod.rs", "model/thing.rs").unwrap(),
            ["Thing"]
        );
    }

    #[test]
    fn a_binary_beside_the_library_is_read_through_the_library_name() {
        let mut tree = clean_tree();
        tree.push((
            "main.rs",
            "use demo::model::Thing;\nfn main() { demo::stdio::serve(); crate::run(); }\n\
             fn run() {}\n#[cfg(test)]\nmod tests {\n    use super::run;\n}\n",
        ));
        let report = check_tree(&format!("{LAYERS} main.rs"), &tree);
        assert_eq!(report.problems, Vec::<String>::new());
        assert_eq!(
            edge(&report, "main.rs", "model/thing.rs").unwrap(),
            ["Thing via model/mod.rs"]
        );
        assert_eq!(edge(&report, "main.rs", "stdio.rs").unwrap(), ["serve"]);
        // `crate::` in the binary is the binary, not lib.rs.
        assert_eq!(edge(&report, "main.rs", "lib.rs"), None);
        // Below what it imports, the binary is upward like any file.
        let report = check_tree(
            "0 base.rs main.rs\n1 model/\n2 stdio.rs | http.rs\n3 lib.rs",
            &tree,
        );
        assert_eq!(
            report.problems,
            [
                "demo/src/main.rs -> demo/src/model/thing.rs (layer 0 imports layer 1: Thing via model/mod.rs)",
                "demo/src/main.rs -> demo/src/stdio.rs (layer 0 imports layer 2: serve)",
            ]
        );
        // With modules of its own it is not read.
        tree.push(("cli.rs", "pub fn cli() {}\n"));
        let last = tree.len() - 2;
        tree[last].1 = "mod cli;\nfn main() { cli::cli(); }\n";
        let report = check_tree(&format!("{LAYERS} main.rs cli.rs"), &tree);
        assert_eq!(
            report.problems,
            [
                "demo/src/main.rs: a second crate root beside lib.rs is not supported (its imports are not read)"
            ]
        );
    }

    #[test]
    fn an_upward_import_fails() {
        let mut tree = clean_tree();
        tree[3] = (
            "model/thing.rs",
            "pub struct Thing;\nfn f() { crate::stdio::serve(); }\n",
        );
        // (stdio.rs no longer takes Thing, or the two would be a circle too.)
        tree[4] = ("stdio.rs", "pub fn serve() {}\n");
        let report = check_tree(LAYERS, &tree);
        assert_eq!(
            report.problems,
            ["demo/src/model/thing.rs -> demo/src/stdio.rs (layer 1 imports layer 2: serve)"]
        );
        assert!(
            report
                .summary
                .ends_with("no circle, 1 upward, 0 between siblings"),
            "{}",
            report.summary
        );
    }

    #[test]
    fn a_sibling_import_fails() {
        let mut tree = clean_tree();
        tree[4] = ("stdio.rs", "use crate::http::Config;\n");
        let report = check_tree(LAYERS, &tree);
        assert_eq!(
            report.problems,
            [
                "demo/src/stdio.rs -> demo/src/http.rs (layer 2: stdio.rs imports its sibling http.rs: Config)"
            ]
        );
        // One group of two members is no pair of siblings.
        let report = check_tree("0 base.rs\n1 model/\n2 stdio.rs http.rs\n3 lib.rs", &tree);
        assert_eq!(report.problems, Vec::<String>::new());
    }

    #[test]
    fn a_three_file_circle_is_reported() {
        let tree = [
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("a.rs", "use crate::b::B;\npub struct A;\n"),
            ("b.rs", "pub struct B(crate::c::C);\n"),
            ("c.rs", "pub struct C;\nfn f() -> super::a::A { todo!() }\n"),
        ];
        let report = check_tree("0 a.rs b.rs c.rs\n1 lib.rs", &tree);
        assert_eq!(
            report.problems,
            [
                "circle of 3 files: demo/src/a.rs, demo/src/b.rs, demo/src/c.rs",
                "  demo/src/a.rs -> demo/src/b.rs: B",
                "  demo/src/b.rs -> demo/src/c.rs: C",
                "  demo/src/c.rs -> demo/src/a.rs: A",
            ]
        );
        assert!(report.summary.contains("1 circle"), "{}", report.summary);
    }

    #[test]
    fn nested_use_groups_and_inline_test_modules_resolve() {
        let tree = [
            ("lib.rs", "mod a;\nmod c;\nmod d;\nmod e;\n"),
            ("a/mod.rs", "pub mod b;\npub mod x;\n"),
            ("a/b.rs", "pub fn b() {}\n"),
            ("a/x.rs", "pub fn x() {}\n"),
            ("c.rs", "pub fn c() {}\n"),
            ("d.rs", "pub struct D;\n"),
            (
                "e/mod.rs",
                "pub(crate) use crate::{a::{b::{self, b}, x::x as renamed}, c::*, d};\n\
                 mod inner;\n\
                 pub fn top() {}\n\
                 #[cfg(test)]\nmod tests {\n    use super::*;\n    use super::inner::f;\n    \
                 fn t() { super::top(); self::helper(); d::D; }\n    fn helper() {}\n}\n",
            ),
            (
                "e/inner.rs",
                "pub fn f() { super::top(); }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::top;\n}\n",
            ),
        ];
        let report = check_tree("0 a/ c.rs d.rs\n1 e/\n2 lib.rs", &tree);
        assert_eq!(edge(&report, "e/mod.rs", "a/b.rs").unwrap(), ["b"]);
        assert_eq!(edge(&report, "e/mod.rs", "a/x.rs").unwrap(), ["x"]);
        assert_eq!(edge(&report, "e/mod.rs", "c.rs").unwrap(), ["*"]);
        // `d` through the use, then `d::D` in the test module through `use super::*`.
        assert_eq!(edge(&report, "e/mod.rs", "d.rs").unwrap(), ["D", "d"]);
        // `use super::*` in inner.rs's tests names inner.rs itself: no arrow;
        // `super::super::top` and `super::top` name e/mod.rs.
        assert_eq!(edge(&report, "e/inner.rs", "e/mod.rs").unwrap(), ["top"]);
        assert_eq!(edge(&report, "e/mod.rs", "e/inner.rs").unwrap(), ["f"]);
        assert_eq!(report.edges.len(), 6, "{:?}", report.edges);
        assert_eq!(
            report.problems,
            [
                "circle of 2 files: demo/src/e/inner.rs, demo/src/e/mod.rs",
                "  demo/src/e/inner.rs -> demo/src/e/mod.rs: top",
                "  demo/src/e/mod.rs -> demo/src/e/inner.rs: f",
            ]
        );
    }

    #[test]
    fn comments_strings_and_char_literals_do_not_count() {
        let tree = [
            ("lib.rs", "mod low;\nmod top;\n"),
            ("top.rs", "pub fn top() {}\n"),
            (
                "low.rs",
                "//! See [`top`](crate::top::top).\n\
                 // use crate::top;\n\
                 /* crate::top::top(); /* nested */ crate::top::top(); */\n\
                 /// [`x`](crate::top::top)\n\
                 const A: &str = \"crate::top::top\";\n\
                 const B: &str = r#\"a \" crate::top::top \"#;\n\
                 const C: char = '\"';\n\
                 const C2: &str = \"crate::top::top\";\n\
                 const D: &str = \"escaped \\\" crate::top::top\";\n\
                 const E: char = '\\'';\n\
                 const E2: char = '\\\"';\n\
                 const E3: &str = \"crate::top::top\";\n\
                 fn f<'a>(x: &'a str) -> &'a str { x }\n\
                 const F: &[u8] = b\"crate::top::top\";\n\
                 fn q() {\n\
                     quote! { use crate::top; };\n\
                     quote::quote!(crate::top::top());\n\
                 }\n",
            ),
        ];
        let report = check_tree("0 low.rs\n1 top.rs\n2 lib.rs", &tree);
        assert_eq!(report.problems, Vec::<String>::new());
        assert_eq!(report.edges.len(), 0, "{:?}", report.edges);
        // The same tree with one real reference after all of that fails.
        let low = format!("{}fn g() {{ crate::top::top(); }}\n", tree[2].1);
        let tree = [tree[0], tree[1], ("low.rs", low.as_str())];
        let report = check_tree("0 low.rs\n1 top.rs\n2 lib.rs", &tree);
        assert_eq!(
            report.problems,
            ["demo/src/low.rs -> demo/src/top.rs (layer 0 imports layer 1: top)"]
        );
    }

    #[test]
    fn a_file_in_no_layer_is_an_error() {
        let mut tree = clean_tree();
        tree.push(("extra.rs", "pub fn extra() {}\n"));
        let report = check_tree(LAYERS, &tree);
        assert_eq!(
            report.problems,
            ["demo/src/extra.rs is in no layer of ARCHITECTURE.md"]
        );
    }

    #[test]
    fn the_longest_member_wins_and_a_stale_member_is_an_error() {
        // model/mod.rs on its own, above the rest of model/.
        let layers = "0 base.rs\n1 model/\n2 model/mod.rs\n3 stdio.rs | http.rs\n4 lib.rs\n4 gone/";
        assert_eq!(
            parse_rules(&format!("```layers\ncrate x\n{layers}\n```\n"), DOC).unwrap_err(),
            "ARCHITECTURE.md:8: layer 4 is declared twice (also line 7); put its groups on one line, split by `|`"
        );
        let report = check_tree(
            "0 base.rs\n1 model/\n2 model/mod.rs\n3 stdio.rs | http.rs\n4 lib.rs gone/",
            &clean_tree(),
        );
        assert_eq!(
            report.problems,
            ["ARCHITECTURE.md:9: demo/src/gone/ names no .rs file"]
        );
        // model/thing.rs imports nothing from model/mod.rs; the other way is downward.
        assert!(edge(&report, "model/mod.rs", "model/thing.rs").is_some());
    }

    #[test]
    fn path_attributes_and_child_modules_resolve() {
        let tree = [
            (
                "lib.rs",
                "#[doc(hidden)]\n#[path = \"private.rs\"]\npub mod __private;\nmod a;\n",
            ),
            ("private.rs", "pub fn hidden() {}\n"),
            (
                "a.rs",
                "mod tools;\npub fn f() { crate::__private::hidden(); tools::run(); }\n",
            ),
            (
                "a/tools.rs",
                "pub fn run() { let _ = ::std::mem::size_of::<u8>(); }\n",
            ),
        ];
        let report = check_tree("0 a/\n1 a.rs\n2 lib.rs private.rs", &tree);
        assert_eq!(edge(&report, "a.rs", "a/tools.rs").unwrap(), ["run"]);
        assert_eq!(
            report.problems,
            ["demo/src/a.rs -> demo/src/private.rs (layer 1 imports layer 2: hidden)"]
        );
    }

    #[test]
    fn the_rules_are_read_from_layers_blocks_only() {
        let doc = "Text.\n\n````markdown\n```layers\ncrate inside/an/example\n0 x.rs\n```\n````\n\n\
                   ```rust\nfn main() {}\n```\n\n```layers\n# the server\ncrate a/src/\n\n0 x/ | y.rs z.rs\n1 lib.rs\n```\n";
        let rules = parse_rules(doc, DOC).unwrap();
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].src, "a/src");
        let groups: Vec<(u32, String)> = rules[0]
            .groups
            .iter()
            .map(|g| (g.layer, g.label()))
            .collect();
        assert_eq!(
            groups,
            [
                (0, "x/".to_owned()),
                (0, "y.rs z.rs".to_owned()),
                (1, "lib.rs".to_owned())
            ]
        );
        assert!(
            parse_rules("no blocks\n", DOC)
                .unwrap_err()
                .contains("no ```layers block")
        );
        assert_eq!(
            parse_rules(
                "```layers\ncrate a\none x.rs\n2 x.rs | \n3 ../y.rs\n```\n",
                DOC
            )
            .unwrap_err(),
            "ARCHITECTURE.md:3: expected `<layer number> <members> [| <members>...]`, not `one x.rs`\n\
             ARCHITECTURE.md:4: layer 2 has an empty group\n\
             ARCHITECTURE.md:5: ../y.rs: members are paths inside a (no leading /, no . or ..)"
        );
    }

    #[test]
    fn run_reads_the_doc_and_the_tree_from_disk() {
        let root = std::env::temp_dir().join(format!("xtask-layers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("demo/src/model")).unwrap();
        for (path, text) in clean_tree() {
            std::fs::write(root.join("demo/src").join(path), text).unwrap();
        }
        let doc = root.join(DOC);
        std::fs::write(&doc, format!("```layers\ncrate demo/src\n{LAYERS}\n```\n")).unwrap();
        let passed = run(&root, &doc);
        std::fs::write(
            root.join("demo/src/base.rs"),
            "pub struct Id;\nfn f() { crate::http::serve(); }\n",
        )
        .unwrap();
        let failed = run(&root, &doc);
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(
            passed.unwrap(),
            "demo/src: 6 files on 4 layers, 7 references, no circle, none upward\n"
        );
        let failed = failed.unwrap_err();
        assert!(
            failed.starts_with(
                "demo/src/base.rs -> demo/src/http.rs (layer 0 imports layer 2: serve)\n"
            ),
            "{failed}"
        );
        assert!(failed.contains("1 upward"), "{failed}");
    }
}

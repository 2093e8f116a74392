//! Layout of the `struct_serde!` tables in the formatted file: prettyplease
//! prints a macro body as flowing text, so each table is printed again here
//! with one const or field per line, as one would write it by hand.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

const OPEN: &str = "__rt::struct_serde! {";

/// Rewrites every `struct_serde!` invocation of `text`; a body of another
/// shape is left as prettyplease printed it.
pub(super) fn tables(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        out.push_str(line);
        out.push('\n');
        if line.trim_start() != OPEN {
            continue;
        }
        let indent = &line[..line.len() - line.trim_start().len()];
        let close = format!("{indent}}}");
        let mut body = Vec::new();
        for inner in lines.by_ref() {
            if inner == close {
                break;
            }
            body.push(inner);
        }
        match table(&body.join(" "), indent) {
            Some(laid_out) => out.push_str(&laid_out),
            None => body.iter().for_each(|l| {
                out.push_str(l);
                out.push('\n');
            }),
        }
        out.push_str(&close);
        out.push('\n');
    }
    out
}

/// `Type, "Type", consts { .. } fields { .. } extra open|closed`, one entry
/// per line.
fn table(body: &str, indent: &str) -> Option<String> {
    let tokens: TokenStream = body.parse().ok()?;
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let [
        name,
        _,
        literal,
        _,
        consts_kw,
        consts,
        fields_kw,
        fields,
        extra_kw,
        extra,
    ] = trees.as_slice()
    else {
        return None;
    };
    let mut out = format!("{indent}    {name}, {literal},\n");
    for (keyword, group) in [(consts_kw, consts), (fields_kw, fields)] {
        let TokenTree::Group(group) = group else {
            return None;
        };
        if group.delimiter() != Delimiter::Brace {
            return None;
        }
        let entries = entries(group.stream());
        if entries.is_empty() {
            out.push_str(&format!("{indent}    {keyword} {{}}\n"));
            continue;
        }
        out.push_str(&format!("{indent}    {keyword} {{\n"));
        for entry in entries {
            out.push_str(&format!("{indent}        {entry};\n"));
        }
        out.push_str(&format!("{indent}    }}\n"));
    }
    out.push_str(&format!("{indent}    {extra_kw} {extra}\n"));
    Some(out)
}

/// The `;`-separated entries of a table section, each printed on one line.
fn entries(stream: TokenStream) -> Vec<String> {
    let mut entries = Vec::new();
    let mut current = Vec::new();
    for tree in stream {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == ';' => {
                entries.push(print(std::mem::take(&mut current)));
            }
            _ => current.push(tree),
        }
    }
    if !current.is_empty() {
        entries.push(print(current));
    }
    entries
}

/// Tokens as Rust is usually written: `a: Option<Vec<String>> = "a", optional`.
fn print(trees: Vec<TokenTree>) -> String {
    let mut out = String::new();
    let mut word = false;
    let mut iter = trees.into_iter().peekable();
    while let Some(tree) = iter.next() {
        match tree {
            TokenTree::Ident(_) | TokenTree::Literal(_) => {
                if word {
                    out.push(' ');
                }
                out.push_str(&tree.to_string());
                word = true;
            }
            TokenTree::Punct(p) => {
                let next = iter.peek().and_then(|t| match t {
                    TokenTree::Punct(n) => Some(n.as_char()),
                    _ => None,
                });
                match (p.as_char(), p.spacing(), next) {
                    (':', Spacing::Joint, Some(':')) | ('=', Spacing::Joint, Some('>')) => {
                        let second = iter.next().map(|t| t.to_string()).unwrap_or_default();
                        let pair = format!("{}{second}", p.as_char());
                        if pair == "=>" {
                            out.push_str(" => ");
                        } else {
                            out.push_str(&pair);
                        }
                    }
                    (':', _, _) => out.push_str(": "),
                    (',', _, _) => out.push_str(", "),
                    ('=', _, _) => out.push_str(" = "),
                    (c, _, _) => out.push(c),
                }
                word = false;
            }
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                out.push_str(&print(group.stream().into_iter().collect()));
                out.push_str(close);
                word = true;
            }
        }
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_entry_per_line() {
        let text = "__rt::struct_serde! {\n    Link, \"Link\", consts { seen_m = \"m\" =>\n    __rt::Const::Str(\"x\"), absent_ok = false; } fields { name : Option < Vec < String > > =\n    \"name\", optional; } extra open\n}\nfn f() {}\n";
        assert_eq!(
            tables(text),
            "__rt::struct_serde! {\n    Link, \"Link\",\n    consts {\n        seen_m = \"m\" => __rt::Const::Str(\"x\"), absent_ok = false;\n    }\n    fields {\n        name: Option<Vec<String>> = \"name\", optional;\n    }\n    extra open\n}\nfn f() {}\n"
        );
    }

    #[test]
    fn other_shapes_are_left_alone() {
        let text = "__rt::struct_serde! {\n    something else\n}\n";
        assert_eq!(tables(text), text);
    }
}

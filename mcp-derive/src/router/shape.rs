//! What the syntax says, with no type information: a type's shape (a
//! reference, an `Option`, never an object or enum) and a URI template's
//! variables.

use syn::Type;

/// A path type (or a reference to one) whose last segment is `name`.
pub fn is_named(ty: &Type, name: &str) -> bool {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == name))
}

/// An `Option<...>`, not behind a reference.
pub fn is_option(ty: &Type) -> bool {
    is_named(ty, "Option") && !matches!(ty, Type::Reference(_))
}

/// Types whose JSON Schema cannot be an object, spotted by their syntax.
pub fn never_object(ty: &Type) -> bool {
    const SCALARS: &[&str] = &[
        "bool", "char", "str", "String", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16",
        "u32", "u64", "u128", "usize", "f32", "f64", "Vec", "Option", "VecDeque", "HashSet",
        "BTreeSet",
    ];
    match ty {
        Type::Array(_) | Type::Slice(_) | Type::Tuple(_) | Type::Reference(_) => true,
        Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .segments
                    .last()
                    .is_some_and(|s| SCALARS.contains(&s.ident.to_string().as_str()))
        }
        _ => false,
    }
}

/// The inner type of an `Option<T>` (else the type itself).
pub fn option_inner(ty: &Type) -> Type {
    if !is_option(ty) {
        return ty.clone();
    }
    let Type::Path(path) = ty else {
        return ty.clone();
    };
    path.path
        .segments
        .last()
        .and_then(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.first().and_then(|g| match g {
                syn::GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            }),
            _ => None,
        })
        .unwrap_or_else(|| ty.clone())
}

/// Types whose JSON schema is never a string enum: no completion is
/// derived from them.
pub fn never_enum(ty: &Type) -> bool {
    const PLAIN: &[&str] = &[
        "bool", "char", "str", "String", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16",
        "u32", "u64", "u128", "usize", "f32", "f64", "PathBuf",
    ];
    match ty {
        Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .segments
                    .last()
                    .is_some_and(|s| PLAIN.contains(&s.ident.to_string().as_str()))
        }
        Type::Reference(r) => never_enum(&r.elem),
        _ => true,
    }
}

/// The variable names of a URI template, or why it cannot be parsed.
pub fn template_variables(template: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut rest = template;
    let mut previous_was_var = false;
    while let Some(open) = rest.find('{') {
        if rest[..open].contains('}') {
            return Err(format!("stray `}}` in URI template `{template}`"));
        }
        if open > 0 {
            previous_was_var = false;
        }
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in URI template `{template}`"))?;
        let expression = &rest[open + 1..open + close];
        let name = expression.strip_prefix('+').unwrap_or(expression);
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(format!(
                "unsupported expression `{{{expression}}}` in URI template `{template}`: use `{{name}}` or `{{+name}}`"
            ));
        }
        if previous_was_var {
            return Err(format!(
                "two variables without text between them in URI template `{template}` cannot be told apart"
            ));
        }
        previous_was_var = true;
        names.push(name.to_owned());
        rest = &rest[open + close + 1..];
    }
    if rest.contains('}') {
        return Err(format!("stray `}}` in URI template `{template}`"));
    }
    Ok(names)
}

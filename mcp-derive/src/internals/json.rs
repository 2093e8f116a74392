//! JSON-like literals in attributes (`{"key": [1, true, null]}`), turned
//! into `serde_json` values at compile time.

use serde_json::{Map, Number, Value};
use syn::parse::{Parse, ParseStream};
use syn::{Lit, LitStr, Token, braced, bracketed};

/// A JSON value written as Rust tokens.
pub struct JsonLiteral(pub Value);

impl Parse for JsonLiteral {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        parse_value(input).map(JsonLiteral)
    }
}

fn parse_value(input: ParseStream<'_>) -> syn::Result<Value> {
    if input.peek(syn::token::Brace) {
        let content;
        braced!(content in input);
        let mut map = Map::new();
        while !content.is_empty() {
            let key: LitStr = content.parse()?;
            content.parse::<Token![:]>()?;
            let value = parse_value(&content)?;
            if map.insert(key.value(), value).is_some() {
                return Err(syn::Error::new(
                    key.span(),
                    format!("duplicate key `{}` in JSON object", key.value()),
                ));
            }
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        return Ok(Value::Object(map));
    }
    if input.peek(syn::token::Bracket) {
        let content;
        bracketed!(content in input);
        let mut items = Vec::new();
        while !content.is_empty() {
            items.push(parse_value(&content)?);
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        return Ok(Value::Array(items));
    }
    if input.peek(Token![-]) {
        input.parse::<Token![-]>()?;
        return match parse_value(input)? {
            Value::Number(n) => negate(&n)
                .ok_or_else(|| input.error("this number does not fit in JSON"))
                .map(Value::Number),
            _ => Err(input.error("expected a number after `-`")),
        };
    }
    if input.peek(syn::Ident) {
        let ident: syn::Ident = input.parse()?;
        return match ident.to_string().as_str() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            "null" => Ok(Value::Null),
            _ => Err(syn::Error::new(ident.span(), "expected a JSON value")),
        };
    }
    match input.parse::<Lit>()? {
        Lit::Str(s) => Ok(Value::String(s.value())),
        Lit::Bool(b) => Ok(Value::Bool(b.value)),
        Lit::Int(i) => i
            .base10_parse::<u64>()
            .map(|n| Value::Number(n.into()))
            .map_err(|_| syn::Error::new(i.span(), "this integer does not fit in u64")),
        Lit::Float(f) => f
            .base10_parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| syn::Error::new(f.span(), "this number does not fit in JSON")),
        other => Err(syn::Error::new(other.span(), "expected a JSON value")),
    }
}

fn negate(n: &Number) -> Option<Number> {
    if let Some(u) = n.as_u64() {
        return i64::try_from(u).ok().map(|i| Number::from(-i));
    }
    n.as_f64().and_then(|f| Number::from_f64(-f))
}

//! HTTP header value helpers shared by the entry point and the HTTP
//! transport: the `=?base64?…?=` sentinel of `Mcp-Name` / `Mcp-Param-*`.

/// Decodes an MCP header value: a value of the form `=?base64?<data>?=` is
/// standard base64 (with padding) of UTF-8 text; any other value is taken
/// literally. Errors name what is wrong (bad characters, bad padding, not
/// UTF-8).
pub fn decode_header_value(raw: &str) -> Result<String, String> {
    let Some(inner) = raw
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Ok(raw.to_owned());
    };
    let bytes = decode_base64(inner)?;
    String::from_utf8(bytes).map_err(|_| "the base64 value is not UTF-8".to_owned())
}

fn sextet(byte: u8) -> Option<u8> {
    match byte {
        b'A'..=b'Z' => Some(byte - b'A'),
        b'a'..=b'z' => Some(byte - b'a' + 26),
        b'0'..=b'9' => Some(byte - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Strict standard base64: length a multiple of 4, `=` only as the final
/// one or two characters.
fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return Err("base64 length is not a multiple of 4 (bad padding)".into());
    }
    let padding = bytes.iter().rev().take_while(|b| **b == b'=').count();
    if padding > 2 {
        return Err("too much base64 padding".into());
    }
    let body = &bytes[..bytes.len() - padding];
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &byte in body {
        let value =
            sextet(byte).ok_or_else(|| format!("invalid base64 character {:?}", byte as char))?;
        acc = (acc << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::decode_header_value;

    #[test]
    fn sentinel() {
        assert_eq!(decode_header_value("=?base64?SGVsbG8=?=").unwrap(), "Hello");
        assert!(decode_header_value("=?base64?SGVsbG8?=").is_err());
        assert!(decode_header_value("=?base64?SGVs!!!bG8=?=").is_err());
        assert_eq!(decode_header_value("Hello").unwrap(), "Hello");
        assert_eq!(
            decode_header_value("=?base64?SGVsbG8=").unwrap(),
            "=?base64?SGVsbG8="
        );
    }
}

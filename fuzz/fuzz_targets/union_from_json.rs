//! Fuzzes every generated union's `from_json` (2026-07-28 and 2025-11-25)
//! with arbitrary JSON. Invariants: no panic; when `from_json` accepts a
//! value, serde's `Deserialize` accepts it too and agrees, and the value
//! round-trips: serialize → parse → `from_json` gives an equal value,
//! which serializes to the same JSON.
#![no_main]

use std::fmt::Debug;

use libfuzzer_sys::fuzz_target;
use mcp_era_types::{v2025_11_25 as legacy, v2026_07_28 as modern};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn check<T>(name: &str, value: &Value, from_json: fn(&Value) -> Result<T, serde_json::Error>)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let Ok(first) = from_json(value) else {
        return;
    };
    match serde_json::from_value::<T>(value.clone()) {
        Ok(typed) => assert_eq!(first, typed, "{name}: from_json and Deserialize differ"),
        Err(e) => panic!("{name}: from_json accepted {value} but Deserialize says {e}"),
    }
    let text = serde_json::to_string(&first).expect("a union serializes");
    let reparsed: Value = serde_json::from_str(&text).expect("serialized JSON parses");
    let second =
        from_json(&reparsed).unwrap_or_else(|e| panic!("{name}: {text} does not read back: {e}"));
    assert_eq!(first, second, "{name}: the round trip changed the value");
    let again = serde_json::to_string(&second).expect("a union serializes");
    assert_eq!(text, again, "{name}: the round trip changed the JSON");
}

macro_rules! unions {
    ($value:expr; $($module:ident :: $ty:ident),* $(,)?) => {
        $(check::<$module::$ty>(
            concat!(stringify!($module), "::", stringify!($ty)),
            $value,
            $module::$ty::from_json,
        );)*
    };
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    unions!(&value;
        modern::CallToolResultResponseResult,
        modern::ClientRequest,
        modern::CompleteRequestParamsRef,
        modern::ContentBlock,
        modern::ElicitRequestParams,
        modern::ElicitResultContentValue,
        modern::EmbeddedResourceResource,
        modern::EnumSchema,
        modern::GetPromptResultResponseResult,
        modern::InputRequest,
        modern::InputResponse,
        modern::JSONRPCMessage,
        modern::JSONRPCResponse,
        modern::MultiSelectEnumSchema,
        modern::PrimitiveSchemaDefinition,
        modern::ProgressToken,
        modern::ReadResourceResultContentsItem,
        modern::ReadResourceResultResponseResult,
        modern::RequestId,
        modern::SamplingMessageContent,
        modern::SamplingMessageContentBlock,
        modern::ServerNotification,
        modern::ServerResult,
        modern::SingleSelectEnumSchema,
        legacy::ClientNotification,
        legacy::ClientRequest,
        legacy::ClientResult,
        legacy::CompleteRequestParamsRef,
        legacy::ContentBlock,
        legacy::ElicitRequestParams,
        legacy::ElicitResultContentValue,
        legacy::EmbeddedResourceResource,
        legacy::EnumSchema,
        legacy::JSONRPCMessage,
        legacy::JSONRPCResponse,
        legacy::MultiSelectEnumSchema,
        legacy::PrimitiveSchemaDefinition,
        legacy::ProgressToken,
        legacy::ReadResourceResultContentsItem,
        legacy::RequestId,
        legacy::SamplingMessageContent,
        legacy::SamplingMessageContentBlock,
        legacy::ServerNotification,
        legacy::ServerRequest,
        legacy::ServerResult,
        legacy::SingleSelectEnumSchema,
    );
});

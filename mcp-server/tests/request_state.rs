//! Sealed `requestState` through the real entry point: a tool, a prompt
//! and a resource see their own plaintext while the wire carries a sealed
//! token; a changed token, one replayed for another tool or other
//! arguments, or one from a server with other keys is `-32602` and the
//! handler never runs; two server types with the same keys open each
//! other's tokens; a tool whose return type cannot ask for input still
//! checks a state it is sent, and one that lies about it leaks nothing.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

mod common;

use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_era_server::mcp_era_types::v2026_07_28::{
    CallToolResult, CallToolResultResponseResult, GetPromptResult, PromptMessage,
    ReadResourceResult, ReadResourceResultContentsItem, ReadResourceResultResponseResult,
    TextResourceContents,
};
use mcp_era_server::transport::MessageContext;
use mcp_era_server::{
    HandlerResult, InputRequired, IntoToolResult, McpServer, McpServerExt, PromptAnswer,
    RequestStateKeys, ResourceRequest, RetryInput, ToolAnswer, router,
};
use serde_json::{Value, json};

use common::block_on;

/// How many times `ask` ran with a `requestState`, per server type and
/// argument `n`: the tests run in parallel, so each one uses its own `n`.
static RETRIES: [[AtomicUsize; 8]; 3] = [const { [const { AtomicUsize::new(0) }; 8] }; 3];

/// One round of `ask`: first `input_required` with state `n=<n>`, then,
/// on a retry, the state it reads back.
fn ask(slot: usize, n: i64, retry: &RetryInput) -> ToolAnswer {
    match &retry.state {
        Some(state) => {
            RETRIES[slot][usize::try_from(n).unwrap()].fetch_add(1, Ordering::SeqCst);
            Ok(CallToolResult::text(format!("state {state}")).into())
        }
        None => InputRequired::new().state(format!("n={n}")).into(),
    }
}

/// A return type that says it never asks for input, and asks.
struct Liar;

impl IntoToolResult for Liar {
    const CAN_REQUIRE_INPUT: bool = false;

    fn into_tool_result(self) -> HandlerResult<CallToolResultResponseResult> {
        Ok(InputRequired::new()
            .state("liar-plaintext")
            .into_result()
            .into())
    }
}

macro_rules! server {
    ($name:ident, $slot:expr) => {
        #[derive(McpServer)]
        #[mcp(name = "sealed", version = "1.0.0")]
        struct $name;

        #[router]
        impl $name {
            /// Asks, then reads its state back
            #[tool]
            fn ask(&self, n: i64, retry: &RetryInput) -> ToolAnswer {
                ask($slot, n, retry)
            }

            /// Another tool of the same shape
            #[tool]
            fn other(&self, n: i64, retry: &RetryInput) -> ToolAnswer {
                ask($slot, n, retry)
            }

            /// Never asks for input (its arguments are not hashed unless
            /// a state comes in)
            #[tool]
            fn plain(&self, n: i64) -> String {
                format!("plain {n}")
            }

            /// Asks for input though its return type says it cannot
            #[tool]
            fn liar(&self) -> Liar {
                Liar
            }

            /// A prompt with a state
            #[prompt]
            fn brief(&self, topic: String, retry: &RetryInput) -> PromptAnswer {
                match &retry.state {
                    Some(state) => Ok(GetPromptResult::new(vec![PromptMessage::user(format!(
                        "{topic}: {state}"
                    ))])
                    .into()),
                    None => InputRequired::new().state(format!("topic={topic}")).into(),
                }
            }

            /// A resource with a state
            #[resource(uri = "memo://sealed")]
            fn memo(&self, request: &ResourceRequest) -> ReadResourceResultResponseResult {
                match &request.retry.state {
                    Some(state) => ReadResourceResult::new(
                        vec![ReadResourceResultContentsItem::TextResourceContents(
                            TextResourceContents::from_uri_and_text(request.uri.clone(), state),
                        )],
                        request.cache_hints.clone(),
                    )
                    .into(),
                    None => InputRequired::new()
                        .state("memo-state")
                        .into_result()
                        .into(),
                }
            }
        }
    };
}

server!(Alpha, 0);
server!(Beta, 1);
server!(Stranger, 2);

const SHARED: [u8; 32] = [7; 32];

/// Alpha and Beta share keys (Beta rotated: a new current key, Alpha's
/// as the previous one); Stranger has its own.
fn keys() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        Alpha
            .declaration()
            .request_state()
            .set_keys(RequestStateKeys::new("shared", SHARED).unwrap());
        Beta.declaration().request_state().set_keys(
            RequestStateKeys::new("next", [8; 32])
                .unwrap()
                .with_previous("shared", SHARED)
                .unwrap(),
        );
        Stranger
            .declaration()
            .request_state()
            .set_keys(RequestStateKeys::new("shared", [9; 32]).unwrap());
    });
}

fn call<S: McpServer>(server: &S, method: &str, mut params: Value) -> Value {
    keys();
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    block_on(server.handle_value(message, &MessageContext::stdio()))
        .json()
        .expect("a request gets a response")
}

/// The sealed state of `ask`'s first round with `n`.
fn first_round<S: McpServer>(server: &S, tool: &str, n: i64) -> String {
    let answer = call(
        server,
        "tools/call",
        json!({"name": tool, "arguments": {"n": n}}),
    );
    assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
    let state = answer["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(state.starts_with("v1."), "{state}");
    assert!(!state.contains("n="), "the plaintext shows: {state}");
    state
}

fn retry<S: McpServer>(server: &S, tool: &str, n: i64, state: &str) -> Value {
    call(
        server,
        "tools/call",
        json!({"name": tool, "arguments": {"n": n}, "requestState": state}),
    )
}

/// The `-32602` of a refused state, its `data.reason`, and that the
/// handler never ran with this server and `n`.
#[track_caller]
fn refused(answer: &Value, slot: usize, n: usize, reason: &str) {
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(answer["error"]["data"]["reason"], reason, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("requestState "),
        "{answer}"
    );
    assert_eq!(
        RETRIES[slot][n].load(Ordering::SeqCst),
        0,
        "the handler ran"
    );
}

#[test]
fn the_handler_reads_its_plaintext_and_the_wire_carries_a_token() {
    let state = first_round(&Alpha, "ask", 3);
    let answer = retry(&Alpha, "ask", 3, &state);
    assert_eq!(
        answer["result"]["content"][0]["text"], "state n=3",
        "{answer}"
    );
}

#[test]
fn a_changed_or_replayed_state_is_refused_before_the_handler() {
    let state = first_round(&Alpha, "ask", 5);
    // One character of the sealed body changed.
    let mut tampered = state.clone().into_bytes();
    let at = tampered.len() / 2 + 8;
    tampered[at] = if tampered[at] == b'x' { b'y' } else { b'x' };
    let tampered = String::from_utf8(tampered).unwrap();
    refused(&retry(&Alpha, "ask", 5, &tampered), 0, 5, "integrity");
    refused(&retry(&Alpha, "ask", 5, "n=5"), 0, 5, "not_a_token");
    // The same token for another tool, or with other arguments.
    refused(&retry(&Alpha, "other", 5, &state), 0, 5, "other_target");
    refused(&retry(&Alpha, "ask", 6, &state), 0, 6, "other_arguments");
    // A tools/call token on prompts/get.
    let prompt = call(
        &Alpha,
        "prompts/get",
        json!({"name": "brief", "arguments": {"topic": "x"}, "requestState": state}),
    );
    assert_eq!(
        prompt["error"]["data"]["reason"], "other_method",
        "{prompt}"
    );
    // And it still opens where it belongs.
    let answer = retry(&Alpha, "ask", 5, &state);
    assert_eq!(
        answer["result"]["content"][0]["text"], "state n=5",
        "{answer}"
    );
}

#[test]
fn servers_with_the_same_keys_open_each_others_states() {
    // Sealed by Alpha ("shared"), opened by Beta (which holds "shared" as
    // its previous key) and the other way round.
    let state = first_round(&Alpha, "ask", 1);
    let answer = retry(&Beta, "ask", 1, &state);
    assert_eq!(
        answer["result"]["content"][0]["text"], "state n=1",
        "{answer}"
    );
    // Beta seals with "next", which Alpha does not hold.
    let state = first_round(&Beta, "ask", 2);
    assert!(state.starts_with("v1.next."), "{state}");
    refused(&retry(&Alpha, "ask", 2, &state), 0, 2, "unknown_key");
    // Stranger calls its key "shared" too, with other bytes.
    let state = first_round(&Alpha, "ask", 4);
    refused(&retry(&Stranger, "ask", 4, &state), 2, 4, "integrity");
}

#[test]
fn prompts_and_resources_are_sealed_too() {
    let first = call(
        &Alpha,
        "prompts/get",
        json!({"name": "brief", "arguments": {"topic": "rust"}}),
    );
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    assert!(
        state.starts_with("v1.") && !state.contains("topic"),
        "{first}"
    );
    let answer = call(
        &Alpha,
        "prompts/get",
        json!({"name": "brief", "arguments": {"topic": "rust"}, "requestState": state}),
    );
    assert_eq!(
        answer["result"]["messages"][0]["content"]["text"], "rust: topic=rust",
        "{answer}"
    );
    let other = call(
        &Alpha,
        "prompts/get",
        json!({"name": "brief", "arguments": {"topic": "go"}, "requestState": state}),
    );
    assert_eq!(
        other["error"]["data"]["reason"], "other_arguments",
        "{other}"
    );

    let first = call(&Alpha, "resources/read", json!({"uri": "memo://sealed"}));
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    assert!(
        state.starts_with("v1.") && !state.contains("memo"),
        "{first}"
    );
    let answer = call(
        &Alpha,
        "resources/read",
        json!({"uri": "memo://sealed", "requestState": state}),
    );
    assert_eq!(
        answer["result"]["contents"][0]["text"], "memo-state",
        "{answer}"
    );
    let tool = retry(&Alpha, "ask", 1, &state);
    assert_eq!(tool["error"]["data"]["reason"], "other_method", "{tool}");
}

#[test]
fn a_tool_that_cannot_ask_still_checks_the_state_it_is_sent() {
    let answer = call(
        &Alpha,
        "tools/call",
        json!({"name": "plain", "arguments": {"n": 7}}),
    );
    assert_eq!(
        answer["result"]["content"][0]["text"], "plain 7",
        "{answer}"
    );
    let state = first_round(&Alpha, "ask", 7);
    let answer = retry(&Alpha, "plain", 7, &state);
    assert_eq!(
        answer["error"]["data"]["reason"], "other_target",
        "{answer}"
    );
    let answer = retry(&Alpha, "plain", 7, "n=7");
    assert_eq!(answer["error"]["data"]["reason"], "not_a_token", "{answer}");
}

#[test]
fn a_return_type_that_lies_about_asking_gets_an_internal_error() {
    let answer = call(&Alpha, "tools/call", json!({"name": "liar"}));
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("CAN_REQUIRE_INPUT"), "{answer}");
    assert!(!answer.to_string().contains("liar-plaintext"), "{answer}");
}

//! The RFC 7662 validator's answer cache (feature `auth`), against a local
//! introspection endpoint that counts how often it is asked.

#![cfg(feature = "auth")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use mcp_era_server::http::auth::{IntrospectionValidator, TokenValidator, now_secs};
use serde_json::{Value, json};
use tokio::net::TcpListener;

const RESOURCE: &str = "http://127.0.0.1/mcp";

/// An introspection endpoint: `good-*` tokens are active for an hour,
/// anything else is inactive. Returns its URL and its request counter.
async fn endpoint() -> (String, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let app = Router::new()
        .route(
            "/introspect",
            post(
                |State(asked): State<Arc<AtomicUsize>>, form: String| async move {
                    asked.fetch_add(1, Ordering::SeqCst);
                    let token = form
                        .split('&')
                        .find_map(|pair| pair.strip_prefix("token="))
                        .unwrap_or_default();
                    let answer: Value = if token.starts_with("good-") {
                        json!({"active": true, "sub": token, "aud": RESOURCE,
                           "scope": "mcp", "exp": now_secs() + 3600})
                    } else {
                        json!({"active": false})
                    };
                    ([("content-type", "application/json")], answer.to_string())
                },
            ),
        )
        .with_state(asked.clone());
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/introspect"), asked)
}

fn validator(url: &str) -> IntrospectionValidator {
    IntrospectionValidator::new(url, "rs", "secret", RESOURCE)
}

#[tokio::test]
async fn without_a_cache_every_request_asks() {
    let (url, asked) = endpoint().await;
    let v = validator(&url);
    for _ in 0..3 {
        assert!(v.validate("good-a").await.is_ok());
    }
    assert_eq!(asked.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn an_accepted_token_is_asked_once_within_the_ttl() {
    let (url, asked) = endpoint().await;
    let v = validator(&url).cache_for(Duration::from_secs(60), 100);
    let first = v.validate("good-a").await.expect("active");
    let again = v.validate("good-a").await.expect("cached");
    assert_eq!(first, again);
    assert_eq!(first.subject.as_deref(), Some("good-a"));
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn refusals_are_never_cached() {
    let (url, asked) = endpoint().await;
    let v = validator(&url).cache_for(Duration::from_secs(60), 100);
    assert!(v.validate("revoked").await.is_err());
    assert!(v.validate("revoked").await.is_err());
    assert_eq!(asked.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn an_answer_is_asked_again_after_the_ttl() {
    let (url, asked) = endpoint().await;
    let v = validator(&url).cache_for(Duration::from_millis(100), 100);
    assert!(v.validate("good-a").await.is_ok());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(v.validate("good-a").await.is_ok());
    assert_eq!(asked.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn the_cache_stays_within_its_capacity() {
    let (url, asked) = endpoint().await;
    let v = validator(&url).cache_for(Duration::from_secs(60), 1);
    // `b` does not fit beside `a`, so `a` is asked again.
    for token in ["good-a", "good-b", "good-a"] {
        assert!(v.validate(token).await.is_ok(), "{token}");
    }
    assert_eq!(asked.load(Ordering::SeqCst), 3);
}

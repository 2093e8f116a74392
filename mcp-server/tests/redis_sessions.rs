//! `RedisSessionStore` and `RedisEventStore` against a real `redis-server`
//! started here (feature `redis`): the same contract as the memory stores
//! (create, load, touch, change, remove, expiry; events after a position,
//! once, in order, followed to the last), the messages each instance hears,
//! and the bound on every call when Redis does not answer. Needs
//! `redis-server` on `PATH`; timeouts are hang guards only.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use mcp_era_server::mcp_era_types::v2026_07_28::LoggingLevel;
use mcp_era_server::sessions::{
    BusEvent, EventStore, RedisSessionStore, SessionChange, SessionMessage, SessionRecord,
    SessionState, SessionStore, StoredEvent, StreamKey,
};
use serde_json::json;

const GUARD: Duration = Duration::from_secs(20);

struct Redis(Child, u16);

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn redis() -> Redis {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server on PATH (apt-get install redis-server)");
    let up = async {
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(GUARD, up).await.unwrap();
    Redis(child, port)
}

fn now_ms() -> u64 {
    u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

fn record(id: &str, idle_timeout_ms: u64) -> SessionRecord {
    SessionRecord {
        id: id.to_owned(),
        protocol_version: "2025-11-25".into(),
        client_capabilities: json!({"elicitation": {}, "roots": {"listChanged": true}, "x": []}),
        client_info: json!({"name": "t", "version": "1"}),
        principal: Some("alice".into()),
        created_at_ms: now_ms(),
        idle_timeout_ms,
        state: SessionState {
            last_seen_ms: now_ms(),
            ..SessionState::default()
        },
    }
}

async fn next_message(bus: &mut tokio::sync::mpsc::UnboundedReceiver<BusEvent>) -> SessionMessage {
    loop {
        match tokio::time::timeout(GUARD, bus.recv())
            .await
            .unwrap()
            .unwrap()
        {
            BusEvent::Message(message) => return message,
            BusEvent::Reconnected => {}
        }
    }
}

#[tokio::test]
async fn sessions_live_in_redis_and_instances_hear_of_them() {
    let redis = redis().await;
    let url = format!("redis://127.0.0.1:{}", redis.1);
    let a = RedisSessionStore::open(&url).unwrap().with_prefix("t1:");
    let b = RedisSessionStore::open(&url).unwrap().with_prefix("t1:");
    assert!(a.is_shared());
    let mut heard_by_b = b.listen("b").unwrap();
    // Subscribed once it says so.
    assert_eq!(
        tokio::time::timeout(GUARD, heard_by_b.recv())
            .await
            .unwrap(),
        Some(BusEvent::Reconnected)
    );

    a.create(record("s1", 60_000)).await.unwrap();
    assert!(
        a.create(record("s1", 60_000)).await.is_err(),
        "an id is taken once"
    );
    let loaded = b.load("s1").await.unwrap().unwrap();
    assert_eq!(
        loaded.client_capabilities,
        record("s1", 1).client_capabilities
    );
    assert_eq!(loaded.principal.as_deref(), Some("alice"));
    assert_eq!(loaded.idle_timeout_ms, 60_000);

    let level = SessionChange::LogLevel(LoggingLevel::Warning);
    assert!(a.change("s1", &level).await.unwrap());
    assert_eq!(
        next_message(&mut heard_by_b).await,
        SessionMessage::Changed {
            session: "s1".into()
        }
    );
    for uri in ["test://b", "test://a", "test://b"] {
        assert!(
            a.change("s1", &SessionChange::Subscribe(uri.into()))
                .await
                .unwrap()
        );
    }
    let state = b.touch("s1").await.unwrap().unwrap();
    assert_eq!(state.log_level, Some(LoggingLevel::Warning));
    assert_eq!(state.subscriptions, ["test://a", "test://b"]);
    assert!(
        a.change("s1", &SessionChange::Unsubscribe("test://a".into()))
            .await
            .unwrap()
    );
    assert_eq!(
        b.peek("s1").await.unwrap().unwrap().subscriptions,
        ["test://b"]
    );

    // A response goes to its instance's own channel; the rest to all.
    let response = SessionMessage::Response {
        session: "s1".into(),
        instance: "b".into(),
        message: json!({"jsonrpc": "2.0", "id": "srv-b-1", "result": {}}),
    };
    a.publish(&response).await.unwrap();
    let elsewhere = SessionMessage::Response {
        session: "s1".into(),
        instance: "c".into(),
        message: json!({"jsonrpc": "2.0", "id": "srv-c-1", "result": {}}),
    };
    a.publish(&elsewhere).await.unwrap();
    let cancel = SessionMessage::Cancel {
        session: "s1".into(),
        request: "7".into(),
    };
    a.publish(&cancel).await.unwrap();
    // Heard in the order sent (the Changed notices of the subscriptions
    // first), the response to another instance never.
    let mut heard = Vec::new();
    while !heard.contains(&cancel) {
        heard.push(next_message(&mut heard_by_b).await);
    }
    assert!(heard.contains(&response), "{heard:?}");
    assert!(!heard.contains(&elsewhere), "not b's: {heard:?}");

    assert!(b.remove("s1").await.unwrap());
    assert!(!b.remove("s1").await.unwrap());
    assert_eq!(
        next_message(&mut heard_by_b).await,
        SessionMessage::Ended {
            session: "s1".into()
        }
    );
    assert_eq!(a.load("s1").await.unwrap(), None);
    assert!(
        !a.change("s1", &level).await.unwrap(),
        "a removed session is not made again"
    );
    assert_eq!(a.peek("s1").await.unwrap(), None);

    // Expiry is the idle timeout from the last use, on every instance.
    a.create(record("s2", 300)).await.unwrap();
    let gone = async {
        while b.peek("s2").await.unwrap().is_some() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(GUARD, gone).await.unwrap();
    assert_eq!(a.touch("s2").await.unwrap(), None);
}

async fn next(
    follow: &mut mcp_era_server::sessions::EventFollow,
) -> Option<Result<StoredEvent, mcp_era_server::sessions::StoreError>> {
    tokio::time::timeout(GUARD, follow.recv()).await.unwrap()
}

#[tokio::test]
async fn stream_events_are_kept_in_order_once_and_followed() {
    let redis = redis().await;
    let url = format!("redis://127.0.0.1:{}", redis.1);
    let events = RedisSessionStore::open(&url)
        .unwrap()
        .with_prefix("t2:")
        .event_store(10);
    let key = StreamKey {
        session: "s".into(),
        stream: "p1".into(),
    };
    let event = |seq: u64, last: bool| StoredEvent {
        seq,
        data: if seq == 1 {
            String::new()
        } else {
            format!("{{\"n\":{seq}}}")
        },
        last,
    };
    let ttl = Duration::from_secs(60);
    assert_eq!(events.read_after(&key, 0).await.unwrap(), None);
    assert!(events.follow(key.clone(), 0).await.unwrap().is_none());
    events
        .append(&key, vec![event(1, false), event(2, false)], ttl)
        .await
        .unwrap();
    // Retried: stored once.
    events
        .append(&key, vec![event(2, false), event(3, false)], ttl)
        .await
        .unwrap();
    let after_one = events.read_after(&key, 1).await.unwrap().unwrap();
    assert_eq!(after_one, [event(2, false), event(3, false)]);
    let mut follow = events.follow(key.clone(), 2).await.unwrap().unwrap();
    assert_eq!(next(&mut follow).await.unwrap().unwrap(), event(3, false));
    events
        .append(&key, vec![event(4, true)], ttl)
        .await
        .unwrap();
    assert_eq!(next(&mut follow).await.unwrap().unwrap(), event(4, true));
    assert!(next(&mut follow).await.is_none(), "ends after the last");

    // The window is about `window` events (Redis trims with MAXLEN ~).
    let long = StreamKey {
        session: "s".into(),
        stream: "g1".into(),
    };
    let many: Vec<StoredEvent> = (1..=1_000).map(|n| event(n, false)).collect();
    events.append(&long, many, ttl).await.unwrap();
    let kept = events.read_after(&long, 0).await.unwrap().unwrap();
    assert!(kept.len() < 1_000, "trimmed: {}", kept.len());
    assert_eq!(kept.last().unwrap().seq, 1_000);
    assert!(
        kept.windows(2).all(|w| w[1].seq == w[0].seq + 1),
        "in order, no gap"
    );
}

#[tokio::test]
async fn every_call_is_bounded_when_redis_does_not_answer() {
    let redis = redis().await;
    let url = format!("redis://127.0.0.1:{}", redis.1);
    let store = RedisSessionStore::open(&url)
        .unwrap()
        .with_timeout(Duration::from_millis(300));
    store.create(record("s", 60_000)).await.unwrap();
    let stopped = Command::new("kill")
        .args(["-STOP", &redis.0.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    // Within the hang guard (far above the 300 ms bound): an error, not a
    // wait for the client library's reconnect backoff.
    let first = tokio::time::timeout(GUARD, store.touch("s")).await.unwrap();
    assert!(first.unwrap_err().0.contains("redis"), "a clear error");
    // Then at once, without trying, for a while.
    let second = tokio::time::timeout(GUARD, store.load("s")).await.unwrap();
    assert!(second.unwrap_err().0.contains("unavailable"));
    let resumed = Command::new("kill")
        .args(["-CONT", &redis.0.id().to_string()])
        .status()
        .unwrap();
    assert!(resumed.success());
    let back = async {
        loop {
            if let Ok(Some(_)) = store.touch("s").await {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(GUARD, back).await.unwrap();
}

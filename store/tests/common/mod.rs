//! What the store's tests share: the shop fixture's runtime and a
//! conversation up to its cancellation (its write at event 10).
#![allow(dead_code, clippy::unwrap_used)] // each test file uses a part

use std::sync::Arc;

use turnstile_engine::session::{BundleRuntime, GateVerdict, Schedule, Session};
use turnstile_engine::trace::Event;
use turnstile_judge::SyncJudge;
use turnstile_store::{SessionHandle, SessionMeta};

pub fn runtime() -> Arc<BundleRuntime> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures/shop");
    let bundle = turnstile_engine::check_bundle(&dir).unwrap();
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

pub const EVENTS: &[&str] = &[
    r##"{"type":"user","text":"Hi! I'd like to cancel an order. My email is u1@example.com."}"##,
    r##"{"type":"agent","text":"Sure, let me look you up."}"##,
    r##"{"type":"call","id":"c1","tool":"find_user_id_by_email","args":{"email":"u1@example.com"}}"##,
    r##"{"type":"result","id":"c1","ok":true,"content":"u1"}"##,
    r##"{"type":"call","id":"c2","tool":"get_user_details","args":{"user_id":"u1"}}"##,
    r##"{"type":"result","id":"c2","ok":true,"content":{"user_id":"u1","orders":["#O1"],"payment_methods":{},"bills":[]}}"##,
    r##"{"type":"call","id":"c3","tool":"get_order_details","args":{"order_id":"#O1"}}"##,
    r##"{"type":"result","id":"c3","ok":true,"content":{"order_id":"#O1","user_id":"u1","status":"pending","total":10,"items":[]}}"##,
    r##"{"type":"agent","text":"Order #O1: cancel it with reason 'no longer needed'? Please confirm (yes)."}"##,
    r##"{"type":"user","text":"Yes, please go ahead."}"##,
    r##"{"type":"call","id":"c4","tool":"cancel_pending_order","args":{"order_id":"#O1","reason":"no longer needed"}}"##,
];

pub fn event(line: &str) -> Event {
    serde_json::from_str(line).unwrap()
}

/// What a store records of a session of `rt` under the workflow schedule.
pub fn meta(rt: &BundleRuntime) -> SessionMeta {
    SessionMeta {
        bundle: rt.bundle.name.clone(),
        bundle_hash: rt.bundle.hash.clone(),
        schedule: Schedule::Workflow,
        control: Some(rt.bundle.control),
    }
}

/// Pushes `events`, appending each delta to `handle`; the last verdict.
pub fn push_stored(
    session: &mut Session,
    handle: &mut SessionHandle,
    events: Vec<Event>,
    judge: &dyn SyncJudge,
) -> GateVerdict {
    let mut synced = session.mark();
    let mut last = None;
    for event in events {
        let report = session.push(event, judge).unwrap();
        let value = serde_json::to_value(&report).unwrap();
        handle
            .append_delta(&session.delta(synced), std::slice::from_ref(&value))
            .unwrap();
        synced = session.mark();
        last = Some(report.verdict);
    }
    last.unwrap()
}

/// The store file's format and its one session's state format.
pub fn formats(path: &std::path::Path) -> (i64, i64) {
    let conn = rusqlite::Connection::open(path).unwrap();
    let store: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    let state: i64 = conn
        .query_row("SELECT state_format FROM sessions", [], |r| r.get(0))
        .unwrap();
    (store, state)
}

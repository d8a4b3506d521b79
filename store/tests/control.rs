//! A session's `control` (who calls the telecom bundle's device tools) is
//! stored with it: a restored solo session still lets the agent call a
//! device tool, a restored dual one still blocks it with `WrongSide`. A
//! store file of format 1 (no `control` column) is migrated on open.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a panic is a failure report

use std::sync::Arc;

use turnstile_engine::bundle::model::Control;
use turnstile_engine::session::{BundleRuntime, GateVerdict, Schedule, Session};
use turnstile_engine::trace::Event;
use turnstile_judge::OfflineJudge;
use turnstile_rules::Reason;
use turnstile_store::{Durability, STORE_FORMAT, SessionMeta, Store, StoreError};

fn telecom() -> Arc<BundleRuntime> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/telecom");
    let bundle = turnstile_engine::check_bundle(&dir).unwrap();
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

const OPENING: &[&str] = &[
    r#"{"type":"agent","text":"Hi! How can I help you today?"}"#,
    r#"{"type":"user","text":"My mobile data is not working."}"#,
];

/// The agent runs a device tool itself.
const DEVICE_CALL: &str =
    r#"{"type":"call","id":"d1","tool":"check_status_bar","args":{},"requestor":"agent"}"#;

fn event(line: &str) -> Event {
    serde_json::from_str(line).unwrap()
}

fn meta(rt: &BundleRuntime, control: Option<Control>) -> SessionMeta {
    SessionMeta {
        bundle: rt.bundle.name.clone(),
        bundle_hash: rt.bundle.hash.clone(),
        schedule: Schedule::Workflow,
        control,
    }
}

/// Creates session `id` under `control` and commits the opening to it.
fn stored_opening(store: &Store, rt: &Arc<BundleRuntime>, id: &str, control: Control) {
    let mut handle = store.claim(id).unwrap();
    handle.create(&meta(rt, Some(control))).unwrap();
    let mut session = Session::new(Arc::clone(rt), Schedule::Workflow);
    session.set_control(control);
    for line in OPENING {
        let mark = session.mark();
        let report = session.push(event(line), &OfflineJudge).unwrap();
        let report = serde_json::to_value(report).unwrap();
        handle
            .append_delta(&session.delta(mark), std::slice::from_ref(&report))
            .unwrap();
    }
}

/// Restores session `id` from `store` and pushes the agent's device call.
fn device_call_after_restore(
    store: &Store,
    rt: &Arc<BundleRuntime>,
    id: &str,
) -> (Option<Control>, GateVerdict) {
    let mut handle = store.claim(id).unwrap();
    let stored = handle.load().unwrap().unwrap();
    assert_eq!(stored.state.control, stored.meta.control);
    let control = stored.meta.control;
    let mut session = Session::restore(Arc::clone(rt), stored.state).unwrap();
    assert_eq!(session.events().len(), OPENING.len());
    let report = session.push(event(DEVICE_CALL), &OfflineJudge).unwrap();
    (control, report.verdict)
}

fn is_wrong_side(verdict: &GateVerdict) -> bool {
    matches!(
        verdict,
        GateVerdict::Block {
            reason: Reason::WrongSide,
            ..
        }
    )
}

#[test]
fn a_restored_session_keeps_its_control() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db"), Durability::Full).unwrap();
    let rt = telecom();
    assert_eq!(rt.bundle.control, Control::Dual, "the bundle's default");
    stored_opening(&store, &rt, "solo", Control::Solo);
    stored_opening(&store, &rt, "dual", Control::Dual);
    // Another process, later: a new store value on the same file.
    let store = Store::open(&dir.path().join("s.db"), Durability::Full).unwrap();
    let (control, verdict) = device_call_after_restore(&store, &rt, "solo");
    assert_eq!(control, Some(Control::Solo));
    assert!(
        !verdict.is_block(),
        "solo: the agent runs the device tools: {verdict:?}"
    );
    let (control, verdict) = device_call_after_restore(&store, &rt, "dual");
    assert_eq!(control, Some(Control::Dual));
    assert!(is_wrong_side(&verdict), "dual: {verdict:?}");
}

#[test]
fn a_format_1_store_is_migrated_and_keeps_its_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let rt = telecom();
    {
        let store = Store::open(&path, Durability::Full).unwrap();
        stored_opening(&store, &rt, "v3", Control::Dual);
        stored_opening(&store, &rt, "v2", Control::Dual);
    }
    // Turn the file back into what a format-1 store wrote: no `control`
    // column, no events' `decided_at`, sessions in state format 3 (and one
    // older session).
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "ALTER TABLE sessions DROP COLUMN control;
             ALTER TABLE events DROP COLUMN decided_at;
             UPDATE sessions SET state_format = 3;
             UPDATE sessions SET state_format = 2 WHERE id = 'v2';
             PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    let store = Store::open(&path, Durability::Full).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, STORE_FORMAT);
    // A format-3 session had no recorded control: its writers always ran
    // under the bundle's (dual), and so does its restore.
    let (control, verdict) = device_call_after_restore(&store, &rt, "v3");
    assert_eq!(control, None);
    assert!(is_wrong_side(&verdict), "{verdict:?}");
    // Older state formats are still refused, by version.
    let err = store.claim("v2").unwrap().load().unwrap_err();
    assert!(
        matches!(err, StoreError::StateFormat { found: 2, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("state format 2"), "{err}");
    // New sessions in the migrated file record their control.
    stored_opening(&store, &rt, "new", Control::Solo);
    let (control, verdict) = device_call_after_restore(&store, &rt, "new");
    assert_eq!(control, Some(Control::Solo));
    assert!(!verdict.is_block(), "{verdict:?}");
    // Opening the migrated file again changes nothing.
    drop(store);
    let store = Store::open(&path, Durability::Full).unwrap();
    let (control, _) = device_call_after_restore(&store, &rt, "new");
    assert_eq!(control, Some(Control::Solo));
}

#[test]
fn an_unknown_stored_control_is_reported_as_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let rt = telecom();
    let store = Store::open(&path, Durability::Full).unwrap();
    store
        .claim("x")
        .unwrap()
        .create(&meta(&rt, Some(Control::Solo)))
        .unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE sessions SET control = 'both'", [])
        .unwrap();
    let err = store.claim("x").unwrap().load().unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert!(
        err.to_string().contains("unknown control \"both\""),
        "{err}"
    );
}

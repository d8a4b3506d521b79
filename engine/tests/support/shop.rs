//! Shared by the tests of sessions on the `shop` fixture: its runtime and
//! the events its hand-written conversations are made of.
#![allow(dead_code, clippy::unwrap_used)] // each test crate uses part of it

use std::path::Path;
use std::sync::Arc;

use serde_json::Value as Json;
use turnstile_engine::bundle::model::Side;
use turnstile_engine::check_bundle;
use turnstile_engine::session::BundleRuntime;
use turnstile_engine::trace::Event;

pub fn runtime() -> Arc<BundleRuntime> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shop");
    let bundle = check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"));
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

pub fn user(text: &str) -> Event {
    Event::User { text: text.into() }
}

pub fn agent(text: &str) -> Event {
    Event::Agent { text: text.into() }
}

pub fn call(id: &str, tool: &str, args: Json) -> Event {
    Event::Call {
        id: id.into(),
        tool: tool.into(),
        args,
        requestor: Side::Agent,
    }
}

pub fn ok(id: &str, content: Json) -> Event {
    Event::Result {
        id: id.into(),
        ok: true,
        content,
    }
}

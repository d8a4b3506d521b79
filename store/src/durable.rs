//! A session that lives in the store: [`DurableSession`] owns a claimed
//! session's handle and its in-memory [`Session`], and gives every event the
//! same path — decided, its report serialized once, committed (the
//! session's row created with its first event if it is new, then only what
//! the event added appended), and only then answered. A push or a commit
//! that fails leaves the session marked stale: it is reloaded from the
//! store before its next event, so memory never runs ahead of what was
//! acknowledged. Synchronous callers (`turnstile gate`, bindings) commit on
//! the calling thread; an async server awaits the commit
//! ([`DurableSession::push_async`]), so a worker is not blocked and the
//! writer's group commit still batches sessions.
//!
//! Each event is decided at the time its session's clock gives it (the
//! input's own time for an `event` clock, `--now` or the system's for a
//! `system` one, [`DurableSession::with_now`]); that time is committed with
//! the event, so a restored session decides again exactly as it did. A
//! session whose row names its bundle by an older, path-based id is
//! restored when that id is one of the bundle's, and its row takes the
//! bundle's content id with the next commit.

use std::sync::Arc;

use turnstile_engine::bundle::Control;
use turnstile_engine::session::{
    BundleRuntime, DeltaMark, EventReport, Schedule, Session, SessionError,
};
use turnstile_engine::trace::Event;
use turnstile_judge::{Judge, SyncJudge};
use turnstile_rules::DateTime;

use crate::{SessionHandle, SessionMeta, Store, StoreError, StoredSession};

/// Why a durable session could not take an event or be opened. Each
/// message is what `turnstile gate` and `turnstile serve` answer with.
#[derive(Debug, thiserror::Error)]
pub enum DurableError {
    /// The store refused or failed (claiming, reading, creating).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The session refused the event or its saved state.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The report could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A stale session could not be brought back to what the store holds.
    #[error("the session cannot be reloaded: {0}")]
    Reload(Box<DurableError>),
    /// The event was decided but its commit failed: it is not stored, and
    /// the session is reloaded before its next event.
    #[error("the verdict could not be stored: {0}")]
    Commit(StoreError),
}

/// An event decided and committed: its report and the report's JSON text
/// (the bytes the store keeps, what `gate` prints and `serve` answers).
#[derive(Debug)]
pub struct Committed {
    /// The report.
    pub report: EventReport,
    /// The report as JSON.
    pub json: String,
    /// Judge calls the decision made.
    pub judge_calls: u64,
}

/// A session claimed in the store and read: restore it, or start it new.
#[derive(Debug)]
pub struct Claimed {
    handle: SessionHandle,
    stored: Option<StoredSession>,
}

impl Claimed {
    /// What the store holds of the session, if anything.
    pub fn stored(&self) -> Option<&SessionMeta> {
        self.stored.as_ref().map(|s| &s.meta)
    }

    /// The stored session, restored under `rt`; [`StoreError::Missing`]
    /// if the store holds none.
    pub fn restore(self, rt: Arc<BundleRuntime>) -> Result<DurableSession, DurableError> {
        let Claimed { mut handle, stored } = self;
        let Some(stored) = stored else {
            return Err(StoreError::Missing(handle.id().to_owned()).into());
        };
        let current = rt.bundle.hash.clone();
        let session = Session::restore(rt, stored.state)?;
        if stored.meta.bundle_hash != current {
            // The restore accepts only an older id of this very bundle.
            handle.adopt_bundle_hash(&current);
        }
        Ok(DurableSession::with(
            handle,
            session,
            stored.meta.bundle,
            true,
        ))
    }

    /// A new session under `rt` and `schedule` (`control`: who calls the
    /// device tools; `None`: the bundle's), stored as bundle `bundle`; its
    /// row is written with its first event. [`StoreError::Exists`] if the
    /// store holds the session already.
    pub fn start(
        self,
        rt: Arc<BundleRuntime>,
        bundle: String,
        schedule: Schedule,
        control: Option<Control>,
    ) -> Result<DurableSession, DurableError> {
        if self.stored.is_some() {
            return Err(StoreError::Exists(self.handle.id().to_owned()).into());
        }
        let session = new_session(rt, schedule, control);
        Ok(DurableSession::with(self.handle, session, bundle, false))
    }
}

/// A session the store keeps. See the module documentation.
#[derive(Debug)]
pub struct DurableSession {
    handle: SessionHandle,
    session: Session,
    /// The bundle's name in the session's row.
    bundle: String,
    /// The store has the session's row.
    stored: bool,
    /// The in-memory session may be ahead of the store (a push or a commit
    /// failed, or an async commit was given up): reloaded before use.
    stale: bool,
    /// What of the session the store holds: a commit appends only what the
    /// session added since.
    synced: DeltaMark,
    /// `--now`: the instant a `system` clock stands still at, given to the
    /// session again whenever it is reloaded.
    now: Option<DateTime>,
}

impl DurableSession {
    /// Claims session `id` (refused while another writer holds it) and
    /// reads what the store holds of it.
    pub fn claim(store: &Store, id: &str) -> Result<Claimed, StoreError> {
        let mut handle = store.claim(id)?;
        let stored = handle.load()?;
        Ok(Claimed { handle, stored })
    }

    /// Claims the new session `id` and writes its row now, waiting for the
    /// commit without holding a thread (claiming is a lock file, no SQL).
    pub async fn create_async(
        store: &Store,
        id: &str,
        rt: Arc<BundleRuntime>,
        meta: SessionMeta,
    ) -> Result<DurableSession, StoreError> {
        let mut handle = store.claim(id)?;
        handle.create_async(&meta).await?;
        let session = new_session(rt, meta.schedule, meta.control);
        Ok(DurableSession::with(handle, session, meta.bundle, true))
    }

    fn with(handle: SessionHandle, session: Session, bundle: String, stored: bool) -> Self {
        DurableSession {
            synced: session.mark(),
            handle,
            session,
            bundle,
            stored,
            stale: false,
            now: None,
        }
    }

    /// The same session with its clock at `now` (`gate --now`, `serve
    /// --now`: a `system` clock stands still there; an `event` clock
    /// starts there).
    pub fn with_now(mut self, now: Option<DateTime>) -> Self {
        self.now = now;
        self.session.set_clock_now(now);
        self
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        self.handle.id()
    }

    /// The session as of its last event.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The bundle's name the session is stored under.
    pub fn bundle(&self) -> &str {
        &self.bundle
    }

    /// Whether the store holds the session's row (a restored session, or
    /// a new one after its first event).
    pub fn is_stored(&self) -> bool {
        self.stored
    }

    /// The verdicts the store holds, in event order.
    pub fn verdicts(&mut self) -> Result<Vec<serde_json::Value>, StoreError> {
        self.handle.verdicts()
    }

    /// Decides `event` with `judge` and commits it before returning.
    pub fn push(&mut self, event: Event, judge: &dyn SyncJudge) -> Result<Committed, DurableError> {
        self.push_at(event, None, judge)
    }

    /// [`DurableSession::push`] with the time the event's input recorded
    /// with it (a native line's `at`): what an `event` clock decides it at.
    pub fn push_at(
        &mut self,
        event: Event,
        at: Option<DateTime>,
        judge: &dyn SyncJudge,
    ) -> Result<Committed, DurableError> {
        self.ready()?;
        let calls = self.session.usage().calls;
        let report = self.session.push_at(event, at, judge)?;
        let committed = committed(report, calls, &self.session)?;
        self.commit(&committed).map_err(DurableError::Commit)?;
        self.stale = false;
        Ok(committed)
    }

    /// Decides `event` with a judge that is awaited and awaits its commit.
    /// If the future is dropped midway, the session is reloaded before its
    /// next event. A stale session is reloaded by reading the store on the
    /// calling thread: an async server does that first, where blocking is
    /// allowed ([`DurableSession::reload_if_stale`]).
    pub async fn push_async(
        &mut self,
        event: Event,
        judge: &dyn Judge,
    ) -> Result<Committed, DurableError> {
        self.push_at_async(event, None, judge).await
    }

    /// [`DurableSession::push_async`] with the time the event's input
    /// recorded with it.
    pub async fn push_at_async(
        &mut self,
        event: Event,
        at: Option<DateTime>,
        judge: &dyn Judge,
    ) -> Result<Committed, DurableError> {
        self.ready()?;
        let calls = self.session.usage().calls;
        let report = self.session.push_at_async(event, at, judge).await?;
        let committed = committed(report, calls, &self.session)?;
        if !self.stored {
            self.handle
                .create_async(&self.meta())
                .await
                .map_err(DurableError::Commit)?;
            self.stored = true;
        }
        let delta = self.session.delta(self.synced);
        self.handle
            .append_delta_async(&delta, std::slice::from_ref(&committed.json))
            .await
            .map_err(DurableError::Commit)?;
        self.synced = self.session.mark();
        self.stale = false;
        Ok(committed)
    }

    /// Goes back to what the store holds if an event failed since the
    /// last commit; reads the store only then.
    pub fn reload_if_stale(&mut self) -> Result<(), DurableError> {
        if !self.stale {
            return Ok(());
        }
        let rt = Arc::clone(self.session.runtime());
        self.session = match self.handle.load()? {
            Some(stored) => Session::restore(rt, stored.state)?,
            // Nothing committed yet: a fresh session as it started.
            None => new_session(rt, self.session.schedule(), Some(self.session.control())),
        };
        self.session.set_clock_now(self.now);
        self.synced = self.session.mark();
        self.stale = false;
        Ok(())
    }

    /// Before an event: a stale session reloaded, then marked stale until
    /// the event is committed.
    fn ready(&mut self) -> Result<(), DurableError> {
        self.reload_if_stale()
            .map_err(|e| DurableError::Reload(Box::new(e)))?;
        self.stale = true;
        Ok(())
    }

    /// Commits the event just decided: the session's row first if the
    /// store has none.
    fn commit(&mut self, committed: &Committed) -> Result<(), StoreError> {
        if !self.stored {
            self.handle.create(&self.meta())?;
            self.stored = true;
        }
        let delta = self.session.delta(self.synced);
        self.handle
            .append_delta(&delta, std::slice::from_ref(&committed.json))?;
        self.synced = self.session.mark();
        Ok(())
    }

    /// The session's row as created.
    fn meta(&self) -> SessionMeta {
        SessionMeta {
            bundle: self.bundle.clone(),
            bundle_hash: self.session.runtime().bundle.hash.clone(),
            schedule: self.session.schedule(),
            control: Some(self.session.control()),
        }
    }
}

/// A session that has seen no event, under `control` (`None`: the bundle's).
fn new_session(rt: Arc<BundleRuntime>, schedule: Schedule, control: Option<Control>) -> Session {
    let mut session = Session::new(rt, schedule);
    if let Some(control) = control {
        session.set_control(control);
    }
    session
}

/// `report` serialized once, straight from the report (sorted keys: the
/// bytes a `Value` tree wrote, see the engine's `session/verdict.rs`), for
/// the store's row and the answer alike.
fn committed(
    report: EventReport,
    calls_before: u64,
    session: &Session,
) -> Result<Committed, serde_json::Error> {
    Ok(Committed {
        json: serde_json::to_string(&report)?,
        report,
        judge_calls: session.usage().calls.saturating_sub(calls_before),
    })
}

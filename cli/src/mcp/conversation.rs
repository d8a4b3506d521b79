//! One conversation of the gateway: its engine session and its rows in the
//! store, claimed for this process. The only module of the gateway that
//! calls into the session or the store: each event is decided, then
//! committed (only what it added), and only then answered; a failed push
//! or commit leaves the session to be reloaded from the store before its
//! next event, so memory never runs ahead of what was acknowledged.

use std::sync::Arc;

use turnstile_engine::session::{
    BundleRuntime, DeltaMark, EventReport, Schedule, Session, SessionError,
};
use turnstile_engine::trace::Event;
use turnstile_judge::Judge;
use turnstile_store::{SessionHandle, SessionMeta, Store, StoreError};

/// Why a conversation cannot be opened or take an event.
#[derive(Debug, thiserror::Error)]
pub enum ConversationError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("session {id:?}: {source}")]
    Session { id: String, source: SessionError },
    #[error("session {id:?} was started with bundle {stored:?}, not {loaded:?}")]
    OtherBundle {
        id: String,
        stored: String,
        loaded: String,
    },
    #[error("session {id:?} uses the {stored} schedule, not {wanted}")]
    OtherSchedule {
        id: String,
        stored: Schedule,
        wanted: Schedule,
    },
    #[error("the verdict cannot be written as JSON: {0}")]
    Verdict(serde_json::Error),
}

/// A claimed conversation. See the module documentation.
pub struct Conversation {
    id: String,
    rt: Arc<BundleRuntime>,
    handle: SessionHandle,
    session: Session,
    /// Whether the store has the session's row yet (written with its first
    /// event).
    created: bool,
    /// The session may be ahead of the store (a push or a commit failed).
    stale: bool,
    /// What of the session the store holds.
    synced: DeltaMark,
}

impl Conversation {
    /// Claims conversation `id` (refused while another process holds it)
    /// and restores it from the store, or starts it. Blocks on the store.
    pub fn open(
        store: &Store,
        rt: &Arc<BundleRuntime>,
        id: &str,
        schedule: Schedule,
    ) -> Result<Conversation, ConversationError> {
        let mut handle = store.claim(id)?;
        let Some(stored) = handle.load()? else {
            return Ok(Conversation {
                id: id.to_owned(),
                rt: Arc::clone(rt),
                handle,
                session: Session::new(Arc::clone(rt), schedule),
                created: false,
                stale: false,
                synced: DeltaMark::default(),
            });
        };
        if stored.meta.bundle != rt.bundle.name {
            return Err(ConversationError::OtherBundle {
                id: id.to_owned(),
                stored: stored.meta.bundle,
                loaded: rt.bundle.name.clone(),
            });
        }
        if stored.meta.schedule != schedule {
            return Err(ConversationError::OtherSchedule {
                id: id.to_owned(),
                stored: stored.meta.schedule,
                wanted: schedule,
            });
        }
        let session = Session::restore(Arc::clone(rt), stored.state).map_err(|source| {
            ConversationError::Session {
                id: id.to_owned(),
                source,
            }
        })?;
        Ok(Conversation {
            id: id.to_owned(),
            rt: Arc::clone(rt),
            handle,
            synced: session.mark(),
            session,
            created: true,
            stale: false,
        })
    }

    /// The conversation's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// An id for the next call event: its own index, so unique in the
    /// conversation across restarts.
    pub fn next_call_id(&self) -> String {
        format!("mcp-{}", self.session.events().len())
    }

    /// Decides `event` and commits it with its verdict; the report is
    /// returned only once the store holds both.
    pub async fn push(
        &mut self,
        event: Event,
        judge: &dyn Judge,
    ) -> Result<EventReport, ConversationError> {
        if self.stale {
            tokio::task::block_in_place(|| self.reload())?;
        }
        self.stale = true;
        let report =
            self.session
                .push(event, judge)
                .await
                .map_err(|source| ConversationError::Session {
                    id: self.id.clone(),
                    source,
                })?;
        let verdict = serde_json::to_string(&report).map_err(ConversationError::Verdict)?;
        if !self.created {
            let meta = SessionMeta {
                bundle: self.rt.bundle.name.clone(),
                bundle_hash: self.rt.bundle.hash.clone(),
                schedule: self.session.schedule(),
                control: Some(self.session.control()),
            };
            self.handle.create_async(&meta).await?;
            self.created = true;
        }
        let delta = self.session.delta(self.synced);
        self.handle
            .append_delta_async(&delta, std::slice::from_ref(&verdict))
            .await?;
        self.synced = self.session.mark();
        self.stale = false;
        Ok(report)
    }

    /// Goes back to what the store holds.
    fn reload(&mut self) -> Result<(), ConversationError> {
        let schedule = self.session.schedule();
        self.session = match self.handle.load()? {
            Some(stored) => {
                Session::restore(Arc::clone(&self.rt), stored.state).map_err(|source| {
                    ConversationError::Session {
                        id: self.id.clone(),
                        source,
                    }
                })?
            }
            None => {
                self.created = false;
                Session::new(Arc::clone(&self.rt), schedule)
            }
        };
        self.synced = self.session.mark();
        self.stale = false;
        Ok(())
    }
}

//! One conversation of the gateway: a [`DurableSession`] claimed for this
//! process. The only module of the gateway that calls into the session or
//! the store; every event takes the durable session's one path (decided,
//! committed, then answered; a failed push or commit reloads the session
//! from the store before its next event). The judge the bundle's stack
//! built answers on the calling thread (the default, offline one) or is
//! awaited (a model); either way the session is decided and committed by
//! `DurableSession`, on a worker that may block.

use std::sync::Arc;

use turnstile_engine::session::{BundleRuntime, Schedule};
use turnstile_engine::trace::Event;
use turnstile_llm::JudgeStack;
use turnstile_store::{Committed, DurableError, DurableSession, Store};

/// Why a conversation cannot be opened or take an event.
#[derive(Debug, thiserror::Error)]
pub enum ConversationError {
    #[error("session {id:?}: {source}")]
    Durable { id: String, source: DurableError },
    #[error("session {id:?} uses the {stored} schedule, not {wanted}")]
    OtherSchedule {
        id: String,
        stored: Schedule,
        wanted: Schedule,
    },
}

/// A claimed conversation. See the module documentation.
pub struct Conversation {
    durable: DurableSession,
}

impl Conversation {
    /// Claims conversation `id` (refused while another process holds it)
    /// and restores it from the store (refused if stored under another
    /// bundle or schedule), or starts it. Blocks on the store.
    pub fn open(
        store: &Store,
        rt: &Arc<BundleRuntime>,
        id: &str,
        schedule: Schedule,
    ) -> Result<Conversation, ConversationError> {
        let failed = |source: DurableError| ConversationError::Durable {
            id: id.to_owned(),
            source,
        };
        let claimed = DurableSession::claim(store, id).map_err(|e| failed(e.into()))?;
        let durable = match claimed.stored() {
            Some(meta) if meta.schedule != schedule => {
                return Err(ConversationError::OtherSchedule {
                    id: id.to_owned(),
                    stored: meta.schedule,
                    wanted: schedule,
                });
            }
            Some(_) => claimed.restore(Arc::clone(rt)),
            None => claimed.start(Arc::clone(rt), rt.bundle.name.clone(), schedule, None),
        }
        .map_err(failed)?;
        Ok(Conversation { durable })
    }

    /// The conversation's id.
    pub fn id(&self) -> &str {
        self.durable.id()
    }

    /// An id for the next call event: its own index, so unique in the
    /// conversation across restarts.
    pub fn next_call_id(&self) -> String {
        format!("mcp-{}", self.durable.session().events().len())
    }

    /// Decides `event` and commits it with its verdict; the report is
    /// returned only once the store holds both. Runs on a multi-threaded
    /// runtime's worker, which it may block.
    pub async fn push(
        &mut self,
        event: Event,
        judge: &JudgeStack,
    ) -> Result<Committed, ConversationError> {
        let decided = match judge {
            JudgeStack::Immediate(judge) => {
                tokio::task::block_in_place(|| self.durable.push(event, judge.as_ref()))
            }
            JudgeStack::Model(judge) => {
                match tokio::task::block_in_place(|| self.durable.reload_if_stale()) {
                    Ok(()) => self.durable.push_async(event, judge.as_ref()).await,
                    Err(e) => Err(DurableError::Reload(Box::new(e))),
                }
            }
        };
        decided.map_err(|source| ConversationError::Durable {
            id: self.id().to_owned(),
            source,
        })
    }
}

//! Which conversation an MCP request belongs to, and the conversations
//! open in this process.
//!
//! A stdio gateway serves one client: its conversation is `--session`. Over
//! streamable HTTP each MCP session is a conversation of its own, keyed by
//! its `Mcp-Session-Id`, so concurrent clients never share state. The MCP
//! layer forgets a session when the gateway restarts, so each HTTP
//! session's handshake (the client's `initialize` parameters: its
//! capabilities, among them elicitation) is kept in a file beside the
//! store (`<store>-mcp/<id>.json`, [`HandshakeRecords`]); a client that
//! comes back with its session id after a restart is taken back without a
//! new handshake, and its conversation continues from the store.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::transport::streamable_http_server::session::{
    SessionState as Handshake, SessionStore, SessionStoreError,
};
use turnstile_engine::session::{BundleRuntime, Schedule};
use turnstile_store::Store;

use super::conversation::{Conversation, ConversationError};

/// A conversation shared by the requests of its MCP session and the side
/// channel; each event is taken under its lock.
pub type Shared = Arc<tokio::sync::Mutex<Conversation>>;

/// The conversations this process holds (each claimed in the store).
pub struct Sessions {
    store: Store,
    rt: Arc<BundleRuntime>,
    schedule: Schedule,
    open: Mutex<HashMap<String, Shared>>,
}

impl Sessions {
    pub fn new(store: Store, rt: Arc<BundleRuntime>, schedule: Schedule) -> Sessions {
        Sessions {
            store,
            rt,
            schedule,
            open: Mutex::new(HashMap::new()),
        }
    }

    /// Conversation `id`: open here already, or claimed and restored from
    /// the store (or started). Blocks on the store the first time.
    pub fn get(&self, id: &str) -> Result<Shared, ConversationError> {
        // Held while opening, so one id is never claimed twice.
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(shared) = open.get(id) {
            return Ok(Arc::clone(shared));
        }
        let conversation = tokio::task::block_in_place(|| {
            Conversation::open(&self.store, &self.rt, id, self.schedule)
        })?;
        let shared = Arc::new(tokio::sync::Mutex::new(conversation));
        open.insert(id.to_owned(), Arc::clone(&shared));
        Ok(shared)
    }

    /// Lets go of conversation `id` once nothing uses it (its MCP session
    /// ended): its claim is released, and its next use restores it.
    pub fn release(&self, id: &str) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if open
            .get(id)
            .is_some_and(|shared| Arc::strong_count(shared) == 1)
        {
            open.remove(id);
        }
    }
}

/// The handshakes of the HTTP sessions, one JSON file each, written before
/// the client learns its session id is usable and removed when the client
/// ends the session.
#[derive(Clone, Debug)]
pub struct HandshakeRecords {
    dir: PathBuf,
}

impl HandshakeRecords {
    /// The records of the store at `store`: the directory `<store>-mcp`.
    pub fn beside(store: &Path) -> HandshakeRecords {
        let mut dir = store.as_os_str().to_owned();
        dir.push("-mcp");
        HandshakeRecords {
            dir: PathBuf::from(dir),
        }
    }

    /// The file of session `id`, or `None` for an id that cannot be one of
    /// ours (only ASCII letters, digits, `-` and `_`: never a path).
    fn file(&self, id: &str) -> Option<PathBuf> {
        let plain = !id.is_empty()
            && id.len() <= turnstile_store::MAX_SESSION_ID
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        plain.then(|| self.dir.join(format!("{id}.json")))
    }

    /// Whether session `id` was started here and not ended.
    pub fn contains(&self, id: &str) -> bool {
        self.file(id).is_some_and(|file| file.is_file())
    }

    fn write(&self, id: &str, handshake: &Handshake) -> std::io::Result<()> {
        let file = self.file(id).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("not a session id: {id:?}"),
            )
        })?;
        std::fs::create_dir_all(&self.dir)?;
        let text = serde_json::to_vec(handshake).map_err(std::io::Error::other)?;
        // Written whole and synced under a temporary name, then renamed: a
        // crash leaves the old record or the new one, never a torn one.
        let temporary = file.with_extension("json.tmp");
        let mut out = std::fs::File::create(&temporary)?;
        out.write_all(&text)?;
        out.sync_all()?;
        std::fs::rename(&temporary, &file)?;
        std::fs::File::open(&self.dir)?.sync_all()
    }

    fn read(&self, id: &str) -> std::io::Result<Option<Handshake>> {
        let Some(file) = self.file(id) else {
            return Ok(None);
        };
        match std::fs::read(&file) {
            Ok(text) => serde_json::from_slice(&text)
                .map(Some)
                .map_err(|e| std::io::Error::other(format!("{}: {e}", file.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn remove(&self, id: &str) -> std::io::Result<()> {
        let Some(file) = self.file(id) else {
            return Ok(());
        };
        match std::fs::remove_file(file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

#[async_trait::async_trait]
impl SessionStore for HandshakeRecords {
    async fn load(&self, session_id: &str) -> Result<Option<Handshake>, SessionStoreError> {
        let records = self.clone();
        let id = session_id.to_owned();
        Ok(tokio::task::spawn_blocking(move || records.read(&id)).await??)
    }

    async fn store(&self, session_id: &str, state: &Handshake) -> Result<(), SessionStoreError> {
        let records = self.clone();
        let (id, state) = (session_id.to_owned(), state.clone());
        Ok(tokio::task::spawn_blocking(move || records.write(&id, &state)).await??)
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        let records = self.clone();
        let id = session_id.to_owned();
        Ok(tokio::task::spawn_blocking(move || records.remove(&id)).await??)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn only_plain_ids_name_a_record() {
        let records = HandshakeRecords::beside(Path::new("/tmp/x.db"));
        assert_eq!(
            records.file("4f0c-9a_b").unwrap(),
            Path::new("/tmp/x.db-mcp/4f0c-9a_b.json")
        );
        for id in ["", "../x", "a/b", "a.b", "é", &"a".repeat(121)] {
            assert!(records.file(id).is_none(), "{id:?}");
        }
    }
}

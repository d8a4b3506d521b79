//! Durable gate sessions in one SQLite file (WAL mode). Each session is a
//! row (bundle name and hash, schedule, who calls the user-side tools, the
//! session-state format version, the firing flags and judge usage) plus an append-only log: one row per
//! event with the verdict given on it, one row per accepted judge verdict,
//! per question already asked, per consent answer a model judge gave and per
//! request already seen. Appending an
//! event writes only what the event added, in one transaction, so the cost
//! of an event does not grow with the conversation.
//!
//! A session is written by one [`SessionHandle`] at a time, across
//! processes: claiming a session takes an exclusive advisory lock on a file
//! in `<store>-locks/`, released by the operating system when the holder
//! exits, even on `kill -9`. A second claim is refused with
//! [`StoreError::Locked`]; other sessions proceed concurrently.
//!
//! A [`Store`] owns one write connection, on its own thread (`writer.rs`):
//! the writes of all its sessions queue there and each transaction commits
//! every write waiting (group commit: one WAL append and, under
//! `synchronous=FULL`, one fsync for many sessions); each write returns
//! only after its transaction committed. Handles hold no connection of
//! their own: reads (restoring a session) borrow one from a small pool, so
//! a live session costs the store a lock file and a few counters, not a
//! SQLite connection with its page cache. Other processes on the same file
//! wait for the write lock through SQLite's busy timeout.
//!
//! Older store files are migrated when opened. Format 1 (before sessions
//! recorded their `control`): the column is added, and its sessions of
//! state format 3 become format 4 with no recorded control, which restores
//! them under the bundle's `control` — exactly what they ran under, since no
//! writer of format 1 honoured another. Format 2 (before events recorded the
//! time they were decided with): the `decided_at` column is added, empty,
//! and sessions of state format 4 become format 5 — no bundle they ran
//! declared a clock, so no event had a time. Format 3 (before a model
//! judge's consent answers were kept): the `consents` table is added, and
//! sessions of state format 5 become format 6 with no answer — no judge
//! was asked one. Format 4 (before the judge's undecided answers were
//! kept): the `undecided` table is added, and sessions of state format 6
//! become format 7 with none — none was kept. Sessions of older state
//! formats are still refused. A session row naming its bundle by an older,
//! path-based id is rewritten to the bundle's content id at its next
//! append ([`SessionHandle::adopt_bundle_hash`]).
//!
//! [`DurableSession`] is what the gate and the server use: a claimed
//! session and its in-memory [`Session`](turnstile_engine::session::Session)
//! together, each event decided, committed and only then answered, reloaded
//! from the store after a failure (`durable.rs`).
//!
//! The store lives apart from the engine so that the engine's users (the
//! replay tools, benches, property tests) do not compile SQLite.

#![warn(missing_docs)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

mod durable;
mod writer;

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use turnstile_engine::bundle::Control;
use turnstile_engine::session::{
    AcceptedVerdict, AskedQuestion, ConsentAnswer, STATE_VERSION, Schedule, SessionDelta,
    SessionState, UndecidedAnswer,
};
use turnstile_engine::trace::Event;
use turnstile_judge::Usage;
use turnstile_rules::{DateTime, Env};

pub use durable::{Claimed, Committed, DurableError, DurableSession};

/// The layout version of the store file (`PRAGMA user_version`). Format 2
/// added the sessions' `control`, format 3 the events' `decided_at`, format
/// 4 the `consents` table, format 5 the `undecided` table; older files are
/// migrated on open.
pub const STORE_FORMAT: i64 = 5;

/// The store format before undecided questions were kept, migrated on open.
const STORE_FORMAT_WITHOUT_UNDECIDED: i64 = 4;

/// The session-state format a format-4 store wrote, the same as
/// [`STATE_VERSION`] apart from the undecided questions.
const STATE_VERSION_WITHOUT_UNDECIDED: i64 =
    turnstile_engine::session::STATE_VERSION_WITHOUT_UNDECIDED as i64;

/// The store format before consent answers were kept, migrated on open.
const STORE_FORMAT_WITHOUT_CONSENTS: i64 = 3;

/// The session-state format a format-3 store wrote, the same as
/// [`STATE_VERSION`] apart from the consent answers.
const STATE_VERSION_WITHOUT_CONSENTS: i64 =
    turnstile_engine::session::STATE_VERSION_WITHOUT_CONSENTS as i64;

/// The store format before `control` was recorded, migrated on open.
const STORE_FORMAT_WITHOUT_CONTROL: i64 = 1;

/// The store format before events recorded their time, migrated on open.
const STORE_FORMAT_WITHOUT_TIMES: i64 = 2;

/// The session-state format a format-1 store wrote, the same as
/// [`STATE_VERSION`] apart from `control` and the events' times.
const STATE_VERSION_WITHOUT_CONTROL: i64 = 3;

/// The session-state format a format-2 store wrote, the same as
/// [`STATE_VERSION`] apart from the events' times.
const STATE_VERSION_WITHOUT_TIMES: i64 =
    turnstile_engine::session::STATE_VERSION_WITHOUT_TIMES as i64;

/// The longest session id accepted, in bytes.
pub const MAX_SESSION_ID: usize = 120;

/// How hard a commit waits for the disk (`PRAGMA synchronous`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// `synchronous=FULL`: the write-ahead log is synced at every commit; an
    /// acknowledged verdict survives a power loss.
    #[default]
    Full,
    /// `synchronous=NORMAL`: the log is synced at checkpoints only; an
    /// acknowledged verdict survives a crash of the process but the last
    /// commits may roll back on a power loss. Cheaper per event.
    Normal,
}

impl Durability {
    fn pragma(self) -> &'static str {
        match self {
            Durability::Full => "FULL",
            Durability::Normal => "NORMAL",
        }
    }
}

/// Why the store refused or failed an operation.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed on the store file.
    #[error("{path}: {source}")]
    Sqlite {
        /// The store file.
        path: String,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A file beside the store (its lock directory) could not be used.
    #[error("{path}: {message}")]
    Io {
        /// The file or directory.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The store file was written by another version of the store.
    #[error(
        "{path}: the store has format version {found}; this turnstile reads version {STORE_FORMAT}"
    )]
    StoreFormat {
        /// The store file.
        path: String,
        /// The format version it carries.
        found: i64,
    },
    /// A session was saved in another session-state format.
    #[error(
        "session {id:?} was saved in state format {found}; this turnstile reads format {STATE_VERSION}"
    )]
    StateFormat {
        /// The session.
        id: String,
        /// The state format version it was saved in.
        found: i64,
    },
    /// Another process holds the session.
    #[error(
        "session {id:?} is in use by another writer (another gate or server holds {lock}); refusing to open it twice"
    )]
    Locked {
        /// The session.
        id: String,
        /// The lock file held by the other writer.
        lock: String,
    },
    /// A session id that is empty, too long or has control characters.
    #[error("invalid session id {0:?}: use 1 to {MAX_SESSION_ID} bytes without control characters")]
    InvalidId(String),
    /// Creating a session whose id is taken.
    #[error("session {0:?} already exists")]
    Exists(String),
    /// Appending to a session that was never created.
    #[error("session {0:?} does not exist")]
    Missing(String),
    /// The transaction holding a write failed as a whole (it could not
    /// begin or commit): none of its writes is stored.
    #[error("{path}: the write was not committed: {message}")]
    Commit {
        /// The store file.
        path: String,
        /// SQLite's error.
        message: String,
    },
    /// The store's writer thread is gone: nothing more can be written.
    #[error("{path}: the store's writer has stopped")]
    WriterStopped {
        /// The store file.
        path: String,
    },
    /// Stored rows that do not parse back.
    #[error("session {id:?}: stored data is corrupt: {message}")]
    Corrupt {
        /// The session.
        id: String,
        /// What does not parse.
        message: String,
    },
}

/// What a session was created with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionMeta {
    /// The bundle's name (servers look the bundle up by it).
    pub bundle: String,
    /// The bundle's hash: restoring under another bundle is refused.
    pub bundle_hash: String,
    /// The firing schedule the session runs under.
    pub schedule: Schedule,
    /// Who calls the user-side (device) tools: `None` for a session migrated
    /// from store format 1, which ran under the bundle's `control`.
    pub control: Option<Control>,
}

/// A session as stored: enough to restore it, and the verdict on each event.
#[derive(Clone, Debug)]
pub struct StoredSession {
    /// What the session was created with.
    pub meta: SessionMeta,
    /// Its saved state, for `Session::restore`.
    pub state: SessionState,
    /// The verdict returned for each event, in event order.
    pub verdicts: Vec<serde_json::Value>,
}

/// Counts of a store's writes (group commit: `writes_committed /
/// transactions` writes share a transaction on average).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// Writes (creations and appends) queued for the writer.
    pub writes_queued: u64,
    /// Transactions the writer committed.
    pub transactions: u64,
    /// Writes those transactions stored.
    pub writes_committed: u64,
}

/// A store file. Cheap to clone: the clones share one writer thread and
/// one pool of read connections.
#[derive(Clone, Debug)]
pub struct Store {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    path: PathBuf,
    durability: Durability,
    /// The queue of the writer thread (group commit, `writer.rs`).
    writes: mpsc::Sender<writer::Request>,
    /// The writer, then the checkpointer (which ends when the writer does).
    threads: Vec<std::thread::JoinHandle<()>>,
    counters: Arc<writer::Counters>,
    /// Idle read connections: restoring a session borrows one.
    readers: Mutex<Vec<Connection>>,
}

/// Read connections kept open between loads; more are opened when more
/// loads run at once, and closed after.
const IDLE_READERS: usize = 2;

impl Drop for Shared {
    fn drop(&mut self) {
        // Closing the queue ends the writer once it has answered every
        // write already queued; waiting for it closes the file before the
        // store's owner goes on (and, say, removes the file).
        let (closed, _) = mpsc::channel();
        drop(std::mem::replace(&mut self.writes, closed));
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl Store {
    /// Opens (creating if needed) the store at `path`; refuses a file of
    /// another format version. Starts the store's writer thread.
    pub fn open(path: &Path, durability: Durability) -> Result<Store, StoreError> {
        let display = path.display().to_string();
        let sql = |source| StoreError::Sqlite {
            path: display.clone(),
            source,
        };
        let mut conn = connect(path, durability)?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(sql)?;
        match version {
            0 => {
                tx.execute_batch(SCHEMA).map_err(sql)?;
                tx.execute_batch(CONSENTS_TABLE).map_err(sql)?;
                tx.execute_batch(UNDECIDED_TABLE).map_err(sql)?;
                tx.execute_batch(&format!("PRAGMA user_version = {STORE_FORMAT}"))
                    .map_err(sql)?;
            }
            STORE_FORMAT_WITHOUT_CONTROL => {
                tx.execute_batch(&format!(
                    "ALTER TABLE sessions ADD COLUMN control TEXT;
                     ALTER TABLE events ADD COLUMN decided_at TEXT;
                     {CONSENTS_TABLE}
                     {UNDECIDED_TABLE}
                     UPDATE sessions SET state_format = {STATE_VERSION}
                         WHERE state_format IN ({STATE_VERSION_WITHOUT_CONTROL}, {STATE_VERSION_WITHOUT_TIMES}, {STATE_VERSION_WITHOUT_CONSENTS}, {STATE_VERSION_WITHOUT_UNDECIDED});
                     PRAGMA user_version = {STORE_FORMAT};"
                ))
                .map_err(sql)?;
            }
            STORE_FORMAT_WITHOUT_TIMES => {
                tx.execute_batch(&format!(
                    "ALTER TABLE events ADD COLUMN decided_at TEXT;
                     {CONSENTS_TABLE}
                     {UNDECIDED_TABLE}
                     UPDATE sessions SET state_format = {STATE_VERSION}
                         WHERE state_format IN ({STATE_VERSION_WITHOUT_TIMES}, {STATE_VERSION_WITHOUT_CONSENTS}, {STATE_VERSION_WITHOUT_UNDECIDED});
                     PRAGMA user_version = {STORE_FORMAT};"
                ))
                .map_err(sql)?;
            }
            STORE_FORMAT_WITHOUT_CONSENTS => {
                tx.execute_batch(&format!(
                    "{CONSENTS_TABLE}
                     {UNDECIDED_TABLE}
                     UPDATE sessions SET state_format = {STATE_VERSION}
                         WHERE state_format IN ({STATE_VERSION_WITHOUT_CONSENTS}, {STATE_VERSION_WITHOUT_UNDECIDED});
                     PRAGMA user_version = {STORE_FORMAT};"
                ))
                .map_err(sql)?;
            }
            STORE_FORMAT_WITHOUT_UNDECIDED => {
                tx.execute_batch(&format!(
                    "{UNDECIDED_TABLE}
                     UPDATE sessions SET state_format = {STATE_VERSION}
                         WHERE state_format = {STATE_VERSION_WITHOUT_UNDECIDED};
                     PRAGMA user_version = {STORE_FORMAT};"
                ))
                .map_err(sql)?;
            }
            STORE_FORMAT => {}
            found => {
                return Err(StoreError::StoreFormat {
                    path: display,
                    found,
                });
            }
        }
        tx.commit().map_err(sql)?;
        // The connection that checked the file becomes the writer's; its
        // checkpoints are the checkpointer's (`writer.rs`).
        conn.execute_batch("PRAGMA wal_autocheckpoint = 0")
            .map_err(sql)?;
        let checkpointer_conn = connect(path, durability)?;
        let (nudges, nudged) = mpsc::sync_channel(1);
        let thread_failed = |e: std::io::Error| StoreError::Io {
            path: display.clone(),
            message: format!("cannot start the store's threads: {e}"),
        };
        let checkpointer = std::thread::Builder::new()
            .name("turnstile-store-checkpointer".to_owned())
            .spawn(move || writer::checkpoint(&checkpointer_conn, &nudged))
            .map_err(thread_failed)?;
        let (writes, queue) = mpsc::channel();
        let writer_path = display.clone();
        let counters = Arc::new(writer::Counters::default());
        let writer_counters = Arc::clone(&counters);
        let writer = std::thread::Builder::new()
            .name("turnstile-store-writer".to_owned())
            .spawn(move || writer::run(conn, &writer_path, &queue, &writer_counters, &nudges))
            .map_err(thread_failed)?;
        Ok(Store {
            shared: Arc::new(Shared {
                path: path.to_path_buf(),
                durability,
                writes,
                threads: vec![writer, checkpointer],
                counters,
                readers: Mutex::new(Vec::new()),
            }),
        })
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// The sync policy the store was opened with.
    pub fn durability(&self) -> Durability {
        self.shared.durability
    }

    /// What this process's writer has done since the store was opened.
    pub fn stats(&self) -> StoreStats {
        let counters = &self.shared.counters;
        StoreStats {
            writes_queued: counters.submitted.load(Ordering::Relaxed),
            transactions: counters.transactions.load(Ordering::Relaxed),
            writes_committed: counters.committed.load(Ordering::Relaxed),
        }
    }

    /// Takes the exclusive right to write session `id` (which may not exist
    /// yet). Fails with [`StoreError::Locked`] while another handle, in this
    /// or another process, holds it.
    pub fn claim(&self, id: &str) -> Result<SessionHandle, StoreError> {
        check_id(id)?;
        let dir = self.lock_dir();
        std::fs::create_dir_all(&dir).map_err(|e| StoreError::Io {
            path: dir.display().to_string(),
            message: format!("cannot create the lock directory: {e}"),
        })?;
        let lock_path = dir.join(format!("{}.lock", hex(id.as_bytes())));
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| StoreError::Io {
                path: lock_path.display().to_string(),
                message: format!("cannot open the lock file: {e}"),
            })?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(StoreError::Locked {
                    id: id.to_owned(),
                    lock: lock_path.display().to_string(),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(StoreError::Io {
                    path: lock_path.display().to_string(),
                    message: format!("cannot lock: {e}"),
                });
            }
        }
        Ok(SessionHandle {
            id: id.to_owned(),
            store: self.clone(),
            _lock: lock,
            stored_events: 0,
            exists: false,
            unsettled: None,
            adopted_hash: None,
        })
    }

    fn lock_dir(&self) -> PathBuf {
        let mut name = self
            .shared
            .path
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        name.push("-locks");
        self.shared.path.with_file_name(name)
    }

    /// Runs `read` on a read connection from the pool (opened if none is
    /// idle), then returns the connection to the pool.
    fn read<T>(
        &self,
        read: impl FnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let idle = self
            .shared
            .readers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let mut conn = match idle {
            Some(conn) => conn,
            None => {
                let conn = connect(&self.shared.path, self.shared.durability)?;
                // A reader never writes: SQLite refuses it if one tried.
                conn.execute_batch("PRAGMA query_only = ON")
                    .map_err(|e| self.sql(e))?;
                conn
            }
        };
        let result = read(&mut conn);
        let mut readers = self
            .shared
            .readers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if readers.len() < IDLE_READERS {
            readers.push(conn);
        }
        result
    }

    /// Queues `write` for the writer thread; `reply` hears its outcome once
    /// the transaction holding it committed (or failed).
    fn submit(&self, write: writer::Write, reply: writer::Reply) -> Result<(), StoreError> {
        self.shared
            .counters
            .submitted
            .fetch_add(1, Ordering::Relaxed);
        self.shared
            .writes
            .send(writer::Request { write, reply })
            .map_err(|_| StoreError::WriterStopped {
                path: self.display(),
            })
    }

    /// Queues `write` and waits, blocking this thread, until it committed.
    fn write(&self, write: writer::Write) -> Result<(), StoreError> {
        let (reply, outcome) = mpsc::sync_channel(1);
        self.submit(write, writer::Reply::Blocking(reply))?;
        outcome.recv().unwrap_or_else(|_| {
            Err(StoreError::WriterStopped {
                path: self.display(),
            })
        })
    }

    fn display(&self) -> String {
        self.shared.path.display().to_string()
    }

    fn sql(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.display(),
            source,
        }
    }
}

/// Opens a connection to the store file in WAL mode with the store's sync
/// policy.
fn connect(path: &Path, durability: Durability) -> Result<Connection, StoreError> {
    let sql = |source| StoreError::Sqlite {
        path: path.display().to_string(),
        source,
    };
    let conn = Connection::open(path).map_err(sql)?;
    conn.busy_timeout(Duration::from_secs(10)).map_err(sql)?;
    // `journal_mode` answers with a row, so it is queried, not executed.
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(sql)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Io {
            path: path.display().to_string(),
            message: format!("cannot switch to WAL mode (journal mode is {mode})"),
        });
    }
    conn.execute_batch(&format!(
        "PRAGMA synchronous = {}; PRAGMA foreign_keys = ON;",
        durability.pragma()
    ))
    .map_err(sql)?;
    Ok(conn)
}

/// The `usage` column's default, before the first append.
const EMPTY_USAGE: &str = "{}";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    state_format INTEGER NOT NULL,
    bundle TEXT NOT NULL,
    bundle_hash TEXT NOT NULL,
    schedule TEXT NOT NULL,
    events INTEGER NOT NULL DEFAULT 0,
    after_user INTEGER NOT NULL DEFAULT 0,
    after_block INTEGER NOT NULL DEFAULT 0,
    usage TEXT NOT NULL DEFAULT '{}',
    control TEXT
) STRICT;
CREATE TABLE IF NOT EXISTS events (
    session TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    verdict TEXT NOT NULL,
    decided_at TEXT,
    PRIMARY KEY (session, seq)
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS accepted (
    session TEXT NOT NULL REFERENCES sessions(id),
    verdict TEXT NOT NULL,
    PRIMARY KEY (session, verdict)
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS asked (
    session TEXT NOT NULL REFERENCES sessions(id),
    question TEXT NOT NULL,
    PRIMARY KEY (session, question)
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS seen (
    session TEXT NOT NULL REFERENCES sessions(id),
    request TEXT NOT NULL,
    PRIMARY KEY (session, request)
) STRICT, WITHOUT ROWID;
";

/// The model judge's consent answers (store format 4), each stored whole
/// (JSON): the question it answers and the answer.
const CONSENTS_TABLE: &str = "
CREATE TABLE IF NOT EXISTS consents (
    session TEXT NOT NULL REFERENCES sessions(id),
    answer TEXT NOT NULL,
    PRIMARY KEY (session, answer)
) STRICT, WITHOUT ROWID;
";

/// The changes in what the judge left undecided (store format 5), each
/// stored whole (JSON).
const UNDECIDED_TABLE: &str = "
CREATE TABLE IF NOT EXISTS undecided (
    session TEXT NOT NULL REFERENCES sessions(id),
    answer TEXT NOT NULL,
    PRIMARY KEY (session, answer)
) STRICT, WITHOUT ROWID;
";

/// The exclusive writer of one session. Dropping it releases the lock.
#[derive(Debug)]
pub struct SessionHandle {
    id: String,
    store: Store,
    _lock: File,
    /// How many events the store holds: the next append starts there.
    stored_events: usize,
    exists: bool,
    /// A write whose caller stopped waiting (a cancelled request): it may
    /// still commit, so the next operation waits for its outcome first and
    /// never reads or writes behind it.
    unsettled: Option<Unsettled>,
    /// The bundle's content id, written over the row's older id with every
    /// append ([`SessionHandle::adopt_bundle_hash`]).
    adopted_hash: Option<String>,
}

impl Drop for SessionHandle {
    /// A write still in the writer's queue is waited for before the lock is
    /// released, so the next holder of the session never reads behind it.
    fn drop(&mut self) {
        self.settle_blocking();
    }
}

/// A queued write nobody waits for yet, and what it makes true once stored.
#[derive(Debug)]
struct Unsettled {
    outcome: tokio::sync::oneshot::Receiver<writer::Outcome>,
    /// `stored_events` once it committed.
    stored_events: usize,
}

impl SessionHandle {
    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Events the store holds for this session.
    pub fn stored_events(&self) -> usize {
        self.stored_events
    }

    /// Creates the session; refuses an id that exists.
    pub fn create(&mut self, meta: &SessionMeta) -> Result<(), StoreError> {
        self.settle_blocking();
        self.store.write(self.new_session(meta))?;
        self.created();
        Ok(())
    }

    /// [`create`](Self::create) for async callers: waits for the commit
    /// without holding a thread.
    pub async fn create_async(&mut self, meta: &SessionMeta) -> Result<(), StoreError> {
        self.settle().await;
        let (reply, outcome) = tokio::sync::oneshot::channel();
        self.store
            .submit(self.new_session(meta), writer::Reply::Async(reply))?;
        // A dropped future leaves the creation unknown to this handle: a
        // later append is refused as `Missing` and a load finds the row.
        outcome.await.unwrap_or_else(|_| {
            Err(StoreError::WriterStopped {
                path: self.store.display(),
            })
        })?;
        self.created();
        Ok(())
    }

    fn new_session(&self, meta: &SessionMeta) -> writer::Write {
        writer::Write::Create(writer::NewSession {
            id: self.id.clone(),
            state_format: i64::from(STATE_VERSION),
            bundle: meta.bundle.clone(),
            bundle_hash: meta.bundle_hash.clone(),
            schedule: meta.schedule.name(),
            control: meta.control.map(control_name),
        })
    }

    fn created(&mut self) {
        self.exists = true;
        self.stored_events = 0;
    }

    /// Reads the session back (`None` if it does not exist); refuses a
    /// session saved in another state format.
    pub fn load(&mut self) -> Result<Option<StoredSession>, StoreError> {
        self.settle_blocking();
        let id = self.id.clone();
        let Some(stored) = self.store.read(|conn| read_session(conn, &id))? else {
            return Ok(None);
        };
        self.exists = true;
        self.stored_events = stored.state.events.len();
        Ok(Some(stored))
    }

    /// Records the session under `hash`, the content id of the bundle its
    /// row names by an older, path-based id (a restore accepted it as the
    /// same bundle): the row is rewritten with the next append.
    pub fn adopt_bundle_hash(&mut self, hash: &str) {
        self.adopted_hash = Some(hash.to_owned());
    }

    /// The verdicts the store holds for this session, in event order
    /// (what `load` returns, without restoring the session).
    pub fn verdicts(&mut self) -> Result<Vec<serde_json::Value>, StoreError> {
        self.settle_blocking();
        let id = self.id.clone();
        self.store.read(|conn| {
            let path = conn.path().unwrap_or_default().to_owned();
            let sql = |source| StoreError::Sqlite {
                path: path.clone(),
                source,
            };
            let mut statement = conn
                .prepare_cached("SELECT verdict FROM events WHERE session = ?1 ORDER BY seq")
                .map_err(sql)?;
            let texts = statement
                .query_map(params![id], |r| r.get::<_, String>(0))
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(sql)?;
            texts
                .iter()
                .map(|text| serde_json::from_str(text))
                .collect::<Result<_, _>>()
                .map_err(|e| StoreError::Corrupt {
                    id: id.clone(),
                    message: e.to_string(),
                })
        })
    }

    /// Appends what `state` holds beyond what the store holds: its events
    /// past [`stored_events`](Self::stored_events) (each with its verdict,
    /// `verdicts[i]` for the i-th new event), and its judge verdicts,
    /// questions and requests (those already stored are ignored) and flags,
    /// committed before this returns. It writes the session's whole sets:
    /// for tests and tools; the served path appends deltas
    /// ([`append_delta`](Self::append_delta)).
    pub fn append(
        &mut self,
        state: &SessionState,
        verdicts: &[serde_json::Value],
    ) -> Result<(), StoreError> {
        let delta = SessionDelta {
            first_event: self.stored_events,
            events: state
                .events
                .get(self.stored_events..)
                .unwrap_or_default()
                .to_vec(),
            times: state
                .times
                .get(self.stored_events..)
                .unwrap_or_default()
                .to_vec(),
            judged: state.judged.clone(),
            asked: state.asked.clone(),
            consents: state.consents.clone(),
            undecided: state.undecided.clone(),
            seen: state.seen.clone(),
            total_events: state.events.len(),
            after_user: state.after_user,
            after_block: state.after_block,
            usage: state.usage,
        };
        self.append_delta(&delta, verdicts)
    }

    /// Appends what a session added since its last append
    /// ([`Session::delta`](turnstile_engine::Session::delta)): its new events
    /// (each with its verdict, `verdicts[i]` for the i-th), new judge
    /// verdicts, questions and requests, and the flags — committed before
    /// this returns, in the transaction the store's writer commits next with
    /// the appends of other sessions. The cost is what the event added, not
    /// the session's size. Blocks the calling thread; async callers use
    /// [`append_delta_async`](Self::append_delta_async).
    pub fn append_delta(
        &mut self,
        delta: &SessionDelta,
        verdicts: &[impl VerdictJson],
    ) -> Result<(), StoreError> {
        self.settle_blocking();
        let rows = self.rows(delta, verdicts)?;
        self.store.write(writer::Write::Append(rows))?;
        self.stored_events = delta.total_events;
        Ok(())
    }

    /// [`append_delta`](Self::append_delta) for async callers (the hot path
    /// of `serve`): waits for the commit without holding a thread. If the
    /// future is dropped before the commit is known, the write may still
    /// commit; the handle's next operation waits for its outcome first.
    pub async fn append_delta_async(
        &mut self,
        delta: &SessionDelta,
        verdicts: &[impl VerdictJson],
    ) -> Result<(), StoreError> {
        self.settle().await;
        let rows = self.rows(delta, verdicts)?;
        let (reply, outcome) = tokio::sync::oneshot::channel();
        self.store
            .submit(writer::Write::Append(rows), writer::Reply::Async(reply))?;
        // Kept in the handle while waiting: if this future is dropped, the
        // next operation waits for the outcome instead.
        let unsettled = self.unsettled.insert(Unsettled {
            outcome,
            stored_events: delta.total_events,
        });
        let outcome = (&mut unsettled.outcome).await.ok();
        self.settled(outcome)
    }

    /// Waits for the outcome of a write whose caller stopped waiting and
    /// books it. Its error, if any, was that caller's: the store holds what
    /// it holds, and this handle now knows how much.
    async fn settle(&mut self) {
        if let Some(unsettled) = self.unsettled.as_mut() {
            let outcome = (&mut unsettled.outcome).await.ok();
            let _ = self.settled(outcome);
        }
    }

    /// [`settle`](Self::settle), blocking the calling thread (which may be
    /// inside an async runtime, so a polling wait; it happens only after a
    /// cancelled request).
    fn settle_blocking(&mut self) {
        let Some(unsettled) = self.unsettled.as_mut() else {
            return;
        };
        let outcome = loop {
            match unsettled.outcome.try_recv() {
                Ok(outcome) => break Some(outcome),
                Err(tokio::sync::oneshot::error::TryRecvError::Empty) => {
                    std::thread::sleep(Duration::from_micros(200));
                }
                Err(tokio::sync::oneshot::error::TryRecvError::Closed) => break None,
            }
        };
        let _ = self.settled(outcome);
    }

    /// Books the outcome of the unsettled write (`None`: the writer is
    /// gone without answering).
    fn settled(&mut self, outcome: Option<writer::Outcome>) -> Result<(), StoreError> {
        let Some(unsettled) = self.unsettled.take() else {
            return Ok(());
        };
        match outcome {
            Some(Ok(())) => {
                self.stored_events = unsettled.stored_events;
                Ok(())
            }
            Some(Err(e)) => Err(e),
            None => Err(StoreError::WriterStopped {
                path: self.store.display(),
            }),
        }
    }

    /// Checks `delta` against what the store holds and serialises its rows.
    fn rows(
        &self,
        delta: &SessionDelta,
        verdicts: &[impl VerdictJson],
    ) -> Result<writer::Rows, StoreError> {
        if !self.exists {
            return Err(StoreError::Missing(self.id.clone()));
        }
        if delta.first_event != self.stored_events {
            return Err(self.corrupt(format!(
                "the new events start at {} but the store holds {}",
                delta.first_event, self.stored_events
            )));
        }
        if delta.events.len() != verdicts.len() {
            return Err(self.corrupt(format!(
                "{} new events but {} verdicts to store",
                delta.events.len(),
                verdicts.len()
            )));
        }
        let corrupt = |e: serde_json::Error| self.corrupt(e);
        Ok(writer::Rows {
            id: self.id.clone(),
            first_seq: i64::try_from(self.stored_events).unwrap_or(i64::MAX),
            events: delta
                .events
                .iter()
                .zip(verdicts)
                .enumerate()
                .map(|(i, (event, verdict))| {
                    let decided_at = delta.times.get(i).copied().flatten();
                    Ok((
                        serde_json::to_string(event)?,
                        verdict.json_text()?,
                        decided_at.map(|at| at.to_string()),
                    ))
                })
                .collect::<Result<_, _>>()
                .map_err(corrupt)?,
            bundle_hash: self.adopted_hash.clone(),
            judged: json_rows(&delta.judged, serde_json::to_string).map_err(corrupt)?,
            asked: json_rows(&delta.asked, serde_json::to_string).map_err(corrupt)?,
            consents: json_rows(&delta.consents, serde_json::to_string).map_err(corrupt)?,
            undecided: json_rows(&delta.undecided, serde_json::to_string).map_err(corrupt)?,
            seen: json_rows(&delta.seen, serde_json::to_string).map_err(corrupt)?,
            total_events: i64::try_from(delta.total_events).unwrap_or(i64::MAX),
            after_user: delta.after_user,
            after_block: delta.after_block,
            usage: serde_json::to_string(&delta.usage).map_err(corrupt)?,
        })
    }

    fn corrupt(&self, message: impl ToString) -> StoreError {
        StoreError::Corrupt {
            id: self.id.clone(),
            message: message.to_string(),
        }
    }
}

/// A verdict as the store writes it: its JSON text.
pub trait VerdictJson {
    /// The verdict's JSON text.
    fn json_text(&self) -> serde_json::Result<String>;
}

/// A verdict as a `Value`: written with `to_string` (not `Display`, which
/// goes through `fmt::Formatter`; the same bytes).
impl VerdictJson for serde_json::Value {
    fn json_text(&self) -> serde_json::Result<String> {
        serde_json::to_string(self)
    }
}

/// A verdict the caller serialized already (`serde_json::to_string` of its
/// report, which it also answers with): stored as it is, so the verdict is
/// serialized once per event. It must be JSON; reading back a row that is
/// not fails as [`StoreError::Corrupt`].
impl VerdictJson for String {
    fn json_text(&self) -> serde_json::Result<String> {
        Ok(self.clone())
    }
}

/// Each of `items` as its JSON row.
fn json_rows<T>(
    items: &[T],
    to_json: impl Fn(&T) -> serde_json::Result<String>,
) -> serde_json::Result<Vec<String>> {
    items.iter().map(to_json).collect()
}

/// Reads session `id` in one read transaction (`None` if it does not
/// exist); refuses a session saved in another state format.
fn read_session(conn: &mut Connection, id: &str) -> Result<Option<StoredSession>, StoreError> {
    let path = conn.path().unwrap_or_default().to_owned();
    let sql = |source| StoreError::Sqlite {
        path: path.clone(),
        source,
    };
    let corrupt = |message: &dyn std::fmt::Display| StoreError::Corrupt {
        id: id.to_owned(),
        message: message.to_string(),
    };
    let tx = conn.transaction().map_err(sql)?;
    let row = tx
        .query_row(
            "SELECT state_format, bundle, bundle_hash, schedule, after_user, after_block, usage, control FROM sessions WHERE id = ?1",
            params![id],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, bool>(4)?,
                    r.get::<_, bool>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, Option<String>>(7)?,
                ))
            },
        )
        .optional()
        .map_err(sql)?;
    let Some((format, bundle, bundle_hash, schedule, after_user, after_block, usage, control)) =
        row
    else {
        return Ok(None);
    };
    if format != i64::from(STATE_VERSION) {
        return Err(StoreError::StateFormat {
            id: id.to_owned(),
            found: format,
        });
    }
    let schedule: Schedule = schedule.parse().map_err(|e| corrupt(&e))?;
    // `{}` is the column's default: a session created but never appended
    // to (a server restarted before its first event) has used nothing.
    let usage: Usage = if usage == EMPTY_USAGE {
        Usage::default()
    } else {
        serde_json::from_str(&usage).map_err(|e| corrupt(&e))?
    };
    let control = control
        .map(|name| {
            parse_control(&name).ok_or_else(|| corrupt(&format!("unknown control {name:?}")))
        })
        .transpose()?;
    let mut events = Vec::new();
    let mut verdicts = Vec::new();
    let mut times = Vec::new();
    {
        let mut statement = tx
            .prepare_cached(
                "SELECT event, verdict, decided_at FROM events WHERE session = ?1 ORDER BY seq",
            )
            .map_err(sql)?;
        let rows = statement
            .query_map(params![id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                ))
            })
            .map_err(sql)?;
        for row in rows {
            let (event, verdict, decided_at) = row.map_err(sql)?;
            events.push(serde_json::from_str::<Event>(&event).map_err(|e| corrupt(&e))?);
            verdicts.push(serde_json::from_str(&verdict).map_err(|e| corrupt(&e))?);
            times.push(
                decided_at
                    .map(|at| DateTime::parse(&at))
                    .transpose()
                    .map_err(|e| corrupt(&e))?,
            );
        }
    }
    let column = |query: &str| -> Result<Vec<String>, StoreError> {
        let mut statement = tx.prepare_cached(query).map_err(sql)?;
        statement
            .query_map(params![id], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect())
            .map_err(sql)
    };
    // Each set is read back ordered (a B-tree), whatever order it was
    // stored in. An accepted verdict is stored whole (JSON): it names the
    // request it was asked about (state format 3).
    let judged: BTreeSet<AcceptedVerdict> =
        column("SELECT verdict FROM accepted WHERE session = ?1")?
            .iter()
            .map(|v| serde_json::from_str(v))
            .collect::<Result<_, _>>()
            .map_err(|e| corrupt(&e))?;
    let asked: BTreeSet<AskedQuestion> = column("SELECT question FROM asked WHERE session = ?1")?
        .iter()
        .map(|q| serde_json::from_str(q))
        .collect::<Result<_, _>>()
        .map_err(|e| corrupt(&e))?;
    let consents: BTreeSet<ConsentAnswer> =
        column("SELECT answer FROM consents WHERE session = ?1")?
            .iter()
            .map(|a| serde_json::from_str(a))
            .collect::<Result<_, _>>()
            .map_err(|e| corrupt(&e))?;
    // Undecided answers apply in their own order (by their questions'
    // slices), which the B-tree gives.
    let undecided: BTreeSet<UndecidedAnswer> =
        column("SELECT answer FROM undecided WHERE session = ?1")?
            .iter()
            .map(|a| serde_json::from_str(a))
            .collect::<Result<_, _>>()
            .map_err(|e| corrupt(&e))?;
    let seen: BTreeSet<Env> = column("SELECT request FROM seen WHERE session = ?1")?
        .iter()
        .map(|r| serde_json::from_str(r))
        .collect::<Result<_, _>>()
        .map_err(|e| corrupt(&e))?;
    let state = SessionState {
        version: STATE_VERSION,
        bundle: bundle_hash.clone(),
        schedule,
        control,
        events,
        times,
        judged: judged.into_iter().collect(),
        asked: asked.into_iter().collect(),
        consents: consents.into_iter().collect(),
        undecided: undecided.into_iter().collect(),
        seen: seen.into_iter().collect(),
        after_user,
        after_block,
        usage,
    };
    Ok(Some(StoredSession {
        meta: SessionMeta {
            bundle,
            bundle_hash,
            schedule,
            control,
        },
        state,
        verdicts,
    }))
}

/// A session id is any short text without control characters: it names a
/// lock file only through its hex encoding, so no id can escape the lock
/// directory.
pub fn check_id(id: &str) -> Result<(), StoreError> {
    if id.is_empty() || id.len() > MAX_SESSION_ID || id.chars().any(char::is_control) {
        return Err(StoreError::InvalidId(id.to_owned()));
    }
    Ok(())
}

/// A control's name in the store (and in bundles and traces).
fn control_name(control: Control) -> &'static str {
    match control {
        Control::Dual => "dual",
        Control::Solo => "solo",
    }
}

fn parse_control(name: &str) -> Option<Control> {
    [Control::Dual, Control::Solo]
        .into_iter()
        .find(|c| control_name(*c) == name)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

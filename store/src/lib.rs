//! Durable gate sessions in one SQLite file (WAL mode). Each session is a
//! row (bundle name and hash, schedule, who calls the user-side tools, the
//! session-state format version, the firing flags and judge usage) plus an append-only log: one row per
//! event with the verdict given on it, one row per accepted judge verdict,
//! per question already asked and per request already seen. Appending an
//! event writes only what the event added, in one transaction, so the cost
//! of an event does not grow with the conversation.
//!
//! A session is written by one [`SessionHandle`] at a time, across
//! processes: claiming a session takes an exclusive advisory lock on a file
//! in `<store>-locks/`, released by the operating system when the holder
//! exits, even on `kill -9`. A second claim is refused with
//! [`StoreError::Locked`]; other sessions proceed concurrently (SQLite
//! serialises their short write transactions).
//!
//! A store file of format 1 (before sessions recorded their `control`) is
//! migrated when opened: the column is added, and its sessions of state
//! format 3 become format 4 with no recorded control, which restores them
//! under the bundle's `control` — exactly what they ran under, since no
//! writer of format 1 honoured another. Sessions of older state formats are
//! still refused.
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

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use turnstile_engine::bundle::model::Control;
use turnstile_engine::session::{
    AcceptedVerdict, AskedQuestion, STATE_VERSION, Schedule, SessionDelta, SessionState,
};
use turnstile_engine::trace::Event;
use turnstile_judge::Usage;
use turnstile_rules::Env;

/// The layout version of the store file (`PRAGMA user_version`). Format 2
/// added the sessions' `control`; a format-1 file is migrated on open.
pub const STORE_FORMAT: i64 = 2;

/// The store format before `control` was recorded, migrated on open.
const STORE_FORMAT_WITHOUT_CONTROL: i64 = 1;

/// The session-state format a format-1 store wrote, the same as
/// [`STATE_VERSION`] apart from `control`.
const STATE_VERSION_WITHOUT_CONTROL: i64 = 3;

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

/// A store file. Cheap to clone; every [`SessionHandle`] opens its own
/// connection.
#[derive(Clone, Debug)]
pub struct Store {
    path: PathBuf,
    durability: Durability,
    /// One write transaction at a time from this process: sessions of one
    /// server queue here instead of contending for SQLite's write lock,
    /// which a busy timeout turns into "database is locked" under load.
    /// Other processes still wait through the busy timeout.
    writer: Arc<Mutex<()>>,
}

impl Store {
    /// Opens (creating if needed) the store at `path`; refuses a file of
    /// another format version.
    pub fn open(path: &Path, durability: Durability) -> Result<Store, StoreError> {
        let store = Store {
            path: path.to_path_buf(),
            durability,
            writer: Arc::new(Mutex::new(())),
        };
        let mut conn = store.connect()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| store.sql(e))?;
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| store.sql(e))?;
        match version {
            0 => {
                tx.execute_batch(SCHEMA).map_err(|e| store.sql(e))?;
                tx.execute_batch(&format!("PRAGMA user_version = {STORE_FORMAT}"))
                    .map_err(|e| store.sql(e))?;
            }
            STORE_FORMAT_WITHOUT_CONTROL => {
                tx.execute_batch(&format!(
                    "ALTER TABLE sessions ADD COLUMN control TEXT;
                     UPDATE sessions SET state_format = {STATE_VERSION}
                         WHERE state_format = {STATE_VERSION_WITHOUT_CONTROL};
                     PRAGMA user_version = {STORE_FORMAT};"
                ))
                .map_err(|e| store.sql(e))?;
            }
            STORE_FORMAT => {}
            found => {
                return Err(StoreError::StoreFormat {
                    path: store.display(),
                    found,
                });
            }
        }
        tx.commit().map_err(|e| store.sql(e))?;
        Ok(store)
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The sync policy the store was opened with.
    pub fn durability(&self) -> Durability {
        self.durability
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
            conn: self.connect()?,
            path: self.display(),
            _lock: lock,
            writer: Arc::clone(&self.writer),
            stored_events: 0,
            judged: BTreeSet::new(),
            asked: BTreeSet::new(),
            seen: BTreeSet::new(),
            exists: false,
        })
    }

    fn lock_dir(&self) -> PathBuf {
        let mut name = self
            .path
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        name.push("-locks");
        self.path.with_file_name(name)
    }

    fn connect(&self) -> Result<Connection, StoreError> {
        let conn = Connection::open(&self.path).map_err(|e| self.sql(e))?;
        conn.busy_timeout(Duration::from_secs(10))
            .map_err(|e| self.sql(e))?;
        // `journal_mode` answers with a row, so it is queried, not executed.
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(|e| self.sql(e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Io {
                path: self.display(),
                message: format!("cannot switch to WAL mode (journal mode is {mode})"),
            });
        }
        conn.execute_batch(&format!(
            "PRAGMA synchronous = {}; PRAGMA foreign_keys = ON;",
            self.durability.pragma()
        ))
        .map_err(|e| self.sql(e))?;
        Ok(conn)
    }

    fn display(&self) -> String {
        self.path.display().to_string()
    }

    fn sql(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.display(),
            source,
        }
    }
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

/// The exclusive writer of one session. Dropping it releases the lock.
#[derive(Debug)]
pub struct SessionHandle {
    id: String,
    conn: Connection,
    path: String,
    _lock: File,
    /// The store's in-process write gate.
    writer: Arc<Mutex<()>>,
    /// How many events the store holds: the next append starts there.
    stored_events: usize,
    /// What the store already holds of the growing sets, so an append
    /// writes only what is new.
    judged: BTreeSet<AcceptedVerdict>,
    asked: BTreeSet<AskedQuestion>,
    seen: BTreeSet<Env>,
    exists: bool,
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
        let writer = Arc::clone(&self.writer);
        let _writing = writer.lock().unwrap_or_else(PoisonError::into_inner);
        let inserted = self
            .conn
            .execute(
                "INSERT OR IGNORE INTO sessions (id, state_format, bundle, bundle_hash, schedule, control) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    self.id,
                    i64::from(STATE_VERSION),
                    meta.bundle,
                    meta.bundle_hash,
                    meta.schedule.name(),
                    meta.control.map(control_name)
                ],
            )
            .map_err(|e| self.sql(e))?;
        if inserted == 0 {
            return Err(StoreError::Exists(self.id.clone()));
        }
        self.exists = true;
        self.stored_events = 0;
        self.judged.clear();
        self.asked.clear();
        self.seen.clear();
        Ok(())
    }

    /// Reads the session back (`None` if it does not exist); refuses a
    /// session saved in another state format.
    pub fn load(&mut self) -> Result<Option<StoredSession>, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT state_format, bundle, bundle_hash, schedule, after_user, after_block, usage, control FROM sessions WHERE id = ?1",
                params![self.id],
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
            .map_err(|e| self.sql(e))?;
        let Some((format, bundle, bundle_hash, schedule, after_user, after_block, usage, control)) =
            row
        else {
            return Ok(None);
        };
        if format != i64::from(STATE_VERSION) {
            return Err(StoreError::StateFormat {
                id: self.id.clone(),
                found: format,
            });
        }
        let schedule: Schedule = schedule.parse().map_err(|e| self.corrupt(e))?;
        // `{}` is the column's default: a session created but never appended
        // to (a server restarted before its first event) has used nothing.
        let usage: Usage = if usage == EMPTY_USAGE {
            Usage::default()
        } else {
            serde_json::from_str(&usage).map_err(|e| self.corrupt(e))?
        };
        let control = control
            .map(|name| {
                parse_control(&name)
                    .ok_or_else(|| self.corrupt(format!("unknown control {name:?}")))
            })
            .transpose()?;
        let mut events = Vec::new();
        let mut verdicts = Vec::new();
        for row in self.rows(
            "SELECT event, verdict FROM events WHERE session = ?1 ORDER BY seq",
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
        )? {
            let (event, verdict) = row;
            events.push(serde_json::from_str::<Event>(&event).map_err(|e| self.corrupt(e))?);
            verdicts.push(serde_json::from_str(&verdict).map_err(|e| self.corrupt(e))?);
        }
        // An accepted verdict is stored whole (JSON): it names the request it
        // was asked about (state format 3).
        let judged: BTreeSet<AcceptedVerdict> = self
            .rows("SELECT verdict FROM accepted WHERE session = ?1", |r| {
                r.get::<_, String>(0)
            })?
            .iter()
            .map(|v| serde_json::from_str(v))
            .collect::<Result<_, _>>()
            .map_err(|e| self.corrupt(e))?;
        let asked: BTreeSet<AskedQuestion> = self
            .rows("SELECT question FROM asked WHERE session = ?1", |r| {
                r.get::<_, String>(0)
            })?
            .iter()
            .map(|q| serde_json::from_str(q))
            .collect::<Result<_, _>>()
            .map_err(|e| self.corrupt(e))?;
        let seen: BTreeSet<Env> = self
            .rows("SELECT request FROM seen WHERE session = ?1", |r| {
                r.get::<_, String>(0)
            })?
            .iter()
            .map(|q| serde_json::from_str(q))
            .collect::<Result<_, _>>()
            .map_err(|e| self.corrupt(e))?;
        let state = SessionState {
            version: STATE_VERSION,
            bundle: bundle_hash.clone(),
            schedule,
            control,
            events,
            judged: judged.iter().copied().collect(),
            asked: asked.iter().copied().collect(),
            seen: seen.iter().copied().collect(),
            after_user,
            after_block,
            usage,
        };
        self.exists = true;
        self.stored_events = state.events.len();
        self.judged = judged;
        self.asked = asked;
        self.seen = seen;
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

    /// Appends what `state` holds beyond what the store holds: its new
    /// events (each with its verdict, `verdicts[i]` for the i-th new event),
    /// new judge verdicts, questions and requests, and the flags — in one
    /// transaction, committed before this returns.
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
            judged: state
                .judged
                .iter()
                .filter(|j| !self.judged.contains(*j))
                .copied()
                .collect(),
            asked: state
                .asked
                .iter()
                .filter(|q| !self.asked.contains(*q))
                .copied()
                .collect(),
            seen: state
                .seen
                .iter()
                .filter(|q| !self.seen.contains(*q))
                .copied()
                .collect(),
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
    /// verdicts, questions and requests, and the flags — in one transaction,
    /// committed before this returns. The cost is what the event added, not
    /// the session's size: the hot path of `serve`.
    pub fn append_delta(
        &mut self,
        delta: &SessionDelta,
        verdicts: &[serde_json::Value],
    ) -> Result<(), StoreError> {
        if !self.exists {
            return Err(StoreError::Missing(self.id.clone()));
        }
        if delta.first_event != self.stored_events {
            return Err(self.corrupt(format!(
                "the new events start at {} but the store holds {}",
                delta.first_event, self.stored_events
            )));
        }
        let new_events = &delta.events;
        if new_events.len() != verdicts.len() {
            return Err(self.corrupt(format!(
                "{} new events but {} verdicts to store",
                new_events.len(),
                verdicts.len()
            )));
        }
        let usage = serde_json::to_string(&delta.usage).map_err(|e| self.corrupt(e))?;
        let new_judged = &delta.judged;
        let new_asked = &delta.asked;
        let new_seen = &delta.seen;
        let new_asked_text: Vec<String> = new_asked
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<_, _>>()
            .map_err(|e| self.corrupt(e))?;
        let new_judged_text: Vec<String> = new_judged
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<_, _>>()
            .map_err(|e| self.corrupt(e))?;
        let new_seen_text: Vec<String> = new_seen
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<_, _>>()
            .map_err(|e| self.corrupt(e))?;
        let first = self.stored_events;
        let id = self.id.clone();
        let path = self.path.clone();
        let sql = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let writer = Arc::clone(&self.writer);
        let _writing = writer.lock().unwrap_or_else(PoisonError::into_inner);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO events (session, seq, event, verdict) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(sql)?;
            for (offset, (event, verdict)) in new_events.iter().zip(verdicts).enumerate() {
                let event = serde_json::to_string(event).map_err(|e| StoreError::Corrupt {
                    id: id.clone(),
                    message: e.to_string(),
                })?;
                let seq = i64::try_from(first + offset).unwrap_or(i64::MAX);
                insert
                    .execute(params![id, seq, event, verdict.to_string()])
                    .map_err(sql)?;
            }
            let mut judged = tx
                .prepare_cached("INSERT OR IGNORE INTO accepted (session, verdict) VALUES (?1, ?2)")
                .map_err(sql)?;
            for verdict in &new_judged_text {
                judged.execute(params![id, verdict]).map_err(sql)?;
            }
            let mut asked = tx
                .prepare_cached("INSERT OR IGNORE INTO asked (session, question) VALUES (?1, ?2)")
                .map_err(sql)?;
            for question in &new_asked_text {
                asked.execute(params![id, question]).map_err(sql)?;
            }
            let mut seen = tx
                .prepare_cached("INSERT OR IGNORE INTO seen (session, request) VALUES (?1, ?2)")
                .map_err(sql)?;
            for request in &new_seen_text {
                seen.execute(params![id, request]).map_err(sql)?;
            }
            let total = i64::try_from(delta.total_events).unwrap_or(i64::MAX);
            let updated = tx
                .execute(
                    "UPDATE sessions SET events = ?2, after_user = ?3, after_block = ?4, usage = ?5 WHERE id = ?1",
                    params![id, total, delta.after_user, delta.after_block, usage],
                )
                .map_err(sql)?;
            if updated != 1 {
                return Err(StoreError::Missing(id));
            }
        }
        tx.commit().map_err(sql)?;
        self.stored_events = delta.total_events;
        self.judged.extend(new_judged.iter().copied());
        self.asked.extend(new_asked.iter().copied());
        self.seen.extend(new_seen.iter().copied());
        Ok(())
    }

    fn rows<T>(
        &self,
        query: &str,
        f: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, StoreError> {
        let mut statement = self.conn.prepare_cached(query).map_err(|e| self.sql(e))?;
        statement
            .query_map(params![self.id], f)
            .and_then(|rows| rows.collect())
            .map_err(|e| self.sql(e))
    }

    fn sql(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    fn corrupt(&self, message: impl ToString) -> StoreError {
        StoreError::Corrupt {
            id: self.id.clone(),
            message: message.to_string(),
        }
    }
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

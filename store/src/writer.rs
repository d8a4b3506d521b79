//! The store's one writer per process (group commit): a thread owning the
//! only write connection, which takes every write waiting in its queue —
//! the appends and creations of concurrent sessions — and commits them in
//! one transaction, so concurrent sessions share one WAL append and, under
//! `synchronous=FULL`, one fsync. Each write is answered only after the
//! transaction holding it committed: an acknowledged verdict is on disk (or
//! in the OS's hands under `NORMAL`) exactly as when every write committed
//! alone.
//!
//! Each write runs inside its own savepoint, so one refused write (a
//! session that already exists, a row that conflicts) is rolled back and
//! answered with its error while the others of its batch commit. A failed
//! `BEGIN` or `COMMIT` fails every write of the batch.
//!
//! Rows arrive as text already serialised by the caller's thread: the
//! writer does only SQL, the part that cannot run in parallel.
//!
//! Checkpoints (copying the WAL back into the database, with its fsyncs)
//! run on a second thread with its own connection, not inside a commit:
//! SQLite's automatic checkpoint would stall every session queued behind
//! the commit that crosses the WAL's threshold. The writer nudges the
//! checkpointer after each transaction; it checkpoints at most every
//! [`CHECKPOINT_PAUSE`], passively (never waiting for readers or the
//! writer).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior, params};

use crate::StoreError;

/// The most writes one transaction takes: bounds the time a batch holds
/// SQLite's write lock against other processes.
const MAX_BATCH: usize = 512;

/// The least time between two checkpoints: bounds how much the WAL grows
/// between them and how often a checkpoint's fsyncs compete with commits.
pub(crate) const CHECKPOINT_PAUSE: Duration = Duration::from_millis(200);

/// A session's row, for [`Write::Create`].
#[derive(Debug)]
pub(crate) struct NewSession {
    pub(crate) id: String,
    pub(crate) state_format: i64,
    pub(crate) bundle: String,
    pub(crate) bundle_hash: String,
    pub(crate) schedule: &'static str,
    pub(crate) control: Option<&'static str>,
}

/// What one event's commit adds to a session, serialised.
#[derive(Debug)]
pub(crate) struct Rows {
    pub(crate) id: String,
    /// The sequence number of the first event.
    pub(crate) first_seq: i64,
    /// Each new event and its verdict, as JSON, and the time it was
    /// decided with (ISO text).
    pub(crate) events: Vec<(String, String, Option<String>)>,
    /// The bundle's content id, when the session's row names it by an
    /// older id of the same bundle (migrated with this append).
    pub(crate) bundle_hash: Option<String>,
    pub(crate) judged: Vec<String>,
    pub(crate) asked: Vec<String>,
    pub(crate) consents: Vec<String>,
    pub(crate) undecided: Vec<String>,
    pub(crate) seen: Vec<String>,
    pub(crate) total_events: i64,
    pub(crate) after_user: bool,
    pub(crate) after_block: bool,
    pub(crate) usage: String,
}

/// One write a session asks of the writer.
#[derive(Debug)]
pub(crate) enum Write {
    /// A new session's row; refused with [`StoreError::Exists`] if taken.
    Create(NewSession),
    /// An append; refused with [`StoreError::Missing`] if the session's row
    /// is not there.
    Append(Rows),
}

pub(crate) type Outcome = Result<(), StoreError>;

/// Where the writer answers: a waiting thread or a waiting task.
#[derive(Debug)]
pub(crate) enum Reply {
    Blocking(mpsc::SyncSender<Outcome>),
    Async(tokio::sync::oneshot::Sender<Outcome>),
}

impl Reply {
    fn send(self, outcome: Outcome) {
        // A caller that stopped waiting (a cancelled request) learns the
        // outcome from the store when it reloads; nothing to do here.
        let _ = match self {
            Reply::Blocking(tx) => tx.send(outcome).is_ok(),
            Reply::Async(tx) => tx.send(outcome).is_ok(),
        };
    }
}

#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) write: Write,
    pub(crate) reply: Reply,
}

/// What the writer has done so far (read by [`crate::Store::stats`]).
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Writes queued by handles.
    pub(crate) submitted: AtomicU64,
    /// Transactions committed.
    pub(crate) transactions: AtomicU64,
    /// Writes stored by those transactions.
    pub(crate) committed: AtomicU64,
}

/// Runs the writer until every sender is gone, then closes the connection.
pub(crate) fn run(
    mut conn: Connection,
    path: &str,
    requests: &mpsc::Receiver<Request>,
    counters: &Counters,
    checkpoints: &mpsc::SyncSender<()>,
) {
    while let Ok(first) = requests.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match requests.try_recv() {
                Ok(request) => batch.push(request),
                Err(_) => break,
            }
        }
        let outcomes = commit(&mut conn, path, batch.iter().map(|r| &r.write));
        let stored = outcomes.iter().filter(|o| o.is_ok()).count();
        if stored > 0 {
            counters.transactions.fetch_add(1, Ordering::Relaxed);
            counters
                .committed
                .fetch_add(u64::try_from(stored).unwrap_or(u64::MAX), Ordering::Relaxed);
        }
        for (request, outcome) in batch.into_iter().zip(outcomes) {
            request.reply.send(outcome);
        }
        match checkpoints.try_send(()) {
            // Nudged, or a nudge is already pending.
            Ok(()) | Err(mpsc::TrySendError::Full(())) => {}
            // No checkpointer (its thread is gone): checkpoint here rather
            // than let the WAL grow without bound.
            Err(mpsc::TrySendError::Disconnected(())) => checkpoint_passively(&conn),
        }
    }
}

/// Runs the checkpointer until the writer is gone.
pub(crate) fn checkpoint(conn: &Connection, nudges: &mpsc::Receiver<()>) {
    while nudges.recv().is_ok() {
        checkpoint_passively(conn);
        std::thread::sleep(CHECKPOINT_PAUSE);
    }
}

/// Copies into the database what of the WAL no reader still needs, without
/// waiting for anyone. A failed checkpoint loses nothing (the WAL still
/// holds every commit), so its error is not reported: the next one retries.
fn checkpoint_passively(conn: &Connection) {
    let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
}

/// Commits `writes` in one transaction: one outcome per write, in order.
fn commit<'a>(
    conn: &mut Connection,
    path: &str,
    writes: impl ExactSizeIterator<Item = &'a Write>,
) -> Vec<Outcome> {
    let count = writes.len();
    let whole_batch_failed = |stage: &str, e: &rusqlite::Error| -> Vec<Outcome> {
        (0..count)
            .map(|_| {
                Err(StoreError::Commit {
                    path: path.to_owned(),
                    message: format!("{stage}: {e}"),
                })
            })
            .collect()
    };
    let mut tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
        Ok(tx) => tx,
        Err(e) => return whole_batch_failed("cannot begin the transaction", &e),
    };
    let sql = |source| StoreError::Sqlite {
        path: path.to_owned(),
        source,
    };
    let mut outcomes = Vec::with_capacity(count);
    for write in writes {
        let outcome = match tx.savepoint() {
            Err(e) => Err(sql(e)),
            // A savepoint dropped without `commit` rolls back its write only.
            Ok(savepoint) => match apply(&savepoint, write, path) {
                Ok(()) => savepoint.commit().map_err(sql),
                Err(e) => Err(e),
            },
        };
        outcomes.push(outcome);
    }
    match tx.commit() {
        Ok(()) => outcomes,
        Err(e) => whole_batch_failed("cannot commit", &e),
    }
}

fn apply(conn: &Connection, write: &Write, path: &str) -> Outcome {
    let sql = |source| StoreError::Sqlite {
        path: path.to_owned(),
        source,
    };
    match write {
        Write::Create(new) => {
            let inserted = conn
                .prepare_cached(
                    "INSERT OR IGNORE INTO sessions (id, state_format, bundle, bundle_hash, schedule, control) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .and_then(|mut insert| {
                    insert.execute(params![
                        new.id,
                        new.state_format,
                        new.bundle,
                        new.bundle_hash,
                        new.schedule,
                        new.control
                    ])
                })
                .map_err(sql)?;
            if inserted == 0 {
                return Err(StoreError::Exists(new.id.clone()));
            }
            Ok(())
        }
        Write::Append(rows) => {
            let id = &rows.id;
            let mut insert = conn
                .prepare_cached(
                    "INSERT INTO events (session, seq, event, verdict, decided_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(sql)?;
            for (seq, (event, verdict, decided_at)) in (rows.first_seq..).zip(&rows.events) {
                insert
                    .execute(params![id, seq, event, verdict, decided_at])
                    .map_err(sql)?;
            }
            if let Some(hash) = &rows.bundle_hash {
                conn.prepare_cached("UPDATE sessions SET bundle_hash = ?2 WHERE id = ?1")
                    .and_then(|mut update| update.execute(params![id, hash]))
                    .map_err(sql)?;
            }
            for (table, column, values) in [
                ("accepted", "verdict", &rows.judged),
                ("asked", "question", &rows.asked),
                ("consents", "answer", &rows.consents),
                ("undecided", "answer", &rows.undecided),
                ("seen", "request", &rows.seen),
            ] {
                if values.is_empty() {
                    continue;
                }
                let mut insert = conn
                    .prepare_cached(&format!(
                        "INSERT OR IGNORE INTO {table} (session, {column}) VALUES (?1, ?2)"
                    ))
                    .map_err(sql)?;
                for value in values {
                    insert.execute(params![id, value]).map_err(sql)?;
                }
            }
            let updated = conn
                .prepare_cached(
                    "UPDATE sessions SET events = ?2, after_user = ?3, after_block = ?4, usage = ?5 WHERE id = ?1",
                )
                .and_then(|mut update| {
                    update.execute(params![
                        id,
                        rows.total_events,
                        rows.after_user,
                        rows.after_block,
                        rows.usage
                    ])
                })
                .map_err(sql)?;
            if updated != 1 {
                return Err(StoreError::Missing(id.clone()));
            }
            Ok(())
        }
    }
}

//! The verdict cache and [`CachingJudge`]: definitive verdicts keyed by
//! (bundle hash, node id, canonical request hash, judge name), persisted as
//! append-only JSONL so re-running a corpus costs no model calls.
//!
//! File format: one JSON object per line,
//! `{"bundle":..,"node":..,"request":<hex sha-256>,"judge":..,"judgement":{..}}`.
//! Each entry is written with a single `write` of the whole line, so a crash
//! can tear at most the last line. On load a torn or garbled *last* line is
//! ignored and counted; a garbled line elsewhere is skipped and reported with
//! its line number. Neither is fatal. A torn tail (no final newline) is cut
//! off when the file is opened, so the next entry starts on a fresh line and
//! the damage never spreads to new entries.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::canon::request_hash;
use crate::judge::{Judge, SyncJudge};
use crate::types::{JudgeRequest, Judgement, Usage};

/// Errors opening or writing a cache file.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The file could not be opened, read or written.
    #[error("verdict cache {path}: {source}")]
    Io {
        /// The cache file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Identity of one cached verdict.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CacheKey {
    /// Bundle hash.
    pub bundle: String,
    /// Node id.
    pub node: String,
    /// [`request_hash`] of the question, bindings and slice.
    pub request: String,
    /// [`Judge::name`] of the judge that answered.
    pub judge: String,
}

impl CacheKey {
    /// The key of `request` answered by the judge called `judge`.
    #[must_use]
    pub fn new(request: &JudgeRequest, judge: &str) -> Self {
        Self {
            bundle: request.bundle_hash.clone(),
            node: request.node_id.clone(),
            request: request_hash(request),
            judge: judge.to_owned(),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Entry {
    #[serde(flatten)]
    key: CacheKey,
    judgement: Judgement,
}

/// What loading a cache file found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Entries loaded (later duplicates replace earlier ones).
    pub entries: usize,
    /// 1 if the last line was torn or garbled and was ignored, else 0.
    pub torn_tail: usize,
    /// 1-based numbers of garbled lines before the last, which were skipped.
    pub garbled_lines: Vec<usize>,
}

impl LoadReport {
    /// True if anything was skipped.
    #[must_use]
    pub fn has_warnings(&self) -> bool {
        self.torn_tail > 0 || !self.garbled_lines.is_empty()
    }
}

/// In-memory verdict store, optionally backed by a JSONL file.
#[derive(Debug, Default)]
pub struct VerdictCache {
    entries: Mutex<HashMap<CacheKey, Judgement>>,
    file: Option<(PathBuf, Mutex<File>)>,
    write_errors: Mutex<Vec<String>>,
}

impl VerdictCache {
    /// A cache that lives only in memory.
    #[must_use]
    pub fn in_memory() -> Self {
        Self::default()
    }

    /// Loads `path` (creating it if missing) and appends new entries to it.
    ///
    /// # Errors
    /// The file cannot be opened or read.
    pub fn open(path: impl AsRef<Path>) -> Result<(Self, LoadReport), CacheError> {
        let path = path.as_ref().to_path_buf();
        let io = |source| CacheError::Io {
            path: path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .map_err(io)?;
        let mut text = Vec::new();
        file.read_to_end(&mut text).map_err(io)?;
        let (entries, report) = parse_entries(&text);
        if !text.is_empty() && !text.ends_with(b"\n") {
            // A write torn by a crash: drop the partial line so the next entry
            // starts on a fresh line and the file stays clean.
            let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            file.set_len(keep as u64).map_err(io)?;
        }
        Ok((
            Self {
                entries: Mutex::new(entries),
                file: Some((path, Mutex::new(file))),
                write_errors: Mutex::default(),
            },
            report,
        ))
    }

    /// The cached judgement for `key`.
    #[must_use]
    pub fn get(&self, key: &CacheKey) -> Option<Judgement> {
        lock(&self.entries).get(key).cloned()
    }

    /// Stores a judgement (in memory and, if file-backed, on disk).
    ///
    /// # Errors
    /// The line could not be written; the in-memory entry is kept anyway.
    pub fn insert(&self, key: CacheKey, judgement: Judgement) -> Result<(), CacheError> {
        let entry = Entry { key, judgement };
        let result = match &self.file {
            Some((path, file)) => {
                let mut line = serde_json::to_vec(&entry).map_err(|e| CacheError::Io {
                    path: path.clone(),
                    source: std::io::Error::other(e),
                })?;
                line.push(b'\n');
                let mut file = lock(file);
                file.write_all(&line)
                    .and_then(|()| file.flush())
                    .map_err(|source| CacheError::Io {
                        path: path.clone(),
                        source,
                    })
            }
            None => Ok(()),
        };
        lock(&self.entries).insert(entry.key, entry.judgement);
        result
    }

    /// Keys every verdict cached under one of `older` bundle ids (ids an
    /// earlier build gave the bundle now identified as `current`) under
    /// `current`, so they answer for it; returns how many. The file keeps
    /// its lines: the next load adopts them again, and verdicts cached from
    /// now on are written under `current`.
    pub fn adopt_bundle_ids(&self, older: &[String], current: &str) -> usize {
        let mut entries = lock(&self.entries);
        let moved: Vec<CacheKey> = entries
            .keys()
            .filter(|k| older.contains(&k.bundle))
            .cloned()
            .collect();
        let mut adopted = 0;
        for key in moved {
            if let Some(judgement) = entries.remove(&key) {
                let renamed = CacheKey {
                    bundle: current.to_owned(),
                    ..key
                };
                // A verdict cached under the current id already wins.
                entries.entry(renamed).or_insert(judgement);
                adopted += 1;
            }
        }
        adopted
    }

    /// Number of cached verdicts.
    #[must_use]
    pub fn len(&self) -> usize {
        lock(&self.entries).len()
    }

    /// True if nothing is cached.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Write failures seen by [`CachingJudge`], which cannot return them.
    #[must_use]
    pub fn write_errors(&self) -> Vec<String> {
        lock(&self.write_errors).clone()
    }
}

fn parse_entries(text: &[u8]) -> (HashMap<CacheKey, Judgement>, LoadReport) {
    let mut entries = HashMap::new();
    let mut report = LoadReport::default();
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    // The last non-blank line is where a crash mid-write leaves its mark.
    let last = lines.iter().rposition(|l| !l.trim_ascii().is_empty());
    for (i, line) in lines.iter().enumerate() {
        if line.trim_ascii().is_empty() {
            continue;
        }
        match serde_json::from_slice::<Entry>(line) {
            Ok(entry) => {
                entries.insert(entry.key, entry.judgement);
            }
            Err(_) if Some(i) == last => report.torn_tail += 1,
            Err(_) => report.garbled_lines.push(i + 1),
        }
    }
    report.entries = entries.len();
    (entries, report)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock cannot leave a HashMap or File in a state
    // worse than "one entry missing", so poisoning is ignored.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Serves repeated questions from a [`VerdictCache`] and asks `J` otherwise:
/// a [`SyncJudge`] over a synchronous `J`, a [`Judge`] over an async one.
///
/// A hit returns the stored judgement with usage `{cache_hits: 1}` and zero
/// calls and tokens. A miss asks the inner judge and stores the answer only if
/// it is definitive (not [`crate::Verdict::Unknown`]), so transient failures
/// are retried next run.
#[derive(Debug)]
pub struct CachingJudge<J> {
    inner: J,
    cache: VerdictCache,
}

impl<J> CachingJudge<J> {
    /// Wraps `inner` with `cache`.
    pub fn new(inner: J, cache: VerdictCache) -> Self {
        Self { inner, cache }
    }

    /// The cache (for statistics and write errors).
    pub fn cache(&self) -> &VerdictCache {
        &self.cache
    }

    /// The wrapped judge.
    pub fn inner(&self) -> &J {
        &self.inner
    }
}

impl<J: SyncJudge> SyncJudge for CachingJudge<J> {
    fn name(&self) -> &str {
        // Transparent: a cached answer is the inner judge's answer.
        self.inner.name()
    }

    fn questions_per_call(&self) -> Option<usize> {
        self.inner.questions_per_call()
    }

    fn decides_consent(&self) -> bool {
        self.inner.decides_consent()
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        let lookup = self.look_up(requests, self.inner.name());
        let answers = self.inner.judge_batch(&lookup.misses);
        self.merge(lookup, answers)
    }
}

#[async_trait]
impl<J: Judge> Judge for CachingJudge<J> {
    fn name(&self) -> &str {
        // Transparent: a cached answer is the inner judge's answer.
        self.inner.name()
    }

    fn questions_per_call(&self) -> Option<usize> {
        self.inner.questions_per_call()
    }

    fn decides_consent(&self) -> bool {
        self.inner.decides_consent()
    }

    async fn judge(&self, request: &JudgeRequest) -> Judgement {
        let key = CacheKey::new(request, self.inner.name());
        if let Some(hit) = self.cached(&key) {
            return hit;
        }
        let judgement = self.inner.judge(request).await;
        self.remember(key, &judgement);
        judgement
    }

    async fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        let lookup = self.look_up(requests, self.inner.name());
        let answers = self.inner.judge_batch(&lookup.misses).await;
        self.merge(lookup, answers)
    }
}

/// A batch looked up in the cache: every request's key and hit, and the
/// requests that missed, to ask the inner judge in order.
struct Lookup {
    keys: Vec<(CacheKey, Option<Judgement>)>,
    misses: Vec<JudgeRequest>,
}

impl<J> CachingJudge<J> {
    /// Looks every request of a batch up under the inner judge's `name`.
    fn look_up(&self, requests: &[JudgeRequest], name: &str) -> Lookup {
        let keys: Vec<(CacheKey, Option<Judgement>)> = requests
            .iter()
            .map(|r| {
                let key = CacheKey::new(r, name);
                let hit = self.cached(&key);
                (key, hit)
            })
            .collect();
        let misses = requests
            .iter()
            .zip(&keys)
            .filter(|(_, (_, hit))| hit.is_none())
            .map(|(request, _)| request.clone())
            .collect();
        Lookup { keys, misses }
    }

    /// The batch's answers in request order: the hits, and the inner
    /// judge's `answers` to the misses (in the order of the misses), which
    /// are remembered.
    fn merge(&self, lookup: Lookup, answers: Vec<Judgement>) -> Vec<Judgement> {
        let mut answers = answers.into_iter();
        let mut out = Vec::with_capacity(lookup.keys.len());
        for (key, hit) in lookup.keys {
            let judgement = match hit {
                Some(hit) => hit,
                None => match answers.next() {
                    Some(judgement) => {
                        self.remember(key, &judgement);
                        judgement
                    }
                    None => Judgement::unknown("inner judge returned too few answers"),
                },
            };
            out.push(judgement);
        }
        out
    }

    /// The cached judgement for `key`, with the usage of a cache hit.
    fn cached(&self, key: &CacheKey) -> Option<Judgement> {
        self.cache.get(key).map(|mut hit| {
            hit.usage = Usage::cache_hit();
            hit
        })
    }

    /// Stores a definitive judgement; a write failure is kept for
    /// [`VerdictCache::write_errors`], since a judge cannot return it.
    fn remember(&self, key: CacheKey, judgement: &Judgement) {
        if judgement.verdict.is_definitive()
            && let Err(e) = self.cache.insert(key, judgement.clone())
        {
            lock(&self.cache.write_errors).push(e.to_string());
        }
    }
}

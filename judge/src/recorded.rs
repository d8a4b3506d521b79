//! Recorded verdicts: [`RecordedJudge`] replays answers from a JSONL file and
//! [`RecordingJudge`] writes such a file while forwarding to another judge,
//! so a run with `--record` can be replayed without a model.
//!
//! # Format
//! One JSON object per line; blank lines and lines starting with `#` or `//`
//! are ignored. Fields:
//!
//! | field | required | meaning |
//! |---|---|---|
//! | `node` | yes | node id the verdict is for |
//! | `verdict` | yes | `satisfied`, `chosen`, `not_satisfied` or `unknown` |
//! | `evidence_event` | for `satisfied` / `chosen` | event index of the evidence |
//! | `label` | for `chosen` | the chosen branch label |
//! | `reason` | for `unknown` | why |
//! | `slice` | no | [`crate::request_hash`] of the judged slice (written by the recorder) |
//! | `at_event` | no | event index of the last turn of the judged slice |
//! | `bundle` | no | bundle hash; when present it must match |
//! | `rationale` | no | free text |
//!
//! Hand-written examples:
//! ```text
//! {"node":"cancel.confirm","verdict":"satisfied","evidence_event":7}
//! {"node":"classify","verdict":"chosen","label":"cancel","evidence_event":3,"at_event":4}
//! {"node":"cancel.confirm","verdict":"not_satisfied","at_event":12}
//! ```
//!
//! # Lookup
//! Among the entries for the request's node (and bundle, if given):
//! 1. an entry whose `slice` equals the request's hash;
//! 2. else an entry without `slice` whose `at_event` is the slice's last event;
//! 3. else an entry with neither `slice` nor `at_event`.
//!
//! Within a step the entry written last wins. No match is
//! [`Verdict::Unknown`] (fail closed), and so is a recorded positive verdict
//! whose evidence is not in the slice or whose label is not a branch.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::canon::request_hash;
use crate::judge::{Judge, SyncJudge};
use crate::types::{CONSENT_NODE_SUFFIX, JudgeRequest, Judgement, Question, Verdict};

/// Errors reading or writing a recording.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file could not be read or written.
    #[error("recording {path}: {source}")]
    Io {
        /// The recording file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A line is not a valid record.
    #[error("recording {path}, line {line}: {message}")]
    Parse {
        /// The recording file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// One line of a recording.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Node id.
    pub node: String,
    /// Bundle hash; when present it must match the request's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle: Option<String>,
    /// [`request_hash`] of the judged slice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slice: Option<String>,
    /// Event index of the slice's last turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_event: Option<u32>,
    /// The verdict (its fields are inlined: `verdict`, `evidence_event`, …).
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
}

impl Record {
    /// The record of `judgement` answering `request`, keyed as precisely as possible.
    #[must_use]
    fn of(request: &JudgeRequest, judgement: &Judgement) -> Self {
        Self {
            node: request.node_id.clone(),
            bundle: Some(request.bundle_hash.clone()),
            slice: Some(request_hash(request)),
            at_event: request.last_event(),
            verdict: judgement.verdict.clone(),
            rationale: (!judgement.rationale.is_empty()).then(|| judgement.rationale.clone()),
        }
    }
}

/// Replays verdicts from a recording. See the module documentation.
#[derive(Debug, Clone, Default)]
pub struct RecordedJudge {
    records: Vec<Record>,
}

impl RecordedJudge {
    /// Reads a recording.
    ///
    /// # Errors
    /// The file cannot be read, or a line is not a valid record.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, RecordError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| RecordError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text).map_err(|(line, message)| RecordError::Parse {
            path: path.to_path_buf(),
            line,
            message,
        })
    }

    /// Parses recording text; the error is (1-based line, message).
    ///
    /// # Errors
    /// A line that is not a valid record.
    pub fn parse(text: &str) -> Result<Self, (usize, String)> {
        let mut records = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("//") {
                continue;
            }
            let record: Record =
                serde_json::from_str(trimmed).map_err(|e| (i + 1, e.to_string()))?;
            records.push(record);
        }
        Ok(Self { records })
    }

    /// The records, in file order.
    #[must_use]
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Takes the records made under one of `older` bundle ids (ids an
    /// earlier build gave the bundle now identified as `current`) as
    /// records of `current`; returns how many.
    pub fn adopt_bundle_ids(&mut self, older: &[String], current: &str) -> usize {
        let mut adopted = 0;
        for record in &mut self.records {
            if let Some(bundle) = &mut record.bundle
                && older.contains(bundle)
            {
                current.clone_into(bundle);
                adopted += 1;
            }
        }
        adopted
    }

    fn lookup(&self, request: &JudgeRequest) -> Option<&Record> {
        let candidates = || {
            self.records.iter().rev().filter(|r| {
                r.node == request.node_id
                    && r.bundle.as_ref().is_none_or(|b| *b == request.bundle_hash)
            })
        };
        let hash = request_hash(request);
        let last = request.last_event();
        candidates()
            .find(|r| r.slice.as_deref() == Some(hash.as_str()))
            .or_else(|| {
                candidates()
                    .find(|r| r.slice.is_none() && r.at_event.is_some() && r.at_event == last)
            })
            .or_else(|| candidates().find(|r| r.slice.is_none() && r.at_event.is_none()))
    }
}

impl SyncJudge for RecordedJudge {
    fn name(&self) -> &str {
        "recorded"
    }

    /// A recording that answered a consent question (a model's): replayed,
    /// the same writes are asked the same question.
    fn decides_consent(&self) -> bool {
        self.records
            .iter()
            .any(|r| r.node.ends_with(CONSENT_NODE_SUFFIX))
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        requests.iter().map(|r| self.answer(r)).collect()
    }
}

impl RecordedJudge {
    /// The recorded answer to `request` (see the module documentation).
    fn answer(&self, request: &JudgeRequest) -> Judgement {
        let Some(record) = self.lookup(request) else {
            return Judgement::unknown(format!(
                "no recorded verdict for node {} at event {}",
                request.node_id,
                request
                    .last_event()
                    .map_or_else(|| "-".to_owned(), |e| e.to_string())
            ));
        };
        if let Err(reason) = check_applicable(&record.verdict, request) {
            return Judgement::unknown(reason);
        }
        Judgement::new(
            record.verdict.clone(),
            record.rationale.clone().unwrap_or_default(),
        )
    }
}

/// A recorded positive verdict must still make sense for this request.
fn check_applicable(verdict: &Verdict, request: &JudgeRequest) -> Result<(), String> {
    if let Some(event) = verdict.evidence_event()
        && request.turn_at(event).is_none()
    {
        return Err(format!(
            "recorded evidence_event {event} is not in the conversation slice"
        ));
    }
    match (verdict, &request.question) {
        (Verdict::Chosen { label, .. }, Question::Classify { branches }) => {
            if branches.iter().any(|b| b.label == *label) {
                Ok(())
            } else {
                Err(format!(
                    "recorded label {label:?} is not one of the branches"
                ))
            }
        }
        (Verdict::Chosen { .. }, Question::Criterion { .. } | Question::Consent { .. }) => {
            Err("recorded a label for a yes/no question".to_owned())
        }
        (Verdict::Satisfied { .. }, Question::Classify { .. }) => {
            Err("recorded `satisfied` for a classification question".to_owned())
        }
        _ => Ok(()),
    }
}

/// Forwards to `J` and appends every answer to a recording file.
#[derive(Debug)]
pub struct RecordingJudge<J> {
    inner: J,
    path: PathBuf,
    file: Mutex<File>,
    errors: Mutex<Vec<String>>,
}

impl<J> RecordingJudge<J> {
    /// Appends to `path` (created if missing).
    ///
    /// # Errors
    /// The file cannot be opened.
    pub fn new(inner: J, path: impl AsRef<Path>) -> Result<Self, RecordError> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|source| RecordError::Io {
                path: path.clone(),
                source,
            })?;
        Ok(Self {
            inner,
            path,
            file: Mutex::new(file),
            errors: Mutex::default(),
        })
    }

    /// Write failures so far (the judge itself cannot return them).
    #[must_use]
    pub fn write_errors(&self) -> Vec<String> {
        self.errors
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Appends every answer of a batch, in request order.
    fn append_all(&self, requests: &[JudgeRequest], judgements: &[Judgement]) {
        for (request, judgement) in requests.iter().zip(judgements) {
            self.append(request, judgement);
        }
    }

    fn append(&self, request: &JudgeRequest, judgement: &Judgement) {
        let record = Record::of(request, judgement);
        let result = serde_json::to_vec(&record)
            .map_err(std::io::Error::other)
            .and_then(|mut line| {
                line.push(b'\n');
                let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
                file.write_all(&line).and_then(|()| file.flush())
            });
        if let Err(e) = result {
            self.errors
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(format!("recording {}: {e}", self.path.display()));
        }
    }
}

impl<J: SyncJudge> SyncJudge for RecordingJudge<J> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn questions_per_call(&self) -> Option<usize> {
        self.inner.questions_per_call()
    }

    fn decides_consent(&self) -> bool {
        self.inner.decides_consent()
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        let judgements = self.inner.judge_batch(requests);
        self.append_all(requests, &judgements);
        judgements
    }
}

#[async_trait]
impl<J: Judge> Judge for RecordingJudge<J> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn questions_per_call(&self) -> Option<usize> {
        self.inner.questions_per_call()
    }

    fn decides_consent(&self) -> bool {
        self.inner.decides_consent()
    }

    async fn judge(&self, request: &JudgeRequest) -> Judgement {
        let judgement = self.inner.judge(request).await;
        self.append(request, &judgement);
        judgement
    }

    async fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        let judgements = self.inner.judge_batch(requests).await;
        self.append_all(requests, &judgements);
        judgements
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Role, Turn};
    use std::collections::BTreeMap;

    fn req(last: u32) -> JudgeRequest {
        JudgeRequest {
            bundle_hash: "b".into(),
            node_id: "cancel.confirm".into(),
            question: Question::Criterion {
                text: "the user confirmed".into(),
                keywords: Vec::new(),
                said_by: Role::User,
                key_values: Vec::new(),
            },
            policy_excerpt: None,
            bindings: BTreeMap::new(),
            conversation: vec![
                Turn::new(6, Role::Agent, "Confirm?"),
                Turn::new(7, Role::User, "yes"),
                Turn::new(last, Role::Tool, "x"),
            ]
            .into(),
        }
    }

    fn judge(judge: &RecordedJudge, request: &JudgeRequest) -> Judgement {
        judge.judge_batch(std::slice::from_ref(request)).remove(0)
    }

    #[test]
    fn records_under_an_older_bundle_id_answer_once_adopted() {
        let line = "{\"node\":\"cancel.confirm\",\"bundle\":\"0123456789abcdef\",\"verdict\":\"satisfied\",\"evidence_event\":7}";
        let mut recorded = RecordedJudge::parse(line).unwrap();
        let mut request = req(9);
        request.bundle_hash = "c".repeat(64);
        assert!(!judge(&recorded, &request).verdict.is_satisfied());
        let older = ["0123456789abcdef".to_owned()];
        assert_eq!(recorded.adopt_bundle_ids(&older, &request.bundle_hash), 1);
        assert!(judge(&recorded, &request).verdict.is_satisfied());
        assert_eq!(recorded.adopt_bundle_ids(&older, &request.bundle_hash), 0);
    }

    #[test]
    fn hand_written_lookup_order() {
        let recorded = RecordedJudge::parse(
            "# comment\n\
             {\"node\":\"cancel.confirm\",\"verdict\":\"not_satisfied\"}\n\
             {\"node\":\"cancel.confirm\",\"verdict\":\"satisfied\",\"evidence_event\":7,\"at_event\":9}\n\
             {\"node\":\"other\",\"verdict\":\"satisfied\",\"evidence_event\":7}\n\
             {\"node\":\"cancel.confirm\",\"verdict\":\"satisfied\",\"evidence_event\":99,\"at_event\":10}\n",
        )
        .unwrap();
        assert_eq!(
            judge(&recorded, &req(9)).verdict,
            Verdict::Satisfied { evidence_event: 7 }
        );
        assert_eq!(judge(&recorded, &req(8)).verdict, Verdict::NotSatisfied);
        // Evidence outside the slice fails closed.
        assert!(!judge(&recorded, &req(10)).verdict.is_satisfied());
        let empty = RecordedJudge::default();
        assert!(matches!(
            judge(&empty, &req(9)).verdict,
            Verdict::Unknown { .. }
        ));
    }

    #[test]
    fn bad_line_is_reported_with_its_number() {
        let err =
            RecordedJudge::parse("\n{\"node\":\"a\",\"verdict\":\"satisfied\"}\n").unwrap_err();
        assert_eq!(err.0, 2);
    }
}

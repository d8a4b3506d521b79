//! The judges a Python session can use: a named one built like the CLI's
//! (`offline`, `openai`, `recorded:<file>`), or a Python callable. The
//! callable is reached through `ask`, a function the Python layer makes
//! around it: it takes the questions as JSON text and returns the answers
//! as JSON text, having already turned a timeout into `None`. Whatever it
//! raises or returns that is not one answer per question, each an engine
//! verdict, becomes `Unknown` and keeps the step closed.

use std::sync::Arc;

use pyo3::prelude::*;
use turnstile_judge::{Judge, JudgeRequest, Judgement, SyncJudge, Verdict};
use turnstile_llm::{JudgeOptions, JudgeSpec, JudgeStack, build};

use crate::errors::JudgeError;

/// The name every callable judge reports (its answers are never cached).
const CALLABLE_JUDGE_NAME: &str = "python-callable";

/// How a session's judge is reached.
pub enum Judging {
    /// Answers on the calling thread: the offline judge, recorded verdicts,
    /// or a Python callable.
    Immediate(Arc<dyn SyncJudge>),
    /// A model over HTTP, awaited on the session's own runtime.
    Model(Arc<dyn Judge>, tokio::runtime::Runtime),
}

impl Judging {
    /// The judge `spec` names, for a session of `bundle`.
    pub fn named(spec: &str, bundle: &turnstile_engine::CompiledBundle) -> PyResult<Judging> {
        let parsed: JudgeSpec = spec
            .parse()
            .map_err(|e| JudgeError::new_err(format!("judge {spec:?}: {e}")))?;
        let options = JudgeOptions {
            cache: None,
            record: None,
            http: None,
            bundle_ids: vec![(bundle.legacy_hashes.clone(), bundle.hash.clone())],
        };
        let built = build(&parsed, &options)
            .map_err(|e| JudgeError::new_err(format!("judge {spec:?}: {e}")))?;
        Ok(match built.judge {
            JudgeStack::Immediate(judge) => Judging::Immediate(judge),
            JudgeStack::Model(judge) => {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| {
                        JudgeError::new_err(format!("cannot start the judge's runtime: {e}"))
                    })?;
                Judging::Model(judge, runtime)
            }
        })
    }

    /// A judge answering through the Python function `ask`.
    pub fn callable(ask: Py<PyAny>) -> Judging {
        Judging::Immediate(Arc::new(CallableJudge { ask }))
    }
}

/// A judge that is a Python callable (see the module documentation).
struct CallableJudge {
    ask: Py<PyAny>,
}

impl SyncJudge for CallableJudge {
    fn name(&self) -> &str {
        CALLABLE_JUDGE_NAME
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        let answers = match serde_json::to_string(requests) {
            Ok(questions) => Python::attach(|py| self.call(py, &questions)),
            Err(e) => Err(format!("the questions cannot be written as JSON: {e}")),
        };
        match answers.and_then(|text| read_answers(&text, requests.len())) {
            Ok(answers) => answers,
            Err(reason) => requests
                .iter()
                .map(|_| Judgement::unknown(reason.clone()))
                .collect(),
        }
    }

    fn reads_tool_turns(&self) -> bool {
        true
    }
}

impl CallableJudge {
    /// Calls `ask`; `Err` says why there is no answer text.
    fn call(&self, py: Python<'_>, questions: &str) -> Result<String, String> {
        let answer = self
            .ask
            .call1(py, (questions,))
            .map_err(|e| format!("the judge callable raised: {e}"))?;
        if answer.is_none(py) {
            return Err("the judge callable did not answer in time".to_owned());
        }
        answer
            .extract::<String>(py)
            .map_err(|e| format!("the judge callable's answers are not text: {e}"))
    }
}

/// One verdict per question, each `{"verdict": ..., "rationale": ...}` as
/// the engine writes verdicts; anything else is refused as a whole.
fn read_answers(text: &str, expected: usize) -> Result<Vec<Judgement>, String> {
    let values: Vec<serde_json::Value> = serde_json::from_str(text)
        .map_err(|e| format!("the judge callable's answers are not a list: {e}"))?;
    if values.len() != expected {
        return Err(format!(
            "the judge callable gave {} answers to {expected} questions",
            values.len()
        ));
    }
    values
        .into_iter()
        .enumerate()
        .map(|(index, value)| {
            let rationale = value
                .get("rationale")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let verdict: Verdict = serde_json::from_value(value).map_err(|e| {
                format!("the judge callable's answer {index} is not a verdict: {e}")
            })?;
            Ok(Judgement::new(verdict, rationale))
        })
        .collect()
}

//! The judge flags shared by `replay`, `gate`, `serve` and `audit`: which
//! judge answers the dialogue-semantic questions, and the cache and
//! recording around it, built into a [`JudgeStack`] — one that answers at
//! once, or a model that is awaited (the only judge that needs an async
//! runtime).

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use turnstile_engine::CompiledBundle;
use turnstile_engine::audit::{AsyncRuntime, AuditError, AuditJudge, TraceReport};
use turnstile_judge::{Judge, SyncJudge};
use turnstile_llm::{HttpJudgeConfig, JudgeOptions, JudgeSpec, JudgeStack, build};

/// A judge as `replay` and `gate` use it: one that answers at once, or a
/// model with the runtime it is awaited on.
pub enum Judging {
    Immediate(Arc<dyn SyncJudge>),
    Model(Arc<dyn Judge>, tokio::runtime::Runtime),
}

/// `audit --judge none`: nothing is judged.
const NO_JUDGE: &str = "none";

#[derive(Args, Clone, Debug)]
pub struct JudgeArgs {
    /// `offline` (default: deterministic, no network), `openai` (any
    /// OpenAI-compatible server: TURNSTILE_JUDGE_URL, TURNSTILE_JUDGE_MODEL,
    /// OPENAI_API_KEY) or `recorded:<file>` (verdicts recorded earlier).
    #[arg(long, default_value = "offline")]
    pub judge: String,
    /// Base URL of the OpenAI-compatible server (overrides TURNSTILE_JUDGE_URL),
    /// e.g. http://127.0.0.1:8000/v1 for a local vLLM.
    #[arg(long)]
    pub judge_url: Option<String>,
    /// Model name (overrides TURNSTILE_JUDGE_MODEL).
    #[arg(long)]
    pub judge_model: Option<String>,
    /// Do not send `response_format: json_object` (for servers that reject
    /// it); the answer is still validated as JSON.
    #[arg(long)]
    pub judge_no_json_mode: bool,
    /// Verdict cache (JSONL): re-auditing asks nothing twice.
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// Append every verdict to this file (replay later with `--judge recorded:<file>`).
    #[arg(long)]
    pub record: Option<PathBuf>,
}

impl JudgeArgs {
    /// The judge for `bundles`, and a runtime only for a model.
    pub fn judging(&self, bundles: &[&CompiledBundle]) -> Result<Judging, String> {
        Ok(match self.build(bundles)? {
            JudgeStack::Immediate(judge) => Judging::Immediate(judge),
            JudgeStack::Model(judge) => Judging::Model(judge, crate::model_runtime()?),
        })
    }

    /// The audit's judge for `bundles`: `none`, or the judge stack, a model
    /// awaited on a runtime of each worker thread.
    pub fn audit_judge(&self, bundles: &[&CompiledBundle]) -> Result<AuditJudge, String> {
        if self.judge == NO_JUDGE {
            return Ok(AuditJudge::Assume);
        }
        Ok(match self.build(bundles)? {
            JudgeStack::Immediate(judge) => AuditJudge::Immediate(judge),
            JudgeStack::Model(judge) => AuditJudge::Model {
                judge,
                runtime: Arc::new(WorkerRuntimes),
            },
        })
    }

    /// Builds the judge stack for `bundles`; the message says what is
    /// wrong. Cached and recorded verdicts saved under an id an earlier
    /// build gave one of the bundles answer for it (reported).
    pub fn build(&self, bundles: &[&CompiledBundle]) -> Result<JudgeStack, String> {
        let spec: JudgeSpec = self.judge.parse().map_err(|e| format!("--judge: {e}"))?;
        let http =
            if self.judge_url.is_some() || self.judge_model.is_some() || self.judge_no_json_mode {
                let mut config = HttpJudgeConfig::from_env().map_err(|e| e.to_string())?;
                if let Some(url) = &self.judge_url {
                    config.base_url.clone_from(url);
                }
                if let Some(model) = &self.judge_model {
                    config.model.clone_from(model);
                }
                config.json_mode = !self.judge_no_json_mode;
                Some(config)
            } else {
                None
            };
        let options = JudgeOptions {
            cache: self.cache.clone(),
            record: self.record.clone(),
            http,
            bundle_ids: bundles
                .iter()
                .map(|b| (b.legacy_hashes.clone(), b.hash.clone()))
                .collect(),
        };
        let built = build(&spec, &options).map_err(|e| e.to_string())?;
        if let Some(report) = &built.cache_report {
            eprintln!("judge cache: {} verdicts loaded", report.entries);
            if report.torn_tail > 0 {
                eprintln!("judge cache: warning: its last line was torn and is ignored");
            }
            if !report.garbled_lines.is_empty() {
                eprintln!(
                    "judge cache: warning: garbled lines skipped: {:?}",
                    report.garbled_lines
                );
            }
        }
        if built.adopted > 0 {
            eprintln!(
                "judge: {} verdicts saved under an older id of the bundle are used under its content id",
                built.adopted
            );
        }
        Ok(built.judge)
    }
}

/// A single-threaded async runtime per audit worker thread, started when a
/// worker first audits with a model judge.
struct WorkerRuntimes;

thread_local! {
    static RUNTIME: Option<tokio::runtime::Runtime> = crate::model_runtime().ok();
}

impl AsyncRuntime for WorkerRuntimes {
    fn block_on<'a>(
        &self,
        audit: std::pin::Pin<
            Box<dyn std::future::Future<Output = Result<TraceReport, AuditError>> + 'a>,
        >,
    ) -> Result<TraceReport, AuditError> {
        RUNTIME.with(|runtime| match runtime {
            Some(runtime) => runtime.block_on(audit),
            None => Err(AuditError::Runtime(
                "cannot start the async runtime".to_owned(),
            )),
        })
    }
}

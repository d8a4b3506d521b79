//! The CLI's `--judge offline|openai|recorded:<file>` flag: parsing it and
//! assembling the judge stack (inner judge, verdict cache, recorder) in one
//! call — a stack that answers at once (offline, recorded) or a model's,
//! which is awaited ([`JudgeStack`]).

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use turnstile_judge::{
    CacheError, CachingJudge, Immediate, Judge, LoadReport, OfflineJudge, RecordError,
    RecordedJudge, RecordingJudge, SyncJudge, VerdictCache,
};

use crate::http::{ConfigError, HttpJudge, HttpJudgeConfig};

/// Which judge answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JudgeSpec {
    /// [`OfflineJudge`].
    Offline,
    /// [`HttpJudge`], configured from the environment unless
    /// [`JudgeOptions::http`] is given.
    OpenAi,
    /// [`RecordedJudge`] reading this file.
    Recorded(PathBuf),
}

/// Errors parsing a judge spec or building the judge it names.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// Not one of the accepted forms.
    #[error("unknown judge {0:?}: expected `offline`, `openai` or `recorded:<file>`")]
    Unknown(String),
    /// `recorded:` without a file.
    #[error("`recorded:` needs a file path, e.g. `recorded:verdicts.jsonl`")]
    MissingPath,
    /// The HTTP judge could not be configured.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The verdict cache could not be opened.
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// The recording could not be read or created.
    #[error(transparent)]
    Record(#[from] RecordError),
}

impl FromStr for JudgeSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        match s {
            "offline" => Ok(Self::Offline),
            "openai" | "http" => Ok(Self::OpenAi),
            _ => match s.strip_prefix("recorded:") {
                Some(path) if !path.trim().is_empty() => {
                    Ok(Self::Recorded(PathBuf::from(path.trim())))
                }
                Some(_) => Err(SpecError::MissingPath),
                None => Err(SpecError::Unknown(s.to_owned())),
            },
        }
    }
}

/// Optional layers around the judge.
#[derive(Debug, Clone, Default)]
pub struct JudgeOptions {
    /// Verdict cache file (JSONL); definitive verdicts are reused across runs.
    pub cache: Option<PathBuf>,
    /// Append every answer to this recording (replay with `recorded:<file>`).
    pub record: Option<PathBuf>,
    /// HTTP settings for `openai`; `None` reads the environment.
    pub http: Option<HttpJudgeConfig>,
    /// Per bundle served: the ids earlier builds gave it and its content
    /// id. Cached and recorded verdicts saved under an older id answer for
    /// the bundle ([`BuiltJudge::adopted`] counts them).
    pub bundle_ids: Vec<(Vec<String>, String)>,
}

/// A built judge stack: one that answers at once, or a model's.
pub enum JudgeStack {
    /// The offline judge or recorded verdicts (behind the cache and the
    /// recording, if asked): answers on the calling thread.
    Immediate(Arc<dyn SyncJudge>),
    /// The model judge over HTTP (behind its cache and recording): awaited
    /// on an async runtime.
    Model(Arc<dyn Judge>),
}

impl JudgeStack {
    /// The stack's name (the inner judge's).
    pub fn name(&self) -> &str {
        match self {
            JudgeStack::Immediate(judge) => judge.name(),
            JudgeStack::Model(judge) => judge.name(),
        }
    }

    /// The stack where an awaited judge is expected (a server): one that
    /// answers at once behind [`Immediate`].
    pub fn into_async(self) -> Arc<dyn Judge> {
        match self {
            JudgeStack::Immediate(judge) => Arc::new(Immediate(judge)),
            JudgeStack::Model(judge) => judge,
        }
    }
}

impl std::fmt::Debug for JudgeStack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self {
            JudgeStack::Immediate(_) => "Immediate",
            JudgeStack::Model(_) => "Model",
        };
        f.debug_tuple(kind).field(&self.name()).finish()
    }
}

/// A judge stack and what loading its cache found.
#[derive(Debug)]
pub struct BuiltJudge {
    /// The judge to use.
    pub judge: JudgeStack,
    /// What the cache file contained, if a cache was requested.
    pub cache_report: Option<LoadReport>,
    /// Cached and recorded verdicts saved under an older id of a bundle,
    /// now keyed by its content id.
    pub adopted: usize,
}

/// Builds `spec` with `options`: the named judge, wrapped in the cache if
/// requested, wrapped in the recorder if requested (outermost, so cache hits
/// are recorded too).
///
/// # Errors
/// HTTP configuration, cache or recording files that cannot be used.
pub fn build(spec: &JudgeSpec, options: &JudgeOptions) -> Result<BuiltJudge, SpecError> {
    let mut adopted = 0;
    let (judge, cache_report) = match spec {
        JudgeSpec::Offline => immediate(Arc::new(OfflineJudge::new()), options, &mut adopted)?,
        JudgeSpec::Recorded(path) => {
            let mut recorded = RecordedJudge::from_path(path)?;
            for (older, current) in &options.bundle_ids {
                adopted += recorded.adopt_bundle_ids(older, current);
            }
            immediate(Arc::new(recorded), options, &mut adopted)?
        }
        JudgeSpec::OpenAi => {
            let config = match &options.http {
                Some(c) => c.clone(),
                None => HttpJudgeConfig::from_env()?,
            };
            let base: Arc<dyn Judge> = Arc::new(HttpJudge::new(config)?);
            let (judge, report) = layered(
                base,
                options,
                &mut adopted,
                |inner, cache| Arc::new(CachingJudge::new(inner, cache)),
                |inner, path| Ok(Arc::new(RecordingJudge::new(inner, path)?)),
            )?;
            (JudgeStack::Model(judge), report)
        }
    };
    Ok(BuiltJudge {
        judge,
        cache_report,
        adopted,
    })
}

/// The layers of `options` around a judge that answers at once.
fn immediate(
    base: Arc<dyn SyncJudge>,
    options: &JudgeOptions,
    adopted: &mut usize,
) -> Result<(JudgeStack, Option<LoadReport>), SpecError> {
    let (judge, report) = layered(
        base,
        options,
        adopted,
        |inner, cache| Arc::new(CachingJudge::new(inner, cache)),
        |inner, path| Ok(Arc::new(RecordingJudge::new(inner, path)?)),
    )?;
    Ok((JudgeStack::Immediate(judge), report))
}

/// `base` wrapped in the cache (by `cache`) if `options` asks for one, then
/// in the recorder (by `record`) if asked; with what loading the cache
/// found. Verdicts the cache holds under an older id of a bundle are keyed
/// by its content id, counted in `adopted`.
fn layered<J>(
    base: J,
    options: &JudgeOptions,
    adopted: &mut usize,
    cache: impl FnOnce(J, VerdictCache) -> J,
    record: impl FnOnce(J, &Path) -> Result<J, RecordError>,
) -> Result<(J, Option<LoadReport>), SpecError> {
    let (cached, cache_report) = match &options.cache {
        Some(path) => {
            let (verdicts, report) = VerdictCache::open(path)?;
            for (older, current) in &options.bundle_ids {
                *adopted += verdicts.adopt_bundle_ids(older, current);
            }
            (cache(base, verdicts), Some(report))
        }
        None => (base, None),
    };
    let judge = match &options.record {
        Some(path) => record(cached, path)?,
        None => cached,
    };
    Ok((judge, cache_report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_specs() {
        assert_eq!("offline".parse::<JudgeSpec>().unwrap(), JudgeSpec::Offline);
        assert_eq!("openai".parse::<JudgeSpec>().unwrap(), JudgeSpec::OpenAi);
        assert_eq!(
            "recorded:a/b.jsonl".parse::<JudgeSpec>().unwrap(),
            JudgeSpec::Recorded(PathBuf::from("a/b.jsonl"))
        );
        assert!(matches!(
            "recorded:".parse::<JudgeSpec>(),
            Err(SpecError::MissingPath)
        ));
        assert!(matches!(
            "gpt".parse::<JudgeSpec>(),
            Err(SpecError::Unknown(_))
        ));
    }

    fn from_spec(spec: &str, options: &JudgeOptions) -> Result<JudgeStack, SpecError> {
        Ok(build(&spec.parse()?, options)?.judge)
    }

    #[test]
    fn builds_offline_and_reports_missing_recording() {
        let judge = from_spec("offline", &JudgeOptions::default()).unwrap();
        assert_eq!(judge.name(), turnstile_judge::OFFLINE_JUDGE_NAME);
        assert!(matches!(judge, JudgeStack::Immediate(_)));
        let err = from_spec(
            "recorded:/nonexistent/verdicts.jsonl",
            &JudgeOptions::default(),
        )
        .err();
        assert!(matches!(
            err,
            Some(SpecError::Record(RecordError::Io { .. }))
        ));
    }
}

//! The CLI's `--judge offline|openai|recorded:<file>` flag: parsing it and
//! assembling the judge stack (inner judge, verdict cache, recorder) in one call.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use turnstile_judge::{
    CacheError, CachingJudge, Judge, LoadReport, OfflineJudge, RecordError, RecordedJudge,
    RecordingJudge, VerdictCache,
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

/// A judge stack and what loading its cache found.
pub struct BuiltJudge {
    /// The judge to use.
    pub judge: Arc<dyn Judge>,
    /// What the cache file contained, if a cache was requested.
    pub cache_report: Option<LoadReport>,
    /// Cached and recorded verdicts saved under an older id of a bundle,
    /// now keyed by its content id.
    pub adopted: usize,
}

impl std::fmt::Debug for BuiltJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuiltJudge")
            .field("judge", &self.judge.name())
            .field("cache_report", &self.cache_report)
            .field("adopted", &self.adopted)
            .finish()
    }
}

/// Builds `spec` with `options`: the named judge, wrapped in the cache if
/// requested, wrapped in the recorder if requested (outermost, so cache hits
/// are recorded too).
///
/// # Errors
/// HTTP configuration, cache or recording files that cannot be used.
pub fn build(spec: &JudgeSpec, options: &JudgeOptions) -> Result<BuiltJudge, SpecError> {
    let mut adopted = 0;
    let base: Arc<dyn Judge> = match spec {
        JudgeSpec::Offline => Arc::new(OfflineJudge::new()),
        JudgeSpec::OpenAi => {
            let config = match &options.http {
                Some(c) => c.clone(),
                None => HttpJudgeConfig::from_env()?,
            };
            Arc::new(HttpJudge::new(config)?)
        }
        JudgeSpec::Recorded(path) => {
            let mut recorded = RecordedJudge::from_path(path)?;
            for (older, current) in &options.bundle_ids {
                adopted += recorded.adopt_bundle_ids(older, current);
            }
            Arc::new(recorded)
        }
    };
    let (cached, cache_report): (Arc<dyn Judge>, _) = match &options.cache {
        Some(path) => {
            let (cache, report) = VerdictCache::open(path)?;
            for (older, current) in &options.bundle_ids {
                adopted += cache.adopt_bundle_ids(older, current);
            }
            (Arc::new(CachingJudge::new(base, cache)), Some(report))
        }
        None => (base, None),
    };
    let judge: Arc<dyn Judge> = match &options.record {
        Some(path) => Arc::new(RecordingJudge::new(cached, path)?),
        None => cached,
    };
    Ok(BuiltJudge {
        judge,
        cache_report,
        adopted,
    })
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

    fn from_spec(spec: &str, options: &JudgeOptions) -> Result<Arc<dyn Judge>, SpecError> {
        Ok(build(&spec.parse()?, options)?.judge)
    }

    #[test]
    fn builds_offline_and_reports_missing_recording() {
        let judge = from_spec("offline", &JudgeOptions::default()).unwrap();
        assert_eq!(judge.name(), turnstile_judge::OFFLINE_JUDGE_NAME);
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

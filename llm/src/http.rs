//! The OpenAI-compatible HTTP judge: `POST {base_url}/chat/completions`
//! against OpenAI, vLLM, llama.cpp server or Ollama (`/v1`).
//!
//! One chat completion answers every question of a batch (up to
//! [`HttpJudgeConfig::max_questions_per_call`]; larger batches are split into
//! calls that run concurrently); a single question is a batch of one, so
//! there is one code path. The cost of a call (its tokens, retries and
//! latency) is booked on the [`Judgement::usage`] of its first question and
//! zero on the others, so sums over judgements count every call once.
//!
//! It owns transport concerns only: timeouts, retries with jittered
//! exponential backoff (429, 5xx, connection errors; `Retry-After` honoured
//! but capped), a concurrency limit, token and latency accounting, and the
//! mapping of every failure to [`Verdict::Unknown`] for every question of the
//! call. Prompt text lives in `prompt`, answer validation in `answer`.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use turnstile_judge::{Judge, JudgeRequest, Judgement, Usage, Verdict};

use crate::answer::parse_answers;
use crate::prompt::{batch_message, system_message};

/// Environment variable holding the base URL (e.g. `http://127.0.0.1:8000/v1`).
const ENV_URL: &str = "TURNSTILE_JUDGE_URL";
/// Environment variable holding the model name.
const ENV_MODEL: &str = "TURNSTILE_JUDGE_MODEL";
/// Environment variable holding the API key (optional for local servers).
const ENV_API_KEY: &str = "OPENAI_API_KEY";
/// Environment variable overriding the per-request timeout, in milliseconds.
const ENV_TIMEOUT_MS: &str = "TURNSTILE_JUDGE_TIMEOUT_MS";
/// Environment variable overriding the number of concurrent requests.
const ENV_CONCURRENCY: &str = "TURNSTILE_JUDGE_CONCURRENCY";
/// Environment variable overriding the number of questions asked in one call.
const ENV_MAX_QUESTIONS: &str = "TURNSTILE_JUDGE_MAX_QUESTIONS";

/// Default base URL when [`ENV_URL`] is unset.
const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// Default model when [`ENV_MODEL`] is unset.
const DEFAULT_MODEL: &str = "gpt-4.1-mini";

/// A credential that never shows itself in `Debug` output, errors or reports.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    #[must_use]
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself; only for building the `Authorization` header.
    #[must_use]
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Errors configuring or building an [`HttpJudge`].
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// An environment variable has a value that cannot be used.
    #[error("environment variable {var} has an invalid value {value:?}: {expected}")]
    InvalidEnv {
        /// The variable.
        var: &'static str,
        /// Its value (never the API key's).
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A configuration value is out of range.
    #[error("invalid judge configuration: {0}")]
    Invalid(&'static str),
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
}

/// Settings of an [`HttpJudge`]. `Debug` never shows the API key.
#[derive(Debug, Clone)]
pub struct HttpJudgeConfig {
    /// Base URL up to and including `/v1`, without `/chat/completions`.
    pub base_url: String,
    /// The model name sent in each request; also the judge's identity.
    pub model: String,
    /// Bearer token; `None` for local servers that need none.
    pub api_key: Option<Secret>,
    /// Deadline of one HTTP request, body included.
    pub timeout: Duration,
    /// Deadline of establishing one connection.
    pub connect_timeout: Duration,
    /// Attempts per judgement, the first included (at least 1).
    pub max_attempts: u32,
    /// Backoff before the second attempt; doubles per attempt, jittered ×0.5–1.5.
    pub backoff_base: Duration,
    /// Upper bound of one backoff.
    pub backoff_max: Duration,
    /// Upper bound on a server's `Retry-After`, so a hostile or confused
    /// server cannot stall an audit.
    pub retry_after_cap: Duration,
    /// Requests in flight at once (shared by all clones of the judge).
    pub max_concurrency: usize,
    /// Completion budget per question: a call asking `n` questions sends
    /// `max_tokens = n × this`. One answer is a small JSON object (about 25
    /// tokens with its short rationale).
    pub max_tokens_per_question: u32,
    /// Questions asked in one call at most (at least 1); a larger batch is
    /// split into calls of this size, sent concurrently. Long lists of
    /// questions dilute a model's attention, so this bounds the prompt too.
    pub max_questions_per_call: usize,
    /// Send `response_format: {"type": "json_object"}`; some local servers
    /// reject it, so it can be switched off.
    pub json_mode: bool,
}

impl HttpJudgeConfig {
    /// A configuration with defaults for everything but URL, model and key.
    #[must_use]
    pub fn new(
        base_url: impl Into<String>,
        model: impl Into<String>,
        api_key: Option<Secret>,
    ) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            api_key,
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            max_attempts: 3,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(8),
            retry_after_cap: Duration::from_secs(30),
            max_concurrency: 8,
            max_tokens_per_question: 64,
            max_questions_per_call: 8,
            json_mode: true,
        }
    }

    /// Reads `TURNSTILE_JUDGE_URL` (default `https://api.openai.com/v1`),
    /// `TURNSTILE_JUDGE_MODEL` (default `gpt-4.1-mini`), `OPENAI_API_KEY`,
    /// `TURNSTILE_JUDGE_TIMEOUT_MS`, `TURNSTILE_JUDGE_CONCURRENCY` and
    /// `TURNSTILE_JUDGE_MAX_QUESTIONS` (questions per call) from the process
    /// environment.
    ///
    /// # Errors
    /// A numeric variable that does not parse.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|var| std::env::var(var).ok())
    }

    /// Like [`HttpJudgeConfig::from_env`], reading variables through `lookup`
    /// (tests pass a map instead of mutating the process environment).
    ///
    /// # Errors
    /// A numeric variable that does not parse.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let non_empty = |var: &str| lookup(var).filter(|v| !v.trim().is_empty());
        let mut config = Self::new(
            non_empty(ENV_URL).unwrap_or_else(|| DEFAULT_BASE_URL.to_owned()),
            non_empty(ENV_MODEL).unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
            non_empty(ENV_API_KEY).map(Secret::new),
        );
        if let Some(value) = non_empty(ENV_TIMEOUT_MS) {
            let ms: u64 = value.trim().parse().map_err(|_| ConfigError::InvalidEnv {
                var: ENV_TIMEOUT_MS,
                value: value.clone(),
                expected: "a number of milliseconds",
            })?;
            config.timeout = Duration::from_millis(ms);
        }
        if let Some(value) = non_empty(ENV_CONCURRENCY) {
            config.max_concurrency = positive(ENV_CONCURRENCY, &value)?;
        }
        if let Some(value) = non_empty(ENV_MAX_QUESTIONS) {
            config.max_questions_per_call = positive(ENV_MAX_QUESTIONS, &value)?;
        }
        Ok(config)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        if self.max_attempts == 0 {
            return Err(ConfigError::Invalid("max_attempts must be at least 1"));
        }
        if self.max_concurrency == 0 {
            return Err(ConfigError::Invalid("max_concurrency must be at least 1"));
        }
        if self.max_questions_per_call == 0 {
            return Err(ConfigError::Invalid(
                "max_questions_per_call must be at least 1",
            ));
        }
        if self.max_tokens_per_question == 0 {
            return Err(ConfigError::Invalid(
                "max_tokens_per_question must be at least 1",
            ));
        }
        if self.base_url.trim().is_empty() {
            return Err(ConfigError::Invalid("base_url is empty"));
        }
        Ok(())
    }
}

/// A positive integer from environment variable `var`.
fn positive(var: &'static str, value: &str) -> Result<usize, ConfigError> {
    value
        .trim()
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| ConfigError::InvalidEnv {
            var,
            value: value.to_owned(),
            expected: "a positive integer",
        })
}

/// Judge backed by an OpenAI-compatible chat-completions endpoint.
///
/// Cloning is cheap and clones share the client and the concurrency limit.
#[derive(Clone)]
pub struct HttpJudge {
    inner: Arc<Inner>,
}

struct Inner {
    config: HttpJudgeConfig,
    url: String,
    name: String,
    client: reqwest::Client,
    permits: Semaphore,
}

impl fmt::Debug for HttpJudge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpJudge")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

impl HttpJudge {
    /// Builds the judge and its HTTP client.
    ///
    /// # Errors
    /// Invalid configuration or a client that cannot be built.
    pub fn new(config: HttpJudgeConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| ConfigError::Client(e.to_string()))?;
        let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
        let name = format!("http:{}", config.model);
        Ok(Self {
            inner: Arc::new(Inner {
                permits: Semaphore::new(config.max_concurrency),
                config,
                url,
                name,
                client,
            }),
        })
    }

    /// The configuration in use.
    #[must_use]
    pub fn config(&self) -> &HttpJudgeConfig {
        &self.inner.config
    }
}

#[async_trait]
impl Judge for HttpJudge {
    fn name(&self) -> &str {
        &self.inner.name
    }

    fn questions_per_call(&self) -> Option<usize> {
        Some(self.inner.config.max_questions_per_call.max(1))
    }

    /// A model reads consent the offline reader cannot decide.
    fn decides_consent(&self) -> bool {
        true
    }

    async fn judge(&self, request: &JudgeRequest) -> Judgement {
        self.inner
            .judge_call(std::slice::from_ref(request))
            .await
            .pop()
            .unwrap_or_else(|| Judgement::unknown("the judge returned no answer"))
    }

    async fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        let size = self.inner.config.max_questions_per_call.max(1);
        if requests.len() <= size {
            return self.inner.judge_call(requests).await;
        }
        let mut tasks = JoinSet::new();
        for (call, questions) in requests.chunks(size).enumerate() {
            let inner = Arc::clone(&self.inner);
            let questions = questions.to_vec();
            // The semaphore inside `judge_call` bounds how many run at once.
            tasks.spawn(async move { (call, inner.judge_call(&questions).await) });
        }
        let mut out: Vec<Judgement> = requests
            .iter()
            .map(|_| Judgement::unknown("judge task did not complete"))
            .collect();
        while let Some(joined) = tasks.join_next().await {
            if let Ok((call, judgements)) = joined {
                let first = call.saturating_mul(size);
                for (slot, judgement) in out.iter_mut().skip(first).zip(judgements) {
                    *slot = judgement;
                }
            }
        }
        out
    }
}

/// How one HTTP exchange ended.
enum Outcome {
    Body(Vec<u8>),
    Failed(String),
}

impl Inner {
    /// Asks every question of `requests` in one chat completion; one
    /// judgement per request, in order (none for no request, and no call).
    async fn judge_call(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        if requests.is_empty() {
            return Vec::new();
        }
        let started = Instant::now();
        let mut usage = Usage::default();
        let outcome = match self.permits.acquire().await {
            Ok(_permit) => self.exchange(requests, &mut usage).await,
            Err(_) => Outcome::Failed("judge is shut down".to_owned()),
        };
        usage.latency_micros = micros(started.elapsed());
        let mut judgements = match outcome {
            Outcome::Failed(reason) => {
                let reason = self.scrub(reason);
                requests
                    .iter()
                    .map(|_| Judgement::unknown(reason.clone()))
                    .collect()
            }
            Outcome::Body(body) => interpret(&body, requests, &mut usage),
        };
        if let Some(first) = judgements.first_mut() {
            first.usage = usage;
        }
        judgements
    }

    /// Sends the call, retrying transient failures; returns the 2xx body.
    async fn exchange(&self, requests: &[JudgeRequest], usage: &mut Usage) -> Outcome {
        let cfg = &self.config;
        let questions = u32::try_from(requests.len()).unwrap_or(u32::MAX);
        let mut body = json!({
            "model": cfg.model,
            "temperature": 0,
            "max_tokens": cfg.max_tokens_per_question.saturating_mul(questions),
            "messages": [
                {"role": "system", "content": system_message()},
                {"role": "user", "content": batch_message(requests)},
            ],
        });
        if cfg.json_mode
            && let Some(fields) = body.as_object_mut()
        {
            fields.insert("response_format".to_owned(), json!({"type": "json_object"}));
        }
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            usage.calls += 1;
            let mut builder = self.client.post(&self.url).json(&body);
            if let Some(key) = &cfg.api_key {
                builder = builder.bearer_auth(key.expose());
            }
            let retry_delay = match builder.send().await {
                Err(e) if e.is_timeout() => {
                    // Not retried: a server that let one request hang will
                    // likely hang the next, and the caller's deadline matters
                    // more than one verdict (which fails closed anyway).
                    return Outcome::Failed(format!(
                        "request timed out after {} ms",
                        cfg.timeout.as_millis()
                    ));
                }
                Err(e) if e.is_connect() || e.is_request() => {
                    if attempt >= cfg.max_attempts {
                        return Outcome::Failed(format!(
                            "cannot reach the judge after {attempt} attempts: {e}"
                        ));
                    }
                    self.backoff(attempt)
                }
                Err(e) => return Outcome::Failed(format!("request failed: {e}")),
                Ok(response) => {
                    let status = response.status();
                    if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
                        if attempt >= cfg.max_attempts {
                            return Outcome::Failed(format!(
                                "judge answered HTTP {} after {attempt} attempts",
                                status.as_u16()
                            ));
                        }
                        match retry_after(response.headers()) {
                            Some(wait) => wait.min(cfg.retry_after_cap),
                            None => self.backoff(attempt),
                        }
                    } else if !status.is_success() {
                        let snippet = match response.bytes().await {
                            Ok(bytes) => snippet(&bytes),
                            Err(_) => String::new(),
                        };
                        return Outcome::Failed(format!(
                            "judge answered HTTP {}: {snippet}",
                            status.as_u16()
                        ));
                    } else {
                        return match response.bytes().await {
                            Ok(bytes) => Outcome::Body(bytes.to_vec()),
                            Err(e) if e.is_timeout() => Outcome::Failed(format!(
                                "response body timed out after {} ms",
                                cfg.timeout.as_millis()
                            )),
                            Err(e) => {
                                Outcome::Failed(format!("cannot read the response body: {e}"))
                            }
                        };
                    }
                }
            };
            tokio::time::sleep(retry_delay).await;
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let cfg = &self.config;
        let exp = cfg
            .backoff_base
            .saturating_mul(
                1u32.checked_shl(attempt.saturating_sub(1))
                    .unwrap_or(u32::MAX),
            )
            .min(cfg.backoff_max);
        // Jitter spreads retries of concurrent requests so they do not hit a
        // rate-limited server in lockstep.
        exp.mul_f64(0.5 + fastrand::f64())
    }

    /// Removes the API key from text that may reach a report, in case a
    /// server or library echoes it back.
    fn scrub(&self, text: String) -> String {
        match &self.config.api_key {
            Some(key) if !key.expose().is_empty() && text.contains(key.expose()) => {
                text.replace(key.expose(), "***")
            }
            _ => text,
        }
    }
}

/// Turns a 2xx chat-completions body into one judgement per request (usage
/// booked by the caller); a body that is not a usable completion makes
/// every question unknown.
fn interpret(body: &[u8], requests: &[JudgeRequest], usage: &mut Usage) -> Vec<Judgement> {
    let content = match completion_content(body, usage) {
        Ok(content) => content,
        Err(reason) => {
            return requests
                .iter()
                .map(|_| Judgement::unknown(reason.clone()))
                .collect();
        }
    };
    parse_answers(&content, requests)
        .into_iter()
        .map(|parsed| {
            let rationale = match &parsed.verdict {
                Verdict::Unknown { reason } if parsed.rationale.is_empty() => reason.clone(),
                _ => parsed.rationale,
            };
            Judgement::new(parsed.verdict, rationale)
        })
        .collect()
}

/// The message text of a chat-completions body, with its token usage added
/// to `usage`; why not, if it has none.
fn completion_content(body: &[u8], usage: &mut Usage) -> Result<String, String> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| format!("response body is not valid JSON: {e}"))?;
    if let Some(u) = value.get("usage") {
        usage.input_tokens += u.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0);
        usage.output_tokens += u
            .get("completion_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0);
    }
    let choice = value
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| "response has no choices".to_owned())?;
    match choice.pointer("/message/content") {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(Value::String(_)) | Some(Value::Null) | None => {
            Err("response message has no content".to_owned())
        }
        Some(_) => Err("response message content is not a string".to_owned()),
    }
}

/// `Retry-After` in seconds; HTTP dates are ignored (backoff applies).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = headers.get(RETRY_AFTER)?.to_str().ok()?;
    let secs: f64 = text.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

fn snippet(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut s: String = text.chars().take(200).collect();
    if text.chars().nth(200).is_some() {
        s.push('…');
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn secret_is_hidden() {
        let config = HttpJudgeConfig::new("http://x/v1", "m", Some(Secret::new("sk-very-secret")));
        let debug = format!("{config:?}");
        assert!(!debug.contains("sk-very-secret"), "{debug}");
        assert!(debug.contains("***"));
        let judge = HttpJudge::new(config).unwrap();
        assert!(!format!("{judge:?}").contains("sk-very-secret"));
    }

    #[test]
    fn config_from_lookup() {
        let env = HashMap::from([
            (ENV_URL, "http://127.0.0.1:8000/v1"),
            (ENV_MODEL, "qwen"),
            (ENV_TIMEOUT_MS, "250"),
        ]);
        let c = HttpJudgeConfig::from_lookup(|k| env.get(k).map(|v| (*v).to_owned())).unwrap();
        assert_eq!(c.base_url, "http://127.0.0.1:8000/v1");
        assert_eq!(c.model, "qwen");
        assert!(c.api_key.is_none());
        assert_eq!(c.timeout, Duration::from_millis(250));
        let bad = HashMap::from([(ENV_TIMEOUT_MS, "soon")]);
        let err =
            HttpJudgeConfig::from_lookup(|k| bad.get(k).map(|v| (*v).to_owned())).unwrap_err();
        assert!(matches!(
            err,
            ConfigError::InvalidEnv {
                var: ENV_TIMEOUT_MS,
                ..
            }
        ));
        let defaults = HttpJudgeConfig::from_lookup(|_| None).unwrap();
        assert_eq!(defaults.base_url, DEFAULT_BASE_URL);
        assert_eq!(defaults.model, DEFAULT_MODEL);
    }

    #[test]
    fn retry_after_parses_seconds() {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert(
            RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let mut config = HttpJudgeConfig::new("http://x/v1", "m", None);
        config.backoff_base = Duration::from_millis(100);
        config.backoff_max = Duration::from_millis(300);
        let judge = HttpJudge::new(config).unwrap();
        for attempt in 1..40 {
            let d = judge.inner.backoff(attempt);
            assert!(d <= Duration::from_millis(450), "{d:?}");
        }
        assert!(judge.inner.backoff(1) >= Duration::from_millis(50));
    }
}

//! The sidecar's routes, their OpenAPI description (utoipa, served at
//! `/openapi.json`) and the middleware every route goes through: the
//! optional bearer token, the request timeout, JSON errors for everything
//! malformed. A session's verdicts are exactly what `turnstile gate` writes
//! for the same events: each is committed to the store before it is
//! answered.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use turnstile_engine::bundle::Control;
use turnstile_engine::import::native::event_time;
use turnstile_engine::session::Schedule;
use turnstile_engine::trace::Event;
use turnstile_store::{DurableError, DurableSession, SessionMeta, StoreError};
use utoipa::{OpenApi, ToSchema};

use super::App;

/// The live sessions of this process, by id. A session enters on creation
/// or on first use after a restart (restored from the store) and keeps its
/// store lock while the process lives.
#[derive(Default)]
pub struct Sessions(tokio::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<Live>>>>);

impl Sessions {
    /// Drops from memory the sessions idle longer than `idle` and, past
    /// `max_live`, the least recently used idle ones: the store has
    /// everything they acknowledged, and [`live`] restores one on its next
    /// event. A session a request holds is never dropped. Returns how many
    /// were dropped.
    pub async fn evict(&self, idle: Duration, max_live: usize) -> u64 {
        let mut sessions = self.0.lock().await;
        let now = Instant::now();
        // Idle: no request holds it (only the map does) and unused for a while.
        let mut idle_since: Vec<(Instant, String)> = sessions
            .iter()
            .filter(|(_, live)| Arc::strong_count(live) == 1)
            .filter_map(|(id, live)| Some((live.try_lock().ok()?.last_used, id.clone())))
            .collect();
        idle_since.sort();
        let over = sessions.len().saturating_sub(max_live);
        let mut dropped = 0;
        for (index, (last_used, id)) in idle_since.into_iter().enumerate() {
            if index < over || now.saturating_duration_since(last_used) >= idle {
                sessions.remove(&id);
                dropped += 1;
            }
        }
        dropped
    }
}

/// A session in memory: the store's [`DurableSession`] (a push or commit
/// that failed, or a request cancelled midway, leaves it to reload from the
/// store before its next event).
pub struct Live {
    durable: DurableSession,
    /// When a request last used the session (for idle eviction).
    last_used: Instant,
}

/// A JSON error answer.
struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, axum::Json(ErrorBody { error: self.1 })).into_response()
    }
}

fn store_error(e: &StoreError) -> ApiError {
    match e {
        StoreError::Locked { .. } => ApiError(StatusCode::CONFLICT, e.to_string()),
        StoreError::Missing(_) => ApiError(StatusCode::NOT_FOUND, e.to_string()),
        _ => ApiError(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    }
}

#[derive(Serialize, ToSchema)]
struct ErrorBody {
    error: String,
}

/// A new session: which loaded bundle, under which firing schedule.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct CreateSession {
    /// A bundle directory's name under `--bundles` (e.g. `retail`).
    bundle: String,
    /// `workflow` (default), `boundary` or `action`.
    #[serde(default)]
    schedule: Option<ScheduleName>,
    /// Who calls the user-side (device) tools: `dual` (the user; the
    /// agent's own call of one is blocked with reason `WrongSide`) or `solo`
    /// (the agent). Default: the bundle's `control`. Kept in the store: a
    /// restored session runs under the same control.
    #[serde(default)]
    control: Option<ControlName>,
}

#[derive(Clone, Copy, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
enum ControlName {
    Dual,
    Solo,
}

impl From<ControlName> for Control {
    fn from(c: ControlName) -> Control {
        match c {
            ControlName::Dual => Control::Dual,
            ControlName::Solo => Control::Solo,
        }
    }
}

impl From<Control> for ControlName {
    fn from(c: Control) -> ControlName {
        match c {
            Control::Dual => ControlName::Dual,
            Control::Solo => ControlName::Solo,
        }
    }
}

#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
enum ScheduleName {
    Workflow,
    Boundary,
    Action,
}

impl From<ScheduleName> for Schedule {
    fn from(s: ScheduleName) -> Schedule {
        match s {
            ScheduleName::Workflow => Schedule::Workflow,
            ScheduleName::Boundary => Schedule::Boundary,
            ScheduleName::Action => Schedule::Action,
        }
    }
}

#[derive(Serialize, ToSchema)]
struct Created {
    /// 128 random bits, hex.
    id: String,
    bundle: String,
    schedule: String,
    /// The session's control (as asked, or the bundle's).
    control: ControlName,
}

/// A native event (docs/native-format.md), for the OpenAPI description only:
/// the server parses `turnstile_engine::trace::Event`.
#[allow(dead_code)]
#[derive(ToSchema)]
#[schema(as = Event)]
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum EventDoc {
    User {
        text: String,
    },
    Agent {
        text: String,
    },
    Call {
        id: String,
        tool: String,
        #[schema(value_type = Object)]
        args: Option<serde_json::Value>,
        requestor: Option<Requestor>,
    },
    Result {
        id: String,
        ok: bool,
        #[schema(value_type = Object)]
        content: Option<serde_json::Value>,
    },
    /// The host's answer to a `confirm` verdict: the user (or, where the
    /// bundle permits, an operator) approved or declined call `call`.
    Approval {
        call: String,
        granted: bool,
        by: Option<ApproverDoc>,
    },
    /// The host authenticated the user itself (a logged-in app, an MCP
    /// client): their id and what else it vouches for. Counts as the
    /// user's words only where the bundle says `host_principal: true`, and
    /// only the conversation's first principal does.
    Principal {
        id: String,
        claims: Option<std::collections::BTreeMap<String, String>>,
    },
}

#[allow(dead_code)]
#[derive(ToSchema, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ApproverDoc {
    User,
    Operator,
}

/// What a `confirm` verdict asks the user, for an approve/decline prompt.
#[allow(dead_code)]
#[derive(ToSchema, Serialize)]
struct ConfirmationDoc {
    /// The call awaiting approval: what an `approval` event names.
    call: String,
    /// The tool called.
    tool: String,
    /// The question to show.
    text: String,
    /// The call's arguments, by name.
    details: Vec<DetailDoc>,
}

#[allow(dead_code)]
#[derive(ToSchema, Serialize)]
struct DetailDoc {
    name: String,
    value: String,
}

#[allow(dead_code)]
#[derive(ToSchema, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Requestor {
    Agent,
    User,
}

/// One event or several, in order.
#[allow(dead_code)]
#[derive(ToSchema, Deserialize)]
#[serde(untagged)]
enum EventsBody {
    One(EventDoc),
    Many(Vec<EventDoc>),
}

/// The verdict on one event: what `turnstile gate` writes (`verdict`:
/// allow, block, confirm, guide, deviate, observe or unchecked; a refused
/// event is `{"verdict":"block","error":...}`). `confirm`: the call did not
/// run; show `confirmation` to the user and send their answer as an
/// `approval` event (a host that treats every verdict but `allow` as a
/// block stays safe).
#[allow(dead_code)]
#[derive(ToSchema, Serialize)]
struct Verdict {
    verdict: String,
    event: Option<u32>,
    /// With `confirm`: what to ask the user.
    confirmation: Option<ConfirmationDoc>,
    /// With `confirm`: what the conversation says about the consent
    /// (`absent`, `qualified`, `unknown`, `given`).
    consent: Option<String>,
    /// With `confirm`: the questions about the conversation the judge could
    /// not decide, `[{"question": ..., "step": ...}]`; the person who
    /// approves the call decides them too.
    #[schema(value_type = Vec<Object>)]
    undecided: Option<Vec<serde_json::Value>>,
    /// With an `allow` on an approval: `{"by": "user", "call": "c3"}`.
    #[schema(value_type = Object)]
    approved: Option<serde_json::Value>,
    /// With an `allow` a model judge's reading of the user's consent opened
    /// (the offline reader could not decide it): `{"evidence": 9}`, the user
    /// turn it read the agreement in.
    #[schema(value_type = Object)]
    consent_by_judge: Option<serde_json::Value>,
    /// Under `--mode shadow`: `false` on every answer.
    enforced: Option<bool>,
    /// Under `--mode shadow`, on a write answered `allow` that enforcement
    /// would withhold: the verdict enforcement gives (`block`, `confirm`).
    #[schema(value_type = Object)]
    would: Option<serde_json::Value>,
}

/// A session: its requests with their cursors and remediation as of the
/// last event the gate fired on, and every verdict given.
#[derive(Serialize, ToSchema)]
struct SessionView {
    id: String,
    bundle: String,
    schedule: String,
    control: ControlName,
    events: usize,
    /// Requests, cursors and remediation at the last firing.
    #[schema(value_type = Vec<Object>)]
    requests: serde_json::Value,
    #[schema(value_type = Vec<Object>)]
    verdicts: Vec<serde_json::Value>,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "turnstile serve",
        description = "The Turnstile gate as an HTTP sidecar: sessions, events in, verdicts out."
    ),
    paths(create_session, post_events, get_session, healthz, metrics),
    components(schemas(
        CreateSession,
        ScheduleName,
        ControlName,
        Created,
        ErrorBody,
        EventDoc,
        Requestor,
        ApproverDoc,
        EventsBody,
        Verdict,
        ConfirmationDoc,
        DetailDoc,
        SessionView
    ))
)]
struct ApiDoc;

/// The router with every route and middleware.
pub fn router(app: Arc<App>, timeout: Duration) -> Router {
    Router::new()
        .route("/v1/sessions", post(create_session))
        .route("/v1/sessions/{id}/events", post(post_events))
        .route("/v1/sessions/{id}", get(get_session))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(openapi))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(Arc::clone(&app), authorize))
        .layer(middleware::from_fn_with_state(timeout, deadline))
        .with_state(app)
}

async fn not_found() -> ApiError {
    ApiError(StatusCode::NOT_FOUND, "no such route".to_owned())
}

async fn method_not_allowed() -> ApiError {
    ApiError(
        StatusCode::METHOD_NOT_ALLOWED,
        "method not allowed on this route".to_owned(),
    )
}

/// Every route requires `Authorization: Bearer <token>` when a token is set.
async fn authorize(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    if let Some(token) = &app.token
        && !carries_token(request.headers(), token)
    {
        return ApiError(
            StatusCode::UNAUTHORIZED,
            "a bearer token is required (Authorization: Bearer <token>)".to_owned(),
        )
        .into_response();
    }
    next.run(request).await
}

/// Whether `headers` carry `Authorization: Bearer <token>` (compared in
/// time independent of where a wrong token differs).
pub(crate) fn carries_token(headers: &axum::http::HeaderMap, token: &str) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|given| same(given.as_bytes(), token.as_bytes()))
}

/// Compares in time independent of where the inputs differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Ends any request that runs longer than the timeout. A session whose
/// request is cut off is reloaded from the store on next use (`stale`).
async fn deadline(State(timeout): State<Duration>, request: Request, next: Next) -> Response {
    match tokio::time::timeout(timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the request took longer than {} ms; verdicts already committed are in GET /v1/sessions/{{id}}",
                timeout.as_millis()
            ),
        )
        .into_response(),
    }
}

async fn read_json(body: Body, limit: usize) -> Result<serde_json::Value, ApiError> {
    let bytes = axum::body::to_bytes(body, limit).await.map_err(|_| {
        ApiError(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the body is larger than {limit} bytes or could not be read"),
        )
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        ApiError(
            StatusCode::BAD_REQUEST,
            format!("the body is not JSON: {e}"),
        )
    })
}

/// Create a session.
#[utoipa::path(
    post,
    path = "/v1/sessions",
    request_body = CreateSession,
    responses(
        (status = 201, description = "Created", body = Created),
        (status = 400, description = "Malformed body", body = ErrorBody),
        (status = 401, description = "Token missing or wrong", body = ErrorBody),
        (status = 404, description = "No such bundle", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 422, description = "Not a session request", body = ErrorBody),
    )
)]
async fn create_session(State(app): State<Arc<App>>, body: Body) -> Result<Response, ApiError> {
    let value = read_json(body, app.max_body).await?;
    let request: CreateSession = serde_json::from_value(value).map_err(|e| {
        ApiError(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("not a session request: {e}"),
        )
    })?;
    let Some(rt) = app.bundles.get(&request.bundle) else {
        return Err(ApiError(
            StatusCode::NOT_FOUND,
            format!(
                "no bundle {:?}; loaded: {}",
                request.bundle,
                app.bundles.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        ));
    };
    let schedule: Schedule = request.schedule.map_or(Schedule::Workflow, Into::into);
    let control: Control = request.control.map_or(rt.bundle.control, Into::into);
    let id = super::new_session_id();
    let meta = SessionMeta {
        bundle: request.bundle.clone(),
        bundle_hash: rt.bundle.hash.clone(),
        schedule,
        control: Some(control),
    };
    // Claiming is a lock file, no SQL; the creation waits for the store's
    // writer without holding a thread.
    let durable = DurableSession::create_async(&app.store, &id, Arc::clone(rt), meta)
        .await
        .map_err(|e| store_error(&e))?;
    let live = Live {
        durable: durable.with_now(app.now),
        last_used: Instant::now(),
    };
    app.sessions
        .0
        .lock()
        .await
        .insert(id.clone(), Arc::new(tokio::sync::Mutex::new(live)));
    app.metrics.session_created();
    let created = Created {
        id,
        bundle: request.bundle,
        schedule: schedule.name().to_owned(),
        control: control.into(),
    };
    Ok((StatusCode::CREATED, axum::Json(created)).into_response())
}

/// The live session `id`: in memory, or restored from the store.
async fn live(app: &App, id: &str) -> Result<Arc<tokio::sync::Mutex<Live>>, ApiError> {
    let unknown = || ApiError(StatusCode::NOT_FOUND, format!("no session {id:?}"));
    if turnstile_store::check_id(id).is_err() {
        return Err(unknown());
    }
    // Held while restoring, so two requests never claim one session twice.
    let mut sessions = app.sessions.0.lock().await;
    if let Some(live) = sessions.get(id) {
        return Ok(Arc::clone(live));
    }
    let claimed = tokio::task::block_in_place(|| DurableSession::claim(&app.store, id))
        .map_err(|e| store_error(&e))?;
    let Some(meta) = claimed.stored() else {
        return Err(unknown());
    };
    let rt = app.bundles.get(&meta.bundle).ok_or_else(|| {
        ApiError(
            StatusCode::CONFLICT,
            format!(
                "session {id:?} uses bundle {:?}, which this server did not load",
                meta.bundle
            ),
        )
    })?;
    let durable = claimed
        .restore(Arc::clone(rt))
        .map_err(|e| ApiError(StatusCode::CONFLICT, format!("session {id:?}: {e}")))?
        .with_now(app.now);
    let live = Arc::new(tokio::sync::Mutex::new(Live {
        durable,
        last_used: Instant::now(),
    }));
    sessions.insert(id.to_owned(), Arc::clone(&live));
    Ok(live)
}

impl Live {
    /// One event, answered as the gate answers it: pushed, committed, then
    /// returned; anything that fails is a block with the error, and the
    /// session goes back to what the store holds before its next event.
    async fn decide(&mut self, app: &App, (event, at): Timed) -> Answer {
        self.last_used = Instant::now();
        // A stale session reads the store to reload: off the async workers.
        if let Err(e) = tokio::task::block_in_place(|| self.durable.reload_if_stale()) {
            return refusal(&DurableError::Reload(Box::new(e)).to_string());
        }
        match self
            .durable
            .push_at_async(event, at, app.judge.as_ref())
            .await
        {
            Ok(committed) => {
                app.metrics.judge(
                    committed.judge_calls,
                    u64::try_from(committed.report.judge.len()).unwrap_or(u64::MAX),
                );
                // The metrics count the verdict as decided: in shadow mode,
                // what enforcement would have blocked or confirmed.
                match app.mode.answer(&committed.report, &committed.json) {
                    Ok(json) => Answer {
                        label: committed.report.verdict.label(),
                        json,
                    },
                    Err(e) => refusal(&format!("the verdict cannot be answered: {e}")),
                }
            }
            Err(e) => refusal(&e.to_string()),
        }
    }
}

/// An event and the time its input gave with it (`at`).
type Timed = (Event, Option<turnstile_rules::DateTime>);

/// The answer to one event: its verdict's JSON text, and the verdict's name
/// for the metrics (`error` for a refusal).
struct Answer {
    label: &'static str,
    json: String,
}

fn refusal(error: &str) -> Answer {
    Answer {
        label: "error",
        // Keys in sorted order: the same bytes with or without
        // `preserve_order`, like the reports'.
        json: serde_json::json!({ "error": error, "verdict": "block" }).to_string(),
    }
}

/// Post one native event, or an array of them.
#[utoipa::path(
    post,
    path = "/v1/sessions/{id}/events",
    params(("id" = String, Path, description = "The session id")),
    request_body = EventsBody,
    responses(
        (status = 200, description = "The verdict, or one per event for an array", body = Verdict),
        (status = 400, description = "Malformed body", body = ErrorBody),
        (status = 401, description = "Token missing or wrong", body = ErrorBody),
        (status = 404, description = "No such session", body = ErrorBody),
        (status = 409, description = "Session held by another writer", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 422, description = "Not an event", body = ErrorBody),
    )
)]
async fn post_events(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    body: Body,
) -> Result<Response, ApiError> {
    let value = read_json(body, app.max_body).await?;
    let single = !value.is_array();
    let items = match value {
        serde_json::Value::Array(items) => items,
        one => vec![one],
    };
    // Every event is checked before any is ingested.
    let events: Vec<Timed> = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let not_an_event = |e: String| {
                ApiError(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("item {i} is not an event: {e}"),
                )
            };
            let at = event_time(&item).map_err(not_an_event)?;
            let event = serde_json::from_value(item).map_err(|e| not_an_event(e.to_string()))?;
            Ok((event, at))
        })
        .collect::<Result<_, _>>()?;
    let live = live(&app, &id).await?;
    let mut live = live.lock().await;
    // The verdicts' texts, written as they are: one object, or an array.
    let mut body = String::new();
    if !single {
        body.push('[');
    }
    for (i, event) in events.into_iter().enumerate() {
        let started = Instant::now();
        let answer = live.decide(&app, event).await;
        app.metrics.decision(answer.label, started.elapsed());
        if i > 0 {
            body.push(',');
        }
        body.push_str(&answer.json);
    }
    if !single {
        body.push(']');
    }
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// A session's requests, cursors, remediation and verdicts.
#[utoipa::path(
    get,
    path = "/v1/sessions/{id}",
    params(("id" = String, Path, description = "The session id")),
    responses(
        (status = 200, description = "The session", body = SessionView),
        (status = 401, description = "Token missing or wrong", body = ErrorBody),
        (status = 404, description = "No such session", body = ErrorBody),
        (status = 409, description = "Session held by another writer", body = ErrorBody),
    )
)]
async fn get_session(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let live = live(&app, &id).await?;
    let mut live = live.lock().await;
    let durable = &mut live.durable;
    tokio::task::block_in_place(|| durable.reload_if_stale())
        .map_err(|e| ApiError(StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
    // Verdicts are read from the store, not kept in memory: a live session
    // holds only what deciding the next event needs.
    let verdicts =
        tokio::task::block_in_place(|| durable.verdicts()).map_err(|e| store_error(&e))?;
    let requests = verdicts
        .iter()
        .rev()
        .find(|v| v.get("fired").and_then(|f| f.as_bool()) == Some(true))
        .and_then(|v| v.get("requests").cloned())
        .unwrap_or_else(|| serde_json::json!([]));
    let session = durable.session();
    let view = SessionView {
        id,
        bundle: durable.bundle().to_owned(),
        schedule: session.schedule().name().to_owned(),
        control: session.control().into(),
        events: session.events().len(),
        requests,
        verdicts,
    };
    Ok(axum::Json(view).into_response())
}

/// Liveness.
#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "Serving")))]
async fn healthz(State(app): State<Arc<App>>) -> Response {
    axum::Json(serde_json::json!({
        "status": "ok",
        "bundles": app.bundles.keys().collect::<Vec<_>>(),
    }))
    .into_response()
}

/// Prometheus metrics.
#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Prometheus text format", content_type = "text/plain")))]
async fn metrics(State(app): State<Arc<App>>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        app.metrics.render(app.store.stats()),
    )
        .into_response()
}

async fn openapi() -> Response {
    axum::Json(ApiDoc::openapi()).into_response()
}

//! The side channel: MCP carries tool calls, not the conversation, so a
//! host that has the transcript posts the user's and the agent's messages
//! into the session here, and checks over what was said (an identity the
//! user gave, a reason, a confirmation in words) are decided from them. A
//! host that asked the user itself (its own approval UI, where the client
//! has no elicitation) posts the answer here as an `approval` event, and a
//! host that authenticated the user itself posts who they are as a
//! `principal` event (counted only where the bundle says `host_principal:
//! true`).
//!
//! `POST /v1/sessions/{id}/events` on a loopback address, with
//! `Authorization: Bearer <token>`: one native event or an array of them,
//! each `{"type":"user","text":...}`, `{"type":"agent","text":...}`,
//! `{"type":"ticket",...}`, `{"type":"approval","call":...,"granted":...}`
//! or `{"type":"principal","id":...,"claims":{...}}`
//! (calls and results only ever come through MCP, so they cannot be
//! forged here). The answer is the array of the session's reports on the
//! events, as `turnstile gate` writes them. `id` is the stdio gateway's
//! `--session`, or the MCP session id of an HTTP client.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use turnstile_engine::trace::Event;

use super::sessions::HandshakeRecords;
use super::{Gateway, GatewayError};

/// Which conversations the side channel may write.
pub enum Scope {
    /// The stdio gateway's one conversation.
    One(String),
    /// The HTTP sessions started and not ended.
    Http(HandshakeRecords),
}

impl Scope {
    fn admits(&self, id: &str) -> bool {
        match self {
            Scope::One(only) => only == id,
            Scope::Http(records) => records.contains(id),
        }
    }
}

struct Channel {
    gateway: Arc<Gateway>,
    token: String,
    scope: Scope,
}

/// Listens on `address` (the address is written to standard error: over
/// stdio, standard output is the MCP channel) and serves in the background.
pub async fn start(
    gateway: Arc<Gateway>,
    address: SocketAddr,
    token: String,
    scope: Scope,
) -> Result<tokio::task::JoinHandle<()>, GatewayError> {
    let (listener, local) = super::transport::bind(address).await?;
    eprintln!("turnstile mcp: side channel on http://{local}");
    let channel = Arc::new(Channel {
        gateway,
        token,
        scope,
    });
    let router = axum::Router::new()
        .route("/v1/sessions/{id}/events", axum::routing::post(post_events))
        .with_state(channel);
    Ok(tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router).await {
            eprintln!("turnstile mcp: the side channel stopped: {e}");
        }
    }))
}

fn answer(status: StatusCode, error: String) -> Response {
    (status, axum::Json(serde_json::json!({ "error": error }))).into_response()
}

async fn post_events(
    State(channel): State<Arc<Channel>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !crate::serve::carries_token(&headers, &channel.token) {
        return answer(
            StatusCode::UNAUTHORIZED,
            "a bearer token is required (Authorization: Bearer <token>)".to_owned(),
        );
    }
    if !channel.scope.admits(&id) {
        return answer(StatusCode::NOT_FOUND, format!("no session {id:?}"));
    }
    let events = match messages(&body) {
        Ok(events) => events,
        Err(why) => return answer(StatusCode::UNPROCESSABLE_ENTITY, why),
    };
    let conversation = match channel.gateway.sessions.get(&id) {
        Ok(conversation) => conversation,
        Err(e) => return answer(StatusCode::CONFLICT, e.to_string()),
    };
    let mut conversation = conversation.lock().await;
    let mut reports = Vec::with_capacity(events.len());
    for (index, event) in events.into_iter().enumerate() {
        match conversation.push(event, &channel.gateway.judge).await {
            Ok(committed) => reports.push(committed.json),
            Err(e) => {
                return answer(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!("event {index} was not taken ({e}); the {index} before it were"),
                );
            }
        }
    }
    (
        [(header::CONTENT_TYPE, "application/json")],
        format!("[{}]", reports.join(",")),
    )
        .into_response()
}

/// The body's events: one or an array, each a message, a ticket, an
/// approval or a principal.
fn messages(body: &[u8]) -> Result<Vec<Event>, String> {
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("the body is not JSON: {e}"))?;
    let values = match value {
        serde_json::Value::Array(values) => values,
        one => vec![one],
    };
    values
        .into_iter()
        .enumerate()
        .map(|(index, value)| {
            let event: Event = serde_json::from_value(value)
                .map_err(|e| format!("event {index} is not an event: {e}"))?;
            match event {
                Event::User { .. }
                | Event::Agent { .. }
                | Event::Ticket { .. }
                | Event::Approval { .. }
                | Event::Principal { .. } => Ok(event),
                Event::Call { .. } | Event::Result { .. } => Err(format!(
                    "event {index}: the side channel takes messages, tickets, approvals and principals; calls and results come through MCP"
                )),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn messages_tickets_approvals_and_principals_are_taken_never_calls_or_results() {
        let two = br#"[{"type":"user","text":"Cancel #W1"},{"type":"agent","text":"Sure."}]"#;
        assert_eq!(messages(two).unwrap().len(), 2);
        let approval = br#"{"type":"approval","call":"mcp-8","granted":true,"by":"user"}"#;
        assert!(matches!(
            messages(approval).unwrap().as_slice(),
            [Event::Approval { granted: true, .. }]
        ));
        let principal = br#"{"type":"principal","id":"yusuf_rossi_9620","claims":{"email":"yusuf.rossi7301@example.com"}}"#;
        assert!(matches!(
            messages(principal).unwrap().as_slice(),
            [Event::Principal { id, claims }] if id == "yusuf_rossi_9620" && claims.len() == 1
        ));
        let call = br#"{"type":"call","id":"c1","tool":"cancel_pending_order","args":{}}"#;
        assert!(messages(call).unwrap_err().contains("come through MCP"));
        let result = br#"{"type":"result","id":"c1","ok":true}"#;
        assert!(messages(result).is_err());
        assert!(
            messages(b"{\"type\":\"user\"}")
                .unwrap_err()
                .contains("not an event")
        );
        assert!(messages(b"yes").unwrap_err().contains("not JSON"));
    }
}

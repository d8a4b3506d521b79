//! The gateway's MCP server handler, one per client connection (per MCP
//! session over HTTP). `tools/list` is the guarded server's list, keeping
//! the tools the bundle covers (all of them with `--pass-undeclared`).
//! `tools/call` is the gate: the call is recorded as the agent's call
//! event, and runs on the guarded server only if the verdict lets it; the
//! server's answer is recorded as the call's result before the client
//! sees it. A write that lacks only the user's consent (`confirm`) is
//! asked of the user through the client (`elicitation/create`, the
//! confirmation's text, an empty schema): the answer is recorded as an
//! `approval` by the user, and an accepted call is submitted again, the
//! identical call the approval opens, and runs if that is allowed. A
//! client without elicitation gets the confirmation's text as a tool
//! error. Anything that fails on the way refuses the call with a tool
//! error saying why.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitationAction, Implementation,
    InitializeRequestParams, InitializeResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities,
};
use rmcp::service::{ElicitationMode, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};

use super::Gateway;
use super::events::{self, Disposition};
use super::sessions::Shared;
use super::upstream::Connection;

/// How a connection finds its conversation.
pub enum Keying {
    /// Always this one (stdio: `--session`).
    Fixed(String),
    /// The MCP session id of each request (streamable HTTP).
    HttpSession,
}

/// The handler. See the module documentation.
pub struct Proxy {
    link: Arc<Link>,
}

/// What a connection holds: its upstream connection, and the conversation
/// it writes, let go of when the connection ends.
struct Link {
    gateway: Arc<Gateway>,
    keying: Keying,
    conversation: OnceLock<String>,
    upstream: tokio::sync::OnceCell<Connection>,
}

impl Drop for Link {
    fn drop(&mut self) {
        if let Some(id) = self.conversation.get() {
            self.gateway.sessions.release(id);
        }
    }
}

/// The newest protocol revision served: the last with a handshake and
/// sessions, in which the gateway can ask the client for consent during a
/// call. Clients of later revisions negotiate down to it.
const NEWEST_PROTOCOL: ProtocolVersion = ProtocolVersion::V_2025_11_25;

impl Proxy {
    pub fn new(gateway: Arc<Gateway>, keying: Keying) -> Proxy {
        Proxy {
            link: Arc::new(Link {
                gateway,
                keying,
                conversation: OnceLock::new(),
                upstream: tokio::sync::OnceCell::new(),
            }),
        }
    }

    async fn upstream(&self) -> Result<&Connection, String> {
        self.link
            .upstream
            .get_or_try_init(|| self.link.gateway.upstream.connect())
            .await
            .map_err(|e| format!("the guarded server cannot be reached: {e}"))
    }

    /// The conversation `context`'s request belongs to.
    fn conversation_id(&self, context: &RequestContext<RoleServer>) -> Result<String, String> {
        let id = match &self.link.keying {
            Keying::Fixed(id) => id.clone(),
            Keying::HttpSession => context
                .extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.headers.get("mcp-session-id"))
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
                .ok_or("the request carries no MCP session id, so it belongs to no conversation")?,
        };
        let first = self.link.conversation.get_or_init(|| id.clone());
        if *first != id {
            return Err(format!(
                "the connection writes conversation {first:?}, not {id:?}"
            ));
        }
        Ok(id)
    }

    /// The gate around one call. See the module documentation.
    async fn gated_call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let gateway = &self.link.gateway;
        let upstream = match self.upstream().await {
            Ok(upstream) => upstream,
            Err(why) => return events::refusal(format!("{why}; the call did not run"), None),
        };
        let tool = request.name.as_ref();
        if gateway.pass_undeclared && !gateway.covers(tool) {
            return upstream
                .call(tool, request.arguments)
                .await
                .unwrap_or_else(|e| events::refusal(e.to_string(), None));
        }
        let conversation = match self
            .conversation_id(context)
            .and_then(|id| gateway.sessions.get(&id).map_err(|e| e.to_string()))
        {
            Ok(conversation) => conversation,
            Err(why) => {
                return events::refusal(
                    format!("the call cannot be recorded: {why}; it did not run"),
                    None,
                );
            }
        };
        let (mut call_id, decided) = {
            let mut conversation = conversation.lock().await;
            let call_id = conversation.next_call_id();
            let event = events::call(call_id.clone(), tool, request.arguments.as_ref());
            let decided = conversation.push(event, &gateway.judge).await;
            (call_id, decided)
        };
        let committed = match decided {
            Ok(committed) => committed,
            Err(e) => {
                return events::refusal(
                    format!("the call cannot be recorded: {e}; it did not run"),
                    None,
                );
            }
        };
        match events::disposition(&committed.report) {
            Disposition::Run => {}
            Disposition::Refuse(error) => return error,
            Disposition::Confirm(confirmation) => {
                let consented = self
                    .consent(
                        &confirmation,
                        &committed.report,
                        &conversation,
                        &request,
                        context,
                    )
                    .await;
                match consented {
                    Ok(approved_call) => call_id = approved_call,
                    Err(error) => return error,
                }
            }
        }
        let (result, answer) = match upstream.call(tool, request.arguments).await {
            Ok(answer) => (events::result(call_id.clone(), &answer), answer),
            Err(e) => {
                let why = e.to_string();
                (
                    events::failure(call_id.clone(), &why),
                    events::refusal(why, None),
                )
            }
        };
        let mut conversation = conversation.lock().await;
        if let Err(e) = conversation.push(result, &gateway.judge).await {
            // The call ran: its answer goes to the client. The session lacks
            // the result, so nothing will rest on it (fail closed).
            eprintln!(
                "turnstile mcp: session {:?}: the result of {call_id} cannot be recorded: {e}",
                conversation.id()
            );
        }
        answer
    }

    /// Asks the user to consent to the call held by `confirmation`, and
    /// records the answer. On `accept`, the identical call is submitted
    /// again under the same lock (nothing comes between the approval and
    /// the call it opens): its id if the session now lets it run. Every
    /// other outcome is the tool error the client gets.
    async fn consent(
        &self,
        confirmation: &turnstile_engine::session::Confirmation,
        held: &turnstile_engine::session::EventReport,
        conversation: &Shared,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<String, CallToolResult> {
        if !context
            .peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
        {
            return Err(events::refusal(confirmation.text.clone(), Some(held)));
        }
        // The conversation is not locked while the user thinks: the side
        // channel may post to it meanwhile.
        let action = match context
            .peer
            .create_elicitation(events::elicitation(confirmation))
            .await
        {
            Ok(answer) => answer.action,
            Err(e) => {
                return Err(events::refusal(
                    format!(
                        "The user could not be asked ({e}), so the call did not run: \"{}\"",
                        confirmation.text
                    ),
                    Some(held),
                ));
            }
        };
        let judge = &self.link.gateway.judge;
        let unrecorded = |e: super::conversation::ConversationError| {
            events::refusal(
                format!("the user's answer cannot be recorded: {e}; the call did not run"),
                None,
            )
        };
        let mut conversation = conversation.lock().await;
        let answered = conversation
            .push(events::approval(&confirmation.call, &action), judge)
            .await
            .map_err(unrecorded)?;
        if action != ElicitationAction::Accept {
            return Err(events::not_approved(
                &action,
                confirmation,
                &answered.report,
            ));
        }
        let call_id = conversation.next_call_id();
        let again = events::call(call_id.clone(), &request.name, request.arguments.as_ref());
        let decided = conversation.push(again, judge).await.map_err(|e| {
            events::refusal(
                format!("the approved call cannot be recorded: {e}; it did not run"),
                None,
            )
        })?;
        match events::disposition(&decided.report) {
            Disposition::Run => Ok(call_id),
            Disposition::Refuse(error) => Err(error),
            Disposition::Confirm(again) => {
                Err(events::refusal(again.text.clone(), Some(&decided.report)))
            }
        }
    }
}

impl ServerHandler for Proxy {
    fn get_info(&self) -> InitializeResult {
        let bundle = &self.link.gateway.rt.bundle;
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_protocol_version(NEWEST_PROTOCOL)
            .with_server_info(Implementation::new(
                "turnstile-mcp",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(format!(
                "Tool calls pass Turnstile's workflow gate (bundle {}): a call the policy's \
                 procedure does not allow yet is refused with a tool error saying what to do first.",
                bundle.name
            ))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&NEWEST_PROTOCOL))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        // A server that cannot be reached fails the handshake: the client
        // sees it at once, not at its first call.
        self.upstream()
            .await
            .map_err(|why| ErrorData::internal_error(why, None))?;
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let gateway = &self.link.gateway;
        let upstream = self
            .upstream()
            .await
            .map_err(|why| ErrorData::internal_error(why, None))?;
        let tools = upstream
            .tools()
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(ListToolsResult::with_all_items(
            tools
                .into_iter()
                .filter(|tool| gateway.pass_undeclared || gateway.covers(&tool.name))
                .collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResponse::Complete(
            self.gated_call(request, &context).await,
        ))
    }
}

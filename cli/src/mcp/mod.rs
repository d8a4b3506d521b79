//! `turnstile mcp`: a fail-closed MCP gateway. To its client it is an MCP
//! server (over stdio, or streamable HTTP with `--listen`); to the server it
//! guards it is an MCP client (a child process started from the command
//! after `--`, or a streamable HTTP endpoint with `--upstream`). Every tool
//! call the bundle declares becomes a call event of a durable session, and
//! runs only when the session's verdict lets it; its result becomes a
//! result event. A blocked call never reaches the upstream server: the
//! client gets a tool error whose text is the remediation. A write that
//! lacks only the user's consent is asked of the user through the client
//! (`elicitation/create`); their answer is the session's `approval` event.
//!
//! The modules, one job each: `transport.rs` sets up the two transports
//! and the listeners; `proxy.rs` is the MCP handler (tool listing, the
//! gated call, consent by elicitation); `upstream.rs` connects to the guarded server;
//! `conversation.rs` is the only caller of the engine's session and the
//! store; `sessions.rs` keys conversations (`--session`, or the MCP session
//! id over HTTP) and keeps the HTTP sessions' handshakes for a restart;
//! `side_channel.rs` lets a host post the user's and the agent's messages
//! into a conversation; `events.rs` turns MCP calls and results into
//! session events and verdicts into tool errors.
//!
//! The gateway decides nothing itself: whatever cannot be recorded or
//! decided (an upstream that does not answer, a store that cannot write, an
//! event the session refuses) keeps the call from running, and the client
//! is told why.

mod conversation;
mod events;
mod proxy;
mod sessions;
mod side_channel;
mod transport;
mod upstream;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use turnstile_engine::session::{BundleRuntime, Schedule};
use turnstile_llm::JudgeStack;
use turnstile_store::{Durability, Store};

pub use upstream::Upstream;

/// The conversation a stdio gateway writes when `--session` names none.
pub const DEFAULT_SESSION: &str = "default";

/// What `turnstile mcp` was started with.
pub struct McpOptions {
    /// The session store (the SQLite file `gate` and `serve` use).
    pub store: PathBuf,
    pub durability: Durability,
    pub schedule: Schedule,
    /// The conversation of a stdio gateway.
    pub session: String,
    /// Serve streamable HTTP here rather than stdio.
    pub listen: Option<SocketAddr>,
    /// The guarded server.
    pub upstream: Upstream,
    /// List and pass the tools the bundle does not declare, ungated.
    pub pass_undeclared: bool,
    /// Where the side channel listens, if anywhere.
    pub side_channel: Option<SocketAddr>,
    /// The bearer token the side channel requires.
    pub token_file: Option<PathBuf>,
}

/// Why the gateway cannot start or go on.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error(transparent)]
    Store(#[from] turnstile_store::StoreError),
    #[error(transparent)]
    Conversation(#[from] conversation::ConversationError),
    #[error("cannot listen on {address}: {source}")]
    Listen {
        address: SocketAddr,
        source: std::io::Error,
    },
    #[error("the side channel needs a bearer token: give --token-file")]
    SideChannelWithoutToken,
    #[error("{0}")]
    Token(String),
    #[error("the MCP transport failed: {0}")]
    Transport(String),
}

/// What every part of the gateway shares.
pub(crate) struct Gateway {
    pub rt: Arc<BundleRuntime>,
    pub judge: JudgeStack,
    pub upstream: Upstream,
    pub pass_undeclared: bool,
    pub sessions: sessions::Sessions,
}

impl Gateway {
    /// Whether the bundle gates `tool` (declared, or listed as passed
    /// through): such calls go through the session, others are hidden
    /// unless `--pass-undeclared`.
    pub fn covers(&self, tool: &str) -> bool {
        let bundle = &self.rt.bundle;
        bundle.domain.tool(tool).is_some() || bundle.pass_through.iter().any(|(t, _)| t == tool)
    }
}

/// Runs the gateway until its client disconnects (stdio) or it is stopped
/// (HTTP: Ctrl-C or SIGTERM). The async runtime is the MCP transports'
/// (rmcp); the session is decided and committed synchronously on its
/// workers (`conversation.rs`).
pub fn run(
    rt: Arc<BundleRuntime>,
    options: McpOptions,
    judge: JudgeStack,
) -> Result<(), GatewayError> {
    let token = match (&options.side_channel, &options.token_file) {
        (None, _) => None,
        (Some(_), None) => return Err(GatewayError::SideChannelWithoutToken),
        (Some(_), Some(path)) => Some(crate::serve::read_token(path).map_err(GatewayError::Token)?),
    };
    let store = Store::open(&options.store, options.durability)?;
    let records = sessions::HandshakeRecords::beside(&options.store);
    let gateway = Arc::new(Gateway {
        sessions: sessions::Sessions::new(store, Arc::clone(&rt), options.schedule),
        rt,
        judge,
        upstream: options.upstream,
        pass_undeclared: options.pass_undeclared,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(GatewayError::Runtime)?;
    runtime.block_on(async move {
        let side = match (options.side_channel, token) {
            (Some(address), Some(token)) => {
                let scope = match options.listen {
                    None => side_channel::Scope::One(options.session.clone()),
                    Some(_) => side_channel::Scope::Http(records.clone()),
                };
                Some(side_channel::start(Arc::clone(&gateway), address, token, scope).await?)
            }
            _ => None,
        };
        let served = match options.listen {
            None => transport::serve_stdio(gateway, options.session).await,
            Some(address) => transport::serve_http(gateway, address, records).await,
        };
        if let Some(side) = side {
            side.abort();
        }
        served
    })
}

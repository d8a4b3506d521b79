//! The gateway's two faces to its client: MCP over standard input and
//! output (one client, one conversation), or streamable HTTP on a loopback
//! address (`/mcp`; a conversation per MCP session, whose handshakes are
//! kept beside the store so a restarted gateway takes its clients back).

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::proxy::{Keying, Proxy};
use super::sessions::HandshakeRecords;
use super::{Gateway, GatewayError};

/// Serves one client over stdio until it disconnects. The conversation is
/// claimed first: a second gateway on the same session fails at start.
pub async fn serve_stdio(gateway: Arc<Gateway>, session: String) -> Result<(), GatewayError> {
    gateway.sessions.get(&session)?;
    let proxy = Proxy::new(gateway, Keying::Fixed(session));
    let service = proxy
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| GatewayError::Transport(e.to_string()))?;
    service
        .waiting()
        .await
        .map_err(|e| GatewayError::Transport(e.to_string()))?;
    Ok(())
}

/// Serves streamable HTTP at `http://<address>/mcp` until Ctrl-C or
/// SIGTERM; the first line of standard output is the address.
pub async fn serve_http(
    gateway: Arc<Gateway>,
    address: SocketAddr,
    records: HandshakeRecords,
) -> Result<(), GatewayError> {
    let mut config = StreamableHttpServerConfig::default();
    config.session_store = Some(Arc::new(records));
    let service = StreamableHttpService::new(
        move || Ok(Proxy::new(Arc::clone(&gateway), Keying::HttpSession)),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let (listener, local) = bind(address).await?;
    // The first line of standard output, for scripts and tests that asked
    // for port 0.
    println!("listening on http://{local}/mcp");
    axum::serve(listener, router)
        .with_graceful_shutdown(crate::serve::shutdown())
        .await
        .map_err(|e| GatewayError::Transport(e.to_string()))
}

/// A listener on `address`, and the address it got (the port, if 0 was
/// asked for).
pub async fn bind(
    address: SocketAddr,
) -> Result<(tokio::net::TcpListener, SocketAddr), GatewayError> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|source| GatewayError::Listen { address, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| GatewayError::Listen { address, source })?;
    Ok((listener, local))
}

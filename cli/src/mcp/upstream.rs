//! The guarded MCP server, and the gateway's client connection to it: a
//! child process spoken to over its stdin and stdout, or a streamable HTTP
//! endpoint. Each client of the gateway gets a connection of its own, so
//! the server sees one session per conversation, as it would without the
//! gateway.

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, Implementation, Tool};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};

/// Where the guarded server is.
#[derive(Clone, Debug)]
pub enum Upstream {
    /// A command (program and arguments) started for each connection.
    Command(Vec<String>),
    /// A streamable HTTP endpoint (`http://127.0.0.1:8000/mcp`).
    Url(String),
}

/// Why the guarded server cannot be reached or did not answer.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    #[error("no server command given after `--`, and no --upstream")]
    NoCommand,
    #[error("cannot start the server `{program}`: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("the server did not complete the MCP handshake: {0}")]
    Handshake(String),
    #[error("the server failed: {0}")]
    Service(#[from] ServiceError),
}

/// An open connection to the guarded server.
pub struct Connection {
    service: RunningService<RoleClient, ClientConfig>,
}

impl Upstream {
    /// Connects (starting the child process, if a command) and completes
    /// the handshake.
    pub async fn connect(&self) -> Result<Connection, UpstreamError> {
        let client = ClientConfig::new(
            Default::default(),
            Implementation::new("turnstile-mcp", env!("CARGO_PKG_VERSION")),
        );
        let service = match self {
            Upstream::Command(words) => {
                let (program, arguments) = words.split_first().ok_or(UpstreamError::NoCommand)?;
                let mut command = tokio::process::Command::new(program);
                command.args(arguments);
                let child =
                    TokioChildProcess::new(command).map_err(|source| UpstreamError::Spawn {
                        program: program.clone(),
                        source,
                    })?;
                client.serve(child).await
            }
            Upstream::Url(url) => {
                let transport = StreamableHttpClientTransport::from_uri(url.as_str());
                client.serve(transport).await
            }
        }
        .map_err(|e| UpstreamError::Handshake(e.to_string()))?;
        Ok(Connection { service })
    }
}

impl Connection {
    /// Every tool the server lists (all pages).
    pub async fn tools(&self) -> Result<Vec<Tool>, UpstreamError> {
        Ok(self.service.list_all_tools().await?)
    }

    /// Runs one tool call on the server.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<rmcp::model::JsonObject>,
    ) -> Result<CallToolResult, UpstreamError> {
        let mut request = CallToolRequestParams::new(name.to_owned());
        request.arguments = arguments;
        Ok(self.service.call_tool(request).await?)
    }
}

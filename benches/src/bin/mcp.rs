//! What `turnstile mcp` adds to a tool call (figures in BENCHMARKS.md).
//! Starts an MCP server in this process (rmcp, streamable HTTP on
//! loopback) serving `get_order_details` with a fixed order (and
//! `find_user_id_by_email`, the identification the retail bundle asks
//! before an order is read, called once per conversation), then times
//! `--calls` sequential calls of `get_order_details`, each on its own:
//!
//! 1. **direct**: an rmcp client straight to the server;
//! 2. **gated, stdio**: an rmcp client that starts the release
//!    `turnstile mcp --bundle bundles/retail --upstream <server>` as its
//!    child process (each call a call event and a result event of the
//!    conversation, both committed to a fresh store);
//! 3. **gated, HTTP**: the same gateway with `--listen`.
//!
//! and reports the median and p99 of each and the gateway's cost (gated
//! minus direct, at each quantile), under `--sync full` and `--sync
//! normal`. Then **throughput**: `--clients` concurrent HTTP clients (each
//! its own MCP session, so its own conversation) calling back to back for
//! `--secs` seconds, in calls per second.
//!
//! Bounded: a fixed number of calls, a deadline on the throughput phase;
//! only 127.0.0.1 is contacted, and the gateways are stopped at the end.
//!
//! ```text
//! cargo build --release -p turnstile-cli
//! cargo run --release -p turnstile-benches --bin mcp -- \
//!     [--turnstile $CARGO_TARGET_DIR/release/turnstile] [--calls 2000] [--clients 8] [--secs 10]
//! ```

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool,
};
use rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::time::Instant;

/// The order every call returns (one of the vendored retail database).
const ORDER: &str = r##"{"order_id": "#W2974929", "user_id": "fatima_anderson_2157", "address": {"address1": "334 Broadway", "address2": "Suite 326", "city": "Jacksonville", "country": "USA", "state": "FL", "zip": "32100"}, "items": [{"name": "Skateboard", "product_id": "1968349452", "item_id": "3877188862", "price": 182.03, "options": {"deck material": "plastic", "length": "31 inch", "design": "plain"}}], "status": "pending", "fulfillments": [], "payment_history": [{"transaction_type": "payment", "amount": 182.03, "payment_method_id": "paypal_7916550"}]}"##;

/// The user the order belongs to, whom the conversation identifies first.
const USER: &str = "fatima_anderson_2157";

struct Options {
    turnstile: PathBuf,
    bundle: PathBuf,
    calls: usize,
    clients: usize,
    secs: u64,
}

impl Options {
    fn parse() -> Result<Options, String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let target =
            std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
        let mut options = Options {
            turnstile: target.join("release/turnstile"),
            bundle: root.join("bundles/retail"),
            calls: 2000,
            clients: 8,
            secs: 10,
        };
        let mut args = std::env::args().skip(1);
        while let Some(flag) = args.next() {
            let value = args.next().ok_or(format!("{flag} needs a value"))?;
            let number = || value.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
            match flag.as_str() {
                "--turnstile" => options.turnstile = PathBuf::from(&value),
                "--calls" => options.calls = number()?.max(1),
                "--clients" => options.clients = number()?.max(1),
                "--secs" => options.secs = u64::try_from(number()?).unwrap_or(10),
                other => return Err(format!("unknown flag {other}")),
            }
        }
        Ok(options)
    }
}

/// The upstream server: one read tool, answered from memory.
#[derive(Clone)]
struct Orders;

impl ServerHandler for Orders {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tool = |name: &'static str, description: &'static str, parameter: &str| {
            let mut schema = serde_json::Map::new();
            schema.insert("type".into(), "object".into());
            schema.insert(
                "properties".into(),
                serde_json::json!({ parameter: { "type": "string" } }),
            );
            schema.insert("required".into(), serde_json::json!([parameter]));
            Tool::new(name, description, Arc::new(schema))
        };
        Ok(ListToolsResult::with_all_items(vec![
            tool(
                "find_user_id_by_email",
                "Find a user's id by their email.",
                "email",
            ),
            tool(
                "get_order_details",
                "Get the status and details of an order.",
                "order_id",
            ),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let answer = match request.name.as_ref() {
            "find_user_id_by_email" => USER,
            _ => ORDER,
        };
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text(answer),
        ])))
    }
}

/// Serves [`Orders`] on a loopback port; returns its URL.
async fn upstream() -> Result<String, String> {
    let service = StreamableHttpService::new(
        || Ok(Orders),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let router = axum::Router::new().nest_service("/mcp", service);
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    Ok(format!("http://{address}/mcp"))
}

type Client = RunningService<RoleClient, ()>;

/// Identifies the user, as the retail policy asks before an order is read.
async fn identify(client: &Client) -> Result<(), String> {
    let mut request = CallToolRequestParams::new("find_user_id_by_email");
    request.arguments = serde_json::json!({ "email": "fatima.anderson1447@example.com" })
        .as_object()
        .cloned();
    let result = client.call_tool(request).await.map_err(|e| e.to_string())?;
    if result.is_error == Some(true) {
        return Err(format!(
            "the identification was refused: {:?}",
            result.content
        ));
    }
    Ok(())
}

async fn call(client: &Client) -> Result<Duration, String> {
    let mut request = CallToolRequestParams::new("get_order_details");
    request.arguments = serde_json::json!({ "order_id": "#W2974929" })
        .as_object()
        .cloned();
    let start = Instant::now();
    let result = client.call_tool(request).await.map_err(|e| e.to_string())?;
    let took = start.elapsed();
    if result.is_error == Some(true) {
        return Err(format!("the call was refused: {:?}", result.content));
    }
    Ok(took)
}

/// `calls` sequential calls (after the identification and 20 to warm
/// up), each timed.
async fn timed(client: &Client, calls: usize) -> Result<Vec<Duration>, String> {
    identify(client).await?;
    for _ in 0..20 {
        call(client).await?;
    }
    let mut took = Vec::with_capacity(calls);
    for _ in 0..calls {
        took.push(call(client).await?);
    }
    took.sort();
    Ok(took)
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let last = sorted.len().saturating_sub(1);
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let at = ((last as f64) * q).round() as usize;
    sorted.get(at).copied().unwrap_or_default()
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn report(name: &str, took: &[Duration], direct: Option<&[Duration]>) {
    let (p50, p99) = (quantile(took, 0.5), quantile(took, 0.99));
    let added = direct.map_or(String::new(), |direct| {
        format!(
            "   added: median {:>8.1} µs  p99 {:>8.1} µs",
            micros(p50) - micros(quantile(direct, 0.5)),
            micros(p99) - micros(quantile(direct, 0.99))
        )
    });
    println!(
        "{name:<28} median {:>8.1} µs  p99 {:>8.1} µs{added}",
        micros(p50),
        micros(p99)
    );
}

/// A gateway over HTTP: the child and its URL.
async fn http_gateway(
    options: &Options,
    store: &Path,
    sync: &str,
    upstream: &str,
) -> Result<(tokio::process::Child, String), String> {
    let mut child = tokio::process::Command::new(&options.turnstile)
        .arg("mcp")
        .arg("--bundle")
        .arg(&options.bundle)
        .arg("--store")
        .arg(store)
        .args([
            "--sync",
            sync,
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            upstream,
        ])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", options.turnstile.display()))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .await
        .map_err(|e| e.to_string())?;
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .ok_or(format!("unexpected first line {line:?}"))?
        .to_owned();
    Ok((child, url))
}

async fn run(options: Options) -> Result<(), String> {
    let upstream = upstream().await?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    println!(
        "{} sequential calls of get_order_details each (after 20 to warm up); load average {}",
        options.calls,
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    let direct_client =
        ().serve(StreamableHttpClientTransport::from_uri(upstream.as_str()))
            .await
            .map_err(|e| e.to_string())?;
    let direct = timed(&direct_client, options.calls).await?;
    report("direct (HTTP)", &direct, None);
    for sync in ["normal", "full"] {
        let store = dir.path().join(format!("stdio-{sync}.db"));
        let mut gateway = tokio::process::Command::new(&options.turnstile);
        gateway
            .arg("mcp")
            .arg("--bundle")
            .arg(&options.bundle)
            .arg("--store")
            .arg(&store)
            .args(["--sync", sync, "--upstream", &upstream]);
        let child = TokioChildProcess::new(gateway).map_err(|e| e.to_string())?;
        let client = ().serve(child).await.map_err(|e| e.to_string())?;
        let took = timed(&client, options.calls).await?;
        report(&format!("gated stdio, sync {sync}"), &took, Some(&direct));
        client.cancel().await.map_err(|e| e.to_string())?;

        let store = dir.path().join(format!("http-{sync}.db"));
        let (_gateway, url) = http_gateway(&options, &store, sync, &upstream).await?;
        let client =
            ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
                .await
                .map_err(|e| e.to_string())?;
        let took = timed(&client, options.calls).await?;
        report(&format!("gated HTTP, sync {sync}"), &took, Some(&direct));
        client.cancel().await.map_err(|e| e.to_string())?;

        let store = dir.path().join(format!("throughput-{sync}.db"));
        let (_gateway, url) = http_gateway(&options, &store, sync, &upstream).await?;
        let deadline = Instant::now() + Duration::from_secs(options.secs);
        let mut clients = tokio::task::JoinSet::new();
        for _ in 0..options.clients {
            let url = url.clone();
            clients.spawn(async move {
                let client =
                    ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
                        .await
                        .map_err(|e| e.to_string())?;
                identify(&client).await?;
                let mut done = 0u64;
                // A conversation holds at most 10,000 events: two a call.
                while Instant::now() < deadline && done < 4_900 {
                    call(&client).await?;
                    done += 1;
                }
                client.cancel().await.map_err(|e| e.to_string())?;
                Ok::<u64, String>(done)
            });
        }
        let start = Instant::now();
        let mut total = 0u64;
        while let Some(done) = clients.join_next().await {
            total += done.map_err(|e| e.to_string())??;
        }
        #[allow(clippy::cast_precision_loss)]
        let rate = total as f64 / start.elapsed().as_secs_f64();
        println!(
            "throughput, {} HTTP clients, sync {sync}: {total} calls, {rate:.0} calls/s",
            options.clients
        );
    }
    direct_client.cancel().await.map_err(|e| e.to_string())?;
    Ok(())
}

fn main() {
    let options = match Options::parse() {
        Ok(options) => options,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    if let Err(e) = runtime.block_on(run(options)) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

//! Load test of `turnstile serve` on loopback (figures in BENCHMARKS.md):
//! starts the release binary with the shipped bundles and a temporary store,
//! then
//!
//! 1. **open loop**: `--sessions` concurrent sessions (default 1,000), each
//!    on its own keep-alive connection, replaying a real tau2 retail
//!    conversation from `examples/retail-sample.jsonl` event by event with
//!    `--think-ms` (default 500) between events. Each event has a scheduled
//!    send time, and its latency is measured from that time to the end of
//!    the response, so a server that falls behind shows it (no coordinated
//!    omission). Reports p50/p99/max and the server's RSS per session
//!    (`VmRSS` of `/proc/<pid>/status` before the sessions and after them,
//!    while they are still in memory).
//! 2. **closed loop**: `--connections` (default 16) connections, each
//!    replaying conversations back to back with no think time for
//!    `--closed-secs` (default 10): the maximum sustainable throughput.
//!
//! After each phase it prints the server's and its own CPU time, the
//! store's writes per transaction (`/metrics`) and the load average: the
//! client runs on the machine it measures.
//!
//! Bounded: every phase stops at its deadline (`--max-secs` for the open
//! loop) and the server is killed at the end. Only 127.0.0.1 is contacted.
//!
//! ```text
//! cargo build --release -p turnstile-cli
//! cargo run --release -p turnstile-benches --bin load -- \
//!     --turnstile $CARGO_TARGET_DIR/release/turnstile [--sessions 1000] \
//!     [--think-ms 500] [--sync full|normal] [--connections 16] [--closed-secs 10]
//! ```

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio::task::JoinSet;
use tokio::time::Instant;

/// Command-line options, with their defaults.
struct Options {
    turnstile: PathBuf,
    bundles: PathBuf,
    trace: PathBuf,
    sessions: usize,
    think: Duration,
    sync: String,
    connections: usize,
    closed: Duration,
    max: Duration,
}

impl Options {
    fn parse() -> Result<Self, String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let target =
            std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
        let mut options = Options {
            turnstile: target.join("release/turnstile"),
            bundles: root.join("bundles"),
            trace: root.join("examples/retail-sample.jsonl"),
            sessions: 1_000,
            think: Duration::from_millis(500),
            sync: "full".to_owned(),
            connections: 16,
            closed: Duration::from_secs(10),
            max: Duration::from_secs(120),
        };
        let mut args = std::env::args().skip(1);
        while let Some(flag) = args.next() {
            let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
            let number = |v: String| v.parse::<u64>().map_err(|e| format!("{flag} {v:?}: {e}"));
            match flag.as_str() {
                "--turnstile" => options.turnstile = value()?.into(),
                "--bundles" => options.bundles = value()?.into(),
                "--trace" => options.trace = value()?.into(),
                "--sessions" => {
                    options.sessions = usize::try_from(number(value()?)?).unwrap_or(usize::MAX)
                }
                "--think-ms" => options.think = Duration::from_millis(number(value()?)?),
                "--sync" => options.sync = value()?,
                "--connections" => {
                    options.connections = usize::try_from(number(value()?)?).unwrap_or(1)
                }
                "--closed-secs" => options.closed = Duration::from_secs(number(value()?)?),
                "--max-secs" => options.max = Duration::from_secs(number(value()?)?),
                other => return Err(format!("unknown option {other}")),
            }
        }
        Ok(options)
    }
}

/// The conversations of a native JSONL file: each starts at a
/// `{"type":"trace",...}` header line; every other line is one event, sent
/// as it is.
fn conversations(path: &Path) -> Result<Vec<Vec<String>>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut out: Vec<Vec<String>> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{}: {e}", path.display()))?;
        if value.get("type").and_then(serde_json::Value::as_str) == Some("trace") {
            out.push(Vec::new());
        } else if let Some(current) = out.last_mut() {
            current.push(line.to_owned());
        } else {
            out.push(vec![line.to_owned()]);
        }
    }
    out.retain(|c| !c.is_empty());
    if out.is_empty() {
        return Err(format!("{} holds no conversation", path.display()));
    }
    Ok(out)
}

/// One keep-alive HTTP/1.1 connection to the server.
struct Connection {
    stream: BufReader<TcpStream>,
}

impl Connection {
    async fn open(addr: &str) -> Result<Self, String> {
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("connect {addr}: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        Ok(Self {
            stream: BufReader::new(stream),
        })
    }

    /// POSTs `body` to `path`; returns the status and the response body.
    async fn post(&mut self, path: &str, body: &str) -> Result<(u16, String), String> {
        self.request("POST", path, body).await
    }

    /// Sends one request; returns the status and the response body (read
    /// by its Content-Length, which axum's responses carry).
    async fn request(
        &mut self,
        method: &str,
        path: &str,
        body: &str,
    ) -> Result<(u16, String), String> {
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let io = |e: std::io::Error| format!("{path}: {e}");
        self.stream
            .get_mut()
            .write_all(request.as_bytes())
            .await
            .map_err(io)?;
        let mut line = String::new();
        self.stream.read_line(&mut line).await.map_err(io)?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("{path}: bad status line {line:?}"))?;
        let mut length = 0usize;
        loop {
            line.clear();
            if self.stream.read_line(&mut line).await.map_err(io)? == 0 {
                return Err(format!("{path}: connection closed in the headers"));
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value
                    .trim()
                    .parse()
                    .map_err(|e| format!("{path}: Content-Length: {e}"))?;
            }
        }
        let mut body = vec![0u8; length];
        self.stream.read_exact(&mut body).await.map_err(io)?;
        Ok((status, String::from_utf8_lossy(&body).into_owned()))
    }

    /// A new session on the retail bundle; its id.
    async fn create(&mut self) -> Result<String, String> {
        let (status, body) = self.post("/v1/sessions", r#"{"bundle":"retail"}"#).await?;
        if status != 201 {
            return Err(format!("create session: {status} {body}"));
        }
        let value: serde_json::Value = serde_json::from_str(&body).map_err(|e| e.to_string())?;
        value
            .get("id")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("create session: no id in {body}"))
    }
}

/// The server process and its address.
struct Server {
    child: Child,
    addr: String,
    pid: u32,
    dir: PathBuf,
}

impl Server {
    async fn start(options: &Options) -> Result<Self, String> {
        let dir = std::env::temp_dir().join(format!("turnstile-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut child = Command::new(&options.turnstile)
            .arg("serve")
            .arg("--bundles")
            .arg(&options.bundles)
            .args(["--listen", "127.0.0.1:0", "--sync", &options.sync])
            .arg("--store")
            .arg(dir.join("store.db"))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", options.turnstile.display()))?;
        let pid = child.id().ok_or("the server exited at once")?;
        let stdout = child.stdout.take().ok_or("no server stdout")?;
        let mut line = String::new();
        tokio::time::timeout(
            Duration::from_secs(30),
            BufReader::new(stdout).read_line(&mut line),
        )
        .await
        .map_err(|_| "the server did not start within 30 s")?
        .map_err(|e| e.to_string())?;
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .ok_or_else(|| format!("unexpected first line {line:?}"))?
            .to_owned();
        Ok(Self {
            child,
            addr,
            pid,
            dir,
        })
    }

    /// `VmRSS` and `VmHWM` (peak) in KiB.
    fn memory(&self) -> (u64, u64) {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid)).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    /// The server's CPU time so far (user + system), in seconds.
    fn cpu_seconds(&self) -> f64 {
        cpu_seconds(&format!("/proc/{}/stat", self.pid))
    }

    /// The store's counters from `/metrics`: writes stored and transactions
    /// committed (their ratio is the group commit's batch size).
    async fn store_counters(&self) -> Result<(u64, u64), String> {
        let mut connection = Connection::open(&self.addr).await?;
        let (_, text) = connection.request("GET", "/metrics", "").await?;
        let counter = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0)
        };
        Ok((
            counter("turnstile_store_writes_total "),
            counter("turnstile_store_transactions_total "),
        ))
    }

    async fn stop(mut self) {
        let _ = self.child.kill().await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// CPU time (user + system) of the process whose `/proc/.../stat` is
/// `stat`, in seconds; the kernel counts it in ticks of 1/100 s (`USER_HZ`
/// on Linux).
fn cpu_seconds(stat: &str) -> f64 {
    let text = std::fs::read_to_string(stat).unwrap_or_default();
    // The fields after the command name (which may hold spaces), from the
    // third: utime and stime are the 14th and 15th.
    let after_name = text.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 = after_name
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|v| v.parse::<u64>().ok())
        .sum();
    ticks as f64 / 100.0
}

/// The machine's load averages (1, 5, 15 minutes) as `/proc/loadavg` says.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// CPU and store use over one phase, printed after its latencies.
struct Usage {
    server_cpu: f64,
    client_cpu: f64,
    store: (u64, u64),
    start: Instant,
}

impl Usage {
    async fn start(server: &Server) -> Self {
        Usage {
            server_cpu: server.cpu_seconds(),
            client_cpu: cpu_seconds("/proc/self/stat"),
            store: server.store_counters().await.unwrap_or_default(),
            start: Instant::now(),
        }
    }

    async fn report(&self, server: &Server) {
        let wall = self.start.elapsed().as_secs_f64().max(1e-3);
        let server_cpu = server.cpu_seconds() - self.server_cpu;
        let client_cpu = cpu_seconds("/proc/self/stat") - self.client_cpu;
        let (writes, transactions) = server.store_counters().await.unwrap_or_default();
        let (writes, transactions) = (
            writes.saturating_sub(self.store.0),
            transactions.saturating_sub(self.store.1),
        );
        println!(
            "  CPU over {wall:.1} s: server {server_cpu:.1} s ({:.0}% of one core), load client {client_cpu:.1} s ({:.0}%); store: {writes} writes in {transactions} transactions ({:.1} per transaction); load average {}",
            100.0 * server_cpu / wall,
            100.0 * client_cpu / wall,
            writes as f64 / transactions.max(1) as f64,
            load_average()
        );
    }
}

/// Latencies and failures of a phase.
#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    errors: usize,
    first_error: Option<String>,
    unfinished: usize,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.latencies.extend(other.latencies);
        self.errors += other.errors;
        self.unfinished += other.unfinished;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }

    fn error(&mut self, e: String) {
        self.errors += 1;
        self.first_error.get_or_insert(e);
    }

    fn report(&mut self, what: &str) {
        self.latencies.sort();
        let at = |q: f64| {
            let i = ((self.latencies.len() as f64 * q).ceil() as usize).saturating_sub(1);
            self.latencies.get(i).map_or_else(
                || "–".to_owned(),
                |d| format!("{:.3} ms", d.as_secs_f64() * 1e3),
            )
        };
        println!(
            "{what}: {} events, p50 {}, p90 {}, p99 {}, max {}; {} errors, {} events not sent by the deadline",
            self.latencies.len(),
            at(0.5),
            at(0.9),
            at(0.99),
            at(1.0),
            self.errors,
            self.unfinished
        );
        if let Some(e) = &self.first_error {
            println!("  first error: {e}");
        }
    }
}

/// One open-loop session: connect at `start`, create, then send event k at
/// `start + k * think`.
async fn open_session(
    addr: String,
    events: std::sync::Arc<Vec<String>>,
    start: Instant,
    think: Duration,
    deadline: Instant,
) -> Tally {
    let mut tally = Tally::default();
    tokio::time::sleep_until(start).await;
    let session = async {
        let mut connection = Connection::open(&addr).await?;
        let id = connection.create().await?;
        Ok::<_, String>((connection, format!("/v1/sessions/{id}/events")))
    };
    let (mut connection, path) = match session.await {
        Ok(s) => s,
        Err(e) => {
            tally.error(e);
            tally.unfinished = events.len();
            return tally;
        }
    };
    for (k, event) in events.iter().enumerate() {
        let due = start + think * u32::try_from(k + 1).unwrap_or(u32::MAX);
        if due > deadline {
            tally.unfinished = events.len() - k;
            break;
        }
        tokio::time::sleep_until(due).await;
        match connection.post(&path, event).await {
            Ok((200, _)) => tally.latencies.push(due.elapsed()),
            Ok((status, body)) => tally.error(format!("event {k}: {status} {body}")),
            Err(e) => {
                tally.error(e);
                tally.unfinished = events.len() - k - 1;
                break;
            }
        }
    }
    tally
}

/// One closed-loop connection: conversation after conversation, each in a
/// new session, no think time, until `deadline`.
async fn closed_connection(
    addr: String,
    conversations: std::sync::Arc<Vec<Vec<String>>>,
    offset: usize,
    deadline: Instant,
) -> Tally {
    let mut tally = Tally::default();
    let mut connection = match Connection::open(&addr).await {
        Ok(c) => c,
        Err(e) => {
            tally.error(e);
            return tally;
        }
    };
    let mut round = offset;
    'outer: while Instant::now() < deadline {
        let Some(events) = conversations.get(round % conversations.len()) else {
            break;
        };
        round += 1;
        let path = match connection.create().await {
            Ok(id) => format!("/v1/sessions/{id}/events"),
            Err(e) => {
                tally.error(e);
                break;
            }
        };
        for event in events {
            if Instant::now() >= deadline {
                break 'outer;
            }
            let sent = Instant::now();
            match connection.post(&path, event).await {
                Ok((200, _)) => tally.latencies.push(sent.elapsed()),
                Ok((status, body)) => tally.error(format!("{status} {body}")),
                Err(e) => {
                    tally.error(e);
                    break 'outer;
                }
            }
        }
    }
    tally
}

async fn run(options: Options) -> Result<(), String> {
    let conversations = std::sync::Arc::new(conversations(&options.trace)?);
    let lengths: Vec<usize> = conversations.iter().map(Vec::len).collect();
    println!(
        "{} conversations of {lengths:?} events from {}; sync={}; load average {}",
        conversations.len(),
        options.trace.display(),
        options.sync,
        load_average()
    );
    let server = Server::start(&options).await?;
    println!("server pid {} on {}", server.pid, server.addr);
    // A warm-up session, so the RSS baseline includes the allocator's and
    // the store's first-use growth rather than charging it to the sessions.
    if let Some(first) = conversations.first() {
        let mut connection = Connection::open(&server.addr).await?;
        let id = connection.create().await?;
        for event in first {
            connection
                .post(&format!("/v1/sessions/{id}/events"), event)
                .await?;
        }
    }
    let (rss_before, _) = server.memory();
    let usage = Usage::start(&server).await;

    // Open loop: session i starts at i/N of the think time, so the sends
    // are spread evenly; the offered load is N / think events per second.
    let n = options.sessions;
    let begin = Instant::now() + Duration::from_millis(200);
    let deadline = begin + options.max;
    let mut tasks = JoinSet::new();
    for i in 0..n {
        let events = std::sync::Arc::new(
            conversations
                .get(i % conversations.len())
                .cloned()
                .unwrap_or_default(),
        );
        let offset = options.think.mul_f64(i as f64 / n.max(1) as f64);
        tasks.spawn(open_session(
            server.addr.clone(),
            events,
            begin + offset,
            options.think,
            deadline,
        ));
    }
    let mut open = Tally::default();
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(t) => open.merge(t),
            Err(e) => open.error(e.to_string()),
        }
    }
    let elapsed = begin.elapsed();
    let (rss_after, peak) = server.memory();
    println!(
        "\nopen loop: {n} sessions, think {} ms, offered {:.0} events/s, {:.1} s",
        options.think.as_millis(),
        n as f64 / options.think.as_secs_f64().max(1e-3),
        elapsed.as_secs_f64()
    );
    open.report("open loop, scheduled send -> response");
    usage.report(&server).await;
    println!(
        "server RSS: {rss_before} KiB before, {rss_after} KiB after ({:.1} KiB per session), peak {peak} KiB",
        rss_after.saturating_sub(rss_before) as f64 / n.max(1) as f64
    );

    // Closed loop.
    let usage = Usage::start(&server).await;
    let deadline = Instant::now() + options.closed;
    let begin = Instant::now();
    let mut tasks = JoinSet::new();
    for c in 0..options.connections {
        tasks.spawn(closed_connection(
            server.addr.clone(),
            std::sync::Arc::clone(&conversations),
            c,
            deadline,
        ));
    }
    let mut closed = Tally::default();
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(t) => closed.merge(t),
            Err(e) => closed.error(e.to_string()),
        }
    }
    let elapsed = begin.elapsed().as_secs_f64();
    println!(
        "\nclosed loop: {} connections, {:.1} s, {:.0} events/s",
        options.connections,
        elapsed,
        closed.latencies.len() as f64 / elapsed.max(1e-3)
    );
    closed.report("closed loop, send -> response");
    usage.report(&server).await;
    server.stop().await;
    Ok(())
}

fn main() -> std::process::ExitCode {
    let outcome = Options::parse().and_then(|options| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?
            .block_on(run(options))
    });
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

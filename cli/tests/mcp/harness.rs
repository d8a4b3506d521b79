//! The parts of the MCP gateway tests, all real: the retail MCP server
//! (`retail_server.py`, the Python SDK) over a copy of the vendored
//! database, the built `turnstile mcp`, and two clients that run the same
//! steps — `client.py` (the official Python SDK) and [`rmcp_steps`] (the
//! Rust SDK) — writing the same JSON line per step.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation,
};
use rmcp::service::{RequestContext, RoleClient, RunningService};
use rmcp::{ClientHandler, ErrorData, ServiceExt};
use serde_json::{Value, json};

use crate::common::{copy_dir, http, root};

/// The side channel's bearer token in every test.
pub const TOKEN: &str = "s3cret-token";

/// A Python with the `mcp` package: `TURNSTILE_PYTHON`, or the project's
/// venv (`$CARGO_TARGET_DIR/venv` or `target/venv`, made by
/// `.ci/python-env.sh`). `None` (the caller skips, saying so) where there
/// is none; under CI one is required.
pub fn python() -> Option<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let candidate = std::env::var_os("TURNSTILE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("venv/bin/python"));
    let usable = Command::new(&candidate)
        .args(["-c", "import mcp"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !usable {
        assert!(
            std::env::var_os("CI").is_none(),
            "the MCP tests need Python with the `mcp` package in CI (.ci/run runs .ci/python-env.sh)"
        );
        eprintln!(
            "skipped: no Python with the `mcp` package (bash .ci/python-env.sh, or set TURNSTILE_PYTHON)"
        );
        return None;
    }
    Some(candidate)
}

/// One test's files: the database, the server's log of arrived calls, the
/// store, the token.
pub struct World {
    pub dir: tempfile::TempDir,
    pub python: PathBuf,
    pub db: PathBuf,
    pub log: PathBuf,
    pub store: PathBuf,
    pub token_file: PathBuf,
    /// The bundle the gateway enforces: the shipped retail bundle, or a
    /// copy of it ([`World::host_principal`]).
    pub bundle: PathBuf,
}

impl World {
    pub fn new() -> Option<World> {
        let python = python()?;
        let dir = tempfile::tempdir().unwrap();
        let compressed = std::fs::File::open(root().join("data/tau2/retail/db.json.zst")).unwrap();
        let mut text = Vec::new();
        ruzstd::decoding::StreamingDecoder::new(compressed)
            .unwrap()
            .read_to_end(&mut text)
            .unwrap();
        let db = dir.path().join("db.json");
        std::fs::write(&db, text).unwrap();
        let token_file = dir.path().join("token");
        std::fs::write(&token_file, TOKEN).unwrap();
        Some(World {
            log: dir.path().join("arrived.jsonl"),
            store: dir.path().join("sessions.db"),
            python,
            db,
            token_file,
            bundle: root().join("bundles/retail"),
            dir,
        })
    }

    /// The gateway enforces a copy of the retail bundle that counts the
    /// host's `principal` event as the user's words (`host_principal:
    /// true`).
    pub fn host_principal(mut self) -> World {
        let copy = self.dir.path().join("retail");
        copy_dir(&self.bundle, &copy);
        let manifest = copy.join("bundle.yaml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        std::fs::write(&manifest, format!("{text}host_principal: true\n")).unwrap();
        self.bundle = copy;
        self
    }

    fn server_script() -> String {
        root()
            .join("cli/tests/mcp/retail_server.py")
            .to_str()
            .unwrap()
            .to_owned()
    }

    /// The retail server's command over stdio.
    pub fn server_command(&self) -> Vec<String> {
        vec![
            self.python.to_str().unwrap().to_owned(),
            World::server_script(),
            "--db".into(),
            self.db.to_str().unwrap().into(),
            "--log".into(),
            self.log.to_str().unwrap().into(),
        ]
    }

    /// The retail server over streamable HTTP, ready.
    pub fn http_server(&self) -> Served {
        let port = free_port();
        let mut command = Command::new(&self.python);
        command
            .arg(World::server_script())
            .args(["--db", self.db.to_str().unwrap()])
            .args(["--log", self.log.to_str().unwrap()])
            .args(["--http", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let process = Process(command.spawn().unwrap());
        wait_for_port(port);
        process.with_url(format!("http://127.0.0.1:{port}/mcp"))
    }

    /// The tools whose calls reached the server, in order.
    pub fn arrived(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|line| {
                serde_json::from_str::<Value>(line).unwrap()["tool"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    /// `turnstile mcp`'s arguments: the retail bundle, this store, the
    /// side channel on `side` (a port), and `extra`.
    pub fn gateway_args(&self, side: u16, extra: &[&str]) -> Vec<String> {
        let mut args: Vec<String> = vec![
            "mcp".into(),
            "--bundle".into(),
            self.bundle.to_str().unwrap().into(),
            "--store".into(),
            self.store.to_str().unwrap().into(),
            "--side-channel".into(),
            format!("127.0.0.1:{side}"),
            "--token-file".into(),
            self.token_file.to_str().unwrap().into(),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args
    }

    /// A stdio gateway's command (for a client to start) in front of the
    /// stdio server.
    pub fn stdio_gateway(&self, side: u16, extra: &[&str]) -> Vec<String> {
        let mut command = vec![env!("CARGO_BIN_EXE_turnstile").to_owned()];
        command.extend(self.gateway_args(side, extra));
        command.push("--".into());
        command.extend(self.server_command());
        command
    }

    /// An HTTP gateway listening on `port` (0: any) in front of `upstream`
    /// (the stdio server when `None`), ready.
    pub fn http_gateway(
        &self,
        port: u16,
        side: u16,
        upstream: Option<&str>,
        extra: &[&str],
    ) -> Served {
        let mut command = Command::new(env!("CARGO_BIN_EXE_turnstile"));
        command
            .args(self.gateway_args(side, extra))
            .args(["--listen", &format!("127.0.0.1:{port}")]);
        match upstream {
            Some(url) => command.args(["--upstream", url]),
            None => command.arg("--").args(self.server_command()),
        };
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        Process(child).with_url(url)
    }

    /// The MCP session id of the one HTTP client the gateway has now (its
    /// handshake record beside the store, removed when the client ends
    /// the session).
    pub fn live_http_session(&self) -> String {
        let mut dir = self.store.as_os_str().to_owned();
        dir.push("-mcp");
        let names: Vec<String> = std::fs::read_dir(PathBuf::from(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        names[0].trim_end_matches(".json").to_owned()
    }

    /// The one conversation the store holds.
    pub fn stored_session(&self) -> String {
        let connection = rusqlite::Connection::open(&self.store).unwrap();
        let mut statement = connection.prepare("SELECT id FROM sessions").unwrap();
        let ids: Vec<String> = statement
            .query_map([], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(ids.len(), 1, "{ids:?}");
        ids[0].clone()
    }

    /// The verdicts the store holds for conversation `id`, in order.
    pub fn stored_verdicts(&self, id: &str) -> Vec<Value> {
        let connection = rusqlite::Connection::open(&self.store).unwrap();
        let mut statement = connection
            .prepare("SELECT verdict FROM events WHERE session = ?1 ORDER BY seq")
            .unwrap();
        statement
            .query_map([id], |row| row.get::<_, String>(0))
            .unwrap()
            .map(|text| serde_json::from_str(&text.unwrap()).unwrap())
            .collect()
    }

    /// Runs `steps` with the Python client against `gateway`, answering
    /// elicitations with `answer`: one JSON value per output line.
    pub fn python_steps(
        &self,
        gateway: &Gateway,
        side: u16,
        steps: &[Value],
        answer: Answer,
    ) -> Vec<Value> {
        let steps_file = self.dir.path().join("steps.json");
        std::fs::write(&steps_file, serde_json::to_vec(steps).unwrap()).unwrap();
        let mut command = Command::new(&self.python);
        command
            .arg(root().join("cli/tests/mcp/client.py"))
            .args(["--steps", steps_file.to_str().unwrap()])
            .args(["--elicitation", answer.name()])
            .args(["--side-channel", &format!("http://127.0.0.1:{side}")])
            .args(["--token", TOKEN]);
        match gateway {
            Gateway::Url(url) => command.args(["--url", url]),
            Gateway::Stdio {
                command: words,
                session,
            } => command.args(["--session", session]).arg("--").args(words),
        };
        let out = command.stderr(Stdio::inherit()).output().unwrap();
        assert!(out.status.success(), "the Python client failed");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

/// How a client reaches the gateway.
pub enum Gateway {
    /// It starts the gateway itself: this command, writing `session`.
    Stdio {
        command: Vec<String>,
        session: String,
    },
    /// A gateway listening here.
    Url(String),
}

/// What a client answers to an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Accept,
    Decline,
    Cancel,
    /// The client does not advertise elicitation.
    Unsupported,
}

impl Answer {
    fn name(self) -> &'static str {
        match self {
            Answer::Accept => "accept",
            Answer::Decline => "decline",
            Answer::Cancel => "cancel",
            Answer::Unsupported => "none",
        }
    }
}

/// A child process killed (SIGKILL) when dropped, and the URL it serves.
pub struct Process(pub Child);

pub struct Served {
    pub process: Process,
    pub url: String,
}

impl Process {
    fn with_url(self, url: String) -> Served {
        Served { process: self, url }
    }

    /// SIGKILL, then reap.
    pub fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A port free now (bound and released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_for_port(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Posts `events` to the side channel on `side` for conversation `session`.
pub fn tell(side: u16, session: &str, events: &Value) -> Value {
    let (status, body) = http(
        &format!("127.0.0.1:{side}"),
        "POST",
        &format!("/v1/sessions/{session}/events"),
        Some(&events.to_string()),
        Some(TOKEN),
    );
    json!({ "status": status, "told": serde_json::from_str::<Value>(&body).unwrap() })
}

/// The rmcp client's handler: answers elicitations with `answer` and
/// notes each.
#[derive(Clone)]
pub struct Answering {
    answer: Answer,
    pub seen: Arc<Mutex<Vec<Value>>>,
}

impl Answering {
    pub fn new(answer: Answer) -> Answering {
        Answering {
            answer,
            seen: Arc::default(),
        }
    }
}

impl ClientHandler for Answering {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.answer == Answer::Unsupported {
            ClientCapabilities::default()
        } else {
            ClientCapabilities::builder().enable_elicitation().build()
        };
        ClientConfig::new(capabilities, Implementation::new("rmcp-test-client", "1"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            panic!("the gateway asked for a URL elicitation")
        };
        self.seen.lock().unwrap().push(json!({
            "elicitation": message,
            "schema": serde_json::to_value(&requested_schema).unwrap(),
        }));
        let action = match self.answer {
            Answer::Accept => ElicitationAction::Accept,
            Answer::Decline | Answer::Unsupported => ElicitationAction::Decline,
            Answer::Cancel => ElicitationAction::Cancel,
        };
        let accepted = self.answer == Answer::Accept;
        let mut result = ElicitResult::new(action);
        if accepted {
            result = result.with_content(json!({}));
        }
        Ok(result)
    }
}

pub type RmcpClient = RunningService<RoleClient, Answering>;

/// An rmcp client that starts the gateway `command` over stdio.
pub async fn rmcp_stdio(command: &[String], handler: Answering) -> (RmcpClient, u32) {
    let mut process = tokio::process::Command::new(&command[0]);
    process.args(&command[1..]);
    let child = rmcp::transport::TokioChildProcess::new(process).unwrap();
    let pid = child.id().unwrap();
    (handler.serve(child).await.unwrap(), pid)
}

/// An rmcp client of the HTTP gateway at `url`.
pub async fn rmcp_http(url: &str, handler: Answering) -> RmcpClient {
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url);
    handler.serve(transport).await.unwrap()
}

/// Runs `steps` as the Python client does, with the rmcp `client`; tell
/// steps go to the side channel on `side` for `session`.
pub async fn rmcp_steps(
    client: &RmcpClient,
    side: u16,
    session: &dyn Fn() -> String,
    steps: &[Value],
) -> Vec<Value> {
    let mut lines = Vec::new();
    for step in steps {
        let before = client.service().seen.lock().unwrap().len();
        let line = if step.get("list").is_some() {
            let mut names: Vec<String> = client
                .list_all_tools()
                .await
                .unwrap()
                .into_iter()
                .map(|t| t.name.into_owned())
                .collect();
            names.sort();
            json!({ "tools": names })
        } else if let Some(events) = step.get("tell") {
            let (side, id, events) = (side, session(), events.clone());
            tokio::task::spawn_blocking(move || tell(side, &id, &events))
                .await
                .unwrap()
        } else {
            let mut request = CallToolRequestParams::new(step["call"].as_str().unwrap().to_owned());
            request.arguments = step["args"].as_object().cloned();
            let result = client.call_tool(request).await.unwrap();
            let text: Vec<String> = result
                .content
                .iter()
                .filter_map(|b| b.as_text().map(|t| t.text.clone()))
                .collect();
            json!({
                "error": result.is_error == Some(true),
                "text": text.join("\n"),
                "verdict": result.meta.as_ref().and_then(|m| m.0.get("turnstile/verdict")).cloned(),
            })
        };
        lines.extend(
            client.service().seen.lock().unwrap()[before..]
                .iter()
                .cloned(),
        );
        lines.push(line);
    }
    lines
}

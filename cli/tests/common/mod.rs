//! Shared by the CLI's tests: start `turnstile serve` on a loopback port
//! and speak just enough HTTP/1.1 to it (one request per connection); run
//! `turnstile gate` over some input; run any command and read what it
//! printed; copy a bundle to change it; find the shipped bundles and a
//! headless browser.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `turnstile <args>` run from the repository's root, without colours.
pub fn turnstile(args: &[&str]) -> std::process::Output {
    turnstile_in(&root(), args)
}

/// `turnstile <args>` run from `dir` (so it prints paths relative to it).
pub fn turnstile_in(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_turnstile"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run turnstile")
}

/// Standard output, then standard error, as text.
pub fn printed(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Copies the directory `from` (recursively) to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// The shipped bundles: every directory of `bundles/` with a manifest.
pub fn shipped_bundles() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(root().join("bundles"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("bundle.yaml").is_file())
        .collect();
    found.sort();
    found
}

/// A headless Chromium, or `None` (the caller skips its browser checks,
/// saying so) where none is installed; under CI one is required.
pub fn chromium_unless_ci() -> Option<&'static str> {
    let found = chromium();
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is required in CI (.ci/run installs it)"
        );
        eprintln!("skipped: chromium is not installed (apt-get install chromium)");
    }
    found
}

/// A headless Chromium to render report pages with, if one is installed.
pub fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

pub struct Server {
    pub child: Child,
    pub addr: String,
}

impl Server {
    /// Starts the server on port 0 and waits for the address it prints.
    pub fn start(store: &Path, extra: &[&str]) -> Server {
        Server::start_with(&root().join("bundles"), store, extra)
    }

    /// [`Server::start`] serving the bundles under `bundles`.
    pub fn start_with(bundles: &Path, store: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_turnstile"))
            .args([
                "serve",
                "--bundles",
                bundles.to_str().unwrap(),
                "--listen",
                "127.0.0.1:0",
                "--store",
                store.to_str().unwrap(),
            ])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        Server { child, addr }
    }

    pub fn request(&self, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        http(&self.addr, method, path, body, None)
    }

    /// SIGKILL, then reap.
    pub fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One request; returns the status and the body.
pub fn http(
    addr: &str,
    method: &str,
    path: &str,
    body: Option<&str>,
    token: Option<&str>,
) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let body = body.unwrap_or("");
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) before reading a large body: ignore a
    // broken pipe here and read what it said.
    let _ = stream.write_all(body.as_bytes());
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response).into_owned();
    let (head, rest) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    (
        status,
        if chunked {
            dechunk(rest)
        } else {
            rest.to_owned()
        },
    )
}

fn dechunk(mut text: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = text.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        text = rest[size..].trim_start_matches("\r\n");
    }
    out
}

pub fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// `turnstile gate <bundle> --state <store> <extra>` over `input`: its exit
/// code, one verdict per output line, and its standard error.
pub fn gate(
    bundle: &Path,
    store: &Path,
    extra: &[&str],
    input: &[u8],
) -> (Option<i32>, Vec<serde_json::Value>, String) {
    let (code, stdout, stderr) = gate_output(bundle, store, extra, input);
    (code, stdout.lines().map(json).collect(), stderr)
}

/// [`gate`]'s exit code, standard output as written, and standard error.
pub fn gate_output(
    bundle: &Path,
    store: &Path,
    extra: &[&str],
    input: &[u8],
) -> (Option<i32>, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_turnstile"));
    command
        .arg("gate")
        .arg(bundle)
        .arg("--state")
        .arg(store)
        .args(extra);
    run(&mut command, input)
}

/// Runs `command` with `input` on its standard input: its exit code,
/// standard output and standard error.
pub fn run(command: &mut Command, input: &[u8]) -> (Option<i32>, String, String) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written from a thread: the gate answers while it reads.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

//! `turnstile serve`: the HTTP sidecar. Loads every bundle of a directory
//! at start, keeps sessions in the SQLite store (each event's verdict is
//! committed before it is answered) and serves the JSON API of `api.rs` on a
//! loopback address. This file owns start-up: options, bundle loading, the
//! listener and shutdown.

mod api;
mod metrics;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use turnstile_engine::check_bundle;
use turnstile_engine::session::{BundleRuntime, Enforcement};
use turnstile_judge::Judge;
use turnstile_store::{Durability, Store};

pub(crate) use api::carries_token;
pub use api::router;

pub struct ServeOptions {
    pub bundles: PathBuf,
    pub listen: SocketAddr,
    pub store: PathBuf,
    pub token_file: Option<PathBuf>,
    pub max_body: usize,
    pub timeout: Duration,
    pub durability: Durability,
    /// A session unused this long is dropped from memory (restored from the
    /// store on its next event).
    pub idle: Duration,
    /// Sessions kept in memory at most; past it the least recently used
    /// idle ones are dropped first.
    pub max_live: usize,
    /// `--mode`: enforce, or shadow (verdicts recorded, writes answered allow).
    pub mode: Enforcement,
    /// `--now`: the instant a `system` clock stands still at (tests).
    pub now: Option<turnstile_rules::DateTime>,
}

/// What every request shares.
pub struct App {
    pub bundles: BTreeMap<String, Arc<BundleRuntime>>,
    pub store: Store,
    pub judge: Arc<dyn Judge>,
    pub token: Option<String>,
    pub max_body: usize,
    pub sessions: api::Sessions,
    pub metrics: metrics::Metrics,
    /// `--mode`: how each verdict is answered (the store keeps it as decided).
    pub mode: Enforcement,
    /// `--now`, given to every session.
    pub now: Option<turnstile_rules::DateTime>,
}

/// 128 random bits, as 32 lowercase hex digits: unguessable session ids.
pub fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    // The operating system's generator does not fail on supported
    // platforms; if it ever did, the time and process id still give a
    // unique (if guessable) id rather than a panic.
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let seed = nanos ^ (u128::from(std::process::id()) << 96);
        bytes = seed.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Loads the bundles, builds the judge for them (`judge`), opens the
/// store and serves until Ctrl-C or SIGTERM.
pub fn run(
    options: &ServeOptions,
    judge: impl FnOnce(&[&turnstile_engine::CompiledBundle]) -> Result<Arc<dyn Judge>, String>,
) -> Result<(), String> {
    let bundles = load_bundles(&options.bundles)?;
    let compiled: Vec<&turnstile_engine::CompiledBundle> =
        bundles.values().map(|rt| rt.bundle.as_ref()).collect();
    let judge = judge(&compiled)?;
    let token = options.token_file.as_deref().map(read_token).transpose()?;
    let store = Store::open(&options.store, options.durability).map_err(|e| e.to_string())?;
    let app = Arc::new(App {
        bundles,
        store,
        judge,
        token,
        max_body: options.max_body,
        sessions: api::Sessions::default(),
        metrics: metrics::Metrics::default(),
        mode: options.mode,
        now: options.now,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
        let local = listener
            .local_addr()
            .map_err(|e| format!("cannot read the listening address: {e}"))?;
        // The first line of standard output, for scripts and tests that
        // asked for port 0.
        println!("listening on http://{local}");
        eprintln!(
            "turnstile serve: {} bundle(s): {}",
            app.bundles.len(),
            app.bundles.keys().cloned().collect::<Vec<_>>().join(", ")
        );
        // Eviction runs beside the requests, never in an event's path.
        let evicting = Arc::clone(&app);
        let (idle, max_live) = (options.idle, options.max_live);
        let period = (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(5));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            loop {
                tick.tick().await;
                let dropped = evicting.sessions.evict(idle, max_live).await;
                evicting.metrics.sessions_evicted(dropped);
            }
        });
        axum::serve(listener, router(app, options.timeout))
            .with_graceful_shutdown(shutdown())
            .await
            .map_err(|e| format!("the server failed: {e}"))
    })
}

/// The bearer token in `file` (surrounding whitespace trimmed; an empty
/// file is refused).
pub(crate) fn read_token(file: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read the token file {}: {e}", file.display()))?;
    let token = text.trim().to_owned();
    if token.is_empty() {
        return Err(format!("the token file {} is empty", file.display()));
    }
    Ok(token)
}

/// Resolves on Ctrl-C or SIGTERM.
pub(crate) async fn shutdown() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let terminate = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = interrupt => {}
            () = terminate => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

/// Every subdirectory of `dir` holding a `bundle.yaml`, compiled, by
/// directory name. Any bundle with problems stops the start.
fn load_bundles(dir: &Path) -> Result<BTreeMap<String, Arc<BundleRuntime>>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read the bundle directory {}: {e}", dir.display()))?;
    let mut bundles = BTreeMap::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let path = entry.path();
        if !path.join("bundle.yaml").is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let bundle = check_bundle(&path).map_err(|problems| {
            format!(
                "bundle {}: {} problem(s), first: {}",
                path.display(),
                problems.len(),
                problems
                    .iter()
                    .next()
                    .map(|p| p.message.clone())
                    .unwrap_or_default()
            )
        })?;
        let runtime = BundleRuntime::new(Arc::new(bundle))
            .map_err(|e| format!("bundle {}: {e}", path.display()))?;
        bundles.insert(name, runtime);
    }
    if bundles.is_empty() {
        return Err(format!(
            "no bundle in {}: expected subdirectories with a bundle.yaml",
            dir.display()
        ));
    }
    Ok(bundles)
}

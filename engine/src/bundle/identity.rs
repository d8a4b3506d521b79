//! A bundle's identity: a SHA-256 over what it says, not over where it
//! lies. The id is taken over the sorted `(relative path, raw bytes)` pairs
//! of the files the loader reads (the manifest, the domain, the flows and
//! any cited file), leaving out `tests/` and `*.md` (the policy text and
//! notes change nothing the gate decides). The same bundle checked as `.`
//! or as `bundles/retail` has one id, so a saved session, a store and a
//! judge cache follow the bundle wherever it is opened from.
//!
//! Ids of the older form — FNV-1a over the files' displayed paths and
//! texts, 16 hex digits, one per spelling of the directory — are computed
//! too ([`BundleIdentity::legacy`]), so a session or cache saved under one
//! of them is migrated to the content id rather than refused.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use sha2::{Digest, Sha256};

/// The files a bundle's id is taken over, as they are read.
#[derive(Debug, Default, Clone)]
pub(crate) struct IdentityFiles {
    /// Relative path (normalized, `/`-separated) to raw bytes.
    content: BTreeMap<String, Vec<u8>>,
    /// The files as the legacy id hashed them: the path as it was joined
    /// onto the bundle directory, and the text, in the order read.
    legacy: Vec<(String, Vec<u8>)>,
}

/// A bundle's content id and the ids older builds gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleIdentity {
    /// The SHA-256 content id, 64 lowercase hex digits.
    pub id: String,
    /// The FNV-1a ids earlier builds computed for this bundle's files under
    /// the spellings of its directory they could have been given (the
    /// directory's name, `.`, and the spelling used now).
    pub legacy: Vec<String>,
}

impl BundleIdentity {
    /// Whether `saved` names this bundle: its content id, or one of the ids
    /// an earlier build gave the same files.
    pub fn names(&self, saved: &str) -> bool {
        saved == self.id || self.legacy.iter().any(|l| l == saved)
    }
}

/// Whether an id was written by a build that hashed displayed paths
/// (16 hex digits of FNV-1a) rather than content (64 of SHA-256).
pub fn is_legacy_id(id: &str) -> bool {
    id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

impl IdentityFiles {
    /// Records a file the loader read: `written` is its path relative to
    /// the bundle directory as the manifest (or the loader) wrote it.
    pub(crate) fn add(&mut self, written: &str, bytes: &[u8]) {
        self.legacy.push((written.to_owned(), bytes.to_vec()));
        let relative = normalize(written);
        if counts(&relative) {
            self.content.insert(relative, bytes.to_vec());
        }
    }

    /// The id of the files recorded, with the legacy ids of the bundle in
    /// `dir` (the directory as it was given).
    pub(crate) fn identity(&self, dir: &Path) -> BundleIdentity {
        let mut hasher = Sha256::new();
        for (path, bytes) in &self.content {
            // Length-prefixed, so no two different file sets hash alike.
            hasher.update((path.len() as u64).to_le_bytes());
            hasher.update(path.as_bytes());
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        }
        let id = hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let mut legacy: Vec<String> = legacy_bases(dir)
            .iter()
            .map(|base| self.legacy_id(base))
            .collect();
        legacy.sort();
        legacy.dedup();
        BundleIdentity { id, legacy }
    }

    /// FNV-1a over each file's displayed path (`base` joined with the
    /// written path) and text, in the order read: the id builds before
    /// the content id gave the bundle. Cited files were never part of it.
    fn legacy_id(&self, base: &Path) -> String {
        const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
        const PRIME: u64 = 0x0100_0000_01b3;
        let mut hash = OFFSET;
        for (written, bytes) in &self.legacy {
            let display = base.join(written).display().to_string();
            for byte in display
                .bytes()
                .chain([0])
                .chain(bytes.iter().copied())
                .chain([0])
            {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(PRIME);
            }
        }
        format!("{hash:016x}")
    }

    /// Records a file a node cites: part of the content id (unless it is
    /// Markdown or a test), never of the legacy id.
    pub(crate) fn add_cited(&mut self, written: &str, bytes: &[u8]) {
        let relative = normalize(written);
        if counts(&relative) {
            self.content.insert(relative, bytes.to_vec());
        }
    }
}

/// Whether a file counts toward the id: not under `tests/`, not Markdown.
fn counts(relative: &str) -> bool {
    !(relative.starts_with("tests/") || relative.ends_with(".md"))
}

/// The path with `.` removed, `..` resolved where it can be, and `/`
/// between components: `./flows//a.yaml` and `flows/a.yaml` are one file.
fn normalize(written: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    for component in Path::new(written).components() {
        match component {
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                if parts.last().is_some_and(|p| p != "..") {
                    parts.pop();
                } else {
                    parts.push("..".to_owned());
                }
            }
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
        }
    }
    parts.join("/")
}

/// The directories earlier builds displayed a bundle's files relative to,
/// for each way the bundle directory could have been spelled: its parent as
/// given now, `.` (a bundle checked from inside), and its own name (a
/// bundle checked from its parent, or by an absolute path).
fn legacy_bases(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut bases = Vec::new();
    let parent = dir.parent().unwrap_or(dir);
    let given = dir.strip_prefix(parent).unwrap_or(dir);
    bases.push(given.to_path_buf());
    bases.push(Path::new(".").to_path_buf());
    if let Some(name) = std::fs::canonicalize(dir)
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_owned()))
    {
        bases.push(Path::new(&name).to_path_buf());
    }
    bases
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(entries: &[(&str, &str)]) -> IdentityFiles {
        let mut files = IdentityFiles::default();
        for (path, text) in entries {
            files.add(path, text.as_bytes());
        }
        files
    }

    #[test]
    fn the_id_is_the_content_not_the_spelling_or_order() {
        let a = files(&[
            ("bundle.yaml", "name: x"),
            ("flows/main.yaml", "flow: main"),
        ]);
        let b = files(&[
            ("./flows//main.yaml", "flow: main"),
            ("bundle.yaml", "name: x"),
        ]);
        let (a, b) = (
            a.identity(Path::new("bundles/x")),
            b.identity(Path::new(".")),
        );
        assert_eq!(a.id, b.id);
        assert_eq!(a.id.len(), 64);
        assert!(!is_legacy_id(&a.id));
    }

    #[test]
    fn bytes_paths_and_boundaries_change_the_id() {
        let base = files(&[("a.yaml", "xy")]).identity(Path::new("."));
        for other in [
            files(&[("a.yaml", "xz")]),
            files(&[("b.yaml", "xy")]),
            files(&[("a.yamlx", "y")]),
        ] {
            assert_ne!(other.identity(Path::new(".")).id, base.id);
        }
    }

    #[test]
    fn tests_and_markdown_do_not_count() {
        let mut with = files(&[("bundle.yaml", "name: x")]);
        with.add_cited("policy.md", b"the policy");
        with.add_cited("tests/case.yaml", b"a test");
        let without = files(&[("bundle.yaml", "name: x")]);
        assert_eq!(
            with.identity(Path::new(".")).id,
            without.identity(Path::new(".")).id
        );
        let mut cited = files(&[("bundle.yaml", "name: x")]);
        cited.add_cited("rates.csv", b"1,2");
        assert_ne!(
            cited.identity(Path::new(".")).id,
            without.identity(Path::new(".")).id
        );
    }

    #[test]
    fn legacy_ids_cover_the_directory_spellings_of_older_builds() {
        let f = files(&[("bundle.yaml", "name: x")]);
        let by_parent = f.identity(Path::new("bundles/retail"));
        let inside = f.identity(Path::new("."));
        // What older builds printed for `bundles/retail` is known either way.
        let old_by_parent = f.legacy_id(Path::new("retail"));
        assert!(by_parent.names(&old_by_parent));
        assert!(inside.names(&f.legacy_id(Path::new("."))));
        assert!(is_legacy_id(&old_by_parent));
        assert!(!by_parent.names("0123456789abcdef"));
    }
}

//! Canonical hashing of what a judge sees, so that identical questions on
//! identical slices map to identical cache and recording keys across runs and
//! machines.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::types::{JudgeRequest, Question, Turn};

/// Bumped whenever the hashed representation changes, so stale caches miss
/// instead of answering for a different question.
/// (It names the crate these hashes were first computed in; renaming it would
/// invalidate every existing cache and recording.)
const HASH_DOMAIN: &[u8] = b"turnstile-llm/slice/v1\n";

#[derive(Serialize)]
struct Hashed<'a> {
    question: &'a Question,
    bindings: &'a BTreeMap<String, String>,
    conversation: &'a [Turn],
}

/// Hex SHA-256 of the judged question, bindings and conversation slice.
///
/// Bundle hash, node id and policy excerpt are not included: they are keyed
/// separately (the excerpt belongs to the bundle, whose hash covers it).
#[must_use]
pub fn request_hash(request: &JudgeRequest) -> String {
    let hashed = Hashed {
        question: &request.question,
        bindings: &request.bindings,
        conversation: &request.conversation,
    };
    let mut hasher = Sha256::new();
    hasher.update(HASH_DOMAIN);
    // Serialising plain structs, enums, strings and a BTreeMap cannot fail and
    // is deterministic (field order is declaration order, maps are sorted).
    match serde_json::to_vec(&hashed) {
        Ok(bytes) => hasher.update(&bytes),
        Err(e) => hasher.update(e.to_string().as_bytes()),
    }
    hex(&hasher.finalize())
}

/// Lower-case hex, two digits per byte.
fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        // Writing to a String cannot fail.
        let _ = write!(s, "{b:02x}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Role;

    fn req(text: &str) -> JudgeRequest {
        JudgeRequest {
            bundle_hash: "b".into(),
            node_id: "n".into(),
            question: Question::Criterion {
                text: "c".into(),
                keywords: Vec::new(),
                said_by: Role::User,
                key_values: Vec::new(),
            },
            policy_excerpt: None,
            bindings: BTreeMap::from([("order".into(), "#W1".into())]),
            conversation: vec![Turn::new(3, Role::User, text)].into(),
        }
    }

    #[test]
    fn hash_is_stable_and_sensitive() {
        let a = request_hash(&req("yes"));
        assert_eq!(a, request_hash(&req("yes")));
        assert_ne!(a, request_hash(&req("no")));
        assert_eq!(a.len(), 64);
        let mut other_node = req("yes");
        other_node.node_id = "m".into();
        assert_eq!(a, request_hash(&other_node));
    }

    #[test]
    fn a_shared_slice_hashes_as_its_visible_turns() {
        // The key is a function of the turns shown, not of how they are
        // stored: a range of a longer shared list hashes as an owned copy.
        let turns = std::sync::Arc::new(vec![
            Turn::new(2, Role::Agent, "Cancel #W1?"),
            Turn::new(3, Role::User, "yes"),
            Turn::new(4, Role::User, "thanks"),
        ]);
        let mut shared = req("yes");
        shared.conversation = crate::types::Conversation::shared(&turns, 1..2);
        assert_eq!(request_hash(&shared), request_hash(&req("yes")));
        shared.conversation = crate::types::Conversation::shared(&turns, 1..3);
        assert_ne!(request_hash(&shared), request_hash(&req("yes")));
    }
}

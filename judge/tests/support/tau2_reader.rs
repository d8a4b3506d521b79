//! The reader as the tau2 bundles configure it: turns and replies read with
//! their words (`tau2_words.rs`), for the suites written against them.
#![allow(dead_code)] // each suite uses what it needs

use std::sync::{Arc, LazyLock};

use turnstile_judge::dialogue::{
    ActionWords, DomainWords, HandOverWords, Lexicon, Stance, reply_stance_in,
};
use turnstile_judge::{Role, Turn};

include!("tau2_words.rs");

static TAU2: LazyLock<Arc<Lexicon>> = LazyLock::new(|| Arc::new(Lexicon::new(&tau2_words())));

/// A turn read with the tau2 bundles' words.
pub fn turn(event: u32, role: Role, text: impl Into<String>) -> Turn {
    Turn::with_lexicon(event, role, text, TAU2.clone())
}

/// A reply's stance, read with the tau2 bundles' words.
pub fn stance(reply: &str) -> Stance {
    reply_stance_in(reply, &TAU2)
}

//! What the agent has asked the user to decide so far ([`AskedWords`]): the
//! words of every agent turn that asked for a decision. A negation or
//! retention in a user's reply that names only identifiers no request for a
//! decision named is about something else: "leave orders W9154975 and
//! W7284266 unchanged" does not take back a yes to cancelling W3289292.
//! Only identifiers decide it: which *described* thing ("keep the red
//! one") a clause is about is meaning, so such a clause still counts.

use std::collections::HashSet;

use super::tokens::{normalise, words};

/// How many first letters two forms of an action word share ("cancel",
/// "cancellation"; "modif-y", "modif-ication").
const ACTION_STEM_LEN: usize = 5;

/// The words of every agent turn that asked the user for a decision, in
/// the conversation so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AskedWords {
    words: HashSet<String>,
}

impl AskedWords {
    /// Adds the words of an agent turn that asked for a decision.
    pub fn add_turn(&mut self, text: &str) {
        self.words.extend(words(&normalise(text)));
    }

    /// Whether a request for a decision named this word.
    pub(crate) fn named(&self, word: &str) -> bool {
        self.words.contains(word)
    }

    /// Whether a request for a decision named this action, in any form
    /// ("cancel" for "cancellation", "exchange" for "exchanging"): a word
    /// sharing its first [`ACTION_STEM_LEN`] letters.
    pub(crate) fn names_action(&self, action: &str) -> bool {
        let stem = action.get(..ACTION_STEM_LEN).unwrap_or(action);
        self.words.iter().any(|w| w.starts_with(stem))
    }

    /// Whether a clause's identifiers are all ones no request for a
    /// decision named (and it has at least one): the clause is about
    /// something else than any action the user was asked about.
    pub(crate) fn only_other_identifiers(&self, clause: &[String]) -> bool {
        let mut ids = clause.iter().filter(|w| is_identifier(w)).peekable();
        ids.peek().is_some() && ids.all(|id| !self.words.contains(id))
    }
}

/// A word that identifies one thing: letters mixed with digits
/// (`w5416052`), or five or more digits (`7453605304`).
fn is_identifier(word: &str) -> bool {
    let digits = word.chars().filter(char::is_ascii_digit).count();
    let letters = word.chars().any(char::is_alphabetic);
    (letters && digits > 0) || (digits >= 5 && !letters)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<String> {
        words(&normalise(text))
    }

    #[test]
    fn identifiers_no_request_named_are_other_things() {
        let mut asked = AskedWords::default();
        asked.add_turn("Shall I cancel order #W3289292?");
        assert!(asked.only_other_identifiers(&tokens("leave order W9154975 unchanged")));
        assert!(!asked.only_other_identifiers(&tokens("leave order W3289292 unchanged")));
        assert!(!asked.only_other_identifiers(&tokens("leave W3289292 and W9154975 unchanged")));
        assert!(!asked.only_other_identifiers(&tokens("leave it unchanged")));
    }
}

//! The harness of the reader's blind consent suites
//! (`blind_consent_classes.rs`, `blind_consent_found.rs`): a domain's words,
//! a conversation slice with the values the summary must name, and whether
//! the reader takes it as consent.

use std::sync::Arc;

use turnstile_judge::dialogue::{ActionWords, DomainWords, Lexicon, consent};
use turnstile_judge::{Role, Turn};

/// A domain: the words its bundle declares for its actions.
pub struct Domain {
    pub name: &'static str,
    pub action_words: &'static [&'static str],
}

/// One conversation: who said what, the values the summary must name, and
/// whether the user consented to the write they identify.
pub struct Case {
    pub domain: &'static Domain,
    pub turns: &'static [(Role, &'static str)],
    pub keys: &'static [&'static str],
    pub consent: bool,
}

/// Whether the reader takes the slice as consent to the keyed action, read
/// with the domain's words as its bundle would give them.
fn reads_as_consent(case: &Case) -> bool {
    let words = DomainWords {
        actions: vec![ActionWords {
            words: case
                .domain
                .action_words
                .iter()
                .map(|w| (*w).to_owned())
                .collect(),
            takes_away: false,
            takes_amount: false,
        }],
        ..DomainWords::default()
    };
    let lexicon = Arc::new(Lexicon::new(&words));
    let turns: Vec<Turn> = case
        .turns
        .iter()
        .zip(1u32..)
        .map(|((role, text), event)| Turn::with_lexicon(event, *role, *text, lexicon.clone()))
        .collect();
    consent(&turns, case.keys).is_given()
}

/// Every case of a class decided as expected, else the list of the others.
pub fn check(class: &str, cases: &[Case]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter(|case| reads_as_consent(case) != case.consent)
        .map(|case| {
            format!(
                "[{}] expected {}: {:?}",
                case.domain.name,
                if case.consent {
                    "consent"
                } else {
                    "no consent"
                },
                case.turns.iter().map(|(_, t)| *t).collect::<Vec<_>>()
            )
        })
        .collect();
    println!(
        "{class}: {}/{} right",
        cases.len() - wrong.len(),
        cases.len()
    );
    assert!(wrong.is_empty(), "{class}:\n{}", wrong.join("\n"));
}

//! The domain's words for the dialogue reader, compiled once per bundle into
//! the [`Lexicon`] its conversations' turns are read with: each agent-side
//! write tool's action words (declared, or the verb its name opens with),
//! the hand-over tool's, the nouns for each entity and the enum literals;
//! and the bundle's phrases, the strings of several words it knows.

use std::sync::Arc;

use turnstile_judge::dialogue::{ActionWords, DomainWords, HandOverWords, Lexicon, ReadValue};
use turnstile_rules::{Interner, Symbol};

use super::domain::record_nouns;
use crate::bundle::model::{DomainFile, Side, ToolDef, ToolKind};
use crate::diag::{ProblemKind, RawProblem};
use crate::source::FileId;

/// The reader's lexicon for a domain.
pub(crate) fn compile_words(domain: &DomainFile) -> Arc<Lexicon> {
    Arc::new(Lexicon::new(&domain_words(domain)))
}

/// The most words a phrase of the bundle may have to be read as one (a
/// turn names no longer value: the extractor's limit too).
pub(crate) const MAX_PHRASE_TOKENS: usize = 8;

/// The bundle's phrases ([`CompiledBundle::phrases`]): every string it
/// interned that reads as two to [`MAX_PHRASE_TOKENS`] words, indexed by
/// each of their words.
///
/// [`CompiledBundle::phrases`]: crate::compile::CompiledBundle::phrases
#[derive(Clone, Debug, Default)]
pub struct Phrases {
    phrases: Vec<(Symbol, ReadValue)>,
    by_word: hashbrown::HashMap<String, Vec<usize>>,
}

impl Phrases {
    /// The phrases of the strings `interner` holds.
    pub(crate) fn of(interner: &Interner) -> Phrases {
        let mut phrases = Phrases::default();
        for index in 0..interner.len() {
            let Ok(raw) = u32::try_from(index) else {
                break;
            };
            phrases.add(Symbol(raw), ReadValue::new(interner.resolve(Symbol(raw))));
        }
        phrases
    }

    /// Adds the string `symbol`, read as `read`, if it is a phrase (two to
    /// [`MAX_PHRASE_TOKENS`] words).
    pub fn add(&mut self, symbol: Symbol, read: ReadValue) {
        if read.words() < 2 || read.words() > MAX_PHRASE_TOKENS {
            return;
        }
        let at = self.phrases.len();
        for word in read.word_list() {
            let positions = self.by_word.entry(word.to_owned()).or_default();
            if positions.last() != Some(&at) {
                positions.push(at);
            }
        }
        self.phrases.push((symbol, read));
    }

    /// The phrases holding `value`'s words in a row, other than `value`
    /// itself, each with where they start in it: `(phrase, offset)`.
    pub fn containing(&self, symbol: Symbol, value: &ReadValue) -> Vec<(usize, usize)> {
        let Some(first) = value.first_word() else {
            return Vec::new();
        };
        self.by_word
            .get(first)
            .into_iter()
            .flatten()
            .filter_map(|&at| {
                let (phrase_symbol, phrase) = self.phrases.get(at)?;
                if *phrase_symbol == symbol {
                    return None;
                }
                Some((at, value.offset_in(phrase)?))
            })
            .collect()
    }

    /// The phrase at `at` ([`Phrases::containing`]).
    pub fn get(&self, at: usize) -> Option<&ReadValue> {
        self.phrases.get(at).map(|(_, read)| read)
    }
}

/// The words a domain gives the reader (see [`DomainWords`]).
pub(crate) fn domain_words(domain: &DomainFile) -> DomainWords {
    let actions = domain
        .tools
        .iter()
        .filter(|tool| *tool.kind.value() == ToolKind::Write && *tool.side.value() == Side::Agent)
        .map(|tool| ActionWords {
            words: action_words(tool),
            takes_away: tool.takes_away,
            takes_amount: tool
                .params
                .values()
                .any(|kind| kind.value().trim() == "amount"),
        })
        .collect();
    let hand_over = domain
        .tools
        .iter()
        .find(|tool| !tool.hands_over.is_empty())
        .map(|tool| HandOverWords {
            words: action_words(tool),
            people: tool.hands_over.clone(),
        });
    let record_nouns = domain
        .entities
        .iter()
        .flat_map(|(name, entity)| record_nouns(name, entity.nouns.as_deref()))
        .collect();
    let values = domain
        .enums
        .values()
        .flat_map(|values| values.value().iter().cloned())
        .collect();
    DomainWords {
        actions,
        hand_over,
        record_nouns,
        values,
    }
}

/// A tool's words for its action: those it declares, or the verb its name
/// opens with (`freeze_card`: freeze; the reader adds the inflections).
pub(crate) fn action_words(tool: &ToolDef) -> Vec<String> {
    match &tool.action_words {
        Some(words) => words.iter().map(|w| w.value().clone()).collect(),
        None => tool
            .name
            .value()
            .split('_')
            .find(|part| !part.is_empty())
            .map(|verb| vec![verb.to_owned()])
            .unwrap_or_default(),
    }
}

/// The confirmation templates that name none of their tool's action words
/// (in any form the reader knows): the gate asks that question on a
/// `confirm`, and a yes to it names no action of the tool, so it confirms
/// no `confirmed(...)` of the tool. One warning each, at the template.
pub(crate) fn silent_confirmations(
    (file, domain): &(FileId, DomainFile),
    lexicon: &Lexicon,
) -> Vec<RawProblem> {
    let mut found = Vec::new();
    for tool in &domain.tools {
        let Some(template) = &tool.confirmation else {
            continue;
        };
        let words = action_words(tool);
        let own = words
            .iter()
            .fold(0, |bits, w| bits | lexicon.action_bits(w));
        if own == 0 {
            // A read tool, a user-side one, or past the actions the
            // lexicon tells apart: nothing to compare.
            continue;
        }
        let names_it =
            template_words(template.value()).any(|word| lexicon.action_bits(word) & own != 0);
        if !names_it {
            found.push(
                RawProblem::new(
                    ProblemKind::SilentConfirmation,
                    Some(template.loc(*file)),
                    format!(
                        "the confirmation of `{}` names none of its action words ({}): a yes to it, as the gate asks it, confirms nothing",
                        tool.name.value(),
                        words.join(", ")
                    ),
                )
                .label("asks with no action word")
                .help("word the template with one of the action words, or add its verb to the tool's `action_words`"),
            );
        }
    }
    found
}

/// The words of a confirmation template outside its `{placeholders}`.
fn template_words(template: &str) -> impl Iterator<Item = &str> {
    template
        .split(['{', '}'])
        .step_by(2)
        .flat_map(|text| text.split(|c: char| !c.is_alphabetic()))
        .filter(|word| !word.is_empty())
}

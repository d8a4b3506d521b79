//! The domain's words for the dialogue reader, compiled once per bundle into
//! the [`Lexicon`] its conversations' turns are read with: each agent-side
//! write tool's action words (declared, or the verb its name opens with),
//! the hand-over tool's, the nouns for each entity and the enum literals.

use std::sync::Arc;

use turnstile_judge::dialogue::{ActionWords, DomainWords, HandOverWords, Lexicon};

use crate::bundle::model::{DomainFile, Side, ToolDef, ToolKind};

/// The reader's lexicon for a domain.
pub(crate) fn compile_words(domain: &DomainFile) -> Arc<Lexicon> {
    Arc::new(Lexicon::new(&domain_words(domain)))
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
        .flat_map(|(name, entity)| match &entity.nouns {
            Some(nouns) => nouns.clone(),
            None if !name.contains('_') => vec![name.clone()],
            None => Vec::new(),
        })
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

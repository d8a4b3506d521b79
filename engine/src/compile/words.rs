//! The domain's words for the dialogue reader: each agent-side write tool's
//! action words (declared, or every inflection of the verb its name opens
//! with) and
//! the domain's `dialogue` lists, compiled once per bundle into the
//! [`Lexicon`] its conversations' turns are read with.

use std::sync::Arc;

use turnstile_judge::dialogue::{DomainWords, Lexicon, inflections};

use crate::bundle::model::{DomainFile, Side, ToolDef, ToolKind};

/// The reader's lexicon for a domain.
pub(crate) fn compile_words(domain: &DomainFile) -> Arc<Lexicon> {
    Arc::new(Lexicon::new(&domain_words(domain)))
}

/// The words a domain gives the reader (see [`DomainWords`]).
pub(crate) fn domain_words(domain: &DomainFile) -> DomainWords {
    let lists = &domain.dialogue;
    let mut action_words: Vec<String> = domain
        .tools
        .iter()
        .filter(|tool| *tool.kind.value() == ToolKind::Write && *tool.side.value() == Side::Agent)
        .flat_map(action_words)
        .collect();
    action_words.extend(lists.action_words.iter().cloned());
    DomainWords {
        action_words,
        action_stems: lists.action_stems.clone(),
        action_nouns: lists.action_nouns.clone(),
        decision_labels: lists.decision_labels.clone(),
        completions: lists.completions.clone(),
        interjection_followers: lists.interjection_followers.clone(),
        object_words: lists.object_words.clone(),
        record_nouns: lists.record_nouns.clone(),
        removal_actions: lists.removal_actions.clone(),
        hand_over_stems: lists.hand_over_stems.clone(),
        hand_over_people: lists.hand_over_people.clone(),
        go_ahead: lists.go_ahead.clone(),
        neutral_negations: lists.neutral_negations.clone(),
        state_descriptions: lists.state_descriptions.clone(),
        new_topics: lists.new_topics.clone(),
    }
}

/// A write tool's words for its action: those it declares, or every
/// inflection of the verb its name opens with (`freeze_card`: freeze,
/// freezes, freezing, froze, frozen).
pub(crate) fn action_words(tool: &ToolDef) -> Vec<String> {
    match &tool.action_words {
        Some(words) => words.iter().map(|w| w.value().to_lowercase()).collect(),
        None => tool
            .name
            .value()
            .split('_')
            .find(|part| !part.is_empty())
            .map(inflections)
            .unwrap_or_default(),
    }
}

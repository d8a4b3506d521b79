//! Keyword decisions: classification (the branch whose keywords and label
//! occur most often in the user's turns) and criteria the bundle gave
//! keywords for (the last turn of the named speaker that says one).

use crate::types::{Branch, Judgement, Role, Turn, Verdict};

use super::text::{count_phrase, normalise, words};

/// A criterion the bundle gave keywords for: satisfied by the last turn of
/// `said_by` in the slice that contains one of them (whole word sequences).
pub(super) fn judge_by_keywords(
    keywords: &[String],
    said_by: Role,
    conversation: &[Turn],
) -> Judgement {
    let who = said_by.as_str();
    let terms: Vec<Vec<String>> = keywords
        .iter()
        .map(|k| words(&normalise(k)))
        .filter(|t| !t.is_empty())
        .collect();
    if !conversation.iter().any(|t| t.role == said_by) {
        return Judgement::new(Verdict::NotSatisfied, format!("no {who} turn in the slice"));
    }
    let hit = conversation
        .iter()
        .rev()
        .filter(|t| t.role == said_by)
        .find_map(|turn| {
            let tokens = words(&normalise(&turn.text));
            let term = terms.iter().find(|t| count_phrase(&tokens, t) > 0)?;
            Some((turn.event_index, term.join(" ")))
        });
    match hit {
        Some((evidence_event, term)) => Judgement::new(
            Verdict::Satisfied { evidence_event },
            format!("the {who} said `{term}` at event {evidence_event}"),
        ),
        None => Judgement::new(
            Verdict::NotSatisfied,
            format!("no {who} turn in the slice contains one of the criterion's keywords"),
        ),
    }
}

/// The branch whose terms occur most often in the user's turns, with the
/// first user turn that named one as evidence; a tie or no match is unknown.
pub(super) fn classify(branches: &[Branch], conversation: &[Turn]) -> Judgement {
    let user_turns: Vec<(&Turn, Vec<String>)> = conversation
        .iter()
        .filter(|t| t.role == Role::User)
        .map(|t| (t, words(&normalise(&t.text))))
        .collect();
    let mut scored: Vec<(usize, &str, Option<u32>)> = Vec::with_capacity(branches.len());
    for branch in branches {
        let mut terms: Vec<Vec<String>> = branch
            .keywords
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(branch.label.as_str()))
            .map(|t| words(&normalise(&t.replace('_', " "))))
            .filter(|t| !t.is_empty())
            .collect();
        // The label is usually also a keyword; count each term once.
        terms.sort();
        terms.dedup();
        let mut score = 0;
        let mut first = None;
        for (turn, tokens) in &user_turns {
            let n: usize = terms.iter().map(|t| count_phrase(tokens, t)).sum();
            if n > 0 && first.is_none() {
                first = Some(turn.event_index);
            }
            score += n;
        }
        scored.push((score, branch.label.as_str(), first));
    }
    let best = scored.iter().map(|s| s.0).max().unwrap_or(0);
    let winners: Vec<_> = scored.iter().filter(|s| s.0 == best).collect();
    match winners.as_slice() {
        _ if best == 0 => Judgement::unknown("no branch keyword occurs in the user's turns"),
        [(score, label, Some(evidence_event))] => Judgement::new(
            Verdict::Chosen {
                label: (*label).to_owned(),
                evidence_event: *evidence_event,
            },
            format!("{score} keyword match(es) for `{label}`"),
        ),
        _ => Judgement::unknown(format!(
            "tie between branches {}",
            winners.iter().map(|w| w.1).collect::<Vec<_>>().join(", ")
        )),
    }
}

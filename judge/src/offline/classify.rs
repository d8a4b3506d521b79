//! Keyword decisions: classification (the branch whose declared keywords
//! occur most often, asserted, in the user's turns) and criteria the bundle
//! gave keywords for (the last turn of the named speaker that asserts one).
//! Occurrences are counted as [`count_asserted`](crate::dialogue::count_asserted) does, so a negated keyword ("it's
//! not a mistake") does not count.

use crate::dialogue::{Keyword, keyword_form};
use crate::types::{Branch, Judgement, Role, Turn, Verdict};

/// A criterion the bundle gave keywords for: satisfied by the last turn of
/// `said_by` in the slice that contains one of them (whole word sequences).
pub(super) fn judge_by_keywords(
    keywords: &[String],
    said_by: Role,
    conversation: &[Turn],
) -> Judgement {
    let who = said_by.as_str();
    if !conversation.iter().any(|t| t.role == said_by) {
        return Judgement::new(Verdict::NotSatisfied, format!("no {who} turn in the slice"));
    }
    let parsed: Vec<(Keyword, &String)> = keywords.iter().map(|k| (Keyword::new(k), k)).collect();
    let hit = conversation
        .iter()
        .rev()
        .filter(|t| t.role == said_by)
        .find_map(|turn| {
            let sentences = turn.sentences();
            let (_, term) = parsed.iter().find(|(k, _)| k.count_in(sentences) > 0)?;
            Some((turn.event_index, term.trim().to_owned()))
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

/// The branch whose declared keywords occur most often, asserted, in the
/// user's turns, with the first user turn that asserted one as evidence; a tie
/// or no match is unknown. A branch's label is not a keyword.
pub(super) fn classify(branches: &[Branch], conversation: &[Turn]) -> Judgement {
    let user_turns: Vec<&Turn> = conversation
        .iter()
        .filter(|t| t.role == Role::User)
        .collect();
    let mut scored: Vec<(usize, &str, Option<u32>)> = Vec::with_capacity(branches.len());
    for branch in branches {
        let mut terms: Vec<String> = branch
            .keywords
            .iter()
            .map(|k| keyword_form(k))
            .filter(|k| !k.is_empty())
            .collect();
        // A keyword declared twice (in any spelling) counts once.
        terms.sort();
        terms.dedup();
        let terms: Vec<Keyword> = terms.iter().map(|t| Keyword::new(t)).collect();
        let mut score = 0;
        let mut first = None;
        for turn in &user_turns {
            let sentences = turn.sentences();
            let n: usize = terms.iter().map(|t| t.count_in(sentences)).sum();
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

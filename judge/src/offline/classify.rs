//! Keyword decisions: classification (the branch whose declared keywords
//! occur most often, asserted, in the user's turns) and criteria the bundle
//! gave keywords for (the last turn of the named speaker that asserts one).
//! Occurrences are counted as [`count_asserted`](crate::dialogue::count_asserted) does, so a negated keyword ("it's
//! not a mistake") does not count.

use std::ops::Range;

use crate::dialogue::{Keyword, accepted_actions, keyword_form};
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

/// The branch the user asked for. A yes to the agent's request for a
/// decision on an action only one branch leads to asks for that branch
/// ([`accepted_actions`], [`Branch::actions`]): the branch with the most
/// such yeses wins. Without one (or between branches as often accepted),
/// the branch whose declared keywords occur most often, asserted, in the
/// user's turns; a tie or no match is unknown. The evidence is the first
/// user turn that asserted one of the winner's keywords, or else its first
/// yes. A branch's label is not a keyword.
pub(super) fn classify(branches: &[Branch], conversation: &[Turn]) -> Judgement {
    let accepted = accepted_branches(branches, conversation);
    let user_turns: Vec<&Turn> = conversation
        .iter()
        .filter(|t| t.role == Role::User)
        .collect();
    let keywords: Vec<Vec<Keyword>> = branches
        .iter()
        .map(|branch| {
            let mut terms: Vec<String> = branch
                .keywords
                .iter()
                .map(|k| keyword_form(k))
                .filter(|k| !k.is_empty())
                .collect();
            // A keyword declared twice (in any spelling) counts once.
            terms.sort();
            terms.dedup();
            terms.iter().map(|t| Keyword::new(t)).collect()
        })
        .collect();
    let mut scores = vec![(0usize, None); branches.len()];
    for turn in &user_turns {
        let sentences = turn.sentences();
        // Every branch's occurrences in the turn: (branch, clause, words).
        let found: Vec<(usize, usize, Range<usize>)> = keywords
            .iter()
            .enumerate()
            .flat_map(|(branch, terms)| {
                terms.iter().flat_map(move |term| {
                    term.occurrences_in(sentences)
                        .map(move |(clause, words)| (branch, clause, words))
                })
            })
            .collect();
        for (branch, clause, words) in &found {
            if shadowed(*branch, *clause, words, &found) {
                continue;
            }
            if let Some((score, first)) = scores.get_mut(*branch) {
                *score += 1;
                first.get_or_insert(turn.event_index);
            }
        }
    }
    let scored: Vec<((usize, usize), &str, Option<u32>)> = branches
        .iter()
        .zip(&scores)
        .zip(&accepted)
        .map(|((branch, (score, first)), (yeses, first_yes))| {
            // The user's own words for the request, where there are some,
            // are the better evidence than their yes to it.
            (
                (*yeses, *score),
                branch.label.as_str(),
                first.or(*first_yes),
            )
        })
        .collect();
    let best = scored.iter().map(|s| s.0).max().unwrap_or((0, 0));
    let winners: Vec<_> = scored.iter().filter(|s| s.0 == best).collect();
    match winners.as_slice() {
        _ if best == (0, 0) => Judgement::unknown("no branch keyword occurs in the user's turns"),
        [((yeses, score), label, Some(evidence_event))] => Judgement::new(
            Verdict::Chosen {
                label: (*label).to_owned(),
                evidence_event: *evidence_event,
            },
            if *score > 0 {
                format!("{score} keyword match(es) for `{label}`")
            } else {
                format!("the user accepted {yeses} request(s) for `{label}`")
            },
        ),
        _ => Judgement::unknown(format!(
            "tie between branches {}",
            winners.iter().map(|w| w.1).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// Per branch: how many of the user's yeses accepted an action only it
/// leads to, and the first such yes.
fn accepted_branches(branches: &[Branch], conversation: &[Turn]) -> Vec<(usize, Option<u32>)> {
    let mut counts = vec![(0, None); branches.len()];
    let Some(lexicon) = conversation.first().map(Turn::lexicon) else {
        return counts;
    };
    let bits: Vec<u16> = branches
        .iter()
        .map(|b| {
            b.actions
                .iter()
                .fold(0, |bits, w| bits | lexicon.action_bits(w))
        })
        .collect();
    if bits.iter().all(|&b| b == 0) {
        return counts;
    }
    for (event, accepted) in accepted_actions(conversation) {
        let leads: Vec<usize> = (0..branches.len())
            .filter(|&i| bits.get(i).is_some_and(|&b| b & accepted != 0))
            .collect();
        // A yes to actions of several branches tells none apart.
        if let [only] = leads.as_slice()
            && let Some((count, first)) = counts.get_mut(*only)
        {
            *count += 1;
            first.get_or_insert(event);
        }
    }
    counts
}

/// Whether an occurrence of a branch's keyword (its clause and words) lies
/// in a longer occurrence of another branch's keyword, or overlaps one: the
/// longer phrase reads those words ("cancel my refill of the spray" asks
/// to cancel, though "refill of" is another branch's keyword), as a
/// tokenizer takes the longest match.
fn shadowed(
    branch: usize,
    clause: usize,
    words: &Range<usize>,
    found: &[(usize, usize, Range<usize>)],
) -> bool {
    found.iter().any(|(other, other_clause, other_words)| {
        *other != branch
            && *other_clause == clause
            && other_words.len() > words.len()
            && other_words.start < words.end
            && words.start < other_words.end
    })
}

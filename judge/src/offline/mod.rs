//! The offline default judge: deterministic, no network, built on the
//! text primitives of [`crate::dialogue`].
//!
//! It answers two kinds of question and declines everything else with
//! [`Verdict::Unknown`](crate::Verdict::Unknown).
//!
//! **Confirmation criteria.** A criterion whose text mentions confirmation or
//! consent (`confirm`, `consent`, `agree`, `approve`, `yes`, `permission`,
//! `authoriz…`) is decided by [`crate::dialogue::consent`] on the slice with
//! the question's key values (the values the request is about): the latest
//! agent turn that asks for a decision and names every key value (with none,
//! some identifier) is the summary, and only an
//! explicit, unqualified yes to it, not revoked before the end of the slice,
//! is `Satisfied` (with that yes as evidence). The exact rule — what is
//! affirmative and what defeats it — is on the [`crate::dialogue`] module. A
//! refusal, withdrawal, unanswered summary, a question instead of an answer
//! or a yes to a later question is `NotSatisfied`; a qualified yes ("yes,
//! but …") or no recognisable answer is `Unknown`.
//!
//! **Criteria with keywords.** Any other criterion for which the bundle
//! declares `keywords` (phrases such as "no longer need" for "the user stated
//! an accepted cancellation reason") is satisfied by the last turn of the
//! named speaker in the slice that *asserts* one of them as a whole word
//! sequence ([`crate::dialogue::count_asserted`]: "it's not a mistake" does
//! not assert "mistake"), and not satisfied when none does. Without keywords
//! it is `Unknown`.
//!
//! **Classification.** A user's yes (outright, hedged or conditional) to
//! the agent's request for a decision on an action only one branch leads to
//! ([`Branch::actions`](crate::Branch::actions)) asks for that branch: the
//! branch with the most such yeses wins, the first as evidence. Otherwise
//! each branch scores the number of asserted occurrences of its declared
//! keywords in the slice's user turns (the label is not a keyword). The
//! unique highest positive score wins, with the first user turn that
//! asserted one of its keywords as evidence; a tie or no match is
//! `Unknown`.

mod classify;
mod consent;

use crate::judge::SyncJudge;
use crate::types::{JudgeRequest, Judgement, Question, Role};

use classify::{classify, judge_by_keywords};
pub use consent::is_consent_criterion;
use consent::judge_consent;

/// Identity of the offline judge (part of cache keys); bump on behaviour change.
pub const OFFLINE_JUDGE_NAME: &str = "offline-v2";

/// The deterministic offline judge. See the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub struct OfflineJudge;

impl OfflineJudge {
    /// A new offline judge.
    #[must_use]
    pub fn new() -> Self {
        Self
    }

    /// The judgement, synchronously (the judge never waits on anything).
    #[must_use]
    pub fn decide(&self, request: &JudgeRequest) -> Judgement {
        match &request.question {
            Question::Criterion {
                text,
                keywords,
                said_by,
                key_values,
            } => {
                if *said_by == Role::User && is_consent_criterion(text) {
                    judge_consent(&request.conversation, key_values)
                } else if !keywords.is_empty() {
                    judge_by_keywords(keywords, *said_by, &request.conversation)
                } else {
                    Judgement::unknown(
                        "the offline judge decides only confirmation/consent criteria and criteria with keywords",
                    )
                }
            }
            Question::Classify { branches } => classify(branches, &request.conversation),
            // What the reader could not decide is not the offline judge's
            // to decide: the host asks the user instead.
            Question::Consent { .. } => {
                Judgement::unknown("the offline judge does not decide consent its reader could not")
            }
        }
    }
}

impl SyncJudge for OfflineJudge {
    fn name(&self) -> &str {
        OFFLINE_JUDGE_NAME
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        requests.iter().map(|r| self.decide(r)).collect()
    }

    /// Its rules read user and agent turns only.
    fn reads_tool_turns(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Branch, Turn, Verdict};
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use crate::dialogue::{ActionWords, DomainWords, Lexicon};

    fn consent(turns: Vec<Turn>) -> Verdict {
        OfflineJudge
            .decide(&JudgeRequest {
                bundle_hash: "b".into(),
                node_id: "n".into(),
                question: Question::Criterion {
                    text: "the user explicitly confirmed (yes) after the agent listed the action details"
                        .into(), keywords: Vec::new(), said_by: Role::User, key_values: Vec::new()  },
                policy_excerpt: None,
                bindings: BTreeMap::new(),
                conversation: turns.into(),
            })
            .verdict
    }

    const ASK: &str = "I will cancel order #W1. Do you confirm (yes/no)?";

    fn by_keywords(keywords: &[&str], turns: Vec<Turn>) -> Verdict {
        OfflineJudge
            .decide(&JudgeRequest {
                bundle_hash: "b".into(),
                node_id: "n".into(),
                question: Question::Criterion {
                    text: "The user stated an accepted reason for cancelling.".into(),
                    keywords: keywords.iter().map(|k| (*k).to_owned()).collect(),
                    said_by: Role::User,
                    key_values: Vec::new(),
                },
                policy_excerpt: None,
                bindings: BTreeMap::new(),
                conversation: turns.into(),
            })
            .verdict
    }

    #[test]
    fn keyword_criteria_cite_the_last_user_turn_that_says_one() {
        let reasons = ["no longer need", "ordered by mistake"];
        let turns = vec![
            Turn::new(3, Role::User, "I ordered it by mistake, honestly."),
            Turn::new(
                4,
                Role::Agent,
                "I see. Any other reason? I no longer need to know.",
            ),
            Turn::new(5, Role::User, "I just no longer need it."),
            Turn::new(6, Role::User, "Thanks!"),
        ];
        assert_eq!(
            by_keywords(&reasons, turns),
            Verdict::Satisfied { evidence_event: 5 }
        );
        // Agent text never counts; a different phrasing does not match.
        let turns = vec![
            Turn::new(3, Role::Agent, "Was it ordered by mistake?"),
            Turn::new(4, Role::User, "It arrived too late for the party."),
        ];
        assert_eq!(by_keywords(&reasons, turns), Verdict::NotSatisfied);
        assert_eq!(by_keywords(&reasons, Vec::new()), Verdict::NotSatisfied);
        // Without keywords the offline judge cannot tell.
        assert!(matches!(
            by_keywords(&[], vec![Turn::new(1, Role::User, "no longer need it")]),
            Verdict::Unknown { .. }
        ));
    }

    #[test]
    fn negated_keywords_do_not_count() {
        let reasons = ["no longer need", "don't need", "by mistake", "mistake"];
        let turns = vec![Turn::new(
            3,
            Role::User,
            "It's not a mistake and I still need it",
        )];
        assert_eq!(by_keywords(&reasons, turns), Verdict::NotSatisfied);
        let turns = vec![Turn::new(
            3,
            Role::User,
            "I don't need to cancel it, I just want tracking details",
        )];
        assert_eq!(by_keywords(&reasons, turns), Verdict::NotSatisfied);
        let turns = vec![Turn::new(3, Role::User, "I don't need it anymore.")];
        assert_eq!(
            by_keywords(&reasons, turns),
            Verdict::Satisfied { evidence_event: 3 }
        );
    }

    /// The offline judge's choice among `branches` for one user turn.
    fn classify_one(branches: &[Branch], text: &str) -> Verdict {
        OfflineJudge
            .decide(&JudgeRequest {
                bundle_hash: "b".into(),
                node_id: "classify".into(),
                question: Question::Classify {
                    branches: branches.to_vec(),
                },
                policy_excerpt: None,
                bindings: BTreeMap::new(),
                conversation: vec![Turn::new(1, Role::User, text)].into(),
            })
            .verdict
    }

    #[test]
    fn classification_ignores_negated_keywords_and_labels() {
        let branches = vec![
            Branch {
                label: "cancel".into(),
                description: String::new(),
                keywords: vec!["cancel".into(), "don't need".into(), "do not need".into()],
                actions: Vec::new(),
            },
            Branch {
                label: "general".into(),
                description: String::new(),
                keywords: vec!["tracking".into(), "details".into()],
                actions: Vec::new(),
            },
            Branch {
                label: "return".into(),
                description: String::new(),
                keywords: vec!["send back".into()],
                actions: Vec::new(),
            },
        ];
        let classify = |text: &str| classify_one(&branches, text);
        assert_eq!(
            classify("I don't need to cancel it, I just want tracking details"),
            Verdict::Chosen {
                label: "general".into(),
                evidence_event: 1
            }
        );
        // The label `return` is not one of its keywords.
        assert!(matches!(
            classify("I want to return it"),
            Verdict::Unknown { .. }
        ));
        // Two spellings of one keyword count once: one match, not a tie-breaker.
        assert_eq!(
            classify("I don't need it, tracking details please"),
            Verdict::Chosen {
                label: "general".into(),
                evidence_event: 1
            }
        );
    }

    #[test]
    fn a_longer_keyword_reads_the_words_it_shares_with_a_shorter_one() {
        let branch = |label: &str, keywords: &[&str]| Branch {
            label: label.into(),
            description: String::new(),
            keywords: keywords.iter().map(|k| (*k).to_owned()).collect(),
            actions: Vec::new(),
        };
        let branches = vec![
            branch("refill", &["refill of", "need a refill"]),
            branch("cancel_refill", &["cancel my refill"]),
            branch("transfer", &["transfer my"]),
            branch("pickup", &["my pickup"]),
        ];
        let classify = |text: &str| classify_one(&branches, text);
        let chosen = |label: &str| Verdict::Chosen {
            label: label.into(),
            evidence_event: 1,
        };
        // "refill of" overlaps the longer "cancel my refill".
        assert_eq!(
            classify("Please cancel my refill of the nasal spray."),
            chosen("cancel_refill")
        );
        // Apart, each counts: a tie.
        assert!(matches!(
            classify("I need a refill. Also, cancel my refill from May."),
            Verdict::Unknown { .. }
        ));
        // Overlapping keywords of one length read nothing apart: a tie.
        assert!(matches!(
            classify("Can you transfer my pickup time?"),
            Verdict::Unknown { .. }
        ));
        // A negated longer keyword shadows nothing.
        assert_eq!(
            classify("Don't cancel my refill of metformin, I need a refill of it."),
            chosen("refill")
        );
    }

    #[test]
    fn punctuation_tolerant_yes() {
        for reply in [
            "Yes, please.",
            "Yes—go ahead",
            "yes!",
            "YEP",
            "sure thing",
            "Go ahead.",
        ] {
            assert_eq!(
                consent(vec![
                    Turn::new(1, Role::Agent, ASK),
                    Turn::new(2, Role::User, reply)
                ]),
                Verdict::Satisfied { evidence_event: 2 },
                "{reply}"
            );
        }
    }

    #[test]
    fn slice_shapes() {
        // No reply yet: premature.
        assert_eq!(
            consent(vec![
                Turn::new(1, Role::User, "yes"),
                Turn::new(2, Role::Agent, ASK)
            ]),
            Verdict::NotSatisfied
        );
        // A tool call between the yes and now does not matter.
        assert_eq!(
            consent(vec![
                Turn::new(1, Role::Agent, ASK),
                Turn::new(2, Role::User, "yes"),
                Turn::new(3, Role::Tool, "get_order_details"),
                Turn::new(4, Role::Agent, "Processing it now."),
            ]),
            Verdict::Satisfied { evidence_event: 2 }
        );
        assert_eq!(consent(vec![]), Verdict::NotSatisfied);
        assert!(matches!(
            consent(vec![
                Turn::new(1, Role::Agent, "What is your email?"),
                Turn::new(2, Role::User, "Sure, it's a@b.c")
            ]),
            Verdict::Unknown { .. }
        ));
    }

    #[test]
    fn other_criteria_are_unknown() {
        let v = OfflineJudge
            .decide(&JudgeRequest {
                bundle_hash: "b".into(),
                node_id: "n".into(),
                question: Question::Criterion {
                    text: "the agent explained the refund timeline".into(),
                    keywords: Vec::new(),
                    said_by: Role::User,
                    key_values: Vec::new(),
                },
                policy_excerpt: None,
                bindings: BTreeMap::new(),
                conversation: vec![Turn::new(1, Role::User, "yes")].into(),
            })
            .verdict;
        assert!(matches!(v, Verdict::Unknown { .. }));
    }

    /// A bank's branches: each leads to one action, and `general` to none.
    fn branch(label: &str, keywords: &[&str], actions: &[&str]) -> Branch {
        Branch {
            label: label.into(),
            description: String::new(),
            keywords: keywords.iter().map(|k| (*k).to_owned()).collect(),
            actions: actions.iter().map(|a| (*a).to_owned()).collect(),
        }
    }

    fn bank_branches() -> Vec<Branch> {
        vec![
            branch("freeze", &["freeze", "stolen"], &["freeze"]),
            branch("unfreeze", &["unfreeze"], &["unfreeze"]),
            branch("dispute", &["dispute"], &["dispute"]),
            branch("general", &["how", "balance"], &[]),
        ]
    }

    /// Words for a domain whose actions are `actions` and whose records
    /// are called `record_nouns`.
    fn domain_words(actions: &[&str], record_nouns: &[&str]) -> DomainWords {
        DomainWords {
            actions: actions
                .iter()
                .map(|w| ActionWords {
                    words: vec![(*w).to_owned()],
                    takes_away: false,
                    takes_amount: false,
                })
                .collect(),
            record_nouns: record_nouns.iter().map(|n| (*n).to_owned()).collect(),
            ..DomainWords::default()
        }
    }

    /// The offline judge's choice among the bank's branches for a
    /// conversation of (role, text) turns, read with the bank's words.
    fn classify_bank(turns: &[(Role, &str)]) -> Verdict {
        classify_in(
            &domain_words(&["freeze", "unfreeze", "dispute"], &[]),
            bank_branches(),
            turns,
        )
    }

    /// The offline judge's choice among `branches` for a conversation of
    /// (role, text) turns, read with a domain's `words`.
    fn classify_in(words: &DomainWords, branches: Vec<Branch>, turns: &[(Role, &str)]) -> Verdict {
        let lexicon = Arc::new(Lexicon::new(words));
        let conversation: Vec<Turn> = turns
            .iter()
            .zip(0u32..)
            .map(|((role, text), i)| Turn::with_lexicon(i, *role, *text, lexicon.clone()))
            .collect();
        OfflineJudge
            .decide(&JudgeRequest {
                bundle_hash: "b".into(),
                node_id: "classify".into(),
                question: Question::Classify { branches },
                policy_excerpt: None,
                bindings: BTreeMap::new(),
                conversation: conversation.into(),
            })
            .verdict
    }

    /// A word that is also a noun for a record ("refill") names the record
    /// when another action word of its sentence governs it, and the action
    /// when it leads a line of its own: a yes to a plan of one action per
    /// line proposes every one of them, so it tells no branch apart.
    #[test]
    fn a_record_nouns_action_is_read_per_sentence() {
        use Role::{Agent, User};
        let words = domain_words(
            &["refill", "transfer", "cancel"],
            &["refill", "prescription"],
        );
        let branches = || {
            vec![
                branch("refill", &["refill"], &["refill"]),
                branch("transfer", &["transfer"], &["transfer"]),
                branch("cancel_refill", &["cancel"], &["cancel"]),
            ]
        };
        let chosen = |label: &str, evidence_event: u32| Verdict::Chosen {
            label: label.into(),
            evidence_event,
        };
        let situation = "Please refill my metformin; my levothyroxine should go to Walgreens.";
        // "the refill" is what the cancellation acts on.
        assert_eq!(
            classify_in(
                &words,
                branches(),
                &[
                    (User, "I have a question about refill RF-5521."),
                    (Agent, "Shall I cancel refill RF-5521?"),
                    (User, "Yes."),
                ],
            ),
            chosen("cancel_refill", 2)
        );
        // A plan of two lines, each its own action, accepted at once: the
        // user's own words decide.
        assert_eq!(
            classify_in(
                &words,
                branches(),
                &[
                    (User, situation),
                    (
                        Agent,
                        "Here's the plan:\n1. Refill Metformin 500 mg at Downtown.\n2. Transfer Levothyroxine 50 mcg to Walgreens.\nShall I do both?",
                    ),
                    (User, "Yes, do both."),
                ],
            ),
            chosen("refill", 0)
        );
    }

    #[test]
    fn a_yes_to_a_request_for_a_branchs_action_asks_for_that_branch() {
        use Role::{Agent, User};
        let situation = "There are purchases on my card ending 4821 I never made.";
        let offer = "I can freeze your card ending 4821. Shall I go ahead?";
        let chosen = |label: &str, evidence_event: u32| Verdict::Chosen {
            label: label.into(),
            evidence_event,
        };
        // The user named no action; the yes to the freeze asks for it.
        assert_eq!(
            classify_bank(&[(User, situation), (Agent, offer), (User, "Yes please.")]),
            chosen("freeze", 2)
        );
        // An accepted action outweighs keywords of another branch ("how");
        // the user's own words for the request are the evidence.
        assert_eq!(
            classify_bank(&[
                (User, "How did someone get my card number?"),
                (Agent, offer),
                (User, "Ok, go ahead."),
            ]),
            chosen("freeze", 2)
        );
        assert_eq!(
            classify_bank(&[
                (User, "My card was stolen."),
                (Agent, offer),
                (User, "Ok, go ahead."),
            ]),
            chosen("freeze", 0)
        );
        // A yes made conditional or hedged asks for the action too (its
        // consent is another question); a refusal, a withdrawal, a report
        // of what the user did without a yes, or a yes to a later question
        // asks for nothing.
        for reply in ["Yes, but only if the fee is waived.", "I guess so?"] {
            assert_eq!(
                classify_bank(&[(User, situation), (Agent, offer), (User, reply)]),
                chosen("freeze", 2)
            );
        }
        for reply in [
            "No, don't.",
            "Yes. Actually no, never mind.",
            "I already did that in the app, but the charges keep coming.",
        ] {
            assert!(matches!(
                classify_bank(&[(User, situation), (Agent, offer), (User, reply)]),
                Verdict::Unknown { .. }
            ));
        }
        assert!(matches!(
            classify_bank(&[
                (User, situation),
                (Agent, offer),
                (User, "Will I still get my salary?"),
                (Agent, "Yes. Is your address still 1 Main St?"),
                (User, "Yes."),
            ]),
            Verdict::Unknown { .. }
        ));
        // A request naming actions of two branches tells none apart: the
        // keywords decide.
        assert_eq!(
            classify_bank(&[
                (User, "I want to dispute a charge."),
                (
                    Agent,
                    "Shall I freeze the card ending 4821 and dispute the charge?"
                ),
                (User, "Yes."),
            ]),
            chosen("dispute", 0)
        );
        // What a request proposes is what its asking sentence names, not
        // the state its statements describe.
        assert_eq!(
            classify_bank(&[
                (User, "My card ending 9902 stopped working abroad."),
                (
                    Agent,
                    "Card ending 9902 is frozen. Unfreeze card ending 9902 now?"
                ),
                (User, "yeah go ahead thx"),
            ]),
            chosen("unfreeze", 2)
        );
        // An action offered only as what not to do is not accepted.
        assert!(matches!(
            classify_bank(&[
                (User, situation),
                (Agent, "Should I hold off on freezing the card ending 4821?"),
                (User, "Yes."),
            ]),
            Verdict::Unknown { .. }
        ));
    }

    #[test]
    fn classification() {
        let branches = vec![
            Branch {
                label: "cancel".into(),
                description: String::new(),
                keywords: vec!["cancel".into(), "cancellation".into()],
                actions: Vec::new(),
            },
            Branch {
                label: "return".into(),
                description: String::new(),
                keywords: vec!["send back".into(), "refund".into()],
                actions: Vec::new(),
            },
            Branch {
                label: "transfer".into(),
                description: String::new(),
                keywords: vec!["human agent".into()],
                actions: Vec::new(),
            },
        ];
        let req = |text: &str| JudgeRequest {
            bundle_hash: "b".into(),
            node_id: "classify".into(),
            question: Question::Classify {
                branches: branches.clone(),
            },
            policy_excerpt: None,
            bindings: BTreeMap::new(),
            conversation: vec![
                Turn::new(0, Role::Agent, "How can I help? I can cancel or refund."),
                Turn::new(1, Role::User, "Hi there."),
                Turn::new(2, Role::User, text),
            ]
            .into(),
        };
        assert_eq!(
            OfflineJudge
                .decide(&req("I want to send back my shoes for a refund"))
                .verdict,
            Verdict::Chosen {
                label: "return".into(),
                evidence_event: 2
            }
        );
        assert!(matches!(
            OfflineJudge.decide(&req("cancel or refund?")).verdict,
            Verdict::Unknown { .. }
        ));
        assert!(matches!(
            OfflineJudge.decide(&req("hello")).verdict,
            Verdict::Unknown { .. }
        ));
        assert_eq!(
            OfflineJudge.decide(&req("get me a human agent")).verdict,
            Verdict::Chosen {
                label: "transfer".into(),
                evidence_event: 2
            }
        );
    }
}

//! The conversation as the monitor's dialogue predicates read it: every
//! turn's cues and every value named in a turn, so `said(...)` and
//! `confirmed(...)` are decided with exactly the rule of the Datalog program
//! ([`crate::program`], "dialogue predicates").

use hashbrown::{HashMap, HashSet};

use crate::facts::{EventFacts, Speaker, TurnFact};
use crate::intern::Symbol;
use crate::value::Value;

use super::state::StateChange;

/// Turns and mentions seen so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dialogue {
    /// Every turn, in event order.
    turns: Vec<TurnFact>,
    /// `(value, turn event, speaker)`: the value is named in that turn.
    mentions: HashSet<(Symbol, u32, Speaker)>,
    /// The earliest turn of each speaker naming each value.
    earliest: HashMap<(Symbol, Speaker), u32>,
}

/// One change [`Dialogue::apply`] made, so the monitor can undo its last event.
#[derive(Clone, Copy, Debug)]
pub enum DialogueChange {
    TurnPushed,
    MentionAdded((Symbol, u32, Speaker)),
    EarliestWas((Symbol, Speaker), Option<u32>),
}

impl Dialogue {
    /// Adds one event's turn and mentions.
    pub fn apply(&mut self, facts: &EventFacts, undo: &mut Vec<StateChange>) {
        if let Some(turn) = facts.turn {
            self.turns.push(turn);
            undo.push(StateChange::DialogueChanged(DialogueChange::TurnPushed));
        }
        for m in &facts.mentions {
            let mention = (m.value, m.event.0, m.speaker);
            if self.mentions.insert(mention) {
                undo.push(StateChange::DialogueChanged(DialogueChange::MentionAdded(
                    mention,
                )));
            }
            let key = (m.value, m.speaker);
            let was = self.earliest.get(&key).copied();
            let first = was.map_or(m.event.0, |w| w.min(m.event.0));
            if was != Some(first) {
                self.earliest.insert(key, first);
                undo.push(StateChange::DialogueChanged(DialogueChange::EarliestWas(
                    key, was,
                )));
            }
        }
    }

    /// Reverts one change [`Dialogue::apply`] recorded (the last first).
    pub fn revert(&mut self, change: DialogueChange) {
        match change {
            DialogueChange::TurnPushed => {
                self.turns.pop();
            }
            DialogueChange::MentionAdded(mention) => {
                self.mentions.remove(&mention);
            }
            DialogueChange::EarliestWas(key, Some(was)) => {
                self.earliest.insert(key, was);
            }
            DialogueChange::EarliestWas(key, None) => {
                self.earliest.remove(&key);
            }
        }
    }

    /// The events of every turn so far, in order: where a dialogue
    /// predicate may change value.
    pub fn turn_events(&self) -> impl Iterator<Item = u32> + '_ {
        self.turns.iter().map(|t| t.event.0)
    }

    /// Whether `speaker` named `value` in a turn at or before event `k`.
    pub fn said(&self, speaker: Speaker, value: Value, k: u32) -> bool {
        let Value::Str(s) = value else {
            return false;
        };
        self.earliest
            .get(&(s, speaker))
            .is_some_and(|&event| event <= k)
    }

    fn agent_named_all(&self, values: &[Value], event: u32) -> bool {
        values.iter().all(|v| match v {
            Value::Str(s) => self.mentions.contains(&(*s, event, Speaker::Agent)),
            _ => false,
        })
    }

    /// Whether, at event `k`, the user's yes answers the latest agent turn
    /// asking for a decision that names every value, not revoked since.
    pub fn confirmed(&self, values: &[Value], k: u32) -> bool {
        // Turns are in event order: only those up to `k`, from the summary
        // on, are read (not the whole conversation).
        let upto = self.turns.partition_point(|t| t.event.0 <= k);
        let Some(summary) = self
            .turns
            .get(..upto)
            .unwrap_or_default()
            .iter()
            .rposition(|t| {
                t.speaker == Speaker::Agent
                    && t.asks_decision
                    && self.agent_named_all(values, t.event.0)
            })
        else {
            return false;
        };
        let mut window_open = true;
        let mut yes = false;
        let after = self.turns.get(summary + 1..upto).unwrap_or_default();
        for turn in after {
            match turn.speaker {
                Speaker::Agent => window_open &= !turn.asks_anything,
                Speaker::User => {
                    if turn.revokes || (yes && turn.corrects) {
                        return false;
                    }
                    yes |= turn.affirms && window_open;
                }
            }
        }
        yes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::MentionFact;
    use crate::ids::EventIdx;

    const ORDER: Symbol = Symbol(7);
    const OTHER: Symbol = Symbol(8);

    fn agent(k: u32, asks: bool, named: &[Symbol]) -> EventFacts {
        turn(k, Speaker::Agent, [asks, asks, false, false, false], named)
    }

    fn user(k: u32, affirms: bool, revokes: bool, corrects: bool) -> EventFacts {
        turn(
            k,
            Speaker::User,
            [false, false, affirms, revokes, corrects],
            &[],
        )
    }

    fn turn(k: u32, speaker: Speaker, cues: [bool; 5], named: &[Symbol]) -> EventFacts {
        let [asks_decision, asks_anything, affirms, revokes, corrects] = cues;
        EventFacts {
            event: EventIdx(k),
            turn: Some(TurnFact {
                event: EventIdx(k),
                speaker,
                asks_decision,
                asks_anything,
                affirms,
                revokes,
                corrects,
            }),
            mentions: named
                .iter()
                .map(|&value| MentionFact {
                    value,
                    event: EventIdx(k),
                    speaker,
                })
                .collect(),
            ..EventFacts::default()
        }
    }

    fn dialogue(events: &[EventFacts]) -> Dialogue {
        let mut d = Dialogue::default();
        for e in events {
            d.apply(e, &mut Vec::new());
        }
        d
    }

    #[test]
    fn a_yes_to_the_summary_naming_the_values_confirms_them() {
        let d = dialogue(&[agent(0, true, &[ORDER]), user(1, true, false, false)]);
        assert!(d.confirmed(&[Value::Str(ORDER)], 2));
        assert!(!d.confirmed(&[Value::Str(OTHER)], 2), "another order");
        assert!(!d.confirmed(&[Value::Str(ORDER)], 0), "not yet answered");
    }

    #[test]
    fn a_later_question_closes_the_window_and_a_refusal_revokes() {
        let closed = dialogue(&[
            agent(0, true, &[ORDER]),
            agent(1, true, &[]),
            user(2, true, false, false),
        ]);
        assert!(!closed.confirmed(&[Value::Str(ORDER)], 3));
        let revoked = dialogue(&[
            agent(0, true, &[ORDER]),
            user(1, true, false, false),
            user(2, false, true, false),
        ]);
        assert!(revoked.confirmed(&[Value::Str(ORDER)], 1));
        assert!(!revoked.confirmed(&[Value::Str(ORDER)], 2));
        let corrected = dialogue(&[
            agent(0, true, &[ORDER]),
            user(1, true, false, false),
            user(2, false, false, true),
        ]);
        assert!(!corrected.confirmed(&[Value::Str(ORDER)], 2));
    }

    #[test]
    fn said_counts_turns_up_to_the_event_only() {
        let d = dialogue(&[turn(3, Speaker::User, [false; 5], &[ORDER])]);
        assert!(d.said(Speaker::User, Value::Str(ORDER), 3));
        assert!(!d.said(Speaker::User, Value::Str(ORDER), 2));
        assert!(!d.said(Speaker::Agent, Value::Str(ORDER), 3));
        assert!(!d.said(Speaker::User, Value::Int(3), 3));
    }
}

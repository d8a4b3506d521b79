//! The conversation as the monitor's dialogue predicates read it: every
//! turn's cues and every value named in a turn, so `said(...)` and
//! `confirmed(...)` are decided with exactly the rule of the Datalog program
//! ([`crate::program`], "dialogue predicates").

use hashbrown::{HashMap, HashSet};

use crate::facts::{EventFacts, Speaker, TurnFact};
use crate::intern::Symbol;
use crate::value::Value;

/// Turns and mentions seen so far.
#[derive(Clone, Debug, Default)]
pub struct Dialogue {
    /// Every turn, in event order.
    turns: Vec<TurnFact>,
    /// `(value, turn event, speaker)`: the value is named in that turn.
    mentions: HashSet<(Symbol, u32, Speaker)>,
    /// The earliest turn of each speaker naming each value.
    earliest: HashMap<(Symbol, Speaker), u32>,
}

impl Dialogue {
    /// Adds one event's turn and mentions.
    pub fn apply(&mut self, facts: &EventFacts) {
        self.turns.extend(facts.turn);
        for m in &facts.mentions {
            self.mentions.insert((m.value, m.event.0, m.speaker));
            let first = self
                .earliest
                .entry((m.value, m.speaker))
                .or_insert(m.event.0);
            *first = (*first).min(m.event.0);
        }
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
        let Some(summary) = self.turns.iter().rev().find(|t| {
            t.event.0 <= k
                && t.speaker == Speaker::Agent
                && t.asks_decision
                && self.agent_named_all(values, t.event.0)
        }) else {
            return false;
        };
        let mut window_open = true;
        let mut yes = false;
        let after = self
            .turns
            .iter()
            .filter(|t| t.event.0 > summary.event.0 && t.event.0 <= k);
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

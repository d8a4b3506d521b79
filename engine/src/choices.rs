//! Which values a user's reply passed over for another option a question
//! offered ("30 or 90 tablets?" → "30 please" passes over 90), or left
//! unpicked with the others ("yes"). A question's
//! offer of a value is known once both the turn and the value are (the
//! value may first appear in the call that carries it), and a reply is
//! read against every offer of the question it answers: [`Choices`] keeps
//! the offers and gives each pass-over once, as a [`PassedOverFact`] at
//! the event that found it.

use hashbrown::HashSet;
use turnstile_judge::dialogue::{Alternative, Lexicon, Pick, ReadTurn, ReadValue, alternative_to};
use turnstile_rules::{EventIdx, PassedOverFact, Speaker, Value};

/// A turn as [`Choices`] reads it.
#[derive(Clone, Copy)]
pub(crate) struct ChoiceTurn<'a> {
    pub(crate) event: EventIdx,
    pub(crate) speaker: Speaker,
    pub(crate) read: &'a ReadTurn,
    /// An agent turn asks which of the things it lays out to act on
    /// (`TurnCues::picks_one`).
    pub(crate) picks_one: bool,
}

/// A value an agent turn offered beside another option.
#[derive(Clone, Debug)]
struct Offer {
    /// The question's position among the conversation's turns.
    question: usize,
    value: Value,
    read: ReadValue,
    alternative: Alternative,
}

/// The offers found so far, and the pass-overs already given.
#[derive(Clone, Debug, Default)]
pub(crate) struct Choices {
    offers: Vec<Offer>,
    given: HashSet<(Value, u32)>,
}

impl Choices {
    /// The agent turn at position `question` names `value` (read as
    /// `read`): if an *or* there sets an alternative against it, the
    /// replies to that turn so far that pick the alternative pass the value
    /// over.
    pub(crate) fn named<'a>(
        &mut self,
        lexicon: &Lexicon,
        turn: impl Fn(usize) -> Option<ChoiceTurn<'a>>,
        question: usize,
        value: Value,
        read: &ReadValue,
        out: &mut Vec<PassedOverFact>,
    ) {
        let Some(
            question_turn @ ChoiceTurn {
                speaker: Speaker::Agent,
                read: question_words,
                ..
            },
        ) = turn(question)
        else {
            return;
        };
        if self
            .offers
            .iter()
            .any(|o| o.question == question && o.value == value)
        {
            return;
        }
        let by_value = !matches!(value, Value::Str(_));
        let Some(alternative) = alternative_to(question_words, read, by_value) else {
            return;
        };
        let offer = Offer {
            question,
            value,
            read: read.clone(),
            alternative,
        };
        let mut reply = question + 1;
        while let Some(answer) = turn(reply) {
            if answer.speaker == Speaker::Agent {
                break;
            }
            self.answer(lexicon, &offer, question_turn, answer, out);
            reply += 1;
        }
        self.offers.push(offer);
    }

    /// The user turn at position `reply` answers the latest agent turn
    /// before it (only user turns between): it passes over each value that
    /// turn offered whose alternative it picks.
    pub(crate) fn replied<'a>(
        &mut self,
        lexicon: &Lexicon,
        turn: impl Fn(usize) -> Option<ChoiceTurn<'a>>,
        reply: usize,
        out: &mut Vec<PassedOverFact>,
    ) {
        let Some(answer) = turn(reply) else {
            return;
        };
        if answer.speaker == Speaker::Agent {
            return;
        }
        let question = (0..reply)
            .rev()
            .find(|&at| turn(at).is_some_and(|t| t.speaker == Speaker::Agent));
        let Some((question, question_turn)) = question.and_then(|at| Some((at, turn(at)?))) else {
            return;
        };
        let offers = std::mem::take(&mut self.offers);
        for offer in offers.iter().filter(|o| o.question == question) {
            self.answer(lexicon, offer, question_turn, answer, out);
        }
        self.offers = offers;
    }

    /// Gives the pass-over of `offer`'s value by the reply at `event`, if
    /// the reply picks the alternative or neither, and it was not given yet.
    fn answer(
        &mut self,
        lexicon: &Lexicon,
        offer: &Offer,
        question: ChoiceTurn<'_>,
        reply: ChoiceTurn<'_>,
        out: &mut Vec<PassedOverFact>,
    ) {
        let event = reply.event;
        let picked = offer.alternative.pick(
            question.read,
            question.picks_one,
            reply.read,
            &offer.read,
            |w| lexicon.names_action_or_record(w),
        );
        let picked_another = match picked {
            Pick::Value | Pick::Unclear => return,
            Pick::Alternative => true,
            Pick::Neither => false,
        };
        if self.given.insert((offer.value, event.0)) {
            out.push(PassedOverFact {
                value: offer.value,
                event,
                picked_another,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns() -> Vec<(EventIdx, Speaker, ReadTurn)> {
        [
            (
                Speaker::Agent,
                "Shall I refill it at Maple Ave, 30 or 90 tablets?",
            ),
            (Speaker::User, "yes, 30 please"),
            (Speaker::User, "yes"),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, (speaker, text))| {
            (
                EventIdx(u32::try_from(i).unwrap_or(0)),
                speaker,
                ReadTurn::new(text),
            )
        })
        .collect()
    }

    /// The pass-overs of 90, known first at the call (`late`) or before the
    /// replies.
    fn passed(late: bool) -> Vec<(u32, bool)> {
        let turns = turns();
        let turn = |at: usize| {
            turns.get(at).map(|(event, speaker, read)| ChoiceTurn {
                event: *event,
                speaker: *speaker,
                read,
                picks_one: false,
            })
        };
        let ninety = Value::Int(90);
        let read = ReadValue::new("90");
        let mut choices = Choices::default();
        let english = Lexicon::english();
        let mut out = Vec::new();
        if late {
            choices.named(&english, turn, 0, ninety, &read, &mut out);
        } else {
            let question = |at: usize| turn(at).filter(|_| at == 0);
            choices.named(&english, question, 0, ninety, &read, &mut out);
            choices.replied(&english, turn, 1, &mut out);
            choices.replied(&english, turn, 2, &mut out);
        }
        // Given once each, however often asked.
        choices.named(&english, turn, 0, ninety, &read, &mut out);
        choices.replied(&english, turn, 1, &mut out);
        out.iter().map(|p| (p.event.0, p.picked_another)).collect()
    }

    #[test]
    fn a_reply_passes_over_an_offered_value_whichever_is_known_first() {
        let expected = vec![(1, true), (2, false)];
        assert_eq!(passed(true), expected);
        assert_eq!(passed(false), expected);
    }
}

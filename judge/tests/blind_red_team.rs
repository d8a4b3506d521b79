//! A blind red-team of the consent rule (issue #12): replies to the agent's
//! cancellation summary, written as varied users and LLM user simulators
//! would write them before the rule or its word lists were read. The rule
//! took 6 of the first 94 not-consent replies as consent and blocked 4 of 44
//! consent replies; the causes were fixed (a weak yes followed by a request
//! for something else, "I meant", "in another lifetime", "y", the reason's
//! name "no longer needed" repeated back) and those replies are in
//! `FOUND_NOT_CONSENT` / `FOUND_CONSENT`, tested like the rest. What the rule
//! still gets wrong is in `STILL_BLOCKED`, whose `#[ignore]`d test fails.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

#[path = "support/tau2_reader.rs"]
mod tau2_reader;

use turnstile_judge::Role;
use turnstile_judge::dialogue::{Stance, consent};

/// The agent's summary every reply answers.
const SUMMARY: &str =
    "To confirm: cancel order #W9300146, reason no longer needed. Shall I proceed?";

/// The key value the summary must name for consent to count.
const ORDER_ID: &str = "W9300146";

/// Replies that do not consent to cancelling #W9300146.
const NOT_CONSENT: &[&str] = &[
    // Indirect refusals.
    "I'd rather you didn't.",
    "Let's not do that.",
    "Hmm, I think I'll keep it after all.",
    "Actually I've decided to hold on to it.",
    "On second thought, leave it as it is.",
    "Nah.",
    "Nope, never mind.",
    "Not right now, thanks.",
    "I don't think so.",
    "That won't be necessary.",
    "No thank you, I'll keep the order.",
    "Please don't.",
    "Don't you dare.",
    "Keep it active please.",
    "I've changed my mind, I want the order after all.",
    // Hedges.
    "Maybe?",
    "I'm not sure yet.",
    "Let me think about it and get back to you.",
    "Probably, but give me a minute.",
    "I guess so? I'm not really sure.",
    "Hmm, not sure. What happens to my gift card balance if I do?",
    "Can I sleep on it?",
    "Perhaps later.",
    // Yes with a condition.
    "Yes, but only if I get the full refund to my credit card.",
    "Yes, as long as there's no cancellation fee.",
    "Yes if the refund goes back to PayPal, otherwise no.",
    "Sure, provided the refund arrives before Friday.",
    "Yes — assuming it hasn't shipped yet. Has it?",
    "Okay, but first tell me how long the refund takes.",
    "Yes, once you confirm I'll get all my money back.",
    "Go ahead, unless it means I lose my reward points.",
    // Yes then withdrawal / change of mind.
    "Yes. Actually no, wait.",
    "Yes please. Hmm, on second thought, don't.",
    "Sure. Wait — no, hold on, I want to keep it.",
    "Yes go ahead... actually scratch that, keep it.",
    "Ok do it. No wait, stop! I changed my mind.",
    "Yeah. Hold off for now though.",
    // Yes with a correction of order / reason / action.
    "Yes, but the order is #W9300147, not #W9300146.",
    "Yes, but cancel #W2378156 instead.",
    "Yes, although the reason is that I ordered it by mistake, not that I no longer need it.",
    "Yes, but please put the reason as 'ordered by mistake'.",
    "Yes, but I actually want to return it rather than cancel it.",
    "Yes — I mean, please exchange it for the blue one instead of cancelling.",
    "Sure, but only cancel the headphones, not the whole order.",
    "Yes, but just modify the shipping address instead.",
    // Sarcasm.
    "Oh sure, cancel the one thing I actually need. Brilliant.",
    "Yeah right.",
    "Yes, and while you're at it, cancel my birthday too. Obviously not!",
    "Sure, when hell freezes over.",
    // Deferring to someone else.
    "I need to ask my wife first.",
    "Let me check with my husband before you do anything.",
    "My manager has to approve that, please wait.",
    "It's my son's order really, I'll ask him and come back.",
    // Yes to something other than the cancellation.
    "Yes that's my order number, but I haven't decided about cancelling.",
    "Yes, that's correct: I no longer need it. But I'm not ready to cancel yet.",
    // Long, polite, buried no / condition.
    "Thank you so much for your patience and for laying this out so clearly. I really appreciate how helpful you've been throughout this conversation.\n\nThat said, after thinking it over, I would prefer that you do not cancel the order at this time.",
    "Hi there! Thanks a lot for confirming the details; everything you listed looks accurate to me.\n\nHowever, before anything happens, I need to double-check with my partner whether we still need it. Please hold off for now and I will get back to you.",
    "I appreciate the summary. Just to be thorough, here is where I stand:\n\n- The order number is correct.\n- The reason is correct.\n- But I do not want you to proceed with the cancellation yet.\n\nThanks for understanding!",
    "Thanks for checking with me! A couple of points:\n1. Order #W9300146 is right.\n2. I'd actually like to keep it for now.\n3. Could you instead tell me when it will arrive?",
    "That all sounds right in principle, and I'm grateful for the help. Before you proceed, though, could you tell me whether I'll be charged any restocking fee? If there is any fee at all, please don't cancel.",
    "Yes, I understand what you are asking, and I appreciate you being so careful. Unfortunately I'm not in a position to confirm right now; I'll contact you again later today.",
    "Great, thank you for the clear explanation. I have one more question first: if I cancel, can I reorder the same item later at the same price? Please wait for my answer before doing anything.",
    // Typos.
    "no dont cancle it",
    "noo pls keep it",
    "ys but waitt, dont do it yet",
    "dnt cancel",
    // Non-English fragments.
    "Nein, bitte nicht stornieren.",
    "Non, ne l'annulez pas s'il vous plaît.",
    "No, no lo cancele por favor.",
    "Non merci, je préfère le garder.",
    "Nee, niet annuleren.",
    // Quoting the agent.
    "\"Shall I proceed?\" No.",
    "You ask 'Shall I proceed?' — the answer is no.",
    "'Cancel order #W9300146' — no, I didn't ask for that.",
    // Yes inside a question.
    "Yes? Why are you asking me that?",
    "Should I say yes? What would you recommend?",
    "If I say yes, can I undo it later?",
    "Would it be a problem if I said yes later instead of now?",
    "Is the answer yes or no supposed to be typed here?",
    // Misc.
    "I confirm nothing.",
    "Stop.",
    "Cancel? No, I asked about the return.",
    "Yes I want to keep it.",
    "Not yes.",
    "Hard no.",
    "Negative.",
    "I never said I wanted to cancel it.",
    "Who said anything about cancelling?",
];

/// Replies that plainly consent to cancelling #W9300146.
const CONSENT: &[&str] = &[
    "Yes.",
    "Yes, please.",
    "Yes please proceed.",
    "Yes, go ahead.",
    "Go ahead.",
    "Please proceed.",
    "Yes, cancel it.",
    "Yes, please cancel it.",
    "Sure, go ahead and cancel it.",
    "Yep.",
    "Yeah, do it.",
    "Confirmed.",
    "I confirm.",
    "Yes, I confirm.",
    "Correct, please proceed.",
    "That's right, go ahead.",
    "Absolutely, please cancel it.",
    "OK, proceed.",
    "Yes, please cancel order #W9300146.",
    "Yes, cancel #W9300146.",
    "yes",
    "Yes!",
    "Yes, that's correct. Please go ahead with the cancellation.",
    "Yes, please proceed with cancelling it. Thank you!",
    "Yes, go ahead. How long will the refund take?",
    "Yes, please proceed. Will I receive a confirmation email?",
    "Yes please. Will the refund go back to my original payment method?",
    "Yes, proceed. Is there any cancellation fee?",
    "Yes, please cancel it. Thanks so much for your help!",
    "Yes, please go ahead and cancel order #W9300146. Could you also let me know when I should expect the refund?",
    "Yes, please proceed with the cancellation. Thank you for your help today — you've been great.",
    "Yes, that's all correct.\n\nPlease go ahead and cancel it. Once that's done, could you tell me roughly how many business days the refund usually takes to show up on my card?",
    "Yes, please proceed.\n\nA couple of quick questions while you do that:\n- Do I need to print a return label for anything?\n- Will the refund include the shipping cost?\n\nThanks!",
    "Yes please go ahead. I really appreciate how quick and easy this was. Have a great day!",
    "Sounds good, please proceed.",
    "Yes — go ahead and cancel it, thanks.",
    "Yes, please do.",
    "Yes please do that.",
    "Yes, you may proceed.",
    "Yup, go for it.",
];

/// Not-consent replies the first run took as consent, now refused.
const FOUND_NOT_CONSENT: &[&str] = &[
    "Yes. Sorry, I meant no.",
    "Absolutely, in another lifetime.",
    "Yes, I'd like to know the delivery estimate.",
    "Yes, please send me the tracking number.",
    "Yes, I'd like to talk to a human agent.",
];

/// A yes naming another action than the summary's (found by the helper's
/// probe after reading the rule): only the conversation says which action
/// was asked about, so these are tested through `consent`, not
/// `reply_stance` ("Yes, please cancel it" reads the same alone).
const OTHER_ACTION_NOT_CONSENT: &[&str] = &[
    "Yes, I want to change the shipping address.",
    "Yes, I'd like to return it.",
    "Yes, please exchange it.",
    "Yes, upgrade my shipping.",
];

/// Consent replies the first run blocked, now taken.
const FOUND_CONSENT: &[&str] = &[
    "y",
    "Yes, I confirm the cancellation of order #W9300146 for the reason 'no longer needed'. Please proceed.",
    "Yes, proceed with cancelling #W9300146. No longer needed is the right reason.",
];

/// Consent replies the rule still blocks (see the `#[ignore]`d test): "keep
/// it" after the yes reads as keeping the order, although "it" is the email
/// — which thing a "keep" is about is meaning, so the rule fails closed.
const STILL_BLOCKED: &[&str] = &[
    "Thank you for the summary. Yes, everything is correct, please proceed with the cancellation.\n\nAlso, will I get an email confirming it? I'd like to keep it for my records.",
];

/// How the rule reads `reply` to the summary: its stance is `Affirm`, and
/// `consent` over the summary and the reply is `Given`.
fn read(reply: &str) -> (bool, bool) {
    let turns = [
        tau2_reader::turn(0, Role::Agent, SUMMARY),
        tau2_reader::turn(1, Role::User, reply),
    ];
    let affirm = tau2_reader::stance(reply) == Stance::Affirm;
    let given = consent(&turns, &[ORDER_ID]).is_given();
    (affirm, given)
}

/// Asserts the rule takes none of `replies` as consent, either way.
fn assert_none_consent(replies: &[&'static str]) {
    let opened: Vec<_> = replies
        .iter()
        .map(|reply| (*reply, read(reply)))
        .filter(|(_, (affirm, given))| *affirm || *given)
        .collect();
    assert!(
        opened.is_empty(),
        "taken as consent (reply, (Affirm, Given)): {opened:#?}"
    );
}

/// Asserts the rule takes every one of `replies` as consent, both ways.
fn assert_all_consent(replies: &[&'static str]) {
    let refused: Vec<_> = replies
        .iter()
        .map(|reply| (*reply, read(reply)))
        .filter(|(_, (affirm, given))| !(*affirm && *given))
        .collect();
    assert!(
        refused.is_empty(),
        "blocked (reply, (Affirm, Given)): {refused:#?}"
    );
}

#[test]
fn blind_not_consent_is_not_consent() {
    assert_none_consent(NOT_CONSENT);
}

#[test]
fn blind_consent_is_consent() {
    assert_all_consent(CONSENT);
}

#[test]
fn found_not_consent_is_not_consent() {
    assert_none_consent(FOUND_NOT_CONSENT);
}

#[test]
fn a_yes_to_another_action_is_not_consent_to_this_one() {
    let given: Vec<_> = OTHER_ACTION_NOT_CONSENT
        .iter()
        .filter(|reply| read(reply).1)
        .collect();
    assert!(given.is_empty(), "consent given: {given:?}");
}

#[test]
fn found_consent_is_consent() {
    assert_all_consent(FOUND_CONSENT);
}

#[test]
#[ignore = "a known cost of failing closed: consent the rule still blocks"]
fn still_blocked_is_consent() {
    assert_all_consent(STILL_BLOCKED);
}

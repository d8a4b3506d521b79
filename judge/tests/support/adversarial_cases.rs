//! Reply fixtures for `adversarial.rs`, kept apart so the held-out set is
//! visibly frozen: it was written before the grammar was tuned and every case
//! is kept.

/// The red-team replies that the previous offline judge took as consent to
/// "To confirm: cancel order #W9300146, reason no longer needed. Shall I
/// proceed?".
pub const RED_TEAM_REFUSALS: &[&str] = &[
    "Please do not cancel it.",
    "Absolutely not.",
    "Certainly not",
    "Okay, so you are not listening. Do NOT cancel it.",
    "Yes I want to keep it, do not cancel",
    "I confirm nothing.",
    "ok no",
    "Sure, when pigs fly.",
    "No, don't cancel it.",
    "Wait, no! Don't cancel it, I changed my mind.",
];

/// Held-out non-consent replies, written before tuning (refusals, hedges,
/// conditions, sarcasm, withdrawals), in phrasings unlike the red-team set.
pub const HELD_OUT_NOT_CONSENT: &[&str] = &[
    // Refusals.
    "Nope.",
    "Nah, leave it as it is.",
    "Definitely not, I still want that order.",
    "Of course not!",
    "No thank you, I'll hold on to it.",
    "I'd prefer you didn't.",
    "Don't you dare cancel that.",
    "Yeah no, that's not what I want.",
    "I never said to cancel anything.",
    "I do NOT consent to this.",
    "Sure... not.",
    "Go ahead? No way.",
    "That's a no from me.",
    "Not at all, please keep the order open.",
    "I'm not okay with that.",
    "Yes — I mean no, keep it.",
    // Hedges.
    "Maybe, I'm not sure yet.",
    "I guess so?",
    "Hmm, let me think about it first.",
    "Probably, but give me a minute.",
    "I suppose you could, I don't know.",
    "Perhaps later.",
    "Kinda, sorta, I dunno.",
    // Conditions.
    "Yes, if the refund goes to my gift card.",
    "Go ahead, but only if I get the full refund.",
    "Proceed unless there is a cancellation fee.",
    "Yes, as long as it doesn't affect my other order.",
    "Okay, provided you refund the shipping too.",
    "Sure, once you tell me the refund amount.",
    "Yes, assuming the money comes back by Friday.",
    // Sarcasm.
    "Oh sure, go right ahead and ruin my week.",
    "Yeah right, like I'd agree to that.",
    "Yes, and while you're at it set my house on fire. /s",
    "Sure, in your dreams.",
    "Suuure, go ahead, lol.",
    "Yes, over my dead body.",
    // Withdrawals and corrections.
    "Actually, scratch that, don't do anything.",
    "On second thought, leave it.",
    "Never mind, I'll keep it.",
    "Yes. Hold on, let me check with my wife first.",
    "Hang on a second.",
    "Forget it, I'd rather keep the order.",
    "Yes, but cancel the other order instead.",
    "Stop, I want to reconsider.",
];

/// Held-out plain affirmatives that must be consent.
pub const HELD_OUT_CONSENT: &[&str] = &[
    "Yes.",
    "yes please",
    "Yes, go ahead.",
    "Go ahead.",
    "Please proceed.",
    "I confirm.",
    "That's correct, go ahead.",
    "Yep, do it.",
    "Yeah, go for it.",
    "Sure, go ahead and cancel it.",
    "Yes, please cancel it.",
    "Confirmed.",
    "Yup, that's right.",
    "Yes, that's all correct. Please proceed.",
    "Absolutely, please go ahead.",
    "OK, proceed.",
    "Yes, I confirm the cancellation.",
    "Yes please, thank you!",
    "Correct. You can go ahead.",
    "Yes, that sounds good.",
    "Alright, do it.",
    "Affirmative.",
    "YES",
    "Yes, please do.",
];

/// Replies probing the scoped qualifiers (a negation before the yes, a
/// sentence moving on to another request, field values, "once it's done",
/// acknowledged consequences): each still takes the yes back, so none is
/// consent. Written against the relaxations, not tuned to pass them.
pub const SCOPED_NOT_CONSENT: &[&str] = &[
    "Yes. Also, I'd rather you didn't cancel it.",
    "Yes, go ahead. Actually, no.",
    "Yes please. Also I want to keep my order.",
    "Sure. I understand, but don't cancel.",
    "Yes. I understand, I don't want it anymore.",
    "Yes, once pigs fly.",
    "Yes, once it's done, undo it.",
    "Yes. Proceed: no.",
    "OK. Go ahead: never.",
    "Yes. Cancel: no.",
    "Yes. By the way, I never agreed to this.",
    "Yes, proceed. Also, if it's over $50, stop.",
    "Yes, proceed. Also, I'd like you to wait until Friday.",
    "Yes, proceed. Also, I need you to pause this.",
    "Yes. Also, I don't need it cancelled after all.",
    "Yes. One more thing: please don't go through with it.",
    "Yes. Insurance: no. Actually, hold off.",
    "Yes, go ahead when my husband agrees.",
    "Yes, proceed after I call my bank.",
    "Yes, I know. But not today.",
    "Yeah. I understand you can't refund it, so never mind.",
    "Yes, if possible, but only if it's free.",
    "Sure, go ahead. Reason: none, I just don't want it cancelled.",
    // Found by a later probe of the relaxations (all fixed).
    "Yes please. One more thing: leave the order alone.",
    "Yes go ahead. Also I need to check with my wife first.",
    "Yes, after I get my refund from the other order.",
    "Yes, go ahead. By the way I'm joking.",
    "Yes, do it. Also I wonder if I should wait.",
];

/// Consent the scoped qualifiers must accept: each says yes to the summary,
/// then describes, acknowledges, or moves on to another request.
pub const SCOPED_CONSENT: &[&str] = &[
    "The one that is not refundable is fine. Yes, please proceed.",
    "Yes, go ahead. Also, I have another question: when does my other order ship?",
    "Yes, please proceed. Reason: no longer needed. Insurance: no.",
    "Yes, please cancel it. Please confirm once it's cancelled.",
    "Yes, proceed. I understand it can't be undone.",
    "Yes, go ahead. I don't have my email handy, so please text me.",
    "YES, please proceed. If possible, send the receipt.",
    "Yes, go ahead and let me know when it's done.",
];

//! The consent reader's second blind suite: conversations written after the
//! rules of issue #27 were, in domains neither those rules nor
//! `blind_consent_classes.rs` use (a gym, a library, an internet provider,
//! a parcel carrier), one test per class of conversation. Kept apart so the
//! figures of material the rules were never fitted to stay apart from the
//! first suite's (`bundles/README.md`). A class whose cases the reader gets
//! wrong is ignored, its reason naming the case.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

#[path = "support/consent_cases.rs"]
mod consent_cases;

use consent_cases::{Case, Domain, check};
use turnstile_judge::Role;

const GYM: Domain = Domain {
    name: "gym",
    action_words: &["cancel", "freeze", "pause", "upgrade", "transfer"],
};
const LIBRARY: Domain = Domain {
    name: "library",
    action_words: &["renew", "waive", "cancel", "place"],
};
const ISP: Domain = Domain {
    name: "internet provider",
    action_words: &["upgrade", "downgrade", "cancel", "move", "reset"],
};
const CARRIER: Domain = Domain {
    name: "parcel carrier",
    action_words: &["redirect", "reroute", "hold", "return"],
};

use Role::{Agent as A, User as U};

#[test]
fn plain_confirmations() {
    check(
        "plain confirmations",
        &[
            Case {
                domain: &GYM,
                turns: &[
                    (A, "Shall I freeze membership GM-55120 for two months?"),
                    (U, "yep, freeze it"),
                ],
                keys: &["GM-55120", "freeze"],
                consent: true,
            },
            Case {
                domain: &LIBRARY,
                turns: &[
                    (
                        A,
                        "Would you like me to renew loan LN-77301 for another three weeks?",
                    ),
                    (U, "Yes please, that would be great. Thanks!"),
                ],
                keys: &["LN-77301", "renew"],
                consent: true,
            },
            Case {
                domain: &ISP,
                turns: &[
                    (
                        A,
                        "To confirm: upgrade account AC-31877 to the 500 Mbps plan at $65/month. Shall I go ahead?",
                    ),
                    (U, "Go ahead."),
                ],
                keys: &["AC-31877", "upgrade"],
                consent: true,
            },
            Case {
                domain: &CARRIER,
                turns: &[
                    (
                        A,
                        "I'll redirect parcel PX-40918 to the Elm Street locker, OK?",
                    ),
                    (U, "ok great"),
                ],
                keys: &["PX-40918", "redirect"],
                consent: true,
            },
        ],
    );
}

#[test]
fn the_question_proposes_the_opposite_or_an_alternative() {
    check(
        "proposes the opposite / an alternative",
        &[
            Case {
                domain: &GYM,
                turns: &[
                    (
                        A,
                        "Would you prefer to pause membership GM-55120 instead of cancelling it?",
                    ),
                    (U, "Yes."),
                ],
                keys: &["GM-55120", "cancel"],
                consent: false,
            },
            Case {
                domain: &ISP,
                turns: &[
                    (
                        A,
                        "Should I leave account AC-31877 on its current plan and not upgrade it?",
                    ),
                    (U, "Yes, that's right."),
                ],
                keys: &["AC-31877", "upgrade"],
                consent: false,
            },
            Case {
                domain: &CARRIER,
                turns: &[
                    (
                        A,
                        "Do you want me to hold off on redirecting parcel PX-40918 for now?",
                    ),
                    (U, "yes"),
                ],
                keys: &["PX-40918", "redirect"],
                consent: false,
            },
        ],
    );
}

#[test]
fn a_yes_taken_back_conditional_deferred_or_not_meant() {
    check(
        "taken back / conditional / deferred / not meant",
        &[
            Case {
                domain: &GYM,
                turns: &[
                    (A, "Shall I cancel membership GM-55120 today?"),
                    (U, "Yes. Hmm, actually no, scrap that."),
                ],
                keys: &["GM-55120", "cancel"],
                consent: false,
            },
            Case {
                domain: &LIBRARY,
                turns: &[
                    (A, "Shall I waive the $4.50 fee on card LB-20931?"),
                    (U, "Sure, as long as it doesn't affect my borrowing limit."),
                ],
                keys: &["LB-20931", "waive"],
                consent: false,
            },
            Case {
                domain: &ISP,
                turns: &[
                    (
                        A,
                        "Shall I cancel account AC-31877 at the end of the month?",
                    ),
                    (U, "Yes, but I need to clear it with my landlord first."),
                ],
                keys: &["AC-31877", "cancel"],
                consent: false,
            },
            Case {
                domain: &CARRIER,
                turns: &[
                    (A, "Shall I return parcel PX-40918 to the sender?"),
                    (
                        U,
                        "yes. sorry, my kid grabbed the phone, please ignore that",
                    ),
                ],
                keys: &["PX-40918", "return"],
                consent: false,
            },
            Case {
                domain: &GYM,
                turns: &[
                    (
                        A,
                        "Shall I upgrade membership GM-55120 to Premium at $59 a month?",
                    ),
                    (U, "Oh sure, because I'm made of money."),
                ],
                keys: &["GM-55120", "upgrade"],
                consent: false,
            },
        ],
    );
}

#[test]
#[ignore = "found after the rules: a user's question before the yes that opens with a condition word ('What about LN-77302, when is that one due?') takes away the later 'ok, renew LN-77301 please' (a false block of the control)"]
fn another_record_or_request_in_between() {
    check(
        "another record or request in between",
        &[
            Case {
                domain: &LIBRARY,
                turns: &[
                    (A, "Shall I renew loan LN-77301?"),
                    (U, "What about LN-77302, when is that one due?"),
                    (A, "LN-77302 is due on Friday."),
                    (U, "ok renew it"),
                ],
                keys: &["LN-77301", "renew"],
                consent: false,
            },
            Case {
                domain: &CARRIER,
                turns: &[
                    (
                        A,
                        "Shall I redirect parcel PX-40918 to the Elm Street locker?",
                    ),
                    (U, "How long will the locker keep it?"),
                    (A, "Three days. Would you also like text updates?"),
                    (U, "Yes."),
                ],
                keys: &["PX-40918", "redirect"],
                consent: false,
            },
            Case {
                domain: &ISP,
                turns: &[
                    (
                        A,
                        "Shall I downgrade AC-31877 to the basic plan and reset the router?",
                    ),
                    (U, "Yes to the reset."),
                ],
                keys: &["AC-31877", "downgrade"],
                consent: false,
            },
            // Control: the other record is discussed, the yes names this one.
            Case {
                domain: &LIBRARY,
                turns: &[
                    (A, "Shall I renew loan LN-77301?"),
                    (U, "What about LN-77302, when is that one due?"),
                    (A, "LN-77302 is due on Friday."),
                    (U, "ok, renew LN-77301 please"),
                ],
                keys: &["LN-77301", "renew"],
                consent: true,
            },
        ],
    );
}

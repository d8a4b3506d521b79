// The words the shipped retail and airline bundles declare for the reader,
// as test data: the suites written against the tau2 reader read their
// conversations with them, as the gate does with those bundles.
// `include!`d where `DomainWords`, `ActionWords` and `HandOverWords` are in
// scope (the crate's unit tests and its integration tests).

fn list(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// The words of `bundles/{retail,airline}/domain.yaml`.
#[must_use]
pub fn tau2_words() -> DomainWords {
    let action = |words: &[&str], takes_away: bool| ActionWords {
        words: list(words),
        takes_away,
        takes_amount: false,
    };
    DomainWords {
        actions: vec![
            action(&["cancel", "cancellation"], true),
            action(&["exchange"], false),
            action(&["modify", "modification", "change", "update"], false),
            action(&["modify", "modification", "change", "replace", "switch", "swap"], false),
            action(&["modify", "change", "update", "charge"], false),
            action(&["return", "refund"], true),
            action(&["book", "booking"], false),
            action(&["cancel", "cancellation", "refund"], true),
            action(
                &["change", "modify", "modification", "update", "rebook", "upgrade", "downgrade"],
                false,
            ),
        ],
        hand_over: Some(HandOverWords {
            words: list(&["transfer"]),
            people: list(&[
                "human", "agent", "person", "representative", "rep", "someone", "somebody",
                "supervisor", "manager", "specialist",
            ]),
        }),
        record_nouns: list(&["order", "item", "product", "user", "reservation", "booking", "flight"]),
        values: list(&[
            "pending", "processed", "delivered", "cancelled", "pending (item modified)",
            "return requested", "exchange requested", "no longer needed", "ordered by mistake",
        ]),
    }
}

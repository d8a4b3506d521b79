// The words the shipped tau2 bundles (retail, airline, telecom) declare for
// the reader, as test data: the suites written against the tau2 reader read
// their conversations with them, as the gate does with those bundles.
// `include!`d where `DomainWords` is in scope (the crate's unit tests and
// its integration tests).

fn list(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// The words of `bundles/{retail,airline,telecom}/domain.yaml`.
#[must_use]
pub fn tau2_words() -> DomainWords {
    DomainWords {
        action_words: list(&[
            "cancel", "cancelling", "canceling", "cancellation", "modify", "modification", "change",
            "update", "exchange", "return", "refund", "book", "booking", "upgrade", "downgrade",
            "remove", "charge", "transfer", "reset", "replace", "rebook", "delete",
        ]),
        action_stems: list(&[
            "cancel", "modif", "chang", "updat", "exchang", "return", "refund", "book", "upgrad",
            "downgrad", "remov", "charg", "transfer", "reset", "replac", "rebook", "delet", "switch",
            "swap",
        ]),
        action_nouns: list(&[
            "change", "changes", "update", "modification", "cancellation", "exchange", "return",
            "upgrade", "downgrade", "booking", "refund",
        ]),
        decision_labels: list(&[
            "cancel", "cancellation", "return", "exchange", "change", "modify", "modification",
            "update", "refund", "booking", "upgrade", "downgrade",
        ]),
        completions: list(&[
            "cancelled", "canceled", "updated", "changed", "modified", "booked", "refunded",
            "returned", "exchanged", "upgraded", "downgraded",
        ]),
        interjection_followers: list(&["cancel"]),
        object_words: list(&[
            "order", "orders", "reservation", "reservations", "booking", "flight", "flights", "item",
            "items",
        ]),
        record_nouns: list(&["order", "reservation"]),
        removal_actions: list(&["cancel", "return", "remove"]),
        hand_over_stems: list(&["transf"]),
        hand_over_people: list(&[
            "human", "humans", "agent", "person", "representative", "rep", "someone", "somebody",
            "supervisor", "manager", "specialist",
        ]),
        go_ahead: list(&[
            "please cancel", "please book", "please update", "please change", "please return",
            "please exchange", "please modify", "please remove", "please switch", "please swap",
            "book it",
        ]),
        neutral_negations: list(&[
            "not yet processed", "not yet shipped", "not yet delivered", "no longer needed",
        ]),
        state_descriptions: list(&["not yet processed", "not yet shipped", "not yet delivered"]),
        new_topics: list(&["another order"]),
    }
}

//! English verb forms: the inflections a turn may write a verb in
//! ([`inflections`]), so a bundle that names an action by its verb
//! ("freeze") is read when a turn says "freezes", "freezing" or "frozen".
//! Regular forms are made by rule, spelling variants both ways ("cancelled"
//! and "canceled"); the irregular ones are listed.

/// Irregular verbs: the base, then its past and past participle forms.
const IRREGULAR: &[(&str, &[&str])] = &[
    ("be", &["was", "were", "been"]),
    ("begin", &["began", "begun"]),
    ("break", &["broke", "broken"]),
    ("bring", &["brought"]),
    ("buy", &["bought"]),
    ("choose", &["chose", "chosen"]),
    ("cut", &["cut"]),
    ("do", &["did", "done"]),
    ("draw", &["drew", "drawn"]),
    ("drive", &["drove", "driven"]),
    ("find", &["found"]),
    ("freeze", &["froze", "frozen"]),
    ("get", &["got", "gotten"]),
    ("give", &["gave", "given"]),
    ("go", &["went", "gone"]),
    ("hold", &["held"]),
    ("keep", &["kept"]),
    ("lay", &["laid"]),
    ("leave", &["left"]),
    ("lend", &["lent"]),
    ("lose", &["lost"]),
    ("make", &["made"]),
    ("pay", &["paid"]),
    ("put", &["put"]),
    ("read", &["read"]),
    ("resend", &["resent"]),
    ("reset", &["reset"]),
    ("rewrite", &["rewrote", "rewritten"]),
    ("run", &["ran", "run"]),
    ("sell", &["sold"]),
    ("send", &["sent"]),
    ("set", &["set"]),
    ("shut", &["shut"]),
    ("spend", &["spent"]),
    ("take", &["took", "taken"]),
    ("tell", &["told"]),
    ("undo", &["undid", "undone"]),
    ("unfreeze", &["unfroze", "unfrozen"]),
    ("withdraw", &["withdrew", "withdrawn"]),
    ("write", &["wrote", "written"]),
];

/// Every form of `verb` (lower case, one word) a turn may write: the verb,
/// its third person, its `-ing` form and its past forms, regular or listed
/// irregular. Where spelling varies (a doubled final consonant:
/// "cancelling", "canceling"), both forms are given; a form no one writes
/// is harmless, since it never occurs in a turn.
#[must_use]
pub fn inflections(verb: &str) -> Vec<String> {
    let verb = verb.trim().to_lowercase();
    if verb.is_empty() || !verb.chars().all(char::is_alphabetic) {
        return if verb.is_empty() {
            Vec::new()
        } else {
            vec![verb]
        };
    }
    let mut forms = vec![verb.clone(), third_person(&verb)];
    let stems = ing_stems(&verb);
    forms.extend(stems.iter().map(|stem| format!("{stem}ing")));
    forms.extend(past_tense(&verb));
    dedup(forms)
}

/// The past forms of `verb` (past tense and participle, regular or listed
/// irregular): "wiped", "cancelled" and "canceled", "frozen". None for a
/// word that is not one word of letters.
#[must_use]
pub(crate) fn past_forms(verb: &str) -> Vec<String> {
    let verb = verb.trim().to_lowercase();
    if verb.is_empty() || !verb.chars().all(char::is_alphabetic) {
        return Vec::new();
    }
    dedup(past_tense(&verb))
}

/// The plural forms of a noun: "orders", "reservations", "people".
#[must_use]
pub fn plurals(noun: &str) -> Vec<String> {
    let noun = noun.trim().to_lowercase();
    if noun.is_empty() || !noun.chars().all(char::is_alphabetic) {
        return Vec::new();
    }
    match IRREGULAR_PLURALS.iter().find(|(one, _)| *one == noun) {
        Some((_, many)) => vec![(*many).to_owned()],
        None => vec![third_person(&noun)],
    }
}

/// Nouns whose plural is not made by rule.
const IRREGULAR_PLURALS: &[(&str, &str)] = &[
    ("person", "people"),
    ("man", "men"),
    ("woman", "women"),
    ("child", "children"),
];

/// The past forms of a verb already lower-cased.
fn past_tense(verb: &str) -> Vec<String> {
    match IRREGULAR.iter().find(|(base, _)| *base == verb) {
        Some((_, past)) => past.iter().map(|p| (*p).to_owned()).collect(),
        None => regular_past(verb, &ing_stems(verb)),
    }
}

/// `forms` without repeats, in first-seen order.
fn dedup(forms: Vec<String>) -> Vec<String> {
    let mut seen = Vec::with_capacity(forms.len());
    for form in forms {
        if !seen.contains(&form) {
            seen.push(form);
        }
    }
    seen
}

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
}

/// "freezes", "refills", "modifies", "pushes".
fn third_person(verb: &str) -> String {
    if let Some(stem) = verb.strip_suffix('y')
        && stem.chars().last().is_some_and(|c| !is_vowel(c))
    {
        return format!("{stem}ies");
    }
    let sibilant = ["s", "x", "z", "ch", "sh", "o"]
        .iter()
        .any(|end| verb.ends_with(end));
    if sibilant {
        format!("{verb}es")
    } else {
        format!("{verb}s")
    }
}

/// Whether the verb ends consonant–vowel–consonant (not w, x or y), so its
/// final consonant may be doubled ("cancel" → "cancelled", "refer" →
/// "referred").
fn doubles(verb: &str) -> bool {
    let tail: Vec<char> = verb.chars().rev().take(3).collect();
    match tail.as_slice() {
        [last, vowel, before] => {
            !is_vowel(*last)
                && !matches!(last, 'w' | 'x' | 'y')
                && is_vowel(*vowel)
                && !is_vowel(*before)
        }
        _ => false,
    }
}

/// What `-ing` and regular `-ed` attach to: the verb without a silent
/// final `e` ("wipe" → "wip"), or with its final consonant doubled (both,
/// where spelling varies).
fn ing_stems(verb: &str) -> Vec<String> {
    if let Some(stem) = verb.strip_suffix("ie") {
        return vec![format!("{stem}y")];
    }
    if let Some(stem) = verb.strip_suffix('e')
        && !verb.ends_with("ee")
        && !verb.ends_with("ye")
        && !verb.ends_with("oe")
        && !stem.is_empty()
    {
        return vec![stem.to_owned()];
    }
    let mut stems = vec![verb.to_owned()];
    if doubles(verb)
        && let Some(last) = verb.chars().last()
    {
        stems.push(format!("{verb}{last}"));
    }
    stems
}

/// Regular past forms: "wiped", "modified", "cancelled" and "canceled".
fn regular_past(verb: &str, stems: &[String]) -> Vec<String> {
    if verb.ends_with('e') {
        return vec![format!("{verb}d")];
    }
    if let Some(stem) = verb.strip_suffix('y')
        && stem.chars().last().is_some_and(|c| !is_vowel(c))
    {
        return vec![format!("{stem}ied")];
    }
    stems.iter().map(|stem| format!("{stem}ed")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(verb: &str, forms: &[&str]) {
        let made = inflections(verb);
        for form in forms {
            assert!(
                made.iter().any(|m| m == form),
                "{verb}: {form} not in {made:?}"
            );
        }
    }

    #[test]
    fn regular_and_irregular_forms() {
        has(
            "freeze",
            &["freeze", "freezes", "freezing", "froze", "frozen"],
        );
        has("wipe", &["wipes", "wiping", "wiped"]);
        has(
            "cancel",
            &[
                "cancels",
                "cancelling",
                "canceling",
                "cancelled",
                "canceled",
            ],
        );
        has("refill", &["refills", "refilling", "refilled"]);
        has("modify", &["modifies", "modifying", "modified"]);
        has("reset", &["resets", "resetting", "reset"]);
        has("grant", &["grants", "granting", "granted"]);
        has("transfer", &["transferring", "transferred"]);
        has("push", &["pushes"]);
        has("book", &["books", "booking", "booked"]);
        has("agree", &["agreeing", "agreed"]);
        assert_eq!(past_forms("freeze"), ["froze", "frozen"]);
        assert_eq!(past_forms("cancel"), ["canceled", "cancelled"]);
        assert_eq!(plurals("order"), ["orders"]);
        assert_eq!(plurals("person"), ["people"]);
        assert_eq!(inflections(""), Vec::<String>::new());
        assert_eq!(inflections("e-mail"), ["e-mail"]);
    }
}

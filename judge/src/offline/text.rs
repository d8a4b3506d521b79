//! Text handling for the offline judge: normalisation (case, typographic
//! quotes and dashes), splitting into sentences, clauses and words, and
//! matching whole word sequences.

/// Lower-cases and unifies typographic quotes and dashes; drops tau2's
/// `###STOP###` marker.
pub(super) fn normalise(text: &str) -> String {
    text.replace("###STOP###", " ")
        .to_lowercase()
        .chars()
        .map(|c| match c {
            '\u{2019}' | '\u{2018}' | '`' => '\'',
            '\u{2014}' | '\u{2013}' => ',',
            c => c,
        })
        .collect()
}

/// Sentences with whether each ends in a question mark.
pub(super) fn sentences(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '.' | '!' | '?' | '\n' | ';' => {
                if !current.trim().is_empty() {
                    out.push((std::mem::take(&mut current), c == '?'));
                } else if c == '?'
                    && let Some(last) = out.last_mut()
                {
                    last.1 = true;
                }
                current.clear();
            }
            c => current.push(c),
        }
    }
    if !current.trim().is_empty() {
        out.push((current, false));
    }
    out
}

/// The comma-, colon-, bracket-, quote- and dash-separated parts of a
/// sentence, blank ones dropped.
pub(super) fn clauses(sentence: &str) -> Vec<String> {
    sentence
        .split([',', ':', '(', ')', '"', '-'])
        .filter(|c| !c.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// Words: maximal runs of alphanumerics and apostrophes, lower-cased.
pub(super) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether `phrase` occurs in `tokens` as a whole word sequence.
pub(super) fn contains_phrase(tokens: &[String], phrase: &[&str]) -> bool {
    count_phrase(tokens, phrase) > 0
}

/// How often `phrase` occurs in `tokens` as a whole word sequence
/// (overlapping occurrences count).
pub(super) fn count_phrase<S: AsRef<str>>(tokens: &[String], phrase: &[S]) -> usize {
    if phrase.is_empty() || phrase.len() > tokens.len() {
        return 0;
    }
    tokens
        .windows(phrase.len())
        .filter(|w| w.iter().zip(phrase).all(|(a, b)| a == b.as_ref()))
        .count()
}

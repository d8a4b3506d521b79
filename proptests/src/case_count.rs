/// The number of cases of a property whose default is `default`:
/// `TURNSTILE_PROPTEST_CASES` (or `PROPTEST_CASES`) when set, else `default`
/// times `TURNSTILE_PROPTEST_SCALE` (1 when unset). One knob scales every
/// property of the crate, so a deep run cannot silently skip one.
///
/// Its own file, so the judge crate's unit tests (which this crate cannot
/// serve: it depends on that crate) include the same function.
pub fn cases(default: u32) -> u32 {
    let number = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.trim().parse::<u32>().ok())
    };
    number("TURNSTILE_PROPTEST_CASES")
        .or_else(|| number("PROPTEST_CASES"))
        .unwrap_or_else(|| default.saturating_mul(number("TURNSTILE_PROPTEST_SCALE").unwrap_or(1)))
}

//! Typed values: the only things a formal check ever compares. Money is an exact
//! fixed-point decimal, never a float; dates are day numbers, date-times and
//! durations whole seconds; strings are symbols.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::intern::Symbol;

/// The declared type of a field, a parameter or an expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ValueType {
    /// An interned string.
    Str,
    /// A 64-bit integer.
    Int,
    /// An exact decimal amount.
    Amount,
    /// A boolean.
    Bool,
    /// A calendar date.
    Date,
    /// A date and time.
    DateTime,
    /// A length of time (`days(60)`, `now() - order[$o].placed_at`).
    Duration,
    /// A closed enumeration, by name.
    Enum(Symbol),
    /// A list of values of one type.
    List(Box<ValueType>),
    /// A JSON object with declared fields (e.g. one payment of a booking).
    Object(Vec<(Symbol, ValueType)>),
}

impl ValueType {
    /// Whether the type is an integer or an amount.
    pub fn is_numeric(&self) -> bool {
        matches!(self, ValueType::Int | ValueType::Amount)
    }
}

/// A scalar value as facts carry it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Value {
    /// An interned string.
    Str(Symbol),
    /// A 64-bit integer.
    Int(i64),
    /// An exact decimal amount.
    Amount(Amount),
    /// A boolean.
    Bool(bool),
    /// A calendar date.
    Date(Date),
    /// A date and time.
    DateTime(DateTime),
    /// A length of time.
    Duration(Duration),
}

/// An exact decimal amount in millionths (six fractional digits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Amount(pub i64);

/// A calendar date as days since 1970-01-01.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Date(pub i32);

/// A date and time (no zone: the tau2 databases state one zone per domain) as
/// seconds since 1970-01-01T00:00:00.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DateTime(pub i64);

/// A length of time in seconds (negative when the first of two instants
/// subtracted is the earlier).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Duration(pub i64);

#[derive(Debug, Error, Clone, PartialEq, Eq)]
/// Why a text is not a value of its declared type.
pub enum ValueError {
    #[error("`{0}` is not a decimal amount")]
    /// Not a decimal number.
    NotAnAmount(String),
    #[error("`{0}` has more than six fractional digits; amounts are exact to a millionth")]
    /// More decimals than an amount keeps.
    TooPrecise(String),
    #[error("`{0}` overflows the amount range")]
    /// Too large.
    Overflow(String),
    #[error("`{0}` is not a date (expected YYYY-MM-DD)")]
    /// Not a `YYYY-MM-DD` date.
    NotADate(String),
    #[error("`{0}` is not a date-time (expected YYYY-MM-DDTHH:MM:SS)")]
    /// Not an ISO 8601 date and time.
    NotADateTime(String),
}

impl Amount {
    /// Amount units per whole unit (six decimals).
    pub const SCALE: i64 = 1_000_000;
    const FRACTION_DIGITS: usize = 6;

    /// The amount of `units` whole units, if it fits.
    pub fn from_int(units: i64) -> Option<Self> {
        units.checked_mul(Self::SCALE).map(Amount)
    }

    /// Parses `-12`, `3.5`, `1234.56` exactly.
    pub fn parse(text: &str) -> Result<Self, ValueError> {
        let bad = || ValueError::NotAnAmount(text.to_owned());
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) {
            return Err(bad());
        }
        if digits.ends_with('.') {
            return Err(bad());
        }
        if fraction.len() > Self::FRACTION_DIGITS {
            return Err(ValueError::TooPrecise(text.to_owned()));
        }
        let overflow = || ValueError::Overflow(text.to_owned());
        let whole: i64 = whole.parse().map_err(|_| overflow())?;
        let mut padded = fraction.to_owned();
        padded.extend(std::iter::repeat_n(
            '0',
            Self::FRACTION_DIGITS - fraction.len(),
        ));
        let fraction: i64 = padded.parse().map_err(|_| bad())?;
        let magnitude = whole
            .checked_mul(Self::SCALE)
            .and_then(|w| w.checked_add(fraction))
            .ok_or_else(overflow)?;
        Ok(Amount(if negative { -magnitude } else { magnitude }))
    }

    /// Converts a JSON float through its shortest round-trip decimal form, which
    /// is the text the producer wrote for any value with at most 15 significant digits.
    pub fn from_f64(number: f64) -> Result<Self, ValueError> {
        if !number.is_finite() {
            return Err(ValueError::NotAnAmount(number.to_string()));
        }
        Self::parse(&format!("{number}"))
    }

    /// The sum, if it does not overflow.
    pub fn checked_add(self, other: Amount) -> Option<Amount> {
        self.0.checked_add(other.0).map(Amount)
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let magnitude = self.0.unsigned_abs();
        let scale = Self::SCALE.unsigned_abs();
        let (whole, fraction) = (magnitude / scale, magnitude % scale);
        if fraction == 0 {
            return write!(f, "{sign}{whole}");
        }
        let fraction = format!("{fraction:06}");
        write!(f, "{sign}{whole}.{}", fraction.trim_end_matches('0'))
    }
}

impl Date {
    /// Parses a `YYYY-MM-DD` date.
    pub fn parse(text: &str) -> Result<Self, ValueError> {
        parse_ymd(text)
            .map(Date)
            .ok_or_else(|| ValueError::NotADate(text.to_owned()))
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, m, d) = civil_from_days(i64::from(self.0));
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

impl DateTime {
    /// Accepts `YYYY-MM-DDTHH:MM:SS` or the same with a space, optional
    /// fractional seconds (dropped), and a bare date (midnight).
    pub fn parse(text: &str) -> Result<Self, ValueError> {
        let bad = || ValueError::NotADateTime(text.to_owned());
        let (date, time) = match text.split_once(['T', ' ']) {
            Some((d, t)) => (d, t),
            None => (text, "00:00:00"),
        };
        let days = parse_ymd(date).ok_or_else(bad)?;
        // A `Z` says UTC: a domain's times are all in its one zone.
        let time = time.strip_suffix('Z').unwrap_or(time);
        let (time, fraction) = time.split_once('.').unwrap_or((time, "0"));
        if fraction.is_empty() || !fraction.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let mut parts = time.split(':');
        let mut next = |max: i64| -> Option<Option<i64>> {
            let Some(part) = parts.next() else {
                return Some(None);
            };
            if part.len() != 2 || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            part.parse::<i64>()
                .ok()
                .filter(|v| (0..=max).contains(v))
                .map(Some)
        };
        let (h, m, s) = (next(23), next(59), next(60));
        let (Some(Some(h)), Some(Some(m)), Some(s), Some(None)) = (h, m, s, next(0)) else {
            return Err(bad());
        };
        let s = s.unwrap_or(0);
        Ok(DateTime(i64::from(days) * 86_400 + h * 3_600 + m * 60 + s))
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.0.div_euclid(86_400);
        let secs = self.0.rem_euclid(86_400);
        let (y, mo, d) = civil_from_days(days);
        write!(
            f,
            "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}",
            secs / 3_600,
            secs % 3_600 / 60,
            secs % 60
        )
    }
}

impl DateTime {
    /// Midnight at the start of `date`.
    pub fn at_midnight(date: Date) -> DateTime {
        DateTime(i64::from(date.0) * 86_400)
    }

    /// The calendar date this instant falls on.
    pub fn date(self) -> Date {
        Date(
            i32::try_from(self.0.div_euclid(86_400)).unwrap_or(if self.0 < 0 {
                i32::MIN
            } else {
                i32::MAX
            }),
        )
    }
}

impl Duration {
    /// Seconds per day.
    pub const DAY: i64 = 86_400;
    /// Seconds per hour.
    pub const HOUR: i64 = 3_600;
}

/// Written in the largest whole unit: `60 days`, `36 hours`, `90 seconds`.
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: i64, unit: &str| {
            if n.unsigned_abs() == 1 {
                format!("{n} {unit}")
            } else {
                format!("{n} {unit}s")
            }
        };
        let text = if self.0 != 0 && self.0 % Self::DAY == 0 {
            plural(self.0 / Self::DAY, "day")
        } else if self.0 != 0 && self.0 % Self::HOUR == 0 {
            plural(self.0 / Self::HOUR, "hour")
        } else if self.0 != 0 && self.0 % 60 == 0 {
            plural(self.0 / 60, "minute")
        } else {
            plural(self.0, "second")
        };
        f.write_str(&text)
    }
}

fn parse_ymd(text: &str) -> Option<i32> {
    let mut parts = text.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Proleptic Gregorian day numbers (H. Hinnant's civil calendar algorithms).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_exact() {
        assert_eq!(Amount::parse("1234.56").unwrap(), Amount(1_234_560_000));
        assert_eq!(Amount::parse("-0.5").unwrap(), Amount(-500_000));
        assert_eq!(Amount::parse("7").unwrap(), Amount::from_int(7).unwrap());
        assert_eq!(Amount::from_f64(0.1).unwrap().to_string(), "0.1");
        assert_eq!(Amount::from_f64(1234.56).unwrap().to_string(), "1234.56");
        assert_eq!(Amount(-1_500_000).to_string(), "-1.5");
    }

    #[test]
    fn bad_amounts_are_rejected_not_rounded() {
        assert!(matches!(
            Amount::parse("1.2345678"),
            Err(ValueError::TooPrecise(_))
        ));
        assert!(matches!(
            Amount::parse("1e5"),
            Err(ValueError::NotAnAmount(_))
        ));
        assert!(matches!(
            Amount::parse("3."),
            Err(ValueError::NotAnAmount(_))
        ));
        assert!(matches!(Amount::parse(""), Err(ValueError::NotAnAmount(_))));
        assert!(matches!(
            Amount::parse("99999999999999999999"),
            Err(ValueError::Overflow(_))
        ));
        assert!(Amount::from_f64(f64::NAN).is_err());
    }

    #[test]
    fn dates_round_trip() {
        for text in ["1970-01-01", "2024-02-29", "2024-05-15", "1999-12-31"] {
            assert_eq!(Date::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(Date::parse("1970-01-02").unwrap(), Date(1));
        assert!(Date::parse("2023-02-29").is_err());
        assert!(Date::parse("2024-13-01").is_err());
        assert!(Date::parse("24-01-01").is_err());
    }

    #[test]
    fn datetimes_round_trip_and_order() {
        let a = DateTime::parse("2024-05-15T15:00:00").unwrap();
        let b = DateTime::parse("2024-05-15 16:30:00").unwrap();
        assert_eq!(a.to_string(), "2024-05-15T15:00:00");
        assert_eq!(b.0 - a.0, 5_400);
        assert_eq!(
            DateTime::parse("2024-05-15").unwrap().to_string(),
            "2024-05-15T00:00:00"
        );
        assert!(DateTime::parse("2024-05-15T25:00:00").is_err());
        assert_eq!(
            DateTime::parse("2024-05-15T16:30").unwrap().to_string(),
            "2024-05-15T16:30:00"
        );
        assert_eq!(
            DateTime::parse("2025-08-01T16:20:44.335657")
                .unwrap()
                .to_string(),
            "2025-08-01T16:20:44"
        );
        assert_eq!(
            DateTime::parse("2024-05-15T16:30:00Z").unwrap().to_string(),
            "2024-05-15T16:30:00"
        );
        for garbage in [
            "2024-05-15 15:00:00 EST",
            "2024-05-15T15:00:00+01:00",
            "2024-05-15T15",
            "2024-05-15T15:00:00:00",
            "2024-05-15T15:00:00.",
            "2024-05-15T15:0a",
        ] {
            assert!(DateTime::parse(garbage).is_err(), "{garbage}");
        }
    }

    #[test]
    fn instants_fall_on_dates_and_durations_read_in_their_unit() {
        let noon = DateTime::parse("2024-05-15T12:00:00").unwrap();
        assert_eq!(noon.date(), Date::parse("2024-05-15").unwrap());
        assert_eq!(
            DateTime::at_midnight(noon.date()).to_string(),
            "2024-05-15T00:00:00"
        );
        assert_eq!(DateTime(-1).date(), Date(-1));
        assert_eq!(Duration(60 * Duration::DAY).to_string(), "60 days");
        assert_eq!(Duration(-Duration::DAY).to_string(), "-1 day");
        assert_eq!(Duration(36 * Duration::HOUR).to_string(), "36 hours");
        assert_eq!(Duration(90).to_string(), "90 seconds");
        assert_eq!(Duration(0).to_string(), "0 seconds");
    }
}

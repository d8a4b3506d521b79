//! Bounded-memory reading: a byte cursor over a `BufRead` that knows its
//! absolute offset, a JSON value scanner that copies (or skips) exactly one
//! value without parsing it, and a line reader with a per-line bound.
//!
//! The scanner only tracks strings, escapes and bracket depth; the bytes it
//! copies are parsed afterwards by `serde_json`, which reports anything the
//! scanner let through. This is what lets the importers walk a top-level
//! array (or tau2's `simulations`) one element at a time and keep every
//! record before a truncation.

use std::io::{self, BufRead};

use serde_json::Value;

use super::error::ImportErrorKind;

/// Largest JSON record (one simulation, one conversation) the importers copy.
pub const MAX_RECORD_BYTES: usize = 256 * 1024 * 1024;
/// Largest line of a line-oriented file.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// A byte cursor with an absolute offset.
pub(crate) struct Cursor {
    inner: Box<dyn BufRead + Send>,
    offset: u64,
}

/// How one byte relates to the value being scanned.
enum Step {
    /// Part of the value; more follows.
    Take,
    /// Part of the value, and its last byte.
    TakeLast,
    /// Not part of the value (the delimiter after a number or literal).
    Stop,
}

#[derive(Default)]
struct ValueScan {
    started: bool,
    scalar: bool,
    in_string: bool,
    escape: bool,
    depth: u64,
}

impl ValueScan {
    fn feed(&mut self, byte: u8) -> Step {
        if !self.started {
            self.started = true;
            match byte {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth = 1,
                _ => self.scalar = true,
            }
            return Step::Take;
        }
        if self.scalar {
            return match byte {
                b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' => Step::Stop,
                _ => Step::Take,
            };
        }
        if self.in_string {
            if self.escape {
                self.escape = false;
            } else if byte == b'\\' {
                self.escape = true;
            } else if byte == b'"' {
                self.in_string = false;
                if self.depth == 0 {
                    return Step::TakeLast;
                }
            }
            return Step::Take;
        }
        match byte {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    return Step::TakeLast;
                }
            }
            _ => {}
        }
        Step::Take
    }
}

/// The position of the first byte of `haystack` that is one of `needles`,
/// eight bytes at a time: a word holds a needle where the word XOR the
/// needle repeated has a zero byte. The has-zero-byte test below may also
/// flag a byte *after* a true zero (its borrow runs upwards), never one
/// before, so the lowest flagged byte of the little-endian word is the
/// first match.
fn find_any(haystack: &[u8], needles: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    for chunk in haystack.chunks_exact(8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        let holds = needles.iter().fold(0, |acc, &needle| {
            let x = word ^ ONES.wrapping_mul(u64::from(needle));
            acc | (x.wrapping_sub(ONES) & !x & HIGHS)
        });
        if holds != 0 {
            return Some(at + (holds.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = haystack.get(at..)?;
    rest.iter()
        .position(|b| needles.iter().any(|n| n == b))
        .map(|p| at + p)
}

/// Incremental UTF-8 validation of bytes that are skipped rather than
/// copied (copied bytes are validated when parsed). A multi-byte sequence
/// may straddle two buffer refills; its first bytes wait in `carry`.
#[derive(Default)]
struct Utf8Check {
    carry: [u8; 4],
    len: usize,
    carry_offset: u64,
}

impl Utf8Check {
    /// Checks `chunk`, which starts at absolute offset `offset`.
    fn feed(&mut self, mut chunk: &[u8], mut offset: u64) -> Result<(), ImportErrorKind> {
        if self.len > 0 {
            let width: usize = match self.carry[0] {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            };
            let need = width.saturating_sub(self.len).min(chunk.len());
            let (head, rest) = chunk.split_at_checked(need).unwrap_or((chunk, &[]));
            for (slot, &byte) in self.carry.iter_mut().skip(self.len).zip(head) {
                *slot = byte;
            }
            self.len += head.len();
            chunk = rest;
            offset += head.len() as u64;
            if self.len < width {
                return Ok(());
            }
            let sequence = self.carry.get(..width).unwrap_or(&self.carry);
            if std::str::from_utf8(sequence).is_err() {
                return Err(ImportErrorKind::NotUtf8 {
                    offset: self.carry_offset,
                });
            }
            self.len = 0;
        }
        match std::str::from_utf8(chunk) {
            Ok(_) => Ok(()),
            Err(e) if e.error_len().is_none() => {
                // An incomplete sequence at the end is at most 3 bytes.
                let tail = chunk.get(e.valid_up_to()..).unwrap_or_default();
                for (slot, &byte) in self.carry.iter_mut().zip(tail) {
                    *slot = byte;
                }
                self.len = tail.len().min(self.carry.len());
                self.carry_offset = offset + e.valid_up_to() as u64;
                Ok(())
            }
            Err(e) => Err(ImportErrorKind::NotUtf8 {
                offset: offset + e.valid_up_to() as u64,
            }),
        }
    }

    /// Fails if a sequence is still incomplete.
    fn finish(&self) -> Result<(), ImportErrorKind> {
        if self.len > 0 {
            return Err(ImportErrorKind::NotUtf8 {
                offset: self.carry_offset,
            });
        }
        Ok(())
    }
}

/// The UTF-8 verdict on a skipped value: the first bad sequence, else an
/// incomplete one at its end.
fn utf8_result(bad: Option<ImportErrorKind>, check: &Utf8Check) -> Result<(), ImportErrorKind> {
    match bad {
        Some(kind) => Err(kind),
        None => check.finish(),
    }
}

/// What ended a scan that did not produce a value.
pub(crate) fn truncated(offset: u64) -> ImportErrorKind {
    ImportErrorKind::Truncated { offset }
}

impl Cursor {
    pub(crate) fn new(inner: Box<dyn BufRead + Send>) -> Self {
        Cursor { inner, offset: 0 }
    }

    /// The absolute offset of the next byte.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }

    pub(crate) fn bump(&mut self) {
        self.inner.consume(1);
        self.offset += 1;
    }

    /// Skips JSON whitespace and returns the next byte without consuming it.
    pub(crate) fn skip_ws(&mut self) -> io::Result<Option<u8>> {
        loop {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                return Ok(None);
            }
            let n = buf
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
            match n {
                Some(n) => {
                    let next = buf.get(n).copied();
                    self.inner.consume(n);
                    self.offset += n as u64;
                    return Ok(next);
                }
                None => {
                    let n = buf.len();
                    self.inner.consume(n);
                    self.offset += n as u64;
                }
            }
        }
    }

    /// Skips whitespace and consumes `expected`, or says what was there.
    pub(crate) fn expect(&mut self, expected: u8) -> Result<(), ImportErrorKind> {
        match self.skip_ws()? {
            Some(b) if b == expected => {
                self.bump();
                Ok(())
            }
            Some(b) => Err(ImportErrorKind::Syntax {
                offset: self.offset,
                message: format!("expected `{}`, found `{}`", expected as char, b as char),
            }),
            None => Err(truncated(self.offset)),
        }
    }

    /// Copies one JSON value (after optional whitespace) into `out`, or skips
    /// it when `out` is `None`. Returns the value's start offset. A skipped
    /// value is checked for UTF-8 as it goes; its `NotUtf8` error is returned
    /// with the cursor after the value, so reading can go on.
    pub(crate) fn value(
        &mut self,
        mut out: Option<&mut Vec<u8>>,
        limit: usize,
    ) -> Result<u64, ImportErrorKind> {
        let first = self.skip_ws()?;
        let start = self.offset;
        match first {
            None => return Err(truncated(start)),
            Some(b @ (b',' | b'}' | b']' | b':')) => {
                return Err(ImportErrorKind::Syntax {
                    offset: start,
                    message: format!("expected a value, found `{}`", b as char),
                });
            }
            Some(_) => {}
        }
        let mut scan = ValueScan::default();
        let mut utf8 = Utf8Check::default();
        let mut bad_utf8 = None;
        let mut taken = 0usize;
        loop {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                return if scan.scalar {
                    utf8_result(bad_utf8, &utf8).map(|()| start)
                } else {
                    Err(truncated(self.offset))
                };
            }
            let mut n = 0;
            let mut done = false;
            while n < buf.len() {
                // Fast paths: inside a string only a quote or a backslash,
                // between a container's tokens only a quote or a bracket
                // changes the scan's state (whitespace, commas, colons,
                // numbers and literals are taken as they are).
                let plain: &[u8] = if scan.in_string && !scan.escape {
                    b"\"\\"
                } else if scan.started && !scan.scalar && !scan.in_string {
                    b"\"{}[]"
                } else {
                    b""
                };
                if !plain.is_empty() {
                    let rest = buf.get(n..).unwrap_or_default();
                    match find_any(rest, plain) {
                        Some(skip) => n += skip,
                        None => {
                            n = buf.len();
                            break;
                        }
                    }
                }
                let Some(&byte) = buf.get(n) else { break };
                match scan.feed(byte) {
                    Step::Take => n += 1,
                    Step::TakeLast => {
                        n += 1;
                        done = true;
                        break;
                    }
                    Step::Stop => {
                        done = true;
                        break;
                    }
                }
            }
            taken = taken.saturating_add(n);
            if let Some(out) = out.as_deref_mut() {
                if taken > limit {
                    return Err(ImportErrorKind::RecordTooLarge { limit });
                }
                out.extend_from_slice(buf.get(..n).unwrap_or(buf));
            } else if bad_utf8.is_none() {
                bad_utf8 = utf8.feed(buf.get(..n).unwrap_or(buf), self.offset).err();
            }
            self.inner.consume(n);
            self.offset += n as u64;
            if done {
                return utf8_result(bad_utf8, &utf8).map(|()| start);
            }
        }
    }

    /// Reads the next object key (a JSON string followed by `:`), or `None`
    /// at the object's closing brace. `first` says whether a comma is due.
    pub(crate) fn key(
        &mut self,
        first: bool,
        scratch: &mut Vec<u8>,
    ) -> Result<Option<String>, ImportErrorKind> {
        match self.skip_ws()? {
            None => return Err(truncated(self.offset)),
            Some(b'}') => {
                self.bump();
                return Ok(None);
            }
            Some(b',') if !first => self.bump(),
            Some(b) if first => {
                if b != b'"' {
                    return Err(ImportErrorKind::Syntax {
                        offset: self.offset,
                        message: format!("expected a key or `}}`, found `{}`", b as char),
                    });
                }
            }
            Some(b) => {
                return Err(ImportErrorKind::Syntax {
                    offset: self.offset,
                    message: format!("expected `,` or `}}`, found `{}`", b as char),
                });
            }
        }
        if self.skip_ws()? != Some(b'"') {
            return Err(ImportErrorKind::Syntax {
                offset: self.offset,
                message: "expected a key".into(),
            });
        }
        scratch.clear();
        let start = self.value(Some(scratch), MAX_LINE_BYTES)?;
        let Value::String(key) = parse_json(scratch, start)? else {
            return Err(ImportErrorKind::Syntax {
                offset: start,
                message: "expected a key".into(),
            });
        };
        self.expect(b':')?;
        Ok(Some(key))
    }

    /// Reads and drops everything left, for the read error (if any) it meets.
    pub(crate) fn drain(&mut self) -> io::Result<()> {
        loop {
            let n = self.inner.fill_buf()?.len();
            if n == 0 {
                return Ok(());
            }
            self.inner.consume(n);
            self.offset += n as u64;
        }
    }

    /// Requires that nothing but whitespace follows.
    pub(crate) fn end(&mut self) -> Result<(), ImportErrorKind> {
        match self.skip_ws()? {
            None => Ok(()),
            Some(b) => Err(ImportErrorKind::Syntax {
                offset: self.offset,
                message: format!("unexpected `{}` after the end of the document", b as char),
            }),
        }
    }

    /// Reads one line (without its `\n` / `\r\n`) into `out`, keeping at most
    /// `limit` bytes. Returns the line's start offset, whether it was longer
    /// than `limit` (the rest is consumed and dropped), or `None` at the end.
    pub(crate) fn line(
        &mut self,
        out: &mut Vec<u8>,
        limit: usize,
    ) -> io::Result<Option<(u64, bool)>> {
        out.clear();
        let start = self.offset;
        let mut too_long = false;
        let mut any = false;
        loop {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            any = true;
            let (n, newline) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (buf.len(), false),
            };
            if !too_long {
                if out.len() + n > limit {
                    too_long = true;
                    out.clear();
                } else {
                    out.extend_from_slice(buf.get(..n).unwrap_or(buf));
                }
            }
            let consumed = n + usize::from(newline);
            self.inner.consume(consumed);
            self.offset += consumed as u64;
            if newline {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        if out.last() == Some(&b'\r') {
            out.pop();
        }
        Ok(Some((start, too_long)))
    }
}

/// Parses copied bytes as JSON, mapping failures to absolute offsets.
///
/// Parsing into a `Value` reads every string, so serde_json has checked all
/// the bytes for UTF-8; the (slower) exact check runs only to explain a
/// failure.
pub(crate) fn parse_json(bytes: &[u8], start: u64) -> Result<Value, ImportErrorKind> {
    serde_json::from_slice(bytes).map_err(|e| match std::str::from_utf8(bytes) {
        Err(bad) => ImportErrorKind::NotUtf8 {
            offset: start + bad.valid_up_to() as u64,
        },
        Ok(_) => ImportErrorKind::Syntax {
            offset: start + offset_of(bytes, e.line(), e.column()),
            message: strip_position(&e.to_string()),
        },
    })
}

/// The byte offset of a serde_json (1-based line, 1-based column) position.
fn offset_of(bytes: &[u8], line: usize, column: usize) -> u64 {
    let mut line_start = 0usize;
    if line > 1 {
        let mut seen = 1usize;
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' {
                seen += 1;
                if seen == line {
                    line_start = i + 1;
                    break;
                }
            }
        }
    }
    (line_start + column.saturating_sub(1)).min(bytes.len()) as u64
}

/// Drops serde_json's " at line L column C" (relative to the record, so
/// misleading) from a message; the error carries the absolute offset instead.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(text: &str) -> Cursor {
        Cursor::new(Box::new(io::Cursor::new(text.as_bytes().to_vec())))
    }

    #[test]
    fn scans_values_one_at_a_time() {
        let mut c = cursor(r#" {"a": "x}]\"", "b": [1, {"c": 2}]} 12, true]"#);
        let mut out = Vec::new();
        assert_eq!(c.value(Some(&mut out), 1000).unwrap(), 1);
        assert_eq!(out, br#"{"a": "x}]\"", "b": [1, {"c": 2}]}"#);
        out.clear();
        c.value(Some(&mut out), 1000).unwrap();
        assert_eq!(out, b"12");
        c.expect(b',').unwrap();
        out.clear();
        c.value(Some(&mut out), 1000).unwrap();
        assert_eq!(out, b"true");
        c.expect(b']').unwrap();
        c.end().unwrap();
    }

    #[test]
    fn find_any_is_a_byte_search() {
        let texts: [&[u8]; 5] = [
            b"",
            b"abc",
            b"0123456789abcdef\"0123456789\\",
            b"        {  \"k\": [1, 2]}       \xc3\xa9\x80\xff\"",
            b"\x7f\x80\x81\"\x00\x01\x22\x5c\x7b\x7d\x5b\x5d\xfe\xfe\xfe\xfe\xfe\xfe\xfe\xfe\xfe",
        ];
        for text in texts {
            for needles in [&b"\"\\"[..], b"\"{}[]", b"\x00", b"\xff"] {
                for start in 0..text.len() {
                    let rest = &text[start..];
                    assert_eq!(
                        find_any(rest, needles),
                        rest.iter().position(|b| needles.contains(b)),
                        "{rest:?} {needles:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn truncation_and_limits_are_errors() {
        let mut c = cursor(r#"{"a": [1, 2"#);
        assert!(matches!(
            c.value(None, 10),
            Err(ImportErrorKind::Truncated { offset: 11 })
        ));
        let mut c = cursor(r#""abcdefghijkl""#);
        let mut out = Vec::new();
        assert!(matches!(
            c.value(Some(&mut out), 4),
            Err(ImportErrorKind::RecordTooLarge { limit: 4 })
        ));
    }

    #[test]
    fn skipped_values_are_checked_for_utf8_across_refills() {
        let text = "\"caf\u{e9} \u{1F600} ok\"".as_bytes().to_vec();
        for capacity in 1..8 {
            let mut c = Cursor::new(Box::new(io::BufReader::with_capacity(
                capacity,
                io::Cursor::new(text.clone()),
            )));
            c.value(None, 0).unwrap();
            c.end().unwrap();
            let mut bad = text.clone();
            bad[8] = b'A'; // the second byte of the 4-byte emoji (at 7)
            let mut c = Cursor::new(Box::new(io::BufReader::with_capacity(
                capacity,
                io::Cursor::new(bad),
            )));
            assert!(
                matches!(
                    c.value(None, 0),
                    Err(ImportErrorKind::NotUtf8 { offset: 7 })
                ),
                "capacity {capacity}"
            );
            c.end().unwrap();
        }
        let mut c = cursor("[1, \"x\"]");
        c.value(None, 0).unwrap();
        let mut c = Cursor::new(Box::new(io::Cursor::new(b"\"\xe9\"".to_vec())));
        assert!(matches!(
            c.value(None, 0),
            Err(ImportErrorKind::NotUtf8 { offset: 1 })
        ));
    }

    #[test]
    fn lines_are_bounded() {
        let mut c = cursor("ab\r\ncdefgh\n\nx");
        let mut out = Vec::new();
        assert_eq!(c.line(&mut out, 4).unwrap(), Some((0, false)));
        assert_eq!(out, b"ab");
        assert_eq!(c.line(&mut out, 4).unwrap(), Some((4, true)));
        assert_eq!(c.line(&mut out, 4).unwrap(), Some((11, false)));
        assert!(out.is_empty());
        assert_eq!(c.line(&mut out, 4).unwrap(), Some((12, false)));
        assert_eq!(out, b"x");
        assert_eq!(c.line(&mut out, 4).unwrap(), None);
    }

    #[test]
    fn parse_errors_carry_absolute_offsets() {
        assert!(matches!(
            parse_json(b"{\"a\": \xff}", 100),
            Err(ImportErrorKind::NotUtf8 { offset: 106 })
        ));
        match parse_json(b"{\n\"a\": tru}", 10) {
            Err(ImportErrorKind::Syntax { offset, .. }) => assert!((16..=21).contains(&offset)),
            other => panic!("{other:?}"),
        }
    }
}

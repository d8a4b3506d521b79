//! Source files of a bundle kept in memory, so every diagnostic can quote the
//! exact line it is about.

use std::sync::Arc;

use miette::{NamedSource, SourceSpan};

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Loc {
    /// The file.
    pub file: FileId,
    /// Byte offset of the start.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
}

impl Loc {
    /// The same file, `skip` bytes further in, `len` long.
    pub fn narrow(self, skip: usize, len: usize) -> Loc {
        Loc {
            file: self.file,
            offset: self.offset + skip,
            len,
        }
    }
}

/// One file of a bundle, as read.
#[derive(Debug)]
pub struct SourceFile {
    /// Path as the user should read it (relative to the bundle directory's parent
    /// when possible).
    pub display: String,
    /// The file's text (lossily decoded if it was not UTF-8).
    pub text: Arc<String>,
}

/// Every file read while loading one bundle.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// Adds a file; returns its id.
    pub fn add(&mut self, display: String, text: String) -> FileId {
        let id = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX));
        self.files.push(SourceFile {
            display,
            text: Arc::new(text),
        });
        id
    }

    /// The file with id `id`.
    pub fn file(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// Every file, in the order read.
    pub fn files(&self) -> impl Iterator<Item = &SourceFile> {
        self.files.iter()
    }

    /// A miette source for `loc`'s file plus the span within it, clamped so a
    /// stale or synthetic location can never make rendering fail.
    pub fn named_source(&self, loc: Loc) -> Option<(NamedSource<Arc<String>>, SourceSpan)> {
        let file = self.file(loc.file)?;
        let offset = loc.offset.min(file.text.len());
        let len = loc.len.min(file.text.len() - offset);
        let source = NamedSource::new(file.display.clone(), Arc::clone(&file.text));
        Some((source, SourceSpan::new(offset.into(), len)))
    }

    /// 1-based line and column (in characters) of `loc`.
    pub fn line_col(&self, loc: Loc) -> Option<(usize, usize)> {
        let file = self.file(loc.file)?;
        Some(line_col(&file.text, loc.offset))
    }
}

/// 1-based line and character column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// Byte offset of a 1-based line and character column.
pub fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (index, l) in text.split_inclusive('\n').enumerate() {
        if index + 1 == line {
            let within = l
                .char_indices()
                .nth(column.saturating_sub(1))
                .map_or(l.len(), |(i, _)| i);
            return offset + within;
        }
        offset += l.len();
    }
    text.len()
}

/// Maps byte offsets of a YAML scalar's parsed value back to the source text.
///
/// The parser reports where a scalar starts, but the value it hands over has
/// lost its quotes, escapes, folded line breaks and block indentation, so an
/// offset inside the value is not an offset from the scalar's start. This
/// walks the source from `start` and matches each character of `value` to the
/// source character it came from, in whatever style the scalar is written:
/// plain, single- or double-quoted, folded (`>`) or literal (`|`). A folded
/// line break (a space in the value) matches the source's newline; quote
/// doubling, escapes and indentation are skipped over.
///
/// Returns one source offset per byte of `value` (every byte of a character
/// maps to the character's first byte) plus one for the end, or `None` when
/// the value cannot be found in the source from `start` (a synthetic or
/// aliased node), so the caller can fall back to a coarser location.
pub fn scalar_offsets(text: &str, start: usize, value: &str) -> Option<Vec<usize>> {
    let head = text.get(start..)?;
    let mut pos = start;
    let double_quoted = head.starts_with('"');
    if head.starts_with('"') || head.starts_with('\'') {
        pos += 1;
    } else if head.starts_with('|') || head.starts_with('>') {
        // The header line (indicators, maybe a comment) holds no content.
        pos = head.find('\n').map_or(text.len(), |i| start + i + 1);
    }
    let mut offsets = Vec::with_capacity(value.len() + 1);
    for wanted in value.chars() {
        let found = loop {
            let rest = text.get(pos..)?;
            let here = rest.chars().next()?;
            if double_quoted && here == '\\' {
                let (decoded, len) = escape(rest);
                let at = pos;
                pos += len;
                if decoded == Some(wanted) {
                    break at;
                }
                continue;
            }
            let at = pos;
            pos += here.len_utf8();
            if here == wanted || (here == '\n' && wanted == ' ') {
                break at;
            }
        };
        offsets.extend(std::iter::repeat_n(found, wanted.len_utf8()));
    }
    offsets.push(pos);
    Some(offsets)
}

/// The character a double-quoted escape at the start of `rest` stands for
/// (`None` for an escaped line break, which stands for nothing) and its
/// length in the source.
fn escape(rest: &str) -> (Option<char>, usize) {
    let mut chars = rest.chars();
    chars.next();
    let Some(code) = chars.next() else {
        return (None, 1);
    };
    let hex = |digits: usize| {
        let text = rest.get(2..2 + digits)?;
        char::from_u32(u32::from_str_radix(text, 16).ok()?)
    };
    let simple = |c: char| (Some(c), 1 + code.len_utf8());
    match code {
        'x' => (hex(2), 4),
        'u' => (hex(4), 6),
        'U' => (hex(8), 10),
        'n' => simple('\n'),
        't' | '\t' => simple('\t'),
        'r' => simple('\r'),
        '0' => simple('\0'),
        'a' => simple('\u{7}'),
        'b' => simple('\u{8}'),
        'e' => simple('\u{1b}'),
        'f' => simple('\u{c}'),
        'v' => simple('\u{b}'),
        'N' => simple('\u{85}'),
        '_' => simple('\u{a0}'),
        'L' => simple('\u{2028}'),
        'P' => simple('\u{2029}'),
        '\n' | '\r' => (None, 2),
        other => simple(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_and_offset_agree() {
        let text = "a: 1\nbé: 2\nc: 3";
        for (line, col) in [(1, 1), (2, 1), (2, 3), (3, 4)] {
            let offset = offset_of(text, line, col);
            assert_eq!(line_col(text, offset), (line, col));
        }
        assert_eq!(offset_of(text, 9, 1), text.len());
    }

    /// The source offset of the value's `needle`, through the map.
    fn mapped(text: &str, value: &str, needle: &str) -> usize {
        let start = text.find(": ").unwrap() + 2;
        let offsets = scalar_offsets(text, start, value).unwrap();
        offsets[value.find(needle).unwrap()]
    }

    #[test]
    fn every_scalar_style_maps_back_to_its_source() {
        let cases = [
            ("k: a && bad\n", "a && bad"),
            ("k: a &&\n  b &&\n  bad\n", "a && b && bad"),
            ("k: 'it''s' && bad\n", "it's && bad"),
            (
                "k: \"\\\"q\\\" \\u00e9\n  && bad\"\n",
                "\"q\" \u{e9} && bad",
            ),
            ("k: >-\n  a &&\n    b\n  && bad\n", "a &&\n  b\n&& bad"),
            ("k: >\n  a &&\n  bad\n", "a && bad\n"),
            ("k: |\n  a &&\n  bad\n", "a &&\nbad\n"),
            ("k: |-  # note\n    a\n    bad\n", "a\nbad"),
        ];
        for (text, value) in cases {
            let at = mapped(text, value, "bad");
            assert_eq!(&text[at..at + 3], "bad", "{text:?}");
        }
    }

    #[test]
    fn a_value_not_in_the_source_has_no_map() {
        assert_eq!(scalar_offsets("k: abc", 3, "xyz"), None);
        assert_eq!(scalar_offsets("k: abc", 30, "a"), None);
    }
}

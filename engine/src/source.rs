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
}

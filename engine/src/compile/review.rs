//! Spots a generator marked for a person to review: a YAML comment
//! `# REVIEW: <what to check>` (as `turnstile init` writes above each guess).
//! Each is a warning, [`ProblemKind::Unreviewed`], at the comment's line and
//! column, until the comment is deleted; the bundle still compiles.

use crate::diag::{ProblemKind, RawProblem};
use crate::source::{FileId, Loc, SourceMap};

/// The comment that marks a spot for review.
pub const MARKER: &str = "# REVIEW:";

/// One warning per marker comment in the bundle's files.
pub(crate) fn markers(sources: &SourceMap) -> Vec<RawProblem> {
    let mut found = Vec::new();
    for (index, file) in sources.files().enumerate() {
        let Ok(id) = u32::try_from(index) else { break };
        let mut offset = 0;
        for line in file.text.split_inclusive('\n') {
            if let Some(at) = comment_marker(line) {
                let what = line.get(at + MARKER.len()..).unwrap_or("").trim();
                found.push(
                    RawProblem::new(
                        ProblemKind::Unreviewed,
                        Some(Loc {
                            file: FileId(id),
                            offset: offset + at,
                            len: MARKER.len(),
                        }),
                        format!("not reviewed yet: {what}"),
                    )
                    .label("marked for review")
                    .help("check the guess it marks (change it if it is wrong), then delete the comment"),
                );
            }
            offset += line.len();
        }
    }
    found
}

/// Where the marker starts in `line`, when it starts a YAML comment: at the
/// start of the line or after a blank.
fn comment_marker(line: &str) -> Option<usize> {
    line.match_indices(MARKER)
        .map(|(at, _)| at)
        .find(|&at| at == 0 || line.get(..at).is_some_and(|b| b.ends_with([' ', '\t'])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_comments_are_markers() {
        assert_eq!(comment_marker("# REVIEW: kind"), Some(0));
        assert_eq!(
            comment_marker("    kind: write  # REVIEW: guessed"),
            Some(17)
        );
        assert_eq!(comment_marker("text: \"a# REVIEW: b\""), None);
        assert_eq!(
            comment_marker("# review: lower case is a plain comment"),
            None
        );
    }

    #[test]
    fn each_marker_is_a_warning_at_its_line() {
        let mut sources = SourceMap::default();
        sources.add(
            "d.yaml".into(),
            "a: 1\n  # REVIEW: check a\nb: 2 # REVIEW: and b\n".into(),
        );
        let found = markers(&sources);
        assert_eq!(found.len(), 2);
        let (line, column) = sources.line_col(found[0].loc.unwrap()).unwrap();
        assert_eq!((line, column), (2, 3));
        assert_eq!(found[0].message, "not reviewed yet: check a");
        let (line, column) = sources.line_col(found[1].loc.unwrap()).unwrap();
        assert_eq!((line, column), (3, 6));
    }
}

//! `turnstile test --junit`: the results as JUnit XML, the format CI
//! systems read. One `testsuite` per test file; one `testcase` per
//! expectation and schedule (its name: conversation, schedule, line and
//! event), failed with the expected and observed verdicts; one errored
//! `testcase` per problem with a file (a malformed `expect`, a line the
//! importer refused).

use std::fmt::Write;

use super::{FileResult, details};

/// The whole document.
pub fn document(results: &[FileResult]) -> String {
    let tests: usize = results.iter().map(cases).sum();
    let failures: usize = results.iter().map(FileResult::failures).sum();
    let errors: usize = results.iter().map(|r| r.errors.len()).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"turnstile test\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\">"
    );
    for result in results {
        suite(&mut xml, result);
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn cases(result: &FileResult) -> usize {
    result.runs.iter().map(|r| r.checks.len()).sum::<usize>() + result.errors.len()
}

fn suite(xml: &mut String, result: &FileResult) {
    let file = result.file.display().to_string();
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">",
        escape(&file),
        cases(result),
        result.failures(),
        result.errors.len()
    );
    for run in &result.runs {
        for check in &run.checks {
            let name = format!(
                "{} [{}] line {}, event {} ({})",
                run.trace, run.schedule, check.line, check.event.0, check.kind
            );
            let _ = write!(
                xml,
                "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{}\"",
                escape(&file),
                escape(&name),
                escape(&file),
                check.line
            );
            if check.passed {
                xml.push_str("/>\n");
                continue;
            }
            let message = format!(
                "expected {}, observed {}",
                check.expected,
                check.observed.summary()
            );
            let _ = writeln!(
                xml,
                ">\n      <failure message=\"{}\" type=\"verdict\">{}</failure>\n    </testcase>",
                escape(&message),
                escape(&details(&check.observed).join("\n"))
            );
        }
    }
    for error in &result.errors {
        let line = error.line.map(|l| l.to_string()).unwrap_or_default();
        let _ = writeln!(
            xml,
            "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{line}\">\n      <error message=\"{}\" type=\"test file\"/>\n    </testcase>",
            escape(&file),
            escape(&format!("line {line}")),
            escape(&file),
            escape(&error.kind.to_string())
        );
    }
    xml.push_str("  </testsuite>\n");
}

/// Text for an XML attribute or element: the markup characters escaped
/// (as HTML escapes them), and the characters XML 1.0 cannot hold replaced.
fn escape(text: &str) -> String {
    let holdable: String = text
        .chars()
        .map(|c| match c {
            '\n' | '\t' | '\r' => c,
            c if u32::from(c) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => '\u{FFFD}',
            c => c,
        })
        .collect();
    crate::audit::esc(&holdable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_characters_xml_cannot_hold() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;\u{FFFD}"
        );
    }
}

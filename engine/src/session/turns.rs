//! The conversation as the judge reads it: each event rendered once as a
//! judge turn (a tool event's text cut at a limit while it is written), and
//! the last event of each role, so a question's key is known without
//! rendering its slice.

use turnstile_judge::dialogue::readable_text;
use turnstile_judge::{Role, Turn};
use turnstile_rules::EventIdx;

use crate::trace::Event;

/// The last event of each role so far, so a question's key is known
/// without rendering its slice.
#[derive(Clone, Copy, Debug, Default)]
pub struct LastTurns {
    user: Option<EventIdx>,
    agent: Option<EventIdx>,
    tool: Option<EventIdx>,
}

impl LastTurns {
    /// Notes event `k`.
    pub fn note(&mut self, k: EventIdx, event: &Event) {
        let slot = match role_of(event) {
            Role::User => &mut self.user,
            Role::Agent => &mut self.agent,
            Role::Tool => &mut self.tool,
        };
        *slot = Some(k);
    }

    /// The last agent message so far.
    pub fn last_agent(&self) -> Option<EventIdx> {
        self.agent
    }

    /// One past the last turn of `speaker` in `[from, now)` (`from` if none),
    /// where `now` is the next event: what [`super::questions::with_slices`] would show.
    pub fn slice_end(&self, speaker: Role, from: EventIdx) -> EventIdx {
        let last = match speaker {
            Role::User => self.user,
            Role::Agent => self.agent,
            Role::Tool => self.tool,
        };
        match last {
            Some(k) if k >= from => k.next(),
            _ => from,
        }
    }
}

fn role_of(event: &Event) -> Role {
    match event {
        Event::User { .. } | Event::Ticket { .. } => Role::User,
        Event::Agent { .. } => Role::Agent,
        Event::Call { .. }
        | Event::Result { .. }
        | Event::Approval { .. }
        | Event::Principal { .. } => Role::Tool,
    }
}

/// Longest rendering of a tool event shown to the judge.
const TOOL_TEXT_LIMIT: usize = 600;

/// Event `k` as the judge sees it. A tool event's text is written only as
/// far as the limit shows (a result's JSON can be far longer): the turn is
/// the one the whole text, cut at the limit, gives.
pub fn render(k: EventIdx, event: &Event) -> Turn {
    let (role, text) = match event {
        Event::User { text } => (Role::User, readable_text(text).into_owned()),
        Event::Ticket { text } => (Role::User, crate::extract::ticket_text(text)),
        Event::Agent { text } => (Role::Agent, readable_text(text).into_owned()),
        // The host's word, not the user's: no message to read.
        Event::Principal { id, .. } => (Role::Tool, format!("host principal {id}")),
        Event::Call { tool, args, .. } => (
            Role::Tool,
            clipped(TOOL_TEXT_LIMIT, format_args!("call {tool} {args}")),
        ),
        Event::Approval { .. } => (Role::Tool, super::classify::describe(event)),
        Event::Result { ok, content, .. } => {
            let outcome = if *ok { "result" } else { "error" };
            (
                Role::Tool,
                clipped(TOOL_TEXT_LIMIT, format_args!("{outcome} {content}")),
            )
        }
    };
    Turn::new(k.0, role, text)
}

/// `text` written up to `limit` bytes: whole if it fits, else its longest
/// prefix of at most `limit` bytes that ends on a character, followed by
/// `…`. The text is written only as far as that needs.
fn clipped(limit: usize, text: std::fmt::Arguments<'_>) -> String {
    use std::fmt::Write;
    // Room for one more character than the limit holds: a text that fills
    // it is longer than the limit.
    // Room for a call and its arguments in one allocation; a long result
    // grows it up to the limit.
    let mut out = Bounded {
        text: String::with_capacity(limit.min(256)),
        room: limit.saturating_add(4),
        full: false,
    };
    // An error only says the room ran out.
    let _ = out.write_fmt(text);
    let Bounded { mut text, full, .. } = out;
    if !full && text.len() <= limit {
        return text;
    }
    let mut cut = limit.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text.push('…');
    text
}

/// A `fmt::Write` that keeps at most `room` bytes (whole characters) and
/// stops the writing there.
struct Bounded {
    text: String,
    room: usize,
    full: bool,
}

impl std::fmt::Write for Bounded {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let left = self.room.saturating_sub(self.text.len());
        if s.len() <= left {
            self.text.push_str(s);
            return Ok(());
        }
        let mut cut = left;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.text.push_str(&s[..cut]);
        self.full = true;
        Err(std::fmt::Error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text written whole, then cut as the limit says: what `clipped`
    /// must give without writing past the limit.
    fn whole_then_cut(limit: usize, text: &str) -> String {
        if text.len() <= limit {
            return text.to_owned();
        }
        let mut cut = limit;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}…", &text[..cut])
    }

    #[test]
    fn a_clipped_text_is_the_whole_text_cut_at_the_limit() {
        // Characters of one to four bytes straddling the limit at every
        // offset, texts shorter than, equal to and longer than it, written
        // in one piece and in several.
        for filler in ["a", "é", "€", "𝄞"] {
            for len in 0..40 {
                let text: String = std::iter::repeat_n(filler, len).collect();
                for limit in [0, 1, 2, 3, 5, 8, 13, 20] {
                    let expected = whole_then_cut(limit, &text);
                    assert_eq!(
                        clipped(limit, format_args!("{text}")),
                        expected,
                        "{filler} × {len}, limit {limit}"
                    );
                    let (head, tail) = text.split_at(text.len() / 2 / filler.len() * filler.len());
                    assert_eq!(
                        clipped(limit, format_args!("{head}{tail}")),
                        expected,
                        "{filler} × {len} in two pieces, limit {limit}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_long_result_is_rendered_as_its_whole_text_cut() {
        let content = serde_json::json!({
            "items": (0..200).map(|i| format!("item «{i}»")).collect::<Vec<_>>(),
        });
        let event = Event::Result {
            id: "c1".to_owned(),
            ok: true,
            content: content.clone(),
        };
        let turn = render(EventIdx(3), &event);
        assert_eq!(
            turn.text,
            whole_then_cut(TOOL_TEXT_LIMIT, &format!("result {content}"))
        );
        let short = Event::Result {
            id: "c2".to_owned(),
            ok: false,
            content: serde_json::json!("no such order"),
        };
        assert_eq!(render(EventIdx(4), &short).text, "error \"no such order\"");
    }
}

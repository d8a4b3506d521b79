//! Position and node ids that cross module boundaries: an event's index in a
//! trace ([`EventIdx`]) and an encoded operand node ([`OperandId`]). Both
//! serialize as the bare integer, so reports and saved sessions keep their
//! shape; the crepe program keeps plain `u32`s and converts here.

use serde::{Deserialize, Serialize};

/// An event's index in a trace (0-based). [`EventIdx::FOREVER`] is past the
/// end of any trace: "until further notice".
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct EventIdx(pub u32);

impl EventIdx {
    /// An index past the end of any trace.
    pub const FOREVER: EventIdx = EventIdx(u32::MAX);

    /// The index of the `index`-th event; saturates at [`EventIdx::FOREVER`]
    /// (no trace is that long: the cap is far below).
    pub fn from_usize(index: usize) -> EventIdx {
        EventIdx(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// The index as a `usize`, for slicing the event log.
    pub fn as_usize(self) -> usize {
        self.0 as usize
    }

    /// The next event's index (saturating).
    pub fn next(self) -> EventIdx {
        EventIdx(self.0.saturating_add(1))
    }
}

impl std::fmt::Display for EventIdx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// An encoded operand node: an index into [`crate::Encoded::onodes`].
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct OperandId(pub u32);

impl OperandId {
    /// The index as a `usize`, for looking the node up.
    pub fn as_usize(self) -> usize {
        self.0 as usize
    }
}

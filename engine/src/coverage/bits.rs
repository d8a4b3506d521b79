//! [`ClassSet`]: a growable set of small indices (read tools, device fixes,
//! claims), so the automaton's alphabet has no fixed width: one inline word
//! covers the first 64 classes, more spill to the heap.

use serde::Serialize;
use smallvec::SmallVec;

/// A set of class indices as bit words. The last word is never zero (no
/// operation clears a bit), so equal sets have equal words and the derived
/// `Eq`, `Ord` and `Hash` are the set's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassSet(SmallVec<[u64; 1]>);

impl ClassSet {
    /// The set holding `i` alone.
    pub fn single(i: usize) -> ClassSet {
        let mut set = ClassSet::default();
        set.insert(i);
        set
    }

    /// Adds `i`.
    pub fn insert(&mut self, i: usize) {
        let word = i / 64;
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        if let Some(w) = self.0.get_mut(word) {
            *w |= 1u64 << (i % 64);
        }
    }

    /// Whether `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// The set with `i` added.
    pub fn with(&self, i: usize) -> ClassSet {
        let mut set = self.clone();
        set.insert(i);
        set
    }

    /// The union of the set and `other`.
    pub fn union(&self, other: &ClassSet) -> ClassSet {
        let mut set = self.clone();
        for i in other.iter() {
            set.insert(i);
        }
        set
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The indices in the set, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, word)| {
            (0..64)
                .filter(move |b| word >> b & 1 == 1)
                .map(move |b| w * 64 + b)
        })
    }
}

/// Serialised as the list of its indices.
impl Serialize for ClassSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_past_64_are_kept_and_equal_sets_compare_equal() {
        let mut a = ClassSet::default();
        for i in [0, 63, 64, 130, 200] {
            a.insert(i);
        }
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![0, 63, 64, 130, 200]);
        assert!(a.contains(130) && !a.contains(129) && !a.contains(1000));
        let b = [200, 130, 64, 63, 0]
            .into_iter()
            .fold(ClassSet::default(), |s, i| s.with(i));
        assert_eq!(a, b);
        assert_ne!(a, ClassSet::single(200));
        assert_eq!(
            ClassSet::single(3).union(&ClassSet::single(70)),
            ClassSet::single(70).with(3)
        );
        assert_eq!(a.union(&ClassSet::default()), a);
        assert!(ClassSet::default().is_empty() && !b.is_empty());
        assert_eq!(
            serde_json::to_string(&ClassSet::single(65)).unwrap(),
            "[65]"
        );
    }
}

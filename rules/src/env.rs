//! Request bindings: which symbol each request variable (`$user`, `$order`,
//! ...) is bound to. A small fixed-size value so the Datalog program and the
//! monitor can copy, hash and order it freely.

use serde::{Deserialize, Serialize};

use crate::intern::Symbol;
use crate::ir::VarId;

/// The most request variables a bundle may declare.
pub const MAX_VARS: usize = 8;

/// A request's bindings: for every variable, the bound symbol or nothing.
///
/// Stored as "symbol + 1" per slot with 0 for unbound, so the derived order
/// (unbound first, then by symbol) and the serialized form are those of the
/// plain array; no caller sees the offset.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Env([u32; MAX_VARS]);

impl Env {
    /// No variable bound.
    pub const EMPTY: Env = Env([0; MAX_VARS]);

    /// The greatest possible bindings: the upper end of a range over every `Env`.
    pub(crate) const MAX: Env = Env([u32::MAX; MAX_VARS]);

    /// The symbol bound to `var`, if any.
    pub fn get(&self, var: VarId) -> Option<Symbol> {
        self.0
            .get(var.0 as usize)
            .and_then(|slot| slot.checked_sub(1))
            .map(Symbol)
    }

    /// These bindings with `var` bound to `value` (a variable beyond
    /// [`MAX_VARS`] is ignored; the bundle loader refuses such bundles).
    #[must_use]
    pub fn with(mut self, var: VarId, value: Symbol) -> Env {
        if let Some(slot) = self.0.get_mut(var.0 as usize) {
            *slot = value.0.saturating_add(1);
        }
        self
    }

    /// These bindings with `var` unbound.
    #[must_use]
    pub fn without(mut self, var: VarId) -> Env {
        if let Some(slot) = self.0.get_mut(var.0 as usize) {
            *slot = 0;
        }
        self
    }

    /// Whether `var` is bound.
    pub fn is_bound(&self, var: VarId) -> bool {
        self.get(var).is_some()
    }

    /// Whether no variable is bound.
    pub fn is_empty(&self) -> bool {
        *self == Env::EMPTY
    }

    /// The bound variables with their symbols, in variable order.
    pub fn bound(&self) -> impl Iterator<Item = (VarId, Symbol)> + '_ {
        (0..MAX_VARS as u32).filter_map(|v| self.get(VarId(v)).map(|s| (VarId(v), s)))
    }

    /// How many variables are bound.
    pub fn bound_count(&self) -> usize {
        self.0.iter().filter(|slot| **slot != 0).count()
    }

    /// Whether every variable in `mask` (bit `i` for variable `i`) is bound.
    pub fn binds_all(&self, mask: u32) -> bool {
        self.0
            .iter()
            .enumerate()
            .all(|(i, slot)| mask & (1 << i) == 0 || *slot != 0)
    }

    /// `other` can extend these bindings: every variable `other` sets is
    /// either set equally here, or unset here and bound by the step (`binds`
    /// mask).
    pub fn joinable(&self, other: &Env, binds: u32) -> bool {
        self.0
            .iter()
            .zip(other.0.iter())
            .enumerate()
            .all(|(i, (e, q))| *q == 0 || *e == *q || (*e == 0 && binds & (1 << i) != 0))
    }

    /// These bindings with `other`'s added where there are none.
    #[must_use]
    pub fn merge(&self, other: &Env) -> Env {
        let mut out = *self;
        for (o, q) in out.0.iter_mut().zip(other.0.iter()) {
            if *o == 0 {
                *o = *q;
            }
        }
        out
    }

    /// These bindings restricted to the variables in `mask`.
    #[must_use]
    pub fn project(&self, mask: u32) -> Env {
        let mut out = Env::EMPTY;
        for (i, (o, v)) in out.0.iter_mut().zip(self.0.iter()).enumerate() {
            if mask & (1 << i) != 0 {
                *o = *v;
            }
        }
        out
    }

    /// These bindings bind everything `narrower` binds, to the same values.
    pub fn extends(&self, narrower: &Env) -> bool {
        self.0
            .iter()
            .zip(narrower.0.iter())
            .all(|(w, n)| *n == 0 || w == n)
    }

    /// No variable is bound to different symbols in the two.
    pub fn agrees(&self, other: &Env) -> bool {
        self.0
            .iter()
            .zip(other.0.iter())
            .all(|(x, y)| *x == 0 || *y == 0 || x == y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_round_trip_without_offsets() {
        let env = Env::EMPTY.with(VarId(2), Symbol(0));
        assert_eq!(env.get(VarId(2)), Some(Symbol(0)));
        assert!(env.is_bound(VarId(2)));
        assert!(!env.is_bound(VarId(0)));
        assert_eq!(env.get(VarId(99)), None);
        assert_eq!(env.with(VarId(99), Symbol(1)), env);
        assert_eq!(env.bound().collect::<Vec<_>>(), vec![(VarId(2), Symbol(0))]);
        assert_eq!(env.bound_count(), 1);
        assert!(Env::EMPTY < env);
    }

    #[test]
    fn join_merge_project_extend() {
        let a = Env::EMPTY.with(VarId(0), Symbol(1));
        let b = Env::EMPTY.with(VarId(1), Symbol(2));
        assert!(a.joinable(&b, 0b10));
        assert!(!a.joinable(&b, 0b01));
        let ab = a.merge(&b);
        assert!(ab.extends(&a) && ab.extends(&b) && !a.extends(&ab));
        assert_eq!(ab.project(0b01), a);
        assert!(ab.binds_all(0b11) && !a.binds_all(0b11));
        assert!(a.agrees(&b));
        assert!(!a.agrees(&Env::EMPTY.with(VarId(0), Symbol(3))));
    }
}

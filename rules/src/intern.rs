//! String interning: every name and string value becomes a dense `u32` symbol,
//! so facts compare and hash as integers.

use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

/// An interned string. Only meaningful together with the [`Interner`] that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Symbol(pub u32);

/// Maps strings to dense symbols and back. Symbols are handed out in first-seen
/// order, which keeps compilation deterministic.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Interner {
    names: Vec<Box<str>>,
    #[serde(skip)]
    index: HashMap<Box<str>, Symbol>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// The symbol for `name`, allocating one on first sight.
    pub fn intern(&mut self, name: &str) -> Symbol {
        if let Some(symbol) = self.get(name) {
            return symbol;
        }
        let symbol = Symbol(u32::try_from(self.names.len()).unwrap_or(u32::MAX));
        self.names.push(name.into());
        self.index.insert(name.into(), symbol);
        symbol
    }

    /// The symbol for `name` if it was interned before.
    pub fn get(&self, name: &str) -> Option<Symbol> {
        if self.index.len() != self.names.len() {
            // A deserialized interner has no index yet; a linear scan keeps
            // lookups correct without making `get` take `&mut self`.
            return self
                .names
                .iter()
                .position(|n| &**n == name)
                .and_then(|i| u32::try_from(i).ok())
                .map(Symbol);
        }
        self.index.get(name).copied()
    }

    /// The string behind `symbol`; `"?"` for a symbol from another interner.
    pub fn resolve(&self, symbol: Symbol) -> &str {
        self.names
            .get(symbol.0 as usize)
            .map(|s| &**s)
            .unwrap_or("?")
    }

    /// Rebuilds the lookup index after deserialization.
    pub fn reindex(&mut self) {
        self.index = self
            .names
            .iter()
            .enumerate()
            .filter_map(|(i, n)| u32::try_from(i).ok().map(|i| (n.clone(), Symbol(i))))
            .collect();
    }

    /// How many symbols are interned.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable_and_reversible() {
        let mut interner = Interner::new();
        let a = interner.intern("pending");
        let b = interner.intern("delivered");
        assert_eq!(interner.intern("pending"), a);
        assert_ne!(a, b);
        assert_eq!(interner.resolve(b), "delivered");
        assert_eq!(interner.get("cancelled"), None);
        assert_eq!(interner.resolve(Symbol(99)), "?");
    }

    #[test]
    fn reindexed_interner_finds_old_symbols() {
        let mut interner = Interner::new();
        let a = interner.intern("x");
        let mut copy = Interner {
            names: interner.names.clone(),
            index: HashMap::new(),
        };
        assert_eq!(copy.get("x"), Some(a));
        copy.reindex();
        assert_eq!(copy.get("x"), Some(a));
        assert_eq!(copy.intern("y"), Symbol(1));
    }
}

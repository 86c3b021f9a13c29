//! The transposition table: one entry per slot, indexed by the position key (which
//! includes the hands and the gating rights), replaced when the new result searched at
//! least as deep or the slot holds another position.

use schess::Move;

/// What a stored score says about the true value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The value is at least the score (a move reached beta).
    Lower,
    /// The value is at most the score (no move reached alpha).
    Upper,
}

#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub key: u64,
    pub mv: Option<Move>,
    /// In table form ([`super::score::to_table`]).
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

pub struct Table {
    slots: Vec<Option<Entry>>,
}

impl Table {
    /// A table of about `mb` MiB.
    pub fn new(mb: usize) -> Table {
        let n = (mb.max(1) << 20) / std::mem::size_of::<Option<Entry>>();
        Table { slots: vec![None; n.max(1024)] }
    }

    fn index(&self, key: u64) -> usize {
        // Multiply-shift onto the table size: uses the key's high bits, whatever the size.
        ((u128::from(key) * self.slots.len() as u128) >> 64) as usize
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[self.index(key)].filter(|e| e.key == key)
    }

    pub fn store(&mut self, entry: Entry) {
        let i = self.index(entry.key);
        let keep = self.slots[i].is_some_and(|old| old.key == entry.key && old.depth > entry.depth);
        if !keep {
            self.slots[i] = Some(entry);
        }
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_probes_and_keeps_the_deeper_result() {
        let mut t = Table::new(1);
        let e = |key, depth, score| Entry { key, mv: None, score, depth, bound: Bound::Exact };
        t.store(e(42, 3, 10));
        assert_eq!(t.probe(42).unwrap().score, 10);
        assert!(t.probe(43).is_none());
        t.store(e(42, 1, 20));
        assert_eq!(t.probe(42).unwrap().score, 10, "a shallower result of the same position is not kept");
        t.store(e(42, 3, 30));
        assert_eq!(t.probe(42).unwrap().score, 30);
        t.clear();
        assert!(t.probe(42).is_none());
    }
}

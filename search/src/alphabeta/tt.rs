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
    /// Slots once the first result is stored: a table costs nothing until a search uses
    /// it (an engine is made, set up and cleared more often than it searches).
    slots: Vec<Option<Entry>>,
    /// Slots wanted; fewer when the memory cannot be had (see [`Table::allocate`]).
    len: usize,
}

impl Table {
    /// A table of about `mb` MiB.
    pub fn new(mb: usize) -> Table {
        let n = mb.max(1).saturating_mul(1 << 20) / std::mem::size_of::<Option<Entry>>();
        Table { slots: Vec::new(), len: n.max(1024) }
    }

    /// Allocates the slots, halving the size until the allocator grants it (a `Hash`
    /// beyond the machine's memory gives the largest table it has, not an abort).
    fn allocate(&mut self) {
        let mut slots = Vec::new();
        while slots.try_reserve_exact(self.len).is_err() && self.len > 1024 {
            self.len /= 2;
        }
        slots.resize(self.len, None);
        self.slots = slots;
    }

    fn index(&self, key: u64) -> usize {
        // Multiply-shift onto the table size: uses the key's high bits, whatever the size.
        ((u128::from(key) * self.len as u128) >> 64) as usize
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots.get(self.index(key)).copied().flatten().filter(|e| e.key == key)
    }

    pub fn store(&mut self, entry: Entry) {
        if self.slots.is_empty() {
            self.allocate();
        }
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

    #[test]
    fn memory_is_taken_at_the_first_store() {
        let mut t = Table::new(64);
        assert!(t.slots.is_empty() && t.probe(7).is_none());
        t.clear();
        let e = Entry { key: 7, mv: None, score: 1, depth: 1, bound: Bound::Exact };
        t.store(e);
        assert_eq!(t.probe(7).unwrap().score, 1);
        assert_eq!(t.slots.len(), t.len);
    }
}

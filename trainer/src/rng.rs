//! The data-order random number generator.
//!
//! Our own (SplitMix64) rather than `rand`'s, because a checkpoint must store its state
//! and restore it exactly: here the whole state is one `u64`.

/// SplitMix64 (Steele, Lea & Flood 2014): passes BigCrush, one word of state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rng {
    state: u64,
}

impl Rng {
    /// A generator seeded with `seed`; `stream` separates independent uses of one seed.
    pub(crate) fn new(seed: u64, stream: u64) -> Rng {
        let mut r = Rng { state: seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03) };
        r.next_u64();
        r
    }

    /// Restores a generator from [`Rng::state`].
    pub(crate) fn from_state(state: u64) -> Rng {
        Rng { state }
    }

    pub(crate) fn state(&self) -> u64 {
        self.state
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), without modulo bias (Lemire's method).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        let n = n as u64;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            let low = m as u64;
            if low >= n.wrapping_neg() % n {
                return (m >> 64) as usize;
            }
        }
    }

    /// Fisher-Yates shuffle.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_restorable() {
        let mut a = Rng::new(7, 1);
        let first: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let mut b = Rng::new(7, 1);
        assert_eq!(first, (0..5).map(|_| b.next_u64()).collect::<Vec<_>>());
        let mut c = Rng::from_state(a.state());
        assert_eq!(a.next_u64(), c.next_u64());
        assert_ne!(Rng::new(7, 2).next_u64(), Rng::new(7, 1).next_u64());
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::new(1, 0);
        let mut counts = [0usize; 6];
        for _ in 0..60_000 {
            counts[r.below(6)] += 1;
        }
        assert!(counts.iter().all(|&c| (9_000..11_000).contains(&c)), "{counts:?}");
        let mut v: Vec<u32> = (0..50).collect();
        r.shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_ne!(v, sorted);
    }
}

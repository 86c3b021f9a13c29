//! Attack tables. Leaper tables and the between/line tables are computed at compile time
//! (`const fn`); the sliding tables come from `build.rs` as fancy magic bitboards.

use crate::bitboard::Bitboard;
use crate::types::{Color, Square};

pub(crate) struct Magic {
    pub mask: u64,
    pub magic: u64,
    pub shift: u32,
    pub offset: usize,
}

include!(concat!(env!("OUT_DIR"), "/magics.rs"));

const fn leaper_table(deltas: &[(i32, i32)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut i = 0;
        while i < deltas.len() {
            let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                table[sq] |= 1u64 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

static KNIGHT: [u64; 64] = leaper_table(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]);
static KING: [u64; 64] = leaper_table(&[(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]);
static PAWN: [[u64; 64]; 2] = [leaper_table(&[(-1, 1), (1, 1)]), leaper_table(&[(-1, -1), (1, -1)])];

const DIRS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];

/// `BETWEEN[a][b]`: squares strictly between two aligned squares, else empty.
/// `LINE[a][b]`: the whole line through two aligned squares, else empty.
const fn ray_tables() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    let mut between = [[0u64; 64]; 64];
    let mut line = [[0u64; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let (fa, ra) = ((a % 8) as i32, (a / 8) as i32);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = DIRS[d];
            // Full line through `a` in this direction and its opposite.
            let mut full = 1u64 << a;
            let mut k = 1;
            while k < 8 {
                let (f1, r1) = (fa + df * k, ra + dr * k);
                if f1 >= 0 && f1 < 8 && r1 >= 0 && r1 < 8 {
                    full |= 1u64 << (r1 * 8 + f1);
                }
                let (f2, r2) = (fa - df * k, ra - dr * k);
                if f2 >= 0 && f2 < 8 && r2 >= 0 && r2 < 8 {
                    full |= 1u64 << (r2 * 8 + f2);
                }
                k += 1;
            }
            let mut acc = 0u64;
            let (mut f, mut r) = (fa + df, ra + dr);
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                let b = (r * 8 + f) as usize;
                between[a][b] = acc;
                line[a][b] = full;
                acc |= 1u64 << b;
                f += df;
                r += dr;
            }
            d += 1;
        }
        a += 1;
    }
    (between, line)
}

static RAYS: ([[u64; 64]; 64], [[u64; 64]; 64]) = ray_tables();

#[inline]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}

#[inline]
fn magic_lookup(m: &Magic, occupied: Bitboard) -> Bitboard {
    let idx = ((occupied.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize;
    Bitboard(SLIDER_TABLE[m.offset + idx])
}

#[inline]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&ROOK_MAGICS[sq.index()], occupied)
}

#[inline]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&BISHOP_MAGICS[sq.index()], occupied)
}

#[inline]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// Squares strictly between `a` and `b` if they share a rank, file or diagonal.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(RAYS.0[a.index()][b.index()])
}

/// The full line through `a` and `b` (edge to edge) if aligned, else empty.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(RAYS.1[a.index()][b.index()])
}

#[inline]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    #[test]
    fn sliders_match_naive() {
        // A few occupancies checked against a slow ray walk.
        let occs = [0u64, 0x0000_0010_0800_2400, 0xffff_0000_0000_ffff, 0x5555_aaaa_5555_aaaa];
        for s in Square::all() {
            for &o in &occs {
                let occ = Bitboard(o);
                let mut r = 0u64;
                let mut b = 0u64;
                for (i, &(df, dr)) in DIRS.iter().enumerate() {
                    let (mut f, mut rk) = (s.file().index() as i32 + df, s.rank().index() as i32 + dr);
                    while (0..8).contains(&f) && (0..8).contains(&rk) {
                        let bit = 1u64 << (rk * 8 + f);
                        if i < 4 {
                            r |= bit
                        } else {
                            b |= bit
                        }
                        if o & bit != 0 {
                            break;
                        }
                        f += df;
                        rk += dr;
                    }
                }
                assert_eq!(rook_attacks(s, occ).0, r, "rook {s}");
                assert_eq!(bishop_attacks(s, occ).0, b, "bishop {s}");
            }
        }
    }

    #[test]
    fn rays() {
        assert_eq!(between(sq("a1"), sq("a4")), Bitboard::from_square(sq("a2")).with(sq("a3")));
        assert!(between(sq("a1"), sq("b3")).is_empty());
        assert!(line(sq("a1"), sq("c3")).contains(sq("h8")));
        assert!(line(sq("a1"), sq("b3")).is_empty());
        assert_eq!(knight_attacks(sq("a1")).count(), 2);
        assert_eq!(king_attacks(sq("e4")).count(), 8);
        assert_eq!(pawn_attacks(Color::White, sq("e4")), Bitboard::from_square(sq("d5")).with(sq("f5")));
    }
}

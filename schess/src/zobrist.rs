//! Zobrist keys, generated at compile time from a fixed seed (so keys are stable across
//! builds and can be stored in training data and caches).
//!
//! The key covers everything that makes two positions the same for repetition: pieces,
//! side to move, castling rights, the en-passant square (only when it is set, which this
//! crate does only when a capture is pseudo-legal), the hands, and the gating rights.
//! Fairy-Stockfish leaves gating rights out of its key; we keep them in, as castling rights
//! are kept in orthodox chess (see the crate docs).

use crate::types::{Color, File, HandPiece, Role, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const PIECE_KEYS: usize = 2 * 8 * 64;
// Appended keys go last, so that older keys never change.
const TOTAL: usize = PIECE_KEYS + 64 + 64 + 8 + 4 + 1 + 32;

const fn keys() -> [u64; TOTAL] {
    let mut out = [0u64; TOTAL];
    let mut state = 0x5E_ED5C_4E55_u64;
    let mut i = 0;
    while i < TOTAL {
        let (s, v) = splitmix(state);
        state = s;
        out[i] = v;
        i += 1;
    }
    out
}

static KEYS: [u64; TOTAL] = keys();
const CASTLE_BASE: usize = PIECE_KEYS;
const GATE_BASE: usize = CASTLE_BASE + 64;
const EP_BASE: usize = GATE_BASE + 64;
const HAND_BASE: usize = EP_BASE + 8;
const TURN: usize = HAND_BASE + 4;
const ASSIGN_BASE: usize = TURN + 1;

#[inline]
pub(crate) fn piece(color: Color, role: Role, sq: Square) -> u64 {
    KEYS[(color.index() * 8 + role.index()) * 64 + sq.index()]
}
/// Castling right whose rook stands on `sq`.
#[inline]
pub(crate) fn castle(sq: Square) -> u64 {
    KEYS[CASTLE_BASE + sq.index()]
}
/// Gating right on `sq`.
#[inline]
pub(crate) fn gate(sq: Square) -> u64 {
    KEYS[GATE_BASE + sq.index()]
}
#[inline]
pub(crate) fn ep(sq: Square) -> u64 {
    KEYS[EP_BASE + sq.file().index()]
}
#[inline]
pub(crate) fn hand(color: Color, p: HandPiece) -> u64 {
    KEYS[HAND_BASE + color.index() * 2 + p.index()]
}
#[inline]
pub(crate) fn black_to_move() -> u64 {
    KEYS[TURN]
}
/// `Placement`: `color`'s hand piece `p` is assigned to `file`.
#[inline]
pub(crate) fn assign(color: Color, p: HandPiece, file: File) -> u64 {
    KEYS[ASSIGN_BASE + (color.index() * 2 + p.index()) * 8 + file.index()]
}

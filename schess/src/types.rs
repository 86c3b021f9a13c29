//! Small value types: colours, piece roles, pieces, files, ranks and squares.

use std::fmt;

/// The two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other side.
    #[inline]
    #[must_use]
    pub const fn flip(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// The side's own back rank (where gating happens).
    #[inline]
    pub const fn back_rank(self) -> Rank {
        match self {
            Color::White => Rank::First,
            Color::Black => Rank::Eighth,
        }
    }

    #[inline]
    pub const fn char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.flip()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The kind of a piece, independent of its colour.
///
/// `Elephant` moves as rook + knight, `Hawk` as bishop + knight. Their sliding parts are
/// blocked like a rook's or bishop's; only the knight part leaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Pawn = 0,
    Knight = 1,
    Bishop = 2,
    Rook = 3,
    Queen = 4,
    King = 5,
    Elephant = 6,
    Hawk = 7,
}

impl Role {
    pub const ALL: [Role; 8] =
        [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King, Role::Elephant, Role::Hawk];

    /// Promotion choices in the order moves are generated.
    pub const PROMOTIONS: [Role; 6] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Elephant, Role::Hawk];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Upper-case letter (SAN, white FEN pieces).
    pub const fn upper_char(self) -> char {
        match self {
            Role::Pawn => 'P',
            Role::Knight => 'N',
            Role::Bishop => 'B',
            Role::Rook => 'R',
            Role::Queen => 'Q',
            Role::King => 'K',
            Role::Elephant => 'E',
            Role::Hawk => 'H',
        }
    }

    /// Lower-case letter (UCI promotion and gate suffixes, black FEN pieces).
    pub const fn lower_char(self) -> char {
        self.upper_char().to_ascii_lowercase()
    }

    /// Parses a piece letter of either case.
    pub fn from_char(c: char) -> Option<Role> {
        Some(match c.to_ascii_uppercase() {
            'P' => Role::Pawn,
            'N' => Role::Knight,
            'B' => Role::Bishop,
            'R' => Role::Rook,
            'Q' => Role::Queen,
            'K' => Role::King,
            'E' => Role::Elephant,
            'H' => Role::Hawk,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
            Role::Elephant => "elephant",
            Role::Hawk => "hawk",
        }
    }
}

/// A piece that can be held in hand and gated: only the Elephant and the Hawk.
///
/// A separate type so that a gate can never name a pawn, a king or a queen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HandPiece {
    Elephant = 0,
    Hawk = 1,
}

impl HandPiece {
    pub const ALL: [HandPiece; 2] = [HandPiece::Elephant, HandPiece::Hawk];

    /// The other hand piece.
    #[inline]
    pub const fn other(self) -> HandPiece {
        match self {
            HandPiece::Elephant => HandPiece::Hawk,
            HandPiece::Hawk => HandPiece::Elephant,
        }
    }

    #[inline]
    pub const fn role(self) -> Role {
        match self {
            HandPiece::Elephant => Role::Elephant,
            HandPiece::Hawk => Role::Hawk,
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    pub fn from_role(role: Role) -> Option<HandPiece> {
        match role {
            Role::Elephant => Some(HandPiece::Elephant),
            Role::Hawk => Some(HandPiece::Hawk),
            _ => None,
        }
    }

    pub fn from_char(c: char) -> Option<HandPiece> {
        Role::from_char(c).and_then(HandPiece::from_role)
    }
}

/// A coloured piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

impl Piece {
    /// FEN letter: upper case for White.
    pub fn char(self) -> char {
        match self.color {
            Color::White => self.role.upper_char(),
            Color::Black => self.role.lower_char(),
        }
    }

    pub fn from_char(c: char) -> Option<Piece> {
        let role = Role::from_char(c)?;
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        Some(Piece { color, role })
    }
}

/// A file, `a` to `h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct File(u8);

impl File {
    pub const A: File = File(0);
    pub const B: File = File(1);
    pub const C: File = File(2);
    pub const D: File = File(3);
    pub const E: File = File(4);
    pub const F: File = File(5);
    pub const G: File = File(6);
    pub const H: File = File(7);
    /// a to h.
    pub const ALL: [File; 8] = [File::A, File::B, File::C, File::D, File::E, File::F, File::G, File::H];

    pub const fn new(index: u8) -> Option<File> {
        if index < 8 {
            Some(File(index))
        } else {
            None
        }
    }
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    pub fn from_char(c: char) -> Option<File> {
        match c {
            'a'..='h' => Some(File(c as u8 - b'a')),
            _ => None,
        }
    }
    pub const fn char(self) -> char {
        (b'a' + self.0) as char
    }
    pub const fn upper_char(self) -> char {
        (b'A' + self.0) as char
    }
}

/// A rank, `1` to `8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    First = 0,
    Second,
    Third,
    Fourth,
    Fifth,
    Sixth,
    Seventh,
    Eighth,
}

impl Rank {
    pub const ALL: [Rank; 8] =
        [Rank::First, Rank::Second, Rank::Third, Rank::Fourth, Rank::Fifth, Rank::Sixth, Rank::Seventh, Rank::Eighth];
    pub const fn new(index: u8) -> Option<Rank> {
        if index < 8 {
            Some(Rank::ALL[index as usize])
        } else {
            None
        }
    }
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
    pub fn from_char(c: char) -> Option<Rank> {
        match c {
            '1'..='8' => Rank::new(c as u8 - b'1'),
            _ => None,
        }
    }
    pub const fn char(self) -> char {
        (b'1' + self as u8) as char
    }
    /// The rank as seen from `color`'s side (White's first rank is Black's eighth).
    pub const fn relative(self, color: Color) -> Rank {
        match color {
            Color::White => self,
            Color::Black => Rank::ALL[7 - self as usize],
        }
    }
}

/// A square, `a1` = 0 to `h8` = 63 (little-endian rank-file mapping).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const A1: Square = Square(0);
    pub const B1: Square = Square(1);
    pub const C1: Square = Square(2);
    pub const D1: Square = Square(3);
    pub const E1: Square = Square(4);
    pub const F1: Square = Square(5);
    pub const G1: Square = Square(6);
    pub const H1: Square = Square(7);
    pub const A8: Square = Square(56);
    pub const C8: Square = Square(58);
    pub const D8: Square = Square(59);
    pub const E8: Square = Square(60);
    pub const F8: Square = Square(61);
    pub const G8: Square = Square(62);
    pub const H8: Square = Square(63);

    /// The square with this index, if it is in `0..64`.
    #[inline]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// For indices known to be in range (bit scans of a bitboard).
    #[inline]
    pub(crate) const fn new_unchecked(index: u32) -> Square {
        debug_assert!(index < 64);
        Square((index & 63) as u8)
    }

    #[inline]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square(rank as u8 * 8 + file.0)
    }
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    #[inline]
    pub const fn file(self) -> File {
        File(self.0 & 7)
    }
    #[inline]
    pub const fn rank(self) -> Rank {
        Rank::ALL[(self.0 >> 3) as usize]
    }
    /// Mirror vertically (a1 <-> a8): the board as seen from Black's side.
    #[inline]
    #[must_use]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }
    /// Offset by `delta` squares, if the result stays on the board (no wrap check).
    #[inline]
    pub(crate) const fn offset(self, delta: i8) -> Option<Square> {
        let v = self.0 as i16 + delta as i16;
        if v >= 0 && v < 64 {
            Some(Square(v as u8))
        } else {
            None
        }
    }

    /// Parses `e4`-style names.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        Some(Square::from_coords(File::from_char(b[0] as char)?, Rank::from_char(b[1] as char)?))
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for sq in Square::all() {
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
        assert_eq!(Square::parse("e4").unwrap().index(), 28);
        assert_eq!(Square::parse("i1"), None);
        assert_eq!(Square::parse("a9"), None);
        assert_eq!(Square::parse("a"), None);
    }
}

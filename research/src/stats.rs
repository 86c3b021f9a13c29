//! Gating statistics of a set of games: when the Elephant and the Hawk enter, on which
//! square and behind which piece, which one comes first, how often one never enters, and
//! how each of these goes with the game's result and with the network's generation.
//!
//! The unit of most statistics is a *side-game* (one side of one game): gating is a
//! decision of one side, and its result is that side's score. Only side-games that began
//! with at least one piece in hand count (an orthodox `chess` game, the control, has
//! none), so mixing variants never dilutes the gating figures.

use schess::{CastleGate, Color, File, Hand, HandPiece, Move, Position, Role, Square, Variant};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// What left the square a piece was gated onto.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GateVia {
    King,
    Queen,
    Rook,
    Bishop,
    Knight,
    /// Castling with the gate on the king's origin square (`e1g1h`).
    CastleKingSquare,
    /// Castling with the gate on the rook's origin square (`h1e1h`).
    CastleRookSquare,
    /// Anything else (only reachable from unusual set-up positions).
    Other,
}

impl GateVia {
    pub const ALL: [GateVia; 8] = [
        GateVia::King,
        GateVia::Queen,
        GateVia::Rook,
        GateVia::Bishop,
        GateVia::Knight,
        GateVia::CastleKingSquare,
        GateVia::CastleRookSquare,
        GateVia::Other,
    ];

    /// Classifies a gating move by the piece that vacates the gated square; `None` for a
    /// move without a gate.
    pub fn of(pos: &Position, m: Move) -> Option<GateVia> {
        match m {
            Move::Castle { gate: Some((_, CastleGate::King)), .. } => Some(GateVia::CastleKingSquare),
            Move::Castle { gate: Some((_, CastleGate::Rook)), .. } => Some(GateVia::CastleRookSquare),
            Move::Normal { from, gate: Some(_), .. } => Some(match pos.role_at(from) {
                Some(Role::King) => GateVia::King,
                Some(Role::Queen) => GateVia::Queen,
                Some(Role::Rook) => GateVia::Rook,
                Some(Role::Bishop) => GateVia::Bishop,
                Some(Role::Knight) => GateVia::Knight,
                _ => GateVia::Other,
            }),
            _ => None,
        }
    }

    /// Stable machine-readable name (CSV, JSON).
    pub fn name(self) -> &'static str {
        match self {
            GateVia::King => "king",
            GateVia::Queen => "queen",
            GateVia::Rook => "rook",
            GateVia::Bishop => "bishop",
            GateVia::Knight => "knight",
            GateVia::CastleKingSquare => "castling-king-square",
            GateVia::CastleRookSquare => "castling-rook-square",
            GateVia::Other => "other",
        }
    }
}

/// Name of a hand piece for tables: `E` or `H`.
pub fn piece_letter(p: HandPiece) -> char {
    p.role().upper_char()
}

/// One piece entering the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateEvent {
    pub color: Color,
    pub piece: HandPiece,
    pub square: Square,
    pub via: GateVia,
    /// Index of the move in the game (0 = first move).
    pub ply: u32,
    /// The move's number as a PGN numbers it (fullmove number of the position before it).
    pub move_number: u32,
}

impl GateEvent {
    /// The gate that `m` makes in `pos`, if any (`ply` is the move's index in its game).
    pub fn of(pos: &Position, m: Move, ply: u32) -> Option<GateEvent> {
        let (piece, square) = m.gate()?;
        Some(GateEvent {
            color: pos.turn(),
            piece,
            square,
            via: GateVia::of(pos, m)?,
            ply,
            move_number: pos.fullmove_number(),
        })
    }
}

/// A hand piece assigned to a file (`seirawan-placement`'s opening moves, `E@d`): the
/// choice of where a piece will enter, made before any board move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacementEvent {
    pub color: Color,
    pub piece: HandPiece,
    pub file: File,
    /// Index of the move in the game (0 = first move).
    pub ply: u32,
}

/// Everything the statistics need of one game (positions are not kept: 10,000 games fit
/// in a few megabytes).
#[derive(Debug, Clone, PartialEq)]
pub struct GameSummary {
    pub variant: Variant,
    /// Network generation that played it; `None` for games from PGN files.
    pub generation: Option<u32>,
    /// From White's view: 1 win, 0 draw, -1 loss; `None` when unknown (PGN `*`).
    pub result: Option<i8>,
    pub termination: String,
    pub plies: u32,
    /// Hands at the start and at the end of the game, by colour index.
    pub start_hands: [Hand; 2],
    pub end_hands: [Hand; 2],
    /// Whether each side still had a square to gate on at the end.
    pub end_gating_rights: [bool; 2],
    /// Gates in the order they happened.
    pub gates: Vec<GateEvent>,
    /// Placements (file assignments) in the order they happened; empty but in
    /// `seirawan-placement`.
    pub placements: Vec<PlacementEvent>,
    /// Fingerprint of the start position and the moves: two games with the same one
    /// replayed the same move sequence (a deterministic engine against itself does, on
    /// colour-swapped openings), so reports count distinct games by it.
    pub sequence: u64,
    /// Who played each side (PGN `White` and `Black` tags), by colour index; `None` for
    /// self-play, where one network plays both.
    pub players: [Option<String>; 2],
    /// The sides whose gating the statistics count: both, unless a report follows one
    /// player through games against another ([`GameSummary::follow`]).
    pub studied: Sides,
}

impl GameSummary {
    /// Counts only the sides `player` played from now on; false (and unchanged) when it
    /// played neither. A player on both sides keeps both.
    pub fn follow(&mut self, player: &str) -> bool {
        let plays = |c: Color| self.players[c.index()].as_deref() == Some(player);
        self.studied = match (plays(Color::White), plays(Color::Black)) {
            (true, true) => Sides::All,
            (true, false) => Sides::White,
            (false, true) => Sides::Black,
            (false, false) => return false,
        };
        true
    }
}

/// Builds summaries move by move, so loaders never have to keep a whole game.
#[derive(Debug, Clone)]
pub struct SummaryBuilder {
    summary: GameSummary,
    sequence: std::collections::hash_map::DefaultHasher,
}

impl SummaryBuilder {
    pub fn new(start: &Position, generation: Option<u32>) -> SummaryBuilder {
        let hands = [start.hand(Color::White), start.hand(Color::Black)];
        SummaryBuilder {
            summary: GameSummary {
                variant: start.variant(),
                generation,
                result: None,
                termination: String::new(),
                plies: 0,
                start_hands: hands,
                end_hands: hands,
                end_gating_rights: [false; 2],
                gates: Vec::new(),
                placements: Vec::new(),
                sequence: 0,
                players: [None, None],
                studied: Sides::All,
            },
            sequence: {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                start.fen().hash(&mut h);
                h
            },
        }
    }

    /// Records `m`, about to be played in `pos`.
    pub fn record(&mut self, pos: &Position, m: Move) {
        m.to_uci().hash(&mut self.sequence);
        if let Some(e) = GateEvent::of(pos, m, self.summary.plies) {
            self.summary.gates.push(e);
        }
        if let Move::Place { piece, on } = m {
            let ply = self.summary.plies;
            self.summary.placements.push(PlacementEvent { color: pos.turn(), piece, file: on.file(), ply });
        }
        self.summary.plies += 1;
    }

    /// Finishes with the final position and the result (White's view).
    pub fn finish(mut self, end: &Position, result: Option<i8>, termination: &str) -> GameSummary {
        let s = &mut self.summary;
        s.end_hands = [end.hand(Color::White), end.hand(Color::Black)];
        s.end_gating_rights = [end.gating_rights(Color::White).any(), end.gating_rights(Color::Black).any()];
        s.result = result;
        s.termination = termination.to_string();
        s.sequence = self.sequence.finish();
        self.summary
    }
}

/// Summarises a game given as a start position and legal moves (tests, callers with
/// parsed games). Moves must be legal in turn; an illegal one is an error naming its index.
pub fn summarize(
    start: &Position,
    moves: &[&str],
    result: Option<i8>,
    generation: Option<u32>,
) -> Result<GameSummary, String> {
    let mut pos = start.clone();
    let mut b = SummaryBuilder::new(start, generation);
    for (i, uci) in moves.iter().enumerate() {
        let m = pos.parse_uci(uci).map_err(|e| format!("move {}: {e}", i + 1))?;
        b.record(&pos, m);
        pos.play_unchecked(m);
    }
    Ok(b.finish(&pos, result, "unknown"))
}

/// Win/draw/loss counts from one side's view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Wdl {
    pub fn add(&mut self, score: i8) {
        match score.signum() {
            1 => self.wins += 1,
            0 => self.draws += 1,
            _ => self.losses += 1,
        }
    }
    pub fn n(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
    /// Points per game in [0, 1] (win 1, draw 1/2); `None` without games.
    pub fn score(&self) -> Option<f64> {
        (self.n() > 0).then(|| (self.wins as f64 + 0.5 * self.draws as f64) / self.n() as f64)
    }
    /// 95% interval of the score (normal approximation with the games' own variance,
    /// draws included); `None` with fewer than two games.
    pub fn score_interval(&self) -> Option<(f64, f64)> {
        let n = self.n() as f64;
        let mean = self.score().filter(|_| self.n() >= 2)?;
        let sq = (self.wins as f64 + 0.25 * self.draws as f64) / n;
        let sd = ((sq - mean * mean).max(0.0) * n / (n - 1.0)).sqrt();
        let half = 1.96 * sd / n.sqrt();
        Some(((mean - half).max(0.0), (mean + half).min(1.0)))
    }
    /// Share of draws with its 95% interval.
    pub fn draw_rate(&self) -> Option<(f64, (f64, f64))> {
        let (k, n) = (self.draws, self.n());
        Some((ratio(k, n)?, wilson(k, n)?))
    }
}

/// Wilson's 95% interval of a share of `k` in `n` (sound at 0 and at `n`, unlike the
/// normal one); `None` without observations.
pub fn wilson(k: u64, n: u64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (n, p, z) = (n as f64, k as f64 / n as f64, 1.96f64);
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// Mean of `xs` with its 95% interval (normal approximation); `None` with fewer than two.
pub fn mean_interval(xs: &[f64]) -> Option<(f64, (f64, f64))> {
    let n = xs.len() as f64;
    if xs.len() < 2 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half = 1.96 * (var / n).sqrt();
    Some((mean, (mean - half, mean + half)))
}

/// One side of one game, as the statistics see it.
#[derive(Debug, Clone, PartialEq)]
pub struct SideGame<'a> {
    /// Index of the game in the slice given to [`side_games`].
    pub index: usize,
    pub color: Color,
    pub game: &'a GameSummary,
    /// Result from this side's view, if known.
    pub score: Option<i8>,
}

impl<'a> SideGame<'a> {
    pub fn had(&self, p: HandPiece) -> bool {
        self.game.start_hands[self.color.index()].contains(p)
    }
    /// Gates of this side, in order.
    pub fn gates(&self) -> impl Iterator<Item = &'a GateEvent> + 'a {
        let c = self.color;
        self.game.gates.iter().filter(move |g| g.color == c)
    }
    pub fn gate_of(&self, p: HandPiece) -> Option<&'a GateEvent> {
        self.gates().find(|g| g.piece == p)
    }
    pub fn first_gate(&self) -> Option<&'a GateEvent> {
        self.gates().next()
    }
    /// The file this side assigned `p` to (`seirawan-placement`).
    pub fn placement_of(&self, p: HandPiece) -> Option<&'a PlacementEvent> {
        let c = self.color;
        self.game.placements.iter().find(move |e| e.color == c && e.piece == p)
    }
    /// The piece was in hand at the start, never entered, and at the end could no longer
    /// enter: lost for the game rather than merely not yet used. Under Seirawan's rules it
    /// is still in hand with no gating square left; under placement it has left the hand
    /// (its home square was captured before it could enter).
    pub fn stranded(&self, p: HandPiece) -> bool {
        let i = self.color.index();
        let in_hand = self.game.end_hands[i].contains(p);
        self.had(p) && self.gate_of(p).is_none() && (!in_hand || !self.game.end_gating_rights[i])
    }
}

/// The side-games that could gate (some piece in hand at the start), of the sides each
/// game studies.
pub fn side_games(games: &[GameSummary]) -> Vec<SideGame<'_>> {
    games
        .iter()
        .enumerate()
        .flat_map(|(index, g)| {
            Color::ALL.into_iter().map(move |color| SideGame {
                index,
                color,
                game: g,
                score: g.result.map(|r| if color == Color::White { r } else { -r }),
            })
        })
        .filter(|s| s.game.studied.matches(s.color) && !s.game.start_hands[s.color.index()].is_empty())
        .collect()
}

/// Which piece a side gated first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum First {
    Elephant,
    Hawk,
    Neither,
}

impl First {
    pub fn of(side: &SideGame) -> First {
        match side.first_gate().map(|g| g.piece) {
            Some(HandPiece::Elephant) => First::Elephant,
            Some(HandPiece::Hawk) => First::Hawk,
            None => First::Neither,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            First::Elephant => "E first",
            First::Hawk => "H first",
            First::Neither => "neither gated",
        }
    }
}

/// Filter on the side's colour for tables split by colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sides {
    All,
    White,
    Black,
}

impl Sides {
    pub const ALL: [Sides; 3] = [Sides::All, Sides::White, Sides::Black];
    pub fn matches(self, c: Color) -> bool {
        match self {
            Sides::All => true,
            Sides::White => c == Color::White,
            Sides::Black => c == Color::Black,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Sides::All => "both",
            Sides::White => "white",
            Sides::Black => "black",
        }
    }
}

/// When and whether one hand piece entered, over the side-games that held it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entry {
    /// Side-games that began with the piece in hand.
    pub held: u64,
    pub entered: u64,
    /// Never entered and could no longer enter at the end.
    pub stranded: u64,
    /// Move number of entry -> count.
    pub moves: BTreeMap<u32, u64>,
}

impl Entry {
    pub fn never(&self) -> u64 {
        self.held - self.entered
    }
    pub fn never_share(&self) -> Option<f64> {
        ratio(self.never(), self.held)
    }
    pub fn mean_move(&self) -> Option<f64> {
        let total: u64 = self.moves.values().sum();
        (total > 0).then(|| self.moves.iter().map(|(&m, &c)| m as f64 * c as f64).sum::<f64>() / total as f64)
    }
    /// The `q`-quantile of the entry move (lower value at ties), `q` in [0, 1].
    pub fn quantile(&self, q: f64) -> Option<u32> {
        let total: u64 = self.moves.values().sum();
        if total == 0 {
            return None;
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        for (&m, &c) in &self.moves {
            seen += c;
            if seen >= rank {
                return Some(m);
            }
        }
        self.moves.keys().next_back().copied()
    }
}

/// `a / b`, or `None` for `b == 0`.
pub fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// Entry statistics of `piece` over side-games of `sides`.
pub fn entry(sides_games: &[SideGame], piece: HandPiece, sides: Sides) -> Entry {
    let mut e = Entry::default();
    for s in sides_games.iter().filter(|s| sides.matches(s.color) && s.had(piece)) {
        e.held += 1;
        match s.gate_of(piece) {
            Some(g) => {
                e.entered += 1;
                *e.moves.entry(g.move_number).or_default() += 1;
            }
            None => e.stranded += s.stranded(piece) as u64,
        }
    }
    e
}

/// Counts of gates by a key (square, file, via), each with the sum of move numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GateCount {
    pub count: u64,
    move_sum: u64,
}

impl GateCount {
    fn add(&mut self, g: &GateEvent) {
        self.count += 1;
        self.move_sum += g.move_number as u64;
    }
    pub fn mean_move(&self) -> Option<f64> {
        (self.count > 0).then(|| self.move_sum as f64 / self.count as f64)
    }
}

/// Gates of the studied sides grouped by `key`, per piece (index = `HandPiece::index`).
pub fn gates_by<K: Ord>(games: &[GameSummary], key: impl Fn(&GateEvent) -> K) -> BTreeMap<K, [GateCount; 2]> {
    let mut out: BTreeMap<K, [GateCount; 2]> = BTreeMap::new();
    for g in games.iter().flat_map(|g| g.gates.iter().filter(|e| g.studied.matches(e.color))) {
        out.entry(key(g)).or_default()[g.piece.index()].add(g);
    }
    out
}

/// Share of side-games by first gated piece.
pub fn first_counts(side_games: &[SideGame], sides: Sides) -> BTreeMap<First, u64> {
    let mut out = BTreeMap::new();
    for s in side_games.iter().filter(|s| sides.matches(s.color)) {
        *out.entry(First::of(s)).or_default() += 1;
    }
    out
}

/// A condition on a side-game, for scores conditioned on gating behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    FirstPiece(First),
    /// The side's first gate came at move <= N.
    FirstGateBy(u32),
    /// The side gated, but only after move N.
    FirstGateAfter(u32),
    Entered(HandPiece),
    NeverEntered(HandPiece),
    /// A piece was in hand and nothing ever entered.
    NothingEntered,
    /// Both pieces entered.
    BothEntered,
    /// Some gate was made while castling.
    GatedWhileCastling,
}

impl Condition {
    /// Conditions reported by default, with `n` the "gated by move N" threshold.
    pub fn standard(n: u32) -> Vec<Condition> {
        vec![
            Condition::FirstPiece(First::Elephant),
            Condition::FirstPiece(First::Hawk),
            Condition::FirstGateBy(n),
            Condition::FirstGateAfter(n),
            Condition::NothingEntered,
            Condition::BothEntered,
            Condition::Entered(HandPiece::Elephant),
            Condition::NeverEntered(HandPiece::Elephant),
            Condition::Entered(HandPiece::Hawk),
            Condition::NeverEntered(HandPiece::Hawk),
            Condition::GatedWhileCastling,
        ]
    }

    pub fn holds(self, s: &SideGame) -> bool {
        match self {
            Condition::FirstPiece(f) => First::of(s) == f,
            Condition::FirstGateBy(n) => s.first_gate().is_some_and(|g| g.move_number <= n),
            Condition::FirstGateAfter(n) => s.first_gate().is_some_and(|g| g.move_number > n),
            Condition::Entered(p) => s.gate_of(p).is_some(),
            Condition::NeverEntered(p) => s.had(p) && s.gate_of(p).is_none(),
            Condition::NothingEntered => s.first_gate().is_none(),
            Condition::BothEntered => HandPiece::ALL.iter().all(|&p| s.gate_of(p).is_some()),
            Condition::GatedWhileCastling => {
                s.gates().any(|g| matches!(g.via, GateVia::CastleKingSquare | GateVia::CastleRookSquare))
            }
        }
    }

    pub fn name(self) -> String {
        match self {
            Condition::FirstPiece(f) => f.name().to_string(),
            Condition::FirstGateBy(n) => format!("first gate by move {n}"),
            Condition::FirstGateAfter(n) => format!("first gate after move {n}"),
            Condition::Entered(p) => format!("{} entered", piece_letter(p)),
            Condition::NeverEntered(p) => format!("{} never entered", piece_letter(p)),
            Condition::NothingEntered => "nothing entered".into(),
            Condition::BothEntered => "both entered".into(),
            Condition::GatedWhileCastling => "gated while castling".into(),
        }
    }
}

/// Results of the side-games of `sides` for which `cond` holds (unknown results skipped).
pub fn score_if(side_games: &[SideGame], cond: Condition, sides: Sides) -> Wdl {
    let mut wdl = Wdl::default();
    for s in side_games.iter().filter(|s| sides.matches(s.color) && cond.holds(s)) {
        if let Some(score) = s.score {
            wdl.add(score);
        }
    }
    wdl
}

/// Per-generation summary (trends): one row per generation, PGN games as `None`.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerationRow {
    pub generation: Option<u32>,
    pub games: u64,
    pub mean_plies: f64,
    /// White's results.
    pub white: Wdl,
    pub entry: [Entry; 2],
    pub first: BTreeMap<First, u64>,
    pub side_games: u64,
}

pub fn by_generation(games: &[GameSummary]) -> Vec<GenerationRow> {
    let mut groups: BTreeMap<Option<u32>, Vec<GameSummary>> = BTreeMap::new();
    for g in games {
        groups.entry(g.generation).or_default().push(g.clone());
    }
    groups
        .into_iter()
        .map(|(generation, gs)| {
            let sides = side_games(&gs);
            let mut white = Wdl::default();
            gs.iter().filter_map(|g| g.result).for_each(|r| white.add(r));
            GenerationRow {
                generation,
                games: gs.len() as u64,
                mean_plies: gs.iter().map(|g| g.plies as f64).sum::<f64>() / gs.len().max(1) as f64,
                white,
                entry: HandPiece::ALL.map(|p| entry(&sides, p, Sides::All)),
                first: first_counts(&sides, Sides::All),
                side_games: sides.len() as u64,
            }
        })
        .collect()
}

/// How often one piece was placed on one file, and how that went (`seirawan-placement`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlacementRow {
    /// Side-games that placed this piece at all.
    pub placed: u64,
    /// Of those, the ones that chose this file.
    pub chosen: u64,
    /// Of those, the ones in which the piece then entered.
    pub entered: u64,
    /// The choosing side's results.
    pub score: Wdl,
    /// Entry move numbers of the pieces that entered.
    pub entry_moves: Vec<u32>,
    /// Placed first of the side's two pieces.
    pub first: u64,
}

/// Placement choices per (piece, file), over the side-games of `sides` colour(s).
pub fn placement_choices(side_games: &[SideGame], sides: Sides) -> BTreeMap<(HandPiece, File), PlacementRow> {
    let mut out: BTreeMap<(HandPiece, File), PlacementRow> = BTreeMap::new();
    for s in side_games.iter().filter(|s| sides.matches(s.color)) {
        let first = s.game.placements.iter().find(|e| e.color == s.color).map(|e| e.piece);
        for p in HandPiece::ALL {
            let Some(e) = s.placement_of(p) else { continue };
            let row = out.entry((p, e.file)).or_default();
            row.chosen += 1;
            row.first += u64::from(first == Some(p));
            if let Some(score) = s.score {
                row.score.add(score);
            }
            if let Some(g) = s.gate_of(p) {
                row.entered += 1;
                row.entry_moves.push(g.move_number);
            }
        }
    }
    for p in HandPiece::ALL {
        let placed: u64 = out.iter().filter(|((q, _), _)| *q == p).map(|(_, r)| r.chosen).sum();
        for ((_, _), r) in out.iter_mut().filter(|((q, _), _)| *q == p) {
            r.placed = placed;
        }
    }
    out
}

/// Per-variant overview: the control (`chess`) next to S-Chess.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantRow {
    pub variant: Variant,
    pub games: u64,
    pub plies: u64,
    pub white: Wdl,
    pub unknown_results: u64,
    pub terminations: BTreeMap<String, u64>,
    pub gates: u64,
    /// Distinct move sequences among the games ([`GameSummary::sequence`]).
    pub distinct: u64,
}

/// How many of `games` differ in start position or moves.
pub fn distinct_games<'a>(games: impl IntoIterator<Item = &'a GameSummary>) -> usize {
    games.into_iter().map(|g| g.sequence).collect::<std::collections::HashSet<_>>().len()
}

/// Keeps the first game of each move sequence and drops its replays (the same rules, start
/// position and moves, and the same sides studied); how many it dropped. Statistics over
/// what is left count every distinct game once, however often it was played: the check on
/// whether replays sway a table, where they are independent samples (self-play that finds
/// one line again) and the only way where they are not (one deterministic engine on both
/// colours of an opening).
pub fn keep_distinct(games: &mut Vec<GameSummary>) -> usize {
    let before = games.len();
    let mut seen = std::collections::HashSet::new();
    games.retain(|g| seen.insert((g.variant, g.sequence, g.studied)));
    before - games.len()
}

pub fn by_variant(games: &[GameSummary]) -> Vec<VariantRow> {
    let mut out: Vec<VariantRow> = Vec::new();
    for g in games {
        let i = match out.iter().position(|r| r.variant == g.variant) {
            Some(i) => i,
            None => {
                out.push(VariantRow {
                    variant: g.variant,
                    games: 0,
                    plies: 0,
                    white: Wdl::default(),
                    unknown_results: 0,
                    terminations: BTreeMap::new(),
                    gates: 0,
                    distinct: 0,
                });
                out.len() - 1
            }
        };
        let r = &mut out[i];
        r.games += 1;
        r.plies += g.plies as u64;
        match g.result {
            Some(x) => r.white.add(x),
            None => r.unknown_results += 1,
        }
        *r.terminations.entry(g.termination.clone()).or_default() += 1;
        r.gates += g.gates.len() as u64;
    }
    for r in &mut out {
        r.distinct = distinct_games(games.iter().filter(|g| g.variant == r.variant)) as u64;
    }
    out.sort_by_key(|r| r.variant.name());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn via_classifies_castling_gates_by_square() {
        let pos = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R[EHeh] w KQkq - 0 1").unwrap();
        for (uci, via) in [
            ("e1g1h", GateVia::CastleKingSquare),
            ("h1e1e", GateVia::CastleRookSquare),
            ("e1c1e", GateVia::CastleKingSquare),
            ("a1e1h", GateVia::CastleRookSquare),
            ("e1e2h", GateVia::King),
            ("a1a5e", GateVia::Rook),
        ] {
            let m = pos.parse_uci(uci).unwrap();
            assert_eq!(GateVia::of(&pos, m), Some(via), "{uci}");
        }
        assert_eq!(GateVia::of(&pos, pos.parse_uci("e1g1").unwrap()), None);
    }

    #[test]
    fn distinct_games_tell_replays_from_new_games() {
        let start = Position::startpos();
        let game = |moves: &[&str], result| summarize(&start, moves, Some(result), None).unwrap();
        let a = game(&["e2e4", "e7e5", "g1f3h"], 1);
        // The same moves with another result (a swapped pair's second game) are a replay.
        let replay = game(&["e2e4", "e7e5", "g1f3h"], -1);
        let other_gate = game(&["e2e4", "e7e5", "g1f3e"], 1);
        let prefix = game(&["e2e4", "e7e5"], 0);
        assert_eq!(distinct_games([&a, &replay]), 1);
        assert_eq!(distinct_games([&a, &replay, &other_gate, &prefix]), 3);
        let other_start = Position::from_fen(&start.fen().replace(" w ", " b ")).unwrap();
        let moved = summarize(&other_start, &[], Some(0), None).unwrap();
        assert_eq!(distinct_games([&game(&[], 0), &moved]), 2);
    }

    #[test]
    fn keeping_distinct_games_drops_replays_alone() {
        let start = Position::startpos();
        let game = |moves: &[&str], result| summarize(&start, moves, Some(result), None).unwrap();
        let first = game(&["e2e4", "e7e5", "g1f3h"], 1);
        let mut games =
            vec![first.clone(), game(&["e2e4", "e7e5"], 0), game(&["e2e4", "e7e5", "g1f3h"], -1), first.clone()];
        // The same moves followed from the other side are another player's game.
        let mut black = first.clone();
        black.players = [Some("a".into()), Some("b".into())];
        assert!(black.follow("b"));
        games.push(black);
        assert_eq!(keep_distinct(&mut games), 2);
        assert_eq!(games.len(), 3);
        assert_eq!(games[0].result, Some(1), "the first of a sequence is the one kept");
        assert_eq!(games[2].studied, Sides::Black);
        assert_eq!(keep_distinct(&mut games), 0);
    }

    #[test]
    fn a_followed_player_counts_its_own_sides_alone() {
        let start = Position::startpos();
        // White gates the Hawk with its knight, Black the Elephant with its knight.
        let mut g = summarize(&start, &["g1f3h", "b8c6e", "e2e4"], Some(1), None).unwrap();
        let named = |g: &mut GameSummary, w: &str, b: &str| g.players = [Some(w.into()), Some(b.into())];
        let sides = |g: &GameSummary| side_games(std::slice::from_ref(g)).iter().map(|s| s.color).collect::<Vec<_>>();
        let pieces = |g: &GameSummary| gates_by(std::slice::from_ref(g), |e| e.color).into_keys().collect::<Vec<_>>();
        assert!(!g.follow("a"), "self-play names no player");
        assert_eq!(g.studied, Sides::All);
        named(&mut g, "a", "b");
        assert!(g.follow("b"));
        assert_eq!((sides(&g), pieces(&g)), (vec![Color::Black], vec![Color::Black]));
        assert!(g.follow("a"));
        assert_eq!((sides(&g), pieces(&g)), (vec![Color::White], vec![Color::White]));
        assert!(!g.follow("c"), "a player who is not there leaves the game as it was");
        assert_eq!(g.studied, Sides::White);
        named(&mut g, "a", "a");
        assert!(g.follow("a"));
        assert_eq!(sides(&g), vec![Color::White, Color::Black]);
    }

    #[test]
    fn quantiles_and_means() {
        let mut e = Entry { held: 4, entered: 3, ..Entry::default() };
        e.moves.insert(2, 1);
        e.moves.insert(5, 2);
        assert_eq!(e.quantile(0.5), Some(5));
        assert_eq!(e.quantile(0.0), Some(2));
        assert_eq!(e.quantile(1.0), Some(5));
        assert_eq!(e.mean_move(), Some(4.0));
        assert_eq!(e.never_share(), Some(0.25));
    }
}

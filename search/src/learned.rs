//! A learned evaluation for the alpha-beta search's leaves: material, piece-square tables,
//! hand pieces and the move, each in two game phases (opening and ending, blended by the
//! pieces left), with weights fitted on the results of szero's own games
//! (`szero fit-eval`, `research::eval_fit`).
//!
//! Why it exists: the convolutional network is about a thousand times slower per position
//! than counting material, so an alpha-beta over it reaches two or three plies where the
//! material search reaches nine, and loses (BENCHMARKS.md, "Alpha-beta play mode"). The
//! NNUE engines' answer is a small evaluation the search can afford at every leaf; this
//! is the smallest learned one: linear in features that cost a table lookup each, so the
//! search keeps its speed, while what it knows (where pieces stand well, what a hand piece
//! that can no longer enter is worth, what the move is worth) comes from games, not from
//! human tables. Zero-knowledge NNUE engines bootstrap the same way: alpha-beta self-play
//! on a plain evaluation, a fit on the results, play again with the fit.
//!
//! Features are counted from White's side: a White piece adds +1 at its own square, a
//! Black piece -1 at its square seen from Black's side (ranks mirrored), so one table
//! serves both colours and the evaluation of a mirrored position is exactly negated.

use schess::{Color, Position, Role, Square};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Roles with a material feature (the king is always one each).
const MATERIAL_ROLES: [Role; 7] =
    [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::Elephant, Role::Hawk];
const MATERIAL: usize = 0;
/// Piece-square features: one per role (all eight) and square.
const PST: usize = MATERIAL + MATERIAL_ROLES.len();
/// Hand pieces: Elephant and Hawk that can still enter (a gating square left), then the
/// same without one (they never will).
const HAND: usize = PST + 8 * 64;
/// +1 with White to move, -1 with Black.
const TEMPO: usize = HAND + 4;
/// Features of one phase.
pub const PHASE_FEATURES: usize = TEMPO + 1;
/// All features: the opening phase's, then the ending's.
pub const FEATURES: usize = 2 * PHASE_FEATURES;
/// The file format this module writes and reads.
pub const FORMAT: &str = "szero-learned-eval-1";
/// The largest evaluation, in centipawns (below the search's mate scores).
const MAX_CP: f32 = 2_000.0;

/// What a piece adds to the opening phase (the start position has 36 in all, hands
/// included).
fn phase_weight(role: Role) -> u32 {
    match role {
        Role::Knight | Role::Bishop => 1,
        Role::Rook => 2,
        Role::Elephant | Role::Hawk => 3,
        Role::Queen => 4,
        Role::Pawn | Role::King => 0,
    }
}
const OPENING_PHASE: u32 = 36;

/// How much of the opening is left, from 1 (all pieces on the board or in hand) to 0
/// (kings and pawns).
pub fn opening_phase(pos: &Position) -> f32 {
    let mut total = 0;
    for color in [Color::White, Color::Black] {
        for role in Role::ALL {
            total += phase_weight(role) * pos.pieces(color, role).count();
        }
        total += pos.hand(color).iter().map(|p| phase_weight(p.role())).sum::<u32>();
    }
    (total.min(OPENING_PHASE) as f32) / OPENING_PHASE as f32
}

/// Calls `f(index, value)` for every non-zero feature of `pos` (White's side). One code
/// path for the fit's rows and the search's evaluation, so they cannot disagree.
pub fn for_each_feature(pos: &Position, mut f: impl FnMut(usize, f32)) {
    let phase = opening_phase(pos);
    let mut add = |i: usize, x: f32| {
        if phase > 0.0 {
            f(i, x * phase);
        }
        if phase < 1.0 {
            f(PHASE_FEATURES + i, x * (1.0 - phase));
        }
    };
    for color in [Color::White, Color::Black] {
        let sign = if color == Color::White { 1.0 } else { -1.0 };
        for (r, &role) in Role::ALL.iter().enumerate() {
            let pieces = pos.pieces(color, role);
            if let Some(m) = MATERIAL_ROLES.iter().position(|&x| x == role) {
                let n = pieces.count();
                if n > 0 {
                    add(MATERIAL + m, sign * n as f32);
                }
            }
            for sq in pieces {
                add(PST + r * 64 + relative(sq, color).index(), sign);
            }
        }
        let dead = if pos.gating_rights(color).is_empty() { 2 } else { 0 };
        for piece in pos.hand(color).iter() {
            add(HAND + dead + piece.index(), sign);
        }
    }
    add(TEMPO, if pos.turn() == Color::White { 1.0 } else { -1.0 });
}

/// `sq` seen from `color`'s side of the board.
fn relative(sq: Square, color: Color) -> Square {
    if color == Color::White {
        sq
    } else {
        sq.flip_vertical()
    }
}

/// The names of the features, for reports: `P`, `pst N g1`, `E in hand`, ..., each
/// prefixed by its phase.
pub fn feature_name(i: usize) -> String {
    let (phase, j) = if i < PHASE_FEATURES { ("opening", i) } else { ("ending", i - PHASE_FEATURES) };
    let what = if j < PST {
        MATERIAL_ROLES[j - MATERIAL].upper_char().to_string()
    } else if j < HAND {
        let sq = Square::new(((j - PST) % 64) as u8).expect("a square index");
        format!("{} on {}", Role::ALL[(j - PST) / 64].upper_char(), sq)
    } else if j < TEMPO {
        let piece = if (j - HAND).is_multiple_of(2) { "E" } else { "H" };
        let live = if j - HAND < 2 { "in hand" } else { "in hand, no gating square" };
        format!("{piece} {live}")
    } else {
        "the move".to_string()
    };
    format!("{phase}: {what}")
}

/// The role (index into `Role::ALL`) and White-relative square of a piece-square feature,
/// or `None` for the other features.
pub fn piece_square(i: usize) -> Option<(usize, Square)> {
    let j = i % PHASE_FEATURES;
    (PST..HAND).contains(&j).then(|| ((j - PST) / 64, Square::new(((j - PST) % 64) as u8).expect("a square index")))
}

/// The weight index of a material feature (for reports: the fitted piece values).
pub fn material_index(role: Role, ending: bool) -> Option<usize> {
    let m = MATERIAL_ROLES.iter().position(|&r| r == role)?;
    Some(MATERIAL + m + if ending { PHASE_FEATURES } else { 0 })
}

/// The weight index of a hand piece that can still enter.
pub fn hand_index(piece: schess::HandPiece, ending: bool) -> usize {
    HAND + piece.index() + if ending { PHASE_FEATURES } else { 0 }
}

/// A fitted evaluation: a weight in centipawns for each feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearnedEval {
    /// [`FORMAT`].
    pub format: String,
    /// What it was fitted on (games, positions, the command), for whoever reads the file.
    pub fitted_on: String,
    /// [`FEATURES`] weights, in centipawns.
    pub weights: Vec<f32>,
}

/// Why an evaluation file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LearnedEvalError {
    #[error("cannot read the evaluation file {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path} is not a learned evaluation: {reason}")]
    Invalid { path: String, reason: String },
}

impl LearnedEval {
    /// An evaluation from its weights (checked: the right number, all finite).
    pub fn new(weights: Vec<f32>, fitted_on: impl Into<String>) -> Result<LearnedEval, String> {
        let e = LearnedEval { format: FORMAT.to_string(), fitted_on: fitted_on.into(), weights };
        e.check()?;
        Ok(e)
    }

    /// The conventional material values (`schess::material`) and nothing else: what a fit
    /// starts from, and a reference for tests.
    pub fn material() -> LearnedEval {
        let mut weights = vec![0.0; FEATURES];
        for role in MATERIAL_ROLES {
            let cp = 100.0 * schess::material::piece_value(role) as f32;
            for ending in [false, true] {
                weights[material_index(role, ending).expect("a material role")] = cp;
            }
        }
        for piece in schess::HandPiece::ALL {
            for ending in [false, true] {
                weights[hand_index(piece, ending)] = 100.0 * schess::material::piece_value(piece.role()) as f32;
            }
        }
        LearnedEval::new(weights, "the conventional material values").expect("valid weights")
    }

    fn check(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!("format is '{}', expected '{FORMAT}'", self.format));
        }
        if self.weights.len() != FEATURES {
            return Err(format!("{} weights, expected {FEATURES}", self.weights.len()));
        }
        if let Some(i) = self.weights.iter().position(|w| !w.is_finite() || w.abs() > 100_000.0) {
            return Err(format!("weight {i} ({}) is not a finite centipawn value", feature_name(i)));
        }
        Ok(())
    }

    /// Reads and checks an evaluation file (JSON).
    pub fn load(path: &Path) -> Result<LearnedEval, LearnedEvalError> {
        let shown = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|source| LearnedEvalError::Read { path: shown.clone(), source })?;
        let e: LearnedEval = serde_json::from_str(&text)
            .map_err(|e| LearnedEvalError::Invalid { path: shown.clone(), reason: e.to_string() })?;
        e.check().map_err(|reason| LearnedEvalError::Invalid { path: shown, reason })?;
        Ok(e)
    }

    /// Writes the evaluation as JSON (to a temporary file renamed into place, so a
    /// reader never sees half a file).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, path)
    }

    /// White's advantage in centipawns.
    pub fn white_cp(&self, pos: &Position) -> f32 {
        let mut sum = 0.0;
        for_each_feature(pos, |i, x| sum += self.weights[i] * x);
        sum
    }

    /// The evaluation for the side to move, in centipawns (bounded below mate scores).
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let white = self.white_cp(pos).clamp(-MAX_CP, MAX_CP).round() as i32;
        if pos.turn() == Color::White {
            white
        } else {
            -white
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        fen.parse().unwrap()
    }

    #[test]
    fn the_material_evaluation_is_live_material() {
        let e = LearnedEval::material();
        for fen in [
            schess::STARTING_FEN,
            "rnb1kbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[HEhe] b KQBCDFkqbcfg - 0 3",
            "4k3/8/8/8/8/8/4P3/4K3[Ee] w - - 0 1",
            "4k3/8/8/8/8/8/4P3/R3K3[Ee] w Q - 0 1",
        ] {
            let p = pos(fen);
            let live = 100 * schess::material::live_balance(&p);
            let want = if p.turn() == Color::White { live } else { -live };
            assert_eq!(e.evaluate(&p), want, "{fen}");
        }
    }

    #[test]
    fn mirrored_positions_evaluate_the_same_for_the_side_to_move() {
        let mut weights: Vec<f32> = (0..FEATURES).map(|i| ((i * 7919) % 201) as f32 - 100.0).collect();
        weights[TEMPO] = 17.0;
        let e = LearnedEval::new(weights, "test").unwrap();
        let fen = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R[HEe] w KQBCDkqcd - 1 5";
        // Ranks in reverse order, colours and the side to move swapped.
        let f: Vec<&str> = fen.split(' ').collect();
        let swap = |s: &str| -> String {
            s.chars()
                .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                .collect()
        };
        let (board, hand) = f[0].split_once('[').unwrap();
        let ranks: Vec<String> = board.split('/').rev().map(swap).collect();
        let turn = if f[1] == "w" { "b" } else { "w" };
        let mirrored = format!("{}[{} {turn} {} - {} {}", ranks.join("/"), swap(hand), swap(f[2]), f[4], f[5]);
        let (p, m) = (pos(fen), pos(&mirrored));
        assert_ne!(e.evaluate(&p), 0);
        assert_eq!(e.evaluate(&p), e.evaluate(&m), "{mirrored}");
    }

    #[test]
    fn the_phase_runs_from_the_opening_to_the_ending() {
        assert_eq!(opening_phase(&pos(schess::STARTING_FEN)), 1.0);
        assert_eq!(opening_phase(&pos("4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1")), 0.0);
    }

    #[test]
    fn bad_files_are_refused_with_their_reason() {
        let dir = std::env::temp_dir().join(format!("szero-learned-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.json");
        LearnedEval::material().save(&good).unwrap();
        assert_eq!(LearnedEval::load(&good).unwrap(), LearnedEval::material());
        let short = dir.join("short.json");
        std::fs::write(&short, format!(r#"{{"format":"{FORMAT}","fitted_on":"","weights":[1.0]}}"#)).unwrap();
        let err = LearnedEval::load(&short).unwrap_err().to_string();
        assert!(err.contains("1 weights, expected"), "{err}");
        let other = dir.join("other.json");
        std::fs::write(&other, "{\"weights\": []}").unwrap();
        assert!(LearnedEval::load(&other).unwrap_err().to_string().contains("not a learned evaluation"));
        assert!(LearnedEval::load(&dir.join("missing.json")).unwrap_err().to_string().contains("cannot read"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_feature_has_a_name() {
        assert_eq!(feature_name(0), "opening: P");
        assert_eq!(feature_name(PHASE_FEATURES + PST + 64 + 6), "ending: N on g1");
        assert_eq!(feature_name(TEMPO), "opening: the move");
        assert_eq!(feature_name(HAND + 3), "opening: H in hand, no gating square");
    }
}

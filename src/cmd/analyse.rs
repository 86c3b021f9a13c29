//! `szero analyse`: one position through a network's eyes, without writing code. Its
//! W/D/L and expected score (and material prediction), the most likely moves by prior
//! with the value of the position each leads to, for gating moves the same move without
//! the gate and with the other piece, and optionally a short search with its principal
//! variation. Plain text, or `--json` for scripts.

use anyhow::{bail, Context, Result};
use clap::Args;
use models::load_evaluator;
use models::{DeviceChoice, Precision};
use schess::{Game, HandPiece, Move, Position};
use search::evaluator::Evaluator;
use search::{Limits, PositionSearch, SearchControl, Searcher};
use search::{RootMode, SearchConfig};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// Network file (safetensors).
    #[arg(long)]
    model: PathBuf,
    /// The position, as FEN (S-Chess FEN with hands, e.g. `...[HEhe] w KQBCDFGkqbcdfg - 0 1`).
    #[arg(long, conflicts_with = "pgn")]
    fen: Option<String>,
    /// The rules of the --fen position: seirawan, seirawan-forced, seirawan-placement (its
    /// FEN hands name assignments: `[E@dH@be@bh@g]`) or chess. A PGN names its own.
    #[arg(long, default_value = "seirawan", conflicts_with = "pgn")]
    variant: String,
    /// A PGN file: its first game's position after --ply plies (default: the end).
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Plies of the PGN game to play before analysing.
    #[arg(long, requires = "pgn")]
    ply: Option<usize>,
    /// Moves listed, most likely first.
    #[arg(long, default_value_t = 8)]
    top: usize,
    /// Also search this many playouts and show the principal variation.
    #[arg(long, default_value_t = 0)]
    nodes: u64,
    /// Where the network runs: auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// What the network says about one move: its prior and the mover's expected score in
/// the position it leads to (from the network, or the rules when the game ends there).
#[derive(Debug, Clone, Serialize)]
pub struct MoveView {
    pub uci: String,
    pub san: String,
    pub prior: f32,
    pub value: f32,
}

/// A gating move beside the same move without the gate and with the other hand piece.
#[derive(Debug, Clone, Serialize)]
pub struct GateView {
    /// The gated piece (`E` or `H`) and the square it enters.
    pub piece: char,
    pub square: String,
    /// The same move without a gate, when legal.
    pub without_gate: Option<MoveView>,
    /// The same move gating the other hand piece there, when legal.
    pub other_piece: Option<MoveView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MoveLine {
    #[serde(flatten)]
    pub mv: MoveView,
    pub gate: Option<GateView>,
}

/// The search's verdict.
#[derive(Debug, Clone, Serialize)]
pub struct SearchView {
    pub nodes: u64,
    pub best_uci: Option<String>,
    pub best_san: Option<String>,
    pub wdl: [f32; 3],
    pub expected_score: f32,
    pub pv_uci: Vec<String>,
    pub pv_san: Vec<String>,
}

/// The whole analysis (the JSON output).
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    pub fen: String,
    pub side_to_move: char,
    /// Win, draw, loss for the side to move (with the network's material mix, if any).
    pub wdl: [f32; 3],
    pub expected_score: f32,
    /// The material head's predicted lead of the side to move, in pawns.
    pub material: Option<f32>,
    pub moves_left: Option<f32>,
    pub legal_moves: usize,
    pub moves: Vec<MoveLine>,
    pub search: Option<SearchView>,
}

/// Analyses the last position of `history` (a game's positions) with `evaluator`.
pub fn analyse(evaluator: &Arc<dyn Evaluator>, game: &Game, top: usize, nodes: u64) -> Result<Analysis> {
    let history = game.positions();
    let pos = game.position();
    let legal = pos.legal_moves();
    if legal.is_empty() {
        bail!("the game is over in this position ({}): nothing to analyse", pos.fen());
    }
    let e = evaluator.evaluate(&[history])?.pop().context("no evaluation")?;
    let mut order: Vec<usize> = (0..legal.len()).collect();
    order.sort_by(|&a, &b| e.priors[b].total_cmp(&e.priors[a]));
    order.truncate(top.max(1));
    // Every move shown, and the gating relatives of the gating ones, valued in one batch.
    let prior_of = |m: Move| legal.iter().position(|&x| x == m).map(|k| e.priors[k]);
    let mut wanted: Vec<Move> = Vec::new();
    let mut relatives = Vec::new();
    for &k in &order {
        let m = legal[k];
        wanted.push(m);
        let rel = m.gate().map(|(piece, square)| {
            let plain = m.without_gate();
            let other = legal
                .iter()
                .copied()
                .find(|x| x.without_gate() == plain && x.gate().is_some_and(|(p, s)| p != piece && s == square));
            (piece, square, prior_of(plain).map(|_| plain), other)
        });
        if let Some((_, _, plain, other)) = rel {
            wanted.extend(plain);
            wanted.extend(other);
        }
        relatives.push(rel);
    }
    let jobs: Vec<(&[Position], Move)> = wanted.iter().map(|&m| (history, m)).collect();
    let values: Vec<f32> =
        search::evaluator::values_after(evaluator.as_ref(), &jobs, jobs.len())?.iter().map(|v| v.score).collect();
    let value_of = |m: Move| wanted.iter().position(|&x| x == m).map(|k| values[k]);
    let view = |m: Move| MoveView {
        uci: m.to_uci(),
        san: pos.san(m),
        prior: prior_of(m).unwrap_or(0.0),
        value: value_of(m).unwrap_or(0.0),
    };
    let moves = order
        .iter()
        .zip(relatives)
        .map(|(&k, rel)| MoveLine {
            mv: view(legal[k]),
            gate: rel.map(|(piece, square, plain, other)| GateView {
                piece: piece_char(piece),
                square: square.to_string(),
                without_gate: plain.map(view),
                other_piece: other.map(view),
            }),
        })
        .collect();
    let search = (nodes > 0).then(|| search(evaluator, game, nodes)).transpose()?;
    Ok(Analysis {
        fen: pos.fen(),
        side_to_move: pos.turn().char(),
        wdl: e.wdl,
        expected_score: e.q(),
        material: e.material,
        moves_left: e.moves_left,
        legal_moves: legal.len(),
        moves,
        search,
    })
}

fn piece_char(p: HandPiece) -> char {
    p.role().upper_char()
}

fn search(evaluator: &Arc<dyn Evaluator>, game: &Game, nodes: u64) -> Result<SearchView> {
    let cfg = SearchConfig { root_mode: RootMode::Gumbel, ..SearchConfig::default() };
    let mut s = Searcher::new(evaluator.clone(), cfg, false, 1);
    let r = s.search(game, &Limits::nodes(nodes), &SearchControl::default(), &mut |_| {})?;
    let mut p = game.position().clone();
    let mut pv_san = Vec::new();
    for &m in &r.info.pv {
        pv_san.push(p.san(m));
        p.play_unchecked(m);
    }
    Ok(SearchView {
        nodes: r.info.nodes,
        best_uci: r.best.map(|m| m.to_uci()),
        best_san: r.best.map(|m| game.position().san(m)),
        wdl: r.info.wdl,
        expected_score: r.info.q,
        pv_uci: r.info.pv.iter().map(|m| m.to_uci()).collect(),
        pv_san,
    })
}

/// The analysis as text for a terminal.
pub fn text(a: &Analysis) -> String {
    let mut s = String::new();
    let pct = |x: f32| 100.0 * x;
    let _ = writeln!(s, "position   {}", a.fen);
    let _ = writeln!(
        s,
        "value      W {:.1}% D {:.1}% L {:.1}% for {} (expected score {:+.3})",
        pct(a.wdl[0]),
        pct(a.wdl[1]),
        pct(a.wdl[2]),
        if a.side_to_move == 'w' { "White" } else { "Black" },
        a.expected_score
    );
    if let Some(m) = a.material {
        let _ = writeln!(s, "material   {m:+.1} pawns expected a few plies ahead (material head)");
    }
    if let Some(m) = a.moves_left {
        let _ = writeln!(s, "moves left {m:.0} plies");
    }
    let _ = writeln!(
        s,
        "\ntop {} of {} legal moves by prior (value: the mover's expected score after the move)",
        a.moves.len(),
        a.legal_moves
    );
    let _ = writeln!(s, "  {:<10} {:<8} {:>7} {:>7}", "SAN", "UCI", "prior", "value");
    for line in &a.moves {
        let m = &line.mv;
        let _ = writeln!(s, "  {:<10} {:<8} {:>6.1}% {:>+7.3}", m.san, m.uci, pct(m.prior), m.value);
        if let Some(g) = &line.gate {
            let rel = |label: &str, v: &Option<MoveView>, s: &mut String| match v {
                Some(v) => {
                    let _ = writeln!(s, "      {label:<18} {:<10} {:>6.1}% {:>+7.3}", v.san, pct(v.prior), v.value);
                }
                None => {
                    let _ = writeln!(s, "      {label:<18} (not legal)");
                }
            };
            rel("without the gate", &g.without_gate, &mut s);
            rel(&format!("gating {} instead", if g.piece == 'E' { 'H' } else { 'E' }), &g.other_piece, &mut s);
        }
    }
    if let Some(r) = &a.search {
        let _ = writeln!(
            s,
            "\nsearch     {} playouts: best {} (expected score {:+.3}, W {:.1}% D {:.1}% L {:.1}%)",
            r.nodes,
            r.best_san.as_deref().unwrap_or("-"),
            r.expected_score,
            pct(r.wdl[0]),
            pct(r.wdl[1]),
            pct(r.wdl[2])
        );
        let _ = writeln!(s, "pv         {}", r.pv_san.join(" "));
    }
    s
}

/// The game the arguments name: a FEN, or a PGN game cut at --ply.
fn game_of(args: &AnalyseArgs) -> Result<Game> {
    match (&args.fen, &args.pgn) {
        (Some(fen), None) => {
            let variant = crate::cmd::parse_variant("--variant", &args.variant)?;
            let pos = Position::from_fen_variant(fen.trim(), variant)
                .map_err(|e| anyhow::anyhow!("--fen {fen:?} ({variant}): {e}"))?;
            Ok(Game::new(pos))
        }
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            let parsed = schess::pgn::parse(&text);
            let g = parsed.games.first().with_context(|| format!("{}: no game", path.display()))?;
            let start = g.start().map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            let plies = args.ply.unwrap_or(g.moves.len());
            if plies > g.moves.len() {
                bail!("{}: --ply {plies}, but the game has {} plies", path.display(), g.moves.len());
            }
            let mut game = Game::new(start);
            for (i, san) in g.moves[..plies].iter().enumerate() {
                let m = game
                    .position()
                    .parse_san(san)
                    .map_err(|e| anyhow::anyhow!("{}: move {} {san:?}: {e}", path.display(), i + 1))?;
                game.play_unchecked(m);
            }
            Ok(game)
        }
        _ => bail!("give the position with --fen FEN or --pgn FILE [--ply N]"),
    }
}

pub fn run(args: AnalyseArgs) -> Result<ExitCode> {
    let game = game_of(&args)?;
    let evaluator = load_evaluator(&args.model, args.device, Precision::Auto, 10_000, None)
        .with_context(|| format!("loading network {}", args.model.display()))?;
    let a = analyse(&evaluator, &game, args.top, args.nodes)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&a)?);
    } else {
        print!("{}", text(&a));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use search::evaluator::MaterialEvaluator;

    #[test]
    fn values_and_gating_relatives() {
        // White can take the queen with the rook; gating moves of the king's knight exist.
        let fen = "4k3/8/8/3q4/8/8/3R4/4K1N1[EH] w G - 0 1";
        let game = Game::new(Position::from_fen(fen).unwrap());
        let ev: Arc<dyn Evaluator> = Arc::new(MaterialEvaluator);
        let a = analyse(&ev, &game, 200, 32).unwrap();
        assert_eq!(a.legal_moves, game.position().legal_moves().len());
        assert_eq!(a.moves.len(), a.legal_moves);
        let take = a.moves.iter().find(|l| l.mv.uci == "d2d5").unwrap();
        // After Rxd5 White leads by a rook (and its hand): the mover's value is positive.
        assert!(take.mv.value > 0.5, "{:?}", take.mv);
        let gating = a.moves.iter().find(|l| l.gate.is_some()).expect("a gating move");
        let g = gating.gate.as_ref().unwrap();
        assert_eq!(g.square, "g1");
        let plain = g.without_gate.as_ref().expect("the knight may move without gating");
        assert_eq!(plain.uci.len(), 4);
        let other = g.other_piece.as_ref().expect("the other piece may gate there too");
        assert_ne!(other.uci, gating.mv.uci);
        let s = a.search.as_ref().unwrap();
        assert_eq!(s.best_uci.as_deref(), Some("d2d5"));
        assert_eq!(s.pv_uci.len(), s.pv_san.len());
        let t = text(&a);
        assert!(t.contains("Rxd5") && t.contains("without the gate") && t.contains("pv"), "{t}");
    }

    #[test]
    fn a_finished_game_is_an_error() {
        let game = Game::new(Position::from_fen("R5k1/5ppp/8/8/8/8/8/4K3[] b - - 0 1").unwrap());
        let ev: Arc<dyn Evaluator> = Arc::new(MaterialEvaluator);
        assert!(analyse(&ev, &game, 5, 0).is_err());
    }
}

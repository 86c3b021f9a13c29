//! Gating statistics on a fixed set of tiny games whose answers were counted by hand.
//!
//! ```text
//! Game A (S-Chess, generation 0, 1-0):
//!   1. Nc3/E e5 2. Nf3 Nc6/H 3. e4 d6 4. Bc4 Bg4/E 5. O-O/Hh1
//!   White: E move 1 behind the b1 knight, H move 5 castling onto the ROOK square h1.
//!   Black: H move 2 behind the b8 knight, E move 4 behind the c8 bishop.
//! Game B (S-Chess, generation 1, 0-1):
//!   1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O/Ee1
//!   White: E move 4 castling onto the KING square e1; H never (still gateable on a1-d1).
//!   Black: nothing (still gateable).
//! Game C (set-up `4k3/8/8/8/8/8/8/4K3[Hh] w Ee - 0 1`, generation 1, draw):
//!   1. Ke2/H Kd8: White H move 1 behind the king (e1); Black's H is stranded (its only
//!   gating square is gone). Neither side ever held an E.
//! Game D (orthodox chess, the control, generation 1, draw): 1. e4 e5. No hands: no
//!   side-game.
//! ```

mod common;

use common::record;

use research::games::{self, LoadOptions};
use research::stats::{
    self, by_generation, by_variant, entry, first_counts, gates_by, side_games, summarize, Condition, First,
    GameSummary, GateVia, Sides, Wdl,
};
use schess::{Color, HandPiece, Position, Variant};
use selfplay::GameRecord;
use std::collections::BTreeMap;

const E: HandPiece = HandPiece::Elephant;
const H: HandPiece = HandPiece::Hawk;
const SETUP_C: &str = "4k3/8/8/8/8/8/8/4K3[Hh] w Ee - 0 1";

fn fixed_games() -> Vec<GameSummary> {
    let start = Position::startpos();
    let setup = Position::from_fen(SETUP_C).unwrap();
    let chess = Position::new(Variant::Chess);
    vec![
        summarize(
            &start,
            &["b1c3e", "e7e5", "g1f3", "b8c6h", "e2e4", "d7d6", "f1c4", "c8g4e", "h1e1h"],
            Some(1),
            Some(0),
        )
        .unwrap(),
        summarize(&start, &["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1e"], Some(-1), Some(1)).unwrap(),
        summarize(&setup, &["e1e2h", "e8d8"], Some(0), Some(1)).unwrap(),
        summarize(&chess, &["e2e4", "e7e5"], Some(0), Some(1)).unwrap(),
    ]
}

fn hist(pairs: &[(u32, u64)]) -> BTreeMap<u32, u64> {
    pairs.iter().copied().collect()
}

#[test]
fn gate_events_are_classified_by_hand() {
    let g = fixed_games();
    let events: Vec<_> =
        g[0].gates.iter().map(|e| (e.color, e.piece, e.square.to_string(), e.via, e.move_number, e.ply)).collect();
    assert_eq!(
        events,
        vec![
            (Color::White, E, "b1".into(), GateVia::Knight, 1, 0),
            (Color::Black, H, "b8".into(), GateVia::Knight, 2, 3),
            (Color::Black, E, "c8".into(), GateVia::Bishop, 4, 7),
            (Color::White, H, "h1".into(), GateVia::CastleRookSquare, 5, 8),
        ]
    );
    let b: Vec<_> = g[1].gates.iter().map(|e| (e.piece, e.square.to_string(), e.via, e.move_number)).collect();
    assert_eq!(b, vec![(E, "e1".into(), GateVia::CastleKingSquare, 4)]);
    let c: Vec<_> = g[2].gates.iter().map(|e| (e.color, e.piece, e.via, e.move_number)).collect();
    assert_eq!(c, vec![(Color::White, H, GateVia::King, 1)]);
    assert!(g[3].gates.is_empty());
    assert_eq!(g[3].variant, Variant::Chess);
}

#[test]
fn entry_counts_moves_and_never_shares() {
    let games = fixed_games();
    let sides = side_games(&games);
    // Three S-Chess games, two sides each; the chess game has no hands.
    assert_eq!(sides.len(), 6);

    let e = entry(&sides, E, Sides::All);
    assert_eq!((e.held, e.entered, e.never(), e.stranded), (4, 3, 1, 0));
    assert_eq!(e.moves, hist(&[(1, 1), (4, 2)]));
    assert_eq!(e.mean_move(), Some(3.0));
    assert_eq!(e.quantile(0.5), Some(4));
    assert_eq!(e.never_share(), Some(0.25));

    let h = entry(&sides, H, Sides::All);
    assert_eq!((h.held, h.entered, h.never(), h.stranded), (6, 3, 3, 1));
    assert_eq!(h.moves, hist(&[(1, 1), (2, 1), (5, 1)]));
    assert_eq!(h.never_share(), Some(0.5));

    let hw = entry(&sides, H, Sides::White);
    assert_eq!((hw.held, hw.entered, hw.stranded), (3, 2, 0));
    let hb = entry(&sides, H, Sides::Black);
    assert_eq!((hb.held, hb.entered, hb.stranded), (3, 1, 1));
    let eb = entry(&sides, E, Sides::Black);
    assert_eq!((eb.held, eb.entered), (2, 1));
}

#[test]
fn squares_files_and_gating_pieces() {
    let games = fixed_games();
    let by_via = gates_by(&games, |g| g.via);
    let counts: Vec<(GateVia, u64, u64)> = by_via.iter().map(|(v, c)| (*v, c[0].count, c[1].count)).collect();
    assert_eq!(
        counts,
        vec![
            (GateVia::King, 0, 1),
            (GateVia::Bishop, 1, 0),
            (GateVia::Knight, 1, 1),
            (GateVia::CastleKingSquare, 1, 0),
            (GateVia::CastleRookSquare, 0, 1),
        ]
    );
    assert_eq!(by_via[&GateVia::CastleRookSquare][1].mean_move(), Some(5.0));
    let by_square = gates_by(&games, |g| g.square.to_string());
    let squares: Vec<(String, u64, u64)> = by_square.iter().map(|(s, c)| (s.clone(), c[0].count, c[1].count)).collect();
    assert_eq!(
        squares,
        vec![("b1".into(), 1, 0), ("b8".into(), 0, 1), ("c8".into(), 1, 0), ("e1".into(), 1, 1), ("h1".into(), 0, 1),]
    );
    let by_file = gates_by(&games, |g| g.square.file().char());
    assert_eq!(by_file[&'b'].map(|c| c.count), [1, 1]);
    assert_eq!(by_file[&'e'][0].mean_move(), Some(4.0));
}

#[test]
fn first_piece_and_conditional_scores() {
    let games = fixed_games();
    let sides = side_games(&games);
    let first = first_counts(&sides, Sides::All);
    assert_eq!(first, BTreeMap::from([(First::Elephant, 2), (First::Hawk, 2), (First::Neither, 2)]));
    assert_eq!(first_counts(&sides, Sides::White), BTreeMap::from([(First::Elephant, 2), (First::Hawk, 1)]));

    let wdl = |c| stats::score_if(&sides, c, Sides::All);
    let w = |wins, draws, losses| Wdl { wins, draws, losses };
    assert_eq!(wdl(Condition::FirstPiece(First::Elephant)), w(1, 0, 1));
    assert_eq!(wdl(Condition::FirstPiece(First::Hawk)), w(0, 1, 1));
    assert_eq!(wdl(Condition::FirstPiece(First::Hawk)).score(), Some(0.25));
    assert_eq!(wdl(Condition::NothingEntered), w(1, 1, 0));
    assert_eq!(wdl(Condition::FirstGateBy(3)), w(1, 1, 1));
    assert_eq!(wdl(Condition::FirstGateAfter(3)), w(0, 0, 1));
    assert_eq!(wdl(Condition::BothEntered), w(1, 0, 1));
    assert_eq!(wdl(Condition::GatedWhileCastling), w(1, 0, 1));
    assert_eq!(wdl(Condition::NeverEntered(E)), w(1, 0, 0));
    assert_eq!(wdl(Condition::NeverEntered(H)), w(1, 1, 1));
    assert_eq!(wdl(Condition::Entered(H)), w(1, 1, 1));
    assert_eq!(stats::score_if(&sides, Condition::FirstPiece(First::Elephant), Sides::Black), w(0, 0, 0));
}

#[test]
fn generations_and_variants() {
    let games = fixed_games();
    let gens = by_generation(&games);
    assert_eq!(gens.len(), 2);
    assert_eq!((gens[0].generation, gens[0].games, gens[0].side_games), (Some(0), 1, 2));
    assert_eq!(gens[0].entry[0].entered, 2);
    assert_eq!((gens[1].generation, gens[1].games, gens[1].side_games), (Some(1), 3, 4));
    assert_eq!((gens[1].entry[1].held, gens[1].entry[1].entered), (4, 1));
    let variants = by_variant(&games);
    assert_eq!(
        variants.iter().map(|v| (v.variant, v.games, v.gates)).collect::<Vec<_>>(),
        vec![(Variant::Chess, 1, 0), (Variant::Seirawan, 3, 6),]
    );
}

fn fixed_records() -> Vec<GameRecord> {
    let s = schess::STARTING_FEN;
    vec![
        record("seirawan", s, &["b1c3e", "e7e5", "g1f3", "b8c6h", "e2e4", "d7d6", "f1c4", "c8g4e", "h1e1h"], 1, 0),
        record("seirawan", s, &["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1e"], -1, 1),
        record("seirawan", SETUP_C, &["e1e2h", "e8d8"], 0, 1),
        record("chess", Variant::Chess.start_fen(), &["e2e4", "e7e5"], 0, 1),
    ]
}

/// Same summaries, ignoring what the input format cannot carry.
fn comparable(mut g: Vec<GameSummary>, keep_generation: bool) -> Vec<GameSummary> {
    for s in &mut g {
        s.termination.clear();
        if !keep_generation {
            s.generation = None;
        }
    }
    g
}

#[test]
fn shards_load_to_the_same_summaries_and_bad_files_are_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let shards = dir.path().join("shards");
    std::fs::create_dir(&shards).unwrap();
    let mut recs = fixed_records();
    selfplay::shard::write(&shards.join("a.shard"), &recs[..2]).unwrap();
    recs[1].moves.push("e1e8".into()); // illegal: a warning, the game skipped
    selfplay::shard::write(&shards.join("b.shard"), &recs[1..]).unwrap();
    std::fs::write(shards.join("c.shard"), b"not a shard at all, but long enough").unwrap();
    let loaded = games::load_run(dir.path(), LoadOptions::default()).unwrap();
    assert_eq!(loaded.files, 2);
    assert_eq!(loaded.skipped_games, 1);
    assert_eq!(loaded.warnings.len(), 2, "{:?}", loaded.warnings);
    assert!(loaded.warnings.iter().any(|w| w.contains("c.shard") && w.contains("bad magic")), "{:?}", loaded.warnings);
    assert!(loaded.warnings.iter().any(|w| w.contains("b.shard: game 1: move 8")), "{:?}", loaded.warnings);
    // a.shard: A, B; b.shard: (B with an illegal move, skipped), C, D: in file order.
    assert_eq!(comparable(loaded.games.clone(), true), comparable(fixed_games(), true));
    assert!(matches!(
        games::load_run(&dir.path().join("missing"), LoadOptions::default()),
        Err(games::LoadError::Io { .. })
    ));
    let empty = tempfile::tempdir().unwrap();
    assert!(matches!(games::load_run(empty.path(), LoadOptions::default()), Err(games::LoadError::NoShards(_))));
}

const PGN: &str = r#"[Event "A"]
[Result "1-0"]
[Variant "Seirawan"]

1. Nc3/E e5 2. Nf3 Nc6/H 3. e4 d6 {a comment} 4. Bc4 Bg4/E 5. O-O/Hh1 1-0

[Event "B"]
[Result "0-1"]
[Variant "Seirawan"]

1. e4 e5 2. Nf3 Nc6 (2... d6 3. d4) 3. Bc4 Bc5 4. O-O/Ee1 0-1

[Event "C"]
[Result "1/2-1/2"]
[Variant "Seirawan"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/8/4K3[Hh] w Ee - 0 1"]

1. Ke2/H Kd8 1/2-1/2

[Event "D, orthodox chess: no Variant tag"]
[Result "1/2-1/2"]

1. e4 e5 1/2-1/2

[Event "broken"]
[Result "*"]
[Variant "Seirawan"]

1. e4 e5 2. Ke3 *
"#;

#[test]
fn pgn_loads_to_the_same_summaries() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.pgn");
    std::fs::write(&path, PGN).unwrap();
    let loaded = games::load_pgn(&path, LoadOptions::default()).unwrap();
    assert_eq!(loaded.games.len(), 4);
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    let w = &loaded.warnings[0];
    assert!(w.contains("games.pgn:26: game 5: move 3 \"Ke3\""), "{w}");
    assert_eq!(comparable(loaded.games, false), comparable(fixed_games(), false));
    assert!(matches!(
        games::load_pgn(&dir.path().join("missing.pgn"), LoadOptions::default()),
        Err(games::LoadError::Io { .. })
    ));
}

#[test]
fn probe_candidates_are_positions_that_can_gate() {
    let dir = tempfile::tempdir().unwrap();
    selfplay::shard::write(&dir.path().join("a.shard"), &fixed_records()).unwrap();
    let opts = LoadOptions { probe_history: Some(2), seed: 3 };
    let loaded = games::load_run(dir.path(), opts).unwrap();
    // Every S-Chess game has a position where the side to move could gate; chess none.
    assert_eq!(loaded.probes.len(), 3);
    for p in &loaded.probes {
        assert!(p.history.len() <= 3);
        let pos = p.position();
        assert!(!pos.hand(pos.turn()).is_empty() && pos.gating_rights(pos.turn()).any(), "{}", p.origin);
    }
    // Deterministic for a seed.
    let again = games::load_run(dir.path(), opts).unwrap();
    let key = |l: &games::Loaded| l.probes.iter().map(|p| p.origin.clone()).collect::<Vec<_>>();
    assert_eq!(key(&loaded), key(&again));
}

#[test]
fn never_entered_per_game_in_the_report_table() {
    let games = fixed_games();
    let report = research::analysis::build(research::analysis::Input {
        title: "t".into(),
        games: &games,
        meta: vec![],
        warnings: vec![],
        by_move: 3,
        probe: None,
    })
    .unwrap();
    // E held in games A and B; B's Black never gated it. H held in A, B, C: in B neither
    // side gated it, in C Black did not.
    let csv = report.table("never_by_game").unwrap().csv();
    assert_eq!(
        csv,
        "piece,games held,one side or both never,share,both sides never,share\n\
         E,2,1,0.5000,0,0.0000\n\
         H,3,2,0.6667,1,0.3333\n"
    );
}

/// Placement: a piece whose home square is captured before it enters leaves the hand and
/// is lost for the game (stranded), though nothing about it is left in the end position.
#[test]
fn a_placed_piece_lost_at_home_is_stranded() {
    let start = Position::from_fen_variant("1r2k3/8/8/8/8/8/8/1N2K3[E@b] b B - 0 1", Variant::Placement).unwrap();
    let game = summarize(&start, &["b8b1"], Some(-1), None).unwrap();
    assert!(!game.end_hands[Color::White.index()].contains(E), "the capture took the piece out of the hand");
    let sides = side_games(std::slice::from_ref(&game));
    let e = entry(&sides, E, Sides::White);
    assert_eq!((e.held, e.entered, e.never(), e.stranded), (1, 0, 1, 1));
}

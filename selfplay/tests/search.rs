//! Search finds what the rules alone decide: mates in one and two (one mating by a gate),
//! and it avoids a stalemating move. Uniform evaluator, so only the rules guide it.

use models::evaluator::UniformEvaluator;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use schess::{Move, Position};
use selfplay::{RootMode, SearchConfig, Tree};

fn search(fen: &str, sims: u32, mode: RootMode) -> (Tree, Position) {
    let pos = Position::from_fen(fen).unwrap();
    let mut tree = Tree::new(vec![pos.clone()]);
    let cfg = SearchConfig { root_mode: mode, ..SearchConfig::default() };
    let mut rng = SmallRng::seed_from_u64(1);
    tree.search(&UniformEvaluator, &cfg, sims, false, &mut rng).unwrap();
    (tree, pos)
}

fn is_mate(pos: &Position, m: Move) -> bool {
    pos.play(m).unwrap().is_checkmate()
}

/// Every reply to `m` allows a mate in one.
fn wins_in_two(pos: &Position, m: Move) -> bool {
    let after = pos.play(m).unwrap();
    after.has_legal_moves()
        && after.legal_moves().iter().all(|&r| {
            let p = after.play(r).unwrap();
            p.legal_moves().iter().any(|&w| is_mate(&p, w))
        })
}

#[test]
fn finds_mate_in_one() {
    for mode in [RootMode::Puct, RootMode::Gumbel] {
        let (tree, pos) = search("6k1/5ppp/8/8/8/8/8/R3K3[] w Q - 0 1", 400, mode);
        let m = tree.best_move().unwrap();
        assert!(is_mate(&pos, m), "{mode:?} chose {m}");
        if mode == RootMode::Puct {
            assert!(tree.root_wdl()[0] > 0.5, "{:?}", tree.root_wdl());
        }
    }
}

#[test]
fn finds_mate_in_one_by_gating() {
    // Only gating moves mate: the hawk gated on a1 checks along the long diagonal.
    let fen = "7k/p6p/7P/8/8/8/8/R3K1R1[H] w A - 0 1";
    let pos = Position::from_fen(fen).unwrap();
    let mates: Vec<Move> = pos.legal_moves().into_iter().filter(|&m| is_mate(&pos, m)).collect();
    assert!(!mates.is_empty() && mates.iter().all(|m| m.gate().is_some()));
    let (tree, pos) = search(fen, 400, RootMode::Puct);
    let m = tree.best_move().unwrap();
    assert!(is_mate(&pos, m) && m.gate().is_some(), "chose {m}");
}

#[test]
fn finds_mate_in_two_ending_with_a_gate() {
    // The knight leaves the long diagonal; then a rook move gating the hawk on a1 mates.
    // (Gating first and mating with the knight's discovery also wins.) No mate in one.
    let fen = "7k/ppp4p/7P/8/3N4/8/8/R3K1R1[H] w A - 0 1";
    let pos = Position::from_fen(fen).unwrap();
    assert!(!pos.legal_moves().iter().any(|&m| is_mate(&pos, m)));
    let (tree, pos) = search(fen, 3000, RootMode::Puct);
    let first = tree.best_move().unwrap();
    assert!(wins_in_two(&pos, first), "chose {first}");
    // After either reply, the search mates with a gate.
    let after = pos.play(first).unwrap();
    for reply in after.legal_moves() {
        let p = after.play(reply).unwrap();
        let mut t = Tree::new(vec![p.clone()]);
        t.search(&UniformEvaluator, &SearchConfig::default(), 400, false, &mut SmallRng::seed_from_u64(2)).unwrap();
        let m = t.best_move().unwrap();
        assert!(is_mate(&p, m), "after {first} {reply}: chose {m}");
        // Unless the gate came first, every mate here is a gating move.
        if first.gate().is_none() {
            assert!(m.gate().is_some(), "after {first} {reply}: mate {m} without a gate");
        }
    }
}

#[test]
fn avoids_stalemate() {
    // Qg6 stalemates; Qg7 and Qh6 mate.
    let fen = "7k/5K2/8/6Q1/8/8/8/8[] w - - 0 1";
    let pos = Position::from_fen(fen).unwrap();
    let stalemate = pos.parse_uci("g5g6").unwrap();
    assert!(pos.play(stalemate).unwrap().is_stalemate());
    for mode in [RootMode::Puct, RootMode::Gumbel] {
        let (tree, pos) = search(fen, 300, mode);
        let m = tree.best_move().unwrap();
        assert_ne!(m, stalemate);
        assert!(is_mate(&pos, m), "{mode:?} chose {m}");
    }
}

#[test]
fn policy_target_covers_only_legal_moves() {
    let (tree, pos) = search(schess::STARTING_FEN, 200, RootMode::Puct);
    let cfg = SearchConfig::default();
    for prune in [false, true] {
        let target = tree.policy_target(&cfg, prune);
        assert_eq!(target.len(), pos.legal_moves().len());
        assert!((target.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(target.iter().all(|&p| p >= 0.0));
    }
    let (tree, _) = search(schess::STARTING_FEN, 64, RootMode::Gumbel);
    let target = tree.policy_target(&cfg, false);
    assert!((target.iter().sum::<f32>() - 1.0).abs() < 1e-4);
}

#[test]
fn tree_reuse_keeps_the_subtree() {
    let (tree, pos) = search(schess::STARTING_FEN, 300, RootMode::Puct);
    let m = tree.best_move().unwrap();
    let child_visits = tree.root_children().iter().find(|c| c.mv == m).unwrap().visits;
    let next = tree.advance(m);
    assert_eq!(next.root_position(), &pos.play(m).unwrap());
    assert_eq!(next.root_visits(), child_visits);
}

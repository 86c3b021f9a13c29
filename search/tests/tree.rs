//! Search finds what the rules alone decide: mates in one and two (one mating by a gate),
//! and it avoids a stalemating move. Uniform evaluator, so only the rules guide it.

use rand::rngs::SmallRng;
use rand::SeedableRng;
use schess::{Move, Position};
use search::evaluator::{MaterialEvaluator, UniformEvaluator};
use search::Evaluator;
use search::{PositionSearch, Proof, RootMode, SearchConfig, Tree};

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

/// Lead 1 of the learning review: with equal priors and no noise, Gumbel's top-k must not
/// be the first k legal moves, nor its choice always the same one.
#[test]
fn noise_free_gumbel_with_equal_priors_does_not_follow_move_order() {
    let pos = Position::startpos();
    let legal = pos.legal_moves();
    let cfg = SearchConfig { root_mode: RootMode::Gumbel, gumbel_actions: 8, ..SearchConfig::default() };
    let mut chosen = std::collections::HashSet::new();
    let mut beyond_first_eight = false;
    for seed in 0..12 {
        let mut tree = Tree::new(vec![pos.clone()]);
        tree.search(&UniformEvaluator, &cfg, 16, false, &mut SmallRng::seed_from_u64(seed)).unwrap();
        let m = tree.gumbel_choice().unwrap();
        chosen.insert(m);
        let visited: Vec<usize> =
            tree.root_children().iter().enumerate().filter(|(_, c)| c.visits > 0).map(|(k, _)| k).collect();
        beyond_first_eight |= visited.iter().any(|&k| k >= 8);
    }
    assert!(chosen.len() > 3, "the same few moves every time: {chosen:?}");
    assert!(!chosen.iter().all(|&m| m == legal[7]));
    assert!(beyond_first_eight, "only the first eight legal moves were ever searched");
}

/// Lead 2: with Gumbel's sequential halving, most of a small search's visits go to moves
/// it discards; the value target must come from the improved policy, not the visit mean.
#[test]
fn gumbel_value_target_sees_a_mate_in_one() {
    // Only Ra8# wins; every other move is about even.
    let fen = "6k1/5ppp/8/8/8/8/8/R3K3[] w Q - 0 1";
    let pos = Position::from_fen(fen).unwrap();
    let cfg = SearchConfig { root_mode: RootMode::Gumbel, gumbel_actions: 16, ..SearchConfig::default() };
    let mut found = 0;
    for seed in 0..8 {
        let mut tree = Tree::new(vec![pos.clone()]);
        tree.search(&UniformEvaluator, &cfg, 16, true, &mut SmallRng::seed_from_u64(seed)).unwrap();
        let mate_visited = tree.root_children().iter().any(|c| is_mate(&pos, c.mv) && c.visits > 0);
        if !mate_visited {
            continue;
        }
        found += 1;
        let mean = tree.root_wdl();
        let target = tree.value_target();
        assert!((target.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(target[0] > 0.9, "seed {seed}: value target {target:?}");
        assert!(mean[0] < target[0] - 0.2, "seed {seed}: the visit mean {mean:?} should lag");
    }
    assert!(found >= 2, "the mate was considered in only {found} of 8 searches");
}

/// Lead 6: the Gumbel policy target is not a one-hot on one-visit values: with mctx's
/// sigma (value scale 0.1, rescaled Q), the logit boost of the best move is bounded.
#[test]
fn gumbel_policy_target_is_bounded_by_sigma() {
    // Rxd5 wins the queen; after any other move White stays four pawns down.
    let pos = Position::from_fen("4k3/8/8/3q4/8/8/3R4/4K3[] w - - 0 1").unwrap();
    let log_ratio = |cfg: &SearchConfig| {
        let mut tree = Tree::new(vec![pos.clone()]);
        tree.search(&search::evaluator::MaterialEvaluator, cfg, 16, false, &mut SmallRng::seed_from_u64(3)).unwrap();
        let target = tree.policy_target(cfg, false);
        let (max, min) = target.iter().fold((0f32, 1f32), |(a, b), &p| (a.max(p), b.min(p)));
        (max / min).ln()
    };
    let cfg = SearchConfig { root_mode: RootMode::Gumbel, gumbel_actions: 16, ..SearchConfig::default() };
    // Uniform priors: the log-ratio is the sigma gap, at most (50 + max visits) * 0.1.
    let bounded = log_ratio(&cfg);
    assert!(bounded > 3.0 && bounded <= 6.6 + 1e-3, "log ratio {bounded}");
    // The old setting (scale 1 on unrescaled Q) made it a one-hot.
    let sharp = log_ratio(&SearchConfig { gumbel_c_scale: 1.0, gumbel_rescale_q: false, ..cfg });
    assert!(sharp > 20.0, "log ratio {sharp}");
}

/// Lead 7: a search of N playouts from a fresh root gives its moves N visits (the root's
/// own expansion is not one of them).
#[test]
fn a_search_of_n_playouts_visits_the_moves_n_times() {
    for mode in [RootMode::Puct, RootMode::Gumbel] {
        let (tree, _) = search(schess::STARTING_FEN, 16, mode);
        let visits: u32 = tree.root_children().iter().map(|c| c.visits).sum();
        assert_eq!(visits, 16, "{mode:?}");
    }
}

#[test]
fn the_solver_proves_a_mate_in_two_and_plays_it() {
    // Rook ladder: 1.Rb7 (or 1.Ra7) Kg8 2.Ra8# (Rb8#). The uniform evaluator knows nothing
    // of it; the proof comes from the mates found below.
    let fen = "7k/8/8/8/8/8/R7/1R4K1[] w - - 0 1";
    for mode in [RootMode::Puct, RootMode::Gumbel] {
        let (tree, pos) = search(fen, 3000, mode);
        assert!(tree.root_proven(), "{mode:?}: not proven");
        let m = tree.best_move().unwrap();
        assert!(wins_in_two(&pos, m), "{mode:?} chose {m}");
        let m = tree.choose_move(0.0, &mut SmallRng::seed_from_u64(3)).unwrap();
        assert!(wins_in_two(&pos, m), "{mode:?} chose {m}");
        // Sampling with a temperature plays the proven win too.
        let m = tree.sample_move(1.0, &mut SmallRng::seed_from_u64(4)).unwrap();
        assert!(wins_in_two(&pos, m), "{mode:?} sampled {m}");
    }
    // Once the root is proven, the search stops asking for evaluations.
    let pos = Position::from_fen(fen).unwrap();
    let mut tree = Tree::new(vec![pos]);
    let cfg = SearchConfig::default();
    tree.search(&UniformEvaluator, &cfg, 3000, false, &mut SmallRng::seed_from_u64(1)).unwrap();
    assert!(tree.root_proven());
    assert!(tree.select_leaf(&cfg, false, 64).is_none());
    // Off, nothing is proven.
    let cfg = SearchConfig { solver: false, ..SearchConfig::default() };
    let mut tree = Tree::new(vec![Position::from_fen(fen).unwrap()]);
    tree.search(&UniformEvaluator, &cfg, 3000, false, &mut SmallRng::seed_from_u64(1)).unwrap();
    assert!(!tree.root_proven());
}

#[test]
fn the_solver_never_chooses_a_proven_loss() {
    // The rook guards White's back rank: moving it up the a-file allows ...Re1#. The tree
    // proves those moves lost as it finds the mate, and never plays one.
    let fen = "4r1k1/5ppp/8/8/8/8/5PPP/R5K1[] w - - 0 1";
    for mode in [RootMode::Puct, RootMode::Gumbel] {
        let (tree, pos) = search(fen, 2000, mode);
        let lost: Vec<Move> =
            tree.root_children().iter().filter(|c| c.proof == Some(Proof::Loss)).map(|c| c.mv).collect();
        assert!(lost.len() >= 3, "{mode:?}: proven lost {lost:?}");
        for m in &lost {
            let after = pos.play(*m).unwrap();
            assert!(after.legal_moves().iter().any(|&r| is_mate(&after, r)), "{m} proven lost without a mate");
        }
        let m = tree.best_move().unwrap();
        assert!(!lost.contains(&m), "{mode:?} chose {m}, proven lost");
    }
}

#[test]
fn a_restricted_root_searches_and_chooses_only_the_allowed_moves() {
    // The mate in one (Ra8#) is barred: the root searches and plays only allowed moves.
    let fen = "6k1/5ppp/8/8/8/8/8/R3K3[] w Q - 0 1";
    let pos = Position::from_fen(fen).unwrap();
    let allowed: Vec<Move> = pos.legal_moves().into_iter().filter(|&m| !is_mate(&pos, m)).take(5).collect();
    for mode in [RootMode::Puct, RootMode::Gumbel] {
        let mut tree = Tree::new(vec![pos.clone()]);
        tree.restrict_root(Some(&allowed));
        let cfg = SearchConfig { root_mode: mode, ..SearchConfig::default() };
        let mut rng = SmallRng::seed_from_u64(1);
        tree.search(&UniformEvaluator, &cfg, 400, false, &mut rng).unwrap();
        for m in [tree.choose_move(0.0, &mut rng), tree.best_move(), tree.sample_move(1.0, &mut rng)] {
            assert!(allowed.contains(&m.unwrap()), "{mode:?} chose {m:?}");
        }
        for c in tree.root_children() {
            assert!(c.visits == 0 || allowed.contains(&c.mv), "{mode:?} searched {}", c.mv);
        }
        assert!(tree.root_children().iter().filter(|c| c.visits > 0).count() > 1);
    }
    // The searcher's own shortcut (play a mate in one at once) obeys the limit too, and
    // the next search of the same tree is free again.
    let game = schess::Game::new(pos.clone());
    let mut s = search::Searcher::new(std::sync::Arc::new(UniformEvaluator), SearchConfig::default(), true, 1);
    let limits = search::Limits::nodes(200);
    let ctl = search::SearchControl::default();
    let r = s.search_among(&game, Some(&allowed), &limits, &ctl, &mut |_| {}).unwrap();
    assert!(allowed.contains(&r.best.unwrap()), "{:?}", r.best);
    let r = s.search(&game, &limits, &ctl, &mut |_| {}).unwrap();
    assert!(is_mate(&pos, r.best.unwrap()), "{:?}", r.best);
}

#[test]
fn a_resolved_leaf_counts_the_material_its_side_to_move_can_take() {
    // Black to move can take white's undefended rook on d1 with the bishop.
    let pos = Position::from_fen("4k3/8/8/8/6b1/8/5K2/3R4[] b - - 0 1").unwrap();
    let leaf_q = |resolve_captures: bool| -> f32 {
        let mut tree = Tree::new(vec![pos.clone()]);
        let cfg = SearchConfig { resolve_captures, ..SearchConfig::default() };
        let leaf = tree.select_leaf(&cfg, false, 1).expect("the root is the first leaf");
        let even = UniformEvaluator.evaluate(&[&leaf.history]).unwrap().remove(0);
        tree.expand_and_backup(&leaf, &even);
        let [w, _, l] = tree.root_wdl();
        w - l
    };
    // An even evaluation plus a free rook: tanh(5 / 4).
    assert!((leaf_q(true) - (5.0f32 / 4.0).tanh()).abs() < 1e-4, "{}", leaf_q(true));
    assert_eq!(leaf_q(false), 0.0);
}

#[test]
fn resolved_leaves_see_a_piece_left_hanging() {
    // White's rook on d1 stands on the black bishop's diagonal; a king move leaves it to be
    // taken for nothing. The material evaluator sees the loss only once the capture is
    // searched; resolution sees it at the leaf after the king move.
    let fen = "4k3/8/8/8/6b1/8/8/3R2K1[] w - - 0 1";
    let pos = Position::from_fen(fen).unwrap();
    let mut tree = Tree::new(vec![pos.clone()]);
    let cfg = SearchConfig { resolve_captures: true, ..SearchConfig::default() };
    tree.search(&MaterialEvaluator, &cfg, 60, false, &mut SmallRng::seed_from_u64(1)).unwrap();
    for c in tree.root_children() {
        let after = pos.play(c.mv).unwrap();
        if let (Some(q), true) = (c.q, search::exchange::resolve(&after, 8) > 0) {
            assert!(q < -0.5, "{} leaves the rook hanging and keeps {q}", c.mv);
        }
    }
    let best = tree.best_move().unwrap();
    assert_eq!(search::exchange::resolve(&pos.play(best).unwrap(), 8), 0, "{best} leaves the rook hanging");
}

use super::*;
use crate::evaluator::{Evaluation, MaterialEvaluator, UniformEvaluator};
use std::sync::atomic::AtomicU64;
use std::time::Duration;

/// Every leaf scored by `ev`.
fn engine(ev: Arc<dyn Evaluator>) -> AlphaBeta {
    AlphaBeta::new(ev, AbConfig { hash_mb: 4, leaf: LeafEval::Evaluator, root_value: 0, ..AbConfig::default() })
}

fn game(fen: &str) -> Game {
    Game::new(Position::from_fen(fen).unwrap())
}

fn search_depth(ab: &mut AlphaBeta, g: &Game, depth: u32) -> SearchResult {
    let limits = Limits { depth: Some(depth), ..Limits::default() };
    ab.search(g, &limits, &SearchControl::default(), &mut |_| {}).unwrap()
}

/// Counts evaluator calls and positions, forwarding to the material evaluator.
#[derive(Default)]
struct Counting {
    calls: AtomicU64,
    positions: AtomicU64,
}

impl Evaluator for Counting {
    fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.positions.fetch_add(histories.len() as u64, Ordering::Relaxed);
        MaterialEvaluator.evaluate(histories)
    }
    fn describe(&self) -> String {
        "counting".into()
    }
}

/// Likes one square for White's knight: the side to move scores -0.9 (Black) or +0.9
/// (White) when it stands there, 0 otherwise, with uniform priors.
struct LikesKnightOn(schess::Square);

impl Evaluator for LikesKnightOn {
    fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
        let mut evals = UniformEvaluator.evaluate(histories)?;
        for (h, e) in histories.iter().zip(&mut evals) {
            let pos = h.last().expect("a history ends in its position");
            let there = pos.piece_at(self.0).is_some_and(|p| p.role == schess::Role::Knight);
            let q = match (there, pos.turn()) {
                (false, _) => 0.0,
                (true, schess::Color::White) => 0.9,
                (true, schess::Color::Black) => -0.9,
            };
            e.wdl = crate::evaluator::wdl_from_q(q);
        }
        Ok(evals)
    }
    fn describe(&self) -> String {
        "likes a knight square".into()
    }
}

#[test]
fn root_value_chooses_among_materially_equal_moves_and_never_pays_material() {
    let play = |fen: &str, liked: &str, root_value: i32| {
        let cfg = AbConfig { hash_mb: 4, root_value, ..AbConfig::default() };
        assert_eq!(cfg.leaf, LeafEval::Material);
        let mut ab = AlphaBeta::new(Arc::new(LikesKnightOn(schess::Square::parse(liked).unwrap())), cfg);
        search_depth(&mut ab, &game(fen), 3).best.unwrap().to_uci()
    };
    // Every move keeps material level: the evaluator's favourite square decides.
    let quiet = "4k3/8/8/8/8/8/8/4K2N[] w - - 0 1";
    assert_eq!(play(quiet, "g3", 150), "h1g3");
    assert_eq!(play(quiet, "f2", 150), "h1f2");
    // On g3 the knight is taken by the h4 pawn: 150 centipawns do not buy a knight.
    let defended = "4k3/8/8/8/7p/8/8/4K2N[] w - - 0 1";
    assert_ne!(play(defended, "g3", 150), "h1g3");
}

/// Thinks the side to move always stands well: every root move's bias is negative.
struct Optimist;

impl Evaluator for Optimist {
    fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
        let mut evals = UniformEvaluator.evaluate(histories)?;
        evals.iter_mut().for_each(|e| e.wdl = crate::evaluator::wdl_from_q(0.9));
        Ok(evals)
    }
    fn describe(&self) -> String {
        "optimist".into()
    }
}

#[test]
fn root_value_keeps_mates_true() {
    // Once a mate bounds the root's window, a biased window would reach past it and
    // mate-distance pruning would hand other moves false mates (it did: 9 of the suite's
    // 19 mates were missed that way).
    for fen in ["6k1/5ppp/8/8/8/8/8/R5K1[] w - - 0 1", "7k/8/8/8/8/8/1R6/R5K1[] w - - 0 1"] {
        let cfg = AbConfig { hash_mb: 4, root_value: 1000, ..AbConfig::default() };
        let mut ab = AlphaBeta::new(Arc::new(Optimist), cfg);
        let g = game(fen);
        let r = search_depth(&mut ab, &g, 4);
        let mut line = g.clone();
        for m in &r.info.pv {
            line.play(*m).unwrap();
        }
        assert!(line.position().legal_moves().is_empty() && line.position().is_check(), "{fen}: {:?}", r.info);
    }
}

#[test]
fn takes_a_hanging_piece_and_sees_the_recapture() {
    // Rxd5 wins a free rook; the queen on a5 is defended, so Rxa5 would lose... nothing,
    // but the rook on d1 taking the pawn on d4 defended by e5 loses the exchange.
    let mut ab = engine(Arc::new(MaterialEvaluator));
    let r = search_depth(&mut ab, &game("4k3/8/8/3r4/8/8/8/3RK3[] w - - 0 1"), 1);
    assert_eq!(r.best.unwrap().to_uci(), "d1d5");
    assert!(r.info.q > 0.5, "{:?}", r.info);
    // Depth 1 plus quiescence: taking a pawn defended by a pawn loses the rook.
    let r = search_depth(&mut ab, &game("4k3/8/8/4p3/3p4/8/8/3RK3[] w - - 0 1"), 1);
    assert_ne!(r.best.unwrap().to_uci(), "d1d4");
}

#[test]
fn moves_an_attacked_piece_out_of_a_capture() {
    // The knight on d5 is attacked by the c6 pawn; every non-knight move loses it.
    let mut ab = engine(Arc::new(MaterialEvaluator));
    let g = game("4k3/8/2p5/3N4/8/8/8/4K3[] w - - 0 1");
    let r = search_depth(&mut ab, &g, 2);
    let best = r.best.unwrap();
    assert_eq!(best.from().to_string(), "d5", "{best} {:?}", r.info);
}

#[test]
fn finds_mates_and_reports_them() {
    let mut ab = engine(Arc::new(UniformEvaluator));
    // Mate in one: Ra8#.
    let r = search_depth(&mut ab, &game("6k1/5ppp/8/8/8/8/8/R5K1[] w - - 0 1"), 3);
    assert_eq!(r.best.unwrap().to_uci(), "a1a8");
    assert_eq!(r.info.mate, Some(1));
    // Mate in two with a quiet first move: Rb7 Kg8 Ra8# (or Ra7 and Rb8#).
    let g = game("7k/8/8/8/8/8/1R6/R5K1[] w - - 0 1");
    let r = search_depth(&mut ab, &g, 4);
    assert_eq!(r.info.mate, Some(2), "{:?}", r.info);
    let mut g2 = g.clone();
    g2.play(r.best.unwrap()).unwrap();
    let reply = g2.position().legal_moves()[0];
    g2.play(reply).unwrap();
    let r2 = search_depth(&mut ab, &g2, 2);
    assert_eq!(r2.info.mate, Some(1));
    // The mated side reports being mated.
    let mated = game("R5k1/5ppp/8/8/8/8/8/6K1[] b - - 0 1");
    let r = search_depth(&mut ab, &mated, 2);
    assert_eq!((r.best, r.info.mate), (None, Some(0)));
}

#[test]
fn a_gate_is_searched_like_any_move() {
    // White's queen is attacked by the black knight... keep it simple: from the start
    // every move, gates included, is legal output; a search of depth 2 returns one.
    let mut ab = engine(Arc::new(MaterialEvaluator));
    let g = Game::new(Position::startpos());
    let r = search_depth(&mut ab, &g, 2);
    assert!(g.position().is_legal(r.best.unwrap()));
    assert_eq!(r.info.depth, 2);
    assert!(r.info.pv.len() >= 2, "{:?}", r.info.pv);
}

#[test]
fn frontier_children_are_evaluated_in_batches() {
    let counting = Arc::new(Counting::default());
    let mut ab = engine(counting.clone());
    let g = Game::new(Position::startpos());
    search_depth(&mut ab, &g, 3);
    let calls = counting.calls.load(Ordering::Relaxed);
    let positions = counting.positions.load(Ordering::Relaxed);
    // Quiescence roots whose parent could not batch them (after a check, say) come alone.
    assert!(positions as f64 / calls as f64 >= 6.0, "{positions} positions in {calls} calls");
}

#[test]
fn limits_and_stop() {
    let mut ab = engine(Arc::new(MaterialEvaluator));
    let g = Game::new(Position::startpos());
    let t = Instant::now();
    let limits = Limits { time: Some(Duration::from_millis(100)), ..Limits::default() };
    let r = ab.search(&g, &limits, &SearchControl::default(), &mut |_| {}).unwrap();
    // Wide, for loaded test machines: without the time check the search would run to its
    // depth cap, far longer than this.
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert!(g.position().is_legal(r.best.unwrap()));
    let r = ab.search(&g, &Limits::nodes(500), &SearchControl::default(), &mut |_| {}).unwrap();
    assert!((500..=502).contains(&r.info.nodes), "{}", r.info.nodes);
    let control = SearchControl::default();
    control.stop.store(true, Ordering::Relaxed);
    let r = ab.search(&g, &Limits { infinite: true, ..Limits::default() }, &control, &mut |_| {}).unwrap();
    assert!(g.position().is_legal(r.best.unwrap()));
    // Infos come once per finished iteration and once at the end.
    let mut depths = Vec::new();
    search_depth_with(&mut ab, &g, 3, &mut |i| depths.push(i.depth));
    assert_eq!(depths, vec![1, 2, 3, 3]);
}

fn search_depth_with(ab: &mut AlphaBeta, g: &Game, depth: u32, on_info: &mut dyn FnMut(&SearchInfo)) {
    let limits = Limits { depth: Some(depth), ..Limits::default() };
    ab.search(g, &limits, &SearchControl::default(), on_info).unwrap();
}

#[test]
fn repetitions_are_found_in_the_line() {
    let mut g = Game::new(Position::startpos());
    let cycle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    for uci in cycle {
        g.play_uci(uci).unwrap();
        // The knights' first moves took the g1/g8 gating rights: no position repeats yet.
        assert!(!repeats(g.positions()));
    }
    for uci in cycle {
        g.play_uci(uci).unwrap();
    }
    assert!(repeats(g.positions()), "the position after the first cycle, White to move");
    g.play_uci("e2e4").unwrap();
    assert!(!repeats(g.positions()));
}

/// Limited root moves: the search plays one of them, scores what it can do with them, and
/// a table filled by an unlimited search of the same position does not bring the barred
/// move back.
#[test]
fn search_among_plays_only_the_moves_it_was_given() {
    // White takes a free queen with Rd1xd5, or else plays something quiet.
    let g = game("4k3/8/8/3q4/8/8/8/3RK3[] w - - 0 1");
    let mut ab = engine(Arc::new(MaterialEvaluator));
    let free = search_depth(&mut ab, &g, 3);
    assert_eq!(free.best.unwrap().to_uci(), "d1d5");
    let allowed: Vec<Move> = g.position().legal_moves().into_iter().filter(|m| m.to_uci() != "d1d5").collect();
    let limits = Limits { depth: Some(3), ..Limits::default() };
    let r = ab.search_among(&g, Some(&allowed), &limits, &SearchControl::default(), &mut |_| {}).unwrap();
    let best = r.best.unwrap();
    assert!(allowed.contains(&best), "{}", best.to_uci());
    assert!(r.info.pv.first() == Some(&best));
    // Without the capture White is a queen down: the score says so.
    assert!(r.info.q < free.info.q, "{} vs {}", r.info.q, free.info.q);
    // Moves that are not legal are ignored; none legal at all means every move.
    let other = Position::from_fen("4k3/8/8/8/8/8/8/R3K3[] w - - 0 1").unwrap();
    let elsewhere = [other.parse_uci("a1a8").unwrap()];
    let r = ab.search_among(&g, Some(&elsewhere), &limits, &SearchControl::default(), &mut |_| {}).unwrap();
    assert_eq!(r.best.unwrap().to_uci(), "d1d5");
    // One move left under a clock is searched and scored (`go movetime T searchmoves M`
    // values M), not played at once as a position's only legal move is.
    let timed = Limits { time: Some(std::time::Duration::from_millis(50)), ..Limits::default() };
    let valued = |ab: &mut AlphaBeta, mv: &str| {
        let one = [g.position().parse_uci(mv).unwrap()];
        let r = ab.search_among(&g, Some(&one), &timed, &SearchControl::default(), &mut |_| {}).unwrap();
        assert_eq!(r.best.unwrap().to_uci(), mv);
        assert!(r.info.nodes > 0, "{mv}: not searched");
        r.info.q
    };
    let (capture, quiet) = (valued(&mut ab, "d1d5"), valued(&mut ab, "d1d2"));
    assert!(capture > quiet, "{capture} vs {quiet}");
}

/// The learned leaf evaluation with the conventional values is the material control,
/// move for move and score for score; one that likes a square plays to it; without its
/// weights the search says what is missing.
#[test]
fn learned_leaves_score_as_their_weights_say() {
    let fens = [
        "r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R[EHeh] b KQBCDFkqcdfg - 0 3",
        "4k3/8/8/3q4/8/8/3R4/3QK3[] w - - 0 1",
    ];
    let learned = Arc::new(crate::learned::LearnedEval::material());
    for fen in fens {
        let g = game(fen);
        let mut control = AlphaBeta::new(Arc::new(UniformEvaluator), AbConfig { hash_mb: 4, ..AbConfig::control() });
        let cfg =
            AbConfig { hash_mb: 4, leaf: LeafEval::Learned, learned: Some(learned.clone()), ..AbConfig::control() };
        let mut ab = AlphaBeta::new(Arc::new(UniformEvaluator), cfg);
        let (a, b) = (search_depth(&mut control, &g, 4), search_depth(&mut ab, &g, 4));
        assert_eq!((a.best, a.info.q, a.info.nodes), (b.best, b.info.q, b.info.nodes), "{fen}");
    }
    // A knight on f3 worth two pawns: from the start, 1.Nf3 (or 1.Nf3 with a gate).
    let mut weights = learned.weights.clone();
    for (i, w) in weights.iter_mut().enumerate() {
        if crate::learned::feature_name(i).ends_with("N on f3") {
            *w = 200.0;
        }
    }
    let likes_f3 = Arc::new(crate::learned::LearnedEval::new(weights, "test").unwrap());
    let cfg = AbConfig { hash_mb: 4, leaf: LeafEval::Learned, learned: Some(likes_f3), ..AbConfig::control() };
    let mut ab = AlphaBeta::new(Arc::new(UniformEvaluator), cfg);
    let best = search_depth(&mut ab, &game(schess::STARTING_FEN), 1).best.unwrap();
    assert!(best.to_string().starts_with("g1f3"), "{best}");
    let mut missing =
        AlphaBeta::new(Arc::new(UniformEvaluator), AbConfig { leaf: LeafEval::Learned, ..AbConfig::control() });
    let err = missing.search(&game(schess::STARTING_FEN), &Limits::nodes(10), &SearchControl::default(), &mut |_| {});
    assert!(err.unwrap_err().to_string().contains("eval=FILE"));
}

//! `cargo bench -p schess`: perft speed on a few positions (nodes/s, bulk counting).
//! The side-by-side comparison with Fairy-Stockfish is `scripts/bench-perft`.

use schess::Position;
use std::time::Instant;

fn main() {
    let cases = [
        (schess::STARTING_FEN, 5),
        ("r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R[EHeh] w KQkq - 0 1", 4),
        ("rnb2bnr/2pk1ppp/p7/1p1pP3/2P5/PP2PPPq/7P/RNBQK1NR[EHeh] b KQBCDGabcfgh - 0 9", 4),
    ];
    for (fen, depth) in cases {
        let pos = Position::from_fen(fen).expect("valid FEN");
        let t = Instant::now();
        let nodes = pos.perft(depth);
        let secs = t.elapsed().as_secs_f64();
        println!("depth {depth} nodes {nodes:>12} {:>8.3}s {:>8.1} Mnps  {fen}", secs, nodes as f64 / secs / 1e6);
    }
}

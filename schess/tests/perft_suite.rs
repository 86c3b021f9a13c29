//! The oracle's perft suite (`data/perft-seirawan.epd`, Fairy-Stockfish's counts).
//! Depths up to 3 run always; depth 4 and the start position's depths 5 and 6 are ignored
//! tests (`cargo test --release -p schess -- --ignored`).

use schess::perft::parse_suite;
use schess::Position;

const SUITE: &str = include_str!("data/perft-seirawan.epd");

fn check(min_depth: u32, max_depth: u32) {
    let suite = parse_suite(SUITE).expect("suite parses");
    assert_eq!(suite.len(), 201);
    let mut checked = 0;
    for case in &suite {
        let pos = Position::from_fen(&case.fen).unwrap();
        for &(depth, expected) in &case.expected {
            if (min_depth..=max_depth).contains(&depth) {
                assert_eq!(pos.perft(depth), expected, "{} depth {depth}", case.fen);
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
}

#[test]
fn depths_1_to_3() {
    check(1, 3);
}

#[test]
#[ignore = "slow in debug builds; run with --release -- --ignored"]
fn depth_4() {
    check(4, 4);
}

#[test]
#[ignore = "slow in debug builds; run with --release -- --ignored"]
fn start_position_depths_5_and_6() {
    check(5, 6);
}

#[test]
fn divide_sums_to_perft() {
    let pos = Position::startpos();
    let divide = pos.perft_divide(3);
    assert_eq!(divide.len(), 28);
    assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 24830);
    let ucis: Vec<String> = divide.iter().map(|(m, _)| m.to_uci()).collect();
    let mut sorted = ucis.clone();
    sorted.sort();
    assert_eq!(ucis, sorted, "divide is in UCI byte order");
}

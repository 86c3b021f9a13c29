//! Every legal move of every position in the oracle's move data has its own policy index,
//! and the index maps back to that move.

use models::policy_index::{index_of, move_of, policy_move, POLICY_SIZE};
use schess::Position;
use std::collections::HashSet;

const DATA: &str = include_str!("../../schess/tests/data/moves-seirawan.jsonl");

#[test]
fn oracle_moves_have_distinct_indices_that_map_back() {
    let mut total = 0;
    let mut used = HashSet::new();
    for line in DATA.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let pos = Position::from_fen(v["fen"].as_str().unwrap()).unwrap();
        let mut seen = HashSet::new();
        for m in v["moves"].as_array().unwrap() {
            let mv = pos.parse_uci(m["uci"].as_str().unwrap()).unwrap();
            let i = index_of(mv, pos.turn()).unwrap_or_else(|| panic!("no index for {mv}"));
            assert!(i < POLICY_SIZE);
            assert!(seen.insert(i), "index {i} used twice in {}", pos.fen());
            assert_eq!(move_of(&pos, i), Some(mv));
            assert!(policy_move(i).is_some());
            used.insert(i);
            total += 1;
        }
    }
    assert_eq!(total, 5154);
    assert!(used.len() > 1000, "the data exercise much of the index ({} of {POLICY_SIZE})", used.len());
}

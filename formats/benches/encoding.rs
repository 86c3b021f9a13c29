//! `cargo bench -p formats --bench encoding`: input encoding speed, without and with the
//! attack planes, on positions of pseudo-random games (history 2, as `configs/default.toml`).
//! Both are timed in turns in one process, so their ratio holds on a busy machine.

use formats::encoding::{encode, Inputs};
use schess::Position;
use std::time::{Duration, Instant};

/// Game prefixes (each position with the positions before it) of `games` games of
/// pseudo-random legal moves, 80 plies at most.
fn prefixes(games: usize) -> Vec<Vec<Position>> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut out = Vec::new();
    for _ in 0..games {
        let mut line = vec![Position::startpos()];
        for _ in 0..80 {
            let pos = line.last().expect("non-empty");
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let next = pos.play(moves[(state % moves.len() as u64) as usize]).expect("legal");
            line.push(next);
            out.push(line.clone());
        }
    }
    out
}

/// Positions encoded per second over at least `budget`.
fn rate(lines: &[Vec<Position>], inputs: Inputs, budget: Duration) -> f64 {
    let mut out = vec![0.0; inputs.floats()];
    let (t, mut n) = (Instant::now(), 0usize);
    while t.elapsed() < budget {
        for line in lines {
            encode(line, inputs, &mut out);
        }
        n += lines.len();
    }
    std::hint::black_box(&out);
    n as f64 / t.elapsed().as_secs_f64()
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (games, budget) = if full { (50, Duration::from_secs(2)) } else { (2, Duration::from_millis(50)) };
    let lines = prefixes(games);
    let (mut plain, mut attacks) = (Vec::new(), Vec::new());
    for _ in 0..if full { 5 } else { 1 } {
        plain.push(rate(&lines, Inputs::new(2, false), budget));
        attacks.push(rate(&lines, Inputs::new(2, true), budget));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (p, a) = (median(&mut plain), median(&mut attacks));
    println!("{} positions: plain {p:.0}/s, with attack planes {a:.0}/s ({:.2}x the time)", lines.len(), p / a);
}

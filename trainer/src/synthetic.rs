//! Synthetic self-play shards for tests and benchmarks: random legal games with
//! plausible targets (the played move carries most of the policy), written in the real
//! shard format. Much faster to make than real self-play, and deterministic.

use crate::rng::Rng;
use formats::shard::{self, GameRecord, Sample, ShardError};
use models::policy_index::index_of;
use schess::{Game, Position};
use std::path::Path;

/// `n` random games of at most `plies` moves from the S-Chess start, one sample per ply.
pub fn games(n: usize, plies: usize, seed: u64) -> Vec<GameRecord> {
    let mut rng = Rng::new(seed, 0x5EED);
    (0..n).map(|_| game(plies, &mut rng)).collect()
}

fn game(plies: usize, rng: &mut Rng) -> GameRecord {
    let mut game = Game::new(Position::startpos());
    let mut samples = Vec::new();
    while game.ply() < plies && game.outcome().is_none() {
        let pos = game.position();
        let turn = pos.turn();
        let moves = pos.legal_moves();
        let chosen = moves[rng.below(moves.len())];
        let mut policy = vec![(index_of(chosen, turn).expect("legal move") as u16, 0.7f32)];
        let others: Vec<_> = (0..3).map(|_| moves[rng.below(moves.len())]).filter(|&m| m != chosen).collect();
        if others.is_empty() {
            policy[0].1 = 1.0;
        }
        for m in &others {
            policy.push((index_of(*m, turn).expect("legal move") as u16, 0.3 / others.len() as f32));
        }
        let w = [1 + rng.below(10), 1 + rng.below(10), 1 + rng.below(10)].map(|v| v as f32);
        let sum: f32 = w.iter().sum();
        samples.push(Sample { ply: game.ply() as u16, policy, root_wdl: w.map(|v| v / sum), visits: 32 });
        game.play_unchecked(chosen);
    }
    GameRecord {
        variant: "seirawan".into(),
        start_fen: schess::STARTING_FEN.into(),
        moves: game.moves().iter().map(|m| m.to_uci()).collect(),
        samples,
        result: rng.below(3) as i8 - 1,
        termination: schess::Termination::MaxLength,
        generation: 0,
        resign_disabled: false,
        would_have_resigned: None,
    }
}

/// Writes one shard of `n` games of at most `plies` moves; returns its sample count.
pub fn write_shard(path: &Path, n: usize, plies: usize, seed: u64) -> Result<u64, ShardError> {
    let games = games(n, plies, seed);
    shard::write(path, &games)?;
    Ok(games.iter().map(|g| g.samples.len() as u64).sum())
}

/// Writes `shards` shards `shard-000000.shard`, ... into `dir` (created if needed);
/// returns their sample counts.
pub fn write_shards(
    dir: &Path,
    shards: usize,
    games_per_shard: usize,
    plies: usize,
    seed: u64,
) -> Result<Vec<u64>, ShardError> {
    std::fs::create_dir_all(dir).map_err(|source| ShardError::Io { path: dir.to_path_buf(), source })?;
    (0..shards)
        .map(|i| {
            write_shard(&dir.join(format!("shard-{i:06}.shard")), games_per_shard, plies, seed.wrapping_add(i as u64))
        })
        .collect()
}

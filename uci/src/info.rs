//! What the engine tells a GUI about a search: the `info` line, and the centipawn scale
//! that GUIs expect in place of szero's expected score.

use search::SearchInfo;

/// Converts an expected score q in [-1, 1] to centipawns (lc0's mapping, so that the
/// numbers look familiar to chess GUIs: q 0.5 is about 90 cp, q 0.9 about 570 cp).
pub fn q_to_cp(q: f32) -> i32 {
    let q = q.clamp(-0.999_9, 0.999_9) as f64;
    (90.0 * (1.563_754_189_7 * q).tan()).round().clamp(-20_000.0, 20_000.0) as i32
}

/// The inverse of [`q_to_cp`], for engines that report centipawns.
pub fn cp_to_q(cp: i32) -> f32 {
    ((cp as f64 / 90.0).atan() / 1.563_754_189_7).clamp(-1.0, 1.0) as f32
}

/// The UCI `info` line for a search's progress: `score mate N` when the search proved a
/// mate, else `score cp` from its expected score; W/D/L in permille (`UCI_ShowWDL`).
pub fn info_line(info: &SearchInfo) -> String {
    let ms = info.elapsed.as_millis() as u64;
    let nps = info.nodes * 1000 / ms.max(1);
    let score = match info.mate {
        Some(m) => format!("mate {m}"),
        None => format!("cp {}", q_to_cp(info.q)),
    };
    let permille = |x: f32| (x * 1000.0).round() as i32;
    let w = permille(info.wdl[0]);
    // Rounding must not make the draw share negative (W 0.5004, L 0.4996 -> 500 1 499).
    let l = permille(info.wdl[2]).min(1000 - w);
    let depth = info.depth.max(1);
    let mut s = format!(
        "info depth {depth} seldepth {depth} time {ms} nodes {} nps {nps} score {score} wdl {w} {} {l}",
        info.nodes,
        1000 - w - l
    );
    if !info.pv.is_empty() {
        s.push_str(" pv");
        for m in &info.pv {
            s.push(' ');
            s.push_str(&m.to_uci());
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use schess::Position;
    use std::time::Duration;

    #[test]
    fn cp_mapping_round_trips() {
        assert_eq!(q_to_cp(0.0), 0);
        for q in [-0.9f32, -0.3, 0.1, 0.5, 0.95] {
            assert!((cp_to_q(q_to_cp(q)) - q).abs() < 5e-3);
        }
        assert!(q_to_cp(1.0) > 10_000 && q_to_cp(-1.0) < -10_000);
    }

    #[test]
    fn a_proved_mate_is_reported_as_mate_and_the_pv_follows() {
        let pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1[] w - - 0 1").unwrap();
        let m = pos.parse_uci("a1a8").unwrap();
        let info = SearchInfo {
            depth: 1,
            nodes: 1,
            elapsed: Duration::from_millis(3),
            wdl: [1.0, 0.0, 0.0],
            q: 1.0,
            mate: Some(1),
            pv: vec![m],
        };
        let line = info_line(&info);
        assert!(line.contains("score mate 1") && line.ends_with("pv a1a8"), "{line}");
        let even = SearchInfo { mate: None, q: 0.0, wdl: [0.25, 0.5, 0.25], pv: vec![], ..info };
        assert!(info_line(&even).contains("score cp 0 wdl 250 500 250"), "{}", info_line(&even));
    }
}

//! `szero export --format onnx`: the ONNX file, run by onnxruntime on real positions,
//! gives szero's own outputs (every head, batch 1 and 64).

use models::encoding::{encode, input_len};
use models::tch::{self, Device, Kind, Tensor};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use schess::{Game, Position};
use std::process::Command;

const SZERO: &str = env!("CARGO_BIN_EXE_szero");
const CHECK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/py/onnx_check.py");

fn python() -> String {
    std::env::var("SZERO_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// 64 positions (with their histories) from seeded random games.
fn positions() -> Vec<Vec<Position>> {
    let mut rng = SmallRng::seed_from_u64(5);
    let mut out = Vec::new();
    while out.len() < 64 {
        let mut game = Game::new(Position::startpos());
        for _ in 0..60 {
            let moves = game.position().legal_moves();
            let Some(&m) = moves.choose(&mut rng) else { break };
            game.play(m).unwrap();
            if game.outcome().is_some() {
                break;
            }
            out.push(game.positions().to_vec());
        }
    }
    out.truncate(64);
    out
}

#[test]
fn onnx_export_matches_szero_in_onnxruntime() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = models::net_config(2, 16, 2);
    cfg.value_pooling = true;
    cfg.material = Some(models::MaterialHeadConfig { channels: 4, hidden: 16, horizon: 8, value_mix: 0.0 });
    let net = models::Net::new(cfg.clone(), Device::Cpu).unwrap();
    // Random weights everywhere (a fresh net's output layers are zero).
    tch::manual_seed(3);
    tch::no_grad(|| {
        for (name, mut t) in net.var_store().variables() {
            let r = Tensor::randn_like(&t) * 0.2;
            t.copy_(&if name.ends_with("running_var") { r.abs() + 0.5 } else { r });
        }
    });
    let weights = dir.path().join("net.safetensors");
    models::checkpoint::save(&net, &weights, models::FORMAT_VERSIONS, 7).unwrap();
    let out = dir.path().join("export");
    let run = Command::new(SZERO)
        .args(["export", "--format", "onnx", "--model"])
        .arg(&weights)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{said}\n{}", String::from_utf8_lossy(&run.stderr));
    assert!(said.contains("model.onnx") && (said.contains("MB") || said.contains("kB")), "{said}");
    assert!(!said.contains("ExportPaths"), "debug output: {said}");
    // szero's own outputs on real positions.
    let histories = positions();
    let len = input_len(2);
    let mut planes = vec![0f32; len * histories.len()];
    for (h, chunk) in histories.iter().zip(planes.chunks_mut(len)) {
        encode(h, 2, chunk);
    }
    let xs = Tensor::from_slice(&planes).view([histories.len() as i64, cfg.input_planes, 8, 8]);
    let reference = net.infer_concat(&xs).unwrap().to_kind(Kind::Float).flatten(0, -1);
    let reference: Vec<f32> = Vec::try_from(reference).unwrap();
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    std::fs::write(out.join("planes.f32"), bytes(&planes)).unwrap();
    std::fs::write(out.join("reference.f32"), bytes(&reference)).unwrap();
    let check = Command::new(python()).arg(CHECK).arg(&out).output().unwrap();
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{text}\n{}", String::from_utf8_lossy(&check.stderr));
    let r: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    let scale = r["scale"].as_f64().unwrap().max(1.0);
    for key in ["max_diff_1", "max_diff_64"] {
        let d = r[key].as_f64().unwrap();
        eprintln!("{key}: {d:.2e} (outputs up to {scale:.1})");
        assert!(d <= 1e-4 * scale, "{key} = {d} with outputs up to {scale}");
    }
}

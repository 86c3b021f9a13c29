//! The TensorBoard event files are readable by Python's `tensorboard` package.

mod common;

use common::{run_dir, tiny_config, tiny_net};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use trainer::{OptimizerKind, Trainer};

const READ: &str = r#"
import sys
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
acc = EventAccumulator(sys.argv[1], size_guidance={"scalars": 0})
acc.Reload()
for tag in sorted(acc.Tags()["scalars"]):
    events = acc.Scalars(tag)
    print(tag, ",".join(str(e.step) for e in events), events[-1].value)
"#;

fn python() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("SZERO_PYTHON") {
        return p.into();
    }
    let home = std::env::var_os("HOME").expect("HOME");
    let p = std::path::Path::new(&home).join(".cache/szero/venv/bin/python");
    assert!(p.exists(), "{} missing: run scripts/setup or set SZERO_PYTHON", p.display());
    p
}

#[test]
fn python_reads_the_scalars_back() {
    let dir = run_dir(1, 3);
    let stop = AtomicBool::new(false);
    // Two sessions (a resume) in the same second write two event files.
    for _ in 0..2 {
        let mut t = Trainer::open(dir.path(), &tiny_config(OptimizerKind::Sgd), &tiny_net()).unwrap();
        t.train_steps(10, &stop).unwrap();
    }
    let logdir = dir.path().join("tensorboard/train");
    let out = Command::new(python()).arg("-c").arg(READ).arg(&logdir).output().expect("running python");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let tags: Vec<&str> = lines.iter().map(|l| l.split(' ').next().unwrap()).collect();
    for tag in [
        "accuracy/policy_top1",
        "accuracy/value",
        "data/allowance",
        "data/total_samples",
        "data/window",
        "loss/moves_left",
        "loss/policy",
        "loss/total",
        "loss/value",
        "train/grad_norm",
        "train/learning_rate",
        "train/samples_per_sec",
    ] {
        assert!(tags.contains(&tag), "{tag} missing from {text}");
    }
    for line in &lines {
        let mut parts = line.split(' ');
        let (_, steps, last) = (parts.next(), parts.next().unwrap(), parts.next().unwrap());
        assert_eq!(steps, "5,10,15,20", "{line}");
        assert!(last.parse::<f64>().unwrap().is_finite(), "{line}");
    }
    let total = lines.iter().find(|l| l.starts_with("data/total_samples")).unwrap();
    assert!(total.ends_with(" 80.0"), "{total}");
}

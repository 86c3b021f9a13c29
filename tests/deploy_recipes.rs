//! The deployment recipes under `deploy/` stay in step with the binary: the Kubernetes
//! manifests parse, every container runs `szero worker STAGE` with flags that exist, the
//! config they carry is a valid run config, and the Slurm script is valid shell whose
//! `szero` lines name real stages and flags.

use std::process::Command;
use yaml_rust2::{Yaml, YamlLoader};

const SZERO: &str = env!("CARGO_BIN_EXE_szero");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn worker_help() -> String {
    let out = Command::new(SZERO).args(["worker", "--help"]).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// Checks one `szero ...` argument list: `worker STAGE` and flags `szero worker` has.
fn check_invocation(args: &[String], help: &str) -> String {
    assert_eq!(args.first().map(String::as_str), Some("worker"), "{args:?}");
    let stage = args.get(1).cloned().unwrap_or_default();
    assert!(["selfplay", "train", "promote"].contains(&stage.as_str()), "unknown stage in {args:?}");
    for flag in args.iter().filter(|a| a.starts_with("--")) {
        assert!(help.contains(&format!("{flag} ")), "szero worker has no {flag} ({args:?})");
    }
    stage
}

#[test]
fn kubernetes_recipe_runs_real_workers_with_a_valid_config() {
    let text = std::fs::read_to_string(format!("{ROOT}/deploy/kubernetes/szero.yaml")).unwrap();
    let docs = YamlLoader::load_from_str(&text).expect("the manifests parse as YAML");
    let help = worker_help();
    let mut stages = Vec::new();
    let mut config = None;
    for doc in &docs {
        match doc["kind"].as_str() {
            Some("Deployment") => {
                for c in doc["spec"]["template"]["spec"]["containers"].as_vec().expect("containers") {
                    let command: Vec<&str> = c["command"].as_vec().unwrap().iter().filter_map(Yaml::as_str).collect();
                    assert_eq!(command, ["szero"]);
                    let args: Vec<String> =
                        c["args"].as_vec().unwrap().iter().filter_map(Yaml::as_str).map(String::from).collect();
                    stages.push(check_invocation(&args, &help));
                    // Every stage works on the one S3 run, with the store's settings.
                    let run = args.iter().position(|a| a == "--run").map(|i| args[i + 1].as_str());
                    assert!(run.is_some_and(|r| r.starts_with("s3://")), "{args:?}");
                    let from: Vec<&str> = c["envFrom"]
                        .as_vec()
                        .expect("envFrom")
                        .iter()
                        .filter_map(|e| e["secretRef"]["name"].as_str().or(e["configMapRef"]["name"].as_str()))
                        .collect();
                    assert_eq!(from, ["szero-s3", "szero-config"], "{args:?}");
                }
            }
            Some("ConfigMap") => {
                config = doc["data"]["config.toml"].as_str().map(String::from);
                assert!(doc["data"]["AWS_ENDPOINT_URL"].as_str().is_some(), "the store's endpoint");
            }
            Some("Secret") => {
                for key in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] {
                    assert!(doc["stringData"][key].as_str().is_some(), "credentials come from the Secret: {key}");
                }
            }
            Some("PersistentVolumeClaim") => assert!(doc["spec"]["accessModes"].as_vec().is_some()),
            other => panic!("unexpected kind {other:?}"),
        }
    }
    stages.sort();
    assert_eq!(stages, ["promote", "selfplay", "train"]);
    // The config parses and builds its network (a command that loads a run config).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, config.expect("a config.toml in the ConfigMap")).unwrap();
    let out = Command::new(SZERO)
        .args(["bench", "--device", "cpu", "--batches", "1", "--seconds", "0.01", "--train-batch", "0", "--config"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn slurm_recipe_is_valid_shell_running_real_workers() {
    let path = format!("{ROOT}/deploy/slurm/szero.sbatch");
    assert!(Command::new("bash").args(["-n", &path]).status().unwrap().success(), "bash -n {path}");
    let help = worker_help();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut stages = Vec::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let Some(at) = line.find("szero worker") else { continue };
        let args: Vec<String> =
            line[at + "szero ".len()..].split_whitespace().take_while(|w| *w != "&").map(String::from).collect();
        stages.push(check_invocation(&args, &help));
    }
    stages.sort();
    assert_eq!(stages, ["promote", "selfplay", "train"]);
}

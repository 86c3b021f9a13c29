//! The networks a page may choose: the one given with `--model`, a run's best, initial
//! and candidate networks with `--run` (listed afresh on every request, so a run in
//! progress shows its new candidates), and `none` (the rules-only searches). Each is
//! loaded once, and again when its file changes (a run's `best.safetensors` is replaced
//! at every promotion).

use crate::error::ApiError;
use models::{DeviceChoice, Precision};
use runstore::RunLayout;
use search::Evaluator;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// The name of the no-network choice.
pub const NONE: &str = "none";

/// Evaluation cache entries per loaded network.
const CACHE_ENTRIES: usize = 200_000;

/// One choice in the page's network menu.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NetworkInfo {
    pub name: String,
    /// The file, or `None` for [`NONE`].
    pub path: Option<String>,
}

pub struct Networks {
    model: Option<PathBuf>,
    run: Option<RunLayout>,
    device: DeviceChoice,
    precision: Precision,
    loaded: Mutex<HashMap<PathBuf, Loaded>>,
}

/// A loaded network with the modification time of the file it was read from.
type Loaded = (Option<SystemTime>, Arc<dyn Evaluator>);

impl Networks {
    pub fn new(model: Option<PathBuf>, run: Option<PathBuf>, device: DeviceChoice, precision: Precision) -> Networks {
        Networks { model, run: run.map(RunLayout::new), device, precision, loaded: Mutex::default() }
    }

    /// Every choice, the default first.
    pub fn list(&self) -> Vec<NetworkInfo> {
        let mut out = Vec::new();
        let mut add = |name: String, path: &Path| {
            out.push(NetworkInfo { name, path: Some(path.display().to_string()) });
        };
        if let Some(m) = &self.model {
            add(model_name(m), m);
        }
        if let Some(run) = &self.run {
            for (name, path) in [("best", run.best()), ("initial", run.initial())] {
                if path.exists() {
                    add(name.to_string(), &path);
                }
            }
            for c in run.list_candidates().unwrap_or_default() {
                let stem = c.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                add(format!("candidate {stem}"), &c);
            }
        }
        out.push(NetworkInfo { name: NONE.to_string(), path: None });
        out
    }

    /// The default choice's name.
    pub fn default_name(&self) -> String {
        self.list().remove(0).name
    }

    /// The evaluator of the network `name` (`None` for [`NONE`]); loads it if needed.
    /// Blocking (reads and builds a network): call off the async runtime.
    pub fn evaluator(&self, name: &str) -> Result<Option<Arc<dyn Evaluator>>, ApiError> {
        let entry = self.list().into_iter().find(|n| n.name == name).ok_or_else(|| {
            let names: Vec<String> = self.list().into_iter().map(|n| n.name).collect();
            ApiError::not_found(format!("unknown network {name:?} (there are: {})", names.join(", ")))
        })?;
        let Some(path) = entry.path.map(PathBuf::from) else {
            return Ok(None);
        };
        let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((when, ev)) = loaded.get(&path) {
            if *when == modified {
                return Ok(Some(ev.clone()));
            }
        }
        let ev = models::load_evaluator(&path, self.device, self.precision, CACHE_ENTRIES, None)
            .map_err(|e| ApiError::bad(format!("cannot load network {name:?} ({}): {e:#}", path.display())))?;
        loaded.insert(path, (modified, ev.clone()));
        Ok(Some(ev))
    }
}

/// A `--model` file's name in the menu: its file name without `.safetensors`.
fn model_name(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_networks_only_none_is_offered_and_unknown_names_are_refused() {
        let nets = Networks::new(None, None, DeviceChoice::Cpu, Precision::F32);
        assert_eq!(nets.default_name(), NONE);
        assert!(nets.evaluator(NONE).unwrap().is_none());
        let e = nets.evaluator("best").err().unwrap();
        assert_eq!(e.status, axum::http::StatusCode::NOT_FOUND);
        assert!(e.message.contains("unknown network \"best\""), "{}", e.message);
    }

    #[test]
    fn a_file_that_is_no_network_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("broken.safetensors");
        std::fs::write(&bad, b"not a network").unwrap();
        let nets = Networks::new(Some(bad), None, DeviceChoice::Cpu, Precision::F32);
        assert_eq!(nets.default_name(), "broken");
        let e = nets.evaluator("broken").err().unwrap();
        assert_eq!(e.status, axum::http::StatusCode::BAD_REQUEST);
        assert!(e.message.contains("cannot load network \"broken\""), "{}", e.message);
    }

    #[test]
    fn a_run_offers_its_best_initial_and_candidates_as_they_appear() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunLayout::new(dir.path());
        run.create().unwrap();
        let nets = Networks::new(None, Some(dir.path().to_path_buf()), DeviceChoice::Cpu, Precision::F32);
        assert_eq!(nets.default_name(), NONE, "nothing written yet");
        for p in [run.best(), run.initial(), run.candidate(100)] {
            std::fs::write(p, b"x").unwrap();
        }
        let names: Vec<String> = nets.list().into_iter().map(|n| n.name).collect();
        assert_eq!(names, ["best", "initial", "candidate step-000000100", NONE]);
        std::fs::write(run.candidate(200), b"x").unwrap();
        assert_eq!(nets.list().len(), 5, "a new candidate appears without a restart");
    }
}

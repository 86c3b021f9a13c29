//! Temporary files of atomic writes, and which of them a new start may remove.
//!
//! Every file of a run is written to `.NAME.tmp.HOST.PID.N` beside its final name and
//! renamed when complete. A writer killed mid-write leaves its temporary file behind;
//! several processes (on several machines sharing the directory) write at once, so a
//! start may remove only the temporary files whose writer is certainly gone: one of this
//! machine whose process no longer runs, or any older than [`ABANDONED_AFTER`] (no single
//! write takes that long).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A temporary file this old is abandoned whoever wrote it.
pub const ABANDONED_AFTER: Duration = Duration::from_secs(3600);

/// This machine's name as it appears in temporary and worker names: letters, digits and
/// `-` (anything else becomes `_`), at most 40 characters; `host` when unknown.
pub fn host_name() -> String {
    let raw =
        std::fs::read_to_string("/proc/sys/kernel/hostname").or_else(|_| std::env::var("HOSTNAME")).unwrap_or_default();
    let name: String =
        raw.trim().chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).take(40).collect();
    if name.is_empty() {
        "host".into()
    } else {
        name
    }
}

/// A temporary path beside `path`, unique per machine, process and call.
pub fn temp_path(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    static HOST: OnceLock<String> = OnceLock::new();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let host = HOST.get_or_init(host_name);
    let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp.{host}.{}.{n}", std::process::id()))
}

/// Whether `path` names a temporary file (of this format or the older `.NAME.tmp.PID.N`).
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.contains(".tmp.")
}

/// Whether the temporary file `name`, last modified `age` ago, was left by a writer that
/// is gone (see the module docs); `host` is this machine's name.
pub fn is_abandoned(name: &str, age: Duration, host: &str) -> bool {
    if !is_temporary(name) {
        return false;
    }
    if age >= ABANDONED_AFTER {
        return true;
    }
    let tail = &name[name.rfind(".tmp.").expect("is_temporary") + 5..];
    let fields: Vec<&str> = tail.split('.').collect();
    let (writer_host, pid) = match fields[..] {
        [h, pid, _] => (h, pid),
        // Before host names were recorded: this machine's.
        [pid, _] => (host, pid),
        _ => return false,
    };
    writer_host == host && pid.parse::<u32>().is_ok_and(|p| p != std::process::id() && !process_runs(p))
}

/// Whether process `pid` runs on this machine (Linux's /proc; elsewhere assumed to run,
/// so that only age removes temporary files there).
fn process_runs(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

/// How long ago `path` was modified (zero if unknown: not old).
pub(crate) fn age(path: &Path) -> Duration {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_writers_that_are_gone_lose_their_temporary_files() {
        let me = std::process::id();
        let fresh = Duration::from_secs(5);
        // A live writer here (this process), on another machine, or a dead one here.
        assert!(!is_abandoned(&format!(".best.safetensors.tmp.h1.{me}.0"), fresh, "h1"));
        assert!(!is_abandoned(&format!(".best.safetensors.tmp.h2.{me}.0"), fresh, "h1"));
        let dead = u32::MAX - 1;
        assert!(is_abandoned(&format!(".x.shard.tmp.h1.{dead}.3"), fresh, "h1"));
        assert!(!is_abandoned(&format!(".x.shard.tmp.h2.{dead}.3"), fresh, "h1"));
        assert!(is_abandoned(&format!(".x.shard.tmp.h2.{me}.3"), ABANDONED_AFTER, "h1"));
        // The older format is this machine's.
        assert!(is_abandoned(&format!(".x.shard.tmp.{dead}.0"), fresh, "h1"));
        assert!(!is_abandoned(&format!(".x.shard.tmp.{me}.0"), fresh, "h1"));
        assert!(!is_abandoned("x.shard", ABANDONED_AFTER, "h1"));
        let p = temp_path(Path::new("/run/best.safetensors"));
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(".best.safetensors.tmp.") && name.contains(&format!(".{me}.")), "{name}");
        assert!(!is_abandoned(&name, fresh, &host_name()));
    }
}

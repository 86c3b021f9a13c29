//! A full disk: `szero run` on a 45 MB tmpfs (the smoke run needs about 90 MB) must stop
//! with an error naming the path and the lack of space, leave no partial file under a
//! final name, and resume cleanly once the filesystem has room again.
//!
//! The tmpfs is mounted in a private mount namespace (`unshare --user --map-root-user
//! --mount`), so the test needs neither root nor cleanup: the mount vanishes with the
//! namespace. Where the kernel refuses such namespaces the test says so and does nothing.

mod common;

use common::check_whole;
use std::process::Command;

const SZERO: &str = env!("CARGO_BIN_EXE_szero");
const SMOKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/smoke.toml");

#[test]
fn a_full_disk_stops_the_run_cleanly_and_it_resumes_once_there_is_room() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mnt = d.join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let script = format!(
        r#"set -u
mount -t tmpfs -o size=45m tmpfs '{mnt}' || exit 97
'{szero}' run --config '{smoke}' --run-dir '{mnt}/run' > '{d}/full.out' 2> '{d}/full.err'; echo $? > '{d}/full.rc'
cp -a '{mnt}/run' '{d}/after-full'
mount -o remount,size=400m '{mnt}' || exit 98
'{szero}' run --config '{smoke}' --run-dir '{mnt}/run' > '{d}/resume.out' 2> '{d}/resume.err'; echo $? > '{d}/resume.rc'
cp -a '{mnt}/run' '{d}/after-resume'
"#,
        mnt = mnt.display(),
        szero = SZERO,
        smoke = SMOKE,
        d = d.display(),
    );
    let out = Command::new("unshare").args(["--user", "--map-root-user", "--mount", "sh", "-c", &script]).output();
    let status = match out {
        Ok(o) if o.status.code() == Some(97) || (!o.status.success() && !d.join("full.rc").exists()) => {
            eprintln!("full-disk test not run: no private tmpfs here ({})", String::from_utf8_lossy(&o.stderr).trim());
            return;
        }
        Err(e) => {
            eprintln!("full-disk test not run: cannot start unshare: {e}");
            return;
        }
        Ok(o) => o,
    };
    assert!(status.status.success(), "namespace script failed: {}", String::from_utf8_lossy(&status.stderr));
    let read = |name: &str| std::fs::read_to_string(d.join(name)).unwrap();

    // The full disk stops the run with an error that names the path and the cause.
    let err = read("full.err");
    assert_ne!(read("full.rc").trim(), "0", "the run went on with a full disk:\n{err}");
    let last = err.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(err.contains(&format!("{}/run/", mnt.display())), "the error names no path:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    eprintln!("full disk reported as: {last}");
    check_whole(&d.join("after-full"), false);

    // With room again the same command resumes and finishes the smoke run.
    let err = read("resume.err");
    assert_eq!(read("resume.rc").trim(), "0", "the resumed run failed:\n{err}");
    let run = d.join("after-resume");
    check_whole(&run, false);
    let promoted = common::promotion_log(&run).unwrap().iter().filter(|x| x.promoted).count();
    assert!(promoted >= 2, "{promoted} promotions after the resume");
}

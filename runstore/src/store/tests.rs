//! The same checks on both backends. The S3 ones run against the server named by the
//! standard AWS variables and `SZERO_S3_BUCKET` (`scripts/test` starts radosgw and sets
//! them, with `SZERO_REQUIRE_S3=1` so that a missing server fails instead of skipping).

use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh, empty run on each backend that is available here.
fn runs(name: &str) -> Vec<(Store, Option<tempfile::TempDir>)> {
    let dir = tempfile::tempdir().unwrap();
    let mut out = vec![(Store::open(&RunAddress::Local(dir.path().join("run"))).unwrap(), Some(dir))];
    if let Some(address) = s3_run(name) {
        out.push((Store::open(&address).unwrap(), None));
    }
    out
}

/// A fresh prefix in the test bucket, if a server is configured.
pub(crate) fn s3_run(name: &str) -> Option<RunAddress> {
    static N: AtomicUsize = AtomicUsize::new(0);
    match std::env::var("SZERO_S3_BUCKET") {
        Ok(bucket) => {
            let n = N.fetch_add(1, Ordering::Relaxed);
            let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
            Some(RunAddress::S3 { bucket, prefix: format!("tests/{name}-{}-{n}-{stamp}", std::process::id()) })
        }
        Err(_) if std::env::var_os("SZERO_REQUIRE_S3").is_some() => {
            panic!("SZERO_REQUIRE_S3 is set but SZERO_S3_BUCKET is not")
        }
        Err(_) => {
            eprintln!("{name}: no S3 server configured (SZERO_S3_BUCKET); the S3 half is not run");
            None
        }
    }
}

#[test]
fn objects_round_trip_and_list_by_directory() {
    for (store, _dir) in runs("round-trip") {
        let at = store.address().to_string();
        assert!(store.list("shards").unwrap().is_empty(), "{at}: nothing written yet");
        assert_eq!(store.get("shards/none.shard").unwrap(), None, "{at}");
        store.put("shards/b.shard", b"bee").unwrap();
        store.put("shards/a.shard", &vec![7u8; 100_000]).unwrap();
        store.put("gate/promotions/gen-000001.json", b"{}").unwrap();
        store.put("config.toml", b"x = 1").unwrap();
        store.put("shards/b.shard", b"bee, again").unwrap();
        let listed = store.list("shards").unwrap();
        let keys: Vec<&str> = listed.iter().map(|o| o.key.as_str()).collect();
        assert_eq!(keys, ["shards/a.shard", "shards/b.shard"], "{at}");
        assert_eq!(listed[0].size, 100_000, "{at}");
        assert_eq!(listed[1].name(), "b.shard");
        assert_eq!(store.get("shards/b.shard").unwrap().as_deref(), Some(&b"bee, again"[..]), "{at}");
        let top: Vec<String> = store.list("").unwrap().into_iter().map(|o| o.key).collect();
        assert_eq!(top, ["config.toml"], "{at}: only objects directly in the directory");
        assert_eq!(store.list("gate").unwrap(), vec![], "{at}");
        assert_eq!(store.list("gate/promotions").unwrap().len(), 1, "{at}");
        store.delete("shards/a.shard").unwrap();
        store.delete("shards/a.shard").unwrap();
        assert_eq!(store.list("shards").unwrap().len(), 1, "{at}");
        let file = tempfile::NamedTempFile::new().unwrap();
        assert!(store.download("shards/b.shard", file.path()).unwrap());
        assert_eq!(std::fs::read(file.path()).unwrap(), b"bee, again");
        assert!(!store.download("shards/gone.shard", file.path()).unwrap());
        let many = store.get_many(&["shards/b.shard", "shards/gone.shard", "config.toml"]).unwrap();
        assert_eq!(many, [Some(b"bee, again".to_vec()), None, Some(b"x = 1".to_vec())], "{at}: in order");
        store.upload("candidates/x.safetensors", file.path()).unwrap();
        assert_eq!(store.get("candidates/x.safetensors").unwrap().unwrap(), b"bee, again");
    }
}

#[test]
fn of_racing_creators_exactly_one_wins_on_every_backend() {
    for (store, _dir) in runs("race") {
        for round in 0..5 {
            let key = format!("gate/promotions/gen-{round:06}.json");
            let winners: Vec<usize> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..8)
                    .map(|i| {
                        let (store, key) = (&store, &key);
                        s.spawn(move || {
                            store.create(key, format!("writer {i} ").repeat(5000).as_bytes()).unwrap().then_some(i)
                        })
                    })
                    .collect();
                handles.into_iter().filter_map(|h| h.join().unwrap()).collect()
            });
            assert_eq!(winners.len(), 1, "{}: {winners:?}", store.address());
            let text = String::from_utf8(store.get(&key).unwrap().unwrap()).unwrap();
            assert_eq!(text, format!("writer {} ", winners[0]).repeat(5000));
        }
        assert_eq!(store.list("gate/promotions").unwrap().len(), 5);
    }
}

#[test]
fn keys_that_could_leave_the_run_are_refused() {
    for (store, _dir) in runs("keys") {
        for key in ["", "/abs", "a//b", "../x", "a/./b", "a\\b", "shards/"] {
            assert!(matches!(store.put(key, b"x"), Err(StoreError::BadKey { .. })), "{key:?}");
        }
        assert!(matches!(store.list("../up"), Err(StoreError::BadKey { .. })));
    }
}

#[test]
fn store_failures_are_named_for_what_to_fix() {
    let Some(RunAddress::S3 { bucket, prefix }) = s3_run("failures") else { return };
    // A bucket that does not exist.
    let missing = RunAddress::S3 { bucket: format!("{bucket}-missing"), prefix: prefix.clone() };
    let e = Store::open(&missing).unwrap().check().unwrap_err();
    eprintln!("{e}");
    assert!(matches!(e, StoreError::NoBucket { .. }), "{e}");
    assert!(e.to_string().contains("does not exist"), "{e}");
    // Wrong credentials.
    let good = RunAddress::S3 { bucket, prefix };
    let store = Store::open_with(&good, &[("aws_secret_access_key", "not-the-secret")]).unwrap();
    let e = store.put("shards/x.shard", b"x").unwrap_err();
    eprintln!("{e}");
    assert!(matches!(e, StoreError::Credentials { .. }), "{e}");
    assert!(e.to_string().contains("AWS_SECRET_ACCESS_KEY"), "{e}");
    // No server at the endpoint: retried a bounded number of times, then named.
    let started = std::time::Instant::now();
    let store = Store::open_with(&good, &[("aws_endpoint", "http://127.0.0.1:9")]).unwrap();
    let e = store.get("config.toml").unwrap_err();
    eprintln!("{e}");
    assert!(matches!(e, StoreError::Unreachable { .. }), "{e}");
    assert!(e.to_string().contains("AWS_ENDPOINT_URL"), "{e}");
    assert!(started.elapsed() < s3::RETRY_TIME + std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    // A setting object_store does not know.
    let e = Store::open_with(&good, &[("aws_no_such_setting", "1")]).unwrap_err();
    eprintln!("{e}");
    assert!(matches!(e, StoreError::Config { .. }), "{e}");
}

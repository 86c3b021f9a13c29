//! The S3 backend, through Apache Arrow's `object_store` (AWS S3 and every server that
//! speaks its API). `object_store` is async; a small runtime of its own turns each call
//! into a blocking one, since every stage of szero is a plain thread.
//!
//! Failures are retried by `object_store` (exponential back-off, bounded count and time:
//! [`RETRIES`], [`RETRY_TIME`]) and then classified into the errors a user can act on:
//! unreachable server, refused credentials, missing bucket.

use super::{ObjectInfo, RunAddress, StoreError};
use object_store::aws::{AmazonS3, AmazonS3Builder, AmazonS3ConfigKey};
use object_store::path::Path;
use object_store::{BackoffConfig, ClientConfigKey, ObjectStore, ObjectStoreExt, PutMode, PutPayload, RetryConfig};
use std::time::Duration;

/// How often a failed request is retried before its error is reported.
pub const RETRIES: usize = 5;
/// Requests in flight at once when many objects are fetched.
pub const PARALLEL: usize = 16;
/// The longest a request is retried for.
pub const RETRY_TIME: Duration = Duration::from_secs(30);

#[derive(Debug)]
pub(super) struct S3 {
    address: String,
    bucket: String,
    prefix: String,
    client: AmazonS3,
    runtime: tokio::runtime::Runtime,
}

impl S3 {
    pub(super) fn open(
        address: &RunAddress,
        bucket: &str,
        prefix: &str,
        settings: &[(&str, &str)],
    ) -> Result<S3, StoreError> {
        let address = address.to_string();
        let config = |detail: String| StoreError::Config { address: address.clone(), detail };
        let retry = RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(200),
                max_backoff: Duration::from_secs(5),
                base: 2.0,
            },
            max_retries: RETRIES,
            retry_timeout: RETRY_TIME,
        };
        let mut builder = AmazonS3Builder::from_env().with_bucket_name(bucket).with_retry(retry);
        // A hung server must fail a request, not a stage: time limits unless the user set them.
        // Idle pooled connections are dropped well before servers close them (radosgw's
        // beast after 65 s of silence by default, load balancers often after 60 s), so no
        // request is sent on a connection the server is closing.
        for (key, var, value) in [
            (ClientConfigKey::ConnectTimeout, "AWS_CONNECT_TIMEOUT", "5s"),
            (ClientConfigKey::Timeout, "AWS_TIMEOUT", "120s"),
            (ClientConfigKey::PoolIdleTimeout, "AWS_POOL_IDLE_TIMEOUT", "30s"),
        ] {
            if std::env::var_os(var).is_none() {
                builder = builder.with_config(AmazonS3ConfigKey::Client(key), value);
            }
        }
        for (name, value) in settings {
            let key: AmazonS3ConfigKey = name.parse().map_err(|e: object_store::Error| config(e.to_string()))?;
            builder = builder.with_config(key, *value);
        }
        let client = builder.build().map_err(|e| config(e.to_string()))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("runstore-s3")
            .enable_all()
            .build()
            .map_err(|e| config(format!("cannot start its I/O thread: {e}")))?;
        Ok(S3 { address, bucket: bucket.into(), prefix: prefix.into(), client, runtime })
    }

    fn path(&self, key: &str) -> Path {
        if self.prefix.is_empty() {
            Path::from(key)
        } else {
            Path::from(format!("{}/{key}", self.prefix))
        }
    }

    /// The error a user can act on, for an operation on `key`.
    fn error(&self, key: &str, e: object_store::Error) -> StoreError {
        let detail = e.to_string();
        let address = self.address.clone();
        if detail.contains("NoSuchBucket") {
            return StoreError::NoBucket { address, bucket: self.bucket.clone() };
        }
        let refused = ["InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "credential"];
        if matches!(e, object_store::Error::Unauthenticated { .. } | object_store::Error::PermissionDenied { .. })
            || refused.iter().any(|r| detail.contains(r))
        {
            return StoreError::Credentials { address, detail: short(&detail) };
        }
        let unreachable = ["error sending request", "onnect", "timed out", "Timeout", "dns error", "after"];
        if matches!(e, object_store::Error::Generic { .. }) && unreachable.iter().any(|u| detail.contains(u)) {
            return StoreError::Unreachable { address, detail: short(&detail) };
        }
        StoreError::Other { location: format!("{}/{key}", self.address), detail: short(&detail) }
    }

    pub(super) fn check(&self) -> Result<(), StoreError> {
        self.list("").map(|_| ())
    }

    pub(super) fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let payload = PutPayload::from(bytes.to_vec());
        self.runtime.block_on(self.client.put(&self.path(key), payload)).map(|_| ()).map_err(|e| self.error(key, e))
    }

    pub(super) fn create(&self, key: &str, bytes: &[u8]) -> Result<bool, StoreError> {
        let payload = PutPayload::from(bytes.to_vec());
        match self.runtime.block_on(self.client.put_opts(&self.path(key), payload, PutMode::Create.into())) {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }) => Ok(false),
            Err(e) => Err(self.error(key, e)),
        }
    }

    pub(super) fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.get_many(&[key]).pop().expect("one result per key")
    }

    /// The objects `keys`, [`PARALLEL`] requests at a time (a server's latency, not its
    /// bandwidth, bounds small objects: radosgw answers a small GET in ~45 ms).
    pub(super) fn get_many(&self, keys: &[&str]) -> Vec<Result<Option<Vec<u8>>, StoreError>> {
        use futures::StreamExt;
        let fetch = |key: &str| {
            let path = self.path(key);
            async move { self.client.get(&path).await?.bytes().await }
        };
        let results: Vec<_> = self
            .runtime
            .block_on(futures::stream::iter(keys.iter().map(|k| fetch(k))).buffered(PARALLEL).collect::<Vec<_>>());
        results
            .into_iter()
            .zip(keys)
            .map(|(r, key)| match r {
                Ok(bytes) => Ok(Some(bytes.to_vec())),
                Err(e @ object_store::Error::NotFound { .. }) if e.to_string().contains("NoSuchBucket") => {
                    Err(self.error(key, e))
                }
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(self.error(key, e)),
            })
            .collect()
    }

    pub(super) fn list(&self, dir: &str) -> Result<Vec<ObjectInfo>, StoreError> {
        let full = match (self.prefix.is_empty(), dir.is_empty()) {
            (true, true) => None,
            (true, false) => Some(Path::from(dir)),
            (false, true) => Some(Path::from(self.prefix.as_str())),
            (false, false) => Some(self.path(dir)),
        };
        let listed =
            self.runtime.block_on(self.client.list_with_delimiter(full.as_ref())).map_err(|e| self.error(dir, e))?;
        let strip = if self.prefix.is_empty() { String::new() } else { format!("{}/", self.prefix) };
        Ok(listed
            .objects
            .into_iter()
            .filter_map(|o| {
                let key = o.location.as_ref().strip_prefix(strip.as_str())?.to_string();
                Some(ObjectInfo { key, size: o.size, modified: o.last_modified.into() })
            })
            .collect())
    }

    pub(super) fn delete(&self, key: &str) -> Result<(), StoreError> {
        match self.runtime.block_on(self.client.delete(&self.path(key))) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.error(key, e)),
        }
    }
}

/// The first line of an error, at most 300 characters: `object_store` messages carry the
/// server's whole XML answer.
fn short(detail: &str) -> String {
    let line = detail.lines().next().unwrap_or(detail);
    line.chars().take(300).collect()
}

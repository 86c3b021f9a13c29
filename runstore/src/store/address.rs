//! Where a run lives, in the form users write it: a local directory or `s3://bucket/prefix`.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// The address of a run. Parsed from text: `s3://bucket/prefix` is a run under `prefix`
/// in an S3-compatible bucket; anything else without a `scheme://` is a local directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunAddress {
    Local(PathBuf),
    S3 {
        bucket: String,
        /// Without leading or trailing `/`; may be empty (the bucket's root).
        prefix: String,
    },
}

/// Why a run address cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("run address {text:?}: {why}")]
pub struct AddressError {
    pub text: String,
    pub why: String,
}

impl RunAddress {
    pub fn is_local(&self) -> bool {
        matches!(self, RunAddress::Local(_))
    }
}

impl FromStr for RunAddress {
    type Err = AddressError;

    fn from_str(text: &str) -> Result<RunAddress, AddressError> {
        let fail = |why: &str| AddressError { text: text.into(), why: why.into() };
        if text.is_empty() {
            return Err(fail("empty"));
        }
        let Some((scheme, rest)) = text.split_once("://") else { return Ok(RunAddress::Local(text.into())) };
        if scheme != "s3" {
            return Err(fail("unknown scheme: a run is a local directory or s3://bucket/prefix"));
        }
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        // The S3 naming rules (3-63 characters: lower-case letters, digits, '.', '-').
        let valid = (3..=63).contains(&bucket.len())
            && bucket.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
            && bucket.starts_with(|c: char| c.is_ascii_alphanumeric())
            && bucket.ends_with(|c: char| c.is_ascii_alphanumeric());
        if !valid {
            return Err(fail("not a bucket name (3-63 characters: a-z, 0-9, '.', '-')"));
        }
        let prefix = prefix.trim_matches('/');
        if prefix.split('/').any(|s| s == "." || s == "..") || prefix.contains("//") {
            return Err(fail("the prefix may not contain '.', '..' or empty segments"));
        }
        Ok(RunAddress::S3 { bucket: bucket.into(), prefix: prefix.into() })
    }
}

impl fmt::Display for RunAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunAddress::Local(path) => write!(f, "{}", path.display()),
            RunAddress::S3 { bucket, prefix } if prefix.is_empty() => write!(f, "s3://{bucket}"),
            RunAddress::S3 { bucket, prefix } => write!(f, "s3://{bucket}/{prefix}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse_and_print_back() {
        for (text, shown) in [
            ("runs/a", "runs/a"),
            ("/abs/run", "/abs/run"),
            ("s3://szero-runs/exp/1", "s3://szero-runs/exp/1"),
            ("s3://szero-runs/exp/1/", "s3://szero-runs/exp/1"),
            ("s3://szero-runs", "s3://szero-runs"),
        ] {
            let a: RunAddress = text.parse().unwrap();
            assert_eq!(a.to_string(), shown);
            assert_eq!(a.is_local(), !text.starts_with("s3"));
        }
        let a: RunAddress = "s3://b-1.x/p/q".parse().unwrap();
        assert_eq!(a, RunAddress::S3 { bucket: "b-1.x".into(), prefix: "p/q".into() });
    }

    #[test]
    fn bad_addresses_are_refused_with_the_reason() {
        for (text, why) in [
            ("", "empty"),
            ("gs://bucket/x", "unknown scheme"),
            ("s3://", "bucket name"),
            ("s3://Upper/x", "bucket name"),
            ("s3://ab/x", "bucket name"),
            ("s3://bucket/a/../b", "'..'"),
            ("s3://bucket/a//b", "empty segments"),
        ] {
            let e = text.parse::<RunAddress>().unwrap_err().to_string();
            assert!(e.contains(why), "{text}: {e}");
        }
    }
}

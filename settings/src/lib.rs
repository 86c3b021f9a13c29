//! What every config table of szero shares, at the bottom of the crate graph so that any
//! crate can validate its settings without depending on another's: [`ConfigError`], which
//! names a rejected field as the file spells it, and the [`check`]s behind every
//! `validate()`, so that every rejected value gets the same message; and what a thread
//! count of 0 means in every config ([`threads_or_cores`]).

/// Why a setting of a config table is unusable. Every `validate()` of szero's config tables
/// returns it, naming the field relative to its own table; whoever validates a table inside
/// another adds the outer table's name with [`ConfigError::within`], so a message from a run
/// config names the field as the file spells it: `selfplay.search.c_puct must be ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted path of the field (`batch_size`, `selfplay.search.c_puct`).
    pub field: String,
    /// What the field accepts, in words.
    pub allowed: String,
    /// The value given.
    pub value: String,
}

impl ConfigError {
    pub fn new(field: &str, allowed: &str, value: impl std::fmt::Display) -> ConfigError {
        ConfigError { field: field.to_string(), allowed: allowed.to_string(), value: value.to_string() }
    }

    /// The same error for the field inside `table`.
    pub fn within(mut self, table: &str) -> ConfigError {
        self.field = format!("{table}.{}", self.field);
        self
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} must be {}, got {}", self.field, self.allowed, self.value)
    }
}

impl std::error::Error for ConfigError {}

/// The checks behind every `validate()` of szero's config tables, so that every rejected
/// value gets the same message.
pub mod check {
    use super::ConfigError;
    use std::fmt::Display;

    /// `Err` unless `ok`: the error every rejected value of these tables gets.
    pub fn require(ok: bool, field: &str, allowed: &str, value: impl Display) -> Result<(), ConfigError> {
        if ok {
            Ok(())
        } else {
            Err(ConfigError::new(field, allowed, value))
        }
    }

    /// In [0, 1].
    pub fn unit<T: Into<f64> + Display + Copy>(field: &str, v: T) -> Result<(), ConfigError> {
        require((0.0..=1.0).contains(&v.into()), field, "in [0, 1]", v)
    }

    pub fn non_negative<T: Into<f64> + Display + Copy>(field: &str, v: T) -> Result<(), ConfigError> {
        let x: f64 = v.into();
        require(x.is_finite() && x >= 0.0, field, "a finite number >= 0", v)
    }

    pub fn positive<T: Into<f64> + Display + Copy>(field: &str, v: T) -> Result<(), ConfigError> {
        let x: f64 = v.into();
        require(x.is_finite() && x > 0.0, field, "a finite number > 0", v)
    }

    /// At least 1 and at most `max`.
    pub fn count(field: &str, v: u64, max: u64) -> Result<(), ConfigError> {
        require((1..=max).contains(&v), field, &format!("at least 1 and at most {max}"), v)
    }
}

/// A configured thread count: `n`, or one per core for 0 (every `threads`,
/// `concurrency` and worker setting of szero's configs means that).
pub fn threads_or_cores(n: usize) -> usize {
    match n {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

#[cfg(test)]
mod tests {
    use super::check::{count, non_negative, positive, unit};
    use super::*;

    #[test]
    fn errors_name_the_field_and_nest() {
        let e = ConfigError::new("c_puct", "a finite number >= 0", -1.5);
        assert_eq!(
            e.within("search").within("selfplay").to_string(),
            "selfplay.search.c_puct must be a finite number >= 0, got -1.5"
        );
        // f32 values print as written, not widened to f64's digits.
        assert_eq!(unit("x", 1.1f32).unwrap_err().value, "1.1");
        assert!(non_negative("x", f64::NAN).is_err() && positive("x", 0.0f32).is_err());
        assert!(count("x", 0, 5).is_err() && count("x", 6, 5).is_err() && count("x", 5, 5).is_ok());
    }
}

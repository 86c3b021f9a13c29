//! Riding out a run store that stops answering for a while.
//!
//! Every stage of a mirrored run talks to its store all the time: self-play publishes
//! shards and looks for new networks, the trainer pulls games and commits checkpoints,
//! the promotion stage reads and writes the ledger. A server that is briefly gone (a
//! restart, a network blip, a request lost on a dead connection) must not end a stage
//! that loses nothing by waiting: its files stay in the mirror and go up once the store
//! answers again (names are written once, so a late upload is the same object). A store
//! that stays silent longer than [`PATIENCE`] still ends the stage with its error, and any
//! other error (refused credentials, a damaged ledger, a full disk) ends it at once.

use runstore::{LedgerError, Run, StoreError};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a stage keeps going while its store does not answer. lc0's and KataGo's
/// clients retry an unreachable server for as long as they run; a bound still tells an
/// operator whose server is gone for good, without a worker idling unseen.
pub const PATIENCE: Duration = Duration::from_secs(15 * 60);

/// At the end of a stage, files still waiting for a store that does not answer get this
/// many more tries, [`FINAL_PAUSE`] apart (each try is itself retried by `runstore` for up
/// to 30 s); then they stay in the mirror for the next start to publish.
pub const FINAL_TRIES: usize = 3;
pub const FINAL_PAUSE: Duration = Duration::from_secs(10);

/// How often a stage tries a store that did not answer, at most.
pub const RETRY_EVERY: Duration = Duration::from_secs(20);

/// Whether `e` says the run's store did not answer (anywhere in its chain of causes).
pub fn store_unreachable(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        let cause = match cause.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref()) {
            Some(inner) => inner as &(dyn std::error::Error + 'static),
            None => cause,
        };
        cause.downcast_ref::<StoreError>().is_some_and(StoreError::is_unreachable)
            || cause.downcast_ref::<LedgerError>().is_some_and(LedgerError::is_unreachable)
    })
}

/// One stage's view of its store's outages: how long the current one has lasted.
pub struct Outage {
    /// Names the stage in its messages (`szero run: self-play`).
    who: String,
    patience: Duration,
    retry_every: Duration,
    since: Option<Instant>,
    /// When the store last failed to answer.
    failed: Option<Instant>,
    /// The last error of the current outage, in full.
    last: Option<String>,
}

impl Outage {
    pub fn new(who: &str) -> Outage {
        Outage::timed(who, PATIENCE, RETRY_EVERY)
    }

    /// With another patience and pause between tries of a silent store.
    pub fn timed(who: &str, patience: Duration, retry_every: Duration) -> Outage {
        Outage { who: who.to_string(), patience, retry_every, since: None, failed: None, last: None }
    }

    /// `Some(value)` when `result` is a success (ending an outage, which is reported),
    /// `None` when the store did not answer and the outage is younger than the patience
    /// (its start is reported once), the error otherwise.
    pub fn ride<T>(&mut self, result: anyhow::Result<T>) -> anyhow::Result<Option<T>> {
        match result {
            Ok(value) => {
                self.last = None;
                if let Some(since) = self.since.take() {
                    eprintln!(
                        "{}: the run's store answers again after {:.0} s",
                        self.who,
                        since.elapsed().as_secs_f64()
                    );
                }
                Ok(Some(value))
            }
            Err(e) if store_unreachable(&e) => {
                self.last = Some(format!("{e:#}"));
                self.failed = Some(Instant::now());
                let since = *self.since.get_or_insert_with(|| {
                    eprintln!(
                        "{}: warning: {e:#}; going on and retrying for up to {} min (files wait in the mirror)",
                        self.who,
                        self.patience.as_secs().div_ceil(60)
                    );
                    Instant::now()
                });
                if since.elapsed() > self.patience {
                    let minutes = since.elapsed().as_secs_f64() / 60.0;
                    return Err(e.context(format!("the run's store has not answered for {minutes:.0} min")));
                }
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Whether to try the store now: always, unless it failed to answer less than the
    /// pause between tries ago ([`RETRY_EVERY`]; each try of a silent store costs up to
    /// `runstore`'s 30 s of retries, time a stage would otherwise spend on its work).
    pub fn due(&self) -> bool {
        self.failed.is_none_or(|t| t.elapsed() >= self.retry_every)
    }

    /// Whether the store is not answering now, as far as this stage knows.
    #[cfg(test)]
    fn ongoing(&self) -> bool {
        self.since.is_some()
    }
}

/// Uploads one committed file of the run.
type Upload<'a> = Box<dyn FnMut(&Path) -> Result<(), StoreError> + 'a>;

/// Publishes the files a self-play writer completes, in order. While the store does not
/// answer they wait in the mirror and go up, oldest first, with the next one that does;
/// self-play keeps playing meanwhile.
pub struct Publisher<'a> {
    upload: Upload<'a>,
    waiting: VecDeque<PathBuf>,
    outage: Outage,
}

impl<'a> Publisher<'a> {
    /// Publishes into `run` ([`Run::publish`]; nothing to do for a local run).
    pub fn new(run: &'a Run, who: &str) -> Publisher<'a> {
        Publisher::with(Outage::new(who), move |path| run.publish(path))
    }

    /// Publishes with `upload`.
    pub fn with(outage: Outage, upload: impl FnMut(&Path) -> Result<(), StoreError> + 'a) -> Publisher<'a> {
        Publisher { upload: Box::new(upload), waiting: VecDeque::new(), outage }
    }

    /// Publishes `path` after the files still waiting; an error only once the store has
    /// been silent past the patience, or for a failure that waiting cannot mend.
    pub fn publish(&mut self, path: &Path) -> anyhow::Result<()> {
        self.waiting.push_back(path.to_path_buf());
        if !self.outage.due() {
            return Ok(());
        }
        self.drain()
    }

    /// Publishes the waiting files, oldest first, until the store does not answer.
    fn drain(&mut self) -> anyhow::Result<()> {
        while let Some(next) = self.waiting.front() {
            let result = (self.upload)(next).map_err(anyhow::Error::from);
            if self.outage.ride(result)?.is_none() {
                return Ok(());
            }
            self.waiting.pop_front();
        }
        Ok(())
    }

    /// Files waiting for the store.
    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// The end of the stage: the waiting files get up to `tries` more tries, `pause`
    /// apart; what still cannot go stays in the mirror, and the error says so (the next
    /// start of a stage on this mirror publishes it: [`Run::push`]).
    pub fn finish(mut self, tries: usize, pause: Duration) -> anyhow::Result<()> {
        for attempt in 0..tries {
            if self.waiting.is_empty() {
                return Ok(());
            }
            if attempt > 0 {
                std::thread::sleep(pause);
            }
            if let Err(e) = self.drain() {
                return Err(self.left_behind(e));
            }
        }
        if self.waiting.is_empty() {
            return Ok(());
        }
        let last = self.outage.last.clone().unwrap_or_else(|| "the run's store did not answer".into());
        Err(self.left_behind(anyhow::anyhow!(last)))
    }

    fn left_behind(&self, e: anyhow::Error) -> anyhow::Error {
        let dir = self.waiting.front().and_then(|p| p.parent()).map(|d| d.display().to_string()).unwrap_or_default();
        e.context(format!(
            "{} file(s) stay unpublished in {dir}; the next start of a stage on this mirror publishes them",
            self.waiting.len().max(1)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn down() -> anyhow::Error {
        anyhow::Error::from(StoreError::Unreachable { address: "s3://b/run".into(), detail: "no answer".into() })
    }

    #[test]
    fn an_outage_is_ridden_until_the_patience_runs_out() {
        let mut outage = Outage::timed("test", Duration::from_millis(200), Duration::ZERO);
        assert_eq!(outage.ride(Ok(1)).unwrap(), Some(1));
        assert!(outage.ride::<u32>(Err(down())).unwrap().is_none());
        assert!(outage.ongoing());
        assert_eq!(outage.ride(Ok(2)).unwrap(), Some(2), "the store answers again");
        assert!(!outage.ongoing());
        assert!(outage.ride::<u32>(Err(down())).unwrap().is_none(), "a new outage starts its own clock");
        std::thread::sleep(Duration::from_millis(250));
        let e = outage.ride::<u32>(Err(down())).unwrap_err();
        assert!(format!("{e:#}").contains("has not answered"), "{e:#}");
    }

    #[test]
    fn other_errors_end_the_stage_at_once() {
        let mut outage = Outage::new("test");
        let refused = StoreError::Credentials { address: "s3://b/run".into(), detail: "AccessDenied".into() };
        assert!(outage.ride::<u32>(Err(refused.into())).is_err());
        assert!(outage.ride::<u32>(Err(anyhow::anyhow!("disk full"))).is_err());
        assert!(!outage.ongoing());
    }

    /// A store that is down for the first `down` uploads, recording what it took.
    fn flaky(
        down: usize,
        taken: &std::cell::RefCell<Vec<PathBuf>>,
    ) -> impl FnMut(&Path) -> Result<(), StoreError> + '_ {
        let mut calls = 0;
        move |path| {
            calls += 1;
            if calls <= down {
                return Err(StoreError::Unreachable { address: "s3://b/run".into(), detail: "no answer".into() });
            }
            taken.borrow_mut().push(path.to_path_buf());
            Ok(())
        }
    }

    #[test]
    fn files_wait_through_an_outage_and_go_up_in_order() {
        let taken = std::cell::RefCell::new(Vec::new());
        let mut publisher = Publisher::with(Outage::timed("test", PATIENCE, Duration::ZERO), flaky(2, &taken));
        publisher.publish(Path::new("shards/1.shard")).unwrap();
        publisher.publish(Path::new("shards/2.shard")).unwrap();
        assert_eq!(publisher.waiting(), 2, "both wait while the store is down");
        assert!(taken.borrow().is_empty());
        publisher.publish(Path::new("shards/3.shard")).unwrap();
        assert_eq!(publisher.waiting(), 0);
        publisher.finish(1, Duration::ZERO).unwrap();
        let names: Vec<_> = taken.borrow().iter().map(|p| p.display().to_string()).collect();
        assert_eq!(names, ["shards/1.shard", "shards/2.shard", "shards/3.shard"]);
    }

    #[test]
    fn a_silent_store_is_tried_once_a_pause_and_at_the_end() {
        let taken = std::cell::RefCell::new(Vec::new());
        let mut publisher = Publisher::with(Outage::new("test"), flaky(2, &taken));
        publisher.publish(Path::new("shards/1.shard")).unwrap();
        publisher.publish(Path::new("shards/2.shard")).unwrap();
        assert_eq!(publisher.waiting(), 2, "not tried again within the pause: the first failure only");
        publisher.finish(3, Duration::ZERO).unwrap();
        assert_eq!(taken.borrow().len(), 2, "published by the second try at the end");

        let taken = std::cell::RefCell::new(Vec::new());
        let mut publisher = Publisher::with(Outage::timed("test", PATIENCE, Duration::ZERO), flaky(usize::MAX, &taken));
        publisher.publish(Path::new("mirror/shards/1.shard")).unwrap();
        publisher.publish(Path::new("mirror/shards/2.shard")).unwrap();
        let e = format!("{:#}", publisher.finish(2, Duration::ZERO).unwrap_err());
        assert!(e.contains("2 file(s) stay unpublished in mirror/shards"), "{e}");
        assert!(e.contains("no answer"), "the store's own error is kept: {e}");
    }

    #[test]
    fn a_store_silent_past_the_patience_ends_the_stage() {
        let taken = std::cell::RefCell::new(Vec::new());
        let mut publisher = Publisher::with(
            Outage::timed("test", Duration::from_millis(100), Duration::ZERO),
            flaky(usize::MAX, &taken),
        );
        publisher.publish(Path::new("shards/1.shard")).unwrap();
        std::thread::sleep(Duration::from_millis(150));
        assert!(publisher.publish(Path::new("shards/2.shard")).is_err());
    }

    #[test]
    fn unreachable_is_found_through_wrappers() {
        assert!(store_unreachable(&down().context("self-play stage")));
        let ledger = LedgerError::Store(StoreError::Unreachable { address: "a".into(), detail: "d".into() });
        assert!(store_unreachable(&anyhow::Error::from(ledger).context("promotion")));
        let io = std::io::Error::other(StoreError::Unreachable { address: "a".into(), detail: "d".into() });
        assert!(store_unreachable(&anyhow::Error::from(io)));
        assert!(!store_unreachable(&anyhow::anyhow!("cannot be reached")));
    }
}

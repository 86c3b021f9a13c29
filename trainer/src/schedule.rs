//! The learning rate as a function of the step: linear warm-up, then constant, step
//! decay or cosine decay.

use crate::config::{ScheduleKind, TrainConfig};

/// Learning rate for the update that follows `step` completed steps.
pub fn learning_rate(cfg: &TrainConfig, step: u64) -> f64 {
    let base = cfg.learning_rate;
    if step < cfg.warmup_steps {
        // (step + 1) so that the very first update is not a no-op.
        return base * (step + 1) as f64 / cfg.warmup_steps as f64;
    }
    match cfg.lr_schedule {
        ScheduleKind::Constant => base,
        ScheduleKind::Step => {
            let passed = cfg.lr_milestones.iter().filter(|&&m| m <= step).count();
            base * cfg.lr_step_factor.powi(passed as i32)
        }
        ScheduleKind::Cosine => {
            let progress = ((step - cfg.warmup_steps) as f64 / cfg.cosine_steps.max(1) as f64).min(1.0);
            let end = base * cfg.lr_final_fraction;
            end + (base - end) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn warmup_then_shapes() {
        let mut c = TrainConfig { learning_rate: 0.1, warmup_steps: 10, ..TrainConfig::default() };
        assert!(close(learning_rate(&c, 0), 0.01));
        assert!(close(learning_rate(&c, 9), 0.1));
        assert!(close(learning_rate(&c, 1000), 0.1));

        c.lr_schedule = ScheduleKind::Step;
        c.lr_milestones = vec![100, 200];
        c.lr_step_factor = 0.5;
        assert!(close(learning_rate(&c, 99), 0.1));
        assert!(close(learning_rate(&c, 100), 0.05));
        assert!(close(learning_rate(&c, 250), 0.025));

        c.lr_schedule = ScheduleKind::Cosine;
        c.cosine_steps = 100;
        c.lr_final_fraction = 0.1;
        assert!(close(learning_rate(&c, 10), 0.1));
        assert!(close(learning_rate(&c, 60), 0.055));
        assert!(close(learning_rate(&c, 110), 0.01));
        assert!(close(learning_rate(&c, 10_000), 0.01));
        let mut prev = f64::INFINITY;
        for s in 10..120 {
            let lr = learning_rate(&c, s);
            assert!(lr <= prev);
            prev = lr;
        }
    }
}

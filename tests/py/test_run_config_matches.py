"""scripts/run_config_matches.py: which run directories a study may take as the default's run
(`scripts/step-study --default-run`). Run by scripts/test:
python3 -m unittest discover -s tests/py -p 'test_*.py'"""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "run_config_matches.py")

CONFIG = """# a config as shipped
[selfplay]
variant = "seirawan"
resign_threshold = 0.95

[train]
lr = 0.002

[run]
max_minutes = 0
"""

# What `szero study` writes: every field out, the study's overrides as settings.
STUDY_RUN = """# szero study: configs/default.toml with
#   [train] seed = 1
[selfplay]
variant = "seirawan"
resign_threshold = 0.949999988079071
simulations = 16

[train]
seed = 1
lr = 0.0020000000949949026

[run]
max_minutes = 0.0
max_steps = 10000
"""


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def run_made_by_szero_run(config, seed, steps):
    """What `szero run --max-steps STEPS --seed SEED` writes: the file it was given, then its
    command line's overrides as comments."""
    return (config + "\n# Overridden on the command line:\n"
            f"#   [run] max_steps = {steps}\n#   [train] seed = {seed}\n")


class RunConfigMatches(unittest.TestCase):
    def check(self, run_config, seed=1, steps=10000, config=CONFIG):
        with tempfile.TemporaryDirectory() as d:
            cfg = os.path.join(d, "default.toml")
            write(cfg, config)
            run = os.path.join(d, "run")
            os.mkdir(run)
            if run_config is not None:
                write(os.path.join(run, "config.toml"), run_config)
            p = subprocess.run([sys.executable, SCRIPT, cfg, run, str(seed), str(steps)],
                               capture_output=True, text=True)
            return p.returncode, p.stderr

    def test_a_study_run_of_the_same_config_seed_and_budget_matches(self):
        self.assertEqual(self.check(STUDY_RUN), (0, ""))

    def test_a_szero_run_with_its_overrides_as_comments_matches(self):
        self.assertEqual(self.check(run_made_by_szero_run(CONFIG, 2, 1200), seed=2, steps=1200), (0, ""))

    def test_another_seed_or_budget_is_named(self):
        code, err = self.check(STUDY_RUN, seed=2)
        self.assertEqual(code, 1)
        self.assertIn("train.seed: 2 in the config, 1 in the run's", err)
        code, err = self.check(run_made_by_szero_run(CONFIG, 2, 1200), seed=2, steps=10000)
        self.assertEqual(code, 1)
        self.assertIn("run.max_steps: 10000 in the config, 1200 in the run's", err)

    def test_another_rule_or_setting_is_named(self):
        code, err = self.check(STUDY_RUN.replace('variant = "seirawan"', 'variant = "seirawan-forced"'))
        self.assertEqual(code, 1)
        self.assertIn("selfplay.variant: 'seirawan' in the config, 'seirawan-forced' in the run's", err)
        code, err = self.check(STUDY_RUN, config=CONFIG.replace("lr = 0.002", "lr = 0.003"))
        self.assertEqual(code, 1)
        self.assertIn("train.lr", err)

    def test_a_setting_the_run_lacks_is_named(self):
        code, err = self.check(STUDY_RUN, config=CONFIG + "\n[promotion]\ngames = 40\n")
        self.assertEqual(code, 1)
        self.assertIn("promotion.games: 40 in the config, absent from the run's", err)

    def test_a_directory_without_a_config_is_refused(self):
        code, err = self.check(None)
        self.assertEqual(code, 2)
        self.assertIn("not a run directory", err)


if __name__ == "__main__":
    unittest.main()

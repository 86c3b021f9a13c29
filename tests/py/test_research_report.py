"""scripts/research_report.py's arithmetic and its data-driven wording: the intervals it
draws, the verdicts the summary may state, and which entry-rules runs count. Run by
scripts/test: python3 -m unittest discover -s tests/py -p 'test_*.py'"""
import importlib.util
import json
import os
import re
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location("research_report", os.path.join(ROOT, "scripts", "research_report.py"))
rr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rr)

ENTRY = {("E", "both"): {"entered": "1990", "held": "2000", "median": "5"},
         ("H", "both"): {"entered": "1994", "held": "2000", "median": "4"}}


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def interval(text):
    """(low, high) of the first "[a, b]" in text."""
    lo, hi = re.search(r"\[([+-]?[\d.]+), ([+-]?[\d.]+)\]", text).groups()
    return float(lo), float(hi)


class Intervals(unittest.TestCase):
    def test_a_difference_of_two_zero_shares_still_has_width(self):
        lo, hi = interval(rr.share_difference(0, 100, 0, 100))
        self.assertLess(lo, -2)
        self.assertGreater(hi, 2)

    def test_a_difference_holds_its_estimate_inside_its_interval(self):
        text = rr.share_difference(30, 100, 10, 100)
        self.assertTrue(text.startswith("+20.0 "), text)
        lo, hi = interval(text)
        self.assertTrue(lo < 20 < hi and lo > 0, text)

    def test_wilson_interval_of_a_share(self):
        p, lo, hi = rr.share_interval(50, 100)
        self.assertAlmostEqual(p, 0.5)
        self.assertAlmostEqual(lo, 0.4038, places=3)
        self.assertAlmostEqual(hi, 0.5962, places=3)


class Summary(unittest.TestCase):
    def summary(self, fsf, szero=None):
        return "\n".join(rr.in_short(ENTRY, 8, fsf, szero or {}))

    def test_verdicts_follow_the_intervals(self):
        fsf = {"not-before-move-10": (3, -42, 49), "not-before-move-20": (-196, -251, -148),
               "queenside-only": (-104, -150, -60), "kingside-only": (-76, -121, -33),
               "elephant-first": (-5, -48, 37), "hawk-first": (-12, -55, 31), "no-castle-gate": (-19, -51, 12)}
        text = self.summary(fsf)
        self.assertIn("no hurry in the first ten moves", text)
        self.assertIn("**Use both wings.**", text)
        self.assertIn("loses 104 Elo", text)
        self.assertIn("**Which piece first is not resolved**", text)
        self.assertIn("not resolved (the interval contains zero)", text)
        self.assertIn("at median moves 5 and 4", text)

    def test_no_verdict_the_intervals_do_not_allow(self):
        # Gating late costs already by move 10, one wing alone costs nothing measurable, and
        # the Hawk first is measurably worse: none of the page's usual verdicts may appear.
        fsf = {"not-before-move-10": (-80, -120, -40), "not-before-move-20": (-196, -251, -148),
               "queenside-only": (-10, -50, 30), "kingside-only": (-76, -121, -33),
               "elephant-first": (-5, -48, 37), "hawk-first": (-90, -130, -50), "no-castle-gate": (-60, -90, -30)}
        text = self.summary(fsf, {"never": (-589, -782, -497)})
        self.assertNotIn("no hurry", text)
        self.assertIn("**How early?**", text)
        self.assertNotIn("Use both wings", text)
        self.assertNotIn("not resolved", text)
        self.assertIn("**Which piece first.**", text)
        self.assertIn("Never gating costs not measured", text)

    def test_szero_stands_beside_fairy_stockfish(self):
        text = self.summary({"never": (-655, -906, -554)}, {"never": (-589, -782, -497)})
        self.assertIn("Never gating costs -655 [-906, -554] (szero -589 [-782, -497]).", text)


class EntryRulesRuns(unittest.TestCase):
    def test_a_run_counts_once_its_row_and_its_report_are_there(self):
        with tempfile.TemporaryDirectory() as root:
            d = os.path.join(root, *rr.ENTRY_RULES_DIR)
            os.makedirs(d)
            old, rr.ROOT = rr.ROOT, root
            try:
                self.assertIsNone(rr.entry_rules_runs())
                write(os.path.join(d, "study.json"), json.dumps({"steps": 10000, "games": 100}))
                for name in ("seirawan-s1", "seirawan-forced-s1", "seirawan-s2", "chess-s1"):
                    write(os.path.join(d, f"{name}.json"), "{}")
                for name in ("seirawan-s1", "seirawan-forced-s1", "chess-s1"):
                    os.makedirs(os.path.join(d, name))
                    write(os.path.join(d, name, "generations.csv"), "generation\n")
                # A report being written (no row yet) does not count either.
                os.makedirs(os.path.join(d, "seirawan-placement-s1"))
                write(os.path.join(d, "seirawan-placement-s1", "generations.csv"), "generation\n")
                meta, runs = rr.entry_rules_runs()
            finally:
                rr.ROOT = old
        self.assertEqual(meta["steps"], 10000)
        self.assertEqual(runs, {("seirawan", 1): "seirawan-s1", ("seirawan-forced", 1): "seirawan-forced-s1"})


if __name__ == "__main__":
    unittest.main()

"""scripts/research_report.py's arithmetic and its data-driven wording: the intervals it
draws, the verdicts the summary may state, and which entry-rules runs count. Run by
scripts/test: python3 -m unittest discover -s tests/py -p 'test_*.py'"""
import gzip
import importlib.util
import json
import math
import os
import re
import tempfile
import unittest
from unittest import mock

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
        self.assertIn("Barring the kingside costs 28 [-35, +91] Elo more than barring the queenside: the interval"
                      " contains zero, so the two costs are not told apart.", text)

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
        self.assertIn("Barring the queenside costs 66 [+7, +125] Elo more than barring the kingside.", text)
        self.assertIn("never doing it scores -60 [-90, -30]: for Fairy-Stockfish a cost, the whole interval below zero.",
                      text)

    def test_a_difference_of_two_estimates_widens_with_both(self):
        d, lo, hi = rr.elo_difference((-10, -50, 30), (-76, -121, -33))
        self.assertEqual(d, -66)
        # Half-widths 40 and 44 as standard errors 40/Z and 44/Z: the difference's is their hypot.
        self.assertAlmostEqual(hi - d, math.hypot(40, 44), places=6)
        self.assertAlmostEqual(d - lo, math.hypot(40, 44), places=6)
        self.assertIsNone(rr.elo_difference((-10, -math.inf, 30), (0, -1, 1)))

    def test_a_restriction_that_helps_szero_is_weighed_against_its_check(self):
        szero = {"hawk-first": (38, 8, 70), "elephant-first": (-15, -46, 16)}
        text = "\n".join(rr.in_short(ENTRY, 8, {}, szero))
        self.assertIn("- **A restriction that helps szero?** Made to bring the Hawk in first, szero beat itself"
                      " unrestricted, +38 [+8, +70] (one row of eight at 95%: not checked on other openings yet).", text)
        self.assertNotIn("the Elephant in first", text)
        text = "\n".join(rr.in_short(ENTRY, 8, {}, szero, check={"hawk-first": (30, 2, 60)}))
        self.assertIn("and again on other openings, +30 [+2, +60]: left free, its search chooses worse.", text)
        text = "\n".join(rr.in_short(ENTRY, 8, {}, szero, check={"hawk-first": (5, -25, 35)}))
        self.assertIn("- **A row of szero's that did not hold up.**", text)
        self.assertIn("but not again on other openings, +5 [-25, +35]: with eight rows at 95%, one can stand out by"
                      " chance.", text)

    def test_szero_stands_beside_fairy_stockfish(self):
        text = self.summary({"never": (-655, -906, -554)}, {"never": (-589, -782, -497)})
        self.assertIn("Never gating costs -655 [-906, -554] (szero -589 [-782, -497]).", text)


class EntryRulesRuns(unittest.TestCase):
    def test_a_run_counts_once_its_row_and_its_report_are_there(self):
        with tempfile.TemporaryDirectory() as root:
            d = os.path.join(root, *rr.ENTRY_RULES_DIR)
            os.makedirs(d)
            with mock.patch.object(rr, "ROOT", root):
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
        self.assertEqual(meta["steps"], 10000)
        self.assertEqual(runs, {("seirawan", 1): "seirawan-s1", ("seirawan-forced", 1): "seirawan-forced-s1"})


def duel(elo, lo, hi, games=100):
    return {"elo": {"elo": elo, "elo_lo": lo, "elo_hi": hi}, "games": games}


class HandEntered(unittest.TestCase):
    NEVER = {("default", "1"): {"E": (557, 1000), "H": (4, 1000)},
             ("hand-entered", "1"): {"E": (63, 1000), "H": (59, 1000)},
             ("hand-entered", "2"): {"E": (10, 1000), "H": (10, 1000)}}

    def test_each_variant_asks_its_own_question_of_its_own_runs(self):
        never = {**self.NEVER, ("no-human-values", "1"): {"E": (114, 1000), "H": (3, 1000)}}
        line = rr.variant_line("no-human-values", 10000, never, {})
        self.assertIn("Do human piece values in the targets shape how it gates?", line)
        self.assertIn("seed 1: 11.4% against 55.7%", line)
        self.assertNotIn("6.3%", line)
        self.assertIsNone(rr.variant_line("no-human-values", 10000, self.NEVER, {}))

    def test_no_line_without_a_default_of_the_same_seed(self):
        self.assertIsNone(rr.variant_line("hand-entered", 10000, {("hand-entered", "2"): self.NEVER[("hand-entered", "2")]}, {}))

    def test_only_seeds_with_both_runs_and_the_duel_verdict_follows_its_interval(self):
        never = dict(self.NEVER)
        for (lo, hi), verdict in (((46, 186), "beat the default's"), ((-186, -46), "lost to the default's"),
                                  ((-30, 40), "could not be told from the default's")):
            line = rr.variant_line("hand-entered", 10000, never, {("hand-entered", "1"): [duel((lo + hi) / 2, lo, hi)]})
            self.assertIn("seed 1: 6.3% against 55.7%", line)
            self.assertNotIn("seed 2", line)
            self.assertIn(f"its network {verdict} head to head", line)
            self.assertIn(f"[{lo:+.0f}, {hi:+.0f}] Elo over 100 games", line)

    def test_a_second_run_s_match_follows_the_first_with_its_own_verdict(self):
        line = rr.variant_line("hand-entered", 10000, self.NEVER,
                               {("hand-entered", "1"): [duel(111, 46, 186), duel(-10, -70, 50, games=200)]})
        self.assertIn("its network beat the default's head to head, +111 [+46, +186] Elo over 100 games;"
                      " learned a second time, its network could not be told from the default's kept network,"
                      " -10 [-70, +50] Elo over 200 games", line)

    def test_a_seed_without_its_duel_gives_its_entries_alone(self):
        line = rr.variant_line("hand-entered", 10000, self.NEVER, {})
        self.assertNotIn("head to head", line)

    def test_the_ladder_over_seeds_joins_the_line_in_words(self):
        never = {**self.NEVER, ("default", "2"): {"E": (89, 1000), "H": (2, 1000)}}
        ladder = (2, {"ab-d3": (-0.08, -0.14, -0.03), "ab-d1": (-0.07, -0.18, 0.05)})
        line = rr.variant_line("hand-entered", 10000, never, {}, ladder)
        self.assertIn("On the ladder, over its 2 seeds, its network scores measurably lower against ab-material"
                      " depth 3 (-8.0 [-14.0, -3.0] points) than the default; on the other rungs", line)
        self.assertTrue(line.endswith(" (below: the material terms)."), line)
        level = (2, {"ab-d1": (-0.07, -0.18, 0.05)})
        self.assertIn("not measurably different from the default on any rung",
                      rr.variant_line("hand-entered", 10000, never, {}, level))

    def test_one_seed_says_so_and_two_do_not(self):
        self.assertIn("one seed of the two", rr.variant_line("hand-entered", 10000, self.NEVER, {}))
        never = {**self.NEVER, ("default", "2"): {"E": (89, 1000), "H": (2, 1000)}}
        line = rr.variant_line("hand-entered", 10000, never, {})
        self.assertIn("seed 2: 1.0% against 8.9%", line)
        self.assertNotIn("one seed", line)

    def test_two_seeds_that_agree_give_each_seed_and_a_mean_wide_as_their_spread(self):
        # E never: 6.3% - 55.7% and 1.0% - 8.9%, both down and far apart.
        never = {**self.NEVER, ("default", "2"): {"E": (89, 1000), "H": (2, 1000)}}
        diffs = rr.never_differences(never, "hand-entered")
        by_seed, mean = diffs["E"]
        self.assertEqual([sd for sd, _ in by_seed], ["1", "2"])
        d, lo, hi = mean
        self.assertAlmostEqual(d, ((0.063 - 0.557) + (0.010 - 0.089)) / 2)
        # Student's t with one degree of freedom over the two seeds' spread (half their
        # difference, 0.2075) is far wider than the games' own.
        self.assertAlmostEqual(hi - d, 12.706 * abs((0.063 - 0.557) - (0.010 - 0.089)) / 2, places=6)
        line = rr.variant_line("hand-entered", 10000, never, {})
        self.assertIn("Over the 2 seeds, in points: the sides that never enter the Elephant down in each seed"
                      " (seed 1 -49.4", line)
        # Cut to the -100 to +100 points that shares can differ by.
        self.assertIn("but the mean over the seeds, -28.7 [-100.0, +100.0], is not resolved", line)
        # The Hawk: up in both (5.9% against 0.4%, 1.0% against 0.2%).
        self.assertIn("the Hawk up in each seed (seed 1 +5.5", line)
        self.assertTrue(line.endswith("is not resolved (below: the material terms)."), line)

    def test_one_seed_has_no_mean(self):
        diffs = rr.never_differences(self.NEVER, "hand-entered")
        self.assertEqual(len(diffs["E"][0]), 1)
        self.assertIsNone(diffs["E"][1])
        self.assertNotIn("Over the", rr.variant_line("hand-entered", 10000, self.NEVER, {}))

    def test_seeds_differ_where_their_difference_excludes_zero(self):
        self.assertTrue(rr.seeds_differ({1: (1248, 2240), 2: (174, 1954)}))
        self.assertFalse(rr.seeds_differ({1: (500, 1000), 2: (530, 1000)}))
        # Intervals that overlap can still differ: 50.0% [46.9, 53.1] and 54.5% [51.4, 57.6]
        # overlap, but the difference is +4.5 points [+0.1, +8.9].
        self.assertTrue(rr.seeds_differ({1: (500, 1000), 2: (545, 1000)}))
        self.assertLess(rr.share_interval(500, 1000)[0] + 0.0, rr.share_interval(545, 1000)[2])
        self.assertGreater(rr.share_interval(500, 1000)[2], rr.share_interval(545, 1000)[1])

    def test_seed_differences_are_later_minus_earlier_with_variances_added(self):
        (a, b, d, half), = rr.seed_differences({2: (100, 1000), 1: (500, 1000)})
        self.assertEqual((a, b), (1, 2))
        self.assertAlmostEqual(d, -0.4)
        self.assertAlmostEqual(half, rr.Z * (0.5 * 0.5 / 1000 + 0.1 * 0.9 / 1000) ** 0.5)
        self.assertEqual(len(rr.seed_differences({1: (1, 9), 2: (2, 9), 3: (3, 9)})), 3)

    def test_the_habit_line_gives_each_pair_of_seeds_its_difference(self):
        line = rr.habit_line({1: (1248, 2240), 2: (174, 1954)})
        self.assertIn("depends on the run", line)
        self.assertIn("seed 2 minus seed 1: -46.8 [", line)
        self.assertNotIn("depends", rr.habit_line({1: (500, 1000), 2: (510, 1000)}))


class LearnedRules(unittest.TestCase):
    @staticmethod
    def runs(forced_draws):
        """The standard rule and forced entry at each seed, forced's draw share given per
        seed; every share's standard error 0.005."""
        out = {}
        for s, fd in forced_draws.items():
            base = {"white": (0.5, 0.005), "draws": (0.6, 0.005), "E never": (0.5, 0.005), "H never": (0.01, 0.005)}
            out[("seirawan", s)] = base
            out[("seirawan-forced", s)] = dict(base, draws=(fd, 0.005))
        return out

    def test_one_seed_is_its_own_row_and_only_a_moved_result_is_a_change(self):
        diffs = rr.rule_differences(self.runs({1: 0.3}), [1])
        (seed, row), = diffs["seirawan-forced"]
        self.assertEqual(seed, 1)
        self.assertAlmostEqual(row["draws"][0], -0.3)
        self.assertAlmostEqual(row["draws"][1], rr.Z * math.hypot(0.005, 0.005))
        line = rr.learned_rules_line("10,000 trainer steps", diffs)
        self.assertIn("an entry rule changes the game itself", line)
        self.assertIn("forced entry (seed 1 of 3): draws -30.0", line)
        self.assertIn("White's score +0.0 [-1.4, +1.4] (no measurable change)", line)

    def test_seeds_that_disagree_widen_the_mean_past_zero(self):
        # Seed 1 loses 30 points of draws, seed 2 gains 30: each seed's own interval is
        # narrow, but the mean over the two seeds is not a measurable change.
        diffs = rr.rule_differences(self.runs({1: 0.3, 2: 0.9}), [1, 2])
        rows = diffs["seirawan-forced"]
        self.assertEqual([s for s, _ in rows], [1, 2, "mean of 2"])
        mean, half = rows[-1][1]["draws"]
        self.assertAlmostEqual(mean, 0.0)
        self.assertAlmostEqual(half, rr.T975[1] * 0.3)
        line = rr.learned_rules_line("10,000 trainer steps", diffs)
        self.assertIn("forced entry (mean of 2): draws opposite ways by seed (seed 1 -30.0 [", line)
        self.assertIn("seed 2 +30.0 [", line)
        self.assertIn("White's score +0.0 [", line)
        self.assertNotIn("changes the game", line)

    def test_seeds_that_agree_on_the_sign_but_not_the_size_say_so(self):
        # Both seeds lose draws measurably (30 and 5 points), but two seeds that far apart
        # leave the mean's Student's t interval across zero.
        diffs = rr.rule_differences(self.runs({1: 0.3, 2: 0.55}), [1, 2])
        mean, half = diffs["seirawan-forced"][-1][1]["draws"]
        self.assertLess(mean - half, 0)
        line = rr.learned_rules_line("10,000 trainer steps", diffs)
        self.assertIn("draws down in each seed (seed 1 -30.0 [", line)
        self.assertIn("seed 2 -5.0 [", line)
        self.assertIn("but the mean over the seeds, -17.5 [", line)
        self.assertNotIn("draws -17.5", line)
        self.assertNotIn("changes the game", line)
        # A share no seed moved stays a plain "no measurable change".
        self.assertIn("White's score +0.0 [-1.0, +1.0] (no measurable change)", line)

    def test_a_mean_s_interval_is_cut_to_what_shares_can_differ_by(self):
        self.assertEqual(rr.points(0.06, 4.45), "+6.0 [-100.0, +100.0]")
        self.assertEqual(rr.points(-0.3, 0.01), "-30.0 [-31.0, -29.0]")

    def test_no_line_without_a_pair(self):
        runs = self.runs({1: 0.3})
        del runs[("seirawan", 1)]
        self.assertEqual(rr.rule_differences(runs, [1]), {})
        self.assertIsNone(rr.learned_rules_line("10,000 trainer steps", {}))



class PieceValuesLine(unittest.TestCase):
    TABLE = ("| Q | 7.74 | [6.87, 8.75] | 5.674 | 9 |\n| E | 7.33 | [6.50, 8.25] | 5.376 | 8 |\n"
             "| H | 6.96 | [6.18, 7.93] | 5.099 | 7 |\n")

    def test_overlapping_values_are_ordered_only_by_their_differences(self):
        diffs = ("| Q - E | +0.41 | [-0.20, +1.00] | no |\n| Q - H | +0.78 | [+0.15, +1.40] | yes |\n"
                 "| E - H | +0.37 | [-0.30, +1.10] | no |\n")
        line = rr.piece_values_line(self.TABLE + diffs)
        self.assertIn("put the queen above the Hawk, but do not order the queen and the Elephant or the Elephant"
                      " and the Hawk", line)
        self.assertNotIn("do not order them", line)

    def test_no_difference_apart_orders_nothing(self):
        diffs = "| Q - E | +0.41 | [-0.20, +1.00] | no |\n| E - H | -0.37 | [-1.10, +0.30] | no |\n"
        self.assertIn("each interval contains zero, so these games do not order them",
                      rr.piece_values_line(self.TABLE + diffs))

    def test_a_negative_difference_names_the_larger_piece_first(self):
        line = rr.piece_values_line(self.TABLE + "| E - H | -0.80 | [-1.50, -0.10] | yes |\n")
        self.assertIn("so these games put the Hawk above the Elephant.", line)

    def test_without_differences_no_order_is_claimed(self):
        line = rr.piece_values_line(self.TABLE)
        self.assertTrue(line.endswith("Hawk 6.96 [6.18, 7.93]."), line)
        self.assertIsNone(rr.piece_values_line("| Q | 7.74 | [6.87, 8.75] | 5.674 | 9 |\n"))


class Wings(unittest.TestCase):
    def test_a_wing_is_named_only_where_the_interval_leaves_half(self):
        self.assertEqual(rr.wing(rr.share_interval(1032, 2000)), "no wing measurably more")
        self.assertEqual(rr.wing(rr.share_interval(1106, 2000)), "more on the queenside")
        self.assertEqual(rr.wing(rr.share_interval(900, 2000)), "more on the kingside")

    def test_the_queenside_is_files_a_to_d(self):
        counts = dict(zip(rr.FILES, [1, 2, 3, 4, 10, 0, 0, 0]))
        self.assertAlmostEqual(rr.queenside(counts)[0], 0.5)

    def test_the_where_line_reads_each_piece_s_wing(self):
        line = rr.where_line(rr.share_interval(1032, 2000), rr.share_interval(1106, 2000),
                             {"E": rr.share_interval(880, 2000), "H": rr.share_interval(840, 2000)})
        self.assertIn("of the Elephant's entries (no wing measurably more)", line)
        self.assertIn("of the Hawk's (more on the queenside)", line)


class Ladder(unittest.TestCase):
    def test_a_pair_is_the_unit_of_a_paired_score(self):
        mu, se = rr.pair_score_se([0, 0, 10, 0, 0])
        self.assertEqual((mu, se), (0.5, 0.0))
        mu, se = rr.pair_score_se([5, 0, 0, 0, 5])
        self.assertAlmostEqual(mu, 0.5)
        self.assertAlmostEqual(se, 0.5 / math.sqrt(10))

    def run_dir(self, d, matches, kept=()):
        """Writes `matches` {(variant, seed, rung): pentanomial} as step-study's files."""
        for (v, s, r), penta in matches.items():
            pairs = sum(penta)
            score = sum(k * c for k, c in enumerate(penta)) / (4 * pairs)
            write(os.path.join(d, f"{v}-s{s}.ladder-{r}.json"), json.dumps(
                {"score": score, "pentanomial": penta, "elo": {"elo": 0, "elo_lo": -1, "elo_hi": 1}}))
            with gzip.open(os.path.join(d, f"{v}-s{s}.ladder-{r}.pgn.gz"), "wt") as f:
                # Each colour-swapped pair replays one game: half of them distinct.
                f.write("\n\n".join(f'[White "a"]\n\n1. e4 e5 2. Nf3 m{i // 2} 1-0' for i in range(2 * pairs)))
        for name in kept:
            write(os.path.join(d, f"{name}.safetensors"), "")

    def test_nothing_without_a_rung_met(self):
        md = []
        with tempfile.TemporaryDirectory() as d:
            rr.ladder_tables(md.append, d, [("default", "1"), ("hand-entered", "1")])
        self.assertEqual(md, [])

    def test_each_run_s_cells_and_its_difference_from_its_seed_s_default(self):
        md = []
        with tempfile.TemporaryDirectory() as d:
            self.run_dir(d, {("default", "3", "fsf-d1"): [5, 0, 0, 0, 5],
                             ("no-human-values", "3", "fsf-d1"): [10, 0, 0, 0, 0]}, kept=["hand-entered-s3"])
            rr.ladder_tables(md.append, d, [("default", "3"), ("hand-entered", "3"), ("no-human-values", "3"),
                                            ("default", "1")])
        text = "\n".join(md)
        # Fairy-Stockfish depth 1 is the last, strongest rung.
        self.assertEqual(list(rr.LADDER_RUNGS)[-1], "fsf-d1")
        self.assertIn("| default | 3 | not measured yet | ", text)
        self.assertIn(" | 50.0%, +0 [-1, +1] (10 of 20 distinct) |", text)
        self.assertIn("(10 of 20 distinct)", text)
        self.assertIn("| hand-entered | 3 | not measured yet |", text)
        self.assertNotIn("| default | 1 |", text)
        diff = [ln for ln in md if ln.startswith("| no-human-values | 3 | - |")]
        self.assertEqual(len(diff), 1, text)
        # 0% minus 50%, the default's ten pairs split 5-5: half-width 1.96 * 0.5 / sqrt(10).
        cell = diff[0].split(" | ")[-1].rstrip(" |")
        self.assertTrue(cell.startswith("-50.0 "), cell)
        lo, hi = interval(cell)
        self.assertAlmostEqual(hi - lo, 2 * 100 * rr.Z * 0.5 / math.sqrt(10), places=0)

    def test_seeds_that_agree_give_a_mean_row_and_only_a_resolved_rung_is_named(self):
        md = []
        matches = {}
        for s in "12":
            matches[("default", s, "ab-d3")] = [0, 0, 10, 0, 0]
            matches[("no-human-values", s, "ab-d3")] = [0, 10, 0, 0, 0]
            matches[("default", s, "ab-d1")] = [5, 0, 0, 0, 5]
            matches[("no-human-values", s, "ab-d1")] = [5, 0, 0, 0, 5]
        matches[("hand-entered", "1", "ab-d3")] = [0, 0, 10, 0, 0]
        with tempfile.TemporaryDirectory() as d:
            self.run_dir(d, matches)
            rr.ladder_tables(md.append, d, [(v, s) for s in "12" for v in ("default", "hand-entered", "no-human-values")])
        text = "\n".join(md)
        mean = [ln for ln in md if ln.startswith("| no-human-values | mean of 2 |")]
        self.assertEqual(len(mean), 1, text)
        # Each seed -25 points with no spread at all: the mean is -25, its interval the games'.
        cells = mean[0].split(" | ")
        self.assertTrue(cells[5].startswith("-25.0 ["), mean[0])
        self.assertTrue(cells[3].startswith("+0.0 ["), mean[0])
        self.assertNotIn("| hand-entered | mean of", text)
        self.assertIn("Over its 2 seeds, no-human-values scores measurably lower against ab-material depth 3 (-25.0 [", text)
        self.assertIn("on the other rungs the two are not told apart.", text)

    def test_only_a_run_with_its_marker_was_learned_again_and_it_names_the_first_run_s_outputs(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "default-s1.relearned"), "learned again: first run's\ndefault-s1/\n"
                  "hand-entered-s1.h2h.json\ndefault-s1.greedy.json\nhand-entered-s11.h2h.json\n")
            write(os.path.join(d, "default-s3.relearned"), "learned again: first run's\n")
            write(os.path.join(d, "hand-entered-s2.relearned"), "learned again\nhand-entered-s2/\n"
                  "hand-entered-s2.h2h.json\n")
            runs = [("default", "1"), ("hand-entered", "1"), ("default", "2"), ("hand-entered", "2"), ("default", "3")]
            self.assertEqual(rr.relearned_runs(d, runs), {
                ("default", "1"): ["self-play rows", "match against greed", "match against hand-entered"],
                ("hand-entered", "2"): ["self-play rows", "match against the default"], ("default", "3"): []})
            self.assertEqual(rr.relearned_runs(d, runs[1:3]), {})


class Replays(unittest.TestCase):
    GENS = "generation,games,mean plies,white score,draw share,E entered,H entered,E mean move,H mean move\n"

    def report(self, d, games, plies, ends, late):
        """A gating report's two tables: `late` = (games, draw share, E entered, H entered) of
        generation 3, the only one of the last third (generations 0 to 3)."""
        os.makedirs(d)
        write(os.path.join(d, "variants.csv"), "variant,games,distinct,mean plies,terminations\n"
              f'seirawan-placement,{games},0,{plies},"{ends}"\n')
        n, draws, e, h = late
        write(os.path.join(d, "generations.csv"), self.GENS + f"0,10,50,0.5,0,1,1,3,3\n3,{n},40,0.5,{draws},{e},{h},9,9\n")

    def test_replays_are_the_full_report_less_the_distinct_one_and_their_shares_shift(self):
        with tempfile.TemporaryDirectory() as root:
            full = os.path.join(root, *rr.ENTRY_RULES_DIR, "seirawan-placement-s1")
            self.report(full, 1000, "101.00", "checkmate 600, repetition 400", (100, 0.5, 0.9, 0.6))
            self.report(os.path.join(root, *rr.REPLAYS_DIR, "entry-rules", "seirawan-placement-s1"), 900, "110.00",
                        "checkmate 590, repetition 310", (60, 0.3, 0.85, 0.7))
            # A distinct report whose full report is not here is left out.
            self.report(os.path.join(root, *rr.REPLAYS_DIR, "entry-rules", "seirawan-s1"), 10, "1.00", "", (1, 0, 1, 1))
            md = []
            with mock.patch.object(rr, "ROOT", root):
                rr.replays_table(md.append)
        text = "\n".join(md)
        row = [ln for ln in md if ln.startswith("| entry-rules |")]
        self.assertEqual(len(row), 1, text)
        # 100 replays: 90 repetitions and 10 mates, (101,000 - 99,000) / 100 = 20 plies.
        self.assertIn("| 1,000 | 100 | repetition 90, checkmate 10 | 20 | 50.0% / 30.0% | 10.0% / 15.0% | 40.0% / 30.0% |",
                      row[0])
        self.assertIn("90 of their 100", text)
        self.assertIn("moves a share by at most 20.0 points (draws, entry-rules/seirawan-placement-s1).", text)

    def test_nothing_without_distinct_reports(self):
        with tempfile.TemporaryDirectory() as root:
            md = []
            with mock.patch.object(rr, "ROOT", root):
                rr.replays_table(md.append)
        self.assertEqual(md, [])

    def test_terminations_read_as_counts(self):
        self.assertEqual(rr.terminations("checkmate 10385, max-length 1055"), {"checkmate": 10385, "max-length": 1055})
        self.assertEqual(rr.terminations(""), {})


class Restrictions(unittest.TestCase):
    HEAD = ["| restriction | spec keys | score | Elo [95%] | W-D-L | pentanomial | distinct games |",
            "|---|---|---|---|---|---|---|"]

    def cells(self, pentanomial, games):
        with tempfile.TemporaryDirectory() as d:
            pgn = os.path.join(d, "g.pgn.gz")
            with gzip.open(pgn, "wt") as f:
                f.write("\n\n".join(f'[White "a"]\n\n1. e4 m{i // 2} 1-0' for i in range(games)))
            return rr.match_cells({"score": 0.5, "elo": {"elo": 0, "elo_lo": -40, "elo_hi": 40},
                                   "wdl": {"wins": 1, "draws": 2, "losses": 1}, "pentanomial": pentanomial}, pgn)

    def test_a_row_of_single_games_says_it_has_no_pairs(self):
        self.assertIn("| none: one game an opening | 2 of 4", self.cells(None, 4))
        self.assertIn("| [0, 0, 2, 0, 0] | 2 of 4", self.cells([0, 0, 2, 0, 0], 4))

    def test_a_game_is_its_start_and_its_moves(self):
        with tempfile.TemporaryDirectory() as d:
            pgn = os.path.join(d, "g.pgn.gz")
            game = '[Round "{}"]\n[FEN "{}"]\n\n4. Qh5+ g6 5. Qxg6# {{White mates}} 1-0'
            with gzip.open(pgn, "wt") as f:
                f.write("\n\n".join(game.format(r, fen) for r, fen in [(1, "a w"), (2, "a w"), (3, "b w")]))
            # The first two are one game replayed; the third starts elsewhere.
            self.assertEqual(rr.distinct_games(pgn), (2, 3))

    def test_what_a_table_rests_on_names_only_rows_with_replays(self):
        self.assertEqual(rr.restriction_games([("a", 400, 400), ("b", 400, 400)]), "400 games a row, all distinct")
        self.assertEqual(rr.restriction_games([("a", 200, 200), ("b", 150, 200)]),
                         "200 games a row, all distinct but 150 in b, explained below")
        self.assertEqual(rr.restriction_games([]), "no row measured yet")

    def table(self, rows):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.md")
            write(path, "\n".join(self.HEAD + rows) + "\n")
            md = []
            costs = rr.restriction_table(md, path, "engine")
        return costs, "\n".join(md)

    def test_single_game_rows_are_named_and_replays_explained_only_where_there_are_some(self):
        once = "| never | `nogate=true` | 2.0% | -600 [-800, -500] | 2-4-194 | none: one game an opening | 200 of 200 |"
        paired = "| no-castle-gate | `castle_gate=false` | 47.0% | -19 [-51, +12] | 86-17-97 | [13, 2, 75, 3, 7] | 150 of 200 |"
        costs, text = self.table([once, paired])
        self.assertEqual(costs, {"never": (-600, -800, -500), "no-castle-gate": (-19, -51, 12)})
        self.assertIn("The row never played each opening once", text)
        self.assertIn("Fewer distinct games in no-castle-gate (150 of 200)", text)
        helps = "| hawk-first | `gate_first=H` | 55.5% | +38 [+8, +70] | 185-74-141 | none: one game an opening | 400 of 400 |"
        costs, text = self.table([helps])
        self.assertEqual(costs, {"hawk-first": (38, 8, 70)})
        self.assertIn("**Not resolved** by 400 games (the interval contains zero): none.", text)
        self.assertIn("**Helps measurably** (the whole interval above zero): hawk-first (+38)", text)
        _, text = self.table([once, once.replace("| never |", "| other |"), paired])
        self.assertIn("The rows never, other played each opening once, the restricted side White in every other game,"
                      " and their", text)
        _, text = self.table([once])
        self.assertIn("Every row played each opening once", text)
        self.assertNotIn("Fewer distinct games", text)

    def test_a_check_pools_only_rows_played_once_an_opening_in_both(self):
        first = ["| queenside-only | `gate_files=abcd` | 41.8% | -58 [-91, -26] | 143-48-209 | none: one game an opening | 400 of 400 |",
                 "| never | `nogate=true` | 2.0% | -600 [-800, -500] | 2-4-194 | [0, 1, 2, 3, 94] | 150 of 200 |"]
        check = ["| queenside-only | `gate_files=abcd` | 45.0% | -35 [-67, -3] | 160-40-200 | none: one game an opening | 400 of 400 |",
                 "| never | `nogate=true` | 2.0% | -600 [-800, -500] | 2-4-194 | none: one game an opening | 200 of 200 |"]
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a.md"), os.path.join(d, "b.md")
            write(a, "\n".join(self.HEAD + first) + "\n")
            write(b, "Regenerate with `scripts/gating-restrictions --seed 12 --only queenside-only`.\n\n"
                  + "\n".join(self.HEAD + check) + "\n")
            md = []
            rows, pooled = rr.restriction_check(md.append, md, a, b, "Rows left unresolved")
        text = "\n".join(md)
        self.assertEqual(rows["queenside-only"], (-35, -67, -3))
        # The paired row of the first table does not pool: its games are not independent.
        self.assertEqual(list(pooled), ["queenside-only"])
        (e, lo, hi), n, alone = pooled["queenside-only"]
        self.assertEqual((n, alone), (800, (-35, -67, -3)))
        self.assertEqual((e, lo, hi), rr.wdl_elo(303, 88, 409))
        self.assertLess(lo, e)
        self.assertLess(e, hi)
        self.assertIn("Rows left unresolved, played again on other openings (seed 12,", text)
        self.assertIn(f"| queenside-only | 800 | 303-88-409 | {rr.elo_text(pooled['queenside-only'][0])} |", text)

    def test_the_wings_rest_on_both_sets_of_openings_where_pooled(self):
        fsf = {"queenside-only": (-58, -91, -26), "kingside-only": (-104, -139, -70)}
        pooled = {"queenside-only": ((-50, -73, -27), 800, (-42, -75, -9)),
                  "kingside-only": ((-110, -134, -86), 800, (-116, -150, -82))}
        text = "\n".join(rr.in_short(ENTRY, 8, fsf, {}, pooled=pooled))
        self.assertIn("Over both sets of openings (800 games a row; queenside only -50 [-73, -27], kingside only"
                      " -110 [-134, -86]), barring the queenside costs 60 [", text)
        self.assertIn("(the first set alone +46 [-1, +93], the second +74 [", text)
        self.assertIn("and it is still resolved (z = ", text)
        self.assertIn("the advice holds as a preference, not as a rule.", text)
        self.assertNotIn("not told apart", text)
        # Resolved at 95% but not past the bound for two looks.
        pooled["queenside-only"] = ((-75, -98, -52), 800, (-70, -103, -37))
        text = "\n".join(rr.in_short(ENTRY, 8, fsf, {}, pooled=pooled))
        self.assertIn("barring the queenside costs 35 [", text)
        self.assertIn("and it is not resolved (z = 2.0", text)
        self.assertNotIn("as a preference", text)

    def test_a_row_that_stood_out_is_not_pooled(self):
        row = "| hawk-first | `gate_first=H` | 55.5% | +38 [+8, +70] | 185-74-141 | none: one game an opening | 400 of 400 |"
        with tempfile.TemporaryDirectory() as d:
            a = os.path.join(d, "a.md")
            write(a, "\n".join(self.HEAD + [row]) + "\n")
            md = []
            rows, pooled = rr.restriction_check(md.append, md, a, a, "A row that stood out", pool=False)
        self.assertEqual((rows, pooled), ({"hawk-first": (38, 8, 70)}, {}))
        self.assertNotIn("pooled", "\n".join(md))


@unittest.skipUnless(os.environ.get("SZERO_BIN"), "needs SZERO_BIN (scripts/test sets it)")
class RestrictionsScript(unittest.TestCase):
    """scripts/gating-restrictions end to end, on a tiny search and a few games a row."""

    def run_script(self, out, *args):
        """(the table's rows, the openings, the text) of a run writing to `out`."""
        import subprocess
        subprocess.run([os.path.join(ROOT, "scripts", "gating-restrictions"), "--subject", "mcts-material:nodes=4",
                        "--label", "a tiny search", "--games", "4", "--out", out, *args],
                       check=True, capture_output=True, cwd=ROOT)
        with open(out + ".md") as f:
            text = f.read()
        with open(os.path.join(out, "openings.epd")) as f:
            openings = [o for o in f.read().split("\n") if o]
        return [ln for ln in text.splitlines() if ln.startswith("| ") and "`" in ln], openings, text

    def test_each_opening_is_played_once_by_default(self):
        with tempfile.TemporaryDirectory() as d:
            table, openings, _ = self.run_script(os.path.join(d, "r"))
        self.assertEqual(len(table), 8)
        self.assertEqual(len(openings), 4)
        for row in table:
            self.assertIn("| none: one game an opening | ", row)
            self.assertTrue(row.endswith(" of 4 |"), row)

    def test_paired_plays_each_opening_with_both_colours_and_a_kept_row_says_how_it_was_played(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r")
            table, openings, text = self.run_script(out, "--paired")
            self.assertEqual(len(openings), 2)
            for row in table:
                self.assertRegex(row, r"\| \[\d+, \d+, \d+, \d+, \d+\] \| \d of 4 \|$")
            self.assertIn("from pentanomial counts", text)
            os.remove(os.path.join(out, "never.json"))
            table, _, text = self.run_script(out)
        text = " ".join(text.split())
        self.assertIn("| none: one game an opening | ", table[0])
        self.assertIn("The row never played each opening once", text)
        self.assertIn("The rows no-castle-gate, elephant-first, hawk-first, queenside-only, kingside-only, "
                      "not-before-move-10, not-before-move-20 were played with `--paired`", text)

if __name__ == "__main__":
    unittest.main()

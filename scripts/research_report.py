"""Assembles docs/research/README.md, the gating research report, from the studies' outputs.

Each study has its own script and output (see scripts/research-report); this reads them and
writes one Markdown page (with --check: only says whether the committed page is that page,
as scripts/test does, so the page and its script cannot drift apart unseen) that answers the seeds' questions with numbers and 95% intervals,
and says what each answer rests on: the engine, its rating on szero's scale, and how many
distinct games.
"""

import csv
import gzip
import itertools
import json
import math
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
Z = 1.959964


def path(*p):
    return os.path.join(ROOT, *p)


def read_text(f):
    """A file's whole text, closed at once."""
    with open(f) as h:
        return h.read()


def read_json(f):
    """A JSON file's value, closed at once."""
    with open(f) as h:
        return json.load(h)


def rows(*p):
    with open(path(*p), newline="") as f:
        return list(csv.DictReader(f))


def score_se(w, d, l):
    """Mean score and its standard error from independent games' W/D/L (trinomial)."""
    n = w + d + l
    if n == 0:
        return float("nan"), float("nan")
    mu = (w + 0.5 * d) / n
    var = (w * (1 - mu) ** 2 + d * (0.5 - mu) ** 2 + l * mu**2) / n
    return mu, math.sqrt(var / n)


def score_interval(w, d, l):
    """Mean score and its 95% interval from independent games' W/D/L (trinomial)."""
    mu, se = score_se(w, d, l)
    return mu, max(0.0, mu - Z * se), min(1.0, mu + Z * se)


def share_se(p, n):
    """The standard error of a share p of n independent trials."""
    return math.sqrt(p * (1 - p) / n)


def points(d, half):
    """A difference of shares, in percentage points, with its 95% interval (d +- half)."""
    return span(*bounds(d, half))


def bounds(d, half):
    """An estimate with its interval d +- half as (d, low, high)."""
    return d, d - half, d + half


def span(d, lo, hi):
    """A difference of shares, in percentage points, with its 95% interval [lo, hi], cut to
    the differences shares can have (-100 to +100 points): a mean over two seeds that
    disagree has a Student's t interval far wider than that."""
    return f"{100 * d:+.1f} [{max(-100.0, 100 * lo):+.1f}, {min(100.0, 100 * hi):+.1f}]"


def score_elo(r):
    """A match's score and Elo with its 95% interval (`szero match --json` output `r`)."""
    return f"{100 * r['score']:.1f}%, {r['elo']['elo']:+.0f} [{r['elo']['elo_lo']:+.0f}, {r['elo']['elo_hi']:+.0f}]"


def match_result(f):
    """A match's score and Elo (`score_elo`) from its JSON file `f`, with the distinct games of
    its PGN beside it (`X.json`, `X.pgn.gz`) where that was kept."""
    text = score_elo(read_json(f))
    pgn = f[: -len(".json")] + ".pgn.gz"
    if os.path.exists(pgn):
        n, total = distinct_games(pgn)
        text += f" ({n} of {total} distinct)"
    return text


def share_interval(k, n):
    """Wilson 95% interval of a share."""
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    p = k / n
    den = 1 + Z**2 / n
    mid = (p + Z**2 / (2 * n)) / den
    half = Z * math.sqrt(p * (1 - p) / n + Z**2 / (4 * n * n)) / den
    return p, mid - half, mid + half


def never_entered_table(add, a, b):
    """Two sets of sides side by side, each (name, its gating report's folder): how often
    each never entered a piece and how late the others entered it, each difference with its
    95% interval."""
    (an, ad), (bn, bd) = a, b
    add(f"| piece | never entered, {an} | never entered, {bn} | difference, points [95%] "
        f"| mean entry move, {an} | {bn} | difference, moves [95%] | median entry move (interquartile), {an} | {bn} |")
    add("|---|---|---|---|---|---|---|---|---|")
    out = {}
    entries = [{r["piece"]: r for r in rows(d, "entry.csv") if r["side"] == "both"} for d in (ad, bd)]
    for p, name in (("E", "Elephant"), ("H", "Hawk")):
        x, y = (e[p] for e in entries)
        (kx, nx), (ky, ny) = ((int(r["held"]) - int(r["entered"]), int(r["held"])) for r in (x, y))
        (mx, sx), (my, sy) = (entry_move_mean(d, p) for d in (ad, bd))
        half = Z * math.hypot(sx, sy)
        add(f"| {name} | {pct(share_interval(kx, nx))} | {pct(share_interval(ky, ny))} | {share_difference(kx, nx, ky, ny)} | "
            f"{mx:.1f} | {my:.1f} | {mx - my:+.1f} [{mx - my - half:+.1f}, {mx - my + half:+.1f}] | "
            f"{x['median']} ({x['p25']}-{x['p75']}) | {y['median']} ({y['p25']}-{y['p75']}) |")
        out[p] = (kx / nx, ky / ny, mx - my, half)
    add("")
    return out


def share_difference(kx, nx, ky, ny):
    """kx/nx - ky/ny in percentage points with Newcombe's 95% interval."""
    return span(*newcombe(kx, nx, ky, ny))


def newcombe(kx, nx, ky, ny):
    """kx/nx - ky/ny with Newcombe's 95% interval (from the two Wilson intervals), as
    (difference, low, high): unlike the normal one it does not shrink to nothing when both
    are 0."""
    (px, lx, ux), (py, ly, uy) = share_interval(kx, nx), share_interval(ky, ny)
    return px - py, px - py - math.hypot(px - lx, uy - py), px - py + math.hypot(ux - px, py - ly)


def entry_move_mean(report, piece):
    """The mean move at which a report's sides entered `piece` (those that did), with its
    standard error, from the report's entries-by-move histogram (entry_moves.csv)."""
    counts = [(int(r["move"]), int(r[f"{piece} white"]) + int(r[f"{piece} black"])) for r in rows(report, "entry_moves.csv")]
    n = sum(c for _, c in counts)
    mean = sum(m * c for m, c in counts) / n
    var = sum(c * (m - mean) ** 2 for m, c in counts) / (n - 1)
    return mean, math.sqrt(var / n)


ENTRY_RULES = ("seirawan", "seirawan-forced", "seirawan-placement")
ENTRY_RULES_DIR = ("docs", "research", "entry-rules")
# Seeds the issue asks of each rule (item 5).
ENTRY_RULES_SEEDS = 3


def entry_rules_runs():
    """The runs of `scripts/entry-rules` made so far, read once for every section that uses
    them: (the study's settings, {(rule, seed): the run's name}), or None before the study
    began. A run counts once both its row (`<rule>-s<seed>.json`) and its gating report's
    generations.csv are there: a run still learning or being reported on is left out."""
    d = path(*ENTRY_RULES_DIR)
    if not os.path.isfile(os.path.join(d, "study.json")):
        return None
    runs = {}
    for f in os.listdir(d):
        run = entry_rule_run(f[:-5]) if f.endswith(".json") else None
        if run and os.path.isfile(os.path.join(d, f[:-5], "generations.csv")):
            runs[run] = f[:-5]
    return read_json(os.path.join(d, "study.json")), runs


def entry_rule_run(name):
    """(rule, seed) of an entry-rules run named `<rule>-s<seed>`; None for any other name."""
    m = re.fullmatch(r"([a-z-]+)-s(\d+)", name)
    return (m[1], int(m[2])) if m and m[1] in ENTRY_RULES else None


def seed_differences(counts):
    """Each pair of runs' difference in a share: `counts` {seed: (k, n)}, k of n sides;
    [(seed a, seed b, b's share minus a's, the half-width of its 95% interval)], a < b.
    The runs' games are independent, so their variances add."""
    out = []
    for a, b in itertools.combinations(sorted(counts), 2):
        (ka, na), (kb, nb) = counts[a], counts[b]
        pa, pb = ka / na, kb / nb
        out.append((a, b, pb - pa, Z * math.hypot(share_se(pa, na), share_se(pb, nb))))
    return out


def seeds_differ(counts):
    """Whether runs' shares ({seed: (k, n)}) differ measurably: some pair's difference has
    an interval that excludes zero (the difference's interval, not whether the two shares'
    intervals meet)."""
    return any(abs(d) > half for *_, d, half in seed_differences(counts))


def learned_habit(add):
    """How often szero's own self-play leaves the pieces in hand once it has learned a while:
    the standard rule's runs of `scripts/entry-rules`, over their last third. Returns
    {seed: (sides that never entered the Elephant, sides)}, empty without runs."""
    study = entry_rules_runs()
    runs = [n for (rule, _), n in sorted(study[1].items(), key=lambda x: x[0][1]) if rule == "seirawan"] if study else []
    if not runs:
        return {}
    d, steps = path(*ENTRY_RULES_DIR), study[0]["steps"]
    parts, stranded = [], {}
    for name in runs:
        seed = int(name.rsplit("-s", 1)[1])
        late, n, mean = late_generations(rows(*ENTRY_RULES_DIR, name, "generations.csv"))
        e, h = 1 - mean("E entered"), 1 - mean("H entered")
        stranded[seed] = (round(e * 2 * n), 2 * n)
        part = (f"seed {seed}: the Elephant {pct(share_interval(*stranded[seed]))}, "
                f"the Hawk {pct(share_interval(round(h * 2 * n), 2 * n))} of {2 * n:,} sides (generations {late})")
        probe = os.path.join(d, name, "value_by_via.csv")
        if os.path.exists(probe):
            # The final network's value of each gate against the same move without it, pooled
            # over the pieces the gate follows (each row a mean with its standard error).
            gaps, probed = [], rows(probe)
            for piece in ("E", "H"):
                r = [x for x in probed if x["piece"] == piece and int(x["n"]) > 0]
                total = sum(int(x["n"]) for x in r)
                mean = sum(int(x["n"]) * float(x["v(gate) - v(twin)"]) for x in r) / total
                se = math.sqrt(sum((int(x["n"]) * float(x["std err"])) ** 2 for x in r)) / total
                gaps.append(f"{piece} {mean:+.3f} [{mean - Z * se:+.3f}, {mean + Z * se:+.3f}]")
            part += f"; its final network values a gate against the same move without it at {', '.join(gaps)}"
        parts.append(part)
    if seeds_differ(stranded):
        add("Whether szero's own self-play learns the habit from zero depends on the run: its seeds differ")
        add("measurably (a seed changes what a run learns, so the comparisons below are made within a seed and")
        add("then over the seeds). The standard rule's runs of")
    else:
        add("szero's own self-play learns the habit from zero. The standard rule's runs of")
    add(f"`scripts/entry-rules` ({steps:,} trainer steps with `configs/default.toml`) leave a piece in hand for good")
    add("in these shares of sides over the last third of their generations, and their final networks'")
    add("value heads (expected score, -1 to 1, on the probe's positions) rate the gates so")
    add(f"(`docs/research/entry-rules/`): {'; '.join(parts)}.")
    add("")
    return stranded


def habit_line(habit):
    """The summary's line on szero's own habit: the standard rule's runs' shares of sides
    that never enter the Elephant (`learned_habit`), and each pair of seeds' difference."""
    head = "szero's own habit depends on the run." if seeds_differ(habit) else "szero's own habit."
    shares = ", ".join(f"{pct(share_interval(*t))} (seed {sd})" for sd, t in sorted(habit.items()))
    pairs = "; ".join(f"seed {b} minus seed {a}: {points(d, half)} points"
                      for a, b, d, half in seed_differences(habit))
    return (f"- **{head}** Learning the standard rule from zero with `configs/default.toml`, the sides that"
            f" never enter the Elephant over the last third of each run: {shares}; {pairs}"
            " (below: when the hand pieces come in).")


def head_to_head(add):
    """szero and Fairy-Stockfish at about the same strength, in the same games
    (`scripts/gating-head-to-head`): each player's sides, from its own gating report."""
    d = path("docs", "research", "head-to-head")
    if not all(os.path.exists(os.path.join(d, who, "entry.csv")) for who in ("szero", "fairy-stockfish")):
        return
    v = rows("docs", "research", "head-to-head", "szero", "variants.csv")[0]
    with gzip.open(os.path.join(d, "games.pgn.gz"), "rt") as f:
        first = f.read(2000)
    names = sorted(re.findall(r'\[(?:White|Black) "([^"]+)"\]', first)[:2], key=lambda n: not n.startswith("szero"))
    m = os.path.join(d, "match.json")
    result = f"; {names[0]} scored {score_elo(read_json(m))}" if os.path.exists(m) else ""
    rated = ", rated between depths 8 and 9 above" if names[0] == "szero-1000ms" else ""
    add(f"At about the same strength: szero's default play mode ({names[0]}{rated})")
    add(f"against {names[1]}, {int(v['games']):,} games ({int(v['distinct']):,} distinct), random 6-ply openings")
    add(f"each played with both colours{result}. Each player's sides in the same games")
    add("(`scripts/gating-head-to-head`, `docs/research/head-to-head/`; `szero gating-report --player`):")
    add("")
    t = never_entered_table(add, ("szero", os.path.join(d, "szero")),
                            ("Fairy-Stockfish", os.path.join(d, "fairy-stockfish")))
    add("The two players' sides share their games, so they are not independent samples; the intervals treat")
    add("them as if they were.")
    add("")
    never = lambda i: ", ".join(f"{piece} {100 * t[k][i]:.1f}%" for k, piece in (("E", "Elephant"), ("H", "Hawk")))
    later = "; ".join(f"the {piece} {t[k][2]:+.1f} moves [{t[k][2] - t[k][3]:+.1f}, {t[k][2] + t[k][3]:+.1f}]"
                      for k, piece in (("E", "Elephant"), ("H", "Hawk")))
    add(f"Sides that never entered a piece here: szero {never(0)}; Fairy-Stockfish {never(1)}. The 10,000-node")
    add("games above differ in three ways at once (a shallower search, no network at the root, szero as its own")
    add("opponent), so these games do not say which of them makes the difference. szero's mean entry move")
    add(f"against Fairy-Stockfish's in the same games: {later}.")
    add("")


def distinct_games(pgn):
    """(distinct games, games) of a gzipped PGN: distinct move sequences from their start
    position (the FEN tag), other tags, comments and results aside. A deterministic pair
    replays a colour-swapped game move for move; two openings that both lose to one mate
    are two games."""
    with gzip.open(pgn, "rt") as f:
        text = f.read()
    games = re.split(r"\n\n(?=\[)", text.strip())
    seqs = set()
    for g in games:
        fen = re.search(r'^\[FEN "([^"]*)"\]', g, re.M)
        body = "\n".join(ln for ln in g.splitlines() if not ln.startswith("["))
        body = re.sub(r"\{[^}]*\}", "", body)
        seqs.add((fen and fen.group(1), " ".join(t for t in body.split() if not re.match(r"^\d+\.+$", t))))
    return len(seqs), len(games)


def match_cells(d, pgn):
    """A match's table cells (`szero match --json` output `d`, its games in `pgn`): score,
    Elo [95%] (pentanomial, or trinomial where each opening was played once), W-D-L,
    pentanomial, distinct games."""
    e, w = d["elo"], d["wdl"]
    n, total = distinct_games(pgn)
    pairs = d["pentanomial"] if d["pentanomial"] is not None else "none: one game an opening"
    return (f"{100 * d['score']:.1f}% | {e['elo']:+.0f} [{e['elo_lo']:+.0f}, {e['elo_hi']:+.0f}] | "
            f"{w['wins']}-{w['draws']}-{w['losses']} | {pairs} | {n} of {total}")


def pair_score_se(pentanomial):
    """A paired match's mean score and its standard error, the colour-swapped pair as the
    unit (`pentanomial`: pairs scoring 0, 1/2, 1, 3/2 and 2 points)."""
    n = sum(pentanomial)
    mu = sum(k * c for k, c in enumerate(pentanomial)) / (4 * n)
    var = sum(c * (k / 4 - mu) ** 2 for k, c in enumerate(pentanomial)) / n
    return mu, math.sqrt(var / n)


# The ladder's rungs above material greed, weakest first, as `scripts/step-study` names their matches.
LADDER_RUNGS = {"mcts-material": "mcts-material (200 nodes)", "ab-d1": "ab-material depth 1", "ab-d2": "depth 2",
                "ab-d3": "depth 3", "fsf-d1": "Fairy-Stockfish depth 1"}


def ladder_matches(d, v, s):
    """{rung: its match file} of run `v`-s`s` in `d`, for the rungs it has met."""
    files = {r: os.path.join(d, f"{v}-s{s}.ladder-{r}.json") for r in LADDER_RUNGS}
    return {r: f for r, f in files.items() if os.path.exists(f)}


def network_kept(d, v, s):
    """Whether run `v`-s`s`'s network is kept in `d` (`scripts/step-study`): only then can it
    meet the ladder."""
    return os.path.exists(os.path.join(d, f"{v}-s{s}.safetensors"))


# What each output of a run's that `<run>.relearned` may list is, in the report's words; a
# match against the default (`<variant>-s<seed>.h2h.json`) is named for the variant, or as
# "match against the default" in the variant's own marker.
FIRST_RUN_OUTPUTS = {"/": "self-play rows", ".greedy.json": "match against greed", ".piece-values.json": "piece values"}


def relearned_runs(d, runs):
    """{(variant, seed): [what of it is the first run's]} for each run in `d` learned again
    (`scripts/step-study` leaves `<run>.relearned`, listing the outputs an earlier run of the
    same config and seed had made; the default's lists the variants' matches against it):
    its other matches are the second run's."""
    again = {}
    for v, s in runs:
        marker = os.path.join(d, f"{v}-s{s}.relearned")
        if not os.path.exists(marker):
            continue
        with open(marker) as f:
            listed = [ln.strip() for ln in f.readlines()[1:] if ln.strip()]
        first = [FIRST_RUN_OUTPUTS[o] for o in FIRST_RUN_OUTPUTS if f"{v}-s{s}{o}" in listed]
        for name in listed:
            m = re.fullmatch(rf"(.+)-s{re.escape(s)}\.h2h\.json", name)
            if m:
                first.append("match against the default" if m.group(1) == v else f"match against {m.group(1)}")
        again[(v, s)] = first
    return again


def ladder_tables(add, d, runs):
    """Each run's kept network against `szero ladder`'s rungs (`<run>.ladder-<rung>.json`
    in `d`), then each variant minus the default of its seed, rung by rung, in points of
    score: the two matches are independent, so their variances add, and each variant's mean
    over two seeds or more. Nothing when no run has met a rung yet. Returns {variant: (its
    seeds, {rung: its mean difference (d, low, high)})}."""
    have = {(v, s): ladder_matches(d, v, s) for v, s in runs}
    if not any(have.values()):
        return {}
    add("On the ladder: each network at 200 playouts (Gumbel root) against fixed players above material greed,")
    add("weakest first: `mcts-material`, szero's material-only alpha-beta with quiescence (`ab-material`, the")
    add("control of its play mode) at depths 1 to 3, and Fairy-Stockfish depth 1; its score, Elo [95%] and")
    add("distinct games of each match (`scripts/step-study` plays them wherever the run's network was kept):")
    add("")
    add("| variant | seed | " + " | ".join(LADDER_RUNGS.values()) + " |")
    add("|---|---|" + "---|" * len(LADDER_RUNGS))
    for (v, s), fs in have.items():
        # A run whose network was not kept never meets the ladder: "Not answered yet" names it.
        if not fs:
            if network_kept(d, v, s):
                add(f"| {v} | {s} | not measured yet |" + " |" * (len(LADDER_RUNGS) - 1))
            continue
        cells = [match_result(fs[r]) if r in fs else "not measured yet" for r in LADDER_RUNGS]
        add(f"| {v} | {s} | " + " | ".join(cells) + " |")
    add("")
    pairs = [(v, s) for v, s in have if v != "default" and have[(v, s)] and have.get(("default", s))]
    if not pairs:
        return {}
    add("Each variant's score minus the default's of its seed against the same rung (percentage points, 95%")
    add("interval, the colour-swapped pair as the unit); where a variant met a rung in two seeds or more, the")
    add("mean over its seeds last, its interval the wider of the games' and the seeds' spread (Student's t):")
    add("")
    add("| variant | seed | " + " | ".join(LADDER_RUNGS.values()) + " |")
    add("|---|---|" + "---|" * len(LADDER_RUNGS))
    per_seed = {}  # (variant, rung): [(difference, its standard error)] a seed
    means = {}  # variant: (its seeds, {rung: its mean over them (d, low, high)})
    for v, s in pairs:
        cells = []
        for r in LADDER_RUNGS:
            a, b = have[(v, s)].get(r), have[("default", s)].get(r)
            if not (a and b):
                cells.append("-")
                continue
            (ma, sa), (mb, sb) = (pair_score_se(read_json(f)["pentanomial"]) for f in (a, b))
            per_seed.setdefault((v, r), []).append((ma - mb, math.hypot(sa, sb)))
            cells.append(points(ma - mb, Z * math.hypot(sa, sb)))
        add(f"| {v} | {s} | " + " | ".join(cells) + " |")
    for v in dict.fromkeys(v for v, _ in pairs):
        seeds = {r: per_seed.get((v, r), []) for r in LADDER_RUNGS}
        k = max(len(x) for x in seeds.values())
        if k >= 2:
            # A rung met in fewer of the variant's seeds than the others has no mean.
            cells = [points(*seed_mean(x)) if len(x) == k else "-" for x in seeds.values()]
            add(f"| {v} | mean of {k} | " + " | ".join(cells) + " |")
            means[v] = (k, {r: bounds(*seed_mean(x)) for r, x in seeds.items() if len(x) == k})
    add("")
    for v, (k, m) in means.items():
        add(f"Over its {k} seeds, {v} scores {ladder_words(m)}.")
        add("")
    return means


def ladder_words(means):
    """What a variant's mean differences from the default over its seeds, {rung: (d, low,
    high)} in shares, say in words: the rungs where it is measurably apart, or none."""
    def rung(r):
        return ("ab-material " if LADDER_RUNGS[r].startswith("depth") else "") + LADDER_RUNGS[r]
    moved = [f"{'higher' if side(*e[1:]) > 0 else 'lower'} against {rung(r)} ({span(*e)} points)"
             for r, e in means.items() if side(*e[1:]) != 0]
    if not moved:
        return "not measurably different from the default on any rung"
    return f"measurably {'; '.join(moved)} than the default; on the other rungs the two are not told apart"


def pct(t):
    p, lo, hi = t
    return f"{100 * p:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def elo(score):
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400 * math.log10(1 / score - 1)


def entry_rules_tables(add, study):
    """The three entry rules side by side from `docs/<study>/all/` (a gating report over the
    rules' PGNs), then each alternative rule's difference from the standard one with its 95%
    interval (the two rules' games are independent, so their variances add)."""
    # variants_compared.csv repeats its "95% low"/"95% high" headers: read by position.
    with open(path("docs", study, "all", "variants_compared.csv"), newline="") as f:
        table = list(csv.reader(f))
    col = {name: i for i, name in reversed(list(enumerate(table[0])))}
    vd = {r["variant"]: r for r in rows("docs", study, "all", "variants.csv")}
    add("| rule | games (distinct) | white score [95%] | draws | E / H never entered | median entry move E / H |")
    add("|---|---|---|---|---|---|")
    stats = {}
    for r in table[1:]:
        v, ws = r[0], col["white score"]
        num = lambda name: float(r[col[name]])
        games = int(r[col["games"]])
        stats[v] = {
            "games": games,
            "white": (num("white score"), (float(r[ws + 2]) - float(r[ws + 1])) / (2 * Z)),
            "draws": (num("draw share"), games),
            "E never": (num("E never share"), 2 * games),
            "H never": (num("H never share"), 2 * games),
        }
        add(f"| {v} | {games} ({vd[v]['distinct']}) | {100 * num('white score'):.1f}% "
            f"[{100 * float(r[ws + 1]):.1f}, {100 * float(r[ws + 2]):.1f}] | {100 * num('draw share'):.1f}% | "
            f"{100 * num('E never share'):.1f}% / {100 * num('H never share'):.1f}% | "
            f"{r[col['E median entry move']]} / {r[col['H median entry move']]} |")
    add("")
    base = stats.get("seirawan")
    others = [v for v in stats if v != "seirawan"]
    if base is None or not others:
        return
    add("Each alternative rule minus the standard one (percentage points, 95% interval):")
    add("")
    add("| rule | white score | draws | E never entered | H never entered |")
    add("|---|---|---|---|---|")

    def diff(a, b, key):
        if key == "white":
            (pa, sa), (pb, sb) = a[key], b[key]
        else:
            (pa, na), (pb, nb) = a[key], b[key]
            sa, sb = share_se(pa, na), share_se(pb, nb)
        return points(pa - pb, Z * math.hypot(sa, sb))

    measurable = []
    for v in others:
        a = stats[v]
        add(f"| {v} | " + " | ".join(diff(a, base, k) for k in ("white", "draws", "E never", "H never")) + " |")
        (pa, sa), (pb, sb) = a["white"], base["white"]
        if abs(pa - pb) > Z * math.sqrt(sa * sa + sb * sb):
            measurable.append(v)
    add("")
    add("White's score: " + (f"{', '.join(measurable)} differs measurably from the standard rule." if measurable
                             else "no alternative rule differs measurably from the standard one (each interval contains zero)."))
    missing = [v for v in ("seirawan-forced", "seirawan-placement") if v not in stats]
    if missing:
        add(f"Not measured here yet: {', '.join(missing)}.")
    add("")


def late_generations(gens):
    """A run's self-play over the last third of its generations (the first are near-random
    play), from its gating report's generations.csv: ("FIRST-LAST", games, mean) where
    mean(column) is the column's mean over those games."""
    last = max(int(g["generation"]) for g in gens)
    late = [g for g in gens if int(g["generation"]) * 3 >= last * 2]
    n = sum(int(g["games"]) for g in late)
    first = min(int(g["generation"]) for g in late)
    return f"{first}-{last}", n, lambda key: sum(float(g[key]) * int(g["games"]) for g in late) / n


def late_shares(gens):
    """A run's self-play over the last third of its generations (`late_generations`) as the
    shares the tables compare, each (share, its standard error): White's score, draws and the
    sides that never entered each piece (two sides a game), with the games, the generations
    and the mean entry moves."""
    late, n, mean = late_generations(gens)
    draws = mean("draw share")
    wins = round(n * (mean("white score") - draws / 2))
    ties = round(n * draws)
    return {
        "late": late,
        "games": n,
        "white": score_se(wins, ties, n - wins - ties),
        "draws": (draws, share_se(draws, n)),
        "E never": (1 - mean("E entered"), share_se(1 - mean("E entered"), 2 * n)),
        "H never": (1 - mean("H entered"), share_se(1 - mean("H entered"), 2 * n)),
        "moves": (mean("E mean move"), mean("H mean move")),
    }


# A 2-hour run's budget: the learning curve's 2-hour runs trained 9,412 and 13,077 steps.
TWO_HOURS = 10000
MATERIAL_TERMS = {
    "default": "the default: a piece in hand counts in full while it can enter",
    "hand-entered": "`hand-entered`: a piece in hand counts nothing until it enters",
    "no-human-values": "`no-human-values`: no material head, draws at the length limit",
}


# What each material-term variant asks, and what it is set against: the summary's line opens
# with it (`variant_line`).
VARIANT_QUESTIONS = {
    "hand-entered": ("Does counting a hand piece in full keep it in hand?",
                     "with a piece in hand counted for nothing until it enters (`hand-entered`), against the"
                     " default that counts it in full while it can enter"),
    "no-human-values": ("Do human piece values in the targets shape how it gates?",
                        "with no piece value in any target (`no-human-values`: no material head, draws at the"
                        " length limit), against the default, whose adjudication and material head count human piece values"),
}


def never_differences(never, variant):
    """The sides that never entered each piece, `variant` minus the default of its seed, for
    each seed that has both (`material_terms_at`'s `never`): {piece: ([(seed, (difference,
    low, high))], their mean over the seeds as (mean, low, high), or None under two seeds)}.
    A seed's interval is Newcombe's; the mean's is `seed_mean`'s."""
    pairs = sorted(s for v, s in never if v == variant and ("default", s) in never)
    out = {}
    for p in ("E", "H"):
        by_seed, per_seed = [], []
        for sd in pairs:
            (k, n), (kd, nd) = never[(variant, sd)][p], never[("default", sd)][p]
            by_seed.append((sd, newcombe(k, n, kd, nd)))
            per_seed.append((k / n - kd / nd, math.hypot(share_se(k / n, n), share_se(kd / nd, nd))))
        mean = None
        if len(pairs) >= 2:
            mean = bounds(*seed_mean(per_seed))
        out[p] = (by_seed, mean)
    return out


def variant_line(variant, steps, never, duels, ladder=None):
    """The summary's line on one material-term variant at one budget: for each seed with both
    its run and the default's, the sides that never enter the Elephant in each run's last
    third and their difference, and how the variant's network fared against the default's
    head to head; and, given `ladder` (its seeds, its mean differences: `ladder_tables`), the
    ladder over its seeds. `never` and `duels` are `material_terms_at`'s. None when no seed
    has both."""
    pairs = sorted(s for v, s in never if v == variant and ("default", s) in never)
    if not pairs:
        return None
    parts = []
    for sd in pairs:
        (k, n), (kd, nd) = never[(variant, sd)]["E"], never[("default", sd)]["E"]
        part = f"seed {sd}: {100 * k / n:.1f}% against {100 * kd / nd:.1f}%, {share_difference(k, n, kd, nd)} points"
        for i, duel in enumerate(duels.get((variant, sd), [])):
            e = duel["elo"]
            verdict = ("beat the default's" if e["elo_lo"] > 0 else "lost to the default's" if e["elo_hi"] < 0
                       else "could not be told from the default's")
            part += (f", and its network {verdict} head to head, " if i == 0 else
                     f"; learned a second time, its network {verdict} kept network, ")
            part += f"{e['elo']:+.0f} [{e['elo_lo']:+.0f}, {e['elo_hi']:+.0f}] Elo over {duel['games']} games"
        parts.append(part)
    question, setting = VARIANT_QUESTIONS[variant]
    line = (f"- **{question}** szero learning from zero for {steps:,} steps {setting}: the sides that never"
            f" enter the Elephant in the last third of the run, {'; '.join(parts)}")
    if len(pairs) < 2:
        return line + " (one seed of the two the issue asks for; below: the material terms)."
    # Over the seeds, in points: each piece's sides that never entered it, as the entry
    # rules' line words a difference over seeds.
    diffs = never_differences(never, variant)
    over = [over_seeds(what, *diffs[p])[0] for p, what in
            (("E", "the sides that never enter the Elephant"), ("H", "the Hawk"))]
    line += f". Over the {len(pairs)} seeds, in points: {'; '.join(over)}"
    if ladder:
        line += f". On the ladder, over its {ladder[0]} seeds, its network scores {ladder_words(ladder[1])}"
    return line + " (below: the material terms)."


def material_terms(add):
    """The material-term runs (`scripts/material-terms`), one budget a directory:
    `docs/research/material-terms/` (its default budget) and any `material-terms-*/` (another
    `--steps`), smallest budget first. Returns [`material_terms_at`'s tuple], empty when
    nothing is measured yet."""
    research = path("docs", "research")
    # A budget's directory counts once one of its runs has its gating report (a study that
    # has only begun holds study.json alone).
    dirs = [n for n in os.listdir(research) if re.fullmatch(r"material-terms(-[a-z0-9]+)?", n)
            and os.path.isfile(os.path.join(research, n, "study.json"))
            and any(os.path.isfile(os.path.join(research, n, f"{v}-s{k}", "generations.csv"))
                    for v in MATERIAL_TERMS for k in range(1, 10))]
    dirs.sort(key=lambda n: read_json(os.path.join(research, n, "study.json"))["steps"])
    made = []
    for name in dirs:
        budget = material_terms_at(add, name, first=not made, several=len(dirs) > 1)
        if budget:
            made.append(budget)
    return made


def material_terms_at(add, study, first, several):
    """One budget's material-term runs (`docs/research/STUDY/`): each variant's network against
    the default's of its seed, how each run's self-play brought the pieces in, and what the
    pieces were worth in it. Returns (steps, "1,200 trainer steps" and what is missing,
    {(variant, seed): {piece: (sides that never entered it, sides)}} over each run's last
    third, {(variant, seed): [its match against the default's, `szero match --json`, then any
    match of a second run of it, `<run>.h2h-again.json`]}, the
    ladder's means over seeds (`ladder_tables`)), or None when nothing of it is measured yet."""
    d = path("docs", "research", study)
    names = sorted(n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n, "generations.csv")))
    runs = [(n.rsplit("-s", 1)[0], n.rsplit("-s", 1)[1]) for n in names]
    # By seed, then in MATERIAL_TERMS' order: every table lists the runs alike.
    runs = sorted(((v, s) for v, s in runs if v in MATERIAL_TERMS), key=lambda r: (r[1], list(MATERIAL_TERMS).index(r[0])))
    if not runs:
        return None
    meta = read_json(os.path.join(d, "study.json"))
    budget = f"{meta['steps']:,} trainer steps"
    if first:
        add("## Do the material terms change how szero learns to gate?")
        add("")
    if several:
        add(f"### At {budget} a run (`docs/research/{study}/`)")
        add("")
    add(f"Each configuration learned from zero for {budget} a seed ({meta['samples']:,} samples trained, a")
    add("budget the machine's load does not change), otherwise as `configs/default.toml`:")
    for v, what in MATERIAL_TERMS.items():
        add(f"- {what}")
    add(f"Networks play at 200 playouts (Gumbel root), {meta['games']} games a match, random 6-ply openings each")
    where = "" if study == "material-terms" else f"--steps {meta['steps']} --out docs/research/{study} "
    made = f"`scripts/material-terms {where}{' '.join(sorted({s for _, s in runs}))}`"
    if os.path.exists(os.path.join(d, "README.md")):
        made += (f" (`docs/research/{study}/README.md` says how it was made)" if not where else
                 f" and the options `docs/research/{study}/README.md` gives")
    add(f"played with both colours; {made}.")
    add("")
    add("| variant | seed | against the default of its seed: score | Elo [95%] | W-D-L | pentanomial | distinct games | against greedy |")
    add("|---|---|---|---|---|---|---|---|")
    duels, again = {}, {}
    for v, s in runs:
        name = f"{v}-s{s}"
        h2h, greedy = os.path.join(d, f"{name}.h2h.json"), os.path.join(d, f"{name}.greedy.json")
        if v == "default":
            cells = "- | - | - | - | -"
        elif os.path.exists(h2h):
            duels[(v, s)] = [read_json(h2h)]
            cells = match_cells(duels[(v, s)][0], os.path.join(d, f"{name}.h2h.pgn.gz"))
        else:
            cells = "not measured yet | | | |"
        g = "not measured yet"
        if os.path.exists(greedy):
            g = match_result(greedy)
        add(f"| {v} | {s} | {cells} | {g} |")
        if os.path.exists(os.path.join(d, f"{name}.h2h-again.json")):
            again[(v, s)] = read_json(os.path.join(d, f"{name}.h2h-again.json"))
            duels.setdefault((v, s), []).append(again[(v, s)])
    add("")
    for (v, s), first in relearned_runs(d, runs).items():
        listed = " and ".join([", ".join(first[:-1]), first[-1]] if len(first) > 1 else first)
        mine = f"; the first run made its {listed}" if first else ""
        who = "The default" if v == "default" else f"The `{v}` run"
        add(f"{who} of seed {s} was learned a second time (same configuration and seed), because the first run's")
        add(f"network was not kept{mine}; its other matches are the second run's (`{v}-s{s}.relearned`).")
        add("")
    if again:
        add("A run learned a second time met the default's kept network of its seed once more (`<run>.h2h-again.json`,")
        add("`scripts/step-study --relearn`): the same question on other realisations of the two configurations:")
        add("")
        add("| variant | seed | against the default of its seed: score | Elo [95%] | W-D-L | pentanomial | distinct games |")
        add("|---|---|---|---|---|---|---|")
        for (v, s), duel in again.items():
            add(f"| {v} | {s} | {match_cells(duel, os.path.join(d, f'{v}-s{s}.h2h-again.pgn.gz'))} |")
        add("")
    ladder = ladder_tables(add, d, runs)
    add("When the pieces entered in each run's self-play, over its last third of generations (the first are")
    add("near-random play); shares of sides with their 95% intervals:")
    add("")
    add("| variant | seed | games | of them distinct, all generations | E entered | H entered | E mean entry move"
        " | H mean entry move | sides with neither entered |")
    add("|---|---|---|---|---|---|---|---|---|")
    never = {}
    for v, s in runs:
        late, n, w = late_generations(rows("docs", "research", study, f"{v}-s{s}", "generations.csv"))
        sides = 2 * n
        never[(v, s)] = {p: (round((1 - w(f"{p} entered")) * sides), sides) for p in ("E", "H")}
        every = rows("docs", "research", study, f"{v}-s{s}", "variants.csv")[0]
        add(f"| {v} | {s} | {n} (generations {late}) | {int(every['distinct']):,} of {int(every['games']):,} | "
            f"{pct(share_interval(round(w('E entered') * sides), sides))} | "
            f"{pct(share_interval(round(w('H entered') * sides), sides))} | "
            f"{w('E mean move'):.1f} | {w('H mean move'):.1f} | {100 * w('neither'):.1f}% |")
    add("")
    pairs = [(v, s) for v, s in runs if v != "default" and ("default", s) in never]
    if pairs:
        # The question for these runs: does a hand piece stay in hand because the
        # default's targets count it in full while it can still enter?
        add("Sides that never entered a piece, each variant minus the default of its seed (percentage points,")
        add("Newcombe's 95% interval from the two runs' last thirds, each side counted as one sample):")
        add("")
        add("| variant | seed | E never entered | minus the default's | H never entered | minus the default's |")
        add("|---|---|---|---|---|---|")
        for v, s in pairs:
            cells = []
            for p in ("E", "H"):
                (k, n), (kd, nd) = never[(v, s)][p], never[("default", s)][p]
                cells += [pct(share_interval(k, n)), share_difference(k, n, kd, nd)]
            add(f"| {v} | {s} | " + " | ".join(cells) + " |")
        # Then each variant's mean over the seeds, where it has two or more.
        means = [(v, never_differences(never, v)) for v in dict.fromkeys(v for v, _ in pairs)]
        means = [(v, diffs) for v, diffs in means if diffs["E"][1]]
        for v, diffs in means:
            add(f"| {v} | mean of {len(diffs['E'][0])} | - | " + " | - | ".join(span(*diffs[p][1]) for p in ("E", "H")) + " |")
        add("")
        if means:
            add("A mean over the seeds has the wider of two intervals: the games' and the seeds' spread (Student's t")
            add("over the seeds), for a seed changes what a run learns.")
            add("")
    add("What the pieces were worth in each run's self-play (`szero piece-values --run`: a logistic fit of")
    add("results on material over all its games, in pawns, with 95% bootstrap intervals):")
    add("")
    pieces = ["N", "B", "R", "Q", "E", "H", "E in hand", "H in hand"]
    add("| variant | seed | " + " | ".join(pieces) + " |")
    add("|---|---|" + "---|" * len(pieces))
    for v, s in runs:
        f = os.path.join(d, f"{v}-s{s}.piece-values.json")
        if not os.path.exists(f):
            add(f"| {v} | {s} | not measured yet |" + " |" * (len(pieces) - 1))
            continue
        vals = {x["feature"]: x for x in read_json(f)["values"]}
        add(f"| {v} | {s} | " + " | ".join(
            f"{vals[p]['pawns']:.2f} [{vals[p]['low']:.2f}, {vals[p]['high']:.2f}]" if p in vals else "-"
            for p in pieces) + " |")
    add("")
    seeds = sorted({s for _, s in runs})
    missing = [f"{v} (seed {s})" for s in seeds for v in MATERIAL_TERMS if (v, s) not in runs]
    if missing:
        budget += "; not run yet: " + ", ".join(missing)
    unladdered = [(v, s) for v, s in runs if not ladder_matches(d, v, s)]
    kept = [f"{v} (seed {s})" for v, s in unladdered if network_kept(d, v, s)]
    lost = [f"{v} (seed {s})" for v, s in unladdered if not network_kept(d, v, s)]
    if kept:
        budget += "; not on the ladder yet: " + ", ".join(kept)
    if lost:
        budget += "; never on the ladder, their networks not kept: " + ", ".join(lost)
    if len(seeds) < 2:
        budget += f"; one seed ({seeds[0]}) of the two the issue asks for"
    return meta["steps"], budget, never, duels, ladder


# Student's t, 97.5% quantile, by degrees of freedom: the spread between a few seeds.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


RULE_KEYS = ("white", "draws", "E never", "H never")


REPLAYS_DIR = ("docs", "research", "replays")


def terminations(text):
    """A gating report's `terminations` cell ("checkmate 10385, repetition 6833") as counts."""
    return {k: int(n) for k, n in (t.rsplit(" ", 1) for t in text.split(", ") if t)}


def replay_rows():
    """[(study, run, row)] for each run whose self-play was also reported over distinct games
    only (`scripts/replays`, `docs/research/replays/STUDY/RUN/`), beside its full report
    (`docs/research/STUDY/RUN/`): the replays (the full report's games less the distinct
    ones), how they ended and how long they were, and the last third's draws and never-entered
    shares over all games and over distinct games alone."""
    top = path(*REPLAYS_DIR)
    out = []
    studies = sorted(n for n in os.listdir(top) if os.path.isdir(os.path.join(top, n))) if os.path.isdir(top) else []
    for study in studies:
        for run in sorted(os.listdir(os.path.join(top, study))):
            full = path("docs", "research", study, run)
            if not os.path.isfile(os.path.join(full, "variants.csv")):
                continue
            a, d = rows(full, "variants.csv")[0], rows(*REPLAYS_DIR, study, run, "variants.csv")[0]
            n, kept = int(a["games"]), int(d["games"])
            ends = terminations(a["terminations"])
            for k, m in terminations(d["terminations"]).items():
                ends[k] -= m
            shares = {"all": late_shares(rows(full, "generations.csv")),
                      "distinct": late_shares(rows(*REPLAYS_DIR, study, run, "generations.csv"))}
            replays = n - kept
            # The reports give mean plies to two decimals: the replays' mean from them is
            # good to a ply only where replays are at least one game in a hundred.
            plies = ((n * float(a["mean plies"]) - kept * float(d["mean plies"])) / replays
                     if replays * 100 >= n else None)
            out.append((study, run, {"games": n, "replays": replays, "ends": {k: v for k, v in ends.items() if v > 0},
                                     "plies": plies, "late": shares}))
    return out


def replays_table(add):
    """Do replayed games sway the self-play tables? Each run with a distinct-games report: its
    replays, the last third's shares over all games and over distinct games alone, and the
    largest shift between the two."""
    made = replay_rows()
    if not made:
        return
    add("### Replays in self-play")
    add("")
    add("A run's self-play replays a game when it finds the same line again. Each game samples its opening moves")
    add("afresh (Gumbel noise at the root for its first plies, `temperature_plies`), so a replay is an independent")
    add("sample of what the network plays, and the tables above count it. Over distinct games alone (`szero gating-report")
    add("--distinct`: each move sequence once, its first game kept) the same shares, over the same last third")
    add("(`scripts/replays`, `docs/research/replays/`; runs whose self-play is no longer on the machine are not")
    add("here):")
    add("")
    add("| study | run | games | replays | how the replays ended | replays' mean plies "
        "| draws: all / distinct | E never: all / distinct | H never: all / distinct |")
    add("|---|---|---|---|---|---|---|---|---|")
    largest = None
    for study, run, r in made:
        ends = ", ".join(f"{k} {v:,}" for k, v in sorted(r["ends"].items(), key=lambda kv: -kv[1])) or "-"
        cells = []
        for key in ("draws", "E never", "H never"):
            a, d = r["late"]["all"][key][0], r["late"]["distinct"][key][0]
            cells.append(f"{100 * a:.1f}% / {100 * d:.1f}%")
            shift = 100 * (d - a)
            if largest is None or abs(shift) > abs(largest[0]):
                largest = (shift, key, f"{study}/{run}")
        plies = "-" if r["plies"] is None else f"{r['plies']:.0f}"
        add(f"| {study} | {run} | {r['games']:,} | {r['replays']:,} | {ends} | {plies} | " + " | ".join(cells) + " |")
    add("")
    many = [(s, run, r) for s, run, r in made if r["replays"] * 50 > r["games"]]
    if many:
        reps = sum(r["replays"] for _, _, r in many)
        rep_draws = sum(r["ends"].get("repetition", 0) for _, _, r in many)
        add(f"Where replays are more than one game in fifty ({', '.join(f'{s}/{run}' for s, run, _ in many)}), "
            f"{rep_draws:,} of their {reps:,}")
        add("replays are draws by repetition: the network found a short line that repeats, and sampled it again")
        add("across generations.")
    add(f"Counting each distinct game once moves a share by at most {abs(largest[0]):.1f} points ({largest[1]},"
        f" {largest[2]}).")
    add("")
    # The entry rules' differences again, where both runs of a seed are here.
    distinct = {}
    for study, run, r in made:
        key = entry_rule_run(run) if study == ENTRY_RULES_DIR[-1] else None
        if key:
            distinct[key] = r["late"]["distinct"]
    diffs = rule_differences(distinct, sorted({s for _, s in distinct}))
    if diffs:
        add("The entry rules' differences from the standard rule (above) over distinct games alone, where both runs")
        add("of a seed are here (percentage points, 95% interval from the two runs' distinct games):")
        rule_differences_table(add, diffs)


def rule_differences(runs, seeds):
    """Each alternative rule minus the standard one, seed by seed, and their mean once two
    seeds have both: {rule: [(seed, {key: (difference, half-width of its 95% interval)})]},
    the mean last as ("mean of K", ...). `runs[(rule, seed)][key]` is (share, its standard
    error). A seed's interval is the two runs' games' (independent, so their variances add);
    the mean's is the wider of the games' and the seeds' spread (Student's t over the
    seeds), for a seed changes what a run learns."""
    out = {}
    for v in ENTRY_RULES[1:]:
        paired = [s for s in seeds if (v, s) in runs and ("seirawan", s) in runs]
        if not paired:
            continue
        per_seed = {k: [] for k in RULE_KEYS}
        rows_of = []
        for s in paired:
            row = {}
            for k in RULE_KEYS:
                (pa, sa), (pb, sb) = runs[(v, s)][k], runs[("seirawan", s)][k]
                per_seed[k].append((pa - pb, math.hypot(sa, sb)))
                row[k] = (pa - pb, Z * math.hypot(sa, sb))
            rows_of.append((s, row))
        n = len(paired)
        if n >= 2:
            rows_of.append((f"mean of {n}", {k: seed_mean(per_seed[k]) for k in RULE_KEYS}))
        out[v] = rows_of
    return out


def rule_differences_table(add, diffs):
    """`rule_differences`' rows as a table, a blank line before and after."""
    add("")
    add("| rule | seed | white score | draws | E never entered | H never entered |")
    add("|---|---|---|---|---|---|")
    for v, rows_of in diffs.items():
        for seed, row in rows_of:
            add(f"| {v} | {seed} | " + " | ".join(points(*row[k]) for k in RULE_KEYS) + " |")
    add("")


def side(lo, hi):
    """+1 or -1 where the interval [lo, hi] lies wholly above or below zero, else 0."""
    return 1 if lo > 0 else -1 if hi < 0 else 0


def seed_mean(per_seed):
    """The mean of one difference over K >= 2 seeds, [(difference, its standard error)] a
    seed, as (mean, half-width of its 95% interval): the wider of the games' spread (the
    seeds' games are independent, so their variances add) and the seeds' (Student's t with
    K - 1 degrees of freedom), for a seed changes what a run learns."""
    n = len(per_seed)
    xs = [x for x, _ in per_seed]
    mean = sum(xs) / n
    spread = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1) / n)
    games = math.sqrt(sum(se * se for _, se in per_seed)) / n
    return mean, max(T975.get(n - 1, Z) * spread, Z * games)


def over_seeds(what, by_seed, mean):
    """One difference over several seeds in words, for the summary: `by_seed` [(seed, (d, lo,
    hi))], `mean` (d, lo, hi) their mean. Returns (the words, whether the mean moved
    measurably and the seeds agree)."""
    signs = [side(lo, hi) for _, (_, lo, hi) in by_seed]
    listed = ", ".join(f"seed {sd} {span(*r)}" for sd, r in by_seed)
    if 1 in signs and -1 in signs:
        # Each seed moved measurably, but not the same way: the mean says nothing.
        return f"{what} opposite ways by seed ({listed})", False
    moved = side(*mean[1:]) != 0
    if not moved and len(by_seed) >= 2 and 0 not in signs:
        # Every seed moved measurably the same way, yet so few seeds spread that far leave
        # the mean's interval across zero: the sign repeats, the size does not.
        way = "up" if signs[0] > 0 else "down"
        return f"{what} {way} in each seed ({listed}), but the mean over the seeds, {span(*mean)}, is not resolved", False
    return f"{what} {span(*mean)}" + ("" if moved else " (no measurable change)"), moved


def learned_rules_line(budget, diffs):
    """The summary's line on the entry rules learnt from zero: each alternative rule against
    the standard one in szero's own self-play, from the mean over its seeds where there are
    two or more, else its one seed; a difference is called a change only where its interval
    excludes zero. None when no rule has a seed paired with the standard rule's."""
    if not diffs:
        return None
    names = {"seirawan-forced": "forced entry", "seirawan-placement": "placement"}
    what = {"white": "White's score", "draws": "draws", "E never": "sides that never enter the Elephant",
            "H never": "the Hawk"}
    parts = []
    changed = False
    for v, rows_of in diffs.items():
        seed, row = rows_of[-1]
        basis = seed if isinstance(seed, str) else f"seed {seed} of {ENTRY_RULES_SEEDS}"
        seeds = [(sd, r) for sd, r in rows_of if not isinstance(sd, str)]
        cells = []
        for k in ("draws", "white", "E never", "H never"):
            words, moved = over_seeds(what[k], [(sd, bounds(*r[k])) for sd, r in seeds], bounds(*row[k]))
            changed |= moved and k in ("white", "draws")
            cells.append(words)
        name = names.get(v, v)
        # A rule is a sentence of its own after the first, its results set apart by
        # semicolons, for a result by seed holds commas of its own.
        name = name[0].upper() + name[1:] if parts else name
        parts.append(f"{name} ({basis}): " + "; ".join(cells))
    head = ("**Learnt from zero, an entry rule changes the game itself.**" if changed
            else "**Learnt from zero.**")
    return (f"- {head} szero learning each rule from zero for {budget}, its self-play over the last third of the"
            " run, against the standard rule's, in percentage points: " + ". ".join(parts) + " (below: the entry rules).")


def entry_rules_learned(add):
    """The entry rules compared by learning (`scripts/entry-rules`, `docs/research/entry-rules/`):
    each (rule, seed) run's self-play over its last third of generations, then each
    alternative rule minus the standard one, seed by seed (the two runs' games are
    independent, so their variances add) and as the mean over the seeds both rules have.
    Returns (the budget, the runs still missing, `rule_differences`), or None when no run is
    measured yet."""
    study = entry_rules_runs()
    if not study:
        return None
    d, (meta, made) = path(*ENTRY_RULES_DIR), study
    runs = {}
    for (rule, seed), name in made.items():
        vd = rows(*ENTRY_RULES_DIR, name, "variants.csv")[0]
        runs[(rule, seed)] = {
            **late_shares(rows(*ENTRY_RULES_DIR, name, "generations.csv")),
            "reached": read_json(os.path.join(d, f"{name}.json")),
            "all": (int(vd["games"]), int(vd["distinct"])),
            "match": os.path.join(d, f"{name}.mcts-material.json"),
        }
    if not runs:
        return None
    budget = f"{meta['steps']:,} trainer steps"
    seeds = sorted({s for _, s in runs})
    add(f"**Learnt from zero**, each rule for {budget} a seed with `configs/default.toml` (a budget of")
    add("samples, so what a run learns does not depend on the machine's load; the minutes are those of this")
    add("2-core machine), every rule's network learning its own rule only. Its self-play over the last third")
    add("of its generations (the first are near-random play); each network also played `mcts-material` (200")
    add(f"playouts each) under its own rule, {meta['games']} games, each opening with both colours;"
        f" `scripts/entry-rules {' '.join(map(str, seeds))}`, `docs/research/entry-rules/`:")
    add("")
    add("| rule | seed | minutes | against mcts-material | self-play games (generations) | of them distinct, all generations "
        "| white score [95%] | draws | E / H never entered | mean entry move E / H |")
    add("|---|---|---|---|---|---|---|---|---|---|")
    for (rule, s), r in sorted(runs.items(), key=lambda x: (x[0][1], ENTRY_RULES.index(x[0][0]))):
        vs = "not measured yet"
        if os.path.exists(r["match"]):
            vs = match_result(r["match"])
        (p, se), (dr, _), (e, _), (h, _) = r["white"], r["draws"], r["E never"], r["H never"]
        add(f"| {rule} | {s} | {r['reached']['minutes']:.0f} | {vs} | {r['games']:,} ({r['late']}) | "
            f"{r['all'][1]:,} of {r['all'][0]:,} | {100 * p:.1f}% [{100 * (p - Z * se):.1f}, {100 * (p + Z * se):.1f}] | "
            f"{100 * dr:.1f}% | {100 * e:.1f}% / {100 * h:.1f}% | {r['moves'][0]:.1f} / {r['moves'][1]:.1f} |")
    add("")
    diffs = rule_differences(runs, seeds)
    if diffs:
        add("Each alternative rule minus the standard one of the same seed (percentage points, 95% interval from")
        add("the two runs' games), and the mean over the seeds measured: its interval is the wider of the games'")
        add("and the seeds' spread (Student's t over the seeds), for a seed changes what a run learns:")
        rule_differences_table(add, diffs)
    missing = [f"{v} (seed {s})" for s in seeds for v in ENTRY_RULES if (v, s) not in runs]
    absent = [str(s) for s in range(1, ENTRY_RULES_SEEDS + 1) if s not in seeds]
    if absent:
        missing.append(f"seed{'s' if len(absent) > 1 else ''} {', '.join(absent)}")
    return budget, missing, diffs


SZERO_NODES = 10000


def table_lines(text):
    """The lines of the Markdown tables in `text` (a restrictions page: one table)."""
    return [ln for ln in text.splitlines() if ln.startswith("|")]


def restriction_table(md, table_path, who):
    """Appends a restrictions table (from `scripts/gating-restrictions`' Markdown) and what
    it resolves to `md`; returns {restriction: (elo, lo, hi)} for the rows measured."""
    table = table_lines(read_text(table_path))
    md.extend(table)
    md.append("")
    costly, unresolved, gains = [], [], []
    costs = restriction_rows(table)
    for r, (e, lo, hi) in costs.items():
        {-1: costly, 0: unresolved, 1: gains}[side(lo, hi)].append(f"{r} ({e:+.0f})")
    distinct = restriction_distinct(table)
    n = games_a_row(distinct) or "the"
    md.append(f"Elo is the restricted side's against the unrestricted {who}: the cost of the barred choice is minus")
    md.append("that. **Costs measurably** (the whole interval below zero): " + (", ".join(costly) or "none") + ".")
    md.append(f"**Not resolved** by {n} games (the interval contains zero): " + (", ".join(unresolved) or "none") + ".")
    if gains:
        md.append(f"**Helps measurably** (the whole interval above zero): {', '.join(gains)}: barred from its own choice,"
                  f" the {who} did better in these games than left free.")
    once = [ln.split("|")[1].strip() for ln in table[2:] if "one game an opening" in ln]
    if once:
        several = len(once) > 1 and len(once) < len(table) - 2
        rows = "Every row" if len(once) == len(table) - 2 else f"The row{'s' * several} {', '.join(once)}"
        md.append(f"{rows} played each opening once, the restricted side White in every other game, and"
                  f" {'their' if several else 'its'}")
        md.append("Elo is trinomial: the subject is deterministic, so wherever the restriction never binds an opening's")
        md.append("colour-swapped game would replay the first move for move.")
    repeated = [f"{r} ({k} of {g})" for r, k, g in distinct if k < g]
    if repeated:
        md.append(f"Fewer distinct games in {', '.join(repeated)}: where the restricted side never meets the")
        md.append("barred choice, the two games of an opening are one game replayed with the colours swapped. Such a pair")
        md.append("scores 1 of 2 and counts once in the pentanomial, which takes the pair as its unit, so it does not")
        md.append("narrow the interval; it is part of what the restriction costs on average.")
    md.append("")
    return costs


def restriction_rows(table):
    """{restriction: (elo, low, high)} of a `scripts/gating-restrictions` table's measured rows."""
    out = {}
    for ln in table[2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        m = re.match(r"([+-]\d+) \[([+-]?[\d.inf]+), ([+-]?[\d.inf]+)\]", cells[3]) if len(cells) > 3 else None
        if m:
            out[cells[0]] = (float(m.group(1)), float(m.group(2)), float(m.group(3)))
    return out


def restriction_wdl(table):
    """{restriction: (W, D, L)} of a `scripts/gating-restrictions` table's measured rows that
    played each opening once: their games are independent, so two such tables on other
    openings pool by adding their counts."""
    out = {}
    for ln in table[2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        m = re.fullmatch(r"(\d+)-(\d+)-(\d+)", cells[4]) if len(cells) > 5 else None
        if m and "one game an opening" in cells[5]:
            out[cells[0]] = tuple(int(x) for x in m.groups())
    return out


def wdl_elo(w, d, l):
    """Elo (elo, low, high) from independent games' W/D/L, its interval the trinomial score's."""
    mu, lo, hi = score_interval(w, d, l)
    return elo(mu), elo(lo), elo(hi)


def restriction_check(add, md, first, check, why, pool=True):
    """Rows of the restrictions table `first` played again on other openings (`check`, a
    `scripts/gating-restrictions --only` table): its table, then, with `pool`, each row
    pooled with the first's where both played each opening once. Returns ({restriction:
    (elo, low, high)} of the check alone, {restriction: ((elo, low, high) pooled, games
    pooled, (elo, low, high) of the check alone)}). No pooling for a row checked because it
    stood out: its first games were picked for being high, so only the check's judge it."""
    text = read_text(check)
    table = table_lines(text)
    seed = re.search(r"--seed (\d+)", text)
    rel = os.path.relpath(check, ROOT)
    add(f"{why}, played again on other openings (seed {seed.group(1) if seed else '?'}, `{rel}`):")
    add("")
    md.extend(table)
    add("")
    checked = restriction_rows(table)
    once = restriction_wdl(table_lines(read_text(first)))
    again = restriction_wdl(table)
    pooled, counts = {}, {}
    for r in (again if pool else {}):
        if r in once and r in checked:
            counts[r] = tuple(a + b for a, b in zip(once[r], again[r]))
            pooled[r] = (wdl_elo(*counts[r]), sum(counts[r]), checked[r])
    if pooled:
        add("Both sets of openings pooled (each opening played once in each, so every game counts; trinomial):")
        add("")
        add("| restriction | games | W-D-L | Elo [95%] |")
        add("|---|---|---|---|")
        for r, (e, n, _) in pooled.items():
            add(f"| {r} | {n} | {'-'.join(map(str, counts[r]))} | {elo_text(e)} |")
        add("")
    return checked, pooled


# Pocock's bound for two equally sized looks at the data at an overall two-sided 5%: a
# difference looked at again because the first look left it unresolved must clear this.
POCOCK_TWO_LOOKS = 2.178


def elo_difference(a, b):
    """`b` minus `a`, two independent Elo estimates (elo, low, high), with a 95% interval from
    theirs taken as normal; None where either interval is open."""
    (x, xlo, xhi), (y, ylo, yhi) = a, b
    if math.inf in (abs(xlo), abs(xhi), abs(ylo), abs(yhi)):
        return None
    se = math.hypot((xhi - xlo) / (2 * Z), (yhi - ylo) / (2 * Z))
    return y - x, y - x - Z * se, y - x + Z * se


def elo_text(e):
    """An Elo estimate (elo, low, high) as "+E [+L, +H]"."""
    return f"{e[0]:+.0f} [{e[1]:+.0f}, {e[2]:+.0f}]"


def games_a_row(rows):
    """The games a row of [(restriction, distinct, games)], e.g. "400" or "200/400"."""
    return "/".join(sorted({str(g) for _, _, g in rows}, key=int))


def restriction_games(rows):
    """What a restrictions table rests on, in words, from its [(restriction, distinct, games)]:
    the games a row and how many of them are distinct."""
    if not rows:
        return "no row measured yet"
    n = games_a_row(rows)
    if all(k == g for _, k, g in rows):
        return f"{n} games a row, all distinct"
    short = [f"{k} in {r}" for r, k, g in rows if k < g]
    return f"{n} games a row, all distinct but {', '.join(short)}, explained below"


def restriction_distinct(table):
    """[(restriction, distinct games, games)] of a `scripts/gating-restrictions` table's lines."""
    out = []
    for ln in table[2:]:
        m = re.search(r"\| (\d+) of (\d+) \|$", ln)
        if ln.startswith("|") and m:
            out.append((ln.split("|")[1].strip(), int(m.group(1)), int(m.group(2))))
    return out


FILES = "abcdefgh"


def queenside(counts):
    """The queenside files' (a-d) share of a piece's entries or placements, {file: count}:
    (share, low, high)."""
    return share_interval(sum(counts[f] for f in FILES[:4]), sum(counts.values()))


def entry_files(add, ref):
    """Where the hand pieces come in, file by file: the reference games' entries, and under
    the placement rule the files szero's self-play assigns them to once it learned that rule
    from zero (the baseline and alpha-beta games open with random placements, so they do not
    choose). Returns the summary's line, or None without the reference's
    by_file.csv."""
    if not os.path.exists(path(ref, "by_file.csv")):
        return None
    fsf = {r["file"]: {"E": int(r["E"]), "H": int(r["H"])} for r in rows(ref, "by_file.csv")}
    count = {p: {f: fsf[f][p] for f in FILES} for p in "EH"}
    add("## On which files do the pieces come in?")
    add("")
    add("The file of each entry in the reference games (shares of the piece's entries, Wilson 95% intervals):")
    add("")
    add("| file | Elephant | Hawk |")
    add("|---|---|---|")
    for f in FILES:
        add(f"| {f} | " + " | ".join(pct(share_interval(count[p][f], sum(count[p].values()))) for p in "EH") + " |")
    qe, qh = queenside(count["E"]), queenside(count["H"])
    knights = {p: share_interval(count[p]["b"] + count[p]["g"], sum(count[p].values())) for p in "EH"}
    add(f"| queenside (a-d) | {pct(qe)} | {pct(qh)} |")
    add("")
    add("The knights' files (b and g) take the most, as the gates behind a knight above say.")
    add("")
    placed = {}  # {"seed N": {piece: {file: placements}}}
    study = entry_rules_runs()
    for (rule, seed), name in sorted(study[1].items(), key=lambda x: x[0][1]) if study else []:
        if rule == "seirawan-placement" and os.path.exists(path(*ENTRY_RULES_DIR, name, "placement_files.csv")):
            t = placed[f"seed {seed}"] = {p: {x: 0 for x in FILES} for p in "EH"}
            for r in rows(*ENTRY_RULES_DIR, name, "placement_files.csv"):
                t[r["piece"]][r["file"]] = int(r["chosen"])
    if placed:
        add("Under the placement rule each side chooses these files at the start, before any board move (four")
        add("placement moves; `schess/CONVENTIONS.md`): the same question asked outright. No engine plays that")
        add("rule, and the baseline and alpha-beta games below open with random placements, so the choices here")
        add("are szero's own, in its self-play while it learned the rule from zero (`scripts/entry-rules`, all")
        add("the run's games, the first generations near-random). Shares of each piece's placements, file by file")
        add("(Wilson 95% intervals, each placement counted as one sample):")
        add("")
        add("| file | " + " | ".join(f"Elephant, {n} | Hawk, {n}" for n in placed) + " |")
        add("|---|" + "---|---|" * len(placed))
        for f in FILES:
            cells = []
            for t in placed.values():
                cells += [pct(share_interval(t[p][f], sum(t[p].values()))) for p in "EH"]
            add(f"| {f} | " + " | ".join(cells) + " |")
        cells = []
        for t in placed.values():
            cells += [pct(queenside(t[p])) for p in "EH"]
        add("| queenside (a-d) | " + " | ".join(cells) + " |")
        add("")
        add("A file takes only one of a side's two pieces, and the king's file never goes with a rook's; a piece")
        add("placed on a file enters when that file's home piece first moves (on e: the king's first move).")
        add("")
    return where_line(qe, qh, knights)


def wing(share):
    """Which wing a queenside share (share, low, high) leans to, read from its interval."""
    if share[1] > 0.5:
        return "more on the queenside"
    if share[2] < 0.5:
        return "more on the kingside"
    return "no wing measurably more"


def where_line(qe, qh, knights):
    """The summary's line on the files of the reference games' entries: each piece's
    queenside share (a-d) and which wing it leans to, and the knights' files' share."""
    return (f"- **Where they come in.** In Fairy-Stockfish's games the queenside (a-d) takes {pct(qe)} of the"
            f" Elephant's entries ({wing(qe)}) and {pct(qh)} of the Hawk's ({wing(qh)}); the knights' files"
            f" (b, g) take {pct(knights['E'])} and {pct(knights['H'])} (below: on which files).")


# What a restriction makes a player do, in the summary's words ("made to ...").
RESTRICTION_WORDS = {"never": "never gate", "no-castle-gate": "never gate while castling",
                     "elephant-first": "bring the Elephant in first", "hawk-first": "bring the Hawk in first",
                     "queenside-only": "gate only on the queenside", "kingside-only": "gate only on the kingside",
                     "not-before-move-10": "wait for move 10 to gate", "not-before-move-20": "wait for move 20 to gate"}


def in_short(entry, depth, fsf, szero, where=None, check=None, pooled=None):
    """The page's answers in a few lines, each number taken from the sections below (the
    reference games' entry table, the restriction costs, the value of gating, the pieces'
    measured values), so that the summary cannot drift from them. `where` (`entry_files`'
    line) follows the wings; `check` ({restriction: (elo, low, high)}) is szero's rows played
    again on other openings, which a row that helps it is weighed against; `pooled`
    (`restriction_check`'s) is Fairy-Stockfish's rows over both sets of openings, which the
    wings' difference rests on where both wings have them."""
    check, pooled = check or {}, pooled or {}
    def cost(key):
        """A restriction's Elo for Fairy-Stockfish, with szero's beside it where measured,
        and whether the interval settles it."""
        if key not in fsf:
            return "not measured"
        text = elo_text(fsf[key])
        if key in szero:
            text += f" (szero {elo_text(szero[key])})"
        return text

    def settled(*keys):
        return all(k in fsf and fsf[k][2] < 0 for k in keys)

    def unresolved(*keys):
        return all(k in fsf and fsf[k][1] <= 0 <= fsf[k][2] for k in keys)

    out = ["## In short", "",
           f"What Fairy-Stockfish at depth {depth} does and what each choice costs it (Elo of the restricted side"
           f" against itself unrestricted, 95% interval; szero's default play mode at {SZERO_NODES:,} nodes a move"
           " beside it), from the sections below:",
           ""]
    e, h = entry[("E", "both")], entry[("H", "both")]
    out.append(f"- **Bring both pieces in, early.** It enters the Elephant in "
               f"{pct(share_interval(int(e['entered']), int(e['held'])))} of sides and the Hawk in "
               f"{pct(share_interval(int(h['entered']), int(h['held'])))}, "
               + (f"both at a median move of {e['median']}" if e["median"] == h["median"]
                  else f"at median moves {e['median']} and {h['median']}")
               + f". Never gating costs {cost('never')}.")
    if "not-before-move-10" in fsf and "not-before-move-20" in fsf:
        line = (f"- **There is no hurry in the first ten moves, but there is by move 20.** No gate before move 10: "
                f"{cost('not-before-move-10')}; none before move 20: {cost('not-before-move-20')}.")
        if not (unresolved("not-before-move-10") and settled("not-before-move-20")):
            line = (f"- **How early?** No gate before move 10: {cost('not-before-move-10')}; none before move 20: "
                    f"{cost('not-before-move-20')}.")
        out.append(line)
    if "queenside-only" in fsf and "kingside-only" in fsf:
        line = f"Gating only on the queenside files (a-d): {cost('queenside-only')}; only on the kingside (e-h): {cost('kingside-only')}."
        if settled("queenside-only", "kingside-only"):
            line = ("**Use both wings.** " + line + " The advice to put the extra pieces on the queenside, so that"
                    f" kingside castling is not delayed, does not hold as a rule: barred from the kingside files, the"
                    f" engine loses {-fsf['queenside-only'][0]:.0f} Elo.")
        else:
            line = "**Wings.** " + line
        # kingside-only bars the queenside files, queenside-only the kingside: the first minus
        # the second is negative where barring the queenside costs more.
        d = elo_difference(fsf["queenside-only"], fsf["kingside-only"])
        q, k = pooled.get("queenside-only"), pooled.get("kingside-only")
        # Played again on other openings because the first set left it unresolved: the
        # difference rests on both sets, each set's own beside it, and, being a second look,
        # it is judged against the bound for two looks as well.
        whole = elo_difference(q[0], k[0]) if d is not None and q and k else d
        if whole is not None:
            sign = -1 if whole[0] < 0 else 1
            more, less = ("queenside", "kingside") if sign < 0 else ("kingside", "queenside")
            def oriented(e):
                return elo_text((sign * e[0], *sorted((sign * e[1], sign * e[2]))))
            costs = f"arring the {more} costs {oriented(whole).lstrip('+')} Elo more than barring the {less}"
            if whole is d:
                line += f" B{costs}"
            else:
                line += (f" Over both sets of openings ({games_a_row([(0, 0, q[1]), (0, 0, k[1])])} games a row;"
                         f" queenside only {elo_text(q[0])}, kingside only {elo_text(k[0])}), b{costs}"
                         f" (the first set alone {oriented(d)}, the second {oriented(elo_difference(q[2], k[2]))})")
            if not side(*whole[1:]):
                line += ": the interval contains zero, so the two costs are not told apart."
            elif whole is d:
                line += "."
            else:
                z = abs(whole[0]) / ((whole[2] - whole[1]) / (2 * Z))
                verdict = "still resolved" if z > POCOCK_TWO_LOOKS else "not resolved"
                line += (f". The second set was played because the first left the difference unresolved: as two looks"
                         f" at the data it must clear Pocock's bound ({POCOCK_TWO_LOOKS}), and it is {verdict}"
                         f" (z = {z:.2f})")
                if z > POCOCK_TWO_LOOKS and more == "queenside":
                    line += ("; the queenside files are worth more to the engine than the kingside's: the advice holds"
                             " as a preference, not as a rule")
                line += "."
        out.append("- " + line)
    if where:
        out.append(where)
    if "elephant-first" in fsf and "hawk-first" in fsf:
        line = f"Elephant first: {cost('elephant-first')}; Hawk first: {cost('hawk-first')}"
        out.append(f"- **Which piece first is not resolved** by these games: {line}; both of Fairy-Stockfish's"
                   " intervals contain zero."
                   if unresolved("elephant-first", "hawk-first") else f"- **Which piece first.** {line}.")
    if "no-castle-gate" in fsf:
        verdict = (", not resolved (the interval contains zero)." if unresolved("no-castle-gate")
                   else ": for Fairy-Stockfish a cost, the whole interval below zero." if settled("no-castle-gate")
                   else ".")
        out.append(f"- **Gating while castling**: never doing it scores {cost('no-castle-gate')}{verdict}")
    for k in (k for k, (_, lo, _) in szero.items() if lo > 0):
        what = RESTRICTION_WORDS.get(k, k)
        line = f"Made to {what}, szero beat itself unrestricted, {elo_text(szero[k])}"
        if k not in check:
            out.append(f"- **A restriction that helps szero?** {line} (one row of eight at 95%: not checked on other"
                       " openings yet).")
        elif check[k][1] > 0:
            out.append(f"- **A restriction that helps szero.** {line}, and again on other openings,"
                       f" {elo_text(check[k])}: left free, its search chooses worse.")
        else:
            out.append(f"- **A row of szero's that did not hold up.** {line}, but not again on other openings,"
                       f" {elo_text(check[k])}: with eight rows at 95%, one can stand out by chance.")
    gv = path("docs", "research", "gating-value.md")
    if os.path.exists(gv):
        m = re.search(r"gating on a move that can gate is worth ([+-]\d+ cp \[[+-]\d+, [+-]\d+\])", read_text(gv))
        if m:
            out.append(f"- **One gate, against the same move without it**: {m.group(1)} on average (Fairy-Stockfish"
                       " depth 10, every move that can gate in its positions): little, since the piece can usually"
                       " come in a move later. What costs is waiting too long or barring a wing, above.")
    pv = path("docs", "research", "piece-values.md")
    if os.path.exists(pv):
        line = piece_values_line(read_text(pv))
        if line:
            out.append(line)
    out.append("")
    return out


PIECE_NAMES = {"Q": "queen", "E": "Elephant", "H": "Hawk"}


def piece_values_line(md):
    """The summary's line on the big pieces' values, from `scripts/piece-values`' page `md`:
    each value, and which of them the games order, read from each difference's own
    interval (bootstrap refits; two values' intervals may overlap while their difference's
    excludes zero). None without the three values."""
    vals = {k: (float(x), float(lo), float(hi)) for k, x, lo, hi in re.findall(
        r"^\| (Q|E|H) \| (\d+\.\d+) \| \[([\d.]+), ([\d.]+)\]", md, re.M)}
    if len(vals) < 3:
        return None
    v = {k: f"{x:.2f} [{lo:.2f}, {hi:.2f}]" for k, (x, lo, hi) in vals.items()}
    line = (f"- **What the pieces are worth** (pawns, measured from the reference games): queen {v['Q']},"
            f" Elephant {v['E']}, Hawk {v['H']}")
    diffs = [(PIECE_NAMES[a], PIECE_NAMES[b], float(d), float(lo), float(hi)) for a, b, d, lo, hi in re.findall(
        r"^\| (Q|E) - (E|H) \| ([+-]\d+\.\d+) \| \[([+-]\d+\.\d+), ([+-]\d+\.\d+)\]", md, re.M)]
    if not diffs:
        return line + "."
    told = [x for x in diffs if x[3] > 0 or x[4] < 0]
    each = "; ".join(f"{a} minus {b} {d:+.2f} [{lo:+.2f}, {hi:+.2f}]" for a, b, d, lo, hi in diffs)
    if not told:
        return line + f". Their differences: {each}; each interval contains zero, so these games do not order them."
    apart = " and ".join(f"the {a if d > 0 else b} above the {b if d > 0 else a}" for a, b, d, _, _ in told)
    if len(told) == len(diffs):
        return line + f". Their differences: {each}; each interval excludes zero, so these games put {apart}."
    open_ = " or ".join(f"the {a} and the {b}" for a, b, *_ in diffs if (a, b) not in {x[:2] for x in told})
    return line + (f". Their differences: {each}; these games put {apart}, but do not order {open_}"
                   " (an interval that contains zero).")


def main():
    out = path("docs", "research", "README.md")
    ref = "docs/gating-report-fairy-stockfish"
    match = read_json(path(ref, "match.json"))
    variants = rows(ref, "variants.csv")
    seir = next(v for v in variants if v["variant"] == "seirawan")
    entry = {(r["piece"], r["side"]): r for r in rows(ref, "entry.csv")}
    first = {r["side"]: r for r in rows(ref, "first_piece.csv")}
    scores = {(r["condition"], r["side"]): r for r in rows(ref, "scores.csv")}
    vias = rows(ref, "by_via.csv")
    scale = read_json(path("data", "scale", "fairy-stockfish.json"))
    strong_rules = os.path.exists(path("docs", "variant-strong", "all", "variants_compared.csv"))

    depth = re.search(r"-d(\d+)", match["first"]).group(1)
    szero = os.environ.get("SZERO_BIN", path("target", "release", "szero"))
    shown = subprocess.run([szero, "scale", "show"], capture_output=True, text=True, check=True).stdout
    rating = re.search(rf"depth={depth}` \| (\S+) \| (\[[^\]]*\])", shown)
    rating = f"{rating.group(1)} {rating.group(2)}" if rating else "not on the scale"
    games, distinct = int(seir["games"]), int(seir["distinct"])
    w, d, l = int(seir["white W"]), int(seir["D"]), int(seir["white L"])

    def side_score(cond):
        r = scores.get((cond, "both"))
        if not r:
            return None
        return int(r["W"]), int(r["D"]), int(r["L"])

    md = []
    add = md.append
    add("# Gating research: what the numbers say so far")
    add("")
    add("How to play the gating rule of Seirawan chess, answered from play with 95% intervals, each")
    add("answer with what it rests on. Regenerate everything with `scripts/research-report --regenerate`")
    add("(about three hours on two cores; two of its studies are timed, so nothing else may run); `scripts/research-report`")
    add("alone rebuilds this page from the studies' outputs. Written by `scripts/research_report.py`; do not edit")
    add("by hand.")
    add("")
    add("## What it rests on")
    add("")
    add(f"- **Strong play**: Fairy-Stockfish 11.1 (Debian), variant `seirawan`, at fixed depth {depth}, against")
    add(f"  itself: {games:,} games, **{distinct:,} distinct** (each random opening played once: a deterministic engine")
    add("  replays a colour-swapped game move for move), in `docs/gating-report-fairy-stockfish/`. On szero's")
    add(f"  rating scale (`szero scale show`, Fairy-Stockfish depth 1 = 0) depth {depth} stands at {rating}.")
    szero_rating = "not rated"
    rated = path("docs", "research", "restrictions-szero", "scale-rating.json")
    if os.path.exists(rated):
        r = read_json(rated)
        lo_hi = r["placement"].get("Between")
        where = f", between depths {lo_hi[0].rsplit('=', 1)[1]} and {lo_hi[1].rsplit('=', 1)[1]}" if lo_hi else ""
        szero_rating = f"{r['elo']:+.0f} [{r['elo_lo']:+.0f}, {r['elo_hi']:+.0f}] on the scale{where}"
    add(f"- **szero as a second subject**: its default play mode (alpha-beta over the learned evaluation, with")
    add(f"  the network shipped until 2026-12-06 at the root: its restriction costs below ran with it) at")
    add(f"  {SZERO_NODES:,} nodes a move, {szero_rating} (`szero scale rate`, 100 games against each anchor it")
    timed = path("docs", "strength-card", "timed-scale-rating.json")
    if os.path.exists(timed):
        r = read_json(timed)
        at = f"{r['elo']:+.0f} [{r['elo_lo']:+.0f}, {r['elo_hi']:+.0f}]"
        if r["placement"] == "AboveTop":
            at = f"at least {at}, above the strongest anchor"
        elif isinstance(r["placement"], dict) and "Between" in r["placement"]:
            lo, hi = (a.rsplit("=", 1)[1] for a in r["placement"]["Between"])
            at = f"{at}, between depths {lo} and {hi}"
        add("  met; `docs/research/restrictions-szero/scale-rating.json`). At 1 s a move, with the network shipped")
        add(f"  since 2026-12-06, it is rated {at} (`docs/strength-card/timed-scale-rating.json`).")
    else:
        add("  met; `docs/research/restrictions-szero/scale-rating.json`). At 1 s a move it is stronger (the version")
        add("  before the learned evaluation stood at +641 [+523, +759] at 1 s, BENCHMARKS.md).")
    rd = restriction_distinct(table_lines(read_text(path("docs", "research", "restrictions.md"))))
    add("- **Restriction costs**: the same engine and depth, barred from one gating choice, against itself")
    again = path("docs", "research", "restrictions-check.md")
    again = (restriction_distinct(table_lines(read_text(again)))
             if os.path.exists(again) else [])
    again = (f"; {' and '.join(r for r, _, _ in again)} again on other openings"
             f" (`docs/research/restrictions-check.md`, {restriction_games(again)})" if again else "")
    add(f"  unrestricted (`docs/research/restrictions.md`, {restriction_games(rd)}{again}).")
    if "movetime" in read_text(path("docs", "research", "gating-value.md")):
        add("- **The value of gating**: Fairy-Stockfish's search (depth 10), szero's network shipped since 2026-12-06")
        add(f"  and szero's default play mode with it ({SZERO_NODES:,} nodes and 1 s a move) valuing the same moves with")
        add("  and without their gates (`docs/research/gating-value.md`).")
    else:
        add("- **The value of gating**: Fairy-Stockfish's search (depth 10), szero's network shipped until 2026-12-06")
        add(f"  and szero's default play mode ({SZERO_NODES:,} nodes a move) valuing the same moves with and without")
        add("  their gates (`docs/research/gating-value.md`).")
    add("- **The entry rules**: no other engine plays the two alternative rules. Baseline search")
    add("  (`mcts-material`, 200 nodes), 400 distinct games a rule (`docs/variant-baseline/`)" +
        ("; and szero's alpha-beta search over its learned evaluation at 10,000 nodes" if strong_rules else "."))
    if strong_rules:
        strong = rows("docs", "variant-strong", "all", "variants.csv")
        add("  (`docs/variant-strong/`): " + ", ".join(f"{r['variant']} {int(r['distinct']):,} distinct of {int(r['games']):,}"
                                                   for r in strong) + ".")
    learning = entry_rules_runs()
    made = sorted(learning[1].values()) if learning else []
    if made:
        add(f"  And szero learning each rule from zero (`scripts/entry-rules`, `docs/research/entry-rules/`): {len(made)} of")
        add(f"  the {3 * len(ENTRY_RULES)} runs made so far ({', '.join(made)}), their self-play games counted for duplicates"
            " and, where the games are still here, their shares checked over distinct games alone (below: replays in self-play).")
    add("")
    summary_at = len(md)
    add("## When do the hand pieces come in?")
    add("")
    add(f"White scores {pct(score_interval(w, d, l))} over the {games:,} games (W-D-L {w}-{d}-{l}).")
    add("")
    add("| piece | entered | never entered | median entry move (interquartile) |")
    add("|---|---|---|---|")
    for p, name in (("E", "Elephant"), ("H", "Hawk")):
        r = entry[(p, "both")]
        held, entered = int(r["held"]), int(r["entered"])
        add(f"| {name} | {pct(share_interval(entered, held))} of {held} sides | {held - entered} | "
            f"{r['median']} ({r['p25']}-{r['p75']}) |")
    add("")
    add("![entry moves](../gating-report-fairy-stockfish/entry_moves.svg)")
    add("")
    sz = path("docs", "variant-strong", "seirawan", "entry.csv")
    if os.path.exists(sz):
        # szero's alpha-beta on the same question, from the entry rules' stronger-play study
        # (its standard-rule games: the same 6 random opening plies, each opening once).
        sv = rows("docs", "variant-strong", "seirawan", "variants.csv")[0]
        add(f"Does szero bring them in the same way? Its alpha-beta over its learned evaluation at {SZERO_NODES:,}")
        add(f"nodes a move (the default play mode at that count: {szero_rating}; far below depth {depth}), against itself")
        add(f"over {int(sv['games']):,} games ({int(sv['distinct']):,} distinct), `docs/variant-strong/seirawan/`:")
        add("")
        never_entered_table(add, ("szero", path("docs", "variant-strong", "seirawan")),
                            (f"Fairy-Stockfish depth {depth}", path(ref)))
        add("Its median entry move is the same, but a long tail of late entries puts its mean several moves")
        add("later, and it strands far more pieces. A likely reason: the learned evaluation it searches with")
        add("values a piece in hand that can still enter about as much as the same piece on the board (the fit's")
        add("weights, `models/szero-default.eval.json`), so bringing one in earns it little until the last gating")
        add("square is about to go. (Entry moves are over the sides that entered the piece.)")
        add("")
    habit = learned_habit(add)
    head_to_head(add)
    add("## Which piece first, and behind what?")
    add("")
    b = first["both"]
    n = int(b["side-games"])
    add(f"The Elephant comes first in {pct(share_interval(int(b['E first']), n))} of {n} sides, the Hawk in "
        f"{pct(share_interval(int(b['H first']), n))}.")
    add("")
    add("| condition | sides | score of the side [95%] | Elo |")
    add("|---|---|---|---|")
    for cond in ("E first", "H first"):
        t = side_score(cond)
        if t:
            s = score_interval(*t)
            add(f"| {cond} | {sum(t)} | {pct(s)} | {elo(s[0]):+.0f} |")
    for r in rows(ref, "scores.csv"):
        if r["side"] == "both" and r["condition"] not in ("E first", "H first") and int(r["n"]) > 0:
            t = int(r["W"]), int(r["D"]), int(r["L"])
            s = score_interval(*t)
            add(f"| {r['condition']} | {sum(t)} | {pct(s)} | {elo(s[0]):+.0f} |")
    add("")
    add("These are correlations between a side's choice and its result in self-play, not causes; the")
    add("restriction costs below are the causal measurement.")
    add("")
    add("| the piece that leaves its square | Elephants gated | Hawks gated | E share | H share |")
    add("|---|---|---|---|---|")
    for r in vias:
        add(f"| {r['via']} | {r['E']} | {r['H']} | {100 * float(r['E share']):.1f}% | {100 * float(r['H share']):.1f}% |")
    add("")
    add("![gates by the piece that leaves](../gating-report-fairy-stockfish/by_via.svg)")
    add("")
    where = entry_files(add, ref)
    add("## What does each gating choice cost? (restricted players)")
    add("")
    fsf_costs = restriction_table(md, path("docs", "research", "restrictions.md"), "engine")
    fsf_pooled = {}
    check_md = path("docs", "research", "restrictions-check.md")
    if os.path.exists(check_md):
        _, fsf_pooled = restriction_check(add, md, path("docs", "research", "restrictions.md"), check_md,
                                          "Rows whose difference these openings left unresolved")
    szero_costs, szero_check = {}, {}
    szero_md = path("docs", "research", "restrictions-szero.md")
    if os.path.exists(szero_md):
        add("### szero as the subject")
        add("")
        add(f"The same restrictions on szero's default play mode at {SZERO_NODES:,} nodes a move ({szero_rating}),")
        add("with the network shipped until 2026-12-06 (the one its rating is of: `git show 45390e7:models/szero-default.safetensors`),")
        add("against itself unrestricted, on the same kind of openings (`docs/research/restrictions-szero.md`):")
        add("")
        szero_costs = restriction_table(md, szero_md, "player")
        check_md = path("docs", "research", "restrictions-szero-check.md")
        if os.path.exists(check_md):
            szero_check, _ = restriction_check(
                add, md, szero_md, check_md,
                "With eight rows at 95%, one can fall outside by chance: a row that stood out", pool=False)
        both = [k for k in fsf_costs if k in szero_costs]
        if both:
            add("The two subjects side by side (Elo of the restricted side; the difference with its 95% interval,")
            add("from the two rows' intervals taken as normal and independent):")
            add("")
            add("| restriction | Fairy-Stockfish depth 8 | szero, 10,000 nodes | szero minus Fairy-Stockfish [95%] |")
            add("|---|---|---|---|")
            for k in both:
                a, b = fsf_costs[k], szero_costs[k]
                d = elo_difference(a, b)
                if d is None:
                    add(f"| {k} | {a[0]:+.0f} | {b[0]:+.0f} | - (an interval is open) |")
                    continue
                add(f"| {k} | {elo_text(a)} | {elo_text(b)} | {elo_text(d)} |")
            add("")
    add("## What is a gate worth, move by move?")
    add("")
    gv = path("docs", "research", "gating-value.md")
    if os.path.exists(gv):
        text = read_text(gv)
        lines = text.splitlines()
        i = next((k for k, ln in enumerate(lines) if ln.startswith("## What it says")), None)
        if i is not None:
            md.extend("#" + ln if ln.startswith("## ") else ln for ln in lines[i:])
    else:
        add("Not measured yet: run `scripts/gating-value`.")
    add("")
    add("## What are the pieces worth?")
    add("")
    pv = path("docs", "research", "piece-values.md")
    if os.path.exists(pv):
        lines = read_text(pv).splitlines()
        i = next((k for k, ln in enumerate(lines) if ln.startswith("## What it says")), None)
        if i is not None:
            add("Measured from the reference games, not written (`docs/research/piece-values.md`,")
            add("`scripts/piece-values`):")
            md.extend("#" + ln if ln.startswith("## ") else ln for ln in lines[i + 1:])
    else:
        add("Not measured yet: run `scripts/piece-values`.")
    add("")
    add("## Do the alternative entry rules change the game?")
    add("")
    add("On baseline play (`mcts-material`, 200 nodes a move: far below Fairy-Stockfish depth 1; "
        "`docs/variant-baseline/`):")
    add("")
    entry_rules_tables(add, "variant-baseline")
    add("On baseline play the rules differ in when pieces enter (forced entry: the Hawk at move 3; placement:")
    add("both late, and a tenth of sides strand a piece), not measurably in the result.")
    add("")
    if strong_rules:
        add("On stronger play: szero's alpha-beta search over its learned evaluation, without the network,")
        add(f"at {SZERO_NODES:,} nodes a move (the default play mode at that node count stands at "
            f"{szero_rating};")
        add("the evaluation was fitted on games of the standard rule only), `docs/variant-strong/`:")
        add("")
        entry_rules_tables(add, "variant-strong")
    learned = entry_rules_learned(add)
    terms = material_terms(add)
    replays_table(add)
    summary = in_short(entry, depth, fsf_costs, szero_costs, where, szero_check, fsf_pooled)
    # The largest budget whose runs answer it.
    if len(habit) > 1:
        summary.insert(-1, habit_line(habit))
    for variant in VARIANT_QUESTIONS:
        # The largest budget that answers it.
        for steps, _, never, duels, ladder in reversed(terms):
            line = variant_line(variant, steps, never, duels, ladder.get(variant))
            if line:
                summary.insert(-1, line)
                break
    same = sum(ln.startswith("White's score: no alternative rule differs measurably") for ln in md)
    if same:
        summary.insert(-1, f"- **The alternative entry rules** (forced entry, placement) do not change White's score"
                           f" measurably in {'baseline play or in szero alpha-beta play' if same == 2 else 'the play measured'}"
                           " (below: each difference's interval contains zero); they change when the pieces come in.")
    if learned:
        line = learned_rules_line(learned[0], learned[2])
        if line:
            summary.insert(-1, line)
    md[summary_at:summary_at] = summary
    add("## Not answered yet")
    add("")
    if terms and terms[-1][0] < TWO_HOURS:
        add(f"- The material-term runs at 2 hours a run (issue 36, item 4; {TWO_HOURS:,} trainer steps,"
            " `docs/research/material-terms/README.md`):")
        add(f"  above they learned for {'; and for '.join(t[1] for t in terms)}.")
    elif terms:
        if ";" in terms[-1][1]:
            add(f"- The material-term runs at 2 hours a run: {terms[-1][1]}.")
    else:
        add("- The material-term runs (issue 36, item 4, two seeds each, 2 hours): not run. The settings exist:")
        add("  `[selfplay] material_hand_weight` (what a piece in hand counts in the adjudication's material and the")
        add("  material head's target; 0 counts only pieces that entered) and a config without human piece values")
        add("  (no material head, draws at the length limit): `scripts/ablate` variants `hand-entered` and")
        add("  `no-human-values`. The pieces' values from strong play are measured above; from a run's own games:")
        add("  `szero piece-values --run DIR`.")
    if not os.path.exists(path("docs", "research", "head-to-head", "szero", "entry.csv")):
        add("- Whether szero's players gate like Fairy-Stockfish's once they play at its level"
            " (`scripts/gating-head-to-head`).")
    if learned:
        budget, missing, _ = learned
        if missing:
            add(f"- The entry rules compared by learning at {budget} a run (3 seeds a rule, about 67 minutes each):")
            add(f"  not run yet: {', '.join(missing)} (`scripts/entry-rules SEED` resumes).")
    elif strong_rules:
        add("- The entry rules compared by learning (`scripts/entry-rules`, 3 seeds a rule, about an hour each): not")
        add("  run; the stronger play above is one fixed search whose evaluation was fitted on the standard rule's games.")
    else:
        add("- The entry rules on stronger play (3 seeds a rule, 60 minutes each): not run; the table above is")
        add("  baseline play only.")
    if not os.path.exists(szero_md):
        add("- szero as a restricted player (its MCTS and alpha-beta modes both take restrictions): not measured.")
    else:
        missing = [ln.split("|")[1].strip() for ln in read_text(szero_md).splitlines() if "not measured yet" in ln]
        if missing:
            add(f"- szero as the restricted subject: {', '.join(missing)} not measured yet (rerunning its")
            add("  `scripts/gating-restrictions` command resumes: the measured rows are kept).")
    if "movetime" not in read_text(path("docs", "research", "gating-value.md")):
        add("- The value of gating to szero at 1 s a move (above: 10,000 nodes, a few plies).")
    add("")
    text = "\n".join(md)
    if "--check" in sys.argv[1:]:
        if read_text(out) != text:
            sys.exit(f"{out} is not what scripts/research_report.py makes of the studies' outputs: "
                     "run scripts/research-report and commit the page")
        print(f"{out} is up to date", file=sys.stderr)
        return
    with open(out, "w") as f:
        f.write(text)
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()

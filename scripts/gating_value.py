"""The value of gating, by Fairy-Stockfish, by szero's network and by szero's default play
mode (see scripts/gating-value).

Reads the network probe's `value_moves.csv` (position FEN, gating move, the same move
without the gate, the network's value of each for the mover), asks Fairy-Stockfish for
both moves at a fixed depth (`go depth D searchmoves MOVE`: the score of exactly that
move, from the mover's view) and, with `--szero CMD`, `szero uci` (its default play mode:
alpha-beta over the learned evaluation) the same way, at each `--szero-limit` (a node count,
or a time a move), and writes every row with every valuation and a Markdown
report: the mean gain of gating over not gating, by the piece that leaves its square and
by the hand piece, with 95% intervals from a bootstrap over positions (moves of one
position are not independent), and how often the two valuations agree.
"""

import argparse
import csv
import hashlib
import os
import threading
import json
import math
import random
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

from uci_engine import Engine

MATE_CP = 1000  # mates (and anything beyond) count as +-10 pawns in means


def score(engine, fen, move, limit):
    """Centipawns of `move` for the side to move in `fen` (mates as +-MATE_CP), searched
    with the UCI `go` limit `limit` (e.g. `depth 10`, `nodes 10000`)."""
    best, lines = engine.go(fen, f"{limit} searchmoves {move}")
    if best != move:
        raise RuntimeError(f"asked for {move} in {fen}, {engine.name} played {best}")
    cp = None
    for line in lines:
        w = line.split()
        if w[:1] == ["info"] and "score" in w and "pv" in w:
            i = w.index("score")
            kind, val = w[i + 1], int(w[i + 2])
            cp = max(-MATE_CP, min(MATE_CP, val)) if kind == "cp" else (MATE_CP if val > 0 else -MATE_CP)
    if cp is None:
        raise RuntimeError(f"no score for {move} in {fen}")
    return cp


def valuate(jobs, limit, workers, cmd, found):
    """An engine's score of each distinct (fen, move), on `workers` engines; `found(job,
    cp)` is called with each score as it comes (from the workers' threads)."""
    chunks = [jobs[i::workers] for i in range(workers)]

    def run(chunk):
        e = Engine(cmd=cmd, options=[("Threads", 1), ("Hash", 16)])
        try:
            for f, m in chunk:
                found((f, m), score(e, f, m, limit))
        finally:
            e.close()

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(run, chunks))


def cached_scores(path, key, jobs, limit, workers, cmd, what):
    """Scores of `jobs` under `limit`, kept in `path` by `key` so that a rerun of the same
    probe only searches what is new. The file is rewritten every 100 scores, so a killed
    run resumes where it stopped."""
    try:
        cache = json.load(open(path))
    except (FileNotFoundError, ValueError):
        cache = {}
    known = cache.setdefault(key, {})
    todo = [j for j in jobs if f"{j[0]}|{j[1]}" not in known]
    print(f"gating-value: {len(jobs)} {what} scores ({limit}), {len(todo)} of them to search", file=sys.stderr)
    lock = threading.Lock()

    def save():
        with open(path + ".part", "w") as f:
            json.dump(cache, f, sort_keys=True)
        os.replace(path + ".part", path)

    def found(job, cp):
        with lock:
            known[f"{job[0]}|{job[1]}"] = cp
            if len(known) % 100 == 0:
                save()

    if todo:
        valuate(todo, limit, workers, cmd, found)
    save()
    return {j: known[f"{j[0]}|{j[1]}"] for j in jobs}


def szero_key(limit, root):
    """The cache key of szero's scores under `limit`: the limit and what `szero uci` plays
    with by default (the shipped network and learned evaluation, by content), so that
    scores of an earlier shipped network are not mixed with a new one's."""
    digest = hashlib.sha256()
    for f in ("szero-default.safetensors", "szero-default.eval.json"):
        digest.update(open(os.path.join(root, "models", f), "rb").read())
    return f"{limit} {digest.hexdigest()[:12]}"


def limit_words(limit):
    """`nodes 10000` -> `10,000 nodes a move`, `movetime 1000` -> `1 s a move`."""
    kind, n = limit.split()
    if kind == "nodes":
        return f"{int(n):,} nodes a move"
    if kind == "movetime":
        return f"{int(n) / 1000:g} s a move"
    return limit


def bootstrap(rows, stat, seed, reps=2000):
    """stat(rows) and its 95% interval, resampling whole positions."""
    by_pos = defaultdict(list)
    for r in rows:
        by_pos[r["fen"]].append(r)
    groups = list(by_pos.values())
    if not groups:
        return None, None, None
    rng = random.Random(seed)
    point = stat(rows)
    draws = []
    for _ in range(reps):
        sample = [r for _ in groups for r in rng.choice(groups)]
        v = stat(sample)
        if v is not None and not math.isnan(v):
            draws.append(v)
    draws.sort()
    if not draws:
        return point, None, None
    return point, draws[int(0.025 * len(draws))], draws[int(0.975 * len(draws)) - 1]


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def spearman(pairs):
    if len(pairs) < 3:
        return float("nan")

    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r

    a, b = ranks([p[0] for p in pairs]), ranks([p[1] for p in pairs])
    ma, mb = mean(a), mean(b)
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    va = sum((x - ma) ** 2 for x in a)
    vb = sum((y - mb) ** 2 for y in b)
    return cov / math.sqrt(va * vb) if va > 0 and vb > 0 else float("nan")


def fmt(point, lo, hi, scale=1.0, digits=0, sign=True):
    if point is None or (isinstance(point, float) and math.isnan(point)):
        return "-"
    f = f"{{:{'+' if sign else ''}.{digits}f}}"
    s = f.format(point * scale)
    if lo is not None:
        s += f" [{f.format(lo * scale)}, {f.format(hi * scale)}]"
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--moves", required=True)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--command", default="scripts/gating-value")
    ap.add_argument("--szero", help="the szero binary: also value every move with `szero uci`'s default play mode")
    ap.add_argument("--szero-limit", action="append", default=[],
                    help="a UCI `go` limit for szero: `nodes N` or `movetime MS` (repeatable; default `nodes 10000`)")
    a = ap.parse_args()
    for limit in a.szero_limit:
        w = limit.split()
        if len(w) != 2 or w[0] not in ("nodes", "movetime") or not w[1].isdigit() or int(w[1]) == 0:
            sys.exit(f"gating-value: --szero-limit {limit!r}: expected `nodes N` or `movetime MS` (N, MS > 0)")
    limits = a.szero_limit or ["nodes 10000"]

    rows = []
    with open(a.moves, newline="") as f:
        for r in csv.DictReader(f):
            if not r["twin value"]:
                continue  # the move is legal only with its gate (a pinned back-rank piece)
            rows.append(
                {
                    "origin": r["position"],
                    "fen": r["fen"],
                    "move": r["move"],
                    "twin": r["twin move"],
                    "via": r["via"],
                    "piece": r["piece"],
                    "net": float(r["value"]),
                    "net_twin": float(r["twin value"]),
                }
            )
    if not rows:
        sys.exit("gating-value: the probe found no gating move with a legal twin")
    jobs = sorted({(r["fen"], r["move"]) for r in rows} | {(r["fen"], r["twin"]) for r in rows})
    print(f"gating-value: {len(rows)} gating moves in {len({r['fen'] for r in rows})} positions", file=sys.stderr)
    # The engines' scores are kept beside the results (fsf-scores.json by depth,
    # szero-scores.json by limit and shipped files).
    scores = cached_scores(f"{a.out}/fsf-scores.json", str(a.depth), jobs, f"depth {a.depth}", a.workers,
                           ("fairy-stockfish",), "Fairy-Stockfish")
    ab = {}
    if a.szero:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for limit in limits:
            ab[limit] = cached_scores(f"{a.out}/szero-scores.json", szero_key(limit, root), jobs, limit,
                                      a.workers, (a.szero, "uci"), "szero")
    for r in rows:
        r["fsf"] = scores[(r["fen"], r["move"])]
        r["fsf_twin"] = scores[(r["fen"], r["twin"])]
        r["d_fsf"] = r["fsf"] - r["fsf_twin"]
        r["d_net"] = r["net"] - r["net_twin"]
        # szero's scores by limit: (with the gate, without it, the gain).
        r["ab"] = {}
        for limit, sc in ab.items():
            cp, twin = sc[(r["fen"], r["move"])], sc[(r["fen"], r["twin"])]
            r["ab"][limit] = (cp, twin, cp - twin)

    with open(f"{a.out}/moves.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["position", "fen", "move", "twin move", "via", "piece", "fsf cp", "fsf twin cp", "fsf gain cp",
                    "net value", "net twin value", "net gain"]
                   + [f"szero {c} ({limit})" for limit in ab for c in ("cp", "twin cp", "gain cp")])
        for r in rows:
            w.writerow([r["origin"], r["fen"], r["move"], r["twin"], r["via"], r["piece"], r["fsf"], r["fsf_twin"],
                        r["d_fsf"], f"{r['net']:.4f}", f"{r['net_twin']:.4f}", f"{r['d_net']:.4f}"]
                       + [x for limit in ab for x in r["ab"][limit]])

    def line(label, sub, k):
        d_fsf = bootstrap(sub, lambda s: mean(r["d_fsf"] for r in s), a.seed + k)
        better = bootstrap(sub, lambda s: mean(r["d_fsf"] > 0 for r in s), a.seed + k)
        d_net = bootstrap(sub, lambda s: mean(r["d_net"] for r in s), a.seed + k)
        net_better = bootstrap(sub, lambda s: mean(r["d_net"] > 0 for r in s), a.seed + k)
        decided = [r for r in sub if abs(r["d_fsf"]) >= 30]
        agree = mean((r["d_net"] > 0) == (r["d_fsf"] > 0) for r in decided) if decided else float("nan")
        rho = spearman([(r["d_fsf"], r["d_net"]) for r in sub])
        return (
            f"| {label} | {len(sub)} | {len({r['fen'] for r in sub})} | {fmt(*d_fsf)} | "
            f"{fmt(*better, scale=100, sign=False)}% | {fmt(*d_net, scale=50, digits=1)} | "
            f"{fmt(*net_better, scale=100, sign=False)}% | {fmt(agree, None, None, scale=100, sign=False)}% "
            f"({len(decided)}) | {fmt(rho, None, None, digits=2)} |"
        )

    def ab_line(label, sub, k, limit):
        gain = lambda r: r["ab"][limit][2]
        d_ab = bootstrap(sub, lambda s: mean(gain(r) for r in s), a.seed + k)
        better = bootstrap(sub, lambda s: mean(gain(r) > 0 for r in s), a.seed + k)
        decided = [r for r in sub if abs(r["d_fsf"]) >= 30]
        agree = bootstrap(decided, lambda s: mean((gain(r) > 0) == (r["d_fsf"] > 0) for r in s), a.seed + k)
        rho = spearman([(r["d_fsf"], gain(r)) for r in sub])
        return (
            f"| {label} | {len(sub)} | {len({r['fen'] for r in sub})} | {fmt(*d_ab)} | "
            f"{fmt(*better, scale=100, sign=False)}% | {fmt(*agree, scale=100, sign=False)}% ({len(decided)}) | "
            f"{fmt(rho, None, None, digits=2)} |"
        )

    ab_head = [
        "| moves | gating moves | positions | szero: gain of gating, cp [95%] | szero: gate better | "
        "sign agreement with FSF (FSF gain >= 30 cp) [95%] | Spearman rho with FSF |",
        "|---|---|---|---|---|---|---|",
    ]

    head = [
        "| moves | gating moves | positions | FSF: gain of gating, cp [95%] | FSF: gate better | "
        "net: gain, expected-score points [95%] | net: gate better | sign agreement (FSF gain >= 30 cp) | "
        "Spearman rho |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    table = head + [line("all", rows, 0)]
    for k, piece in enumerate(["E", "H"]):
        table.append(line(f"gating the {'Elephant' if piece == 'E' else 'Hawk'}", [r for r in rows if r["piece"] == piece], 10 + k))
    vias = sorted({r["via"] for r in rows}, key=lambda v: (-sum(r["via"] == v for r in rows), v))
    by_via = head + [line(v, [r for r in rows if r["via"] == v], 20 + k) for k, v in enumerate(vias)]

    # The best move of each position: is it a gate, by each valuation?
    best = defaultdict(dict)
    for r in rows:
        best[r["fen"]][r["move"]] = (r["fsf"], r["net"], {limit: v[0] for limit, v in r["ab"].items()})
        best[r["fen"]][r["twin"]] = (r["fsf_twin"], r["net_twin"], {limit: v[1] for limit, v in r["ab"].items()})
    gate_moves = {(r["fen"], r["move"]) for r in rows}
    fsf_best_gate = net_best_gate = same_best = 0
    ab_best_gate, ab_same_best = {limit: 0 for limit in ab}, {limit: 0 for limit in ab}
    def tops(ms, score):
        """The moves sharing a position's best score (engines often score several alike), so
        that what counts below does not hang on the order the moves were read in."""
        top = max(score(v) for v in ms.values())
        return {m for m, v in ms.items() if score(v) == top}

    for fen, ms in best.items():
        gates = lambda top: all((fen, m) in gate_moves for m in top)
        bf, bn = tops(ms, lambda v: v[0]), tops(ms, lambda v: v[1])
        fsf_best_gate += gates(bf)
        net_best_gate += gates(bn)
        same_best += bool(bf & bn)
        for limit in ab:
            ba = tops(ms, lambda v: v[2][limit])
            ab_best_gate[limit] += gates(ba)
            ab_same_best[limit] += bool(bf & ba)
    n_pos = len(best)

    def summary(sub):
        d = bootstrap(sub, lambda s: mean(r["d_fsf"] for r in s), a.seed)
        decided = [r for r in sub if abs(r["d_fsf"]) >= 30]
        agree = bootstrap(decided, lambda s: mean((r["d_net"] > 0) == (r["d_fsf"] > 0) for r in s), a.seed)
        return d, agree, spearman([(r["d_fsf"], r["d_net"]) for r in sub])

    (g, g_lo, g_hi), (ag, ag_lo, ag_hi), rho = summary(rows)
    via_gain = {v: mean(r["d_fsf"] for r in rows if r["via"] == v) for v in vias}
    big = [v for v in vias if sum(r["via"] == v for r in rows) >= 100]
    best_via = max(big, key=lambda v: via_gain[v]) if big else None
    worst_via = min(big, key=lambda v: via_gain[v]) if big else None
    chance = ag_lo is not None and ag_lo <= 0.5 <= ag_hi
    says = [
        "## What it says",
        "",
        f"- To Fairy-Stockfish, gating on a move that can gate is worth {g:+.0f} cp [{g_lo:+.0f}, {g_hi:+.0f}] on "
        "average over not gating on it: most moves that can gate are close either way, because the piece can "
        "come in later.",
    ]
    if best_via:
        says.append(
            f"- By the piece that leaves (at least 100 moves): gating behind a {best_via} move gains most "
            f"({via_gain[best_via]:+.0f} cp), behind a {worst_via} move least ({via_gain[worst_via]:+.0f} cp)."
        )
    says.append(
        f"- The network agrees with Fairy-Stockfish on whether the gate helps in {100 * ag:.0f}% "
        f"[{100 * ag_lo:.0f}, {100 * ag_hi:.0f}] of the moves where Fairy-Stockfish sees at least 30 cp either way, "
        f"rank correlation {rho:+.2f}: "
        + ("no better than chance, so its value head has not learnt what a gate is worth."
           if chance else "better than chance.")
    )
    ab_section = []
    if ab:
        ab_section = [
            "## szero's default play mode on the same moves",
            "",
            "`szero uci` as it plays by default (alpha-beta over the learned evaluation, the network judging the "
            f"root move), asked `go {' / '.join(ab)} searchmoves MOVE` for each move (one thread): centipawns for the "
            "mover on its own scale (a pawn about 100), mates as +-1000. By hand piece, then by the piece that leaves:",
            "",
        ]
    decided = [r for r in rows if abs(r["d_fsf"]) >= 30]
    for limit in ab:
        gain = lambda r: r["ab"][limit][2]
        aa, aa_lo, aa_hi = bootstrap(decided, lambda s: mean((gain(r) > 0) == (r["d_fsf"] > 0) for r in s), a.seed)
        ab_rho = spearman([(r["d_fsf"], gain(r)) for r in rows])
        ab_gain = bootstrap(rows, lambda s: mean(gain(r) for r in s), a.seed)
        says.append(
            f"- szero's default play mode ({limit_words(limit)}) values gating at {fmt(*ab_gain)} cp on "
            f"average and agrees with Fairy-Stockfish on whether the gate helps in {100 * aa:.0f}% "
            f"[{100 * aa_lo:.0f}, {100 * aa_hi:.0f}] of those moves, rank correlation {ab_rho:+.2f}: "
            + ("no better than chance." if aa_lo <= 0.5 <= aa_hi else
               "better than chance" + (", where its network alone is not." if ag_lo <= 0.5 <= ag_hi else "."))
        )
        ab_table = ab_head + [ab_line("all", rows, 0, limit)]
        for k, piece in enumerate(["E", "H"]):
            sub = [r for r in rows if r["piece"] == piece]
            ab_table.append(ab_line(f"gating the {'Elephant' if piece == 'E' else 'Hawk'}", sub, 10 + k, limit))
        ab_table += [ab_line(v, [r for r in rows if r["via"] == v], 20 + k, limit) for k, v in enumerate(vias)]
        ab_section += [
            *([f"### At {limit_words(limit)}", ""] if len(ab) > 1 else []),
            *ab_table,
            "",
            f"Its best of each position's moves is a gate in {ab_best_gate[limit]} of {n_pos} positions "
            f"({100 * ab_best_gate[limit] / n_pos:.0f}%), and the same move as Fairy-Stockfish's in "
            f"{ab_same_best[limit]} of {n_pos} ({100 * ab_same_best[limit] / n_pos:.0f}%).",
            "",
        ]
    says.append("")

    md = [
        "# The value of gating: Fairy-Stockfish and szero on the same moves",
        "",
        f"Every move that can gate, in {n_pos} positions from Fairy-Stockfish's self-play games (one position a "
        "game, chosen at random among those where the side to move could still gate), valued with its gate and "
        "without it: by Fairy-Stockfish 11.1 (`go depth "
        f"{a.depth} searchmoves MOVE`, centipawns for the mover, mates as +-{MATE_CP}) and by szero's network "
        "(its value head on the position after the move, the mover's expected score in [-1, 1], shown here in "
        "points of expected score per 100, i.e. 50 x value). The gain of gating is the gate's score minus the "
        "same move's without it. Intervals: 95%, bootstrap over positions (the moves of one position are "
        "not independent). Gating moves whose piece could not leave without its gate (a pin the gated piece "
        "takes over) are left out: they have no twin.",
        "",
        "```sh",
        a.command,
        "```",
        "",
        *says,
        "## By hand piece",
        "",
        *table,
        "",
        "## By the piece that leaves its square",
        "",
        *by_via,
        "",
        "## The best of each position's moves that can gate (with and without their gates)",
        "",
        "A gate counts as best only where no move without a gate scores as high; two valuations pick the same "
        "move where their best moves (ties included) share one.",
        "",
        f"- Fairy-Stockfish's best is a gate in {fsf_best_gate} of {n_pos} positions ({100 * fsf_best_gate / n_pos:.0f}%);",
        f"- the network's best is a gate in {net_best_gate} of {n_pos} ({100 * net_best_gate / n_pos:.0f}%);",
        f"- they pick the same move in {same_best} of {n_pos} ({100 * same_best / n_pos:.0f}%).",
        "",
        *ab_section,
        "Every row with both valuations: `gating-value/moves.csv`; the network probe's own tables and charts "
        "(its policy on gating moves against their twins, its values by square): `gating-value/report/`.",
        "",
    ]
    with open(a.md, "w") as f:
        f.write("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""S-Chess tactics suite: generate it from real games, or score a UCI engine on it.

Run through the wrappers (they source scripts/env.sh, so the venv's python with pyffish and
/usr/games/fairy-stockfish are found):

  scripts/tactics-suite [generate options]        # writes data/tactics/suite.epd
  scripts/tactics-suite-score [score options]     # solve rate of a UCI engine

generate
  Source positions: every position of the seirawan games in the source PGNs (file order),
  then, while fewer than --count positions are kept or a required kind (mate, gate, capture,
  quiet) is missing, new Fairy-Stockfish games this script plays itself (seeded random
  opening plies, then a low depth with a seeded choice among MultiPV lines; written to
  --games-out). One Fairy-Stockfish process, Threads 1, Hash 16, `ucinewgame` before every
  search, fixed depths: the same seed and inputs give the same suite. Per position, in order:
    1. pre-filter, depth --pre-depth, MultiPV 2 (loose thresholds, with a best-second gap),
    2. pre-filter, depth --pre2-depth, MultiPV 2 (tighter),
    3. oracle, depth --depth (>= 14), MultiPV 2: keep the position when the best line is
       >= --best-cp (or a mate for the side to move) and the second line is <= --second-cp
       and not a mate for the side to move (a second line that gets mated counts as <= it).
  Positions with fewer than 2 legal moves are skipped; positions are de-duplicated on the
  FEN without its two move counters (first occurrence wins); at most --per-game positions
  per game, at least --min-gap plies apart. Nothing looks at szero.
  Kind of the best move, one per move, precedence mate > promotion > gate > capture > quiet:
    mate       the oracle's best line is a mate for the side to move
    promotion  a pawn promotes (to any piece, E and H included)
    gate       the move places a hand piece (E/H) on the vacated square, castling gates too
    capture    the move captures (en passant included)
    quiet      anything else (castling without a gate included)

score
  For each EPD line: `ucinewgame`, `position fen <FEN>`, `go <limit>`; the position is solved
  when `bestmove` equals the uci move in c0. Prints the solve rate overall and per kind.
"""
import argparse
import json
import os
import random
import re
import shlex
import subprocess
import sys
import time

import pyffish as sf

V = "seirawan"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SOURCES = [
    "data/tactics/sources/fairy-stockfish-d8.pgn",
    "data/tactics/sources/mcts-material-seirawan.pgn",
    "fuzz/corpus/pgn/selfplay0.pgn",
    "fuzz/corpus/pgn/selfplay1.pgn",
    "fuzz/corpus/pgn/selfplay2.pgn",
    "fuzz/corpus/pgn/selfplay3.pgn",
]
KINDS = ["mate", "promotion", "gate", "capture", "quiet"]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# The UCI engine process: scripts/uci_engine.py.
from uci_engine import Engine  # noqa: E402


def multipv_lines(info):
    """{k: (depth, ('cp'|'mate', n), pv)} from the deepest complete iteration, per line k."""
    by_depth = {}
    for l in info:
        t = l.split()
        if not t or t[0] != "info" or "multipv" not in t or "score" not in t or "pv" not in t:
            continue
        if "lowerbound" in t or "upperbound" in t:
            continue
        d = int(t[t.index("depth") + 1])
        k = int(t[t.index("multipv") + 1])
        i = t.index("score")
        score = (t[i + 1], int(t[i + 2]))
        pv = t[t.index("pv") + 1:]
        by_depth.setdefault(d, {})[k] = (d, score, pv)
    if not by_depth:
        return {}
    return by_depth[max(by_depth)]


def fmt_score(s):
    return f"{s[0]} {s[1]}"


def is_mate_for_mover(s):
    return s[0] == "mate" and s[1] > 0


def passes(lines, best_cp, second_cp, min_gap=0):
    """Best line >= best_cp or a mate for the mover; second line <= second_cp and not a mate
    for the mover (being mated counts as <= second_cp); best - second >= min_gap (cp only)."""
    if 1 not in lines or 2 not in lines:
        return False
    b, s = lines[1][1], lines[2][1]
    best_ok = is_mate_for_mover(b) or (b[0] == "cp" and b[1] >= best_cp)
    second_ok = (s[0] == "cp" and s[1] <= second_cp) or (s[0] == "mate" and s[1] <= 0)
    gap_ok = not (b[0] == "cp" and s[0] == "cp") or b[1] - s[1] >= min_gap
    return best_ok and second_ok and gap_ok


# ----------------------------------------------------------------------------- PGN reading


def read_pgn(path):
    """[(headers, movetext)] for every game in the file."""
    games, hdr, body = [], {}, []
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("["):
            if body:
                games.append((hdr, " ".join(body)))
                hdr, body = {}, []
            m = re.match(r'\[(\w+)\s+"(.*)"\]\s*$', line)
            if m:
                hdr[m.group(1)] = m.group(2)
        elif line.strip() and not line.startswith("%"):
            body.append(line)
    if body or hdr:
        games.append((hdr, " ".join(body)))
    return games


def san_tokens(body):
    body = re.sub(r"\{[^}]*\}", " ", body)
    body = re.sub(r";[^\n]*", " ", body)
    while "(" in body:
        nb = re.sub(r"\([^()]*\)", " ", body)
        if nb == body:
            break
        body = nb
    out = []
    for t in body.split():
        t = re.sub(r"^\d+\.(\.\.)?", "", t)
        if not t or t in ("1-0", "0-1", "1/2-1/2", "*") or t.startswith("$"):
            continue
        out.append(t)
    return out


def board_of(fen):
    """{square: piece letter} of a FEN's board part (hand part ignored)."""
    rows = fen.split()[0].split("[")[0].split("/")
    sq = {}
    for r, row in enumerate(rows):
        f = 0
        for c in row:
            if c.isdigit():
                f += int(c)
            else:
                sq["abcdefgh"[f] + str(8 - r)] = c
                f += 1
    return sq


SAN_RE = re.compile(r"^([KQRBNEH])?([a-h])?([1-8])?x?([a-h][1-8])(?:=?([QRBNEH]))?(?:/([EH]))?$")


def norm_san(s):
    return re.sub(r"[+#!?]+$", "", s)


def san_to_uci(fen, san, legal):
    """The legal move whose SAN is san; None when none or ambiguous."""
    s = norm_san(san).replace("0-0", "O-O")
    board = board_of(fen)
    cands = None
    m = SAN_RE.match(s)
    if m and not s.startswith("O-O"):
        piece, ff, fr, dest, promo, gate = m.groups()
        piece = piece or "P"
        cands = []
        for u in legal:
            if u[2:4] != dest:
                continue
            p = board.get(u[0:2], "?").upper()
            if p != piece:
                continue
            if ff and u[0] != ff or fr and u[1] != fr:
                continue
            suffix = u[4:].lower()
            want = (promo or gate or "").lower()
            if suffix != want:
                continue
            cands.append(u)
        if len(cands) == 1:
            return cands[0]
    # slow path: compare with pyffish's own SAN (castling, unusual spellings, ambiguity)
    pool = cands if cands else legal
    hits = [u for u in pool if norm_san(sf.get_san(V, fen, u)) == s]
    return hits[0] if len(hits) == 1 else None


def game_positions(hdr, body):
    """[(ply, fen, legal moves, move played)] of one PGN game, until it ends or a SAN fails."""
    fen = sf.get_fen(V, hdr.get("FEN", sf.start_fen(V)), [])
    out = []
    for ply, san in enumerate(san_tokens(body)):
        legal = sf.legal_moves(V, fen, [])
        u = san_to_uci(fen, san, legal)
        if u is None:
            log(f"  stop at ply {ply}: SAN {san!r} not matched uniquely in {fen}")
            break
        out.append((ply, fen, legal, u))
        fen = sf.get_fen(V, fen, [u])
    else:
        legal = sf.legal_moves(V, fen, [])
        out.append((len(out), fen, legal, None))
    return out


# ----------------------------------------------------------------------------- new games


def play_game(engine, seed, g, a):
    """Generated game g (1-based): --open-plies seeded random plies, then Fairy-Stockfish at
    --play-depth with MultiPV --play-multipv, playing its first line with probability
    --best-prob and else one of the other lines uniformly (seeded). Ends at mate, stalemate,
    a threefold repetition of the FEN without counters, the 50-move rule, or --max-plies.
    Returns (result, [(ply, fen, legal, move)])."""
    rng = random.Random(f"tactics-suite-game-{seed}-{g}")
    fen = sf.get_fen(V, sf.start_fen(V), [])
    pos, seen, result = [], {}, "*"
    for ply in range(a.max_plies + 1):
        legal = sf.legal_moves(V, fen, [])
        key = fen_key(fen)
        seen[key] = seen.get(key, 0) + 1
        if not legal:
            r = sf.game_result(V, fen, [])
            result = "1/2-1/2" if r == 0 else ("1-0" if (r > 0) == (ply % 2 == 0) else "0-1")
        elif seen[key] >= 3 or int(fen.split()[-2]) >= 100:
            result = "1/2-1/2"
        if not legal or result != "*" or ply == a.max_plies:
            pos.append((ply, fen, legal, None))
            break
        if ply < a.open_plies:
            mv = rng.choice(sorted(legal))
        else:
            _, info = engine.go(fen, f"depth {a.play_depth}")
            lines = multipv_lines(info)
            choices = [lines[k][2][0] for k in sorted(lines) if lines[k][2]]
            choices = [c for c in choices if c in legal] or [sorted(legal)[0]]
            if len(choices) == 1 or rng.random() < a.best_prob:
                mv = choices[0]
            else:
                mv = rng.choice(choices[1:])
        pos.append((ply, fen, legal, mv))
        fen = sf.get_fen(V, fen, [mv])
    return result, pos


def write_pgn(f, g, result, moves, a):
    f.write(f'[Event "tactics-suite generated game {g}"]\n[Round "{g}"]\n[Variant "Seirawan"]\n'
            f'[Result "{result}"]\n[Annotator "seed {a.seed}, {a.open_plies} random plies, '
            f'then depth {a.play_depth} MultiPV {a.play_multipv} best-prob {a.best_prob}"]\n\n')
    sans = sf.get_san_moves(V, sf.start_fen(V), moves) if moves else []
    toks = []
    for i, san in enumerate(sans):
        if i % 2 == 0:
            toks.append(f"{i // 2 + 1}.")
        toks.append(san)
    toks.append(result)
    line = ""
    for t in toks:
        if line and len(line) + len(t) + 1 > 79:
            f.write(line + "\n")
            line = t
        else:
            line = f"{line} {t}" if line else t
    f.write(line + "\n\n")
    f.flush()


# ----------------------------------------------------------------------------- generate


def kind_of(fen, move, best_score):
    if is_mate_for_mover(best_score):
        return "mate"
    board = board_of(fen)
    piece = board.get(move[0:2], "?")
    if piece.upper() == "P" and move[3] in "18":
        return "promotion"
    if len(move) == 5:
        return "gate"
    if sf.is_capture(V, fen, [], move):
        return "capture"
    return "quiet"


def fen_key(fen):
    return " ".join(fen.split()[:4])


class Miner:
    """Runs the three passes over one game's positions; keeps what the oracle confirms."""

    def __init__(self, eng, a):
        self.eng, self.a = eng, a
        self.seen, self.kept = set(), []
        self.stats = {"games": 0, "positions_read": 0, "distinct": 0, "pre_pass": 0, "pre2_pass": 0,
                      "oracle_pass": 0}
        self.wall = {"pre": 0.0, "pre2": 0.0, "oracle": 0.0}
        self.trace = open(a.trace, "w") if a.trace else None

    def search(self, stage, fen, depth):
        t0 = time.time()
        best, info = self.eng.go(fen, f"depth {depth}")
        self.wall[stage] += time.time() - t0
        return best, multipv_lines(info)

    def game(self, src, gi, pos):
        a, st = self.a, self.stats
        st["games"] += 1
        st["positions_read"] += len(pos)
        mine, last = 0, -10 ** 9
        for ply, fen, legal, _ in pos:
            if mine >= a.per_game:
                break
            if ply < a.min_ply or len(legal) < 2 or ply - last < a.min_gap:
                continue
            k = fen_key(fen)
            if k in self.seen:
                continue
            self.seen.add(k)
            st["distinct"] += 1
            _, pre = self.search("pre", fen, a.pre_depth)
            if not passes(pre, a.pre_best_cp, a.pre_second_cp, a.pre_gap):
                continue
            st["pre_pass"] += 1
            _, pre2 = self.search("pre2", fen, a.pre2_depth)
            if not passes(pre2, a.pre2_best_cp, a.pre2_second_cp):
                continue
            st["pre2_pass"] += 1
            best, lines = self.search("oracle", fen, a.depth)
            ok = passes(lines, a.best_cp, a.second_cp)
            if self.trace:
                short = lambda ls: {k: [v[1], v[2][:1]] for k, v in ls.items()}
                self.trace.write(json.dumps({"src": src, "game": gi, "ply": ply, "fen": fen,
                                             "ok": ok, "pre": short(pre), "pre2": short(pre2),
                                             "oracle": short(lines)}) + "\n")
                self.trace.flush()
            if not ok:
                continue
            if lines[1][0] < a.depth or not lines[1][2] or lines[1][2][0] != best or best not in legal:
                log(f"  skip {fen}: oracle depth/bestmove mismatch ({best}, {lines[1]})")
                continue
            st["oracle_pass"] += 1
            self.kept.append({"fen": fen, "uci": best, "san": sf.get_san(V, fen, best),
                              "kind": kind_of(fen, best, lines[1][1]), "best": lines[1][1],
                              "second": lines[2][1], "depth": lines[1][0], "source": src,
                              "game": gi, "ply": ply})
            mine, last = mine + 1, ply

    def counts(self):
        return {k: sum(1 for x in self.kept if x["kind"] == k) for k in KINDS}

    def progress(self, t_start):
        w = self.wall
        log(f"  {self.stats} kept {len(self.kept)} {self.counts()}; search wall pre "
            f"{w['pre']:.0f} s, pre2 {w['pre2']:.0f} s, oracle {w['oracle']:.0f} s; "
            f"total wall {time.time() - t_start:.0f} s")


def cmd_generate(a):
    t_wall = time.time()
    if a.depth < 14:
        sys.exit("tactics-suite: the oracle depth must be >= 14")
    eng = Engine([a.engine], [("Threads", 1), ("Hash", 16), ("MultiPV", 2)])
    log(f"oracle engine: {eng.name}")
    miner = Miner(eng, a)
    required = ("mate", "gate", "capture", "quiet")

    # 1. every seirawan game of the source PGNs, in file order
    for src in a.sources:
        path = src if os.path.isabs(src) else os.path.join(ROOT, src)
        n_all = n_used = 0
        for gi, (hdr, body) in enumerate(read_pgn(path), 1):
            if a.games_per_source and gi > a.games_per_source:
                break
            n_all += 1
            if hdr.get("Variant", "").lower() != V:
                continue
            miner.game(src, gi, game_positions(hdr, body))
            n_used += 1
            if n_used % 25 == 0:
                log(f"{src}: {n_used} games")
                miner.progress(t_wall)
        log(f"source {src}: {n_used} of {n_all} games are {V}")
        miner.progress(t_wall)
    from_sources = len(miner.kept)

    # 2. new Fairy-Stockfish games until --count positions and every required kind
    def done():
        c = miner.counts()
        return len(miner.kept) >= a.count and all(c[k] > 0 for k in required)

    new_games = 0
    if not done() and a.max_new_games > 0:
        if a.games_out:
            os.makedirs(os.path.dirname(os.path.abspath(a.games_out)), exist_ok=True)
        pgn = open(a.games_out, "w") if a.games_out else None
        while not done() and new_games < a.max_new_games:
            new_games += 1
            # one engine process plays (MultiPV --play-multipv) and then judges (MultiPV 2)
            eng.send(f"setoption name MultiPV value {a.play_multipv}")
            result, pos = play_game(eng, a.seed, new_games, a)
            eng.send("setoption name MultiPV value 2")
            if pgn:
                write_pgn(pgn, new_games, result, [m for _, _, _, m in pos if m], a)
            miner.game("generated", new_games, pos)
            if new_games % 10 == 0:
                log(f"generated: {new_games} games")
                miner.progress(t_wall)
        if pgn:
            pgn.close()
    miner.progress(t_wall)
    eng_cpu = eng.cpu_seconds()
    eng.close()

    kept = miner.kept
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        for i, x in enumerate(kept, 1):
            f.write(f'{x["fen"]} bm {x["san"]}; id "tac-{i:04d}"; c0 "uci {x["uci"]}"; '
                    f'c1 "kind {x["kind"]}"; '
                    f'c2 "best {fmt_score(x["best"])} second {fmt_score(x["second"])} depth {x["depth"]}"; '
                    f'c3 "source {x["source"]} game {x["game"]} ply {x["ply"]}";\n')
    by_src = {}
    for x in kept:
        by_src[x["source"]] = by_src.get(x["source"], 0) + 1
    counts = miner.counts()
    summary = {
        "positions": len(kept), "kinds": counts, "by_source": by_src,
        "from_sources": from_sources, "new_games": new_games, "seed": a.seed,
        "depth": a.depth, "best_cp": a.best_cp, "second_cp": a.second_cp,
        "pre_depth": a.pre_depth, "pre_best_cp": a.pre_best_cp,
        "pre_second_cp": a.pre_second_cp, "pre_gap": a.pre_gap,
        "pre2_depth": a.pre2_depth, "pre2_best_cp": a.pre2_best_cp,
        "pre2_second_cp": a.pre2_second_cp,
        "per_game": a.per_game, "min_gap": a.min_gap, "min_ply": a.min_ply, **miner.stats,
        "wall_s": round(time.time() - t_wall), "engine_cpu_s": round(eng_cpu),
        "python_cpu_s": round(time.process_time()),
        "search_wall_s": {k: round(v) for k, v in miner.wall.items()},
        "engine": eng.name, "out": a.out,
    }
    print(json.dumps(summary, indent=1))
    missing = [k for k in required if counts[k] == 0]
    if missing:
        log(f"tactics-suite: no position of kind {missing}")
        sys.exit(1)
    if len(kept) < a.count:
        log(f"tactics-suite: only {len(kept)} positions (< {a.count})")
        sys.exit(1)


# ----------------------------------------------------------------------------- score


def read_epd(path):
    out = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        t = line.split()
        fen = " ".join(t[:6])
        ops = dict(re.findall(r'(\w+) "([^"]*)"', line))
        out.append({"fen": fen, "id": ops["id"], "uci": ops["c0"].split()[1],
                    "kind": ops["c1"].split()[1]})
    return out


def cmd_score(a):
    suite = read_epd(a.epd)
    if a.limit:
        suite = suite[:a.limit]
    opts = []
    for o in a.option:
        name, _, value = o.partition("=")
        opts.append((name, value))
    eng = Engine(shlex.split(a.engine), opts, variant=None if a.no_variant else V)
    t0 = time.time()
    results = []
    for i, x in enumerate(suite, 1):
        best, _ = eng.go(x["fen"], a.go)
        results.append({"id": x["id"], "kind": x["kind"], "answer": x["uci"], "bestmove": best,
                        "solved": best == x["uci"]})
        if a.verbose:
            log(f'{x["id"]} {x["kind"]:9} {x["uci"]:6} {best:6} {"ok" if best == x["uci"] else "--"}')
    eng.close()
    wall = time.time() - t0

    def rate(rs):
        n, s = len(rs), sum(r["solved"] for r in rs)
        return {"solved": s, "total": n, "pct": round(100.0 * s / n, 1) if n else None}

    per_kind = {k: rate([r for r in results if r["kind"] == k]) for k in KINDS
                if any(r["kind"] == k for r in results)}
    report = {"engine": a.engine, "name": eng.name, "go": a.go, "options": dict(opts),
              "suite": os.path.relpath(os.path.abspath(a.epd), ROOT), "overall": rate(results), "kinds": per_kind,
              "wall_s": round(wall, 1)}
    o = report["overall"]
    print(f'{eng.name} (go {a.go}) on {report["suite"]}: {o["solved"]}/{o["total"]} = {o["pct"]}%  '
          f'({wall:.0f} s)')
    for k, r in per_kind.items():
        print(f'  {k:9} {r["solved"]:4}/{r["total"]:<4} {r["pct"]:5.1f}%')
    if a.json:
        report["positions"] = results
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate", help="make the suite")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--engine", default="/usr/games/fairy-stockfish")
    g.add_argument("--sources", nargs="*", default=DEFAULT_SOURCES, help="PGN files (repo-relative)")
    g.add_argument("--out", default=os.path.join(ROOT, "data/tactics/suite.epd"))
    g.add_argument("--depth", type=int, default=14, help="oracle depth (>= 14)")
    g.add_argument("--best-cp", type=int, default=250)
    g.add_argument("--second-cp", type=int, default=50)
    g.add_argument("--pre-depth", type=int, default=6)
    g.add_argument("--pre-best-cp", type=int, default=150)
    g.add_argument("--pre-second-cp", type=int, default=150)
    g.add_argument("--pre-gap", type=int, default=100, help="pre-filter: best - second >= this")
    g.add_argument("--pre2-depth", type=int, default=10)
    g.add_argument("--pre2-best-cp", type=int, default=200)
    g.add_argument("--pre2-second-cp", type=int, default=100)
    g.add_argument("--per-game", type=int, default=3, help="at most this many positions per game")
    g.add_argument("--min-gap", type=int, default=6, help="plies between two positions of a game")
    g.add_argument("--min-ply", type=int, default=0, help="skip positions before this ply")
    g.add_argument("--count", type=int, default=320,
                   help="play new games until this many positions (and every kind) are kept")
    g.add_argument("--max-new-games", type=int, default=400)
    g.add_argument("--games-out", default=os.path.join(ROOT, "data/tactics/generated.pgn"),
                   help="the generated games, numbered as in c3 'source generated game N'")
    g.add_argument("--games-per-source", type=int, default=0,
                   help="read only the first N games of each source (for sizing runs)")
    g.add_argument("--trace", help="write every oracle run (pre, pre2 and oracle lines) here, JSONL")
    g.add_argument("--open-plies", type=int, default=6)
    g.add_argument("--play-depth", type=int, default=3)
    g.add_argument("--play-multipv", type=int, default=3)
    g.add_argument("--best-prob", type=float, default=0.7)
    g.add_argument("--max-plies", type=int, default=160)
    s = sub.add_parser("score", help="solve rate of a UCI engine")
    s.add_argument("--engine", default="/usr/games/fairy-stockfish", help="command line")
    s.add_argument("--epd", default=os.path.join(ROOT, "data/tactics/suite.epd"))
    s.add_argument("--go", default="depth 1", help="go parameters: 'depth 2', 'nodes 800', 'movetime 1000'")
    s.add_argument("--option", action="append", default=[], help="NAME=VALUE (repeatable)")
    s.add_argument("--no-variant", action="store_true", help="do not set UCI_Variant")
    s.add_argument("--limit", type=int, default=0, help="only the first N positions")
    s.add_argument("--json", help="write the report (with per-position results) here")
    s.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if a.cmd == "generate":
        a.sources = list(a.sources)
        cmd_generate(a)
    else:
        cmd_score(a)


if __name__ == "__main__":
    main()

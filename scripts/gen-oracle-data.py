#!/usr/bin/env python3
"""Generate oracle data with pyffish (Fairy-Stockfish), in the shared formats:

  moves JSONL: {"fen": F, "moves": [{"uci", "san", "fen"}...]} sorted by uci
  perft EPD:   FEN ;D1 n ;D2 n [;D3 n]

Positions come from seeded random games biased towards gating, castling, promotion and
captures, so that rare rules are exercised. Used to check `schess` on positions it has never
seen:  SZERO_EXTRA_MOVES=out.jsonl cargo test -p schess --test oracle_moves
        szero perft --epd out.epd
"""
import argparse
import json
import random

import pyffish as sf

V = "seirawan"


def pick(rng, fen, moves, legal):
    weights = []
    for m in legal:
        w = 1.0
        if len(m) == 5:
            w += 2.0  # gates and promotions
        if m[:2] in ("e1", "e8", "h1", "h8", "a1", "a8") and m[2:4] in ("g1", "c1", "g8", "c8", "e1", "e8"):
            w += 3.0  # castling
        weights.append(w)
    return rng.choices(legal, weights)[0]


def perft(fen, moves, depth):
    legal = sf.legal_moves(V, fen, moves)
    if depth == 1:
        return len(legal)
    return sum(perft(fen, moves + [m], depth - 1) for m in legal)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--moves-out", required=True)
    ap.add_argument("--epd-out")
    ap.add_argument("--perft-depth", type=int, default=2)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    start = sf.start_fen(V)
    out_moves = open(args.moves_out, "w")
    out_epd = open(args.epd_out, "w") if args.epd_out else None
    made = 0
    while made < args.positions:
        plies = rng.randint(1, 140)
        moves = []
        for _ in range(plies):
            legal = sf.legal_moves(V, start, moves)
            if not legal:
                break
            moves.append(pick(rng, start, moves, legal))
        fen = sf.get_fen(V, start, moves)
        legal = sorted(sf.legal_moves(V, fen, []))
        rec = {
            "fen": fen,
            "moves": [
                {"uci": u, "san": sf.get_san(V, fen, u), "fen": sf.get_fen(V, fen, [u])} for u in legal
            ],
        }
        out_moves.write(json.dumps(rec, separators=(",", ":")) + "\n")
        if out_epd:
            counts = " ".join(f";D{d} {perft(fen, [], d)}" for d in range(1, args.perft_depth + 1))
            out_epd.write(f"{fen} {counts}\n")
        made += 1
    out_moves.close()
    if out_epd:
        out_epd.close()


if __name__ == "__main__":
    main()

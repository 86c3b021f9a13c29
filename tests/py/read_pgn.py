#!/usr/bin/env python3
"""Reads PGN games written by szero back with pyffish (Fairy-Stockfish) and checks them.

For every game: each SAN token must name exactly one legal move as pyffish writes it
(`get_san`), or be the disambiguated form of one (szero disambiguates gating moves where
pyffish's string is ambiguous); the moves must be legal for pyffish; a `checkmate` game must
end in a position pyffish scores as mate; a [FEN] tag must parse. Prints `ok N games`.
"""
import re
import sys

import pyffish as sf

V = "seirawan"
TOKEN = re.compile(r"\{[^}]*\}|\S+")


def games(text):
    for block in re.split(r"\n\s*\n(?=\[)", text.strip()):
        tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', block, re.M))
        body = "\n".join(l for l in block.splitlines() if not l.startswith("["))
        yield tags, body


def resolve(fen, moves, san):
    legal = sf.legal_moves(V, fen, moves)
    cur = sf.get_fen(V, fen, moves)
    # pyffish needs ~2.5 ms a call: only ask for moves that can fit the token.
    if san.startswith("O-O"):
        legal = [m for m in legal if m[:2] in ("e1", "e8", "a1", "h1", "a8", "h8") and len(m) >= 4]
    else:
        dest = re.findall(r"[a-h][1-8]", san.split("/")[0])
        if dest:
            legal = [m for m in legal if m[2:4] == dest[-1]]
    sans = {m: sf.get_san(V, cur, m) for m in legal}
    exact = [m for m, s in sans.items() if s == san]
    if len(exact) == 1:
        return exact[0]
    # Disambiguated form: piece letter, file/rank, then pyffish's string without the letter.
    m = re.match(r"^([NBRQKEH])([a-h]?[1-8]?)(.+)$", san)
    if m and m.group(2):
        piece, dis, rest = m.groups()
        def fits(u):
            if len(dis) == 2:
                return u[:2] == dis
            return u[0] == dis if dis in "abcdefgh" else u[1] == dis
        cands = [u for u, s in sans.items() if s == piece + rest and fits(u)]
        if len(cands) == 1:
            return cands[0]
    raise SystemExit(f"cannot read {san!r} in {cur}: candidates {exact}")


def main():
    n = 0
    for path in sys.argv[1:]:
        for tags, body in games(open(path).read()):
            assert tags.get("Variant") == "Seirawan", tags
            fen = tags.get("FEN", sf.start_fen(V))
            moves = []
            for tok in TOKEN.findall(body):
                if tok.startswith("{") or re.match(r"^\d+\.+$", tok) or tok in ("1-0", "0-1", "1/2-1/2", "*"):
                    continue
                moves.append(resolve(fen, moves, tok))
            if tags.get("Termination") == "checkmate":
                assert not sf.legal_moves(V, fen, moves), "mate position has moves"
                assert sf.gives_check(V, fen, moves), "mate without check"
            n += 1
    print(f"ok {n} games")


if __name__ == "__main__":
    main()

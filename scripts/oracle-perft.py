#!/usr/bin/env python3
"""Write a perft suite (`FEN ;D1 n ;D2 n ...`) for the FENs of a moves JSONL file (or a
plain list of FENs, one per line), counted by the Debian fairy-stockfish engine (`go perft`).

  scripts/oracle-perft.py --fens data.jsonl --depth 3 > suite.epd
  szero perft --epd suite.epd
"""
import argparse
import json
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fens", required=True)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--engine", default="fairy-stockfish")
    args = ap.parse_args()
    fens = []
    for line in open(args.fens):
        line = line.strip()
        if line:
            fens.append(json.loads(line)["fen"] if line.startswith("{") else line.split(";")[0].strip())
    p = subprocess.Popen([args.engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(s):
        p.stdin.write(s + "\n")
        p.stdin.flush()

    def nodes():
        while True:
            line = p.stdout.readline()
            if not line:
                sys.exit("engine exited")
            if line.startswith("Nodes searched"):
                return int(line.split(":")[1])

    send("uci")
    send("setoption name UCI_Variant value seirawan")
    for fen in fens:
        send(f"position fen {fen}")
        counts = []
        for d in range(1, args.depth + 1):
            send(f"go perft {d}")
            counts.append(f";D{d} {nodes()}")
        print(fen, " ".join(counts), flush=True)
    send("quit")


if __name__ == "__main__":
    main()

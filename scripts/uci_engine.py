"""A UCI engine process for the scripts (tactics suite, gating value): start it with its
options and variant, search a position afresh, read its lines. Fairy-Stockfish by default."""

import os
import subprocess


class Engine:
    def __init__(self, cmd=("fairy-stockfish",), options=(), variant="seirawan"):
        cmd = list(cmd)
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.send("uci")
        lines = self.until("uciok")
        self.name = next((l[len("id name "):] for l in lines if l.startswith("id name ")), cmd[0])
        has_variant = any(l.startswith("option name UCI_Variant ") for l in lines)
        if variant and has_variant:
            self.send(f"setoption name UCI_Variant value {variant}")
        for name, value in options:
            self.send(f"setoption name {name} value {value}")
        self.ready()

    def send(self, s):
        self.p.stdin.write(s + "\n")
        self.p.stdin.flush()

    def until(self, prefix):
        lines = []
        while True:
            l = self.p.stdout.readline()
            if not l:
                raise RuntimeError(f"engine exited while waiting for {prefix!r}")
            l = l.strip()
            lines.append(l)
            if l.startswith(prefix):
                return lines

    def ready(self):
        self.send("isready")
        self.until("readyok")

    def go(self, fen, limit):
        """Fresh search (hash and histories cleared) on fen; returns (bestmove, info lines)."""
        self.send("ucinewgame")
        self.send(f"position fen {fen}")
        self.ready()
        self.send(f"go {limit}")
        lines = self.until("bestmove")
        best = lines[-1].split()[1] if len(lines[-1].split()) > 1 else "(none)"
        return best, lines[:-1]

    def cpu_seconds(self):
        try:
            st = open(f"/proc/{self.p.pid}/stat").read().rsplit(")", 1)[1].split()
            return (int(st[11]) + int(st[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            return 0.0

    def close(self):
        try:
            self.send("quit")
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()

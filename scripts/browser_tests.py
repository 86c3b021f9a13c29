#!/usr/bin/env python3
"""End-to-end tests of `szero serve` in a real browser (scripts/browser-tests runs them).

Starts `szero serve` on a free port of 127.0.0.1 and drives Debian's chromium, headless,
through Playwright. Moves are made by clicking the board's squares, as a user would; every
move this page sends is checked as the exact UCI string expected (a gate, a castling
gate, an Elephant promotion), every reply of the engine is checked legal by pyffish
(Fairy-Stockfish, the reference), the analysis must draw arrows and a value, a bad FEN
must show its error in the page, the exported PGN must read back with pyffish move
for move, and positions held back as on a slow network (a move typed before the new game
has landed; an answer overtaken by a later one) must not put a stale position on the board. Prints `browser tests: P passed, F failed` and exits non-zero if any failed.

Usage: browser_tests.py SZERO_BINARY [CHROMIUM]
With SZERO_SCREENSHOT=PATH it also saves a screenshot of the analysis (docs/serve.png).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback

import pyffish as sf
from playwright.sync_api import expect, sync_playwright

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "py"))
from read_pgn import TOKEN, games, resolve  # noqa: E402

V = "seirawan"
START = sf.start_fen(V)
passed = []
failed = []


def check(name, fn):
    t = time.time()
    try:
        fn()
    except Exception:  # noqa: BLE001 - every failure is reported, then the next test runs
        failed.append(name)
        print(f"FAILED: {name}\n{traceback.format_exc()}", flush=True)
        return
    passed.append(name)
    print(f"ok: {name} ({time.time() - t:.1f} s)", flush=True)


def start_server(binary):
    proc = subprocess.Popen(
        [binary, "serve", "--port", "0", "--max-searches", "4", "--max-seconds", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    m = re.match(r"szero serve: (http://\S+)", line)
    if not m:
        proc.kill()
        raise SystemExit(f"szero serve did not start: {line!r} {proc.stderr.read()}")
    return proc, m.group(1)


class Page:
    """The page, with the board's squares clicked by their names."""

    def __init__(self, page):
        self.page = page
        self.requests = []  # (path, JSON body) of every POST the page made
        page.on("request", self._record)
        self.errors = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _record(self, request):
        if request.method == "POST":
            self.requests.append((request.url.split("/", 3)[3], json.loads(request.post_data or "null")))

    def square(self, name, orientation="white"):
        box = self.page.locator("cg-board").bounding_box()
        size = box["width"] / 8
        file, rank = ord(name[0]) - ord("a"), int(name[1]) - 1
        if orientation == "black":
            file, rank = 7 - file, 7 - rank
        return box["x"] + (file + 0.5) * size, box["y"] + (7 - rank + 0.5) * size

    def click_move(self, orig, dest):
        for sq in (orig, dest):
            x, y = self.square(sq)
            self.page.mouse.click(x, y)

    def state(self):
        return self.page.evaluate("() => ({line: window.szero.state.line, cursor: window.szero.state.cursor,"
                                  " sent: window.szero.sent, view: window.szero.state.view})")

    def wait_plies(self, n, timeout=30_000):
        self.page.wait_for_function(
            f"() => window.szero.state.line.length === {n} && window.szero.state.view"
            f" && window.szero.state.view.history.length === {n} && !window.szero.state.thinking"
            " && window.szero.pending === 0",
            timeout=timeout,
        )

    def pick(self, uci):
        """Chooses `uci` in the gate/promotion picker, which must offer it."""
        picker = self.page.locator("#picker")
        expect(picker).to_be_visible()
        self.page.locator(f'#picker-options button[data-uci="{uci}"]').click()
        expect(picker).to_be_hidden()

    def picker_options(self):
        expect(self.page.locator("#picker")).to_be_visible()
        return self.page.locator("#picker-options button").evaluate_all("bs => bs.map(b => b.dataset.uci)")

    def settle(self):
        """Waits until a position has landed and no other is on its way (a change of the
        engine's side sends one). A click before then meets a board without the server's
        legal moves, or one a landing position redraws between its two clicks."""
        self.page.wait_for_function("() => window.szero.state.view && window.szero.pending === 0")

    def new_game_from_fen(self, fen):
        self.page.select_option("#engine-side", "none")
        self.settle()
        self.page.fill("#fen", fen)
        self.page.click("#set-fen")
        self.page.wait_for_function(
            f"() => window.szero.state.view && window.szero.state.start === {json.dumps(fen)}"
            " && window.szero.state.line.length === 0 && window.szero.pending === 0")


def legal_for_pyffish(start, moves, reply):
    legal = sf.legal_moves(V, start, moves)
    assert reply in legal, f"engine reply {reply} is not legal for pyffish after {moves}: {sorted(legal)}"


def main():
    binary = sys.argv[1]
    chromium = sys.argv[2] if len(sys.argv) > 2 else "/usr/bin/chromium"
    server, url = start_server(binary)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1300, "height": 950})
            ui = Page(page)
            page.goto(url)
            page.wait_for_selector("cg-board piece")
            # szero (the shipped network, alpha-beta) answers as Black in 300 ms a move.
            page.fill("#limit", "300")
            page.select_option("#engine-side", "black")
            ui.settle()

            def gate_against_the_engine():
                ui.click_move("b1", "c3")
                ui.pick("b1c3e")
                ui.wait_plies(2)
                s = ui.state()
                assert s["sent"] == ["b1c3e"], s["sent"]
                plays = [b for path, b in ui.requests if path == "api/play"]
                assert plays and plays[-1]["game"]["moves"] == ["b1c3e"], plays
                legal_for_pyffish(START, ["b1c3e"], s["line"][1])
                # A plain move (no gate offered: a pawn) is sent as it is.
                ui.click_move("e2", "e4")
                ui.wait_plies(4)
                s = ui.state()
                assert s["sent"] == ["b1c3e", "e2e4"], s["sent"]
                legal_for_pyffish(START, s["line"][:3], s["line"][3])
                assert s["view"]["hands"]["white"] == "H", s["view"]["hands"]

            def castling_gate_on_the_rook_square():
                fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[EHeh] w KQkq - 0 1"
                ui.new_game_from_fen(fen)
                ui.click_move("e1", "h1")  # the king onto its rook: castling, then the gate
                options = ui.picker_options()
                assert sorted(options) == sorted(["e1g1", "e1g1e", "e1g1h", "h1e1e", "h1e1h"]), options
                ui.pick("h1e1h")
                ui.wait_plies(1)
                s = ui.state()
                assert s["sent"][-1] == "h1e1h" and s["line"] == ["h1e1h"], s
                assert s["view"]["history"][0]["san"] == "O-O/Hh1", s["view"]["history"]
                page.select_option("#engine-side", "black")
                ui.wait_plies(2)
                s = ui.state()
                legal_for_pyffish(fen, ["h1e1h"], s["line"][1])
                board = lambda f: f.split(" ")[0].split("[")[0]
                assert board(s["view"]["fen"]) == board(sf.get_fen(V, fen, s["line"])), s["view"]["fen"]

            def elephant_promotion():
                fen = "4k3/1P6/8/8/8/8/8/4K3[] w - - 0 1"
                ui.new_game_from_fen(fen)
                ui.click_move("b7", "b8")
                options = ui.picker_options()
                assert sorted(options) == sorted(f"b7b8{p}" for p in "qrbneh"), options
                ui.pick("b7b8e")
                ui.wait_plies(1)
                s = ui.state()
                assert s["sent"][-1] == "b7b8e", s["sent"]
                assert "E" in s["view"]["fen"].split(" ")[0], s["view"]["fen"]
                page.click("#engine-move")
                ui.wait_plies(2)
                legal_for_pyffish(fen, ["b7b8e"], ui.state()["line"][1])

            def slow_positions(delays_ms):
                """Holds the page's next position requests back, by these many ms each, as
                a slow network would: answers then land late, or out of order."""
                page.evaluate("""(delays) => {
                    window.realFetch = window.realFetch || window.fetch;
                    const left = delays.slice();
                    window.fetch = async (url, opts) => {
                        if (String(url).includes('/api/position') && left.length) {
                            const ms = left.shift();
                            await new Promise((done) => setTimeout(done, ms));
                        }
                        return window.realFetch(url, opts);
                    };
                }""", delays_ms)

            def late_and_out_of_order_positions():
                ui.new_game_from_fen("4k3/1P6/8/8/8/8/8/4K3[] w - - 0 1")  # no pawn on e2
                # A move typed at once after "New game", while the new position is on its
                # way, is judged on the new game (e2e4 is not legal in the old one).
                slow_positions([600])
                page.click("#new-game")
                page.fill("#move-input", "e2e4")
                page.press("#move-input", "Enter")
                ui.wait_plies(1)
                s = ui.state()
                assert s["line"] == ["e2e4"] and s["sent"][-1] == "e2e4", s
                expect(page.locator("#error")).to_be_hidden()
                # Back to the start (its answer held back), then forward again (answered at
                # once): the late answer must not replace the position shown.
                slow_positions([800, 0])
                page.click("#first")
                page.click("#last")
                ui.settle()
                s = ui.state()
                assert s["cursor"] == 1 and len(s["view"]["history"]) == 1, (s["cursor"], s["view"]["history"])
                slow_positions([])

            def enter_moves(line):
                for i, uci in enumerate(line):
                    page.fill("#move-input", uci)
                    page.press("#move-input", "Enter")
                    ui.wait_plies(i + 1)

            def analysis_draws_arrows_and_a_value():
                page.click("#new-game")
                page.select_option("#engine-side", "none")
                line = ["e2e4", "e7e5", "g1f3", "b8c6e", "f1c4"]
                enter_moves(line)
                page.fill("#analyse-seconds", "3")
                page.click("#analyse")
                page.wait_for_function("() => Number(document.getElementById('nodes').dataset.nodes || 0) > 200")
                expect(page.locator("svg.cg-shapes line").first).to_be_attached()
                value = page.locator("#value").inner_text()
                assert re.match(r"^[+-]\d+\.\d\d$|^mate", value), value
                rows = page.locator("#moves-table tbody tr")
                assert rows.count() >= 20, rows.count()
                ucis = rows.evaluate_all("rs => rs.map(r => r.dataset.uci)")
                assert set(ucis) <= set(sf.legal_moves(V, START, line)), ucis
                if os.environ.get("SZERO_SCREENSHOT"):
                    page.screenshot(path=os.environ["SZERO_SCREENSHOT"])
                page.click("#analyse")  # stop
                expect(page.locator("#analyse")).to_have_text("Analyse")

            def bad_fen_shows_its_error():
                page.select_option("#engine-side", "none")
                ui.settle()
                before = ui.state()["line"]
                page.fill("#fen", "rnbqkbnr/pppppppp/8/8 w - - 0 1")
                page.click("#set-fen")
                expect(page.locator("#error")).to_be_visible()
                expect(page.locator("#error")).to_contain_text("bad FEN")
                # The game on the board is untouched.
                assert ui.state()["line"] == before, (ui.state()["line"], before)

            def exported_pgn_reads_back_with_pyffish():
                page.click("#new-game")
                page.select_option("#engine-side", "none")
                line = ["e2e4", "e7e5", "g1f3", "b8c6e", "f1c4", "g8f6h", "h1e1e"]
                enter_moves(line)
                page.click("#export")
                page.wait_for_function("() => document.getElementById('pgn').value.includes('[Variant')")
                pgn = page.locator("#pgn").input_value()
                (tags, body), = list(games(pgn))
                fen = tags.get("FEN", START)
                moves = []
                for tok in TOKEN.findall(body):
                    if tok.startswith("{") or re.match(r"^\d+\.+$", tok) or tok in ("1-0", "0-1", "1/2-1/2", "*"):
                        continue
                    moves.append(resolve(fen, moves, tok))
                assert moves == line, (moves, line)
                # And back into the page, stepped through.
                page.fill("#pgn", pgn)
                page.click("#import")
                ui.wait_plies(len(line))
                page.click("#first")
                page.wait_for_function("() => window.szero.state.cursor === 0")
                page.click("#next")
                page.wait_for_function("() => window.szero.state.cursor === 1 && window.szero.state.view.history.length === 1")
                # Stepped through analysed: each position shown starts its own analysis.
                page.fill("#analyse-seconds", "1")
                page.check("#auto-analyse")
                page.click("#next")
                page.wait_for_function("() => window.szero.state.cursor === 2 && window.szero.state.analysis !== null")
                page.wait_for_function("() => Number(document.getElementById('nodes').dataset.nodes || 0) > 0")
                pv = page.locator("#pv").get_attribute("data-uci").split()
                assert pv and pv[0] in sf.legal_moves(V, START, line[:2]), pv
                page.uncheck("#auto-analyse")
                page.click("#analyse")

            check("a gate against the engine, its replies legal", gate_against_the_engine)
            check("a castling gate on the rook's square", castling_gate_on_the_rook_square)
            check("an Elephant promotion and the engine's reply", elephant_promotion)
            check("positions that land late or out of order", late_and_out_of_order_positions)
            check("analysis draws arrows and a value", analysis_draws_arrows_and_a_value)
            check("a bad FEN shows its error", bad_fen_shows_its_error)
            check("an exported PGN reads back with pyffish", exported_pgn_reads_back_with_pyffish)
            def no_script_errors():
                assert not ui.errors, f"errors in the page: {ui.errors}"

            check("no script errors in the page", no_script_errors)
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    print(f"browser tests: {len(passed)} passed, {len(failed)} failed")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()

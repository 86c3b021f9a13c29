//! A UCI session under abuse: 10,000 random and malformed lines (very long lines, binary
//! bytes, `go` without `position`, `stop` without `go`, `position` with illegal moves,
//! absurd numbers) interleaved with valid commands. The engine must never die, must answer
//! every `isready`, and every `bestmove` must be legal in the position it was given.
//!
//! The test keeps its own model of the position the engine was given, by the protocol's
//! documented rules: a bad FEN leaves the position unchanged, an illegal move sets the
//! position reached before it, `ucinewgame` and `UCI_Variant` set the start position.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use schess::{Game, Position, Variant};
use uci::{Output, UciEngine};

/// Commands the engine knows: garbage lines never start with one, so that the model
/// only has to follow the lines it built on purpose.
const COMMANDS: [&str; 11] =
    ["uci", "isready", "debug", "setoption", "ucinewgame", "position", "go", "stop", "ponderhit", "quit", "d"];

/// The test's model of the engine's position.
struct Model {
    variant: Variant,
    game: Game,
}

impl Model {
    fn reset(&mut self) {
        self.game = Game::new(Position::new(self.variant));
    }

    /// The protocol's rules for `position ...` (see the module doc).
    fn position(&mut self, line: &str) {
        let mut words = line.split_whitespace().skip(1);
        let start = match words.next() {
            Some("startpos") => Position::new(self.variant),
            Some("fen") => {
                let fields: Vec<&str> = words.by_ref().take_while(|w| *w != "moves").collect();
                match Position::from_fen_variant(&fields.join(" "), self.variant) {
                    Ok(p) => p,
                    Err(_) => return,
                }
            }
            _ => return,
        };
        let mut game = Game::new(start);
        let mut rest = words.peekable();
        if rest.peek() == Some(&"moves") {
            rest.next();
        }
        for w in rest {
            if game.play_uci(w).is_err() {
                break;
            }
        }
        self.game = game;
    }
}

/// A random legal game of up to `plies` plies from the start: its FEN and its moves.
fn random_game(rng: &mut SmallRng, variant: Variant, plies: usize) -> (Position, Vec<String>) {
    let mut pos = Position::new(variant);
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.gen_range(0..legal.len())];
        moves.push(m.to_uci());
        pos = pos.play(m).expect("a legal move");
    }
    (pos, moves)
}

fn garbage(rng: &mut SmallRng) -> String {
    let s = match rng.gen_range(0..6) {
        // Binary bytes, read as the engine's input loop reads them.
        0 => {
            let bytes: Vec<u8> = (0..rng.gen_range(1..200)).map(|_| rng.gen()).collect();
            String::from_utf8_lossy(&bytes).replace('\n', " ")
        }
        // A very long line.
        1 => "y".repeat(rng.gen_range(10_000..200_000)),
        // Printable noise.
        2 => (0..rng.gen_range(1..80)).map(|_| rng.gen_range(b' '..=b'~') as char).collect(),
        // Words of the protocol in the wrong places.
        3 => {
            let words =
                ["moves", "fen", "value", "name", "wtime", "nodes", "-1", "e2e4", "18446744073709551616", "startpos"];
            (0..rng.gen_range(1..12)).map(|_| words[rng.gen_range(0..words.len())]).collect::<Vec<_>>().join(" ")
        }
        // Control characters and unicode.
        4 => "\u{0}\u{1b}[2J\u{7f}\u{feff}ü€😀".chars().take(rng.gen_range(1..9)).collect(),
        _ => String::new(),
    };
    let first = s.split_whitespace().next().unwrap_or("");
    if COMMANDS.contains(&first) {
        format!("x{s}")
    } else {
        s
    }
}

/// A `position` line: valid, or with an illegal move, a broken FEN or a missing part.
fn position_line(rng: &mut SmallRng, variant: Variant) -> String {
    let plies = rng.gen_range(0..40);
    let (pos, moves) = random_game(rng, variant, plies);
    let cut = rng.gen_range(0..=moves.len());
    let mut line = match rng.gen_range(0..3) {
        0 => format!("position startpos moves {}", moves.join(" ")),
        1 => format!("position fen {}", pos.fen()),
        _ => format!("position fen {} moves", Position::new(variant).fen()),
    };
    match rng.gen_range(0..8) {
        0 => line.push_str(" e2e5 a1a1"),
        1 => line.push_str(" zzzz"),
        2 => line = format!("position fen {}", &pos.fen()[..pos.fen().len() / 2]),
        3 => line = "position".into(),
        4 => line = format!("position startpos moves {} {}", moves[..cut].join(" "), moves[..cut].join(" ")),
        5 => line = format!("position fen {}[QQQQQQQQQ] w - - 0 1", "8/".repeat(7) + "8"),
        _ => {}
    }
    line
}

fn go_line(rng: &mut SmallRng) -> String {
    match rng.gen_range(0..10) {
        0 => "go".into(),
        1 => format!("go movetime {}", rng.gen_range(0..4)),
        2 => format!("go depth {}", rng.gen_range(0..3)),
        3 => "go nodes 18446744073709551615 movetime 2".into(),
        4 => "go wtime 10 btime 10 winc 0 binc 0 movestogo 1".into(),
        5 => "go nodes -3 depth x movetime".into(),
        6 => "go infinite".into(),
        7 => "go ponder nodes 20".into(),
        8 => "go searchmoves e2e4 zzzz a7a5 nodes 10".into(),
        _ => format!("go nodes {}", rng.gen_range(1..40)),
    }
}

#[test]
fn ten_thousand_hostile_lines_never_kill_the_engine() {
    let mut rng = SmallRng::seed_from_u64(0xab05e);
    let (out, buf) = Output::captured();
    let mut engine = UciEngine::new(out);
    let mut model = Model { variant: Variant::Seirawan, game: Game::new(Position::new(Variant::Seirawan)) };
    // The positions of the `go` commands sent, in order: the searches run one at a time,
    // so the n-th `bestmove` answers the n-th `go`.
    let mut searched: Vec<Position> = Vec::new();
    let mut isready = 0usize;
    for _ in 0..10_000 {
        let line = match rng.gen_range(0..20) {
            0..=8 => garbage(&mut rng),
            9..=10 => position_line(&mut rng, model.variant),
            11..=12 => go_line(&mut rng),
            13 => "isready".into(),
            14 => "stop".into(),
            15 => "ponderhit".into(),
            16 => "ucinewgame".into(),
            17 => match rng.gen_range(0..4) {
                0 => "setoption name UCI_Variant value chess".into(),
                1 => "setoption name UCI_Variant value seirawan".into(),
                2 => format!("setoption name Hash value {}", rng.gen_range(0..100)),
                _ => "setoption name UCI_Variant value crazyhouse".into(),
            },
            18 => "setoption name WeightsFile value /nonexistent/net.safetensors".into(),
            _ => "d".into(),
        };
        let first = line.split_whitespace().next().unwrap_or("");
        match first {
            "position" => model.position(&line),
            "go" => searched.push(model.game.position().clone()),
            "ucinewgame" => model.reset(),
            "setoption" => {
                if let Some(v) = line.strip_prefix("setoption name UCI_Variant value ") {
                    if let Some(v) = Variant::from_name(v) {
                        model.variant = v;
                        model.reset();
                    }
                }
            }
            "isready" => isready += 1,
            _ => {}
        }
        engine.handle(&line);
    }
    engine.handle("stop");
    engine.handle("isready");
    isready += 1;
    engine.wait();

    let lines = buf.take_lines();
    assert_eq!(lines.iter().filter(|l| **l == "readyok").count(), isready, "every isready is answered");
    assert!(lines.iter().all(|l| l.len() < 1_000), "no reply echoes a long input");
    let best: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("bestmove ")).collect();
    assert_eq!(best.len(), searched.len(), "one bestmove per go");
    let mut checked = 0;
    for (reply, pos) in best.iter().zip(&searched) {
        let mv = reply.split_whitespace().next().unwrap();
        if mv == "(none)" {
            assert!(pos.legal_moves().is_empty(), "bestmove (none) in {} with legal moves", pos.fen());
            continue;
        }
        let m = pos.parse_uci(mv).unwrap_or_else(|e| panic!("bestmove {mv} in {}: {e}", pos.fen()));
        assert!(pos.is_legal(m), "bestmove {mv} is illegal in {}", pos.fen());
        checked += 1;
    }
    assert!(checked > 1_000, "only {checked} searches checked");
}

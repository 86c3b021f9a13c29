//! Fuzzes the UCI command loop: the input is a session of lines (any bytes), sent to the
//! engine (uniform evaluator, searches bounded by the fuzzer's own `go` limits, capped);
//! the engine must never panic and must answer the `isready` sent after every line.
#![no_main]

use uci::{Output, UciEngine};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (out, buf) = Output::captured();
    let mut engine = UciEngine::new(out);
    // A small table: allocating the default one would be most of each input's time.
    engine.handle("setoption name Hash value 1");
    let mut sent = 0;
    for line in data.split(|&b| b == b'\n').take(64) {
        let line = String::from_utf8_lossy(line);
        let first = line.split_whitespace().next().unwrap_or("");
        // Loading files and endless or long searches are not what this target is about:
        // bound them so that every input runs in milliseconds. Memory sizes neither: a
        // large `Hash` is a large allocation, by design.
        if line.contains("WeightsFile") || line.contains("EvalFile") || line.contains("Hash") || first == "quit" {
            continue;
        }
        let extra_ready = usize::from(first == "isready");
        let line = if first == "go" { format!("{line} nodes 8 movetime 5") } else { line.into_owned() };
        engine.handle(&line);
        engine.handle("stop");
        engine.handle("isready");
        sent += 1 + extra_ready;
    }
    engine.handle("stop");
    engine.wait();
    let out = buf.take_lines();
    assert_eq!(out.iter().filter(|l| *l == "readyok").count(), sent, "{out:?}");
});

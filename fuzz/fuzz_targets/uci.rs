//! Fuzzes the UCI command loop: the input is a session of lines (any bytes), sent to the
//! engine (uniform evaluator, searches bounded by the fuzzer's own `go` limits, capped);
//! the engine must never panic and must answer the `isready` sent after every line.
#![no_main]

use eval::uci::{Output, UciEngine};
use libfuzzer_sys::fuzz_target;
use std::io::Write;
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let buf = Buf::default();
    let mut engine = UciEngine::new(Output::new(buf.clone()));
    let mut sent = 0;
    for line in data.split(|&b| b == b'\n').take(64) {
        let line = String::from_utf8_lossy(line);
        let first = line.split_whitespace().next().unwrap_or("");
        // Loading files and endless or long searches are not what this target is about:
        // bound them so that every input runs in milliseconds.
        if line.contains("WeightsFile") || line.contains("EvalFile") || first == "quit" {
            continue;
        }
        let line = if first == "go" { format!("{line} nodes 8 movetime 5") } else { line.into_owned() };
        engine.handle(&line);
        engine.handle("stop");
        engine.handle("isready");
        sent += 1;
    }
    engine.handle("stop");
    engine.wait();
    let out = String::from_utf8(buf.0.lock().unwrap().clone()).expect("the engine writes UTF-8");
    assert_eq!(out.lines().filter(|l| *l == "readyok").count(), sent, "{out}");
});

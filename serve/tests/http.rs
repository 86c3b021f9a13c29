//! `szero serve` over real sockets: many clients at once, search slots that refuse with
//! 503 and come back when a page goes away, and bad input answered with a 4xx and a
//! message, never a crash. (The page itself is tested in a browser: scripts/browser-tests.)

use models::{DeviceChoice, Precision};
use serve::networks::Networks;
use serve::think::Caps;
use serve::{App, ServeConfig};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A server with no network (rules-only searches) on a free port.
fn server(max_searches: usize) -> SocketAddr {
    let app = App::new(ServeConfig {
        networks: Networks::new(None, None, DeviceChoice::Cpu, Precision::F32),
        run: None,
        caps: Caps { max_time: Duration::from_secs(60), max_playouts: 20_000_000, ..Caps::default() },
        max_searches,
        learned: None,
    });
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        serve::serve(app, "127.0.0.1:0".parse().unwrap(), move |addr| tx.send(addr).unwrap()).unwrap();
    });
    rx.recv_timeout(Duration::from_secs(10)).expect("the server starts")
}

struct Reply {
    status: u16,
    headers: String,
    body: String,
}

fn send(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    s
}

fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> Reply {
    let mut s = send(addr, method, path, body);
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").expect("a complete reply");
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    Reply { status, headers: head.to_ascii_lowercase(), body: body.to_string() }
}

fn error_of(r: &Reply) -> String {
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.body));
    v["error"].as_str().unwrap_or_else(|| panic!("no error in {}", r.body)).to_string()
}

#[test]
fn twenty_clients_at_once_each_get_their_own_position() {
    let addr = server(2);
    let openings = ["e2e4", "d2d4", "b1c3e", "g1f3h", "c2c4"];
    let handles: Vec<_> = (0..20)
        .map(|i| {
            std::thread::spawn(move || {
                let first = openings[i % openings.len()];
                let body = format!(r#"{{"moves":["{first}","e7e5"]}}"#);
                let r = request(addr, "POST", "/api/position", Some(&body));
                assert_eq!(r.status, 200, "{}", r.body);
                let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
                assert_eq!(v["history"][0]["uci"], first);
                assert_eq!(v["turn"], "white");
                let page = request(addr, "GET", "/", None);
                assert_eq!(page.status, 200);
                assert!(page.body.contains("/assets/app.js"));
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn searches_past_the_slots_are_refused_until_a_page_goes_away() {
    let addr = server(1);
    // An analysis holds the only slot while its page listens.
    let stream = send(addr, "GET", "/api/analyse?moves=e2e4&seconds=40", None);
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    while !head.ends_with("\r\n\r\n") {
        reader.read_line(&mut head).unwrap();
    }
    assert!(head.starts_with("HTTP/1.1 200") && head.contains("text/event-stream"), "{head}");
    let mut event = String::new();
    while !event.contains("\"nodes\"") {
        reader.read_line(&mut event).unwrap();
    }
    let play = r#"{"game":{"moves":["e2e4"]},"movetime_ms":100}"#;
    let busy = request(addr, "POST", "/api/play", Some(play));
    assert_eq!(busy.status, 503, "{}", busy.body);
    assert!(busy.headers.contains("retry-after"), "{}", busy.headers);
    assert!(error_of(&busy).contains("busy"));
    // The page closes the stream: the search stops and the slot is free again, long
    // before the analysis' 40 seconds (the margin is for loaded machines).
    let closed = Instant::now();
    drop(reader);
    loop {
        let r = request(addr, "POST", "/api/play", Some(play));
        if r.status == 200 {
            break;
        }
        assert_eq!(r.status, 503, "{}", r.body);
        assert!(closed.elapsed() < Duration::from_secs(15), "the slot was not freed");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn bad_input_gets_a_4xx_with_a_message() {
    let addr = server(2);
    let cases: [(&str, &str, Option<&str>, u16, &str); 11] = [
        ("POST", "/api/position", Some("{not json"), 400, "bad request body"),
        ("POST", "/api/position", Some(r#"{"moves":["e2e5"]}"#), 400, "move 1 (e2e5)"),
        ("POST", "/api/position", Some(r#"{"start":"8/8 w"}"#), 400, "bad FEN"),
        ("POST", "/api/position", Some(r#"{"colour":"white"}"#), 400, "unknown field"),
        ("POST", "/api/play", Some(r#"{"game":{},"network":"nope"}"#), 404, "unknown network"),
        ("POST", "/api/play", Some(r#"{"game":{},"movetime_ms":9999999}"#), 400, "cap"),
        ("GET", "/api/analyse?seconds=-1", None, 400, "seconds must be positive"),
        ("GET", "/api/analyse?node=5", None, 400, "unknown analysis setting \"node\""),
        ("GET", "/api/analyse?moves=e2e4,e7e6,e4e4", None, 400, "move 3 (e4e4)"),
        ("GET", "/api/run/games", None, 404, "without --run"),
        ("GET", "/assets/nothing.js", None, 404, "no asset"),
    ];
    for (method, path, body, status, message) in cases {
        let r = request(addr, method, path, body);
        assert_eq!(r.status, status, "{method} {path} {body:?}: {}", r.body);
        let e = error_of(&r);
        assert!(e.contains(message), "{method} {path}: {e:?} lacks {message:?}");
    }
    // And the server still serves.
    assert_eq!(request(addr, "GET", "/api/info", None).status, 200);
}

//! `szero serve`: an S-Chess board in the browser, to play szero and see what its network
//! and search think.
//!
//! One page ([`assets`], built from `web/` and embedded, so no Node is needed at run
//! time) talks to a small JSON API whose move strings are szero's UCI strings:
//!
//! | route | what |
//! |---|---|
//! | `GET /api/info` | networks, play modes, caps |
//! | `POST /api/position` | a game (start FEN + UCI moves): FEN, hands, legal moves with their gates, check, outcome |
//! | `POST /api/play` | szero's move in a game, either play mode, by time or nodes |
//! | `GET /api/analyse?...` | an MCTS analysis streamed as server-sent events (4 a second) |
//! | `POST /api/pgn/export`, `POST /api/pgn/import` | PGN out and in |
//! | `GET /api/run/games`, `GET /api/run/games/NAME` | with `--run`: the run's `shards/*.pgn` |
//!
//! The server keeps no game ([`board`]). Searches are capped in time and nodes
//! ([`think::Caps`]) and run a bounded number at a time; past it the server answers 503
//! with `Retry-After`. Every refusal is `{"error": message}` with a 4xx or 5xx status.

pub mod assets;
pub mod board;
pub mod error;
pub mod networks;
pub mod pgn;
pub mod think;

use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::header;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use board::{GameRequest, PositionView};
use error::ApiError;
use networks::Networks;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use think::Caps;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How often a running analysis reports.
pub const UPDATE_EVERY: Duration = Duration::from_millis(250);

/// What the server is started with.
pub struct ServeConfig {
    pub networks: Networks,
    /// A run directory whose game files the page may open.
    pub run: Option<PathBuf>,
    pub caps: Caps,
    /// Searches (moves and analyses) at once; more are refused with 503.
    pub max_searches: usize,
    /// The learned evaluation alpha-beta moves score their leaves with (`None`: live
    /// material).
    pub learned: Option<Arc<search::LearnedEval>>,
}

/// The state every request shares.
pub struct App {
    cfg: ServeConfig,
    slots: Arc<Semaphore>,
    seeds: AtomicU64,
}

impl App {
    pub fn new(cfg: ServeConfig) -> Arc<App> {
        let slots = Arc::new(Semaphore::new(cfg.max_searches.max(1)));
        Arc::new(App { cfg, slots, seeds: AtomicU64::new(1) })
    }

    /// A search slot, or 503 when all are taken.
    fn slot(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.slots.clone().try_acquire_owned().map_err(|_| {
            ApiError::busy(format!(
                "the server is busy: all {} search slots are in use; try again in a moment",
                self.cfg.max_searches.max(1)
            ))
        })
    }

    fn network_name(&self, asked: Option<&str>) -> String {
        asked.map(str::trim).filter(|n| !n.is_empty()).map_or_else(|| self.cfg.networks.default_name(), str::to_string)
    }
}

/// The page and its API.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/favicon.ico", get(|| async { axum::http::StatusCode::NO_CONTENT }))
        .route("/assets/{file}", get(assets::file))
        .route("/api/info", get(info))
        .route("/api/position", post(position))
        .route("/api/play", post(play))
        .route("/api/analyse", get(analyse))
        .route("/api/pgn/export", post(pgn_export))
        .route("/api/pgn/import", post(pgn_import))
        .route("/api/run/games", get(run_games))
        .route("/api/run/games/{name}", get(run_game))
        .fallback(|| async { ApiError::not_found("no such page") })
        .with_state(app)
}

/// Serves `app` on `addr` until Ctrl-C; `ready` gets the bound address (port 0 picks one).
pub fn serve(app: Arc<App>, addr: SocketAddr, ready: impl FnOnce(SocketAddr)) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener =
            tokio::net::TcpListener::bind(addr).await.map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
        ready(listener.local_addr()?);
        axum::serve(listener, router(app))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        Ok(())
    })
}

/// A JSON body, or a 400 that says what is wrong with it.
fn body<T: DeserializeOwned>(bytes: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(bytes).map_err(|e| ApiError::bad(format!("bad request body: {e}")))
}

/// Runs blocking work (a search, loading a network) off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| ApiError::internal(format!("the work failed: {e}")))?
}

#[derive(Serialize)]
struct Info {
    networks: Vec<networks::NetworkInfo>,
    default_network: String,
    modes: [&'static str; 2],
    default_mode: &'static str,
    variants: [&'static str; 4],
    max_time_ms: u64,
    max_playouts: u64,
    max_ab_nodes: u64,
    max_searches: usize,
    run: bool,
    version: &'static str,
}

async fn info(State(app): State<Arc<App>>) -> Json<Info> {
    let caps = app.cfg.caps;
    Json(Info {
        networks: app.cfg.networks.list(),
        default_network: app.cfg.networks.default_name(),
        modes: [search::PlayMode::Alphabeta.name(), search::PlayMode::Mcts.name()],
        default_mode: search::PlayMode::default().name(),
        variants: ["seirawan", "seirawan-forced", "seirawan-placement", "chess"],
        max_time_ms: caps.max_time.as_millis() as u64,
        max_playouts: caps.max_playouts,
        max_ab_nodes: caps.max_ab_nodes,
        max_searches: app.cfg.max_searches.max(1),
        run: app.cfg.run.is_some(),
        version: env!("CARGO_PKG_VERSION"),
    })
}

async fn position(bytes: Bytes) -> Result<Json<PositionView>, ApiError> {
    let req: GameRequest = body(&bytes)?;
    Ok(Json(PositionView::new(&req.game()?)))
}

async fn play(State(app): State<Arc<App>>, bytes: Bytes) -> Result<Json<think::PlayResponse>, ApiError> {
    let req: think::PlayRequest = body(&bytes)?;
    req.game.game()?;
    let slot = app.slot()?;
    let seed = app.seeds.fetch_add(1, Ordering::Relaxed);
    let app = app.clone();
    blocking(move || {
        let _slot = slot;
        let name = app.network_name(req.network.as_deref());
        let evaluator = app.cfg.networks.evaluator(&name)?;
        think::play(&req, &name, evaluator, app.cfg.learned.clone(), &app.cfg.caps, seed)
    })
    .await
    .map(Json)
}

/// Streams an analysis as server-sent events: `update` events with a [`think::Update`]
/// (the last one with `done`), or one `error` event if the search fails. Ends early when
/// the page closes the stream.
async fn analyse(
    State(app): State<Arc<App>>,
    query: Result<Query<think::AnalyseQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::bad(format!("bad analysis request: {}", e.body_text())))?;
    let game = q.game()?;
    if game.outcome().is_some() {
        return Err(ApiError::bad("the game is over: there is nothing to analyse"));
    }
    let limits = q.limits(&app.cfg.caps)?;
    let slot = app.slot()?;
    let name = app.network_name(q.network.as_deref());
    let evaluator = {
        let app = app.clone();
        let name = name.clone();
        blocking(move || app.cfg.networks.evaluator(&name)).await?
    };
    let (tx, rx) = tokio::sync::mpsc::channel::<Event>(4);
    tokio::task::spawn_blocking(move || {
        let _slot = slot;
        let mut send = |u: think::Update| {
            let event = Event::default().event("update").json_data(&u).expect("an update serialises");
            tx.blocking_send(event).is_ok()
        };
        if let Err(e) = think::analyse(&game, evaluator, &limits, UPDATE_EVERY, &mut send) {
            let _ = tx.blocking_send(Event::default().event("error").data(format!("{e:#}")));
        }
    });
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|event| (Ok::<Event, Infallible>(event), rx))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()).into_response())
}

async fn pgn_export(bytes: Bytes) -> Result<Response, ApiError> {
    let req: pgn::ExportRequest = body(&bytes)?;
    let text = pgn::export(&req)?;
    Ok(Json(serde_json::json!({ "pgn": text })).into_response())
}

async fn pgn_import(bytes: Bytes) -> Result<Json<pgn::Imported>, ApiError> {
    let req: pgn::ImportRequest = body(&bytes)?;
    pgn::import(&req.pgn).map(Json)
}

fn run_dir(app: &App) -> Result<&std::path::Path, ApiError> {
    app.cfg.run.as_deref().ok_or_else(|| ApiError::not_found("this server was started without --run"))
}

async fn run_games(State(app): State<Arc<App>>) -> Result<Response, ApiError> {
    let names = pgn::run_games(run_dir(&app)?)?;
    Ok(Json(serde_json::json!({ "files": names })).into_response())
}

async fn run_game(State(app): State<Arc<App>>, UrlPath(name): UrlPath<String>) -> Result<Response, ApiError> {
    let text = pgn::run_game_file(run_dir(&app)?, &name)?;
    Ok(([(header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8")], text).into_response())
}

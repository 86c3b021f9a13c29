//! The page, embedded: `web/dist/`, built from `web/src/` by `scripts/build-web` (which CI
//! runs with `--check`, so the committed files are the sources' build). Nothing here needs
//! Node at run time.

use crate::error::ApiError;
use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};

/// One embedded file: its name under `/assets/`, its type, its bytes.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

const INDEX: &[u8] = include_bytes!("../web/dist/index.html");

const ASSETS: &[Asset] = &[
    Asset {
        name: "app.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../web/dist/app.js"),
    },
    Asset { name: "app.css", content_type: "text/css; charset=utf-8", body: include_bytes!("../web/dist/app.css") },
];

pub async fn index() -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], INDEX).into_response()
}

pub async fn file(Path(name): Path<String>) -> Result<Response, ApiError> {
    let asset =
        ASSETS.iter().find(|a| a.name == name).ok_or_else(|| ApiError::not_found(format!("no asset {name:?}")))?;
    Ok(([(header::CONTENT_TYPE, asset.content_type), (header::CACHE_CONTROL, "no-cache")], asset.body).into_response())
}

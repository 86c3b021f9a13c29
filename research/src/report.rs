//! The report as files: one self-contained HTML page (tables, inline SVG charts), every
//! table also as CSV and every chart also as an `.svg` file, for further analysis.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A table cell. Shares are fractions in CSV (for analysis) and percentages in HTML.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    Int(u64),
    /// A number and the decimals to show.
    Num(f64, usize),
    /// A share in [0, 1].
    Share(f64),
    Empty,
}

impl Cell {
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }
    pub fn num(x: Option<f64>, decimals: usize) -> Cell {
        x.filter(|x| x.is_finite()).map_or(Cell::Empty, |x| Cell::Num(x, decimals))
    }
    pub fn share(x: Option<f64>) -> Cell {
        x.filter(|x| x.is_finite()).map_or(Cell::Empty, Cell::Share)
    }

    fn csv(&self) -> String {
        match self {
            Cell::Text(s) => csv_field(s),
            Cell::Int(n) => n.to_string(),
            Cell::Num(x, d) => format!("{x:.*}", d + 1),
            Cell::Share(x) => format!("{x:.4}"),
            Cell::Empty => String::new(),
        }
    }

    fn html(&self) -> String {
        match self {
            Cell::Text(s) => escape(s),
            Cell::Int(n) => n.to_string(),
            Cell::Num(x, d) => format!("{x:.*}", d),
            Cell::Share(x) => format!("{:.1}%", x * 100.0),
            Cell::Empty => "&ndash;".into(),
        }
    }

    fn numeric(&self) -> bool {
        !matches!(self, Cell::Text(_))
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Escapes text for HTML.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// A table: written as `<id>.csv` and (unless `csv_only`) shown in the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// File stem of the CSV; unique within a report.
    pub id: String,
    pub title: String,
    pub note: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
    /// Too long for the page (raw observations): CSV only, linked from the page.
    pub csv_only: bool,
}

impl Table {
    pub fn new(id: &str, title: &str, header: &[&str]) -> Table {
        Table {
            id: id.into(),
            title: title.into(),
            note: String::new(),
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            csv_only: false,
        }
    }

    pub fn note(mut self, note: &str) -> Table {
        self.note = note.into();
        self
    }

    pub fn push(&mut self, row: Vec<Cell>) {
        debug_assert_eq!(row.len(), self.header.len(), "row width of table {}", self.id);
        self.rows.push(row);
    }

    pub fn csv(&self) -> String {
        let mut s = self.header.iter().map(|h| csv_field(h)).collect::<Vec<_>>().join(",");
        s.push('\n');
        for r in &self.rows {
            s.push_str(&r.iter().map(Cell::csv).collect::<Vec<_>>().join(","));
            s.push('\n');
        }
        s
    }

    fn html(&self, out: &mut String) {
        let _ = write!(out, "<h3 id=\"{0}\">{1}</h3>", escape(&self.id), escape(&self.title));
        if !self.note.is_empty() {
            let _ = write!(out, "<p class=\"note\">{}</p>", escape(&self.note));
        }
        if self.csv_only {
            let _ =
                write!(out, "<p>{} rows: see <a href=\"{1}.csv\">{1}.csv</a>.</p>", self.rows.len(), escape(&self.id));
            return;
        }
        out.push_str("<table><thead><tr>");
        for h in &self.header {
            let _ = write!(out, "<th>{}</th>", escape(h));
        }
        out.push_str("</tr></thead><tbody>");
        for r in &self.rows {
            out.push_str("<tr>");
            for c in r {
                let class = if c.numeric() { " class=\"n\"" } else { "" };
                let _ = write!(out, "<td{class}>{}</td>", c.html());
            }
            out.push_str("</tr>");
        }
        let _ = write!(out, "</tbody></table><p class=\"csv\"><a href=\"{0}.csv\">{0}.csv</a></p>", escape(&self.id));
    }
}

/// A chart: written as `<id>.svg` and inlined in the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    pub id: String,
    pub svg: String,
}

/// A part of the report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Section {
    pub title: String,
    /// Paragraphs of plain text.
    pub text: Vec<String>,
    pub plots: Vec<Plot>,
    pub tables: Vec<Table>,
}

/// The whole report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub title: String,
    /// Key facts shown first (inputs, counts, variants, timings).
    pub meta: Vec<(String, String)>,
    pub warnings: Vec<String>,
    pub sections: Vec<Section>,
}

/// The report could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// Warnings shown in the page at most (all of them go to `warnings.txt`).
const MAX_WARNINGS_SHOWN: usize = 50;

impl Report {
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.sections.iter().flat_map(|s| &s.tables)
    }

    pub fn table(&self, id: &str) -> Option<&Table> {
        self.tables().find(|t| t.id == id)
    }

    /// The page.
    pub fn html(&self) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title><style>{STYLE}</style></head><body><h1>{0}</h1>",
            escape(&self.title)
        );
        out.push_str("<table class=\"meta\"><tbody>");
        for (k, v) in &self.meta {
            let _ = write!(out, "<tr><th>{}</th><td>{}</td></tr>", escape(k), escape(v));
        }
        out.push_str("</tbody></table>");
        if !self.warnings.is_empty() {
            let _ = write!(out, "<details><summary>{} warnings</summary><ul>", self.warnings.len());
            for w in self.warnings.iter().take(MAX_WARNINGS_SHOWN) {
                let _ = write!(out, "<li>{}</li>", escape(w));
            }
            if self.warnings.len() > MAX_WARNINGS_SHOWN {
                out.push_str("<li>&hellip; all of them in <a href=\"warnings.txt\">warnings.txt</a></li>");
            }
            out.push_str("</ul></details>");
        }
        out.push_str("<nav><ul>");
        for (i, s) in self.sections.iter().enumerate() {
            let _ = write!(out, "<li><a href=\"#s{i}\">{}</a></li>", escape(&s.title));
        }
        out.push_str("</ul></nav>");
        for (i, s) in self.sections.iter().enumerate() {
            let _ = write!(out, "<section><h2 id=\"s{i}\">{}</h2>", escape(&s.title));
            for p in &s.text {
                let _ = write!(out, "<p>{}</p>", escape(p));
            }
            for p in &s.plots {
                let _ = write!(out, "<figure id=\"fig-{}\">{}</figure>", escape(&p.id), strip_xml_decl(&p.svg));
            }
            for t in &s.tables {
                t.html(&mut out);
            }
            out.push_str("</section>");
        }
        out.push_str("</body></html>\n");
        out
    }

    /// Writes `report.html`, `<table>.csv`, `<plot>.svg` (and `warnings.txt` when there are
    /// warnings) into `dir`, creating it; returns the files written.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>, WriteError> {
        std::fs::create_dir_all(dir).map_err(|source| WriteError { path: dir.to_path_buf(), source })?;
        let mut written = Vec::new();
        let mut put = |name: String, contents: &str| -> Result<(), WriteError> {
            let path = dir.join(name);
            std::fs::write(&path, contents).map_err(|source| WriteError { path: path.clone(), source })?;
            written.push(path);
            Ok(())
        };
        put("report.html".into(), &self.html())?;
        for t in self.tables() {
            put(format!("{}.csv", t.id), &t.csv())?;
        }
        for p in self.sections.iter().flat_map(|s| &s.plots) {
            put(format!("{}.svg", p.id), &p.svg)?;
        }
        if !self.warnings.is_empty() {
            put("warnings.txt".into(), &(self.warnings.join("\n") + "\n"))?;
        }
        Ok(written)
    }
}

fn strip_xml_decl(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ccc;padding:2px 8px}\
th{background:#f3f3f3;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}\
table.meta th{width:14em}p.note{color:#555;font-size:90%}p.csv{font-size:80%;margin-top:0}\
figure{margin:1em 0}h2{border-bottom:2px solid #ddd;margin-top:2em}nav ul{columns:2}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_and_html_escape() {
        let mut t = Table::new("t", "T <1>", &["a", "b,c"]);
        t.push(vec![Cell::text("x\"y"), Cell::Share(0.25)]);
        t.push(vec![Cell::Int(3), Cell::num(None, 2)]);
        assert_eq!(t.csv(), "a,\"b,c\"\n\"x\"\"y\",0.2500\n3,\n");
        let r = Report {
            title: "R&D".into(),
            sections: vec![Section { tables: vec![t], ..Section::default() }],
            ..Report::default()
        };
        let html = r.html();
        assert!(html.contains("R&amp;D") && html.contains("T &lt;1&gt;") && html.contains("25.0%"));
    }
}

//! From loaded games (and an optional network probe) to the report's sections: the
//! statistics of [`crate::stats`] and [`crate::network`] as tables and charts.

use crate::network::ProbeResults;
use crate::plots::{self, PlotError, Series};
use crate::report::{Cell, Plot, Report, Section, Table};
use crate::stats::{
    self, by_generation, by_variant, entry, first_counts, gates_by, piece_letter, placement_choices, side_games,
    Condition, First, GameSummary, GateVia, Sides,
};
use schess::{Color, File, HandPiece, Variant};

/// What to build a report from.
#[derive(Debug, Clone)]
pub struct Input<'a> {
    pub title: String,
    pub games: &'a [GameSummary],
    /// Key facts to show first (inputs, timings), before the computed ones.
    pub meta: Vec<(String, String)>,
    pub warnings: Vec<String>,
    /// Threshold of the "first gate by move N" condition.
    pub by_move: u32,
    /// A network probe and a description of the network.
    pub probe: Option<(&'a ProbeResults, String)>,
}

const PIECES: [HandPiece; 2] = HandPiece::ALL;

/// Builds the report.
pub fn build(input: Input) -> Result<Report, PlotError> {
    let games = input.games;
    let sides = side_games(games);
    let variants = by_variant(games);
    let mut meta = input.meta;
    meta.push(("Games".into(), games.len().to_string()));
    meta.push(("Distinct games (move sequences)".into(), stats::distinct_games(games).to_string()));
    meta.push((
        "Variants".into(),
        variants.iter().map(|v| format!("{} ({} games)", v.variant, v.games)).collect::<Vec<_>>().join(", "),
    ));
    let gens: Vec<u32> = games.iter().filter_map(|g| g.generation).collect();
    meta.push((
        "Generations".into(),
        match (gens.iter().min(), gens.iter().max()) {
            (Some(a), Some(b)) if games.iter().all(|g| g.generation.is_some()) => format!("{a}..={b}"),
            (Some(a), Some(b)) => format!("{a}..={b}, and PGN games (no generation)"),
            _ => "none (PGN games)".into(),
        },
    ));
    meta.push(("Side-games that could gate".into(), sides.len().to_string()));

    let mut sections = vec![overview(games, &variants)];
    // Variants whose games have hands: one of them gets the gating sections as they are,
    // several get a comparison and then the same sections per variant, so that no figure
    // pools two entry rules.
    let gating: Vec<Variant> = variants.iter().map(|v| v.variant).filter(|v| v.has_hands()).collect();
    if sides.is_empty() {
        sections[0].text.push(
            "No game began with a piece in hand (orthodox chess, the control): there is no gating to analyse.".into(),
        );
    } else if gating.len() <= 1 {
        sections.extend(gating_sections(games, input.by_move)?);
    } else {
        sections.push(compare_variants(games, &variants));
        for v in gating {
            let subset: Vec<GameSummary> = games.iter().filter(|g| g.variant == v).cloned().collect();
            sections.extend(gating_sections(&subset, input.by_move)?.into_iter().map(|s| for_variant(s, v)));
        }
    }
    if let Some((probe, description)) = input.probe {
        sections.push(network(probe, &description)?);
    }
    Ok(Report { title: input.title, meta, warnings: input.warnings, sections })
}

/// The gating sections of games of one entry rule.
fn gating_sections(games: &[GameSummary], by_move: u32) -> Result<Vec<Section>, PlotError> {
    let sides = side_games(games);
    let mut out = vec![timing(&sides)?, squares(games)?, vias(games)?, first_and_scores(&sides, by_move)?];
    if games.iter().any(|g| !g.placements.is_empty()) {
        out.push(placements(&sides)?);
    }
    out.push(generations(games)?);
    Ok(out)
}

/// A section about the games of `v` alone: its title, and its tables' and charts' ids
/// (the file names of their CSV and SVG), name the variant.
fn for_variant(mut s: Section, v: Variant) -> Section {
    s.title = format!("{v}: {}", s.title);
    for t in &mut s.tables {
        t.id = format!("{v}-{}", t.id);
        t.title = format!("{v}: {}", t.title);
    }
    for p in &mut s.plots {
        p.id = format!("{v}-{}", p.id);
    }
    s
}

/// A share and its 95% interval as three cells (the interval empty when there is none,
/// e.g. from a single game).
fn share_cells(share: Option<f64>, interval: Option<(f64, f64)>) -> [Cell; 3] {
    let (lo, hi) = interval.unzip();
    [Cell::share(share), Cell::share(lo), Cell::share(hi)]
}

/// The entry rules side by side: results, lengths and entries, over all games of each
/// rule and over the games of its newest generation, with 95% intervals.
fn compare_variants(games: &[GameSummary], variants: &[stats::VariantRow]) -> Section {
    let mut t = Table::new(
        "variants_compared",
        "Entry rules compared",
        &[
            "variant",
            "games of",
            "games",
            "white score",
            "95% low",
            "95% high",
            "draw share",
            "95% low",
            "95% high",
            "decisive games",
            "decisive mean plies",
            "95% low",
            "95% high",
            "E median entry move",
            "H median entry move",
            "E never share",
            "H never share",
        ],
    )
    .note(
        "White's score and the draw share with 95% intervals (normal with the games' own variance; Wilson); \
         decisive mean plies: length of the won and lost games with a 95% interval of the mean. Entry moves are PGN \
         move numbers over side-games that held the piece (a placement game's two placement moves count).",
    );
    for v in variants {
        let of_variant: Vec<&GameSummary> = games.iter().filter(|g| g.variant == v.variant).collect();
        // Labelled by generations below when the games have them (self-play shards).
        let mut groups = vec![("PGN games".to_string(), of_variant.clone())];
        let newest = of_variant.iter().filter_map(|g| g.generation).max();
        if let Some(g) = newest {
            let gens: Vec<u32> = of_variant.iter().filter_map(|g| g.generation).collect();
            let oldest = gens.iter().min().copied().unwrap_or(g);
            groups[0].0 = if oldest == g { format!("generation {g}") } else { format!("generations {oldest}..={g}") };
            if oldest != g {
                let last: Vec<&GameSummary> = of_variant.iter().copied().filter(|x| x.generation == Some(g)).collect();
                groups.push((format!("generation {g} (newest)"), last));
            }
        }
        for (label, group) in groups {
            let owned: Vec<GameSummary> = group.iter().map(|g| (*g).clone()).collect();
            let sides = side_games(&owned);
            let mut white = stats::Wdl::default();
            let mut decisive = Vec::new();
            for g in &owned {
                if let Some(r) = g.result {
                    white.add(r);
                    if r != 0 {
                        decisive.push(f64::from(g.plies));
                    }
                }
            }
            let mut row = vec![Cell::text(v.variant.name()), Cell::text(label), Cell::Int(owned.len() as u64)];
            row.extend(share_cells(white.score(), white.score_interval()));
            let draws = white.draw_rate();
            row.extend(share_cells(draws.map(|d| d.0), draws.map(|d| d.1)));
            row.push(Cell::Int(decisive.len() as u64));
            let mean = (!decisive.is_empty()).then(|| decisive.iter().sum::<f64>() / decisive.len() as f64);
            let (lo, hi) = stats::mean_interval(&decisive).map(|(_, i)| i).unzip();
            row.extend([Cell::num(mean, 1), Cell::num(lo, 1), Cell::num(hi, 1)]);
            for p in PIECES {
                row.push(entry(&sides, p, Sides::All).quantile(0.5).map_or(Cell::Empty, |m| Cell::Int(m.into())));
            }
            for p in PIECES {
                row.push(Cell::share(entry(&sides, p, Sides::All).never_share()));
            }
            t.push(row);
        }
    }
    Section {
        title: "Entry rules compared".into(),
        text: vec![
            "One row per rule over all its games, and one over the games of its newest generation (the network it \
             ended with) when the games come from more than one generation; the sections after this one repeat \
             every gating table for each rule alone."
                .into(),
        ],
        tables: vec![t],
        ..Section::default()
    }
}

/// `seirawan-placement`: which file each piece is assigned to, and how that went.
fn placements(sides: &[stats::SideGame]) -> Result<Section, PlotError> {
    let mut t = Table::new(
        "placement_files",
        "Placement: the file each piece is assigned to",
        &[
            "piece",
            "file",
            "chosen",
            "share",
            "placed first",
            "entered share",
            "mean entry move",
            "n",
            "W",
            "D",
            "L",
            "score",
            "95% low",
            "95% high",
        ],
    )
    .note("Over side-games that placed the piece; score from the choosing side's view (correlation, not causation); entry moves are PGN move numbers.");
    let rows = placement_choices(sides, Sides::All);
    let mut series = Vec::new();
    for p in PIECES {
        let mut shares = Vec::new();
        for f in File::ALL {
            let r = rows.get(&(p, f)).cloned().unwrap_or_default();
            shares.push(stats::ratio(r.chosen, r.placed).unwrap_or(0.0));
            if r.chosen == 0 {
                continue;
            }
            let moves: Vec<f64> = r.entry_moves.iter().map(|&m| f64::from(m)).collect();
            let mean = (!moves.is_empty()).then(|| moves.iter().sum::<f64>() / moves.len() as f64);
            let mut row = vec![
                Cell::text(piece_letter(p).to_string()),
                Cell::text(f.char().to_string()),
                Cell::Int(r.chosen),
                Cell::share(stats::ratio(r.chosen, r.placed)),
                Cell::share(stats::ratio(r.first, r.chosen)),
                Cell::share(stats::ratio(r.entered, r.chosen)),
                Cell::num(mean, 1),
            ];
            row.extend(wdl_cells(&r.score).into_iter().take(4));
            row.extend(share_cells(r.score.score(), r.score.score_interval()));
            t.push(row);
        }
        series.push(Series::new(format!("{}", piece_letter(p)), shares));
    }
    let files: Vec<String> = File::ALL.iter().map(|f| f.char().to_string()).collect();
    let plot = plots::bars("Files chosen in placement", "share of placements", &files, &series)?;
    Ok(Section {
        title: "Placement: files chosen".into(),
        plots: vec![Plot { id: "placement_files".into(), svg: plot }],
        tables: vec![t],
        ..Section::default()
    })
}

fn wdl_cells(w: &stats::Wdl) -> Vec<Cell> {
    vec![Cell::Int(w.n()), Cell::Int(w.wins), Cell::Int(w.draws), Cell::Int(w.losses), Cell::share(w.score())]
}

fn overview(games: &[GameSummary], variants: &[stats::VariantRow]) -> Section {
    let mut t = Table::new(
        "variants",
        "Games by variant",
        &[
            "variant",
            "games",
            "distinct",
            "mean plies",
            "white W",
            "D",
            "white L",
            "white score",
            "unknown result",
            "gates per game",
            "terminations",
        ],
    )
    .note(
        "Results from White's view; chess (empty hands) is the control for gating experiments. Distinct: games \
         that differ in opening or moves (a deterministic engine against itself replays its game when the \
         colours are swapped; shares and intervals below count every game, so duplicates make them too narrow).",
    );
    for v in variants {
        let mut terms: Vec<(&String, &u64)> = v.terminations.iter().collect();
        terms.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        t.push(vec![
            Cell::text(v.variant.name()),
            Cell::Int(v.games),
            Cell::Int(v.distinct),
            Cell::num(stats::ratio(v.plies, v.games), 1),
            Cell::Int(v.white.wins),
            Cell::Int(v.white.draws),
            Cell::Int(v.white.losses),
            Cell::share(v.white.score()),
            Cell::Int(v.unknown_results),
            Cell::num(stats::ratio(v.gates, v.games), 2),
            Cell::text(terms.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ")),
        ]);
    }
    Section {
        title: "Games".into(),
        text: vec![format!(
            "{} games, {} of them distinct. Statistics of gating count side-games (one side of one game) that began \
             with a piece in hand; move numbers are PGN move numbers (1 = each side's first move).",
            games.len(),
            stats::distinct_games(games)
        )],
        tables: vec![t],
        ..Section::default()
    }
}

fn timing(sides: &[stats::SideGame]) -> Result<Section, PlotError> {
    let mut t = Table::new(
        "entry",
        "When the pieces enter",
        &["piece", "side", "held", "entered", "entered share", "never share", "stranded share", "mean move", "p25", "median", "p75"],
    )
    .note("held: side-games that began with the piece in hand; never: it never entered; stranded: it never entered and no gating square was left at the end (lost for the game).");
    for p in PIECES {
        for s in Sides::ALL {
            let e = entry(sides, p, s);
            t.push(vec![
                Cell::text(piece_letter(p).to_string()),
                Cell::text(s.name()),
                Cell::Int(e.held),
                Cell::Int(e.entered),
                Cell::share(stats::ratio(e.entered, e.held)),
                Cell::share(e.never_share()),
                Cell::share(stats::ratio(e.stranded, e.held)),
                Cell::num(e.mean_move(), 1),
                e.quantile(0.25).map_or(Cell::Empty, |m| Cell::Int(m.into())),
                e.quantile(0.5).map_or(Cell::Empty, |m| Cell::Int(m.into())),
                e.quantile(0.75).map_or(Cell::Empty, |m| Cell::Int(m.into())),
            ]);
        }
    }
    let mut never = Table::new(
        "never_by_game",
        "Games in which a piece never entered",
        &["piece", "games held", "one side or both never", "share", "both sides never", "share"],
    )
    .note("Per game rather than per side: games in which the piece was in some hand at the start.");
    for p in PIECES {
        let (held, some, both) = never_by_game(sides, p);
        never.push(vec![
            Cell::text(piece_letter(p).to_string()),
            Cell::Int(held),
            Cell::Int(some),
            Cell::share(stats::ratio(some, held)),
            Cell::Int(both),
            Cell::share(stats::ratio(both, held)),
        ]);
    }
    let per = |p: HandPiece, c: Sides| entry(sides, p, c).moves;
    let columns = [
        per(HandPiece::Elephant, Sides::White),
        per(HandPiece::Elephant, Sides::Black),
        per(HandPiece::Hawk, Sides::White),
        per(HandPiece::Hawk, Sides::Black),
    ];
    let last = columns.iter().filter_map(|c| c.keys().next_back()).copied().max().unwrap_or(1);
    let mut hist =
        Table::new("entry_moves", "Entries by move number", &["move", "E white", "E black", "H white", "H black"]);
    hist.csv_only = true;
    let get = |c: &std::collections::BTreeMap<u32, u64>, m: u32| c.get(&m).copied().unwrap_or(0);
    for m in 1..=last {
        if columns.iter().any(|c| get(c, m) > 0) {
            hist.push(
                std::iter::once(Cell::Int(m as u64)).chain(columns.iter().map(|c| Cell::Int(get(c, m)))).collect(),
            );
        }
    }
    // The chart stops where 99% of the entries have happened, so a long tail does not
    // squash the opening moves.
    let all: Vec<u32> = (1..=last).collect();
    let total: u64 = columns.iter().flat_map(|c| c.values()).sum();
    let mut cum = 0;
    let mut cut = last;
    for &m in &all {
        cum += columns.iter().map(|c| get(c, m)).sum::<u64>();
        if cum as f64 >= 0.99 * total as f64 {
            cut = m.max(10);
            break;
        }
    }
    let shown: Vec<u32> = (1..=cut.min(last).max(1)).collect();
    let series = [HandPiece::Elephant, HandPiece::Hawk]
        .iter()
        .enumerate()
        .map(|(k, p)| {
            Series::new(
                format!("{} (of {} held)", piece_letter(*p), entry(sides, *p, Sides::All).held),
                shown.iter().map(|&m| (get(&columns[2 * k], m) + get(&columns[2 * k + 1], m)) as f64).collect(),
            )
        })
        .collect::<Vec<_>>();
    let xs: Vec<f64> = shown.iter().map(|&m| m as f64).collect();
    let plot = plots::lines("Move number at which E and H enter", "move number", "entries", &xs, &series)?;
    Ok(Section {
        title: "When: entry move".into(),
        text: vec![],
        plots: vec![Plot { id: "entry_moves".into(), svg: plot }],
        tables: vec![t, never, hist],
    })
}

/// Games in which `p` was held by some side; of those, games in which at least one
/// holder, and games in which every holder, never gated it.
fn never_by_game(sides: &[stats::SideGame], p: HandPiece) -> (u64, u64, u64) {
    let mut per_game: std::collections::BTreeMap<usize, (bool, bool)> = std::collections::BTreeMap::new();
    for s in sides.iter().filter(|s| s.had(p)) {
        let never = s.gate_of(p).is_none();
        let e = per_game.entry(s.index).or_insert((false, true));
        e.0 |= never;
        e.1 &= never;
    }
    let some = per_game.values().filter(|v| v.0).count() as u64;
    let all = per_game.values().filter(|v| v.1).count() as u64;
    (per_game.len() as u64, some, all)
}

fn squares(games: &[GameSummary]) -> Result<Section, PlotError> {
    let by_square = gates_by(games, |g| (g.color, g.square.file()));
    let mut t = Table::new("by_square", "Gates by square", &["square", "E", "H", "E mean move", "H mean move"]);
    for ((color, file), counts) in &by_square {
        let rank = if *color == Color::White { '1' } else { '8' };
        t.push(vec![
            Cell::text(format!("{}{rank}", file.char())),
            Cell::Int(counts[0].count),
            Cell::Int(counts[1].count),
            Cell::num(counts[0].mean_move(), 1),
            Cell::num(counts[1].mean_move(), 1),
        ]);
    }
    let by_file = gates_by(games, |g| g.square.file());
    let mut f = Table::new("by_file", "Gates by file (both sides)", &["file", "E", "H", "E share", "H share"]);
    let totals = [0, 1].map(|i| by_file.values().map(|c| c[i].count).sum::<u64>());
    let files: Vec<String> = (0..8).map(|i| ((b'a' + i) as char).to_string()).collect();
    let mut values = [vec![0.0; 8], vec![0.0; 8]];
    for (file, c) in &by_file {
        f.push(vec![
            Cell::text(file.char().to_string()),
            Cell::Int(c[0].count),
            Cell::Int(c[1].count),
            Cell::share(stats::ratio(c[0].count, totals[0])),
            Cell::share(stats::ratio(c[1].count, totals[1])),
        ]);
        for i in 0..2 {
            values[i][file.index()] = c[i].count as f64;
        }
    }
    let [e, h] = values;
    let plot = plots::bars(
        "Where pieces enter: file of the gate",
        "gates",
        &files,
        &[Series::new("E", e), Series::new("H", h)],
    )?;
    Ok(Section {
        title: "Where: square and file".into(),
        plots: vec![Plot { id: "by_file".into(), svg: plot }],
        tables: vec![f, t],
        ..Section::default()
    })
}

fn vias(games: &[GameSummary]) -> Result<Section, PlotError> {
    let by = gates_by(games, |g| g.via);
    let totals = [0, 1].map(|i| by.values().map(|c| c[i].count).sum::<u64>());
    let mut t = Table::new(
        "by_via",
        "Gates by the piece that leaves the square",
        &["via", "E", "H", "E share", "H share", "E mean move", "H mean move"],
    )
    .note("castling-king-square: the gate lands on the king's origin square (e1g1h); castling-rook-square: on the rook's (h1e1h).");
    let mut names = Vec::new();
    let mut values = [Vec::new(), Vec::new()];
    for via in GateVia::ALL {
        let Some(c) = by.get(&via) else { continue };
        t.push(vec![
            Cell::text(via.name()),
            Cell::Int(c[0].count),
            Cell::Int(c[1].count),
            Cell::share(stats::ratio(c[0].count, totals[0])),
            Cell::share(stats::ratio(c[1].count, totals[1])),
            Cell::num(c[0].mean_move(), 1),
            Cell::num(c[1].mean_move(), 1),
        ]);
        names.push(short_via(via).to_string());
        for i in 0..2 {
            values[i].push(c[i].count as f64);
        }
    }
    let [e, h] = values;
    let plot =
        plots::bars("Behind which piece E and H enter", "gates", &names, &[Series::new("E", e), Series::new("H", h)])?;
    Ok(Section {
        title: "Behind which piece".into(),
        plots: vec![Plot { id: "by_via".into(), svg: plot }],
        tables: vec![t],
        ..Section::default()
    })
}

/// Short labels for chart axes.
fn short_via(v: GateVia) -> &'static str {
    match v {
        GateVia::CastleKingSquare => "O-O(K sq)",
        GateVia::CastleRookSquare => "O-O(R sq)",
        v => v.name(),
    }
}

fn first_and_scores(sides: &[stats::SideGame], by_move: u32) -> Result<Section, PlotError> {
    let mut f = Table::new(
        "first_piece",
        "Which piece enters first",
        &["side", "side-games", "E first", "H first", "neither", "E first share", "H first share", "neither share"],
    );
    for s in Sides::ALL {
        let c = first_counts(sides, s);
        let n: u64 = c.values().sum();
        let get = |k: First| c.get(&k).copied().unwrap_or(0);
        f.push(vec![
            Cell::text(s.name()),
            Cell::Int(n),
            Cell::Int(get(First::Elephant)),
            Cell::Int(get(First::Hawk)),
            Cell::Int(get(First::Neither)),
            Cell::share(stats::ratio(get(First::Elephant), n)),
            Cell::share(stats::ratio(get(First::Hawk), n)),
            Cell::share(stats::ratio(get(First::Neither), n)),
        ]);
    }
    let mut t = Table::new("scores", "Score of the side by its gating", &["condition", "side", "n", "W", "D", "L", "score"])
        .note("Score = (wins + draws/2) / games, from the side's view. Correlation, not causation: a side that is doing badly may gate differently.");
    let conditions = Condition::standard(by_move);
    let mut values = [Vec::new(), Vec::new()];
    for &c in &conditions {
        for s in Sides::ALL {
            let w = stats::score_if(sides, c, s);
            let mut row = vec![Cell::text(c.name()), Cell::text(s.name())];
            row.extend(wdl_cells(&w));
            t.push(row);
            match s {
                Sides::White => values[0].push(w.score().unwrap_or(f64::NAN)),
                Sides::Black => values[1].push(w.score().unwrap_or(f64::NAN)),
                Sides::All => {}
            }
        }
    }
    let names: Vec<String> = conditions.iter().map(|c| short_condition(*c)).collect();
    let [w, b] = values;
    let plot = plots::bars(
        "Score by gating behaviour",
        "score",
        &names,
        &[Series::new("White", w).color(plots::WHITE_SIDE), Series::new("Black", b).color(plots::BLACK_SIDE)],
    )?;
    Ok(Section {
        title: "Which first, and the score".into(),
        plots: vec![Plot { id: "scores".into(), svg: plot }],
        tables: vec![f, t],
        ..Section::default()
    })
}

fn short_condition(c: Condition) -> String {
    match c {
        Condition::FirstPiece(First::Elephant) => "E 1st".into(),
        Condition::FirstPiece(First::Hawk) => "H 1st".into(),
        Condition::FirstPiece(First::Neither) => "none".into(),
        Condition::FirstGateBy(n) => format!("<={n}"),
        Condition::FirstGateAfter(n) => format!(">{n}"),
        Condition::Entered(p) => format!("{} in", piece_letter(p)),
        Condition::NeverEntered(p) => format!("no {}", piece_letter(p)),
        Condition::NothingEntered => "none".into(),
        Condition::BothEntered => "both".into(),
        Condition::GatedWhileCastling => "O-O/g".into(),
    }
}

fn generations(games: &[GameSummary]) -> Result<Section, PlotError> {
    let rows = by_generation(games);
    let mut t = Table::new(
        "generations",
        "Trends across generations",
        &[
            "generation",
            "games",
            "mean plies",
            "white score",
            "draw share",
            "E entered",
            "H entered",
            "E mean move",
            "H mean move",
            "E first",
            "H first",
            "neither",
        ],
    )
    .note(
        "Shares over side-games that held the piece (entered) or could gate at all (first). PGN games form one group.",
    );
    let mut xs = Vec::new();
    let mut s = vec![Vec::new(); 5];
    let mut moves = vec![Vec::new(); 2];
    for r in &rows {
        let first = |k: First| stats::ratio(r.first.get(&k).copied().unwrap_or(0), r.side_games);
        let entered = |i: usize| stats::ratio(r.entry[i].entered, r.entry[i].held);
        t.push(vec![
            Cell::text(r.generation.map_or("pgn".into(), |g| g.to_string())),
            Cell::Int(r.games),
            Cell::Num(r.mean_plies, 1),
            Cell::share(r.white.score()),
            Cell::share(stats::ratio(r.white.draws, r.white.n())),
            Cell::share(entered(0)),
            Cell::share(entered(1)),
            Cell::num(r.entry[0].mean_move(), 1),
            Cell::num(r.entry[1].mean_move(), 1),
            Cell::share(first(First::Elephant)),
            Cell::share(first(First::Hawk)),
            Cell::share(first(First::Neither)),
        ]);
        if let Some(g) = r.generation {
            xs.push(g as f64);
            let v = [entered(0), entered(1), first(First::Elephant), first(First::Hawk), r.white.score()];
            for (col, x) in s.iter_mut().zip(v) {
                col.push(x.unwrap_or(f64::NAN));
            }
            moves[0].push(r.entry[0].mean_move().unwrap_or(f64::NAN));
            moves[1].push(r.entry[1].mean_move().unwrap_or(f64::NAN));
        }
    }
    let mut plots_out = Vec::new();
    let mut text = Vec::new();
    if xs.len() >= 2 {
        let names = ["E entered", "H entered", "E first", "H first", "White score"];
        let series: Vec<Series> = names.iter().zip(s).map(|(n, v)| Series::new(*n, v)).collect();
        plots_out.push(Plot {
            id: "generations_shares".into(),
            svg: plots::lines("Gating across generations", "generation", "share", &xs, &series)?,
        });
        let [e, h]: [Vec<f64>; 2] = moves.try_into().expect("two series");
        plots_out.push(Plot {
            id: "generations_moves".into(),
            svg: plots::lines(
                "Mean entry move across generations",
                "generation",
                "move number",
                &xs,
                &[Series::new("E", e), Series::new("H", h)],
            )?,
        });
    } else {
        text.push("Only one generation (or PGN games only): no trend to chart.".into());
    }
    Ok(Section { title: "Trends across generations".into(), text, plots: plots_out, tables: vec![t] })
}

fn network(probe: &ProbeResults, description: &str) -> Result<Section, PlotError> {
    let mass = probe.mean_mass();
    let text = vec![
        format!(
            "Network: {description}. {} positions probed (each with a legal gating move; {} candidates without one skipped), \
             {} move variants evaluated for the value probe.",
            probe.positions, probe.without_gates, probe.evaluated
        ),
        format!(
            "Mean policy mass per position: {:.1}% on gating moves, {:.1}% on their non-gating twins, {:.1}% on other moves.",
            mass.gating * 100.0,
            mass.twins * 100.0,
            mass.other * 100.0
        ),
        "gate vs twin = p(gate) / (p(gate) + p(same move, no gate)): 50% is indifference. \
         Values are the mover's expected score in [-1, 1] after the move (the network's value of the resulting \
         position, negated); v(gate) - v(twin) > 0 means the network thinks gating that piece there helps."
            .into(),
    ];
    let policy_by_via = probe.policy_by(|o| o.via);
    let mut pv = Table::new(
        "policy_by_via",
        "Policy: gating vs not gating the same move, by the piece that leaves",
        &["via", "E moves", "E gate vs twin", "E mean prior", "H moves", "H gate vs twin", "H mean prior"],
    );
    let mut names = Vec::new();
    let mut pref = [Vec::new(), Vec::new()];
    for (via, a) in &policy_by_via {
        pv.push(vec![
            Cell::text(via.name()),
            Cell::Int(a[0].prior.n),
            Cell::share(a[0].vs_twin.mean()),
            Cell::num(a[0].prior.mean(), 4),
            Cell::Int(a[1].prior.n),
            Cell::share(a[1].vs_twin.mean()),
            Cell::num(a[1].prior.mean(), 4),
        ]);
        names.push(short_via(*via).to_string());
        for i in 0..2 {
            pref[i].push(a[i].vs_twin.mean().unwrap_or(f64::NAN));
        }
    }
    let policy_by_square = probe.policy_by(|o| (o.square.rank(), o.square.file()));
    let mut ps = Table::new(
        "policy_by_square",
        "Policy: gating vs not gating, by square",
        &["square", "E moves", "E gate vs twin", "H moves", "H gate vs twin"],
    );
    for ((rank, file), a) in &policy_by_square {
        ps.push(vec![
            Cell::text(format!("{}{}", file.char(), rank.char())),
            Cell::Int(a[0].prior.n),
            Cell::share(a[0].vs_twin.mean()),
            Cell::Int(a[1].prior.n),
            Cell::share(a[1].vs_twin.mean()),
        ]);
    }
    let value_header = [
        "key",
        "piece",
        "n",
        "v(gate) - v(twin)",
        "std err",
        "gate better share",
        "v(piece) - v(other piece)",
        "n (vs other)",
    ];
    let value_rows = |t: &mut Table, key: String, a: &[crate::network::ValueAgg; 2]| {
        for (i, p) in PIECES.iter().enumerate() {
            if a[i].vs_twin.n == 0 && a[i].vs_other.n == 0 {
                continue;
            }
            t.push(vec![
                Cell::text(key.clone()),
                Cell::text(piece_letter(*p).to_string()),
                Cell::Int(a[i].vs_twin.n),
                Cell::num(a[i].vs_twin.mean(), 4),
                Cell::num(a[i].vs_twin.stderr(), 4),
                Cell::share(a[i].better.mean()),
                Cell::num(a[i].vs_other.mean(), 4),
                Cell::Int(a[i].vs_other.n),
            ]);
        }
    };
    let value_by_via = probe.value_by(|o| o.via);
    let mut vv = Table::new(
        "value_by_via",
        "Value: gating E, H or nothing on the same move, by the piece that leaves",
        &value_header,
    );
    let mut vnames = Vec::new();
    let mut vdiff = [Vec::new(), Vec::new()];
    for (via, a) in &value_by_via {
        value_rows(&mut vv, via.name().into(), a);
        vnames.push(short_via(*via).to_string());
        for i in 0..2 {
            vdiff[i].push(a[i].vs_twin.mean().unwrap_or(f64::NAN));
        }
    }
    let value_by_square = probe.value_by(|o| (o.square.rank(), o.square.file()));
    let mut vs = Table::new("value_by_square", "Value: gating vs not gating, by square", &value_header);
    for ((rank, file), a) in &value_by_square {
        value_rows(&mut vs, format!("{}{}", file.char(), rank.char()), a);
    }
    let mut raw = Table::new(
        "value_moves",
        "Value probe: every evaluated gating move",
        &["position", "fen", "move", "twin move", "via", "square", "piece", "value", "twin value", "other piece value"],
    );
    raw.csv_only = true;
    for o in &probe.values {
        raw.push(vec![
            Cell::text(o.origin.clone()),
            Cell::text(o.fen.clone()),
            Cell::text(o.uci.clone()),
            Cell::text(o.twin_uci.clone()),
            Cell::text(o.via.name()),
            Cell::text(o.square.to_string()),
            Cell::text(piece_letter(o.piece).to_string()),
            Cell::Num(o.value as f64, 4),
            Cell::num(o.twin_value.map(f64::from), 4),
            Cell::num(o.other_piece_value.map(f64::from), 4),
        ]);
    }
    let mut plots_out = Vec::new();
    if !names.is_empty() {
        let [e, h] = pref;
        plots_out.push(Plot {
            id: "policy_by_via".into(),
            svg: plots::bars(
                "Policy: p(gate) / (p(gate) + p(twin)) by the piece that leaves",
                "share",
                &names,
                &[Series::new("E", e), Series::new("H", h)],
            )?,
        });
    }
    if !vnames.is_empty() {
        let [e, h] = vdiff;
        plots_out.push(Plot {
            id: "value_by_via".into(),
            svg: plots::bars(
                "Value: v(gate) - v(no gate) by the piece that leaves",
                "expected score difference",
                &vnames,
                &[Series::new("E", e), Series::new("H", h)],
            )?,
        });
    }
    Ok(Section { title: "What the network thinks".into(), text, plots: plots_out, tables: vec![pv, ps, vv, vs, raw] })
}

//! Charts as SVG strings (plotters' SVG backend: no fonts or system libraries; text is
//! left to the browser), to inline into the HTML report and to write as `.svg` files.

use plotters::prelude::*;

/// Series colours: Elephant, Hawk, then neutral ones.
pub const PALETTE: [RGBColor; 5] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(127, 127, 127),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
];

const SIZE: (u32, u32) = (840, 360);
/// Room on the right for the legend, drawn outside the plot so it never hides data.
const LEGEND_WIDTH: u32 = 190;

/// The layout every chart shares: caption, margins with the legend's room on the right,
/// and label areas.
fn chart_builder<'a, 'b, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, plotters::coord::Shift>,
    title: &'b str,
) -> ChartBuilder<'a, 'b, DB> {
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(title, ("sans-serif", 24))
        .margin(10)
        .margin_right(LEGEND_WIDTH)
        .x_label_area_size(44)
        .y_label_area_size(84);
    builder
}

/// A named data series; `values[i]` belongs to category (or x) `i`. `NaN` = no value.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub values: Vec<f64>,
    /// Default: the palette colour of the series' position.
    pub color: Option<RGBColor>,
}

impl Series {
    pub fn new(name: impl Into<String>, values: Vec<f64>) -> Series {
        Series { name: name.into(), values, color: None }
    }

    #[must_use]
    pub fn color(mut self, color: RGBColor) -> Series {
        self.color = Some(color);
        self
    }

    fn color_at(&self, j: usize) -> RGBColor {
        self.color.unwrap_or(PALETTE[j % PALETTE.len()])
    }
}

/// Colours for White and Black series (kept apart from the E/H colours).
pub const WHITE_SIDE: RGBColor = RGBColor(190, 190, 190);
pub const BLACK_SIDE: RGBColor = RGBColor(50, 50, 50);

/// A chart could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("plot {title:?}: {message}")]
pub struct PlotError {
    pub title: String,
    pub message: String,
}

fn err(title: &str) -> impl Fn(String) -> PlotError + '_ {
    move |message| PlotError { title: title.to_string(), message }
}

/// y range covering `values` and 0, with a margin.
fn y_range<'a>(values: impl Iterator<Item = &'a f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for &v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if hi - lo < 1e-12 {
        hi = lo + 1.0;
    }
    let pad = (hi - lo) * 0.08;
    (if lo < 0.0 { lo - pad } else { lo }, hi + pad)
}

/// Grouped bar chart: one group per category, one bar per series.
pub fn bars(title: &str, y_label: &str, categories: &[String], series: &[Series]) -> Result<String, PlotError> {
    let e = err(title);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|x| e(x.to_string()))?;
        let n = categories.len().max(1);
        let (lo, hi) = y_range(series.iter().flat_map(|s| &s.values));
        let mut chart = chart_builder(&root, title)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), lo..hi)
            .map_err(|x| e(x.to_string()))?;
        let label = |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                categories.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .label_style(("sans-serif", 16))
            .axis_desc_style(("sans-serif", 16))
            .x_labels(n)
            .x_label_formatter(&label)
            .y_label_formatter(&tick(hi - lo))
            .y_desc(y_label)
            .draw()
            .map_err(|x| e(x.to_string()))?;
        let k = series.len().max(1) as f64;
        let width = 0.8 / k;
        for (j, s) in series.iter().enumerate() {
            let color = s.color_at(j);
            let rects = s.values.iter().enumerate().filter(|(_, v)| v.is_finite()).map(move |(i, &v)| {
                let x0 = i as f64 - 0.4 + j as f64 * width;
                Rectangle::new([(x0, 0.0), (x0 + width * 0.92, v)], color.filled())
            });
            chart.draw_series(rects).map_err(|x| e(x.to_string()))?;
        }
        if lo < 0.0 {
            chart
                .draw_series(LineSeries::new([(-0.5, 0.0), (n as f64 - 0.5, 0.0)], BLACK.stroke_width(1)))
                .map_err(|x| e(x.to_string()))?;
        }
        legend(&root, series).map_err(|x| e(x.to_string()))?;
        root.present().map_err(|x| e(x.to_string()))?;
    }
    Ok(svg)
}

/// Draws the legend in the space right of the plot.
fn legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    series: &[Series],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let x = (SIZE.0 - LEGEND_WIDTH + 14) as i32;
    for (j, s) in series.iter().enumerate() {
        let y = 60 + 24 * j as i32;
        root.draw(&Rectangle::new([(x, y - 6), (x + 14, y + 6)], s.color_at(j).filled()))?;
        root.draw(&Text::new(s.name.clone(), (x + 22, y - 8), ("sans-serif", 15)))?;
    }
    Ok(())
}

/// Tick labels: whole numbers for counts, more decimals for small ranges.
fn tick(span: f64) -> impl Fn(&f64) -> String {
    move |v| {
        if span >= 20.0 {
            format!("{v:.0}")
        } else if span >= 2.0 {
            format!("{v:.1}")
        } else {
            format!("{v:.2}")
        }
    }
}

/// Line chart over numeric x (`NaN` values break nothing: those points are left out).
pub fn lines(title: &str, x_label: &str, y_label: &str, xs: &[f64], series: &[Series]) -> Result<String, PlotError> {
    let e = err(title);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|x| e(x.to_string()))?;
        let (mut x0, mut x1) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 - x0 < 1e-9 {
            (x0, x1) = (x0 - 0.5, x1 + 0.5);
        }
        let (lo, hi) = y_range(series.iter().flat_map(|s| &s.values));
        let mut chart = chart_builder(&root, title).build_cartesian_2d(x0..x1, lo..hi).map_err(|x| e(x.to_string()))?;
        chart
            .configure_mesh()
            .label_style(("sans-serif", 16))
            .axis_desc_style(("sans-serif", 16))
            .x_desc(x_label)
            .y_desc(y_label)
            .x_labels(((x1 - x0).round() as usize + 1).clamp(2, 12))
            .x_label_formatter(&|x| if (x - x.round()).abs() < 1e-6 { format!("{x:.0}") } else { String::new() })
            .y_label_formatter(&tick(hi - lo))
            .draw()
            .map_err(|x| e(x.to_string()))?;
        for (j, s) in series.iter().enumerate() {
            let color = s.color_at(j);
            let points: Vec<(f64, f64)> = xs
                .iter()
                .zip(&s.values)
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .map(|(&x, &y)| (x, y))
                .collect();
            chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(2))).map_err(|x| e(x.to_string()))?;
            if points.len() <= 60 {
                chart
                    .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(|x| e(x.to_string()))?;
            }
        }
        legend(&root, series).map_err(|x| e(x.to_string()))?;
        root.present().map_err(|x| e(x.to_string()))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_svg() {
        let cats: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let s = bars(
            "t",
            "y",
            &cats,
            &[Series::new("E", vec![1.0, -2.0, f64::NAN]), Series::new("H", vec![0.5, 1.0, 2.0])],
        )
        .unwrap();
        assert!(s.starts_with("<svg") && s.contains("</svg>") && s.contains("\nb\n</text>"), "{s}");
        let l = lines("t", "x", "y", &[0.0], &[Series::new("E", vec![1.0])]).unwrap();
        assert!(l.contains("<svg"));
    }
}

//! Charts drawn with plotters' SVG backend (text stays text: no font files;
//! plotters escapes it).

use crate::{Error, Result};
use planner::{human, BudgetCurve, DriftRow};
use plotters::prelude::*;
use workload::time::format_time;

const FONT: &str = "sans-serif";
const INK: RGBColor = RGBColor(0x1b, 0x26, 0x31);
const GRID: RGBColor = RGBColor(0xd5, 0xd8, 0xdc);
const REPLAN: RGBColor = RGBColor(0xc0, 0x39, 0x2b);
const KEEP: RGBColor = RGBColor(0x1e, 0x84, 0x49);
const LINE: RGBColor = RGBColor(0x34, 0x49, 0x5e);
const CHOSEN: RGBColor = RGBColor(0xca, 0x6f, 0x1e);

fn err(chart: &'static str) -> impl Fn(DrawingAreaErrorKind<std::io::Error>) -> Error {
    move |e| Error::Chart {
        chart,
        reason: e.to_string(),
    }
}

/// `2026-10-12` for a window starting at midnight, the full time otherwise.
fn window_label(ms: i64, all_midnight: bool) -> String {
    let t = format_time(ms);
    if all_midnight {
        t.chars().take(10).collect()
    } else {
        t
    }
}

/// Drift chart size, margin and y label area, px.
const DRIFT_SIZE: (u32, u32) = (860, 320);
const DRIFT_MARGIN: u32 = 14;
const DRIFT_Y_AREA: u32 = 56;
const DAY_MS: f64 = 86_400_000.0;

/// Which windows get a date under the axis: from the first, each whose
/// label (estimated at 0.62 em a character, 13 px, plus 12 px of space)
/// starts right of the last one drawn. `xs` are the windows' positions in
/// days, on an axis of `days` days drawn over `px` pixels.
fn drift_ticks(xs: &[f64], labels: &[String], x0: f64, days: f64, px: f64) -> Vec<f64> {
    let per_day = px / days.max(1e-9);
    let mut ticks = Vec::new();
    let mut right = f64::MIN;
    for (x, label) in xs.iter().zip(labels) {
        let w = 0.62 * 13.0 * label.chars().count() as f64 + 12.0;
        let at = (x - x0) * per_day;
        if at - w / 2.0 >= right {
            ticks.push(*x);
            right = at + w / 2.0;
        }
    }
    ticks
}

/// The drift chart's x axis: days since the first window's start, its
/// dates under the windows [`drift_ticks`] chose (plotters would put them
/// at round numbers of days instead).
struct TimeAxis {
    range: std::ops::Range<f64>,
    ticks: Vec<f64>,
}

impl Ranged for TimeAxis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    /// As plotters maps an `f64` range.
    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let (lo, hi) = (self.range.start, self.range.end);
        if hi <= lo {
            return (limit.0 + limit.1) / 2;
        }
        let share = (v - lo) / (hi - lo);
        limit.0 + (f64::from(limit.1 - limit.0) * share + 1e-3).floor() as i32
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.range.clone()
    }
}

/// Drift per window against the threshold (dashed), each window at its
/// start time: windows with empty windows between them lie as far apart
/// as they are in time, and the line joining them is dashed. Points are
/// red when above the threshold (a re-plan), green otherwise. The legend
/// is the page's (the chart has none over its data).
pub fn drift(rows: &[DriftRow], threshold: f64) -> Result<String> {
    let e = err("drift");
    let mut buf = String::new();
    let all_midnight = rows
        .iter()
        .all(|r| format_time(r.window_start_ms).ends_with("T00:00:00Z"));
    let top = rows
        .iter()
        .map(|r| r.drift)
        .filter(|d| d.is_finite())
        .fold(threshold * 1.5, f64::max)
        .max(0.1)
        * 1.12;
    // Days since the first window's start; half a window of room each side.
    let t0 = rows.first().map_or(0, |r| r.window_start_ms);
    let xs: Vec<f64> = rows
        .iter()
        .map(|r| (r.window_start_ms - t0) as f64 / DAY_MS)
        .collect();
    let width = rows
        .first()
        .map_or(7.0, |r| {
            (r.window_end_ms - r.window_start_ms) as f64 / DAY_MS
        })
        .max(1.0 / 24.0);
    let (x0, x1) = (
        -width / 2.0,
        xs.last().copied().unwrap_or(0.0) + width / 2.0,
    );
    let labels: Vec<String> = rows
        .iter()
        .map(|r| window_label(r.window_start_ms, all_midnight))
        .collect();
    let plot_px = f64::from(DRIFT_SIZE.0 - 2 * DRIFT_MARGIN - DRIFT_Y_AREA);
    let ticks = drift_ticks(&xs, &labels, x0, x1 - x0, plot_px);
    {
        let root = SVGBackend::with_string(&mut buf, DRIFT_SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(&e)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(DRIFT_MARGIN)
            .x_label_area_size(40)
            .y_label_area_size(DRIFT_Y_AREA)
            .build_cartesian_2d(
                TimeAxis {
                    range: x0..x1,
                    ticks,
                },
                0f64..top,
            )
            .map_err(&e)?;
        let label = |x: &f64| {
            xs.iter()
                .position(|w| (w - x).abs() < 1e-9)
                .map(|i| labels[i].clone())
                .unwrap_or_default()
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(1)
            .light_line_style(GRID.mix(0.5))
            .bold_line_style(GRID)
            .x_label_formatter(&label)
            .y_labels(6)
            .y_label_formatter(&|y| format!("{y:.2}"))
            .y_desc("drift")
            .x_desc("window start")
            .label_style((FONT, 13).into_font().color(&INK))
            .axis_desc_style((FONT, 13).into_font().color(&INK))
            .draw()
            .map_err(&e)?;
        chart
            .draw_series(DashedLineSeries::new(
                [(x0, threshold), (x1, threshold)],
                8,
                5,
                REPLAN.stroke_width(2),
            ))
            .map_err(&e)?;
        // Consecutive windows joined by a line, windows across a gap by a
        // dashed one.
        for (i, r) in rows.iter().enumerate().skip(1) {
            let seg = [(xs[i - 1], rows[i - 1].drift), (xs[i], r.drift)];
            if r.gap_windows > 0 {
                chart
                    .draw_series(DashedLineSeries::new(seg, 6, 5, LINE.stroke_width(2)))
                    .map_err(&e)?;
            } else {
                chart
                    .draw_series(LineSeries::new(seg, LINE.stroke_width(2)))
                    .map_err(&e)?;
            }
        }
        chart
            .draw_series(rows.iter().zip(&xs).map(|(r, &x)| {
                let c = if r.replan { REPLAN } else { KEEP };
                Circle::new((x, r.drift), 5, c.filled())
            }))
            .map_err(&e)?;
        root.present().map_err(&e)?;
    }
    Ok(buf)
}

/// NPV against rewrite budget as the step function it is (a plan's NPV
/// holds from its rewrite cost to the next plan's), each plan a dot, the
/// chosen one ringed, and the rewrite budget given (if any) dashed. The
/// legend is the page's, beside the chart (inside it, it covered the
/// curve).
pub fn budget(curve: &BudgetCurve, given: Option<u64>) -> Result<String> {
    let e = err("budget curve");
    let mut buf = String::new();
    let pts: Vec<(f64, f64)> = curve
        .points
        .iter()
        .map(|p| (p.budget as f64, p.npv))
        .collect();
    let last = pts.iter().map(|p| p.0).fold(1.0f64, f64::max);
    let xmax = given.map_or(last, |g| (g as f64).max(last)) * 1.08;
    let ymax = pts.iter().map(|p| p.1).fold(1.0f64, f64::max) * 1.15;
    // The steps: nothing below the first plan's rewrite, then each plan's
    // NPV until the next, the last held to the right edge.
    let mut steps = vec![(0.0, 0.0)];
    let mut y = 0.0;
    for &(x, npv) in &pts {
        steps.push((x, y));
        steps.push((x, npv));
        y = npv;
    }
    steps.push((xmax, y));
    {
        let root = SVGBackend::with_string(&mut buf, (860, 340)).into_drawing_area();
        root.fill(&WHITE).map_err(&e)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(76)
            .build_cartesian_2d(0f64..xmax, 0f64..ymax)
            .map_err(&e)?;
        chart
            .configure_mesh()
            .max_light_lines(1)
            .light_line_style(GRID.mix(0.5))
            .bold_line_style(GRID)
            .x_labels(8)
            .y_labels(6)
            .x_label_formatter(&|x| human(*x))
            .y_label_formatter(&|y| human(*y))
            .x_desc("rewrite budget")
            .y_desc("NPV")
            .label_style((FONT, 13).into_font().color(&INK))
            .axis_desc_style((FONT, 13).into_font().color(&INK))
            .draw()
            .map_err(&e)?;
        chart
            .draw_series(LineSeries::new(steps, LINE.stroke_width(2)))
            .map_err(&e)?;
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 4, LINE.filled())))
            .map_err(&e)?;
        if let Some(g) = given {
            let g = g as f64;
            chart
                .draw_series(DashedLineSeries::new(
                    [(g, 0.0), (g, ymax)],
                    8,
                    5,
                    REPLAN.stroke_width(2),
                ))
                .map_err(&e)?;
        }
        if let Some(&(x, y)) = curve.chosen.and_then(|i| pts.get(i)) {
            chart
                .draw_series([Circle::new((x, y), 9, CHOSEN.stroke_width(3))])
                .map_err(&e)?;
        }
        root.present().map_err(&e)?;
    }
    Ok(buf)
}

/// A bar chart: one bar per label, in order, of its value and colour.
struct Bars<'a> {
    what: &'static str,
    size: (u32, u32),
    y_label_area: u32,
    labels: Vec<String>,
    bars: Vec<(f64, RGBColor)>,
    y_format: &'a dyn Fn(&f64) -> String,
    y_desc: &'static str,
    x_desc: &'static str,
}

impl Bars<'_> {
    fn draw(self) -> Result<String> {
        let e = err(self.what);
        let mut buf = String::new();
        let n = self.labels.len().max(1);
        let top = self.bars.iter().map(|b| b.0).fold(1.0, f64::max) * 1.12;
        {
            let root = SVGBackend::with_string(&mut buf, self.size).into_drawing_area();
            root.fill(&WHITE).map_err(&e)?;
            let mut chart = ChartBuilder::on(&root)
                .margin(14)
                .x_label_area_size(40)
                .y_label_area_size(self.y_label_area)
                .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..top)
                .map_err(&e)?;
            let label = |x: &f64| {
                let i = x.round();
                if (x - i).abs() > 1e-6 || i < 0.0 || i as usize >= self.labels.len() {
                    return String::new();
                }
                self.labels[i as usize].clone()
            };
            chart
                .configure_mesh()
                .disable_x_mesh()
                .max_light_lines(1)
                .light_line_style(GRID.mix(0.5))
                .bold_line_style(GRID)
                .x_labels(n)
                .x_label_formatter(&label)
                .y_labels(5)
                .y_label_formatter(self.y_format)
                .y_desc(self.y_desc)
                .x_desc(self.x_desc)
                .label_style((FONT, 13).into_font().color(&INK))
                .axis_desc_style((FONT, 13).into_font().color(&INK))
                .draw()
                .map_err(&e)?;
            let bars = self.bars.iter().enumerate().map(|(i, (b, c))| {
                let x = i as f64;
                Rectangle::new([(x - 0.35, 0.0), (x + 0.35, *b)], c.filled())
            });
            chart.draw_series(bars).map_err(&e)?;
            root.present().map_err(&e)?;
        }
        Ok(buf)
    }
}

/// What a measured table's scans read in the plan's window: now, and
/// under each candidate key (the chosen one highlighted), as bars.
pub fn skipping(now: u64, candidates: &[(String, u64, bool)]) -> Result<String> {
    let n = candidates.len() + 1;
    // A long key is cut to fit under its bar (the table beside the chart
    // names it in full).
    let cut = |k: &String| -> String {
        if k.chars().count() > 22 {
            format!("{}…", k.chars().take(21).collect::<String>())
        } else {
            k.clone()
        }
    };
    Bars {
        what: "skipping",
        size: ((160 + 120 * n as u32).min(1100), 260),
        y_label_area: 72,
        labels: std::iter::once("now".to_string())
            .chain(candidates.iter().map(|c| cut(&c.0)))
            .collect(),
        bars: std::iter::once((now as f64, GRID))
            .chain(
                candidates
                    .iter()
                    .map(|(_, b, chosen)| (*b as f64, if *chosen { CHOSEN } else { LINE })),
            )
            .collect(),
        y_format: &|y| human(*y),
        y_desc: "bytes read in the window",
        x_desc: "layout",
    }
    .draw()
}

/// A depth histogram of a table's files on one column (Snowflake's
/// clustering depth: for each depth bucket, how many range end points that
/// many files' ranges hold), as bars: a well-clustered column has its bars
/// at depth 1.
pub fn depth(histogram: &[(u64, u64)]) -> Result<String> {
    let n = histogram.len().max(1);
    Bars {
        what: "depth",
        size: ((160 + 60 * n as u32).clamp(360, 1100), 240),
        y_label_area: 60,
        labels: histogram.iter().map(|h| h.0.to_string()).collect(),
        bars: histogram.iter().map(|h| (h.1 as f64, LINE)).collect(),
        y_format: &|y| format!("{y:.0}"),
        y_desc: "range end points",
        x_desc: "depth (files holding the point), up to",
    }
    .draw()
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::{CurvePoint, Normalize};

    const WEEK: i64 = 7 * 86_400_000;

    fn row(week: i64, gap: u64, drift: f64) -> DriftRow {
        DriftRow {
            prev_window_start_ms: (week - 1 - gap as i64) * WEEK,
            gap_windows: gap,
            window_start_ms: week * WEEK,
            window_end_ms: (week + 1) * WEEK,
            drift,
            replan: drift > 0.1,
            held: false,
            new_edges: vec![],
            gone_edges: vec![],
            moved: vec![],
            edges: 3,
            executions: 10,
            normalize: Normalize::Max,
            cost: String::new(),
        }
    }

    /// The centres (`cx`) of the SVG's circles, in order.
    fn circle_xs(svg: &str) -> Vec<f64> {
        svg.split("<circle")
            .skip(1)
            .filter_map(|c| c.split("cx=\"").nth(1)?.split('"').next()?.parse().ok())
            .collect()
    }

    /// Windows lie by time: four empty weeks between the third and the
    /// fourth window make that step five times the others, and the line
    /// across the gap is dashed.
    #[test]
    fn drift_windows_are_spaced_by_time() {
        let rows = [
            row(1, 0, 0.10),
            row(2, 0, 0.89),
            row(3, 0, 0.29),
            row(8, 4, 0.89),
        ];
        let svg = drift(&rows, 0.1).unwrap();
        let x = circle_xs(&svg);
        assert_eq!(x.len(), 4, "{svg}");
        let step = x[1] - x[0];
        assert!((x[2] - x[1] - step).abs() <= 1.0, "{x:?}");
        assert!((x[3] - x[2] - 5.0 * step).abs() <= 2.0, "{x:?}");
    }

    /// No legend inside a chart (the page draws it beside the chart, where
    /// it cannot cover data).
    #[test]
    fn charts_draw_no_legend_over_their_data() {
        let svg = drift(&[row(1, 0, 0.1), row(2, 0, 0.2)], 0.1).unwrap();
        assert!(!svg.contains("threshold"), "{svg}");
        let curve = BudgetCurve {
            storage_budget: None,
            cheapest_change: 10,
            points: vec![
                CurvePoint {
                    budget: 100,
                    npv: 500.0,
                    storage_cost: 100,
                    tables_changed: 1,
                    edges_served: 1,
                    chosen: false,
                },
                CurvePoint {
                    budget: 300,
                    npv: 900.0,
                    storage_cost: 300,
                    tables_changed: 2,
                    edges_served: 2,
                    chosen: true,
                },
            ],
            chosen: Some(1),
            exact: true,
        };
        let svg = budget(&curve, Some(200)).unwrap();
        assert!(!svg.contains("chosen") && !svg.contains("given"), "{svg}");
    }

    /// Dates under the drift axis never overlap: with many windows close
    /// together only every few gets its date.
    #[test]
    fn drift_dates_do_not_crowd() {
        let xs: Vec<f64> = (0..52).map(|w| 7.0 * w as f64).collect();
        let labels = vec!["2026-10-05T05:59:33Z".to_string(); 52];
        let ticks = drift_ticks(&xs, &labels, -3.5, 52.0 * 7.0, 776.0);
        let px = |x: f64| (x + 3.5) * 776.0 / (52.0 * 7.0);
        let w = 0.62 * 13.0 * 20.0 + 12.0;
        assert!(ticks.len() >= 3, "{ticks:?}");
        for p in ticks.windows(2) {
            assert!(px(p[1]) - px(p[0]) >= w - 1e-9, "{ticks:?}");
        }
    }
}

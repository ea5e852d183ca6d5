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

/// Drift per window (points: red when above the threshold, a re-plan;
/// green otherwise) against the threshold (dashed).
pub fn drift(rows: &[DriftRow], threshold: f64) -> Result<String> {
    let e = err("drift");
    let mut buf = String::new();
    let n = rows.len();
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
    {
        let root = SVGBackend::with_string(&mut buf, (860, 320)).into_drawing_area();
        root.fill(&WHITE).map_err(&e)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..top)
            .map_err(&e)?;
        let label = |x: &f64| {
            let i = x.round();
            if (x - i).abs() > 1e-6 || i < 0.0 || i as usize >= n {
                return String::new();
            }
            window_label(rows[i as usize].window_start_ms, all_midnight)
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(1)
            .light_line_style(GRID.mix(0.5))
            .bold_line_style(GRID)
            .x_labels(n.clamp(1, 12))
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
                [(-0.5, threshold), (n as f64 - 0.5, threshold)],
                8,
                5,
                REPLAN.stroke_width(2),
            ))
            .map_err(&e)?
            .label(format!("threshold {threshold}"))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], REPLAN.stroke_width(2)));
        chart
            .draw_series(LineSeries::new(
                rows.iter().enumerate().map(|(i, r)| (i as f64, r.drift)),
                LINE.stroke_width(2),
            ))
            .map_err(&e)?;
        chart
            .draw_series(rows.iter().enumerate().map(|(i, r)| {
                let c = if r.replan { REPLAN } else { KEEP };
                Circle::new((i as f64, r.drift), 5, c.filled())
            }))
            .map_err(&e)?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.9))
            .border_style(GRID)
            .label_font((FONT, 13).into_font().color(&INK))
            .draw()
            .map_err(&e)?;
        root.present().map_err(&e)?;
    }
    Ok(buf)
}

/// NPV against rewrite budget as the step function it is (a plan's NPV
/// holds from its rewrite cost to the next plan's), each plan a dot, the
/// chosen one ringed, and the rewrite budget given (if any) dashed.
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
        let mut legend = false;
        if let Some(g) = given {
            let g = g as f64;
            chart
                .draw_series(DashedLineSeries::new(
                    [(g, 0.0), (g, ymax)],
                    8,
                    5,
                    REPLAN.stroke_width(2),
                ))
                .map_err(&e)?
                .label(format!("rewrite budget given: {}", human(g)))
                .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], REPLAN.stroke_width(2)));
            legend = true;
        }
        if let Some(&(x, y)) = curve.chosen.and_then(|i| pts.get(i)) {
            chart
                .draw_series([Circle::new((x, y), 9, CHOSEN.stroke_width(3))])
                .map_err(&e)?
                .label(format!("chosen: rewrite {}, NPV {}", human(x), human(y)))
                .legend(|(x, y)| Circle::new((x + 10, y), 6, CHOSEN.stroke_width(3)));
            legend = true;
        }
        if legend {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerRight)
                .background_style(WHITE.mix(0.9))
                .border_style(GRID)
                .label_font((FONT, 13).into_font().color(&INK))
                .draw()
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

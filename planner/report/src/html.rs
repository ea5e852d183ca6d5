//! `report.html`: one self-contained page.
//!
//! Markup comes from maud templates, which escape every interpolated value;
//! the charts are plotters SVG (which escapes its text) and the join graph
//! is maud SVG. The page loads nothing: its Content-Security-Policy is
//! `default-src 'none'` with only the page's own `<style>` and `<script>`
//! allowed, by SHA-256 hash, so even a name that slipped through escaping
//! could not run a script or fetch anything.

use crate::joingraph::{self, layout_text};
use crate::{charts, ReportData, Result};
use base64::Engine as _;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use planner::{human, human_budget};
use sha2::{Digest, Sha256};
use workload::time::format_time;

/// Edges listed in the page's edge table.
pub const MAX_EDGE_ROWS: usize = 500;

const STYLE: &str = r#"
:root { color-scheme: light; --ink: #1b2631; --muted: #566573; --rule: #d5d8dc; --accent: #ca6f1e; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1180px; padding: 24px 28px 60px; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #fbfcfc; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 34px 0 8px; padding-bottom: 4px; border-bottom: 2px solid var(--rule); }
h3 { font-size: 16px; margin: 20px 0 6px; }
p, li { max-width: 980px; }
.muted { color: var(--muted); }
nav a { margin-right: 14px; color: #1f618d; }
figure { margin: 8px 0; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 4px; }
svg { max-width: 100%; height: auto; }
.chart, .joingraph { background: #fff; border: 1px solid var(--rule); border-radius: 6px; }
.legend { list-style: none; padding: 0; margin: 6px 0; display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 13px; }
.legend li { display: flex; align-items: center; gap: 6px; }
.legend svg { border: 0; }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: 13.5px; background: #fff; }
th, td { border: 1px solid var(--rule); padding: 4px 8px; vertical-align: top; text-align: left; }
th { background: #f2f3f4; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
td.name { max-width: 520px; }
.table-wrap { max-width: 100%; overflow-x: auto; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th::after { content: " \2195"; color: #aab7b8; }
table.sortable th[aria-sort=ascending]::after { content: " \2191"; color: var(--ink); }
table.sortable th[aria-sort=descending]::after { content: " \2193"; color: var(--ink); }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
pre { background: #f4f6f6; border: 1px solid var(--rule); border-radius: 6px; padding: 10px 12px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: break-word; }
.nowrap { white-space: nowrap; }
.replan { color: #c0392b; font-weight: 600; }
.keep { color: #1e8449; }
.changed { color: var(--accent); font-weight: 600; }
ul.problems li { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; overflow-wrap: break-word; }
tr.chosen td { background: #fef5e7; }
"#;

/// Sorts tables of class `sortable` by the clicked column (numbers by
/// their `data-v`), counts the join graph's tables and labels drawn outside
/// the picture (`data-outside`), and marks the page once it ran
/// (`data-script="ran"`); the browser check reads both marks.
const SCRIPT: &str = r#"
(function () {
  function cmp(a, b, i) {
    var x = a.cells[i], y = b.cells[i];
    var p = x.getAttribute('data-v'), q = y.getAttribute('data-v');
    if (p !== null && q !== null) { return parseFloat(p) - parseFloat(q); }
    return x.textContent.localeCompare(y.textContent);
  }
  document.querySelectorAll('table.sortable').forEach(function (t) {
    var heads = t.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, i) {
      th.tabIndex = 0;
      function sort() {
        var asc = th.getAttribute('aria-sort') !== 'ascending';
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
        var body = t.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) { var c = cmp(a, b, i); return asc ? c : -c; });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); } });
    });
  });
  // The join graph checks itself with the browser's own text metrics:
  // every table, table label and edge label drawn inside the picture.
  var g = document.querySelector('svg.joingraph');
  if (g) {
    var vb = g.viewBox.baseVal, out = [];
    g.querySelectorAll('g.node circle, g.node text, g.edge-labels text').forEach(function (el) {
      var b = el.getBBox();
      if (b.x < vb.x - 0.5 || b.y < vb.y - 0.5 ||
          b.x + b.width > vb.x + vb.width + 0.5 || b.y + b.height > vb.y + vb.height + 0.5) {
        var p = el.closest('[data-table],[data-edge]');
        out.push(p ? (p.getAttribute('data-table') || p.getAttribute('data-edge')) : el.tagName);
      }
    });
    g.setAttribute('data-outside', String(out.length));
    if (out.length) { g.setAttribute('data-outside-names', out.join(' | ')); }
  }
  // With `#check` in the address (the browser check, `make report-check`),
  // the page also measures its own layout: anything wider than the window
  // or scrolling inside its box (data-overflow), text boxes in a picture
  // that overlap one another or a chart's data (data-overlaps), and lines
  // broken between two letters of a word (data-broken-words).
  if (location.hash === '#check') { check(); }
  document.documentElement.setAttribute('data-script', 'ran');

  function check() {
    var root = document.documentElement, vw = root.clientWidth;
    function what(el) {
      var id = el.closest('[id]');
      return el.tagName.toLowerCase() + (id ? ' in #' + id.id : '');
    }
    function mark(name, list) {
      root.setAttribute('data-' + name, String(list.length));
      if (list.length) { root.setAttribute('data-' + name + '-what', list.slice(0, 20).join(' | ')); }
    }
    var overflow = [];
    if (root.scrollWidth > vw) { overflow.push('page ' + root.scrollWidth + ' > ' + vw); }
    document.querySelectorAll('body *').forEach(function (el) {
      if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') { return; }
      var r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > vw + 0.5) { overflow.push(what(el) + ' ends at ' + Math.round(r.right)); }
      var st = getComputedStyle(el);
      if ((st.overflowX === 'auto' || st.overflowX === 'scroll' || st.overflowX === 'hidden') &&
          el.scrollWidth > el.clientWidth + 1) {
        overflow.push(what(el) + ' hides ' + (el.scrollWidth - el.clientWidth) + ' px');
      }
    });
    mark('overflow', overflow);

    function boxOf(el) { var r = el.getBoundingClientRect(); return { l: r.left, t: r.top, r: r.right, b: r.bottom }; }
    function meet(a, b) { return a.l < b.r - 0.5 && b.l < a.r - 0.5 && a.t < b.b - 0.5 && b.t < a.b - 0.5; }
    function inside(p, a) { return p.x > a.l && p.x < a.r && p.y > a.t && p.y < a.b; }
    var overlaps = [];
    document.querySelectorAll('svg').forEach(function (svg) {
      if (svg.closest('.legend')) { return; }
      var name = what(svg);
      var texts = Array.prototype.filter.call(svg.querySelectorAll('text'), function (t) { return t.textContent.trim() !== ''; });
      var boxes = texts.map(boxOf);
      for (var i = 0; i < texts.length; i++) {
        for (var j = i + 1; j < texts.length; j++) {
          if (meet(boxes[i], boxes[j])) {
            overlaps.push(name + ': "' + texts[i].textContent + '" on "' + texts[j].textContent + '"');
          }
        }
      }
      var m = svg.getScreenCTM();
      function pt(x, y) { var p = svg.createSVGPoint(); p.x = x; p.y = y; return p.matrixTransform(m); }
      // Marks no text may cover: tables in the join graph; the data
      // (lines and points) in a chart.
      var marks = [];
      svg.querySelectorAll('circle').forEach(function (c) { marks.push({ box: boxOf(c), el: c }); });
      if (!svg.classList.contains('joingraph')) {
        svg.querySelectorAll('polyline').forEach(function (l) {
          var pts = l.points, seg = [];
          for (var k = 0; k < pts.numberOfItems; k++) { var q = pts.getItem(k); seg.push(pt(q.x, q.y)); }
          marks.push({ line: seg, el: l });
        });
      }
      // A chart's framed box (plotters draws a legend's frame as a
      // translucent or unfilled rect) is a label box too; the marks drawn
      // after it are its own samples.
      var labels = texts.map(function (t, i) { return { el: t, box: boxes[i], what: '"' + t.textContent + '"' }; });
      if (!svg.classList.contains('joingraph')) {
        svg.querySelectorAll('rect').forEach(function (r, k) {
          if (k > 0 && (r.getAttribute('fill') === 'none' || parseFloat(r.getAttribute('opacity') || '1') < 1)) {
            labels.push({ el: r, box: boxOf(r), what: 'a framed box' });
          }
        });
      }
      labels.forEach(function (t) {
        var a = t.box;
        marks.forEach(function (mk) {
          if (t.el.compareDocumentPosition(mk.el) & Node.DOCUMENT_POSITION_FOLLOWING && t.el.tagName === 'rect') { return; }
          var hit = false;
          if (mk.box) { hit = meet(a, mk.box); }
          else {
            for (var k = 1; k < mk.line.length && !hit; k++) {
              var p = mk.line[k - 1], q = mk.line[k];
              var n = Math.max(1, Math.ceil(Math.hypot(q.x - p.x, q.y - p.y) / 2));
              for (var s = 0; s <= n && !hit; s++) {
                hit = inside({ x: p.x + (q.x - p.x) * s / n, y: p.y + (q.y - p.y) * s / n }, a);
              }
            }
          }
          if (hit) { overlaps.push(name + ': ' + t.what + ' on a ' + mk.el.tagName); }
        });
      });
    });
    mark('overlaps', overlaps);

    var broken = [], range = document.createRange();
    var walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), node;
    var word = /[A-Za-z0-9_]/;
    while ((node = walk.nextNode())) {
      if (node.parentElement.closest('svg, script, style')) { continue; }
      var text = node.data, prev = null;
      for (var i = 0; i < text.length; i++) {
        range.setStart(node, i); range.setEnd(node, i + 1);
        var rs = range.getClientRects();
        if (!rs.length) { prev = null; continue; }
        var top = rs[0].top;
        if (prev !== null && top > prev + 2 && word.test(text[i - 1]) && word.test(text[i])) {
          broken.push(text.slice(Math.max(0, i - 12), i) + '\u23CE' + text.slice(i, i + 12));
        }
        prev = top;
      }
    }
    mark('broken-words', broken);
  }
})();
"#;

/// `'sha256-…'` of an inline element's text, for the CSP.
fn csp_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The page's Content-Security-Policy: nothing may load; only this page's
/// style and script may apply or run.
pub fn content_security_policy() -> String {
    format!(
        "default-src 'none'; style-src {}; script-src {}; base-uri 'none'; form-action 'none'",
        csp_hash(STYLE),
        csp_hash(SCRIPT)
    )
}

/// The parts of a name a line may break between: after each `.`, `/` and
/// `,` (`spark_catalog.`, `default.`, `lineitem(l_orderkey)`), never inside
/// an identifier.
fn name_parts(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if matches!(c, '.' | '/' | ',') {
            parts.push(&s[start..i + 1]);
            start = i + 1;
        }
    }
    if start < s.len() || parts.is_empty() {
        parts.push(&s[start..]);
    }
    parts
}

/// A name from the logs, escaped, with a `<wbr>` at each place
/// [`name_parts`] allows a break: a narrow cell wraps it there (the page
/// never breaks inside a word: no `overflow-wrap: anywhere`).
fn name(s: &str) -> Markup {
    html! { @for (k, part) in name_parts(s).into_iter().enumerate() { @if k > 0 { wbr; } (part) } }
}

/// A legend entry's sample: a line (colour, dash), a dot or a ring.
enum Swatch {
    Line(&'static str, Option<&'static str>),
    Dot(&'static str),
    Ring(&'static str),
}

/// A chart's legend, beside the chart (inside it, a legend covers data).
fn chart_legend(items: &[(Swatch, String)]) -> Markup {
    html! {
        ul class="legend" {
            @for (swatch, text) in items {
                li {
                    svg width="30" height="14" viewBox="0 0 30 14" aria-hidden="true" {
                        @match swatch {
                            Swatch::Line(colour, dash) => {
                                line x1="2" y1="7" x2="28" y2="7" stroke=(colour) stroke-width="2" stroke-dasharray=[*dash] {}
                            }
                            Swatch::Dot(colour) => { circle cx="15" cy="7" r="5" fill=(colour) {} }
                            Swatch::Ring(colour) => {
                                circle cx="15" cy="7" r="5" fill="none" stroke=(colour) stroke-width="3" {}
                            }
                        }
                    }
                    " " (text)
                }
            }
        }
    }
}

/// The budget curve's legend (colours as in `charts`).
fn budget_legend(curve: &planner::BudgetCurve, given: Option<u64>) -> Vec<(Swatch, String)> {
    let mut items = vec![(
        Swatch::Dot("#34495e"),
        "a plan: its rewrite and NPV (the NPV holds until the next step)".to_string(),
    )];
    if let Some(p) = curve.chosen_point() {
        items.push((
            Swatch::Ring("#ca6f1e"),
            format!(
                "chosen: rewrite {}, NPV {}",
                human(p.budget as f64),
                human(p.npv)
            ),
        ));
    }
    if let Some(g) = given {
        items.push((
            Swatch::Line("#c0392b", Some("8 5")),
            format!("rewrite budget given: {}", human(g as f64)),
        ));
    }
    items
}

/// The drift chart's legend (colours as in `charts`).
fn drift_legend(rows: &[planner::DriftRow], threshold: f64) -> Vec<(Swatch, String)> {
    let mut items = vec![
        (
            Swatch::Line("#c0392b", Some("8 5")),
            format!("threshold {threshold}"),
        ),
        (Swatch::Dot("#c0392b"), "re-plan".to_string()),
        (Swatch::Dot("#1e8449"), "keep the plan".to_string()),
    ];
    if rows.iter().any(|r| r.gap_windows > 0) {
        items.push((
            Swatch::Line("#34495e", Some("6 5")),
            "compared across empty windows".to_string(),
        ));
    }
    items
}

/// A time, kept on one line (a line may break between two times, not
/// inside one's date).
fn time(ms: i64) -> Markup {
    html! { span class="nowrap" { (format_time(ms)) } }
}

/// A right-aligned number cell that sorts by `v`.
fn num(v: f64, shown: String) -> Markup {
    html! { td class="num" data-v=(format!("{v}")) { (shown) } }
}

/// Render `report.html`.
pub fn html(d: &ReportData<'_>) -> Result<String> {
    let plan = &d.planned.plan;
    let i = &d.inputs;
    let span = match i.span {
        Some((a, b)) => html! { (time(a)) " .. " (time(b)) },
        None => html! { "unknown" },
    };
    let jg = joingraph::build(d);
    let drift_svg = if d.drift.is_empty() {
        None
    } else {
        Some(charts::drift(d.drift, d.drift_threshold)?)
    };
    let curve = &d.planned.curve;
    let budget_svg = if curve.points.is_empty() {
        None
    } else {
        Some(charts::budget(curve, plan.budget)?)
    };
    let changed: Vec<_> = plan.tables.iter().filter(|t| t.changed).collect();
    // Per changed measured table: bytes read now and under each candidate.
    type Depth = Option<(String, f64, String)>;
    let mut skipping_svgs: Vec<(String, String, Depth)> = Vec::new();
    for t in &changed {
        let mut cands: Vec<_> = d
            .planned
            .measured
            .iter()
            .filter(|w| w.table == t.table)
            .collect();
        let Some(first) = cands.first() else {
            continue;
        };
        let now = first.reads.bytes_now;
        cands.sort_by(|a, b| {
            a.reads
                .bytes_after
                .cmp(&b.reads.bytes_after)
                .then_with(|| a.key.cmp(&b.key))
        });
        let bars: Vec<(String, u64, bool)> = cands
            .iter()
            .map(|w| (w.key.join(","), w.reads.bytes_after, w.key == t.keys))
            .collect();
        // How the files lie today on the plan's first key column.
        let short = graph::tables::short_table(&t.table);
        let depth = match t.keys.first().and_then(|c| {
            d.quality
                .iter()
                .find(|q| q.table == short && q.column.eq_ignore_ascii_case(c))
        }) {
            Some(q) if !q.depth_histogram.is_empty() => Some((
                q.column.clone(),
                q.average_depth,
                charts::depth(&q.depth_histogram)?,
            )),
            _ => None,
        };
        skipping_svgs.push((t.table.clone(), charts::skipping(now, &bars)?, depth));
    }
    let engines: Vec<String> = d
        .planned
        .measured
        .iter()
        .map(|w| w.engine.to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(content_security_policy());
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content={ "lakeaudit " (env!("CARGO_PKG_VERSION")) };
                title { "lakeaudit report" }
                style { (PreEscaped(STYLE)) }
            }
            body {
                header {
                    h1 { "lakeaudit report" }
                    p id="summary" {
                        "Input: " (i.applications) " application(s), " (i.executions)
                        " SQL executions (" (i.queries) " queries, " (i.executions - i.queries)
                        " setup commands), " (span) "."
                    }
                    nav {
                        a href="#graph" { "Join graph" }
                        a href="#plan" { "Layout plan" }
                        @if d.maintenance.is_some() { a href="#maintenance" { "Maintenance" } }
                        @if !d.verify.is_empty() { a href="#verify" { "Did the rewrite pay?" } }
                        a href="#budget" { "Budget curve" }
                        a href="#drift" { "Drift" }
                        a href="#edges" { "Join edges" }
                        a href="#inputs" { "Inputs" }
                    }
                }
                section id="graph" {
                    h2 { "Join graph" }
                    figure {
                        (joingraph::svg(&jg))
                        figcaption {
                            "Tables joined by the workload (" (jg.nodes.len()) " tables, "
                            (jg.edges.len()) " edges"
                            @if jg.hidden_tables > 0 || jg.hidden_edges > 0 {
                                "; not drawn: " (jg.hidden_tables) " tables and "
                                (jg.hidden_edges) " edges of lower JIS"
                            }
                            "). Line width is the edge's JIS over the whole input; the plan's status is that of the "
                            @if let Some((a, b)) = d.planned.window {
                                "window planned for, " (time(a)) " .. " (time(b))
                            } @else {
                                "whole input"
                            }
                            ". Hover a table or an edge for its figures."
                            @let unlabelled = joingraph::unlabelled(&jg);
                            @if unlabelled > 0 {
                                " " (unlabelled) " edge label(s) found no free spot and are not drawn (hover the edge)."
                            }
                        }
                    }
                    (joingraph::legend())
                }
                section id="plan" {
                    h2 { "Layout plan" }
                    @if let Some((a, b)) = d.planned.window {
                        p { "For the most recent " (d.window) " window of the input, " (time(a)) " .. " (time(b)) " (it ends at the last execution); the JIS and savings in this section are that window's." }
                    }
                    @if changed.is_empty() {
                        p { "No layout change pays for itself within the budgets." }
                    } @else {
                        div class="table-wrap" { table class="sortable" id="plan-tables" {
                            thead { tr {
                                th { "table" } th { "change" } th { "now" }
                                th class="num" { "rewrite" } th class="num" { "storage kept" }
                                th class="num" { "edges served" } th class="num" { "NPV share" }
                                th class="num" { "saves scanned / week" } th class="num" { "executor time / week" }
                                @if d.money.cost_per_tb.is_some() || d.money.cost_per_hour.is_some() { th class="num" { "cost / week" } }
                            } }
                            tbody {
                                @for t in &changed {
                                    tr data-table=(t.table) {
                                        td class="name" { code { (name(&t.table)) } }
                                        td class="name changed" title=(d.planned_layout(t)) { (d.planned_layout_short(t))
                                            @if let Some(note) = crate::plan_text::layout_note(t, d.format(&t.table)) { " (" (note) ")" }
                                            @if let Some(k) = t.key_drift() { " (key drift from (" (k.join(", ")) "))" } }
                                        td class="name" { (layout_text(&t.previous)) }
                                        (num(t.rewrite_bytes as f64, human(t.rewrite_bytes as f64)))
                                        (num(t.storage_bytes as f64, human(t.storage_bytes as f64)))
                                        (num(t.edges_served.len() as f64, t.edges_served.len().to_string()))
                                        (num(t.npv_contribution, human(t.npv_contribution)))
                                        @let sv = d.money.change(t, d.planned);
                                        (num(sv.bytes, human(sv.bytes)))
                                        (num(sv.executor_hours, crate::hours(sv.executor_hours)))
                                        @if let Some(c) = sv.cost { (num(c, format!("{c:.2}"))) }
                                    }
                                }
                            }
                        } }
                    }
                    @if changed.iter().any(|t| d.planned.measured.iter().any(|w| w.table == t.table)) {
                        h3 { "Measured on the audited tables" }
                        p { "File statistics of the tables, and the files a rewrite would write simulated from their rows; engine: " (engines.join(", ")) "; per scan in " code { "skipping.csv" } "." }
                        div class="table-wrap" { table class="sortable" id="measured" {
                            thead { tr {
                                th { "table" } th { "key" } th class="num" { "executions" }
                                th class="num" { "read now" } th class="num" { "skipped now" }
                                th class="num" { "read after" } th class="num" { "skipped after" }
                                th class="num" { "files now" } th class="num" { "files after" }
                            } }
                            tbody {
                                @for t in &changed {
                                    @if let Some(w) = d.planned.measured.iter().find(|w| w.table == t.table && w.key == t.keys) {
                                        @let r = &w.reads;
                                        @let pct = |read: u64| r.skipped_pct(read);
                                        tr {
                                            td class="name" { code { (name(&t.table)) } }
                                            td class="name" { (name(&t.keys.join(", "))) }
                                            (num(w.executions as f64, w.executions.to_string()))
                                            (num(r.bytes_now as f64, human(r.bytes_now as f64)))
                                            (num(pct(r.bytes_now), format!("{:.1}%", pct(r.bytes_now))))
                                            (num(r.bytes_after as f64, human(r.bytes_after as f64)))
                                            (num(pct(r.bytes_after), format!("{:.1}%", pct(r.bytes_after))))
                                            (num(r.files_now as f64, r.files_now.to_string()))
                                            (num(r.files_after as f64, r.files_after.to_string()))
                                        }
                                    }
                                }
                            }
                        } }
                        @for (table, svg, depth) in &skipping_svgs {
                            figure class="chart" {
                                (PreEscaped(svg))
                                figcaption { "Bytes " code { (table) } "'s scans read in the window: now (grey), and laid out by each candidate key (the plan's in orange)." }
                            }
                            @if let Some((column, average, svg)) = depth {
                                figure class="chart" {
                                    (PreEscaped(svg))
                                    figcaption { "How " code { (table) } "'s files lie today on " code { (column) } ": range end points by how many files' ranges hold them (average depth " (format!("{average:.1}")) "; 1 is perfectly clustered, the file count is unclustered)." }
                                }
                            }
                        }
                    }
                    p id="budget-use" {
                        "Budget use: rewrite " (human(plan.rewrite_cost as f64)) " (budget: " (human_budget(plan.budget)) ")"
                        ", storage " (human(plan.storage_cost as f64)) " (budget: " (human_budget(plan.storage_budget)) ")"
                        ". NPV " strong { (human(plan.total_npv)) } " (" (plan.algorithm) " planner)."
                    }
                    @if !changed.is_empty() {
                        p id="saving" {
                            "The plan saves " strong { (d.money.describe(d.money.plan(d.planned))) } " a week"
                            @let prices = d.money.prices();
                            @if !prices.is_empty() { " (" (prices) ")" }
                            ". A change is credited half the saving of an edge it serves with another table (the saving needs both tables clustered) and all of a self join's; the executor time saved is that of the edge's executions, in the share of their bytes read that is saved."
                        }
                        ul id="served" {
                            @for t in &changed { @for e in &t.edges_served {
                                li { code { (name(&t.table)) } " serves " (name(&e.edge.label)) " (JIS " (format!("{:.3}", e.edge.jis)) ")" }
                            } }
                        }
                    }
                    @if !plan.left_alone.is_empty() {
                        h3 { "Left alone" }
                        ul id="left-alone" { @for l in &plan.left_alone { li { code { (name(&l.table)) } ": " (l.reason.to_string()) } } }
                    }
                    @if !d.planned.left_out.is_empty() {
                        h3 { "Edges left out of the plan, and why" }
                        div class="table-wrap" { table class="sortable" id="left-out" {
                            thead { tr { th { "edge" } th class="num" { "rewrite needed" } th class="num" { "stand-alone NPV" } th { "why" } } }
                            tbody {
                                @for m in &d.planned.left_out {
                                    tr {
                                        td class="name" { (name(&m.label)) }
                                        (num(m.rewrite_bytes, human(m.rewrite_bytes)))
                                        (num(m.standalone_npv, human(m.standalone_npv)))
                                        td { (m.reason.to_string()) }
                                    }
                                }
                            }
                        } }
                    }
                    @if !plan.excluded_broadcast.is_empty() {
                        p { (plan.excluded_broadcast.len()) " broadcast-only edge(s) were reported but not planned for (clustering does not help a broadcast join)." }
                    }
                    @let skipped = crate::plan_text::skipped_groups(plan, &d.planned.left_out);
                    @if !skipped.is_empty() {
                        h3 { "Edges the planner could not plan for" }
                        ul id="skipped" { @for (reason, edges) in &skipped {
                            @if let [one] = edges.as_slice() {
                                li { (name(one)) ": " (reason) }
                            } @else {
                                li { (edges.len()) " edges: " (reason) ":" ul { @for e in edges { li { (name(e)) } } } }
                            }
                        } }
                    }
                    @if !d.planned.replaced.is_empty() {
                        h3 { "Join edges priced by their tables' measurements" }
                        ul id="replaced" { @for r in &d.planned.replaced {
                            li { (name(&r.label)) ": " (r.reason) }
                        } }
                    }
                    h3 { "SQL (" code { "plan.sql" } ")" }
                    pre id="plan-sql" { code { (d.sql) } }
                }
                @if let Some(steps) = d.maintenance {
                    section id="maintenance" {
                        h2 { "Maintenance" }
                        @if steps.is_empty() {
                            p { "No audited table needs compaction or delete purging." }
                        } @else {
                            p class="muted" { "Ranked by value: bytes the logs read from the table × (1 + its join importance) × its overhead (read amplification − 1 + deleted-row share + small-file share). A table the layout plan reclusters is compacted and purged by that rewrite; a table smaller than one target file is left alone (neither compacted nor purged: a rewrite buys next to nothing). A saving is the bytes the logged scans of the input would not have read, a week. The statements, in this order, are in " code { "maintenance.sql" } "." }
                            div class="table-wrap" { table class="sortable" id="maintenance-steps" {
                                thead { tr {
                                    th class="num" { "#" } th { "table" } th { "step" } th { "rewrites" }
                                    th class="num" { "bytes" } th class="num" { "read ampl." }
                                    th class="num" { "small files" } th class="num" { "deleted" }
                                    th class="num" { "scanned" } th { "saves" } th { "statements" }
                                } }
                                tbody {
                                    @for (i, st) in steps.iter().enumerate() {
                                        tr data-table=(st.table) {
                                            (num((i + 1) as f64, (i + 1).to_string()))
                                            td class="name" { code { (name(&st.table)) } }
                                            td class="name" { (st.action.label()) }
                                            td class="name" { (st.rewrites) }
                                            (num(st.rewrite_bytes as f64, human(st.rewrite_bytes as f64)))
                                            (num(st.read_amplification, format!("{:.2}", st.read_amplification)))
                                            (num(st.small_file_share, format!("{:.0}%", st.small_file_share * 100.0)))
                                            (num(st.deleted_share, format!("{:.1}%", st.deleted_share * 100.0)))
                                            (num(st.scanned_bytes as f64, human(st.scanned_bytes as f64)))
                                            td class="name" { (crate::upkeep::saving(st, d.edges_span)) }
                                            td class="name" {
                                                @if st.action == maintenance::Action::Recluster { "see " code { "plan.sql" } }
                                                @else if st.statements.is_empty() { "none" }
                                                @for stmt in &st.statements { code { (stmt) } br; }
                                            }
                                        }
                                    }
                                }
                            } }
                        }
                    }
                }
                @if !d.calibration.is_empty() {
                    section id="calibration" {
                        h2 { "Engine calibration" }
                        p class="muted" { "Per audited table and engine: each model's files read on the current layout against the engine's own count of every scan of the current snapshot (scans of other snapshots left out). " code { "whatif --engine auto" } " and the plan's prices use the model that fits (the default rule where no scan was compared). Details: " code { "calibration.csv" } "." }
                        div class="table-wrap" { table id="calibration-models" {
                            thead { tr {
                                th { "table" } th { "engine" } th class="num" { "scans compared" } th class="num" { "other snapshots" }
                                th { "exact: none / minmax / join-range / values" } th { "fits" }
                            } }
                            tbody {
                                @for c in d.calibration {
                                    tr data-table=(c.table) {
                                        td class="name" { code { (name(&c.table)) } }
                                        td class="name" { (c.runner.as_str()) }
                                        td class="num" { (c.scans_compared) }
                                        td class="num" { (c.scans_other_snapshot) }
                                        td class="name" { (c.models.iter().map(|m| m.exact.to_string()).collect::<Vec<_>>().join(" / ")) }
                                        td class="name" {
                                            @let (model, calibrated) = c.model();
                                            @if calibrated { (model.as_str()) }
                                            @else { "no counts: " (model.as_str()) " (default rule)" }
                                        }
                                    }
                                }
                            }
                        } }
                    }
                }
                @if !d.verify.is_empty() {
                    section id="verify" {
                        h2 { "Did the rewrite pay?" }
                        p class="muted" { "Per rewrite inside the input's range: the files and bytes of the table read per run of the queries that ran both before and after it (one run of each, as the engine counted them), and what lakeaudit predicts from the snapshot before the rewrite. Details: " code { "verify.csv" } "." }
                        div class="table-wrap" { table id="verify-rewrites" {
                            thead { tr {
                                th { "table" } th { "rewritten" } th class="num" { "bytes rewritten" } th { "key" }
                                th class="num" { "scans before / after" } th { "files per run" } th { "bytes per run" }
                                th { "predicted files per run" } th { "verdict" }
                            } }
                            tbody {
                                @for r in d.verify {
                                    tr data-table=(r.table) {
                                        td class="name" { code { (name(&r.table)) } }
                                        td class="name" { (format_time(r.rewrite_ms)) " (" (r.operation) ")" }
                                        td class="num" { (r.bytes_rewritten.map_or("unknown".into(), |b| human(b as f64))) }
                                        td class="name" {
                                            @if let (Some(k), Some(src)) = (&r.key, r.key_source) { code { (k) } " (" (src.as_str()) ")" }
                                            @else { "unknown" }
                                        }
                                        td class="num" { (r.scans_before) " / " (r.scans_after) }
                                        td class="name" { (crate::verified::measured_files(r)) }
                                        td class="name" { (crate::verified::measured_bytes(r)) }
                                        td class="name" { (crate::verified::predicted_files(r)) }
                                        td class="name" { (r.verdict.as_str()) }
                                    }
                                }
                            }
                        } }
                        @for r in d.verify {
                            @if let Some(n) = &r.prediction_note {
                                p class="muted" { code { (name(&r.table)) } ": " (n) }
                            }
                        }
                    }
                }
                section id="budget" {
                    h2 { "Budget curve" }
                    @match &budget_svg {
                        Some(svg) => {
                            p {
                                "The best NPV the planner finds under each rewrite budget, " (crate::curve_span(curve))
                                "; the storage budget stays at " (human_budget(curve.storage_budget)) "."
                                @if !curve.exact { " Points are the default planner's plans (some components are too large to solve exactly)." }
                            }
                            figure {
                                div class="chart" { (PreEscaped(svg)) }
                                (chart_legend(&budget_legend(curve, plan.budget)))
                                figcaption {
                                    "Each step is a plan; its budget is the rewrite it needs, and its NPV holds until the next step. The ring marks the plan above"
                                    @if let Some(b) = plan.budget { ", the dashed line the rewrite budget given (" (human(b as f64)) ")" }
                                    "."
                                }
                            }
                            div class="table-wrap" { table class="sortable" id="budget-curve" {
                                thead { tr {
                                    th class="num" { "rewrite budget" } th class="num" { "NPV" } th class="num" { "storage kept" }
                                    th class="num" { "tables changed" } th class="num" { "edges served" } th { "plan" }
                                } }
                                tbody {
                                    @for pt in &curve.points {
                                        tr class=[pt.chosen.then_some("chosen")] {
                                            (num(pt.budget as f64, human(pt.budget as f64)))
                                            (num(pt.npv, human(pt.npv)))
                                            (num(pt.storage_cost as f64, human(pt.storage_cost as f64)))
                                            (num(pt.tables_changed as f64, pt.tables_changed.to_string()))
                                            (num(pt.edges_served as f64, pt.edges_served.to_string()))
                                            td { @if pt.chosen { strong { "chosen" } } }
                                        }
                                    }
                                }
                            } }
                        }
                        None => {
                            p id="budget-curve-empty" { "No layout change pays for itself at any rewrite budget." }
                        }
                    }
                }
                section id="drift" {
                    h2 { "Drift (" (d.window) " windows, threshold " (d.drift_threshold) ", settles at " (d.drift_settle) ")" }
                    p id="drift-now" { strong { (crate::drift_now(d.drift, d.drift_threshold, d.drift_settle)) } }
                    @match &drift_svg {
                        None => {},
                        Some(svg) => {
                            figure {
                                div class="chart" { (PreEscaped(svg)) }
                                (chart_legend(&drift_legend(d.drift, d.drift_threshold)))
                                figcaption { "Drift of each window against the one before, each window at its start time (empty windows leave a gap); red points are above the threshold (re-plan)." }
                            }
                            div class="table-wrap" { table class="sortable" id="drift-table" {
                                thead { tr {
                                    th { "window" } th { "compared with" } th class="num" { "executions" } th class="num" { "edges" }
                                    th class="num" { "drift" } th { "verdict" } th { "new edges" } th { "gone edges" }
                                } }
                                tbody {
                                    @for r in d.drift {
                                        tr {
                                            td { (time(r.window_start_ms)) " .. " (time(r.window_end_ms)) }
                                            td { (time(r.prev_window_start_ms)) @if r.gap_windows > 0 { " (after " (r.gap_windows) " empty window(s))" } }
                                            (num(r.executions as f64, r.executions.to_string()))
                                            (num(r.edges as f64, r.edges.to_string()))
                                            (num(r.drift, format!("{:.3}", r.drift)))
                                            @if r.held { td class="replan" { "re-plan (still due)" } } @else if r.replan { td class="replan" { "re-plan" } } @else { td class="keep" { "keep the plan" } }
                                            td class="name" { @for (k, e) in r.new_edges.iter().enumerate() { @if k > 0 { br; } (name(e)) } }
                                            td class="name" { @for (k, e) in r.gone_edges.iter().enumerate() { @if k > 0 { br; } (name(e)) } }
                                        }
                                    }
                                }
                            } }
                        }
                    }
                }
                section id="edges" {
                    h2 { "Join edges" }
                    @if d.edges.is_empty() {
                        p { "No equi-join relationships were found." }
                    } @else {
                        p class="muted" {
                            "Over all of the input read"
                            @if let Some((a, b)) = d.edges_span { ", " (time(a)) " .. " (time(b)) }
                            " (JIS of that range), best JIS first"
                            @if d.edges.len() > MAX_EDGE_ROWS { " (the first " (MAX_EDGE_ROWS) " of " (d.edges.len()) ")" }
                            ". All of them: " code { "edges.csv" } ", " code { "edges.parquet" } ". Click a column to sort."
                        }
                        div class="table-wrap" { table class="sortable" id="edge-table" {
                            thead { tr {
                                th { "edge" } th class="num" { "F" } th class="num" { "D (rows×rows)" }
                                th class="num" { "C (ms)" } th class="num" { "JIS" } th class="num" { "SMJ" }
                                th class="num" { "BHJ" } th class="num" { "other" } th class="num" { "scanned" }
                            } }
                            tbody {
                                @for r in d.edges.iter().take(MAX_EDGE_ROWS) {
                                    tr {
                                        td class="name" { (name(&r.key().label())) }
                                        (num(r.frequency as f64, r.frequency.to_string()))
                                        (num(r.data_volume, format!("{:.3e}", r.data_volume)))
                                        (num(r.cost, format!("{:.0}", r.cost)))
                                        (num(r.jis, format!("{:.3}", r.jis)))
                                        (num(r.smj_count as f64, r.smj_count.to_string()))
                                        (num(r.bhj_count as f64, r.bhj_count.to_string()))
                                        (num(r.other_count as f64, r.other_count.to_string()))
                                        (num(r.scanned_bytes, human(r.scanned_bytes)))
                                    }
                                }
                            }
                        } }
                    }
                }
                section id="inputs" {
                    h2 { "Inputs" }
                    div class="table-wrap" { table class="sortable" id="apps" {
                        thead { tr {
                            th { "application" } th { "name" } th { "Spark" } th class="num" { "lines" }
                            th class="num" { "events skipped" } th class="num" { "never ended" }
                            th { "unknown plan operators" }
                        } }
                        tbody {
                            @for a in &d.apps.listed {
                                tr {
                                    td { code { (a.app_id) } }
                                    td class="name" { (a.name) }
                                    td { (a.spark_version.as_deref().unwrap_or("?")) }
                                    (num(a.lines as f64, a.lines.to_string()))
                                    (num(a.skipped_events as f64, a.skipped_events.to_string()))
                                    (num(a.unfinished_executions as f64, a.unfinished_executions.to_string()))
                                    td class="name" {
                                        @for (k, (op, n)) in a.unknown_operators.iter().enumerate() {
                                            @if k > 0 { ", " } code { (op) } " (" (n) ")"
                                        }
                                    }
                                }
                            }
                        }
                    } }
                    @if let Some(line) = d.apps.rest.line() {
                        p { (line) " (" code { "lakeaudit queries --apps FILE" } " lists every application)" }
                    }
                    @if d.errors.is_empty() && d.warnings.is_empty() {
                        p { "All inputs were read without errors." }
                    } @else {
                        @if !d.warnings.is_empty() {
                            h3 { "Warnings" }
                            ul class="problems" id="warnings" { @for w in d.warnings { li { (w) } } }
                        }
                        @if !d.errors.is_empty() {
                            h3 { "Errors" }
                            ul class="problems" id="errors" { @for w in d.errors { li { (w) } } }
                        }
                    }
                }
                footer class="muted" {
                    p { "Written by lakeaudit " (env!("CARGO_PKG_VERSION")) ". The Markdown summary is "
                        code { "report.md" } "." }
                }
                script { (PreEscaped(SCRIPT)) }
            }
        }
    };
    Ok(page.into_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name breaks after its dots, slashes and commas, never inside an
    /// identifier; the pieces are the whole name, escaped.
    #[test]
    fn names_break_between_their_parts_only() {
        assert_eq!(
            name_parts("spark_catalog.default.lineitem(l_partkey,l_suppkey)"),
            [
                "spark_catalog.",
                "default.",
                "lineitem(l_partkey,",
                "l_suppkey)"
            ]
        );
        assert_eq!(name_parts("orders"), ["orders"]);
        assert_eq!(name_parts(""), [""]);
        assert_eq!(name("db.t<b>").into_string(), "db.<wbr>t&lt;b&gt;");
        assert_eq!(
            name("file:/tmp/x.parquet").into_string(),
            "file:/<wbr>tmp/<wbr>x.<wbr>parquet"
        );
    }

    /// The page's style never lets a line break inside a word: cells wrap
    /// at the `<wbr>` of [`name`] and at spaces.
    #[test]
    fn the_style_breaks_no_word() {
        assert!(!STYLE.contains("anywhere"), "{STYLE}");
    }
}

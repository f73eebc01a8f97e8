//! The lane timeline as one self-contained HTML page: an inline SVG per traced warp, 32 rows
//! (one per lane) against the run's steps, no scripts or styles from the network.
//!
//! A cell is a lane at a step:
//! - solid in its instruction's colour: the instruction completed in that step;
//! - pale in its instruction's colour: the lane waits at it;
//! - orange: spinning at a memory operation; dark grey: exited; white: never launched; red:
//!   panicked;
//! - a black tick on its left edge: the lane ran (was polled) in that step;
//! - faded: the warp did not step then (another warp ran), and the lane is as it last was.
//!
//! Hovering a cell shows the lane's state, membermask, call site, operands and results. The
//! step that ended the run is outlined in red, with the report above the picture; a lane whose
//! access raced has a red dot. A small script checks the rendered page (rows, steps, sizes) and
//! writes what it found to `body[data-check]`, which the browser test reads.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{Trace, TraceEvent, TraceStep, WarpTrace};
use crate::error::LaneState;

const CELL_H: u32 = 11;
const LEFT: u32 = 64;
const TOP: u32 = 190;

/// `s` escaped for HTML text and attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A colour per instruction of the trace's table (hues spread by the golden angle).
fn colour(instr: usize, light: bool) -> String {
    let hue = (instr as f64 * 137.508 + 200.0) % 360.0;
    if light {
        format!("hsl({hue:.0},60%,80%)")
    } else {
        format!("hsl({hue:.0},62%,46%)")
    }
}

/// What a cell shows.
#[derive(Clone, PartialEq)]
struct Cell {
    fill: String,
    title: String,
    /// Cells with equal keys side by side merge into one rectangle.
    key: String,
}

impl Trace {
    /// The index in [`Trace::instrs`] of the instruction a lane state names.
    fn instr_index(&self, state: &LaneState) -> Option<usize> {
        match *state {
            LaneState::Waiting { op, mask, site } => self.instrs.iter().position(|i| i.op == op && i.mask == mask && crate::error::same_place(i.site, site)),
            LaneState::AtBarrier { op, site, .. } => self.instrs.iter().position(|i| i.op == op && crate::error::same_place(i.site, site)),
            _ => None,
        }
    }

    /// The cell of lane `lane` at step `s` of warp `w`.
    fn cell(&self, w: &WarpTrace, s: &TraceStep, lane: u32) -> Cell {
        let l = lane as usize;
        let state = &s.lanes[l];
        let head = format!("warp {} lane {lane}, step {} (timeline {})", w.warp, s.step, s.seq);
        if s.completed.0 & 1 << lane != 0 {
            let e = s.executed.iter().find(|e| e.lanes.0 & 1 << lane != 0);
            let instr = e.map(|e| e.instr).or_else(|| self.instr_index(state));
            let mut title = format!("{head}: completed {state}");
            if let Some(v) = e.and_then(|e| e.values.iter().find(|v| v.lane == lane)) {
                let _ = write!(title, "\na = {:#x}", v.a);
                if let Some(i) = instr {
                    if matches!(self.instrs[i].op, crate::op::Op::Shfl { .. }) {
                        let _ = write!(title, ", b = {}", v.b);
                    }
                }
                let _ = write!(title, "\nd = {:#x} ({}), p = {}", v.d, v.d as i64, v.p);
            }
            let fill = instr.map_or_else(|| "#7aa".into(), |i| colour(i, false));
            return Cell { key: format!("done {}", s.seq), fill, title };
        }
        let (fill, what) = match state {
            LaneState::Waiting { .. } | LaneState::AtBarrier { .. } => (self.instr_index(state).map_or_else(|| "#cde".into(), |i| colour(i, true)), state.to_string()),
            LaneState::AtMemory(_) => ("#f4a261".into(), state.to_string()),
            LaneState::Blocked => ("#f6c28b".into(), state.to_string()),
            LaneState::Running => ("#bcd4ea".into(), state.to_string()),
            LaneState::Exited => ("#4a4a4a".into(), "exited".into()),
            LaneState::Inactive => ("#ffffff".into(), "inactive (not launched)".into()),
            LaneState::Panicked => ("#d62828".into(), "panicked".into()),
        };
        Cell { key: format!("{fill}|{what}"), title: format!("{head}: {what}"), fill }
    }

    /// The trace as a self-contained HTML page (see the module documentation for what it shows).
    pub fn to_html(&self) -> String {
        // The timeline: every step any traced warp took.
        let columns: Vec<u64> = self.warps.iter().flat_map(|w| w.steps.iter().map(|s| s.seq)).collect::<BTreeSet<_>>().into_iter().collect();
        let col_of = |seq: u64| columns.binary_search(&seq).unwrap_or(0) as u32;
        // Wide cells for short traces, at least 12 pixels.
        let cell_w = (960 / columns.len().max(1) as u32).clamp(12, 40);
        // The last step of each warp the report is about.
        let failing: Vec<(u64, u64)> = self
            .report
            .iter()
            .flat_map(|r| r.warps.iter())
            .filter_map(|&w| self.warps.iter().find(|t| t.warp == w))
            .filter_map(|w| w.steps.back().map(|s| (w.warp, s.seq)))
            .collect();

        let mut page = String::new();
        page.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>warpkit trace</title>\n<style>\n");
        page.push_str(
            "body{font:13px system-ui,sans-serif;margin:16px;color:#222}\n\
             h1{font-size:18px;margin:0 0 8px}h2{font-size:15px;margin:18px 0 4px}\n\
             pre.report{background:#fff0f0;border:2px solid #d62828;padding:8px;white-space:pre-wrap;max-width:1200px}\n\
             .legend span{display:inline-block;margin:2px 10px 2px 0}.legend i{display:inline-block;width:12px;height:10px;margin-right:4px;vertical-align:middle;border:1px solid #999}\n\
             svg{display:block;margin:4px 0 12px}svg text{font:10px monospace;fill:#222}rect.c:hover{stroke:#000;stroke-width:1.5}\n",
        );
        page.push_str("</style></head>\n<body>\n<h1>warpkit trace</h1>\n");
        let steps_total: usize = self.warps.iter().map(|w| w.steps.len()).sum();
        let _ = writeln!(page, "<p>{} warp(s), {} steps on the timeline ({steps_total} warp steps). Hover a cell for the lane's state, membermask, call site, operands and results.</p>", self.warps.len(), columns.len());
        if let Some(r) = &self.report {
            page.push_str("<h2>Report</h2>\n");
            for (w, seq) in &failing {
                let _ = writeln!(page, "<p>The run stopped at warp {w}, timeline step {seq} (outlined in red).</p>");
            }
            let _ = writeln!(page, "<pre class=\"report\" id=\"report\">{}</pre>", esc(&r.text));
        }
        // The legend: each instruction's colour.
        page.push_str("<div class=\"legend\">\n");
        for (i, instr) in self.instrs.iter().enumerate() {
            let mask = if instr.op.is_barrier() { String::new() } else { format!(" mask {:#010x}", instr.mask) };
            let _ = writeln!(page, "<span><i style=\"background:{}\"></i><b>{}</b>{mask} at {}</span>", colour(i, false), esc(&instr.op.to_string()), esc(&instr.site.to_string()));
        }
        page.push_str(
            "<span><i style=\"background:#4a4a4a\"></i>exited</span><span><i style=\"background:#f4a261\"></i>spinning at memory</span>\
             <span><i style=\"background:#fff\"></i>inactive</span><span><i style=\"background:#d62828\"></i>panicked</span>\
             <span>solid: completed in that step; pale: waiting; black tick: polled in that step; faded: another warp ran</span>\n</div>\n",
        );

        for w in &self.warps {
            let width = LEFT + columns.len() as u32 * cell_w + 8;
            let height = TOP + 32 * CELL_H + 8;
            let _ = writeln!(page, "<h2>Warp {} of the launch: block {}, warp {} of its block{}</h2>", w.warp, w.block, w.warp_in_block, if w.dropped > 0 { format!(" ({} earlier steps dropped)", w.dropped) } else { String::new() });
            let _ = writeln!(
                page,
                "<svg class=\"warp\" data-warp=\"{}\" data-steps=\"{}\" data-columns=\"{}\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">",
                w.warp,
                w.steps.len(),
                columns.len()
            );
            // Instruction labels above the steps where they completed.
            for s in &w.steps {
                let x = LEFT + col_of(s.seq) * cell_w + cell_w / 2 + 4;
                let mut names: Vec<String> = s.executed.iter().map(|e| self.instrs[e.instr].op.to_string()).collect();
                names.dedup();
                if names.is_empty() {
                    // Nothing completed: name where the lanes that ran stopped.
                    let mut at: Vec<String> = crate::semantics::lanes(s.ran.0)
                        .filter_map(|l| match s.lanes[l as usize] {
                            LaneState::Waiting { op, .. } | LaneState::AtBarrier { op, .. } => Some(format!("at {op}")),
                            LaneState::Exited => Some("exit".into()),
                            _ => None,
                        })
                        .collect();
                    at.sort();
                    at.dedup();
                    names = at;
                }
                if !names.is_empty() {
                    let _ = writeln!(page, "<text transform=\"translate({x},{}) rotate(-90)\">{}</text>", TOP - 4, esc(&names.join(" + ")));
                }
            }
            // The failing step.
            for &(fw, seq) in &failing {
                if fw == w.warp {
                    let x = LEFT + col_of(seq) * cell_w;
                    let _ = writeln!(page, "<rect class=\"failing\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#d62828\" stroke-width=\"3\"><title>the run stopped here</title></rect>", x - 1, TOP - 2, cell_w + 2, 32 * CELL_H + 4);
                }
            }
            for lane in 0..32u32 {
                let y = TOP + lane * CELL_H;
                let _ = writeln!(page, "<g class=\"lane\" data-lane=\"{lane}\"><text x=\"4\" y=\"{}\">lane {lane}</text>", y + CELL_H - 2);
                // Cells, with runs of equal waiting cells merged; faded where the warp did not step.
                let mut run: Option<(u32, u32, Cell, bool)> = None; // (first column, columns, cell, faded)
                let flush = |page: &mut String, run: Option<(u32, u32, Cell, bool)>| {
                    if let Some((c0, n, cell, faded)) = run {
                        let _ = write!(
                            page,
                            "<rect class=\"c\" x=\"{}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}><title>{}</title></rect>",
                            LEFT + c0 * cell_w,
                            n * cell_w - 1,
                            CELL_H - 1,
                            cell.fill,
                            if faded { " opacity=\"0.45\"" } else { "" },
                            esc(&cell.title)
                        );
                    }
                };
                let mut steps = w.steps.iter().peekable();
                let mut last: Option<Cell> = None;
                for (c, &seq) in columns.iter().enumerate() {
                    let c = c as u32;
                    let (cell, faded) = match steps.peek() {
                        Some(s) if s.seq == seq => {
                            let s = steps.next().expect("peeked");
                            let cell = self.cell(w, s, lane);
                            // A completed cell is shown as waiting while other warps run.
                            last = Some(if s.completed.0 & 1 << lane != 0 { Cell { key: "resumed".into(), fill: "#e8eef4".into(), title: format!("warp {} lane {lane}: resumed after {}", w.warp, cell.title) } } else { cell.clone() });
                            (cell, false)
                        }
                        _ => match &last {
                            Some(cell) => (cell.clone(), true),
                            None => continue,
                        },
                    };
                    match &mut run {
                        Some((c0, n, prev, f)) if *c0 + *n == c && prev.key == cell.key && *f == faded && !cell.key.starts_with("done") => *n += 1,
                        _ => {
                            flush(&mut page, run.take());
                            run = Some((c, 1, cell, faded));
                        }
                    }
                }
                flush(&mut page, run.take());
                // Ticks for the steps the lane ran in, and dots for races.
                for s in &w.steps {
                    let x = LEFT + col_of(s.seq) * cell_w;
                    if s.ran.0 & 1 << lane != 0 {
                        let _ = write!(page, "<rect x=\"{x}\" y=\"{y}\" width=\"2\" height=\"{}\" fill=\"#000\" pointer-events=\"none\"/>", CELL_H - 1);
                    }
                    for e in &s.events {
                        if let TraceEvent::Race { lane: l, op, site } = e {
                            if *l == lane {
                                let _ = write!(
                                    page,
                                    "<circle class=\"race\" cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"#d62828\" stroke=\"#fff\"><title>{}</title></circle>",
                                    x + cell_w / 2,
                                    y + CELL_H / 2,
                                    esc(&format!("data race: lane {lane}'s `{op}` at {site}"))
                                );
                            }
                        }
                    }
                }
                page.push_str("</g>\n");
            }
            page.push_str("</svg>\n");
        }
        page.push_str(SELF_CHECK);
        page.push_str("</body></html>\n");
        page
    }

    /// Writes [`to_html`](Self::to_html) to `path`.
    pub fn write_html(&self, path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
        std::fs::write(path, self.to_html())
    }
}

/// Counts what the browser rendered: per warp, the lane rows, the steps and whether every row
/// has a laid-out size.
const SELF_CHECK: &str = "<script>\n\
(function(){var out=[];document.querySelectorAll('svg.warp').forEach(function(s){\
var rows=s.querySelectorAll('g.lane');var drawn=0;rows.forEach(function(g){var b=g.getBBox();if(b.width>0&&b.height>0)drawn++;});\
out.push({warp:+s.dataset.warp,rows:rows.length,drawn:drawn,steps:+s.dataset.steps,columns:+s.dataset.columns,width:s.getBoundingClientRect().width});});\
document.body.setAttribute('data-check',JSON.stringify(out));})();\n</script>\n";

//! Chrome trace-event JSON (the format `ui.perfetto.dev` and `chrome://tracing` open): one
//! process per warp, one thread per lane, an `X` slice per instruction a lane executed (from its
//! arrival to the step it completed), instant events for exits, races and the report.
//!
//! Time is the run's step sequence: one step is one microsecond on the timeline.

use std::fmt::Write as _;

use super::{Trace, TraceEvent};
use crate::error::LaneState;
use crate::op::Op;

/// `s` as a JSON string literal.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The instruction a lane waits at (or completed), as the trace's table names it.
fn instr_of(state: &LaneState) -> Option<(Op, Option<u32>, crate::error::Site)> {
    match *state {
        LaneState::Waiting { op, mask, site } => Some((op, Some(mask), site)),
        LaneState::AtBarrier { op, site, .. } => Some((op, None, site)),
        _ => None,
    }
}

impl Trace {
    /// The trace as Chrome trace-event JSON: open it in `ui.perfetto.dev` or `chrome://tracing`.
    pub fn to_perfetto_json(&self) -> String {
        let mut ev: Vec<String> = Vec::new();
        let pid = |warp: u64| warp + 1;
        for w in &self.warps {
            let p = pid(w.warp);
            ev.push(format!(
                r#"{{"name":"process_name","ph":"M","pid":{p},"tid":0,"args":{{"name":{}}}}}"#,
                quote(&format!("block {} warp {} (warp {} of the launch)", w.block, w.warp_in_block, w.warp))
            ));
            ev.push(format!(r#"{{"name":"process_sort_index","ph":"M","pid":{p},"tid":0,"args":{{"sort_index":{}}}}}"#, w.warp));
            for lane in 0..32u32 {
                if w.launched.0 & 1 << lane == 0 {
                    continue;
                }
                let t = lane + 1;
                ev.push(format!(r#"{{"name":"thread_name","ph":"M","pid":{p},"tid":{t},"args":{{"name":"lane {lane}"}}}}"#));
                ev.push(format!(r#"{{"name":"thread_sort_index","ph":"M","pid":{p},"tid":{t},"args":{{"sort_index":{lane}}}}}"#));
            }
            // Per lane: since which step it has waited at its current instruction.
            let mut since: [Option<u64>; 32] = [None; 32];
            for s in &w.steps {
                for lane in 0..32u32 {
                    let l = lane as usize;
                    let t = lane + 1;
                    let state = &s.lanes[l];
                    if instr_of(state).is_some() && since[l].is_none() {
                        since[l] = Some(s.seq);
                    }
                    if s.completed.0 & 1 << lane != 0 {
                        let start = since[l].take().unwrap_or(s.seq);
                        let Some(e) = s.executed.iter().find(|e| e.lanes.0 & 1 << lane != 0) else { continue };
                        let instr = &self.instrs[e.instr];
                        let v = e.values.iter().find(|v| v.lane == lane).copied();
                        let mut args = format!(
                            r#""membermask":"{:#010x}","site":{},"arrived_step":{start},"waited_steps":{}"#,
                            instr.mask,
                            quote(&instr.site.to_string()),
                            s.seq - start
                        );
                        if let Some(v) = v {
                            let _ = write!(args, r#","a":"{:#x}","d":"{:#x}","p":{}"#, v.a, v.d, v.p);
                            if matches!(instr.op, Op::Shfl { .. }) {
                                let _ = write!(args, r#","b":{}"#, v.b);
                            }
                        }
                        ev.push(format!(
                            r#"{{"name":{},"cat":"warp","ph":"X","ts":{start},"dur":{},"pid":{p},"tid":{t},"args":{{{args}}}}}"#,
                            quote(&instr.op.to_string()),
                            s.seq + 1 - start
                        ));
                    } else if let LaneState::AtMemory(wait) = state {
                        ev.push(format!(
                            r#"{{"name":{},"cat":"memory","ph":"X","ts":{},"dur":1,"pid":{p},"tid":{t},"args":{{"detail":{}}}}}"#,
                            quote(&format!("spin: {}", wait.op)),
                            s.seq,
                            quote(&wait.to_string())
                        ));
                    }
                }
                for e in &s.events {
                    let (name, lanes, args) = match e {
                        TraceEvent::Exited(l) => ("exited", l.0, String::new()),
                        TraceEvent::Panicked(l) => ("panicked", l.0, String::new()),
                        TraceEvent::BarrierArrived(l) => ("barrier arrival counted", l.0, String::new()),
                        TraceEvent::BarrierCompleted(_) => continue,
                        TraceEvent::Race { lane, op, site } => {
                            ("data race", 1 << lane, format!(r#","args":{{"op":{},"site":{}}}"#, quote(op), quote(&site.to_string())))
                        }
                    };
                    for lane in crate::semantics::lanes(lanes) {
                        ev.push(format!(r#"{{"name":"{name}","ph":"i","s":"t","ts":{},"pid":{p},"tid":{}{args}}}"#, s.seq, lane + 1));
                    }
                }
            }
        }
        if let Some(r) = &self.report {
            let at = r.warps.first().and_then(|&w| self.warps.iter().find(|t| t.warp == w));
            let ts = self.warps.iter().filter(|t| r.warps.contains(&t.warp)).filter_map(|w| w.steps.back()).map(|s| s.seq).max().unwrap_or(0);
            let p = at.map_or(1, |w| pid(w.warp));
            ev.push(format!(r#"{{"name":"report","ph":"i","s":"g","ts":{ts},"pid":{p},"tid":0,"args":{{"text":{}}}}}"#, quote(&r.text)));
        }
        let mut out = String::from("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"warpkit\",\"time\":\"one step = 1 us\"},\"traceEvents\":[\n");
        out.push_str(&ev.join(",\n"));
        out.push_str("\n]}\n");
        out
    }

    /// Writes [`to_perfetto_json`](Self::to_perfetto_json) to `path`.
    pub fn write_perfetto_json(&self, path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
        std::fs::write(path, self.to_perfetto_json())
    }
}

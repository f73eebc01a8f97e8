//! Execution traces: the steps of known kernels, asserted one by one; the trace-event JSON
//! against the format's required fields; the HTML in a real headless browser.

use std::collections::HashSet;

use warp_runtime::trace::{TraceEvent, Tracer};
use warp_runtime::{Executor, GlobalBuffer, Grid, LaneSet, LaneState, Op, Warp, WarpError};

const EVEN: u32 = 0x5555_5555;
const ODD: u32 = !EVEN;

/// Even lanes take a branch with its own `activemask` and a shuffle among themselves; every lane
/// then reconverges at a full-warp shuffle.
async fn diverge_and_reconverge(w: &Warp<'_>) -> u32 {
    let mut v = w.lane_id();
    if v % 2 == 0 {
        let even = w.activemask().await;
        v += w.group(even).shfl_xor(v, 2).await;
    }
    v + w.shfl_xor(v, 1).await
}

#[test]
fn a_divergent_kernel_step_by_step() {
    let tracer = Tracer::new();
    let out = Executor::new()
        .trace(&tracer)
        .run(diverge_and_reconverge)
        .unwrap();
    // The sequential reference: even lanes add their partner two away, then every lane adds its
    // neighbour's value.
    let after_branch: Vec<u32> = (0..32)
        .map(|l| if l % 2 == 0 { l + (l ^ 2) } else { l })
        .collect();
    let want: Vec<u32> = (0..32)
        .map(|l| after_branch[l] + after_branch[l ^ 1])
        .collect();
    assert_eq!(out.to_vec(), want);

    let trace = tracer.trace();
    assert_eq!(trace.warps.len(), 1);
    let w = &trace.warps[0];
    assert_eq!((w.warp, w.launched, w.dropped), (0, LaneSet(u32::MAX), 0));
    let steps: Vec<_> = w.steps.iter().collect();
    assert_eq!(steps.len(), 4);
    let op_of = |i: usize| trace.instrs[i].op;

    // Step 0: every lane ran; the even lanes stopped at `activemask`, which completed; the odd
    // lanes wait at the full shuffle.
    let s = steps[0];
    assert_eq!(
        (s.seq, s.step, s.ran, s.completed),
        (0, 0, LaneSet(u32::MAX), LaneSet(EVEN))
    );
    assert_eq!(s.executed.len(), 1);
    assert_eq!(op_of(s.executed[0].instr), Op::Activemask);
    assert!(
        s.executed[0].values.iter().all(|v| v.d == EVEN as u64),
        "activemask returns the even lanes"
    );
    for l in 0..32 {
        match s.lanes[l] {
            LaneState::Waiting {
                op: Op::Activemask,
                mask: u32::MAX,
                ..
            } => assert_eq!(l % 2, 0),
            LaneState::Waiting {
                op: Op::Shfl { .. },
                mask: u32::MAX,
                ..
            } => assert_eq!(l % 2, 1),
            other => panic!("lane {l} at step 0: {other}"),
        }
    }

    // Step 1: the even lanes ran to their group's shuffle (membermask = the even lanes), which
    // completed; each got its partner's value.
    let s = steps[1];
    assert_eq!((s.ran, s.completed), (LaneSet(EVEN), LaneSet(EVEN)));
    let e = &s.executed[0];
    assert!(matches!(op_of(e.instr), Op::Shfl { .. }));
    assert_eq!(trace.instrs[e.instr].mask, EVEN);
    for v in &e.values {
        assert_eq!(
            (v.a, v.b, v.d, v.p),
            (v.lane as u64, 2, (v.lane ^ 2) as u64, true),
            "lane {}",
            v.lane
        );
    }
    for l in (1..32).step_by(2) {
        assert!(
            matches!(
                s.lanes[l],
                LaneState::Waiting {
                    op: Op::Shfl { .. },
                    mask: u32::MAX,
                    ..
                }
            ),
            "odd lane {l} still waits"
        );
    }

    // Step 2: the even lanes arrive at the full shuffle, where the odd ones wait: it completes
    // for all 32 (reconvergence).
    let s = steps[2];
    assert_eq!((s.ran, s.completed), (LaneSet(EVEN), LaneSet(u32::MAX)));
    let e = &s.executed[0];
    assert_eq!(trace.instrs[e.instr].mask, u32::MAX);
    for v in &e.values {
        assert_eq!(
            v.d,
            after_branch[(v.lane ^ 1) as usize] as u64,
            "lane {}",
            v.lane
        );
    }

    // Step 3: every lane returns.
    let s = steps[3];
    assert_eq!((s.ran, s.completed), (LaneSet(u32::MAX), LaneSet(0)));
    assert_eq!(s.events, [TraceEvent::Exited(LaneSet(u32::MAX))]);
    assert!(s.lanes.iter().all(|l| *l == LaneState::Exited));
    assert!(trace.report.is_none());
}

#[test]
fn a_failing_run_records_its_report_and_last_step() {
    let tracer = Tracer::new();
    // Lane 0 shuffles from lane 16, which is not in the membermask and has exited.
    let err = Executor::new()
        .trace(&tracer)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 0 {
                w.group(1).shfl_down(5u32, 16).await;
            }
        })
        .unwrap_err();
    assert!(matches!(err, WarpError::InvalidShflSource { .. }), "{err}");
    let trace = tracer.trace();
    let report = trace.report.as_ref().expect("the report is in the trace");
    assert_eq!(report.text, err.to_string());
    assert_eq!(report.warps, [0]);
    let last = trace.warps[0].steps.back().expect("a step");
    assert!(
        matches!(
            last.lanes[0],
            LaneState::Waiting {
                op: Op::Shfl { .. },
                mask: 1,
                ..
            }
        ),
        "{}",
        last.lanes[0]
    );
    assert!(last.lanes[1..].iter().all(|l| *l == LaneState::Exited));
    // The picture outlines that step and quotes the report.
    let html = err.picture(&tracer);
    assert!(html.contains("class=\"failing\""));
    assert!(
        html.contains("reads lane 16, which has exited"),
        "the report text is in the page"
    );
}

#[test]
fn a_grid_traces_the_warps_selected_with_barriers_and_races() {
    // Two blocks of 64 threads: each thread writes its shared slot, a barrier, then reads its
    // neighbour's slot; thread 0 of each block also stores to one global element (a race
    // between the blocks).
    let out = GlobalBuffer::<u32>::zeroed(128);
    let flag = GlobalBuffer::<u32>::zeroed(1);
    let (o, f) = (out.slice(), flag.slice());
    let kernel = async |w: &Warp<'_>| {
        let s = w.shared_array::<u32, 64>();
        let t = w.thread_rank() as usize;
        s.store(t, t as u32);
        w.sync_threads().await;
        o.store(w.global_id() as usize, s.load((t + 1) % 64));
        if t == 0 {
            f.store(0, w.block_rank() as u32);
        }
    };
    // Warps 1..3 of the launch: warp 1 of block 0 and warp 0 of block 1.
    let tracer = Tracer::new().warps(1..3);
    let err = Grid::blocks(2, 64)
        .races(true)
        .trace(&tracer)
        .run(kernel)
        .unwrap_err();
    assert!(matches!(err, WarpError::Race { .. }), "{err}");
    let trace = tracer.trace();
    assert_eq!(
        trace.warps.iter().map(|w| w.warp).collect::<Vec<_>>(),
        [1, 2]
    );
    for w in &trace.warps {
        let events: Vec<&TraceEvent> = w.steps.iter().flat_map(|s| s.events.iter()).collect();
        assert!(
            events.contains(&&TraceEvent::BarrierArrived(LaneSet(u32::MAX))),
            "warp {}: {events:?}",
            w.warp
        );
        assert!(
            events.contains(&&TraceEvent::BarrierCompleted(LaneSet(u32::MAX))),
            "warp {}: {events:?}",
            w.warp
        );
        assert!(
            events.contains(&&TraceEvent::Exited(LaneSet(u32::MAX))),
            "warp {}: {events:?}",
            w.warp
        );
    }
    // The race is marked where block 1's thread 0 (warp 2, lane 0) stored.
    let race = trace.warps[1]
        .steps
        .iter()
        .flat_map(|s| s.events.iter())
        .find(|e| matches!(e, TraceEvent::Race { .. }));
    assert!(
        matches!(
            race,
            Some(TraceEvent::Race {
                lane: 0,
                op: "st.global",
                ..
            })
        ),
        "{race:?}"
    );
    // The timeline orders the warps' steps: the sequence numbers are distinct.
    let seqs: HashSet<u64> = trace
        .warps
        .iter()
        .flat_map(|w| w.steps.iter().map(|s| s.seq))
        .collect();
    assert_eq!(
        seqs.len(),
        trace.warps.iter().map(|w| w.steps.len()).sum::<usize>()
    );
}

#[test]
fn a_ring_tracer_keeps_the_last_steps() {
    let tracer = Tracer::last(3);
    Executor::new()
        .trace(&tracer)
        .run(async |w: &Warp<'_>| {
            let mut v = w.lane_id();
            for offset in [16, 8, 4, 2, 1] {
                v += w.shfl_down(v, offset).await;
            }
            v
        })
        .unwrap();
    let w = &tracer.trace().warps[0];
    // Six steps (five shuffles, then the exits): the last three are kept.
    assert_eq!((w.dropped, w.steps.len()), (3, 3));
    assert_eq!(
        w.steps.iter().map(|s| s.step).collect::<Vec<_>>(),
        [3, 4, 5]
    );
}

#[test]
fn an_untraced_run_records_nothing_and_a_new_run_replaces_the_trace() {
    let tracer = Tracer::new();
    Executor::new()
        .trace(&tracer)
        .run(diverge_and_reconverge)
        .unwrap();
    assert_eq!(tracer.trace().warps[0].steps.len(), 4);
    Executor::new().run(diverge_and_reconverge).unwrap();
    assert_eq!(
        tracer.trace().warps[0].steps.len(),
        4,
        "a run without the tracer leaves it alone"
    );
    Executor::new()
        .trace(&tracer)
        .run(async |_w: &Warp<'_>| 1u32)
        .unwrap();
    assert_eq!(
        tracer.trace().warps[0].steps.len(),
        1,
        "the next traced run replaces the trace"
    );
}

/// The trace-event format's required fields (the Trace Event Format document): every event has
/// `name`, `ph`, `pid` and `tid`; all but metadata have a numeric `ts`; complete events (`X`)
/// have a numeric `dur`; instant events (`i`) a scope `s` of `g`, `p` or `t`; metadata events
/// (`M`) an `args` object.
fn validate_trace_events(json: &str) -> Vec<serde_json::Value> {
    let doc: serde_json::Value = serde_json::from_str(json).expect("the JSON parses");
    let events = doc["traceEvents"]
        .as_array()
        .expect("a traceEvents array")
        .clone();
    for e in &events {
        let ph = e["ph"].as_str().unwrap_or_else(|| panic!("no ph: {e}"));
        assert!(e["name"].is_string(), "no name: {e}");
        assert!(e["pid"].is_u64() && e["tid"].is_u64(), "no pid/tid: {e}");
        match ph {
            "M" => assert!(e["args"].is_object(), "metadata without args: {e}"),
            "X" => assert!(
                e["ts"].is_number() && e["dur"].is_number(),
                "complete event without ts/dur: {e}"
            ),
            "i" => assert!(
                e["ts"].is_number() && matches!(e["s"].as_str(), Some("g" | "p" | "t")),
                "instant event: {e}"
            ),
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
    events
}

#[test]
fn the_json_has_the_trace_event_formats_required_fields() {
    let tracer = Tracer::new();
    Executor::new()
        .trace(&tracer)
        .run(diverge_and_reconverge)
        .unwrap();
    let events = validate_trace_events(&tracer.trace().to_perfetto_json());
    // One named track per lane, and a slice per instruction each lane executed: 32 lanes at the
    // full shuffle, 16 at `activemask` and 16 at the group's shuffle.
    let names = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .count();
    assert_eq!(names, 32);
    let slices: Vec<_> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(slices.len(), 32 + 16 + 16);
    // An odd lane waited at the full shuffle from step 0 to step 2.
    let odd = slices
        .iter()
        .find(|e| e["tid"] == 2 && e["name"] == "shfl.sync.bfly.b32")
        .expect("lane 1's shuffle");
    assert_eq!(
        (odd["ts"].as_u64(), odd["dur"].as_u64()),
        (Some(0), Some(3))
    );
    assert_eq!(odd["args"]["membermask"], "0xffffffff");

    // A failing grid run: the report and the race are instant events.
    let c = GlobalBuffer::<u32>::zeroed(1);
    let s = c.slice();
    let tracer = Tracer::new();
    Executor::new()
        .races(true)
        .trace(&tracer)
        .run(async |w: &Warp<'_>| s.store(0, w.lane_id()))
        .unwrap_err();
    let events = validate_trace_events(&tracer.trace().to_perfetto_json());
    assert!(events
        .iter()
        .any(|e| e["name"] == "report" && e["s"] == "g"));
    assert!(events.iter().any(|e| e["name"] == "data race"));
    // Lanes exit with an event too.
    assert_eq!(events.iter().filter(|e| e["name"] == "exited").count(), 32);
    let _ = ODD;
}

/// The browser the HTML test uses: `WARPKIT_CHROMIUM`, or Chromium on the PATH.
fn chromium() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("WARPKIT_CHROMIUM") {
        return Some(p.into());
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
}

fn headless(browser: &std::path::Path, profile: &std::path::Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

#[test]
fn the_html_renders_in_a_headless_browser() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no Chromium found (install Debian's `chromium`, or set WARPKIT_CHROMIUM to a Chrome binary)");
        return;
    };
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("trace-html");
    std::fs::create_dir_all(&dir).unwrap();
    // A divergent kernel over two blocks of two warps, traced in full.
    let tracer = Tracer::new();
    Grid::blocks(2, 64)
        .trace(&tracer)
        .run(async |w: &Warp<'_>| {
            let _ = diverge_and_reconverge(w).await;
            w.sync_threads().await;
        })
        .unwrap();
    let trace = tracer.trace();
    let html = dir.join("divergent.html");
    trace.write_html(&html).unwrap();
    // Self-contained: nothing is loaded (the SVG namespace URI is a name, not a fetch).
    let text = trace.to_html();
    for fetch in ["src=", "href=", "@import", "url(", "<link"] {
        assert!(!text.contains(fetch), "the page loads something ({fetch})");
    }

    let out = headless(&browser, &dir.join("profile"))
        .arg("--dump-dom")
        .arg(&html)
        .output()
        .expect("the browser starts");
    let dom = String::from_utf8_lossy(&out.stdout);
    let check = dom
        .split("data-check=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| {
            panic!(
                "no data-check in the page the browser rendered:\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let check: serde_json::Value =
        serde_json::from_str(&check.replace("&quot;", "\"")).expect("the page's check is JSON");
    let warps = check.as_array().expect("one entry per warp");
    assert_eq!(warps.len(), 4);
    for (w, t) in warps.iter().zip(&trace.warps) {
        assert_eq!(w["warp"].as_u64(), Some(t.warp));
        assert_eq!(w["rows"], 32, "one row per lane: {w}");
        assert_eq!(w["drawn"], 32, "every row laid out with a size: {w}");
        assert_eq!(w["steps"].as_u64(), Some(t.steps.len() as u64), "{w}");
        assert!(w["width"].as_f64().unwrap_or(0.0) > 100.0, "{w}");
    }
    // A screenshot a developer can look at.
    let png = dir.join("divergent.png");
    let shot = headless(&browser, &dir.join("profile"))
        .arg("--window-size=1400,1000")
        .arg(format!("--screenshot={}", png.display()))
        .arg(&html)
        .output()
        .expect("the browser starts");
    assert!(
        png.is_file() && std::fs::metadata(&png).unwrap().len() > 10_000,
        "no screenshot: {}",
        String::from_utf8_lossy(&shot.stderr)
    );
    eprintln!("screenshot: {}", png.display());
}

//! Isolated runs: the launch first runs in a child process, so that what Rust cannot recover from
//! in-process (a stack overflow, an abort under `panic = "abort"`, a panic while panicking, an
//! allocation failure, a lane stuck in computation) ends the child, not the host.
//!
//! [`probe`] forks. The child runs the launch and exits 0 (it finished) or 1 (it returned a
//! [`WarpError`]); the host then runs the launch itself, in-process, which gives the results, the
//! writes to global memory and the structured error. Any other end of the child becomes
//! [`WarpError::Aborted`], built from what the child left in a flight recorder shared with the
//! host before it died:
//! - the registers of the warp it was polling (which lane, where each lane waits, the last call
//!   site of each running lane), copied by a handler of `SIGABRT`, `SIGSEGV`, `SIGBUS`, `SIGILL`,
//!   `SIGFPE` and, when the host ends a child that ran past its time limit, `SIGUSR1`;
//! - every panic message, from a panic hook (under `panic = "abort"` the first lane panic aborts);
//! - the beginning and the end of its standard error ("memory allocation of N bytes failed" goes
//!   there; a stack overflow is the `SIGSEGV` the handler catches, before Rust's own handler
//!   would print its message).
//!
//! The call sites the child records are `&'static Location`s: after `fork` the child's statics sit
//! at the host's addresses, so the host reads them as its own.
//!
//! The launch runs twice when the child survives: side effects outside global memory (printing,
//! host state a kernel captures) happen twice, and a launch whose outcome depends on how OS
//! threads interleave (`cpu_threads > 1`) may end differently the second time.

use std::time::Duration;

use crate::error::{Report, WarpError};
use crate::exec::LaneOrder;
use crate::schedule::Schedule;
use crate::target::Target;

/// What a report of an isolated run says about the launch (the child's registers do not carry it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Launch {
    pub target: Target,
    pub schedule: Schedule,
    pub lane_order: LaneOrder,
    pub time_limit: Option<Duration>,
}

/// Runs `child` in a child process and waits for it, at most `launch.time_limit`. `Ok` when the
/// child finished or returned an error (`child` says which; the caller then runs the launch
/// in-process), [`WarpError::Aborted`] when it died or ran past the limit.
#[cfg(unix)]
pub(crate) fn probe(launch: Launch, child: impl FnOnce() -> bool) -> Result<(), WarpError> {
    unix::probe(launch, child)
}

/// Isolated runs need `fork`.
#[cfg(not(unix))]
pub(crate) fn probe(_: Launch, _: impl FnOnce() -> bool) -> Result<(), WarpError> {
    Err(WarpError::Launch { what: "isolated runs need a Unix host (they fork a child process)".into() })
}

/// The report of the warp the child was polling, from its registers.
fn report_of(launch: &Launch, snapshot: &crate::warp::RegsSnapshot) -> Box<Report> {
    let (lanes, last_site) = snapshot.lanes();
    Box::new(Report {
        target: launch.target,
        warp: snapshot.pos.warp,
        block: snapshot.pos.ctaid,
        warp_in_block: snapshot.pos.warp_in_block,
        warps_in_block: snapshot.pos.warps_in_block,
        schedule: launch.schedule,
        lane_order: launch.lane_order,
        lanes,
        last_site,
    })
}

#[cfg(unix)]
mod unix {
    use core::cell::UnsafeCell;
    use core::mem::MaybeUninit;
    use core::sync::atomic::{AtomicI32, AtomicU32, AtomicUsize, Ordering};
    use std::io::Read;
    use std::os::fd::FromRawFd;
    use std::time::{Duration, Instant};

    use super::{report_of, Launch};
    use crate::error::WarpError;
    use crate::warp::RegsSnapshot;

    /// Bytes of panic messages the recorder keeps.
    const PANIC_BYTES: usize = 4096;
    /// Bytes of the child's standard error a report keeps (its end).
    const OUTPUT_BYTES: usize = 4096;
    /// The child's exit status when the launch panicked outside lane code.
    const PANICKED_OUTSIDE_LANES: libc::c_int = 3;
    /// How long a child that ran past its time limit gets to record its state before `SIGKILL`.
    const GRACE: Duration = Duration::from_millis(500);

    /// The flight recorder: one shared anonymous mapping, written by the child, read by the host
    /// after the child ended.
    #[repr(C)]
    struct Flight {
        /// 1 once `snapshot` holds the registers of the warp the child was polling.
        has_snapshot: AtomicU32,
        /// The signal the child's handler caught, or 0.
        signal: AtomicI32,
        snapshot: UnsafeCell<MaybeUninit<RegsSnapshot>>,
        panic_len: AtomicUsize,
        panics: UnsafeCell<[u8; PANIC_BYTES]>,
    }

    /// The child's recorder (set in the child only, before the launch runs).
    static FLIGHT: core::sync::atomic::AtomicPtr<Flight> = core::sync::atomic::AtomicPtr::new(core::ptr::null_mut());

    /// Copies the current warp's registers into the recorder. Async-signal-safe: plain loads
    /// and stores, no allocation, no lock.
    fn record_registers(flight: &Flight) {
        if let Some((regs, lane)) = crate::mem::current() {
            // SAFETY: only the child's thread that died writes here, once; the host reads it
            // after the child ended. Written in place (a signal handler may run on a small
            // alternate stack), then the lane that runs: the registers' own, or a warp-wide
            // form's (which keeps it apart from the registers while it runs).
            unsafe {
                let snapshot = (*flight.snapshot.get()).write(regs.snapshot());
                snapshot.lane = lane;
            }
            flight.has_snapshot.store(1, Ordering::Release);
        }
    }

    extern "C" fn on_fatal(signal: libc::c_int) {
        let flight = FLIGHT.load(Ordering::Acquire);
        // SAFETY: set before any handler is installed, and mapped until the child exits.
        if let Some(flight) = unsafe { flight.as_ref() } {
            flight.signal.store(signal, Ordering::Relaxed);
            record_registers(flight);
        }
        // SAFETY: `_exit` is async-signal-safe and runs no destructor of the host's state.
        unsafe { libc::_exit(128 + signal) };
    }

    /// Appends `text` to the recorder's panic messages (truncated when full).
    fn record_panic(flight: &Flight, text: &str) {
        // Each panicking thread reserves its bytes first, so that two threads of a grid
        // panicking at once write apart.
        let start = flight.panic_len.fetch_add(text.len(), Ordering::Relaxed).min(PANIC_BYTES);
        let n = text.len().min(PANIC_BYTES - start);
        let bytes = flight.panics.get().cast::<u8>();
        // SAFETY: `start..start + n` lies in the buffer and was reserved by this call alone.
        unsafe { core::ptr::copy_nonoverlapping(text.as_ptr(), bytes.add(start), n) };
    }

    /// Whether the recording panic hook is installed (cleared when a later `set_hook` drops it).
    static RECORDER_INSTALLED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

    /// Clears [`RECORDER_INSTALLED`] when the hook that owns it is dropped.
    struct RecorderGuard;

    impl Drop for RecorderGuard {
        fn drop(&mut self) {
            RECORDER_INSTALLED.store(false, Ordering::Relaxed);
        }
    }

    /// In the host, before forking: the runtime's lane-panic capture, then a hook around it that
    /// records every panic in the child's recorder (it does nothing where none is set). Installed
    /// here because the child must not take the hook lock: another thread of the host may have
    /// held it at the fork, and the child would wait for it forever.
    fn install_recorder() {
        if RECORDER_INSTALLED.swap(true, Ordering::Relaxed) {
            return;
        }
        crate::warp::install_panic_capture();
        let previous = std::panic::take_hook();
        let guard = RecorderGuard;
        std::panic::set_hook(Box::new(move |info| {
            let _owned = &guard;
            // SAFETY: non-null only in a child, where it stays mapped until the child exits.
            if let Some(flight) = unsafe { FLIGHT.load(Ordering::Acquire).as_ref() } {
                let message = crate::warp::payload_message(info.payload());
                let at = info.location().map(|l| format!(" at {l}")).unwrap_or_default();
                record_panic(flight, &format!("{message}{at}\n"));
            }
            previous(info);
        }));
    }

    /// In the child: the recorder, the handlers, standard error into `stderr_fd`.
    fn arm_child(flight: *mut Flight, stderr_fd: libc::c_int) {
        FLIGHT.store(flight, Ordering::Release);
        // SAFETY: plain libc calls on valid arguments; the handler is async-signal-safe.
        unsafe {
            libc::dup2(stderr_fd, 2);
            for signal in [libc::SIGABRT, libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGUSR1] {
                let mut action: libc::sigaction = core::mem::zeroed();
                action.sa_sigaction = on_fatal as extern "C" fn(libc::c_int) as usize;
                action.sa_flags = libc::SA_ONSTACK | libc::SA_RESETHAND;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, core::ptr::null_mut());
            }
        }
    }

    pub(super) fn probe(launch: Launch, child: impl FnOnce() -> bool) -> Result<(), WarpError> {
        let launch_error = |what: String| WarpError::Launch { what: format!("isolated run: {what}") };
        let size = core::mem::size_of::<Flight>();
        // SAFETY: a fresh anonymous shared mapping; zeroed memory is a valid empty `Flight`.
        let flight = unsafe { libc::mmap(core::ptr::null_mut(), size, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED | libc::MAP_ANONYMOUS, -1, 0) };
        if flight == libc::MAP_FAILED {
            return Err(launch_error(format!("cannot map the flight recorder: {}", std::io::Error::last_os_error())));
        }
        let flight = flight.cast::<Flight>();
        let unmap = Unmap(flight.cast(), size);
        install_recorder();
        let mut fds = [0; 2];
        // Close-on-exec, so that a process another thread spawns meanwhile does not keep the
        // pipe open (the host reads it to its end).
        // SAFETY: `fds` has room for the two descriptors.
        #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd", target_os = "netbsd", target_os = "openbsd"))]
        let made = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == 0;
        // SAFETY: as above, then the flag on both ends.
        #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd", target_os = "netbsd", target_os = "openbsd")))]
        let made = unsafe { libc::pipe(fds.as_mut_ptr()) == 0 && fds.iter().all(|&fd| libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) == 0) };
        if !made {
            return Err(launch_error(format!("cannot make a pipe: {}", std::io::Error::last_os_error())));
        }
        let (read_fd, write_fd) = (fds[0], fds[1]);
        // SAFETY: `fork` in a process that may have other threads: the child only runs the
        // launch (which allocates and may start threads, as after any fork with glibc) and ends
        // with `_exit`.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            // SAFETY: closing the pipe we made.
            unsafe { (libc::close(read_fd), libc::close(write_fd)) };
            return Err(launch_error(format!("cannot fork: {}", std::io::Error::last_os_error())));
        }
        if pid == 0 {
            // SAFETY: the child's copy of the read end.
            unsafe { libc::close(read_fd) };
            arm_child(flight, write_fd);
            // A panic outside lane code (a result's `Drop`) must not unwind into the host's frames.
            let code = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(child)) {
                Ok(true) => 0,
                Ok(false) => 1,
                Err(_) => PANICKED_OUTSIDE_LANES,
            };
            // SAFETY: ends the child without running the host's destructors or atexit handlers.
            unsafe { libc::_exit(code) };
        }
        // SAFETY: the host's copy of the write end; the read end is ours alone from here.
        unsafe { libc::close(write_fd) };
        let output = std::sync::Arc::new(std::sync::Mutex::new(Output::default()));
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        {
            let output = output.clone();
            std::thread::spawn(move || {
                // SAFETY: `read_fd` is an open descriptor this thread now owns.
                let mut pipe = unsafe { std::fs::File::from_raw_fd(read_fd) };
                let mut buf = [0u8; 4096];
                while let Ok(n @ 1..) = pipe.read(&mut buf) {
                    output.lock().unwrap_or_else(|e| e.into_inner()).push(&buf[..n]);
                }
                let _ = done_tx.send(());
            });
        }
        let started = Instant::now();
        let mut pause = Duration::from_micros(50);
        let mut timed_out = None;
        let status = loop {
            let mut status = 0;
            // SAFETY: waits for our own child without blocking.
            let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if r == pid {
                break status;
            }
            if r < 0 {
                return Err(launch_error(format!("waitpid: {}", std::io::Error::last_os_error())));
            }
            if let (Some(limit), None) = (launch.time_limit, timed_out) {
                if started.elapsed() > limit {
                    // Ask the child for its registers, then end it.
                    // SAFETY: signals our own child.
                    unsafe { libc::kill(pid, libc::SIGUSR1) };
                    timed_out = Some(Instant::now());
                }
            }
            if timed_out.is_some_and(|t| t.elapsed() > GRACE) {
                // SAFETY: signals our own child.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(10));
        };
        let elapsed = started.elapsed();
        if timed_out.is_none() && libc::WIFEXITED(status) && matches!(libc::WEXITSTATUS(status), 0 | 1) {
            return Ok(());
        }
        // The pipe ends when the child's last copy of it closes; a process the child started may
        // keep it open, so the reader gets a moment, not a promise.
        let _ = done_rx.recv_timeout(Duration::from_millis(250));
        let output = output.lock().unwrap_or_else(|e| e.into_inner()).text();

        // SAFETY: the child has ended; nothing writes the mapping any more.
        let flight = unsafe { &*flight };
        let signal = flight.signal.load(Ordering::Relaxed);
        let cause = match (timed_out, launch.time_limit) {
            (Some(_), Some(limit)) => format!(
                "ran past its time limit of {limit:?} and was ended after {elapsed:?}: a lane that never reaches a warp instruction or memory operation (a loop of pure computation) cannot be ended any other way"
            ),
            _ if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == PANICKED_OUTSIDE_LANES => "panicked outside lane code (the panic below)".to_string(),
            _ if libc::WIFSIGNALED(status) => format!("was killed by signal {} ({})", libc::WTERMSIG(status), signal_name(libc::WTERMSIG(status))),
            _ if signal != 0 => format!("died of signal {signal} ({})", signal_name(signal)),
            _ => format!("exited with status {}", libc::WEXITSTATUS(status)),
        };
        let report = (flight.has_snapshot.load(Ordering::Acquire) == 1).then(|| {
            // SAFETY: `has_snapshot` says the snapshot was written.
            let snapshot = unsafe { (*flight.snapshot.get()).assume_init() };
            (snapshot.lane, report_of(&launch, &snapshot))
        });
        let panics = {
            let n = flight.panic_len.load(Ordering::Relaxed).min(PANIC_BYTES);
            // SAFETY: the child wrote `n` bytes and has ended.
            String::from_utf8_lossy(unsafe { &(&*flight.panics.get())[..n] }).trim_end().to_string()
        };
        drop(unmap);
        Err(WarpError::Aborted { cause, lane: report.as_ref().map(|(l, _)| *l), panics, output, report: report.map(|(_, r)| r) })
    }

    fn signal_name(signal: libc::c_int) -> &'static str {
        match signal {
            libc::SIGABRT => "SIGABRT: an abort, e.g. a panic under panic = \"abort\", a panic while panicking, a stack overflow or an allocation failure",
            libc::SIGSEGV => "SIGSEGV: a memory fault; in safe Rust, a stack overflow",
            libc::SIGBUS => "SIGBUS",
            libc::SIGILL => "SIGILL",
            libc::SIGFPE => "SIGFPE",
            libc::SIGKILL => "SIGKILL: ended from outside, e.g. by the out-of-memory killer",
            libc::SIGUSR1 => "SIGUSR1: ended by the host at its time limit",
            _ => "a signal",
        }
    }

    /// What a report keeps of the child's standard error: its beginning (where an allocation
    /// failure's message is, before any backtrace) and its end.
    #[derive(Default)]
    struct Output {
        head: Vec<u8>,
        tail: Vec<u8>,
        dropped: bool,
    }

    impl Output {
        fn push(&mut self, mut bytes: &[u8]) {
            let room = OUTPUT_BYTES.saturating_sub(self.head.len());
            let n = room.min(bytes.len());
            self.head.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            self.tail.extend_from_slice(bytes);
            if self.tail.len() > 2 * OUTPUT_BYTES {
                self.tail.drain(..self.tail.len() - OUTPUT_BYTES);
                self.dropped = true;
            }
        }

        fn text(&self) -> String {
            let mut tail = &self.tail[..];
            let mut dropped = self.dropped;
            if tail.len() > OUTPUT_BYTES {
                tail = &tail[tail.len() - OUTPUT_BYTES..];
                dropped = true;
            }
            let gap = if dropped { "\n[...]\n" } else { "" };
            format!("{}{gap}{}", String::from_utf8_lossy(&self.head), String::from_utf8_lossy(tail))
        }
    }

    /// Unmaps the recorder on every way out of [`probe`].
    struct Unmap(*mut libc::c_void, usize);

    impl Drop for Unmap {
        fn drop(&mut self) {
            // SAFETY: the mapping `probe` made, unmapped once.
            unsafe { libc::munmap(self.0, self.1) };
        }
    }
}

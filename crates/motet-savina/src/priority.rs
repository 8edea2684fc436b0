//! Real-time priority: the measured child keeps it, the harness that relays its progress does not.
//!
//! Benchmarks are best run under a real-time policy (`chrt -f 10 motet-savina run ...`) so that
//! other processes do not preempt a cell. `run` and `sweep` time each cell in a child process and
//! read its progress lines; at the child's real-time priority the parent's wake-up on each line
//! can push the child's worker off its core, which `perf stat` showed as CPU migrations and
//! slower, bimodal one-worker cells (figures in docs/measurements/2026-11-29-savina.md). So the
//! parent steps down to
//! the normal policy when it starts ([`step_down`]), and each child it starts goes back to the
//! policy and priority the parent was started with before it runs anything ([`restore_in`]).
//!
//! Nothing changes for a parent that does not run under a real-time policy, nor on systems other
//! than Linux.

use std::process::Command;
use std::sync::OnceLock;

/// A real-time scheduling policy (`SCHED_FIFO` or `SCHED_RR`) and its priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RealTime {
    /// `libc::SCHED_FIFO` or `libc::SCHED_RR`.
    pub policy: i32,
    /// The static priority, 1 to 99.
    pub priority: i32,
}

/// The real-time setting this process was started with, once [`step_down`] has run.
static STARTED_WITH: OnceLock<Option<RealTime>> = OnceLock::new();

/// If this thread runs under a real-time policy, moves it to the normal policy and remembers the
/// real-time one for the children started later ([`restore_in`]); returns it. Call it first thing,
/// before any thread is spawned (threads inherit their creator's policy). Later calls return the
/// first call's answer and change nothing.
pub fn step_down() -> Option<RealTime> {
    *STARTED_WITH.get_or_init(imp::step_down)
}

/// Makes `command`'s process run under the real-time setting this process was started with, if
/// [`step_down`] took one away; the child sets it on itself before it executes the program. If
/// the child may not take it, starting the command fails with the system's error.
pub fn restore_in(command: &mut Command) {
    if let Some(Some(rt)) = STARTED_WITH.get() {
        imp::restore_in(command, *rt);
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use super::RealTime;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    pub(super) fn step_down() -> Option<RealTime> {
        // SAFETY: `sched_getscheduler` only reads the calling thread's policy.
        let policy = unsafe { libc::sched_getscheduler(0) };
        if policy != libc::SCHED_FIFO && policy != libc::SCHED_RR {
            return None;
        }
        let mut param = libc::sched_param { sched_priority: 0 };
        // SAFETY: `param` is a live, writable `sched_param` for the call to fill in.
        if unsafe { libc::sched_getparam(0, &mut param) } != 0 {
            return None;
        }
        let normal = libc::sched_param { sched_priority: 0 };
        // SAFETY: `normal` is a valid `sched_param` (priority 0 is the only one `SCHED_OTHER`
        // takes); lowering one's own policy needs no privilege.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &normal) } != 0 {
            return None;
        }
        Some(RealTime {
            policy,
            priority: param.sched_priority,
        })
    }

    pub(super) fn restore_in(command: &mut Command, rt: RealTime) {
        // SAFETY: the closure runs in the forked child before `exec`, where only
        // async-signal-safe calls are allowed: it makes one system call (`sched_setscheduler`)
        // and reads `errno`, and allocates nothing.
        unsafe {
            command.pre_exec(move || {
                let param = libc::sched_param {
                    sched_priority: rt.priority,
                };
                if libc::sched_setscheduler(0, rt.policy, &param) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::RealTime;
    use std::process::Command;

    pub(super) fn step_down() -> Option<RealTime> {
        None
    }

    pub(super) fn restore_in(_: &mut Command, _: RealTime) {}
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The policy and real-time priority of a process, from fields 41 and 40 of
    /// `/proc/PID/stat` (after the command name, which ends with the last `)`).
    fn policy_of_stat(stat: &str) -> (i32, i32) {
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // `rest` starts at field 3 (the state).
        let priority = fields[40 - 3].parse().unwrap();
        let policy = fields[41 - 3].parse().unwrap();
        (policy, priority)
    }

    /// A child started through `imp::restore_in` runs under the given real-time setting (where
    /// this test may set one: as root, or with an RLIMIT_RTPRIO allowing it).
    #[test]
    fn a_child_gets_the_real_time_setting_back() {
        let rt = RealTime {
            policy: libc::SCHED_FIFO,
            priority: 1,
        };
        let mut command = Command::new("cat");
        command.arg("/proc/self/stat");
        imp::restore_in(&mut command, rt);
        match command.output() {
            Ok(out) => {
                assert!(out.status.success());
                let stat = String::from_utf8(out.stdout).unwrap();
                assert_eq!(policy_of_stat(&stat), (libc::SCHED_FIFO, 1));
            }
            Err(e) if e.raw_os_error() == Some(libc::EPERM) => {
                eprintln!("skipped: this process may not set a real-time policy ({e})");
            }
            Err(e) => panic!("cannot start cat: {e}"),
        }
    }
}

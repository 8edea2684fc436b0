//! [`run_table`]: the single-threaded scheduler for *timed* programs, whose reactions are
//! triggered by timers, startup and shutdown only (what a [`ProgramTable`](crate::ProgramTable)
//! declares, or a builder program without ports, actions and modes).
//!
//! For these programs the general tag loop ([`Engine`](crate::Engine)) is more than needed:
//! no value crosses between reactions, nothing is scheduled and nothing arrives from outside, so
//! the next tag is the earliest timer or the stop tag, and a tag's reactions are the ones its
//! timers (or startup, or shutdown) trigger, in level order. This scheduler keeps only that, so
//! that a small target links one short loop instead of the whole engine. Its tags, their order,
//! the reactions run at each, and the run's end follow the same rules as
//! [`run_sequential`](crate::run_sequential); the tests run programs through both and compare.

use alloc::vec;
use alloc::vec::Vec;

use crate::engine::{fault_error, Metrics, RunOptions};
use crate::error::RunError;
use crate::program::{Program, TagInfo};
use crate::sequential::{Hooks, Platform};
use crate::time::{nanos, Tag};

/// Runs a timed program (see the module docs) to the end on this thread, as
/// [`run_sequential`](crate::run_sequential) would.
///
/// # Errors
/// [`RunError::NotTimed`] (before anything runs) if the program has ports, actions or modes;
/// otherwise the first error of the run, which stops at the end of the tag where it happened.
///
/// # Panics
/// A program runs once: a second run panics.
pub fn run_table<P: Platform, H: Hooks>(
    program: &mut Program,
    platform: &mut P,
    options: &RunOptions,
    hooks: &mut H,
) -> Result<Metrics, RunError> {
    let prog: &Program = program;
    let g = &prog.graph;
    if !prog.ports.is_empty() || !prog.action_rt.is_empty() || !g.modes.is_empty() {
        return Err(RunError::NotTimed);
    }
    let again = prog
        .started
        .swap(true, core::sync::atomic::Ordering::Relaxed);
    assert!(
        !again,
        "a program runs once: build a new one for another run"
    );
    let n = g.reactions.len();
    // The reactions in level order (a counting sort: `level_widths` counts them per level).
    let mut order = vec![0u32; n];
    let mut next_at = vec![0u32; g.level_widths.len()];
    let mut sum = 0;
    for (at, &w) in next_at.iter_mut().zip(&g.level_widths) {
        *at = sum;
        sum += w;
    }
    for (r, &l) in g.reaction_level.iter().enumerate() {
        order[next_at[l as usize] as usize] = r as u32;
        next_at[l as usize] += 1;
    }
    // Per timer, its next tag (`None` once a one-shot timer has fired).
    let mut timers: Vec<Option<Tag>> = g
        .timers
        .iter()
        .map(|t| Some(Tag::from_nanos(t.offset, 0)))
        .collect();
    let mut triggered = vec![false; n];
    let mut metrics = Metrics {
        reactors: g.declared_reactors(),
        reactions: g.declared_reactions(),
        ..Metrics::default()
    };
    let mut error: Option<RunError> = None;
    let mut stop: Option<Tag> = options.timeout.map(|t| Tag::from_nanos(nanos(t), 0));
    let mut info = TagInfo {
        start: platform.now(),
        ..TagInfo::default()
    };
    let mut startup = true;
    let lead = if options.fast {
        0
    } else {
        platform.entry_lead()
    };
    loop {
        // The next tag: startup, the earliest timer, or the stop tag; with none of them, the
        // program has starved and stops one microstep after the current tag.
        let mut next = if startup { Some(Tag::ZERO) } else { None };
        for t in timers.iter().flatten() {
            if next.is_none_or(|x| *t < x) {
                next = Some(*t);
            }
        }
        let tag = match (next, stop) {
            (Some(q), Some(s)) => q.min(s),
            (Some(q), None) => q,
            (None, Some(s)) => s,
            (None, None) => {
                let s = info.tag.delay_nanos(0);
                stop = Some(s);
                s
            }
        };
        let due = info.start.saturating_add(tag.nanos());
        if !options.fast && platform.now() < due.saturating_sub(lead) {
            platform.wait(&prog.inbox, Some(due.saturating_sub(lead)));
            continue;
        }
        hooks.tag_started(tag);
        info.tag = tag;
        info.seq += 1;
        info.startup = startup && tag == Tag::ZERO;
        info.shutdown = stop == Some(tag);
        metrics.tags += 1;
        if info.startup {
            startup = false;
            for &r in &g.startup {
                triggered[r as usize] = true;
            }
        }
        for (i, t) in timers.iter_mut().enumerate() {
            if *t != Some(tag) {
                continue;
            }
            let timer = &g.timers[i];
            // SAFETY: between tags: no reaction runs, so none reads the timer's presence.
            unsafe { *prog.timer_present[i].get() = info.seq };
            *t = (timer.period > 0).then(|| tag.delay_nanos(timer.period));
            for &r in &timer.triggers {
                triggered[r as usize] = true;
            }
        }
        if info.shutdown {
            for &r in &g.shutdown {
                triggered[r as usize] = true;
            }
        }
        // SAFETY: between tags: no reaction runs, so none reads the tag info.
        unsafe { *prog.info.get() = info };
        // Entered early: the wait for the tag's time is left to just before its first
        // reaction.
        let mut early = lead != 0;
        for &r in &order {
            if !core::mem::take(&mut triggered[r as usize]) {
                continue;
            }
            hooks.reaction_started(r as usize);
            if core::mem::take(&mut early) {
                // SAFETY: as below.
                unsafe { start_at(prog, r, platform, due) };
            } else {
                // SAFETY: reactions run one at a time in level order, so every predecessor
                // triggered at this tag has completed.
                unsafe { prog.execute(r as usize, platform) };
            }
            hooks.reaction_finished(r as usize);
            metrics.reactions_executed += 1;
            // SAFETY: `r` has finished running, and nothing else touches its scratch.
            let scratch = unsafe { &mut *prog.reactions[r as usize].scratch.get() };
            if scratch.rare {
                // Only a stop or a fault: a timed program has nothing to schedule or switch to,
                // and a reaction that tries faults.
                scratch.rare = false;
                if let Some(fault) = scratch.fault.take() {
                    if error.is_none() {
                        let name = g.reactions[r as usize].name.clone();
                        error = Some(fault_error(prog, name, fault));
                    }
                }
                if core::mem::take(&mut scratch.stop) && !info.shutdown {
                    let s = tag.delay_nanos(0);
                    if stop.is_none_or(|x| s < x) {
                        stop = Some(s);
                    }
                }
            }
        }
        if info.shutdown || error.is_some() {
            break;
        }
    }
    match error {
        Some(e) => Err(e),
        None => Ok(metrics),
    }
}

/// Waits for the platform time `due`, then runs reaction `r` at once: a call of its own, so
/// that nothing the scheduler keeps in registers is saved or restored between the two.
///
/// # Safety
/// As [`Program::execute`].
#[inline(never)]
unsafe fn start_at<P: Platform>(prog: &Program, r: u32, platform: &mut P, due: u64) {
    platform.spin_until(due);
    // SAFETY: forwarded from the caller.
    unsafe { prog.execute(r as usize, platform) };
}

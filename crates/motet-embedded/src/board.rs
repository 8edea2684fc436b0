//! [`Board`]: the [`Platform`] of `mps2-an386`. Its clock is [`clock`](crate::clock); its wait
//! sleeps in `WFI` and never polls while asleep.
//!
//! # Waiting for a deadline
//!
//! 1. With interrupts masked (`cpsid i`), the board checks the inbox: a value that arrived
//!    already ends the wait.
//! 2. Otherwise it arms the alarm ([`Alarm`](crate::timer::Alarm)) to fire `lead` cycles before the deadline and executes `WFI`.
//!    `WFI` wakes on a *pending* interrupt even while interrupts are masked, so an interrupt that
//!    comes between the check and `WFI` still wakes it: no wake-up is lost.
//! 3. It unmasks interrupts, and the handler that woke it runs (the alarm's only acknowledges; an
//!    interrupt that sends a physical action fills the program's inbox).
//! 4. If the wake-up was the alarm, it spins on the clock for the last `lead` cycles (or until a
//!    value arrives), so the tag starts as close to its time as the clock can tell; any other
//!    wake-up returns at once, and the scheduler decides again.
//!
//! Without a deadline (the program waits for a physical action only) steps 1 and 3 are the same
//! and no alarm is armed.

use cortex_m::peripheral::NVIC;
use motet_reactor_core::{Clock, Inbox, Platform};

use crate::timer::Alarm;
use crate::{clock, Interrupt, NS_PER_CYCLE};

/// How many cycles before a deadline the alarm wakes the core by default, to spin the rest.
pub const DEFAULT_LEAD_CYCLES: u64 = 250;

/// How many cycles before a tag's time the scheduler enters it by default
/// ([`Platform::entry_lead`]): room for its bookkeeping, after which the core spins to the tag's
/// time and starts the first reaction.
pub const DEFAULT_ENTRY_LEAD_CYCLES: u64 = 500;

/// The board: clock, alarm and sleep (see the module docs).
#[derive(Debug)]
pub struct Board {
    lead_ns: u64,
    entry_lead_ns: u64,
    sleeps: u64,
}

impl Board {
    /// Takes the core peripherals, starts the clock and the alarm's interrupt, and installs the
    /// clock for stamping physical actions ([`motet_reactor_core::set_clock`]).
    ///
    /// # Panics
    /// If called twice (the core peripherals are taken once).
    pub fn take() -> Board {
        let p = cortex_m::Peripherals::take().expect("the board is taken once");
        clock::start(p.SYST);
        Alarm.disarm();
        // SAFETY: unmasking the alarm cannot break a critical section: none is open here, and
        // its handler touches only the alarm's own registers.
        unsafe { NVIC::unmask(Interrupt::DualTimer) };
        motet_reactor_core::set_clock(clock::now_ns);
        Board {
            lead_ns: DEFAULT_LEAD_CYCLES * NS_PER_CYCLE,
            entry_lead_ns: DEFAULT_ENTRY_LEAD_CYCLES * NS_PER_CYCLE,
            sleeps: 0,
        }
    }

    /// Sets how many cycles before a deadline the core wakes to spin the rest (0: no spinning,
    /// the tag starts when the alarm's interrupt has run).
    pub fn with_lead_cycles(mut self, lead: u64) -> Board {
        self.lead_ns = lead * NS_PER_CYCLE;
        self
    }

    /// Sets how many cycles before a tag's time the scheduler enters it (0: at its time, and
    /// the scheduler's bookkeeping delays the first reaction).
    pub fn with_entry_lead_cycles(mut self, lead: u64) -> Board {
        self.entry_lead_ns = lead * NS_PER_CYCLE;
        self
    }

    /// How many times the board executed `WFI`.
    pub fn sleeps(&self) -> u64 {
        self.sleeps
    }

    /// Steps 1 to 3 of the module docs: sleeps until `until` (platform nanoseconds) or any
    /// interrupt, unless a value waits in `inbox`.
    fn sleep(&mut self, inbox: &Inbox, until: Option<u64>) {
        cortex_m::interrupt::disable();
        if inbox.is_empty() {
            let sleep = match until {
                Some(t) => {
                    let now = clock::now_ns();
                    if now < t {
                        // A wait beyond 2^32 ns (4.3 s) wakes early and waits again. In 32
                        // bits, the processor divides without a library routine.
                        let ns = u32::try_from(t - now).unwrap_or(u32::MAX);
                        Alarm.arm(ns.div_ceil(NS_PER_CYCLE as u32));
                        true
                    } else {
                        false
                    }
                }
                None => true,
            };
            if sleep {
                self.sleeps += 1;
                cortex_m::asm::wfi();
            }
        }
        // SAFETY: interrupts were enabled when `wait` was called (the scheduler runs in thread
        // mode outside critical sections), so enabling them again restores that state.
        unsafe { cortex_m::interrupt::enable() };
    }
}

impl Clock for Board {
    #[inline]
    fn now(&self) -> u64 {
        clock::now_ns()
    }
}

impl Platform for Board {
    fn wait(&mut self, inbox: &Inbox, deadline: Option<u64>) {
        let Some(deadline) = deadline else {
            self.sleep(inbox, None);
            return;
        };
        let wake = deadline.saturating_sub(self.lead_ns);
        if clock::now_ns() < wake {
            self.sleep(inbox, Some(wake));
            if clock::now_ns() < wake {
                return; // another interrupt woke the core
            }
        }
        while inbox.is_empty() && clock::now_ns() < deadline {}
    }

    fn entry_lead(&self) -> u64 {
        self.entry_lead_ns
    }

    #[inline]
    fn spin_until(&mut self, deadline: u64) {
        clock::spin_until_ns(deadline);
    }
}

/// The alarm's interrupt: it clears the request; waking the core from `WFI` was its whole
/// purpose.
#[no_mangle]
extern "C" fn DUALTIMER() {
    Alarm.disarm();
}

//! Watchdogs, after Lingua Franca's C target: a timeout in physical time that reactions start,
//! restart and stop, and that triggers reactions at a tag when it expires.
//!
//! A reaction that declares a [`Watchdog`] as an effect starts it with
//! [`Ctx::start_watchdog`]: it is then due to expire at logical time `t + timeout + extra`, where
//! `t` is the starting tag's time (LF's `lf_watchdog_start`); starting it again moves the expiry,
//! and [`Ctx::stop_watchdog`] disarms it. Reactions that declare the watchdog as a trigger run when
//! it expires, at the tag (expiry, 0) (the next microstep if that is not later than the tag that
//! started it), and see it present there ([`Ctx::is_present`]). A reaction triggered by the
//! watchdog may start it again.
//!
//! In a real-time run a tag is entered only when physical time has reached its time, so the
//! expiry's reactions run once the timeout has elapsed in physical time, unless a reaction at an
//! earlier tag restarted or stopped the watchdog. When the program lags (physical time passes
//! the expiry while earlier tags are still processed), the expiry is taken as it is seen, at the
//! next tag boundary: from then on it stands, at its tag, and a later restart arms a new expiry
//! beside it (LF's watchdog thread fires in physical time in the same way). A fast run has no
//! physical time to watch: there the timeout elapses in logical time, as if physical time kept
//! pace with it, and the run is deterministic.
//!
//! An armed watchdog keeps the program alive until it expires (its expiry is an event); one
//! stopped or moved leaves no event behind. A watchdog belongs to a reactor, not to one of its
//! modes; in a reactor that lies in a mode, an expiry that comes while the mode is inactive is
//! held as an action's event is (until a history entry, dropped by a reset entry).

use core::time::Duration;

use crate::builder::{ActionSpec, ProgramBuilder, Scope};
use crate::ctx::Ctx;
use crate::ids::{sealed, Declare, Element, Presence, ReactorId};
use crate::program::{Fault, Item};
use crate::time::nanos;

/// The handle of a watchdog (see the module docs): a trigger of the reactions that handle its
/// expiry, an effect of the reactions that start or stop it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watchdog {
    pub(crate) prog: u32,
    /// Its index among the program's watchdogs.
    pub(crate) ix: u32,
    /// The hidden action of type `()` that carries its expiry.
    pub(crate) action: u32,
}

impl sealed::Sealed for Watchdog {}

impl Declare for Watchdog {
    fn element(&self) -> (Option<u32>, Element) {
        (Some(self.prog), Element::Action(self.action))
    }
}

impl Presence for Watchdog {}

impl ProgramBuilder {
    /// Declares a watchdog of `reactor` with timeout `timeout` (see the module docs).
    ///
    /// ```
    /// use core::time::Duration;
    /// use motet_reactor_core::{ProgramBuilder, Startup};
    /// let mut b = ProgramBuilder::new();
    /// let r = b.reactor("r", 0u32);
    /// let dog = b.watchdog(r, "dog", Duration::from_millis(100));
    /// b.reaction(r, "arm").trigger(Startup).effect(dog).body(move |_, ctx| {
    ///     ctx.start_watchdog(dog, Duration::ZERO);
    /// });
    /// b.reaction(r, "expired").trigger(dog).body(|n, _| *n += 1);
    /// # let _ = b.build().unwrap();
    /// ```
    pub fn watchdog<S>(
        &mut self,
        reactor: ReactorId<S>,
        name: &str,
        timeout: Duration,
    ) -> Watchdog {
        let action = self.add_action::<(), S>(
            Scope::from(reactor),
            name,
            false,
            ActionSpec::default(),
            false,
        );
        let ix = self.watchdogs.len() as u32;
        self.watchdogs.push((action, nanos(timeout)));
        Watchdog {
            prog: self.prog,
            ix,
            action,
        }
    }
}

impl Ctx<'_> {
    /// Starts (or restarts) a watchdog the reaction declared as an effect: it expires at this
    /// tag's time plus its timeout plus `extra`, unless started again or stopped before.
    pub fn start_watchdog(&self, watchdog: Watchdog, extra: Duration) {
        let timeout = self.prog.graph.watchdogs.get(watchdog.ix as usize);
        if let Some(info) = timeout.filter(|_| self.watchdog_declared(watchdog)) {
            self.request(watchdog, Some(info.timeout.saturating_add(nanos(extra))));
        }
    }

    /// Stops a watchdog the reaction declared as an effect: it does not expire until started
    /// again. Stopping a watchdog that is not running does nothing.
    pub fn stop_watchdog(&self, watchdog: Watchdog) {
        if self.watchdog_declared(watchdog) {
            self.request(watchdog, None);
        }
    }

    /// Whether `watchdog` is this program's and the reaction declared it as an effect (recording
    /// the fault if not).
    fn watchdog_declared(&self, watchdog: Watchdog) -> bool {
        if !self.mine(watchdog.prog) {
            return false;
        }
        if !self.declared_action(watchdog.action, true) {
            self.fault(Fault::Undeclared(
                "start or stop",
                Item::Action(watchdog.action),
            ));
            return false;
        }
        true
    }

    fn request(&self, watchdog: Watchdog, delay: Option<u64>) {
        // SAFETY: the scratch belongs to this running reaction; no reference to it escapes a
        // method.
        let s = unsafe { &mut *self.scratch().get() };
        s.watchdogs.push((watchdog.ix, delay));
        s.rare = true;
    }
}

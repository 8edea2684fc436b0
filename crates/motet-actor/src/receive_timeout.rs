//! The receive timeout of an actor ([`Context::set_receive_timeout`](crate::Context::set_receive_timeout)):
//! a runtime timer that, when it fires, sends the actor a check; the actor compares the number of
//! messages it handled since the timer was armed, and either handles the timeout message or arms
//! the timer again.

use std::time::Duration;

use motet_runtime::{Handle, TimerKey};

use crate::addr::AnyAddr;
use crate::cell::Header;
use crate::envelope::Signal;

/// What an idle check found.
pub(crate) enum Check {
    /// From a timer that was replaced or cleared since: ignore.
    Stale,
    /// No message arrived since the timer was armed: handle the timeout message.
    Fire,
    /// Messages arrived meanwhile: arm again.
    Busy,
}

/// A set receive timeout (see the module docs).
pub(crate) struct ReceiveTimeout<M> {
    after: Duration,
    make: Box<dyn FnMut() -> M + Send>,
    /// Numbers the timers armed, so that a check from a replaced one is recognised.
    generation: u64,
    /// Messages the actor handled since the timeout was set.
    activity: u64,
    /// `activity` when the timer was armed.
    snapshot: u64,
    key: Option<TimerKey>,
}

impl<M> ReceiveTimeout<M> {
    /// The actor handled a message.
    #[inline(always)]
    pub(crate) fn count_message(&mut self) {
        self.activity = self.activity.wrapping_add(1);
    }
}

impl<M: Send + 'static> ReceiveTimeout<M> {
    pub(crate) fn new(
        after: Duration,
        make: Box<dyn FnMut() -> M + Send>,
        generation: u64,
    ) -> ReceiveTimeout<M> {
        ReceiveTimeout {
            after,
            make,
            generation,
            activity: 0,
            snapshot: 0,
            key: None,
        }
    }

    /// Arms the timer (cancelling a pending one): after `after`, the actor gets an idle check.
    /// The timer holds an address of the actor until it fires or is cancelled.
    pub(crate) fn arm(&mut self, header: &Header<M>) {
        if let Some(key) = self.key.take() {
            header.runtime().cancel_timer(key);
        }
        self.generation = self.generation.wrapping_add(1);
        self.snapshot = self.activity;
        let me = AnyAddr::from_header(header);
        let generation = self.generation;
        self.key = Some(header.runtime().call_after(self.after, move || {
            me.signal(Signal::IdleCheck(generation));
        }));
    }

    /// Cancels a pending timer; returns the generation, for a replacement to continue from.
    pub(crate) fn cancel(mut self, runtime: &Handle) -> u64 {
        if let Some(key) = self.key.take() {
            runtime.cancel_timer(key);
        }
        self.generation
    }

    /// An idle check from timer `generation` arrived.
    pub(crate) fn check(&mut self, generation: u64) -> Check {
        if generation != self.generation {
            return Check::Stale;
        }
        self.key = None;
        if self.activity == self.snapshot {
            Check::Fire
        } else {
            Check::Busy
        }
    }

    /// Whether a timer is pending.
    pub(crate) fn is_armed(&self) -> bool {
        self.key.is_some()
    }

    /// The timeout message.
    pub(crate) fn message(&mut self) -> M {
        (self.make)()
    }
}

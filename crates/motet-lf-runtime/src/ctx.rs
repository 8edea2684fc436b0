//! [`ReactionCtx`]: what a reaction body of LF's Rust target calls `ctx`, over a motet [`Ctx`];
//! [`AsyncCtx`]: what a thread spawned with `ctx.spawn_physical_thread` gets, to schedule physical
//! actions and request a stop from outside the program; [`Shared`]: what the reactions of one
//! program share (the start instant, the stop sender, the worker count).

use std::any::Any;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SendError;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use motet_reactor::{Ctx, PhysicalSender, Tag};

use crate::handles::{LogicalAction, PhysicalActionRef, Port, Trigger};
use crate::time::{EventTag, Offset};

/// A copy of a value set on a shadowed port.
pub(crate) type ShadowValue = Box<dyn Any + Send>;

/// What the reactions of one program share.
#[derive(Debug, Default)]
pub struct Shared {
    pub(crate) workers: usize,
    start: OnceLock<Instant>,
    pub(crate) stop: OnceLock<PhysicalSender<()>>,
    pub(crate) finished: AtomicBool,
    /// What shadowed ports were last set to, and at which tag (see `Port::shadowed`).
    shadows: Mutex<HashMap<usize, (Tag, ShadowValue)>>,
}

impl Shared {
    /// The shared part of a program run on `workers` workers.
    pub fn new(workers: usize) -> Arc<Shared> {
        Arc::new(Shared {
            workers,
            ..Shared::default()
        })
    }

    pub(crate) fn shadow_set(&self, port: usize, tag: Tag, v: ShadowValue) {
        let mut s = self.shadows.lock().unwrap_or_else(PoisonError::into_inner);
        s.insert(port, (tag, v));
    }

    pub(crate) fn shadow_get<T: Copy + 'static>(&self, port: usize, tag: Tag) -> Option<T> {
        let s = self.shadows.lock().unwrap_or_else(PoisonError::into_inner);
        match s.get(&port) {
            Some((t, v)) if *t == tag => v.downcast_ref::<T>().copied(),
            _ => None,
        }
    }

    fn start(&self, ctx: &Ctx<'_>) -> Instant {
        *self
            .start
            .get_or_init(|| Instant::now() - ctx.physical_time())
    }
}

/// The context of a reaction body: reads and sets what the reaction declared, schedules actions,
/// tells the tag and the time, requests a stop.
pub struct ReactionCtx<'a> {
    ctx: &'a Ctx<'a>,
    shared: &'a Arc<Shared>,
    /// What `CURRENT` held before this context set it (`with_multiports`).
    previous: Option<*const ()>,
}

/// An action a body may schedule.
pub trait SchedulableAsAction<T> {
    /// Schedules `value` after `offset` (plus the action's minimum delay).
    fn schedule_on(&mut self, ctx: &Ctx<'_>, value: Option<T>, offset: Offset);
}

impl<T: Send + Sync + 'static> SchedulableAsAction<T> for LogicalAction<T> {
    #[inline]
    fn schedule_on(&mut self, ctx: &Ctx<'_>, value: Option<T>, offset: Offset) {
        ctx.schedule(self.h, value, offset.to_duration());
    }
}

impl<T: Send + Sync + 'static> SchedulableAsAction<T> for PhysicalActionRef<T> {
    #[inline]
    fn schedule_on(&mut self, ctx: &Ctx<'_>, value: Option<T>, offset: Offset) {
        ctx.schedule(self.h, value, offset.to_duration());
    }
}

thread_local! {
    /// The motet context of the reaction running on this thread, for the multiport methods that
    /// reactor-rs offers without a context (`iterate_values`, `enumerate_set`, ...).
    static CURRENT: Cell<*const ()> = const { Cell::new(std::ptr::null()) };
}

/// Calls `f` with the context of the reaction running on this thread, if any.
pub(crate) fn with_current<R>(f: impl FnOnce(Option<&Ctx<'_>>) -> R) -> R {
    let p = CURRENT.with(Cell::get);
    if p.is_null() {
        return f(None);
    }
    // SAFETY: `CURRENT` holds a pointer to the `Ctx` of a `ReactionCtx` alive on this thread
    // (set in `ReactionCtx::with_multiports`, put back to the previous value when it is
    // dropped), and that `Ctx` outlives the `ReactionCtx`; `f` gets it for the duration of the
    // call only.
    f(Some(unsafe { &*p.cast::<Ctx<'_>>() }))
}

impl Drop for ReactionCtx<'_> {
    #[inline]
    fn drop(&mut self) {
        if let Some(p) = self.previous {
            CURRENT.with(|c| c.set(p));
        }
    }
}

impl<'a> ReactionCtx<'a> {
    /// The context of a body running with `ctx`.
    #[inline]
    pub fn new(ctx: &'a Ctx<'a>, shared: &'a Arc<Shared>) -> ReactionCtx<'a> {
        ReactionCtx {
            ctx,
            shared,
            previous: None,
        }
    }

    /// The context of a body running with `ctx` that iterates the values of multiports
    /// (`iterate_values`, `enumerate_set`, ...), which find the reaction's context through a
    /// thread-local while this one lives.
    #[inline]
    pub fn with_multiports(ctx: &'a Ctx<'a>, shared: &'a Arc<Shared>) -> ReactionCtx<'a> {
        let previous = CURRENT.with(|c| c.replace((ctx as *const Ctx<'a>).cast()));
        ReactionCtx {
            ctx,
            shared,
            previous: Some(previous),
        }
    }

    /// The motet context.
    pub fn motet(&self) -> &Ctx<'a> {
        self.ctx
    }

    /// A copy of the value of a port or action, if present.
    #[inline]
    pub fn get<T: Copy>(&self, x: &impl Trigger<T>) -> Option<T> {
        x.copied(self.ctx, self.shared)
    }

    /// A reference to the value of a port or action, if present.
    pub fn get_ref<'q, T>(&'q self, x: &impl Trigger<T>) -> Option<&'q T> {
        x.value(self.ctx)
    }

    /// Calls `f` with a reference to the value, if present.
    pub fn use_ref<T, O>(&self, x: &impl Trigger<T>, f: impl FnOnce(Option<&T>) -> O) -> O {
        f(x.value(self.ctx))
    }

    /// Calls `f` with a reference to the value if present.
    pub fn use_ref_opt<T, O>(&self, x: &impl Trigger<T>, f: impl FnOnce(&T) -> O) -> Option<O> {
        x.value(self.ctx).map(f)
    }

    /// Whether a port, action or timer is present.
    #[inline]
    pub fn is_present<T>(&self, x: &impl Trigger<T>) -> bool {
        x.present(self.ctx)
    }

    /// Sets a port.
    #[inline(always)]
    pub fn set<T: Send + Sync + 'static>(&mut self, port: &mut Port<T>, value: T) {
        port.set(self.ctx, self.shared, value);
    }

    /// Sets a port if `value` is `Some`.
    pub fn set_opt<T: Send + Sync + 'static>(&mut self, port: &mut Port<T>, value: Option<T>) {
        if let Some(v) = value {
            port.set(self.ctx, self.shared, v);
        }
    }

    /// Schedules an action without a value.
    #[inline]
    pub fn schedule<T>(&mut self, action: &mut impl SchedulableAsAction<T>, offset: Offset) {
        action.schedule_on(self.ctx, None, offset);
    }

    /// Schedules an action with a value (`None`: present without a value).
    #[inline]
    pub fn schedule_with_v<T>(
        &mut self,
        action: &mut impl SchedulableAsAction<T>,
        value: Option<T>,
        offset: Offset,
    ) {
        action.schedule_on(self.ctx, value, offset);
    }

    /// Requests that the program stop: shutdown reactions run one microstep later. Only `Asap`
    /// is honoured as LF specifies; a positive offset stops at the next microstep too.
    pub fn request_stop(&mut self, _offset: Offset) {
        self.ctx.request_stop();
    }

    /// The current tag.
    pub fn get_tag(&self) -> EventTag {
        EventTag::from_tag(self.ctx.tag())
    }

    /// The instant of the start tag.
    pub fn get_start_time(&self) -> Instant {
        self.shared.start(self.ctx)
    }

    /// The current logical time, as an instant.
    pub fn get_logical_time(&self) -> Instant {
        self.shared.start(self.ctx) + self.ctx.time()
    }

    /// The physical time now.
    pub fn get_physical_time(&self) -> Instant {
        Instant::now()
    }

    /// Logical time since the start tag.
    pub fn get_elapsed_logical_time(&self) -> Duration {
        self.ctx.time()
    }

    /// Physical time since the start.
    pub fn get_elapsed_physical_time(&self) -> Duration {
        self.ctx.physical_time()
    }

    /// Whether this is the shutdown tag.
    pub fn is_shutdown(&self) -> bool {
        self.ctx.is_present(motet_reactor::Shutdown)
    }

    /// The number of workers the program runs on.
    pub fn num_workers(&self) -> usize {
        self.shared.workers
    }

    /// Spawns a thread that may schedule physical actions and request a stop through its
    /// [`AsyncCtx`]; the program stays alive while the thread runs.
    pub fn spawn_physical_thread<F, R>(&mut self, f: F) -> JoinHandle<R>
    where
        F: FnOnce(&mut AsyncCtx) -> R + Send + 'static,
        R: Send + 'static,
    {
        let stop = self.shared.stop.get().map(PhysicalSender::keeping_alive);
        let mut actx = AsyncCtx {
            stop,
            shared: self.shared.clone(),
        };
        std::thread::spawn(move || f(&mut actx))
    }
}

/// What a thread spawned by a reaction holds: it schedules physical actions and requests a stop.
pub struct AsyncCtx {
    stop: Option<PhysicalSender<()>>,
    shared: Arc<Shared>,
}

impl AsyncCtx {
    /// Whether the program has ended.
    pub fn was_terminated(&self) -> bool {
        self.shared.finished.load(Ordering::Acquire)
    }

    /// Requests that the program stop.
    ///
    /// # Errors
    /// Never; the result is kept for reactor-rs's signature.
    pub fn request_stop(&mut self, _offset: Offset) -> Result<(), SendError<()>> {
        if let Some(s) = &self.stop {
            s.send(());
        }
        Ok(())
    }

    /// Schedules a physical action without a value.
    ///
    /// # Errors
    /// Never; the result is kept for reactor-rs's signature.
    pub fn schedule_physical<T: Send + Sync + 'static>(
        &mut self,
        action: &PhysicalActionRef<T>,
        offset: Offset,
    ) -> Result<(), SendError<()>> {
        action.send(None, offset.to_duration());
        Ok(())
    }

    /// Schedules a physical action with a value.
    ///
    /// # Errors
    /// Never; the result is kept for reactor-rs's signature.
    pub fn schedule_physical_with_v<T: Send + Sync + 'static>(
        &mut self,
        action: &PhysicalActionRef<T>,
        value: Option<T>,
        offset: Offset,
    ) -> Result<(), SendError<()>> {
        action.send(value, offset.to_duration());
        Ok(())
    }
}

/// Marks the program finished (after its run).
pub(crate) fn mark_finished(shared: &Shared) {
    shared.finished.store(true, Ordering::Release);
}

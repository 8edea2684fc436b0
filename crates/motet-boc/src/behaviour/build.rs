//! Building a behaviour: its task (the runtime allocates the block), its requests, sorted by cown
//! id with duplicates resolved, and its runnable parked in its block, ready to be enqueued.

use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use motet_runtime::task::Running;
use motet_runtime::Runnable;

use crate::blocks::Blocks;
use crate::cown::CownHeader;
use crate::error::WhenError;
use crate::protocol::{Gate, LaterSlot, Slot};
use crate::rejections::rejected;
use crate::scratch::Scratch;
use crate::set::{CownSet, Shape};

use super::block::{first_of, park, Behaviour, Core, Gating, Head, Kind, Many, One};
use super::step::{step_as, StepFn};

/// A behaviour built but not enqueued: its first request (its runnable parked in its block) and
/// its distinct requests, sorted by cown id.
pub(super) struct Built {
    pub(super) first: NonNull<Slot>,
    pub(super) requests: Scratch<NonNull<Slot>>,
    /// Its kind's step.
    pub(super) step: StepFn,
}

/// Makes the task of a behaviour spawned alone over the one cown of `cowns`, and parks its
/// runnable in its block. Returns its first (and only) request.
#[inline(always)]
pub(super) fn one<S, F, R, H>(cowns: &S, f: F) -> NonNull<Slot>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: Head<R>,
{
    debug_assert!(<S::Shape as Shape>::ONE);
    let runnable = Runnable::new_in_with::<Behaviour<S::Shape, F, R, H, One>, Blocks>(|| {
        let request = cowns.request(0);
        let core = Core::new(Slot::first(request.queue, request.read, true));
        (H::shared::<One>(core, 1), ManuallyDrop::new(f))
    });
    let first = first_of::<H::Shared<One>>(&runnable);
    // SAFETY: a fresh block that nobody else can reach yet: its park is empty and ours, and the
    // enqueue publishes it.
    unsafe { park(first, runnable.erase()) };
    first
}

/// The task of a behaviour over the cowns of `S` that counts its grants.
type ManyTask<S, F, R, H> = Running<Behaviour<<S as CownSet>::Shape, F, R, H, Many>>;

/// Makes the task of a behaviour over the `n` cowns of `cowns` that counts its grants (`n` of
/// them, plus the spawner's hold), with its first request in its shared part and the others in
/// the tail. Returns the task and its first request.
#[inline(always)]
pub(super) fn many<S, F, R, H>(cowns: &S, f: F, n: usize) -> (ManyTask<S, F, R, H>, NonNull<Slot>)
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: Head<R>,
{
    let request = cowns.request(0);
    let core = Core::new(Slot::first(request.queue, request.read, false));
    let task = Running::<Behaviour<S::Shape, F, R, H, Many>>::new_with_tail_in::<Blocks>(
        H::shared::<Many>(core, n),
        ManuallyDrop::new(f),
        n - 1,
        |i, shared| {
            let request = cowns.request(i + 1);
            LaterSlot::new(Slot::later(request.queue, request.read), first_of(shared))
        },
    );
    let first = first_of::<H::Shared<Many>>(&task);
    (task, first)
}

/// Builds a behaviour over the cowns of `cowns` that counts its grants (several cowns, a dynamic
/// set, or a member of a batch): the block, its requests sorted with duplicates resolved, its
/// runnable parked.
pub(super) fn build<S, F, R, H>(cowns: &S, f: F) -> Result<Built, WhenError>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: Head<R>,
{
    let n = cowns.count();
    if n == 0 {
        return Err(rejected(WhenError::NoCowns));
    }
    let (task, first) = many::<S, F, R, H>(cowns, f, n);
    let mut slots = Scratch::with_capacity(n);
    slots.push(first);
    for later in task.tail() {
        slots.push(later.as_ptr());
    }
    distinct(task, first, slots.as_slice())
}

/// Sorts the requests of a freshly built behaviour and resolves duplicates (see
/// [`sort_requests`]), then parks its runnable; a rejected behaviour's closure is dropped and its
/// task ended.
pub(super) fn distinct<K: Kind>(
    mut task: Running<K>,
    first: NonNull<Slot>,
    slots: &[NonNull<Slot>],
) -> Result<Built, WhenError> {
    debug_assert!(!<K::G as Gating>::SINGLE);
    // SAFETY: the task's own requests, not shared yet, on cowns the spawner holds handles to.
    let requests = match unsafe { sort_requests(slots) } {
        Ok(requests) => requests,
        Err(e) => {
            // SAFETY: the behaviour never ran and never will: its closure is dropped here, once.
            unsafe { ManuallyDrop::drop(task.private()) };
            drop(task);
            return Err(rejected(e));
        }
    };
    if requests.as_slice().len() != slots.len() {
        // SAFETY: a counting behaviour's first request, reached through its whole shared part.
        unsafe { Gate::of(first) }.recount(requests.as_slice().len());
    }
    // SAFETY: a fresh block that nobody else can reach yet: its park is empty and ours, and the
    // enqueue publishes it.
    unsafe { park(first, task.into_runnable().erase()) };
    Ok(Built {
        first,
        requests,
        step: step_as::<K>,
    })
}

/// Sorts a behaviour's requests by cown id and resolves duplicates: a cown named twice is acquired
/// once if every naming is read-only (the later namings are marked duplicates), and rejected
/// otherwise. Returns the distinct requests.
///
/// # Safety
/// `slots` are the requests of one behaviour, in the order they were named, not shared yet, on
/// cowns the caller holds handles to.
unsafe fn sort_requests(slots: &[NonNull<Slot>]) -> Result<Scratch<NonNull<Slot>>, WhenError> {
    // SAFETY: the caller holds handles to the cowns.
    let id = |i: usize| unsafe { CownHeader::from_queue(slots[i].as_ref().queue()) }.id;
    let n = slots.len();
    if n == 1 {
        return Ok(Scratch::from_one(slots[0]));
    }
    if n == 2 {
        // Two distinct cowns (the common multi-cown `when`): one comparison, no sort buffer. The
        // same cown twice takes the general path below.
        let (a, b) = (id(0), id(1));
        if a != b {
            let (first, second) = if a < b { (0, 1) } else { (1, 0) };
            let mut requests = Scratch::with_capacity(2);
            requests.push(slots[first]);
            requests.push(slots[second]);
            return Ok(requests);
        }
    }
    let mut order: Scratch<(u64, usize)> = Scratch::from_exact((0..n).map(|i| (id(i), i)));
    order.as_mut_slice().sort_unstable();
    let mut requests = Scratch::with_capacity(n);
    let mut last: Option<(u64, usize)> = None;
    for &(cown, i) in order.as_slice() {
        match last {
            Some((prev, first)) if prev == cown => {
                // SAFETY: the behaviour's own requests, live while the caller holds its task.
                let (earlier, later) = unsafe { (slots[first].as_ref(), slots[i].as_ref()) };
                if !(earlier.is_read() && later.is_read()) {
                    return Err(WhenError::DuplicateCown);
                }
                // The sort is stable in the naming order for equal ids (`i` breaks ties), so the
                // first naming is the one kept, and a behaviour's first request is never marked.
                later.mark_duplicate();
            }
            _ => {
                requests.push(slots[i]);
                last = Some((cown, i));
            }
        }
    }
    Ok(requests)
}

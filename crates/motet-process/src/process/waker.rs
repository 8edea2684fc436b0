//! The wakers of processes: a raw waker whose data pointer is the process's [`Header`], counted in
//! the header's state word (see the module docs of `process`).

use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::task::{RawWaker, RawWakerVTable, Waker};

use super::{look_up, schedule, Header, Woken};

/// The wakers of processes: the data pointer is the process's header.
static WAKER_VTABLE: RawWakerVTable =
    RawWakerVTable::new(waker_clone, waker_wake, waker_wake_by_ref, waker_drop);

unsafe fn waker_clone(data: *const ()) -> RawWaker {
    // SAFETY: a process waker's data is a live header (the waker holds or borrows a reference).
    let header = unsafe { &*data.cast::<Header>() };
    header.retain();
    RawWaker::new(data, &WAKER_VTABLE)
}

unsafe fn waker_wake(data: *const ()) {
    // SAFETY: the waker owns a reference, given up after waking.
    unsafe {
        waker_wake_by_ref(data);
        waker_drop(data);
    }
}

unsafe fn waker_wake_by_ref(data: *const ()) {
    // SAFETY: as in `waker_clone`.
    let header = unsafe { &*data.cast::<Header>() };
    match header.notify() {
        // SAFETY: ours to schedule.
        Woken::Schedule => unsafe { schedule(NonNull::from(header)) },
        // SAFETY: the waker's reference keeps the process alive; the wake-up saw `PINNED`.
        Woken::LookUp => unsafe { look_up(NonNull::from(header)) },
        Woken::Nothing => {}
    }
}

unsafe fn waker_drop(data: *const ()) {
    // SAFETY: an owned waker holds one reference, given up here.
    unsafe { Header::release(NonNull::new_unchecked(data as *mut Header)) };
}

/// The waker a run polls with: borrows the process's own reference (never dropped).
pub(super) fn borrowed_waker(header: NonNull<Header>) -> ManuallyDrop<Waker> {
    // SAFETY: the vtable's contract holds for a live header; the waker is never dropped, so it does
    // not give up a reference it does not own, and `clone` makes owned ones.
    ManuallyDrop::new(unsafe {
        Waker::from_raw(RawWaker::new(header.as_ptr() as *const (), &WAKER_VTABLE))
    })
}

/// If `waker` belongs to a process, that process's header.
#[inline]
pub(crate) fn header_of(waker: &Waker) -> Option<NonNull<Header>> {
    if std::ptr::eq(waker.vtable(), &WAKER_VTABLE) {
        NonNull::new(waker.data() as *mut Header)
    } else {
        None
    }
}

//! The scheduling right of a task: [`Runnable`] (erased to the shared part's type, what models park
//! and schedule), [`Running`] (typed by the task kind, what a turn holds), and [`Erased`], the
//! shared part of a runnable whose kind is forgotten altogether.

use std::any::TypeId;
use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::ptr::NonNull;

use super::cell::{self, initial_refs, Backing, Cached, Cell, Global};
use super::raw::{Header, RawOutcome, TaskRef, HANDLE, RUNNABLE};
use super::{Task, TaskRc, TaskWithTail};
use crate::alloc::BlockCache;
use crate::sync::atomic::Ordering;

/// The right to schedule one task: unique, owned, and counted in the task's cell.
///
/// Made with the task ([`Runnable::new`], [`Runnable::with_handle`]), given to the runtime by
/// [`Handle::schedule`](crate::Handle::schedule) and its siblings, handed back to the task's
/// [`Task::run`] as a [`Running`], and kept by the task's model between turns (see the [module
/// docs](super)). `S` is the task's shared part, which the runnable dereferences to, so a model's
/// shared part can hold the runnable of its own task without naming the task's kind.
///
/// Dropping it ends the task: it can never be scheduled again, and its cell is freed once no
/// [`TaskRc`] is left either.
pub struct Runnable<S> {
    header: NonNull<Header>,
    _shared: PhantomData<S>,
}

// SAFETY: a runnable gives `&S` (shared, so `S: Sync`) and moves the task's private part to the
// thread that runs it; `Task` requires `Shared: Send + Sync` and `Private: Send` of every kind a
// runnable can be made for.
unsafe impl<S: Send + Sync> Send for Runnable<S> {}
// SAFETY: `&Runnable<S>` gives only `&S`.
unsafe impl<S: Sync> Sync for Runnable<S> {}

impl<S: Send + Sync + 'static> Runnable<S> {
    /// Makes a task of kind `K` from its two parts, in memory from the global allocator. The
    /// runnable is the only reference to it.
    #[inline]
    pub fn new<K: Task<Shared = S>>(shared: S, private: K::Private) -> Runnable<S> {
        Self::make::<K, Global>(shared, private)
    }

    /// As [`Runnable::new`], in a block from the block cache `C` (see [`crate::alloc`]).
    #[inline]
    pub fn new_in<K: Task<Shared = S>, C: BlockCache>(
        shared: S,
        private: K::Private,
    ) -> Runnable<S> {
        Self::make::<K, Cached<C>>(shared, private)
    }

    /// Makes a task of kind `K` and one handle to it, without the atomic increment of
    /// [`handle`](Runnable::handle).
    #[inline]
    pub fn with_handle<K: Task<Shared = S>>(
        shared: S,
        private: K::Private,
    ) -> (Runnable<S>, TaskRc<S>) {
        Self::make_with_handle::<K, Global>(shared, private)
    }

    /// As [`Runnable::with_handle`], in a block from the block cache `C`.
    #[inline]
    pub fn with_handle_in<K: Task<Shared = S>, C: BlockCache>(
        shared: S,
        private: K::Private,
    ) -> (Runnable<S>, TaskRc<S>) {
        Self::make_with_handle::<K, Cached<C>>(shared, private)
    }

    /// Makes a task of tail kind `K` whose tail holds `len` values, the `i`-th made by
    /// `tail(i, shared)` once the shared part is in its place (so that a value may point into
    /// the task).
    ///
    /// # Panics
    /// If `len` exceeds `u32::MAX` or the cell's size overflows `isize`; a panic in `tail`
    /// propagates (the partly made task is leaked, never freed).
    #[inline]
    pub fn new_with_tail<K: TaskWithTail<Shared = S>>(
        shared: S,
        private: K::Private,
        len: usize,
        tail: impl FnMut(usize, &S) -> K::Tail,
    ) -> Runnable<S> {
        Self::make_with_tail::<K, Global>(shared, private, len, tail)
    }

    /// As [`Runnable::new_with_tail`], in a block from the block cache `C`.
    #[inline]
    pub fn new_with_tail_in<K: TaskWithTail<Shared = S>, C: BlockCache>(
        shared: S,
        private: K::Private,
        len: usize,
        tail: impl FnMut(usize, &S) -> K::Tail,
    ) -> Runnable<S> {
        Self::make_with_tail::<K, Cached<C>>(shared, private, len, tail)
    }

    /// As [`Runnable::new_in`], with the parts made by `parts` once the block is allocated: for a
    /// task made on a hot path (an actor per message), whose parts are then written straight into
    /// the block instead of being built first and copied.
    #[inline(always)]
    pub fn new_in_with<K: Task<Shared = S>, C: BlockCache>(
        parts: impl FnOnce() -> (S, K::Private),
    ) -> Runnable<S> {
        Runnable {
            header: Cell::<K>::allocate::<Cached<C>>(parts, initial_refs(0)),
            _shared: PhantomData,
        }
    }

    #[inline(always)]
    fn make<K: Task<Shared = S>, B: Backing>(shared: S, private: K::Private) -> Runnable<S> {
        Runnable {
            header: Cell::<K>::allocate::<B>(|| (shared, private), initial_refs(0)),
            _shared: PhantomData,
        }
    }

    #[inline(always)]
    fn make_with_handle<K: Task<Shared = S>, B: Backing>(
        shared: S,
        private: K::Private,
    ) -> (Runnable<S>, TaskRc<S>) {
        let header = Cell::<K>::allocate::<B>(|| (shared, private), initial_refs(1));
        // SAFETY: the count includes the handle made here.
        let handle = unsafe { TaskRc::from_header(header) };
        (
            Runnable {
                header,
                _shared: PhantomData,
            },
            handle,
        )
    }

    #[inline(always)]
    fn make_with_tail<K: TaskWithTail<Shared = S>, B: Backing>(
        shared: S,
        private: K::Private,
        len: usize,
        tail: impl FnMut(usize, &S) -> K::Tail,
    ) -> Runnable<S> {
        Runnable {
            header: Cell::<K>::allocate_with_tail::<B>(shared, private, initial_refs(0), len, tail),
            _shared: PhantomData,
        }
    }
}

impl<S> Runnable<S> {
    /// A new handle to the task.
    #[inline]
    pub fn handle(&self) -> TaskRc<S> {
        // SAFETY: the runnable's count keeps the cell alive.
        unsafe { TaskRc::retain(self.header) }
    }

    /// Whether any [`TaskRc`] to the task is left. Without one, nobody but the task's own model
    /// can reach it.
    #[inline]
    pub fn has_handles(&self) -> bool {
        has_handles(self.header)
    }

    /// Whether `self` and `handle` are the same task.
    #[inline]
    pub fn is(&self, handle: &TaskRc<S>) -> bool {
        self.header == handle.header()
    }

    /// The typed form of this runnable if the task is of kind `K`, for a model that parked it
    /// (erased) in the middle of a turn and takes it back to go on with that turn.
    pub fn into_running<K: Task<Shared = S>>(self) -> Result<Running<K>, Runnable<S>> {
        if is_kind::<K>(self.header) {
            let header = ManuallyDrop::new(self).header;
            // SAFETY: the cell is a `Cell<K>` (same kind), and this runnable's count moves over.
            Ok(unsafe { Running::from_header(header) })
        } else {
            Err(self)
        }
    }

    /// The same runnable with the type of its task's shared part forgotten: for a model whose kinds
    /// of task have shared parts of different types and which keeps their runnables in one place (a
    /// behaviour's successor, whatever its result type, parked where its predecessors find it).
    /// It schedules, runs and ends the task as before; [`Runnable::downcast`] gives the typed form
    /// back.
    #[inline(always)]
    pub fn erase(self) -> Runnable<Erased> {
        Runnable {
            header: ManuallyDrop::new(self).header,
            _shared: PhantomData,
        }
    }

    /// Runs one turn of the task on this thread, now, as a worker would: for a model that runs a
    /// chain of tasks itself. Returns the runnable if the turn yielded it. A panic in the turn
    /// propagates.
    #[inline]
    pub fn run_now(self) -> Option<Runnable<S>> {
        match self.into_task_ref().run() {
            RawOutcome::Idle => None,
            // SAFETY: a yielded ref owns a runnable's count of a cell of the same kind of task
            // (`Cell::run` made it from a `Runnable<K::Shared>`).
            RawOutcome::Yield(task) => Some(unsafe { Runnable::from_task_ref(task) }),
        }
    }

    /// Calls the task's [`Task::call`] with `arg` on this thread, now, and returns the word it
    /// returns: for a model that runs tasks of kinds it does not know from code of its own and
    /// needs a word back from each (motet-boc steps a behaviour of another kind in a chain this
    /// way, and gets the successor the step left). A panic in the call propagates.
    #[inline]
    pub fn call(self, arg: usize) -> usize {
        let header = ManuallyDrop::new(self).header;
        // SAFETY: the runnable's count keeps the cell alive, and the vtable is the one the cell
        // was made with; `call` takes the count over (`ManuallyDrop` gave it up here).
        unsafe { (header.as_ref().vtable.call)(header, arg) }
    }

    /// The queued form, which takes over the runnable's count.
    #[inline]
    pub(crate) fn into_task_ref(self) -> TaskRef {
        let header = ManuallyDrop::new(self).header;
        // SAFETY: the count moves from the runnable to the ref.
        unsafe { TaskRef::from_raw(header) }
    }

    /// The runnable a queued ref stands for.
    ///
    /// # Safety
    /// `task` heads a cell whose shared part is an `S`.
    #[inline]
    pub(crate) unsafe fn from_task_ref(task: TaskRef) -> Runnable<S> {
        Runnable {
            header: ManuallyDrop::new(task).as_ptr(),
            _shared: PhantomData,
        }
    }
}

/// The shared part of a [`Runnable`] whose task's kind is forgotten ([`Runnable::erase`]): it holds
/// nothing and cannot be made, so no task has it as its own shared part and nothing can be read
/// through an erased runnable.
pub struct Erased {
    _private: (),
}

impl fmt::Debug for Erased {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Erased")
    }
}

impl Runnable<Erased> {
    /// The typed form of an erased runnable if its task is of kind `K`, or the runnable back.
    ///
    /// Cheap when it answers yes: a comparison of the kind recorded in the task with `K`'s (one
    /// load and one comparison where both name the same copy of `K`'s kind function, as they do
    /// in an optimised build; the kinds' type ids otherwise).
    #[inline]
    pub fn downcast<K: Task>(self) -> Result<Running<K>, Runnable<Erased>> {
        if is_kind::<K>(self.header) {
            let header = ManuallyDrop::new(self).header;
            // SAFETY: the cell is a `Cell<K>`, and this runnable's count moves over.
            Ok(unsafe { Running::from_header(header) })
        } else {
            Err(self)
        }
    }
}

impl<S> Deref for Runnable<S> {
    type Target = S;

    #[inline(always)]
    fn deref(&self) -> &S {
        // SAFETY: the runnable's count keeps the cell alive; its shared part is an `S`.
        unsafe { cell::shared(self.header) }
    }
}

impl<S> Drop for Runnable<S> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: this runnable's count, given up here.
        unsafe { release_runnable(self.header) }
    }
}

impl<S> fmt::Debug for Runnable<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Runnable({:p})", self.header)
    }
}

/// A task during one of its turns: its runnable, typed by the task's kind, with access to the
/// private part.
///
/// Dropping it ends the task, as dropping its [`Runnable`] does.
pub struct Running<K: Task> {
    header: NonNull<Header>,
    _kind: PhantomData<K>,
}

// SAFETY: as for `Runnable`: `Task` requires `Shared: Send + Sync` and `Private: Send`.
unsafe impl<K: Task> Send for Running<K> {}
// SAFETY: `&Running<K>` gives only `&K::Shared`; the private part needs `&mut`.
unsafe impl<K: Task> Sync for Running<K> {}

impl<K: Task> Running<K> {
    /// The running form of the runnable whose count is at `header`.
    ///
    /// # Safety
    /// `header` heads a live `Cell<K>`, and the caller gives up a runnable's count of it.
    #[inline(always)]
    pub(crate) unsafe fn from_header(header: NonNull<Header>) -> Running<K> {
        Running {
            header,
            _kind: PhantomData,
        }
    }

    /// The private part. Only the holder of the runnable reaches it, so this is exclusive.
    #[inline(always)]
    pub fn private(&mut self) -> &mut K::Private {
        // SAFETY: the count keeps the cell alive, and this is the task's only runnable: no one
        // else touches the private part while it is borrowed from `self`.
        unsafe { &mut *cell::private::<K>(self.header) }
    }

    /// Both parts at once.
    #[inline(always)]
    pub fn split(&mut self) -> (&K::Shared, &mut K::Private) {
        // SAFETY: as for `private` and `deref`: the shared part is only ever shared.
        unsafe {
            (
                cell::shared(self.header),
                &mut *cell::private::<K>(self.header),
            )
        }
    }

    /// The runnable, to yield, park or schedule. The private part is reachable again only through
    /// [`Runnable::into_running`].
    #[inline(always)]
    pub fn into_runnable(self) -> Runnable<K::Shared> {
        Runnable {
            header: ManuallyDrop::new(self).header,
            _shared: PhantomData,
        }
    }

    /// A new handle to the task.
    #[inline]
    pub fn handle(&self) -> TaskRc<K::Shared> {
        // SAFETY: the runnable's count keeps the cell alive.
        unsafe { TaskRc::retain(self.header) }
    }

    /// Whether any [`TaskRc`] to the task is left.
    #[inline]
    pub fn has_handles(&self) -> bool {
        has_handles(self.header)
    }
}

impl<K: TaskWithTail> Running<K> {
    /// Ends the task, as dropping it does, for a task made with a tail in the block cache `C`
    /// ([`Runnable::new_with_tail_in`], [`Running::new_with_tail_in`]): if this was the last
    /// reference, the cell and its tail are freed by code inlined here, where the drop frees them
    /// through a call to the kind's free, which computes the block's size class from the tail's
    /// length. A task made otherwise (another cache, the global allocator, no tail) is ended as by
    /// the drop, whatever `C` says.
    ///
    /// `len`, if given, is the number of tail values the caller expects the task to have (known
    /// from its kind, say): a task that has that many has its block's size class computed from
    /// `len`, a constant where the caller's is, rather than from the number the task holds. A
    /// task with another number is ended all the same.
    ///
    /// For a model that ends many short tasks of a kind and cache it knows (a behaviour over
    /// several cowns, after its closure).
    #[inline(always)]
    pub fn end_with_tail_in<C: BlockCache>(self, len: Option<usize>) {
        let header = ManuallyDrop::new(self).header;
        // SAFETY: this runnable's count, given up here (`ManuallyDrop`); the cell is a
        // `Cell<K>`, and `free_with_tail_as` frees it whatever its backing once its count reached
        // zero.
        unsafe {
            release_runnable_then(header, |h| {
                Cell::<K>::free_with_tail_as::<Cached<C>>(h, len)
            });
        }
    }

    /// Makes a task of tail kind `K`, as [`Runnable::new_with_tail`] does, and returns its runnable
    /// in typed form: for a model that reads the tail of the task it has just made (to enqueue a
    /// behaviour's requests) before it gives the runnable away.
    ///
    /// # Panics
    /// As [`Runnable::new_with_tail`].
    #[inline]
    pub fn new_with_tail(
        shared: K::Shared,
        private: K::Private,
        len: usize,
        tail: impl FnMut(usize, &K::Shared) -> K::Tail,
    ) -> Running<K> {
        Self::make_with_tail::<Global>(shared, private, len, tail)
    }

    /// As [`Running::new_with_tail`], in a block from the block cache `C` (as
    /// [`Runnable::new_with_tail_in`]).
    #[inline]
    pub fn new_with_tail_in<C: BlockCache>(
        shared: K::Shared,
        private: K::Private,
        len: usize,
        tail: impl FnMut(usize, &K::Shared) -> K::Tail,
    ) -> Running<K> {
        Self::make_with_tail::<Cached<C>>(shared, private, len, tail)
    }

    #[inline(always)]
    fn make_with_tail<B: Backing>(
        shared: K::Shared,
        private: K::Private,
        len: usize,
        tail: impl FnMut(usize, &K::Shared) -> K::Tail,
    ) -> Running<K> {
        let header =
            Cell::<K>::allocate_with_tail::<B>(shared, private, initial_refs(0), len, tail);
        // SAFETY: a fresh `Cell<K>` whose only count is the runnable's, which the result takes.
        unsafe { Running::from_header(header) }
    }

    /// The tail the task was made with.
    #[inline(always)]
    pub fn tail(&self) -> &[K::Tail] {
        // SAFETY: a tail kind's cells are all made by `new_with_tail`; the count keeps it alive.
        unsafe { cell::tail::<K>(self.header) }
    }
}

impl<K: Task> Deref for Running<K> {
    type Target = K::Shared;

    #[inline(always)]
    fn deref(&self) -> &K::Shared {
        // SAFETY: the runnable's count keeps the cell alive.
        unsafe { cell::shared(self.header) }
    }
}

impl<K: Task> Drop for Running<K> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: this runnable's count, given up here.
        unsafe { release_runnable(self.header) }
    }
}

impl<K: Task> fmt::Debug for Running<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Running({:p})", self.header)
    }
}

/// Whether the cell headed by `header` is of kind `K`.
#[inline(always)]
fn is_kind<K: Task>(header: NonNull<Header>) -> bool {
    let mine: fn() -> TypeId = TypeId::of::<K>;
    // SAFETY: the caller's runnable keeps the cell alive.
    let kind = unsafe { header.as_ref() }.vtable.kind;
    // The vtable's `kind` is `TypeId::of` of the cell's kind. The same function pointer is the same
    // function, which answers the same id: the same kind. Different pointers may still be one kind
    // (a function may have a copy in each codegen unit), so the ids decide then.
    std::ptr::fn_addr_eq(kind, mine) || kind() == mine()
}

#[inline]
fn has_handles(header: NonNull<Header>) -> bool {
    // Acquire: a caller that finds no handle left goes on to act on it (an actor stops), after
    // every use the last handle's holder made of the task.
    // SAFETY: the caller's runnable keeps the cell alive.
    unsafe { header.as_ref() }.refs.load(Ordering::Acquire) != RUNNABLE
}

/// Gives up a runnable's count; frees the cell through its vtable if it was the last.
///
/// # Safety
/// The caller owns a runnable's count of the live cell at `header` and does not use it afterwards.
#[inline]
unsafe fn release_runnable(header: NonNull<Header>) {
    // SAFETY: the caller's contract; the vtable's `drop_cell` frees any cell whose count reached
    // zero.
    unsafe { release_runnable_then(header, |h| (h.as_ref().vtable.drop_cell)(h)) }
}

/// Gives up a runnable's count; frees the cell with `free` if it was the last.
///
/// # Safety
/// The caller owns a runnable's count of the live cell at `header` and does not use it afterwards;
/// `free` frees that cell once nothing else refers to it.
#[inline(always)]
unsafe fn release_runnable_then(header: NonNull<Header>, free: impl FnOnce(NonNull<Header>)) {
    // SAFETY: the caller's count keeps the cell alive until given up.
    let h = unsafe { header.as_ref() };
    // The runnable alone: nobody can make a handle (there is none to clone and the runnable is
    // ours), so the cell is ours to free without a read-modify-write. Acquire: the last handle's
    // release happened before.
    if h.refs.load(Ordering::Acquire) == RUNNABLE {
        // Nothing else refers to the cell.
        free(header);
        return;
    }
    // Release: this thread's uses of the task precede the freeing, by whoever frees it.
    if h.refs.fetch_sub(RUNNABLE, Ordering::Release) == RUNNABLE {
        // Acquire: the other holders' uses precede this freeing (as `Arc`'s drop). A load rather
        // than a fence: ThreadSanitizer models the one and not the other.
        h.refs.load(Ordering::Acquire);
        // The count reached zero: nothing else refers to the cell.
        free(header);
    }
}

const _: () = assert!(HANDLE > RUNNABLE);

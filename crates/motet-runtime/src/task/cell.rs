//! The task cell: one allocation holding the runtime's header, the task's shared part, its private
//! part and, for a [`TaskWithTail`], a run of tail values; and the vtable the runtime builds for
//! each task kind.
//!
//! ```text
//! | Header: vtable, refs, tail_len | K::Shared | K::Private | K::Tail × tail_len (optional) |
//! ```
//!
//! `Cell<K>` is `#[repr(C)]`, so its fields are laid out in order, each at the next multiple of
//! its alignment: the shared part's offset depends only on the header and the shared part's
//! alignment, and [`Runnable<S>`](super::Runnable) and [`TaskRc<S>`](super::TaskRc) reach it
//! without knowing the private part's type. The tail follows the whole `Cell<K>`, at the tail
//! type's alignment (what [`Layout::extend`] computes).
//!
//! The cell's memory comes from the global allocator or from a [`BlockCache`] the model names (a
//! cache of recently freed blocks per thread: cells of short-lived tasks are freed and reused at
//! the rate they are made), and the cell never moves until it is freed: a shared part may point
//! into itself once [`Task::placed`] has run.

use std::alloc::{self, Layout};
use std::any::TypeId;
use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::mem::{align_of, size_of};
use std::ptr::NonNull;

use super::raw::{Header, RawOutcome, VTable, HANDLE, RUNNABLE};
use super::{Running, Task, TaskWithTail, Turn};
use crate::alloc::BlockCache;
use crate::sync::atomic::AtomicU32;

/// A task cell of kind `K`; a tail kind's values follow it.
#[repr(C)]
pub(crate) struct Cell<K: Task> {
    header: Header,
    shared: K::Shared,
    private: UnsafeCell<K::Private>,
}

/// Where the shared part of type `S` starts in any cell: after the header, at `S`'s alignment.
#[inline(always)]
pub(crate) const fn shared_offset<S>() -> usize {
    size_of::<Header>().next_multiple_of(align_of::<S>())
}

/// The shared part of the cell headed by `header`.
///
/// # Safety
/// `header` heads a live cell whose shared part has type `S`.
#[inline(always)]
pub(crate) unsafe fn shared<'a, S>(header: NonNull<Header>) -> &'a S {
    // SAFETY: the caller's contract; `shared_offset` is the field's offset in every `Cell<K>`
    // with `K::Shared = S` (checked by a debug assertion where cells are made).
    unsafe { header.byte_add(shared_offset::<S>()).cast::<S>().as_ref() }
}

/// The header of the cell whose shared part is at `shared`.
///
/// # Safety
/// `shared` is the shared part, of type `S`, of a live cell.
#[inline(always)]
pub(crate) unsafe fn header_of<S>(shared: NonNull<S>) -> NonNull<Header> {
    // SAFETY: the caller's contract: the header lies `shared_offset` bytes before the shared
    // part, in the same cell.
    unsafe { shared.byte_sub(shared_offset::<S>()).cast::<Header>() }
}

/// The private part of the cell of kind `K` headed by `header`.
///
/// # Safety
/// `header` heads a live `Cell<K>`; the caller holds its runnable, and so is the only one that may
/// touch the private part, for as long as it uses the pointer.
#[inline(always)]
pub(crate) unsafe fn private<K: Task>(header: NonNull<Header>) -> *mut K::Private {
    // SAFETY: the caller's contract: the header is the first field of a live `Cell<K>`.
    unsafe { header.cast::<Cell<K>>().as_ref() }.private.get()
}

/// The tail of the cell of tail kind `K` headed by `header`.
///
/// # Safety
/// `header` heads a live `Cell<K>` made by [`Cell::allocate_with_tail`].
#[inline(always)]
pub(crate) unsafe fn tail<'a, K: TaskWithTail>(header: NonNull<Header>) -> &'a [K::Tail] {
    // SAFETY: the caller's contract: `tail_len` initialised values follow the cell at the offset
    // its layout gives.
    unsafe {
        let len = header.as_ref().tail_len as usize;
        let start = header.byte_add(Cell::<K>::TAIL_OFFSET).cast::<K::Tail>();
        std::slice::from_raw_parts(start.as_ptr(), len)
    }
}

/// Where a cell's memory comes from.
pub(crate) trait Backing: 'static {
    /// The layout the block for a cell of `layout` is allocated with.
    fn block_layout(layout: Layout) -> Layout;
    /// A fresh block of `layout` (from [`Backing::block_layout`]).
    fn allocate(layout: Layout) -> NonNull<u8>;
    /// Frees a block [`Backing::allocate`] returned for `layout`.
    ///
    /// # Safety
    /// As for [`BlockCache::release`].
    unsafe fn release(block: NonNull<u8>, layout: Layout);
}

/// The global allocator.
pub(crate) struct Global;

impl Backing for Global {
    #[inline(always)]
    fn block_layout(layout: Layout) -> Layout {
        layout
    }

    #[inline(always)]
    fn allocate(layout: Layout) -> NonNull<u8> {
        debug_assert!(layout.size() >= size_of::<Header>());
        // SAFETY: the layout's size is not zero (every cell holds its header).
        let p = unsafe { alloc::alloc(layout) };
        match NonNull::new(p) {
            Some(p) => p,
            None => alloc::handle_alloc_error(layout),
        }
    }

    #[inline(always)]
    unsafe fn release(block: NonNull<u8>, layout: Layout) {
        // SAFETY: the caller's contract: `block` came from `alloc` with `layout`.
        unsafe { alloc::dealloc(block.as_ptr(), layout) }
    }
}

/// A block cache.
pub(crate) struct Cached<C>(PhantomData<C>);

impl<C: BlockCache> Backing for Cached<C> {
    #[inline(always)]
    fn block_layout(layout: Layout) -> Layout {
        C::CONFIG.block_layout(layout)
    }

    #[inline(always)]
    fn allocate(layout: Layout) -> NonNull<u8> {
        C::allocate(layout)
    }

    #[inline(always)]
    unsafe fn release(block: NonNull<u8>, layout: Layout) {
        // SAFETY: the caller's contract.
        unsafe { C::release(block, layout) }
    }
}

/// The vtable of kind `K`'s cells from `B`.
struct Vtables<K, B>(PhantomData<(K, B)>);

impl<K: Task, B: Backing> Vtables<K, B> {
    const PLAIN: &'static VTable = &VTable {
        run: Cell::<K>::run,
        shutdown: Cell::<K>::shutdown,
        call: Cell::<K>::call,
        drop_cell: Cell::<K>::drop_cell::<B>,
        kind: TypeId::of::<K>,
        extent: Cell::<K>::EXTENT,
    };
}

impl<K: TaskWithTail, B: Backing> Vtables<K, B> {
    const TAIL: &'static VTable = &VTable {
        run: Cell::<K>::run,
        shutdown: Cell::<K>::shutdown,
        call: Cell::<K>::call,
        drop_cell: Cell::<K>::drop_cell_with_tail::<B>,
        kind: TypeId::of::<K>,
        extent: Cell::<K>::EXTENT,
    };
}

impl<K: Task> Cell<K> {
    const LAYOUT: Layout = Layout::new::<Cell<K>>();

    /// From the start of the shared part to the end of the private part.
    const EXTENT: usize = std::mem::offset_of!(Cell<K>, private) + size_of::<K::Private>()
        - std::mem::offset_of!(Cell<K>, shared);

    /// Allocates a cell from `B` holding the parts `parts` makes, with `refs` as its count, and
    /// lets the kind link its shared part in place. The parts are made once the block is there,
    /// and the whole is inlined, so that they are written straight into the block: built before
    /// the allocation, they went through the stack and were copied (a store-forwarding stall on
    /// every spawn).
    #[inline(always)]
    pub(crate) fn allocate<B: Backing>(
        parts: impl FnOnce() -> (K::Shared, K::Private),
        refs: u32,
    ) -> NonNull<Header> {
        let cell = B::allocate(B::block_layout(Self::LAYOUT)).cast::<Cell<K>>();
        let (shared, private) = parts();
        // SAFETY: a fresh block at least as large as `Cell<K>`, ours alone until returned.
        unsafe { Self::fill(cell, Vtables::<K, B>::PLAIN, shared, private, refs, 0) };
        cell.cast()
    }

    /// Writes a fresh cell and places its shared part.
    ///
    /// # Safety
    /// `cell` is a fresh block at least as large as `Cell<K>`, owned by the caller.
    #[inline(always)]
    unsafe fn fill(
        cell: NonNull<Cell<K>>,
        vtable: &'static VTable,
        shared: K::Shared,
        private: K::Private,
        refs: u32,
        tail_len: u32,
    ) {
        debug_assert_eq!(
            std::mem::offset_of!(Cell<K>, shared),
            shared_offset::<K::Shared>()
        );
        // SAFETY: the caller's contract.
        unsafe {
            cell.as_ptr().write(Cell {
                header: Header {
                    vtable,
                    refs: AtomicU32::new(refs),
                    tail_len,
                },
                shared,
                private: UnsafeCell::new(private),
            });
            K::placed(&mut (*cell.as_ptr()).shared);
        }
    }

    /// The vtable's `run`: one turn of the task, given the queued runnable.
    unsafe fn run(header: NonNull<Header>) -> RawOutcome {
        // SAFETY: the vtable is `Cell<K>`'s, and the queued ref gave up the runnable's count.
        let running = unsafe { Running::<K>::from_header(header) };
        match K::run(running) {
            Turn::Idle => RawOutcome::Idle,
            Turn::Yield(runnable) => RawOutcome::Yield(runnable.into_task_ref()),
        }
    }

    /// The vtable's `shutdown`.
    unsafe fn shutdown(header: NonNull<Header>) {
        // SAFETY: as in `run`.
        K::shutdown(unsafe { Running::<K>::from_header(header) });
    }

    /// The vtable's `call`.
    unsafe fn call(header: NonNull<Header>, arg: usize) -> usize {
        // SAFETY: as in `run`.
        K::call(unsafe { Running::<K>::from_header(header) }, arg)
    }

    /// The vtable's `drop_cell`: drops both parts and frees the cell.
    unsafe fn drop_cell<B: Backing>(header: NonNull<Header>) {
        let cell = header.cast::<Cell<K>>();
        // SAFETY: the count reached zero, so nothing else refers to the cell, which `allocate`
        // made from `B` with this layout.
        unsafe {
            std::ptr::drop_in_place(cell.as_ptr());
            B::release(cell.cast(), B::block_layout(Self::LAYOUT));
        }
    }
}

impl<K: TaskWithTail> Cell<K> {
    /// Where the tail starts: after the whole cell, at the tail's alignment.
    const TAIL_OFFSET: usize = size_of::<Cell<K>>().next_multiple_of(align_of::<K::Tail>());

    /// The alignment of a cell with a tail.
    const TAIL_ALIGN: usize = if align_of::<Cell<K>>() > align_of::<K::Tail>() {
        align_of::<Cell<K>>()
    } else {
        align_of::<K::Tail>()
    };

    /// The layout of a cell with `len` tail values, as `B` allocates it; `None` if it overflows.
    /// (`Layout::extend` and `Layout::array` give the same layout; the arithmetic here is what
    /// they do, with the checks once, at allocation, and none at the free: see
    /// [`Cell::layout_with_tail_unchecked`].)
    #[inline(always)]
    fn layout_with_tail<B: Backing>(len: usize) -> Option<Layout> {
        let size = len
            .checked_mul(size_of::<K::Tail>())?
            .checked_add(Self::TAIL_OFFSET)?
            .checked_next_multiple_of(Self::TAIL_ALIGN)?;
        Some(B::block_layout(
            Layout::from_size_align(size, Self::TAIL_ALIGN).ok()?,
        ))
    }

    /// [`Cell::layout_with_tail`] without its checks, for a cell made with `len` tail values:
    /// a free computes its block's layout in a few instructions.
    ///
    /// # Safety
    /// `layout_with_tail::<B>(len)` returned a layout (the cell was allocated with it).
    #[inline(always)]
    unsafe fn layout_with_tail_unchecked<B: Backing>(len: usize) -> Layout {
        let size =
            (Self::TAIL_OFFSET + len * size_of::<K::Tail>()).next_multiple_of(Self::TAIL_ALIGN);
        // SAFETY: the caller's contract: this size and alignment passed `Layout`'s checks when
        // the cell was allocated.
        let layout = unsafe { Layout::from_size_align_unchecked(size, Self::TAIL_ALIGN) };
        let block = B::block_layout(layout);
        debug_assert_eq!(Self::layout_with_tail::<B>(len), Some(block));
        block
    }

    /// Allocates a cell with `len` tail values, the `i`-th made by `tail(i, shared)` once the
    /// shared part is placed (so a value may point into the cell).
    ///
    /// # Panics
    /// If `len` exceeds `u32::MAX` or the cell's size overflows; if `tail` panics (the cell is
    /// then leaked, not freed: its tail is partly made).
    pub(crate) fn allocate_with_tail<B: Backing>(
        shared: K::Shared,
        private: K::Private,
        refs: u32,
        len: usize,
        mut tail: impl FnMut(usize, &K::Shared) -> K::Tail,
    ) -> NonNull<Header> {
        let tail_len = u32::try_from(len).expect("a task's tail holds at most u32::MAX values");
        let layout = Self::layout_with_tail::<B>(len).expect("a task's tail is too large");
        let cell = B::allocate(layout).cast::<Cell<K>>();
        // SAFETY: a fresh block at least as large as `Cell<K>`, ours alone until returned.
        unsafe { Self::fill(cell, Vtables::<K, B>::TAIL, shared, private, refs, tail_len) };
        // SAFETY: the block has room for `len` tail values at `TAIL_OFFSET`; the shared part is
        // placed and only read here.
        unsafe {
            let start = cell.byte_add(Self::TAIL_OFFSET).cast::<K::Tail>();
            let shared = &(*cell.as_ptr()).shared;
            for i in 0..len {
                start.add(i).write(tail(i, shared));
            }
        }
        cell.cast()
    }

    /// Frees the cell at `header`, whose count reached zero: inline, if it is a cell with a tail
    /// from `B` (its vtable is that of `Cell<K>` with a tail from `B`), or else through its
    /// vtable. `len`, if given, is the length the caller expects the tail to have: a cell whose
    /// tail has that length has its layout computed from `len` (a constant where the caller's is)
    /// rather than from the length it holds.
    ///
    /// The vtable is compared by address: the one of `Cell<K>` with a tail from `B` is a constant,
    /// and a vtable at its address is that constant (or one merged with it for holding the same
    /// functions, which free alike).
    ///
    /// # Safety
    /// `header` heads a live `Cell<K>` whose count reached zero (nothing else refers to it).
    #[inline(always)]
    pub(crate) unsafe fn free_with_tail_as<B: Backing>(
        header: NonNull<Header>,
        len: Option<usize>,
    ) {
        // SAFETY: the caller's contract: the cell is alive until freed here.
        let h = unsafe { header.as_ref() };
        let vtable = h.vtable;
        if !std::ptr::eq(vtable, Vtables::<K, B>::TAIL) {
            // SAFETY: the caller's contract; the vtable is the one the cell was made with.
            unsafe { (vtable.drop_cell)(header) };
            return;
        }
        let held = h.tail_len as usize;
        match len {
            // SAFETY: the caller's contract; the vtable says that `allocate_with_tail::<B>` made
            // the cell, with the length it holds, which is `len`.
            Some(len) if len == held => unsafe { Self::drop_cell_with_tail_of::<B>(header, len) },
            // SAFETY: as above, with the length the cell holds.
            _ => unsafe { Self::drop_cell_with_tail_of::<B>(header, held) },
        }
    }

    /// The tail vtable's `drop_cell`: drops both parts and the tail, and frees the cell.
    ///
    /// # Safety
    /// `header` heads a `Cell<K>` that `allocate_with_tail::<B>` made, whose count reached zero.
    unsafe fn drop_cell_with_tail<B: Backing>(header: NonNull<Header>) {
        // SAFETY: the caller's contract; the cell holds its tail's length.
        unsafe { Self::drop_cell_with_tail_of::<B>(header, header.as_ref().tail_len as usize) }
    }

    /// [`Cell::drop_cell_with_tail`] given the tail's length.
    ///
    /// # Safety
    /// `header` heads a `Cell<K>` that `allocate_with_tail::<B>` made with `len` tail values,
    /// whose count reached zero.
    #[inline(always)]
    unsafe fn drop_cell_with_tail_of<B: Backing>(header: NonNull<Header>, len: usize) {
        let cell = header.cast::<Cell<K>>();
        // SAFETY: the count reached zero, so nothing else refers to the cell, which
        // `allocate_with_tail` made with `len` values (a layout that did not overflow then).
        unsafe {
            let start = header.byte_add(Self::TAIL_OFFSET).cast::<K::Tail>();
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(start.as_ptr(), len));
            std::ptr::drop_in_place(cell.as_ptr());
            let layout = Self::layout_with_tail_unchecked::<B>(len);
            B::release(cell.cast(), layout);
        }
    }
}

/// The initial count of a cell with its runnable and `handles` handles.
#[inline(always)]
pub(crate) const fn initial_refs(handles: u32) -> u32 {
    RUNNABLE + HANDLE * handles
}

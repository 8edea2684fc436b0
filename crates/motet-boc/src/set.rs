//! What a `when` can name, and what its closure gets.
//!
//! [`CownSet`] is implemented for the forms a `when` accepts:
//!
//! | named | the closure gets |
//! | --- | --- |
//! | `&Cown<T>` | `&mut T` |
//! | [`Cown::read`]`()` / [`read`](crate::read)`(&c)` | `&T` |
//! | `&Deferred<T>` | `Result<&T, Broken>` (after the value is set or the resolver dropped) |
//! | a tuple of up to 12 of the above | a tuple of what each gets |
//! | `&[Cown<T>]`, `&Vec<Cown<T>>`, `&[Cown<T>; N]` | [`CownsMut<T>`]: `&mut T` per cown |
//! | [`read_all`](crate::read_all)`(&cowns)` | [`Cowns<T>`]: `&T` per cown |
//!
//! The traits are sealed: the protocol relies on what their implementations write.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};
use std::ptr::NonNull;

use crate::cown::{Cown, CownBox, Read, ReadAll};
use crate::deferred::{Broken, Deferred};
use crate::protocol::{LaterSlot, Queue, Slot};

mod sealed {
    pub trait Sealed {}
}

/// One request of a [`CownSet`]: a cown's queue and the access mode.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Request {
    pub(crate) queue: NonNull<Queue>,
    pub(crate) read: bool,
}

impl Request {
    fn new(queue: NonNull<Queue>, read: bool) -> Request {
        Request { queue, read }
    }
}

/// The slots of a behaviour that runs, for building what its closure gets: its first request and
/// the later ones.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct SlotView<'a> {
    first: &'a Slot,
    later: &'a [LaterSlot],
}

impl<'a> SlotView<'a> {
    pub(crate) fn new(first: &'a Slot, later: &'a [LaterSlot]) -> Self {
        SlotView { first, later }
    }

    /// How many slots.
    fn len(&self) -> usize {
        1 + self.later.len()
    }

    /// Slot `i`, without a bounds check (this is on the path of every behaviour).
    ///
    /// # Safety
    /// `i` is within the slots (as `Shape::view`'s contract makes `at` for its shape's slots).
    #[inline(always)]
    unsafe fn slot(&self, i: usize) -> &'a Slot {
        debug_assert!(i < self.len());
        match i {
            0 => self.first,
            // SAFETY: the caller's contract.
            _ => unsafe { self.later.get_unchecked(i - 1) }.slot(),
        }
    }

    /// The queue of slot `i`, without a bounds check.
    ///
    /// # Safety
    /// As for [`SlotView::slot`].
    #[inline(always)]
    unsafe fn queue(&self, i: usize) -> NonNull<Queue> {
        // SAFETY: the caller's contract.
        unsafe { self.slot(i) }.queue()
    }

    /// The queue of slot `i`, if there is one.
    fn get(&self, i: usize) -> Option<NonNull<Queue>> {
        // SAFETY: checked against the length.
        (i < self.len()).then(|| unsafe { self.queue(i) })
    }

    /// The queues, in order.
    fn queues(self) -> impl Iterator<Item = NonNull<Queue>> + 'a {
        std::iter::once(self.first)
            .chain(self.later.iter().map(LaterSlot::slot))
            .map(Slot::queue)
    }
}

/// The cowns a [`when`](crate::when) names, with their access modes. See the [module
/// docs](crate::set) for the forms.
pub trait CownSet: sealed::Sealed {
    /// The type-level description of the set, which says what the closure gets.
    type Shape: Shape;
    #[doc(hidden)]
    fn count(&self) -> usize;
    #[doc(hidden)]
    /// Request `i`, for `i` below [`count`](CownSet::count), in the order the cowns were named.
    fn request(&self, i: usize) -> Request;
}

/// What a behaviour's closure gets for a [`CownSet`]: [`Shape::View`].
///
/// # Safety
/// Sealed; `view` must build references only to the values of the cowns of the matching set's
/// requests, with their access modes; `ONE` is true only if the set makes exactly one request;
/// and `WRITERS`, if not 0, is the number of requests the set makes, all with write access.
pub unsafe trait Shape: 'static {
    /// What the closure gets while the behaviour runs.
    type View<'a>;
    #[doc(hidden)]
    /// Whether the set names exactly one cown, known from its type: a behaviour spawned alone over
    /// such a set is single (no gate) and its block has no later requests.
    const ONE: bool = false;
    #[doc(hidden)]
    /// How many cowns the set names, if it is known from its type to name that many, all with
    /// write access (0 otherwise): such a behaviour has no duplicate request (a cown named twice
    /// with write access is rejected at spawn) and no read-only one, so its enqueue and release
    /// skip those checks.
    const WRITERS: usize = 0;
    #[doc(hidden)]
    /// # Safety
    /// The slots are those written by the matching set, all granted, and the behaviour runs.
    unsafe fn view<'a>(slots: SlotView<'a>, at: usize) -> Self::View<'a>;
}

/// One element of a tuple form: a cown with its access mode.
pub trait CownArg: sealed::Sealed {
    /// Its shape.
    type Shape: Shape;
    #[doc(hidden)]
    fn request(&self) -> Request;
}

/// Shape of `&Cown<T>`: the closure gets `&mut T`.
pub struct Mut<T>(PhantomData<fn() -> T>);
/// Shape of a read-only cown: the closure gets `&T`.
pub struct Ref<T>(PhantomData<fn() -> T>);
/// Shape of a deferred value: the closure gets `Result<&T, Broken>`.
pub struct DeferredRef<T>(PhantomData<fn() -> T>);
/// Shape of a dynamic set with write access.
pub struct ManyMut<T>(PhantomData<fn() -> T>);
/// Shape of a dynamic set with read access.
pub struct ManyRef<T>(PhantomData<fn() -> T>);

// SAFETY: a `&Cown<T>` writes one write slot on a `CownBox<T>`.
unsafe impl<T: Send + 'static> Shape for Mut<T> {
    type View<'a> = &'a mut T;
    const ONE: bool = true;
    const WRITERS: usize = 1;
    unsafe fn view<'a>(slots: SlotView<'a>, at: usize) -> &'a mut T {
        // SAFETY: a granted write slot on a `CownBox<T>`, at `at` (written by the matching set):
        // exclusive access while the behaviour runs.
        unsafe { &mut *CownBox::<T>::value_of(slots.queue(at)) }
    }
}

// SAFETY: a `Read<T>` writes one read slot on a `CownBox<T>`.
unsafe impl<T: Send + Sync + 'static> Shape for Ref<T> {
    type View<'a> = &'a T;
    const ONE: bool = true;
    unsafe fn view<'a>(slots: SlotView<'a>, at: usize) -> &'a T {
        // SAFETY: a granted read slot, at `at` (written by the matching set): only readers run on
        // the cown meanwhile, and `T: Sync`.
        unsafe { &*CownBox::<T>::value_of(slots.queue(at)) }
    }
}

// SAFETY: a `&Deferred<T>` writes one read slot on a `CownBox<Option<T>>`.
unsafe impl<T: Send + Sync + 'static> Shape for DeferredRef<T> {
    type View<'a> = Result<&'a T, Broken>;
    const ONE: bool = true;
    unsafe fn view<'a>(slots: SlotView<'a>, at: usize) -> Result<&'a T, Broken> {
        // SAFETY: as for `Ref`; the value was set (or not) before the promise's blocker released.
        unsafe { (*CownBox::<Option<T>>::value_of(slots.queue(at))).as_ref() }.ok_or(Broken)
    }
}

impl<T> sealed::Sealed for &Cown<T> {}
impl<T: Send + 'static> CownArg for &Cown<T> {
    type Shape = Mut<T>;
    #[inline(always)]
    fn request(&self) -> Request {
        Request::new(self.queue(), false)
    }
}

impl<T> sealed::Sealed for Read<'_, T> {}
impl<T: Send + Sync + 'static> CownArg for Read<'_, T> {
    type Shape = Ref<T>;
    #[inline(always)]
    fn request(&self) -> Request {
        Request::new(self.0.queue(), true)
    }
}

impl<T> sealed::Sealed for &Deferred<T> {}
impl<T: Send + Sync + 'static> CownArg for &Deferred<T> {
    type Shape = DeferredRef<T>;
    #[inline(always)]
    fn request(&self) -> Request {
        Request::new(self.cown().queue(), true)
    }
}

macro_rules! single_set {
    ($ty:ty, [$($gen:tt)*]) => {
        impl<$($gen)*> CownSet for $ty {
            type Shape = <$ty as CownArg>::Shape;
            fn count(&self) -> usize {
                1
            }
            #[inline(always)]
            fn request(&self, i: usize) -> Request {
                debug_assert_eq!(i, 0);
                CownArg::request(self)
            }
        }
    };
}

single_set!(&'c Cown<T>, ['c, T: Send + 'static]);
single_set!(Read<'c, T>, ['c, T: Send + Sync + 'static]);
single_set!(&'c Deferred<T>, ['c, T: Send + Sync + 'static]);

macro_rules! tuple_set {
    ($n:expr; $($name:ident $idx:tt),+) => {
        impl<$($name: CownArg),+> sealed::Sealed for ($($name,)+) {}

        impl<$($name: CownArg),+> CownSet for ($($name,)+) {
            type Shape = ($($name::Shape,)+);
            fn count(&self) -> usize {
                $n
            }
            #[inline(always)]
            fn request(&self, i: usize) -> Request {
                match i {
                    $($idx => self.$idx.request(),)+
                    _ => unreachable!("request {i} of a tuple of {}", $n),
                }
            }
        }

        // SAFETY: element `i` of the tuple made request `at + i` with its own shape's mode; each
        // element with `WRITERS == 1` made one write request, and every element one request.
        unsafe impl<$($name: Shape),+> Shape for ($($name,)+) {
            type View<'a> = ($($name::View<'a>,)+);
            const ONE: bool = $n == 1;
            const WRITERS: usize = if true $(&& $name::WRITERS == 1)+ { $n } else { 0 };
            unsafe fn view<'a>(slots: SlotView<'a>, at: usize) -> Self::View<'a> {
                // SAFETY: the caller's contract, element by element.
                unsafe { ($($name::view(slots, at + $idx),)+) }
            }
        }
    };
}

tuple_set!(1; A 0);
tuple_set!(2; A 0, B 1);
tuple_set!(3; A 0, B 1, C 2);
tuple_set!(4; A 0, B 1, C 2, D 3);
tuple_set!(5; A 0, B 1, C 2, D 3, E 4);
tuple_set!(6; A 0, B 1, C 2, D 3, E 4, F 5);
tuple_set!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_set!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_set!(9; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_set!(10; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_set!(11; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_set!(12; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// Request `i` of a dynamic set.
#[inline(always)]
fn request_of<T>(cowns: &[Cown<T>], i: usize, read: bool) -> Request {
    Request::new(cowns[i].queue(), read)
}

impl<T> sealed::Sealed for &[Cown<T>] {}
impl<T: Send + 'static> CownSet for &[Cown<T>] {
    type Shape = ManyMut<T>;
    fn count(&self) -> usize {
        self.len()
    }
    fn request(&self, i: usize) -> Request {
        request_of(self, i, false)
    }
}

impl<T> sealed::Sealed for &Vec<Cown<T>> {}
impl<T: Send + 'static> CownSet for &Vec<Cown<T>> {
    type Shape = ManyMut<T>;
    fn count(&self) -> usize {
        self.len()
    }
    fn request(&self, i: usize) -> Request {
        request_of(self, i, false)
    }
}

impl<T, const N: usize> sealed::Sealed for &[Cown<T>; N] {}
impl<T: Send + 'static, const N: usize> CownSet for &[Cown<T>; N] {
    type Shape = ManyMut<T>;
    fn count(&self) -> usize {
        N
    }
    fn request(&self, i: usize) -> Request {
        request_of(&self[..], i, false)
    }
}

impl<T> sealed::Sealed for ReadAll<'_, T> {}
impl<T: Send + Sync + 'static> CownSet for ReadAll<'_, T> {
    type Shape = ManyRef<T>;
    fn count(&self) -> usize {
        self.0.len()
    }
    fn request(&self, i: usize) -> Request {
        request_of(self.0, i, true)
    }
}

// SAFETY: a dynamic write set makes one write request per `CownBox<T>`, without duplicates (a
// duplicate with write access is rejected before the behaviour is spawned).
unsafe impl<T: Send + 'static> Shape for ManyMut<T> {
    type View<'a> = CownsMut<'a, T>;
    unsafe fn view<'a>(slots: SlotView<'a>, at: usize) -> CownsMut<'a, T> {
        debug_assert_eq!(at, 0, "a dynamic set is a behaviour's only set");
        CownsMut {
            slots,
            marker: PhantomData,
        }
    }
}

// SAFETY: a dynamic read set makes one read request per `CownBox<T>`.
unsafe impl<T: Send + Sync + 'static> Shape for ManyRef<T> {
    type View<'a> = Cowns<'a, T>;
    unsafe fn view<'a>(slots: SlotView<'a>, at: usize) -> Cowns<'a, T> {
        debug_assert_eq!(at, 0, "a dynamic set is a behaviour's only set");
        Cowns {
            slots,
            marker: PhantomData,
        }
    }
}

/// The values of a dynamic set of cowns acquired with write access, in the order they were named.
///
/// ```
/// use motet_boc::{when, Cown};
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let forks: Vec<_> = (0..3).map(|_| Cown::new(rt.handle(), 0u32)).collect();
/// drop(when(&forks, |mut forks| {
///     for f in forks.iter_mut() {
///         *f += 1;
///     }
///     forks[0] += 10;
/// }));
/// let total = when(&forks, |forks| forks.iter().sum::<u32>()).wait().unwrap();
/// assert_eq!(total, 13);
/// ```
pub struct CownsMut<'a, T> {
    slots: SlotView<'a>,
    marker: PhantomData<&'a mut T>,
}

impl<'a, T> CownsMut<'a, T> {
    /// How many cowns.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the set is empty (never, for a behaviour that runs).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The value of the `i`-th cown.
    pub fn get(&self, i: usize) -> Option<&T> {
        // SAFETY: a granted write slot on a `CownBox<T>`; shared for the borrow of `self`.
        self.slots
            .get(i)
            .map(|q| unsafe { &*CownBox::<T>::value_of(q) })
    }

    /// The value of the `i`-th cown, mutably.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        // SAFETY: as in `get`, exclusive for the mutable borrow of `self`.
        self.slots
            .get(i)
            .map(|q| unsafe { &mut *CownBox::<T>::value_of(q) })
    }

    /// The values, in order.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        // SAFETY: as in `get`.
        self.slots
            .queues()
            .map(|q| unsafe { &*CownBox::<T>::value_of(q) })
    }

    /// The values, mutably, in order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> + '_ {
        // SAFETY: the cowns of a write set are distinct (duplicates are rejected), so the
        // references do not alias; exclusive for the mutable borrow of `self`.
        self.slots
            .queues()
            .map(|q| unsafe { &mut *CownBox::<T>::value_of(q) })
    }
}

impl<T> Index<usize> for CownsMut<'_, T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        self.get(i).expect("cown index out of range")
    }
}

impl<T> IndexMut<usize> for CownsMut<'_, T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        self.get_mut(i).expect("cown index out of range")
    }
}

impl<T: fmt::Debug> fmt::Debug for CownsMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The values of a dynamic set of cowns acquired read-only, in the order they were named.
pub struct Cowns<'a, T> {
    slots: SlotView<'a>,
    marker: PhantomData<&'a T>,
}

impl<'a, T> Cowns<'a, T> {
    /// How many cowns.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the set is empty (never, for a behaviour that runs).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The value of the `i`-th cown.
    pub fn get(&self, i: usize) -> Option<&'a T> {
        // SAFETY: a granted read slot on a `CownBox<T>` with `T: Sync` (by construction).
        self.slots
            .get(i)
            .map(|q| unsafe { &*CownBox::<T>::value_of(q) })
    }

    /// The values, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a T> + 'a {
        // SAFETY: as in `get`.
        self.slots
            .queues()
            .map(|q| unsafe { &*CownBox::<T>::value_of(q) })
    }
}

impl<T> Index<usize> for Cowns<'_, T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        self.get(i).expect("cown index out of range")
    }
}

impl<T: fmt::Debug> fmt::Debug for Cowns<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// Only a set of cowns all named with write access, known from its type, skips the checks
    /// for read-only and duplicate requests; anything with a reader or of dynamic size does not.
    #[test]
    fn only_write_only_tuples_and_cowns_count_their_writers() {
        assert_eq!(<Mut<u8> as Shape>::WRITERS, 1);
        assert_eq!(<(Mut<u8>, Mut<u16>) as Shape>::WRITERS, 2);
        assert_eq!(<(Mut<u8>, Mut<u8>, Mut<u8>) as Shape>::WRITERS, 3);
        assert_eq!(<Ref<u8> as Shape>::WRITERS, 0);
        assert_eq!(<(Mut<u8>, Ref<u8>) as Shape>::WRITERS, 0);
        assert_eq!(<(Ref<u8>, Mut<u8>) as Shape>::WRITERS, 0);
        assert_eq!(<(DeferredRef<u8>, Mut<u8>) as Shape>::WRITERS, 0);
        assert_eq!(<ManyMut<u8> as Shape>::WRITERS, 0);
        assert_eq!(<ManyRef<u8> as Shape>::WRITERS, 0);
    }
}

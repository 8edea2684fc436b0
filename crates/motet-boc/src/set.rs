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
use crate::protocol::{Gate, Queue, Slot};

mod sealed {
    pub trait Sealed {}
}

/// Where a [`CownSet`] writes its requests: the slots of a behaviour being built.
#[doc(hidden)]
pub struct SlotWriter<'a> {
    slots: &'a mut [std::mem::MaybeUninit<Slot>],
    next: usize,
    gate: NonNull<Gate>,
}

impl<'a> SlotWriter<'a> {
    pub(crate) fn new(slots: &'a mut [std::mem::MaybeUninit<Slot>], gate: NonNull<Gate>) -> Self {
        SlotWriter {
            slots,
            next: 0,
            gate,
        }
    }

    fn push(&mut self, queue: NonNull<Queue>, read: bool) {
        self.slots[self.next].write(Slot::new(queue, read, self.gate));
        self.next += 1;
    }

    /// How many slots were written.
    pub(crate) fn written(&self) -> usize {
        self.next
    }
}

/// The slots of a behaviour that runs, for building what its closure gets.
#[doc(hidden)]
pub struct SlotView<'a> {
    slots: &'a [Slot],
}

impl<'a> SlotView<'a> {
    pub(crate) fn new(slots: &'a [Slot]) -> Self {
        SlotView { slots }
    }

    /// The queue of slot `i`, without a bounds check (this is on the path of every behaviour).
    ///
    /// # Safety
    /// `i` is within the slots (as `Shape::view`'s contract makes `at` for its shape's slots).
    #[inline]
    unsafe fn queue(&self, i: usize) -> NonNull<Queue> {
        debug_assert!(i < self.slots.len());
        // SAFETY: the caller's contract.
        unsafe { self.slots.get_unchecked(i) }.queue()
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
    fn write(&self, out: &mut SlotWriter<'_>);
}

/// What a behaviour's closure gets for a [`CownSet`]: [`Shape::View`].
///
/// # Safety
/// Sealed; `view` must build references only to the values of the cowns the matching set wrote,
/// with the access modes it wrote, and `WRITERS`, if not 0, is the number of slots the set
/// writes, all with write access.
pub unsafe trait Shape: 'static {
    /// What the closure gets while the behaviour runs.
    type View<'a>;
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
    fn write_one(&self, out: &mut SlotWriter<'_>);
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
    unsafe fn view<'a>(slots: SlotView<'a>, at: usize) -> &'a T {
        // SAFETY: a granted read slot, at `at` (written by the matching set): only readers run on
        // the cown meanwhile, and `T: Sync`.
        unsafe { &*CownBox::<T>::value_of(slots.queue(at)) }
    }
}

// SAFETY: a `&Deferred<T>` writes one read slot on a `CownBox<Option<T>>`.
unsafe impl<T: Send + Sync + 'static> Shape for DeferredRef<T> {
    type View<'a> = Result<&'a T, Broken>;
    unsafe fn view<'a>(slots: SlotView<'a>, at: usize) -> Result<&'a T, Broken> {
        // SAFETY: as for `Ref`; the value was set (or not) before the promise's blocker released.
        unsafe { (*CownBox::<Option<T>>::value_of(slots.queue(at))).as_ref() }.ok_or(Broken)
    }
}

impl<T> sealed::Sealed for &Cown<T> {}
impl<T: Send + 'static> CownArg for &Cown<T> {
    type Shape = Mut<T>;
    fn write_one(&self, out: &mut SlotWriter<'_>) {
        out.push(self.queue(), false);
    }
}

impl<T> sealed::Sealed for Read<'_, T> {}
impl<T: Send + Sync + 'static> CownArg for Read<'_, T> {
    type Shape = Ref<T>;
    fn write_one(&self, out: &mut SlotWriter<'_>) {
        out.push(self.0.queue(), true);
    }
}

impl<T> sealed::Sealed for &Deferred<T> {}
impl<T: Send + Sync + 'static> CownArg for &Deferred<T> {
    type Shape = DeferredRef<T>;
    fn write_one(&self, out: &mut SlotWriter<'_>) {
        out.push(self.cown().queue(), true);
    }
}

macro_rules! single_set {
    ($ty:ty, [$($gen:tt)*]) => {
        impl<$($gen)*> CownSet for $ty {
            type Shape = <$ty as CownArg>::Shape;
            fn count(&self) -> usize {
                1
            }
            fn write(&self, out: &mut SlotWriter<'_>) {
                self.write_one(out);
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
            fn write(&self, out: &mut SlotWriter<'_>) {
                $(self.$idx.write_one(out);)+
            }
        }

        // SAFETY: element `i` of the tuple wrote slot `at + i` with its own shape's mode; each
        // element with `WRITERS == 1` wrote one write slot.
        unsafe impl<$($name: Shape),+> Shape for ($($name,)+) {
            type View<'a> = ($($name::View<'a>,)+);
            const WRITERS: usize = if true $(&& $name::WRITERS == 1)+ { $n } else { 0 };
            unsafe fn view<'a>(slots: SlotView<'a>, at: usize) -> Self::View<'a> {
                // SAFETY: the caller's contract, element by element.
                unsafe { ($($name::view(SlotView { slots: slots.slots }, at + $idx),)+) }
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

fn write_many<T>(cowns: &[Cown<T>], read: bool, out: &mut SlotWriter<'_>) {
    for c in cowns {
        out.push(c.queue(), read);
    }
}

impl<T> sealed::Sealed for &[Cown<T>] {}
impl<T: Send + 'static> CownSet for &[Cown<T>] {
    type Shape = ManyMut<T>;
    fn count(&self) -> usize {
        self.len()
    }
    fn write(&self, out: &mut SlotWriter<'_>) {
        write_many(self, false, out);
    }
}

impl<T> sealed::Sealed for &Vec<Cown<T>> {}
impl<T: Send + 'static> CownSet for &Vec<Cown<T>> {
    type Shape = ManyMut<T>;
    fn count(&self) -> usize {
        self.len()
    }
    fn write(&self, out: &mut SlotWriter<'_>) {
        write_many(self, false, out);
    }
}

impl<T, const N: usize> sealed::Sealed for &[Cown<T>; N] {}
impl<T: Send + 'static, const N: usize> CownSet for &[Cown<T>; N] {
    type Shape = ManyMut<T>;
    fn count(&self) -> usize {
        N
    }
    fn write(&self, out: &mut SlotWriter<'_>) {
        write_many(&self[..], false, out);
    }
}

impl<T> sealed::Sealed for ReadAll<'_, T> {}
impl<T: Send + Sync + 'static> CownSet for ReadAll<'_, T> {
    type Shape = ManyRef<T>;
    fn count(&self) -> usize {
        self.0.len()
    }
    fn write(&self, out: &mut SlotWriter<'_>) {
        write_many(self.0, true, out);
    }
}

// SAFETY: a dynamic write set wrote one write slot per `CownBox<T>`, without duplicates (a
// duplicate with write access is rejected before the behaviour is spawned).
unsafe impl<T: Send + 'static> Shape for ManyMut<T> {
    type View<'a> = CownsMut<'a, T>;
    unsafe fn view<'a>(slots: SlotView<'a>, at: usize) -> CownsMut<'a, T> {
        CownsMut {
            slots: &slots.slots[at..],
            marker: PhantomData,
        }
    }
}

// SAFETY: a dynamic read set wrote one read slot per `CownBox<T>`.
unsafe impl<T: Send + Sync + 'static> Shape for ManyRef<T> {
    type View<'a> = Cowns<'a, T>;
    unsafe fn view<'a>(slots: SlotView<'a>, at: usize) -> Cowns<'a, T> {
        Cowns {
            slots: &slots.slots[at..],
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
/// when(&forks, |mut forks| {
///     for f in forks.iter_mut() {
///         *f += 1;
///     }
///     forks[0] += 10;
/// });
/// let total = when(&forks, |forks| forks.iter().sum::<u32>()).wait().unwrap();
/// assert_eq!(total, 13);
/// ```
pub struct CownsMut<'a, T> {
    slots: &'a [Slot],
    marker: PhantomData<&'a mut T>,
}

impl<'a, T> CownsMut<'a, T> {
    /// How many cowns.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the set is empty (never, for a behaviour that runs).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The value of the `i`-th cown.
    pub fn get(&self, i: usize) -> Option<&T> {
        // SAFETY: a granted write slot on a `CownBox<T>`; shared for the borrow of `self`.
        self.slots
            .get(i)
            .map(|s| unsafe { &*CownBox::<T>::value_of(s.queue()) })
    }

    /// The value of the `i`-th cown, mutably.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        // SAFETY: as in `get`, exclusive for the mutable borrow of `self`.
        self.slots
            .get(i)
            .map(|s| unsafe { &mut *CownBox::<T>::value_of(s.queue()) })
    }

    /// The values, in order.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        // SAFETY: as in `get`.
        self.slots
            .iter()
            .map(|s| unsafe { &*CownBox::<T>::value_of(s.queue()) })
    }

    /// The values, mutably, in order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> + '_ {
        // SAFETY: the cowns of a write set are distinct (duplicates are rejected), so the
        // references do not alias; exclusive for the mutable borrow of `self`.
        self.slots
            .iter()
            .map(|s| unsafe { &mut *CownBox::<T>::value_of(s.queue()) })
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
    slots: &'a [Slot],
    marker: PhantomData<&'a T>,
}

impl<'a, T> Cowns<'a, T> {
    /// How many cowns.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the set is empty (never, for a behaviour that runs).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The value of the `i`-th cown.
    pub fn get(&self, i: usize) -> Option<&'a T> {
        // SAFETY: a granted read slot on a `CownBox<T>` with `T: Sync` (by construction).
        self.slots
            .get(i)
            .map(|s| unsafe { &*CownBox::<T>::value_of(s.queue()) })
    }

    /// The values, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a T> + 'a {
        let slots = self.slots;
        // SAFETY: as in `get`.
        slots
            .iter()
            .map(|s| unsafe { &*CownBox::<T>::value_of(s.queue()) })
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

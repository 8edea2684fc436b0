//! How the Rust types of a request's inputs and a reply's outputs map onto kernel arguments: the
//! [`Inputs`] and [`Outputs`] traits, implemented for single values and tuples.
//!
//! Each value type has a [`ValueKind`] (a host buffer, a device buffer or a scalar, of an
//! [`ElemType`]); a compute actor compares the kinds of its input and output types with its
//! argument specs when it is spawned, so a request can only carry values of the right types.

use std::any::Any;
use std::sync::Arc;

use crate::elem::{Elem, ElemType};
use crate::mem::{Mem, RawMem};

/// What a Rust value stands for as a kernel argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// A buffer whose data is on the host (`Vec<T>`, `Arc<[T]>`): written to the device before
    /// the kernel runs, or read back after it.
    Host(ElemType),
    /// A buffer that stays on the device ([`Mem<T>`]).
    Device(ElemType),
    /// A scalar passed by value.
    Scalar(ElemType),
}

impl ValueKind {
    /// The element type.
    pub fn elem(self) -> ElemType {
        match self {
            ValueKind::Host(e) | ValueKind::Device(e) | ValueKind::Scalar(e) => e,
        }
    }
}

/// Host data to be written to a device: its bytes and element count.
pub(crate) trait HostData: Send {
    fn bytes(&self) -> &[u8];
    fn len(&self) -> usize;
}

impl<T: Elem> HostData for Vec<T> {
    fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self)
    }
    fn len(&self) -> usize {
        self.as_slice().len()
    }
}

impl<T: Elem> HostData for Arc<[T]> {
    fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self)
    }
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
}

/// An input value with its type erased.
pub(crate) enum InValue {
    Host(Box<dyn HostData>),
    Device(Arc<RawMem>),
    /// A scalar's bytes (at most 8).
    Scalar([u8; 8], usize),
}

/// A host buffer that receives an output: its bytes to read into, then the typed value.
pub(crate) trait HostOut: Send {
    fn bytes_mut(&mut self) -> &mut [u8];
    fn into_any(self: Box<Self>) -> Box<dyn Any + Send>;
}

impl<T: Elem> HostOut for Vec<T> {
    fn bytes_mut(&mut self) -> &mut [u8] {
        bytemuck::cast_slice_mut(self)
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any + Send> {
        self
    }
}

/// An output with its type erased, as the launch fills it.
pub(crate) enum OutValue {
    Host(Box<dyn HostOut>),
    Device(Arc<RawMem>),
}

/// How to make the slot of one output.
#[derive(Clone, Copy)]
pub(crate) struct OutDesc {
    pub(crate) kind: ValueKind,
    /// Allocates a zeroed host vector of so many elements (for `Host` kinds).
    pub(crate) alloc: fn(usize) -> Box<dyn HostOut>,
}

/// One value of a request: a buffer (`Vec<T>`, `Arc<[T]>`, [`Mem<T>`]) or a scalar (`T`).
pub trait InputValue: Send + 'static {
    /// Its kind as a kernel argument.
    fn kind() -> ValueKind;
    #[doc(hidden)]
    #[allow(private_interfaces)]
    fn into_value(self) -> InValue;
}

impl<T: Elem> InputValue for Vec<T> {
    fn kind() -> ValueKind {
        ValueKind::Host(T::TYPE)
    }
    #[allow(private_interfaces)]
    fn into_value(self) -> InValue {
        InValue::Host(Box::new(self))
    }
}

impl<T: Elem> InputValue for Arc<[T]> {
    fn kind() -> ValueKind {
        ValueKind::Host(T::TYPE)
    }
    #[allow(private_interfaces)]
    fn into_value(self) -> InValue {
        InValue::Host(Box::new(self))
    }
}

impl<T: Elem> InputValue for Mem<T> {
    fn kind() -> ValueKind {
        ValueKind::Device(T::TYPE)
    }
    #[allow(private_interfaces)]
    fn into_value(self) -> InValue {
        InValue::Device(self.raw)
    }
}

macro_rules! scalar_input {
    ($($t:ty),*) => {$(
        impl InputValue for $t {
            fn kind() -> ValueKind {
                ValueKind::Scalar(<$t as Elem>::TYPE)
            }
            #[allow(private_interfaces)]
            fn into_value(self) -> InValue {
                let mut b = [0u8; 8];
                let bytes = bytemuck::bytes_of(&self);
                b[..bytes.len()].copy_from_slice(bytes);
                InValue::Scalar(b, bytes.len())
            }
        }
    )*};
}

scalar_input!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

/// One value of a reply: a host buffer read back (`Vec<T>`) or a buffer left on the device
/// ([`Mem<T>`]).
pub trait OutputValue: Send + Sized + 'static {
    /// Its kind as a kernel argument.
    fn kind() -> ValueKind;
    #[doc(hidden)]
    #[allow(private_interfaces)]
    fn from_value(v: OutValue) -> Option<Self>;
    #[doc(hidden)]
    #[allow(private_interfaces)]
    fn desc() -> OutDesc;
}

fn no_host_alloc(_: usize) -> Box<dyn HostOut> {
    Box::new(Vec::<u8>::new())
}

impl<T: Elem> OutputValue for Vec<T> {
    fn kind() -> ValueKind {
        ValueKind::Host(T::TYPE)
    }
    #[allow(private_interfaces)]
    fn from_value(v: OutValue) -> Option<Self> {
        match v {
            OutValue::Host(h) => h.into_any().downcast::<Vec<T>>().ok().map(|b| *b),
            OutValue::Device(_) => None,
        }
    }
    #[allow(private_interfaces)]
    fn desc() -> OutDesc {
        OutDesc {
            kind: <Self as OutputValue>::kind(),
            alloc: |n| Box::new(vec![T::zeroed(); n]),
        }
    }
}

impl<T: Elem> OutputValue for Mem<T> {
    fn kind() -> ValueKind {
        ValueKind::Device(T::TYPE)
    }
    #[allow(private_interfaces)]
    fn from_value(v: OutValue) -> Option<Self> {
        match v {
            OutValue::Device(raw) if raw.elem == T::TYPE => Some(Mem::from_raw(raw)),
            _ => None,
        }
    }
    #[allow(private_interfaces)]
    fn desc() -> OutDesc {
        OutDesc {
            kind: <Self as OutputValue>::kind(),
            alloc: no_host_alloc,
        }
    }
}

/// The inputs of a request, in the order of the kernel's input arguments (input and in-out
/// buffers and scalars; outputs and local memory take no value): one [`InputValue`], a tuple
/// of up to eight, or `()` for none.
pub trait Inputs: Send + 'static {
    /// The kinds of the values, in order.
    fn kinds() -> Vec<ValueKind>;
    #[doc(hidden)]
    #[allow(private_interfaces)]
    fn into_values(self) -> Vec<InValue>;
}

/// The outputs of a reply, in the order of the kernel's output arguments (output and in-out
/// buffers): one [`OutputValue`] or a tuple of up to eight.
pub trait Outputs: Send + Sized + 'static {
    /// The kinds of the values, in order.
    fn kinds() -> Vec<ValueKind> {
        Self::descs().iter().map(|d| d.kind).collect()
    }
    #[doc(hidden)]
    #[allow(private_interfaces)]
    fn descs() -> Vec<OutDesc>;
    #[doc(hidden)]
    #[allow(private_interfaces)]
    fn from_values(values: Vec<OutValue>) -> Option<Self>;
}

impl<V: InputValue> Inputs for V {
    fn kinds() -> Vec<ValueKind> {
        vec![V::kind()]
    }
    #[allow(private_interfaces)]
    fn into_values(self) -> Vec<InValue> {
        vec![self.into_value()]
    }
}

impl<V: OutputValue> Outputs for V {
    #[allow(private_interfaces)]
    fn descs() -> Vec<OutDesc> {
        vec![V::desc()]
    }
    #[allow(private_interfaces)]
    fn from_values(values: Vec<OutValue>) -> Option<Self> {
        let mut it = values.into_iter();
        let v = V::from_value(it.next()?)?;
        it.next().is_none().then_some(v)
    }
}

/// No inputs: a kernel whose arguments are all outputs and local memory.
impl Inputs for () {
    fn kinds() -> Vec<ValueKind> {
        Vec::new()
    }
    #[allow(private_interfaces)]
    fn into_values(self) -> Vec<InValue> {
        Vec::new()
    }
}

macro_rules! tuples {
    ($($name:ident)+) => {
        impl<$($name: InputValue),+> Inputs for ($($name,)+) {
            fn kinds() -> Vec<ValueKind> {
                vec![$($name::kind()),+]
            }
            #[allow(private_interfaces, non_snake_case)]
            fn into_values(self) -> Vec<InValue> {
                let ($($name,)+) = self;
                vec![$($name.into_value()),+]
            }
        }

        impl<$($name: OutputValue),+> Outputs for ($($name,)+) {
            #[allow(private_interfaces)]
            fn descs() -> Vec<OutDesc> {
                vec![$($name::desc()),+]
            }
            #[allow(private_interfaces)]
            fn from_values(values: Vec<OutValue>) -> Option<Self> {
                let mut it = values.into_iter();
                let out = ($($name::from_value(it.next()?)?,)+);
                it.next().is_none().then_some(out)
            }
        }
    };
}

tuples!(A);
tuples!(A B);
tuples!(A B C);
tuples!(A B C D);
tuples!(A B C D E);
tuples!(A B C D E F);
tuples!(A B C D E F G);
tuples!(A B C D E F G H);

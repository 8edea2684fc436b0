//! Argument specs ([`Arg`]), the view of a request that sizes outputs and work ([`Shape`]), and
//! the work dimensions of a launch ([`WorkSize`]).

use std::fmt;
use std::sync::Arc;

use crate::elem::{Elem, ElemType};

/// A length computed from a request's inputs.
pub(crate) type SizeFn = Arc<dyn Fn(&Shape<'_>) -> usize + Send + Sync>;

/// The work dimensions computed from a request's inputs.
pub(crate) type WorkFn = Arc<dyn Fn(&Shape<'_>) -> WorkSize + Send + Sync>;

/// The role of one kernel argument.
#[derive(Clone)]
pub(crate) enum Role {
    /// A buffer the request supplies; `expect` is the length it must have, if any.
    Input { expect: Option<SizeFn> },
    /// A buffer the request supplies and the reply returns (the kernel updates it in place).
    InOut { expect: Option<SizeFn> },
    /// A buffer the reply returns, of the computed length.
    Output { len: SizeFn },
    /// A scalar the request supplies.
    Scalar,
    /// Local (work-group) memory of the computed length; no value in request or reply.
    Local { len: SizeFn },
}

/// The spec of one kernel argument, in the kernel's parameter order.
///
/// ```
/// use motet_compute::Arg;
/// // __kernel void scale(__global const float* x, __global float* y, float k, uint n)
/// let args = [
///     Arg::input::<f32>(),
///     Arg::output::<f32>(|s| s.len(0)),
///     Arg::scalar::<f32>(),
///     Arg::scalar::<u32>(),
/// ];
/// # let _ = args;
/// ```
#[derive(Clone)]
pub struct Arg {
    pub(crate) role: Role,
    pub(crate) elem: ElemType,
}

impl Arg {
    /// A `__global` buffer of `T` read by the kernel; the request supplies it (`Vec<T>`,
    /// `Arc<[T]>` or [`Mem<T>`](crate::Mem)).
    pub fn input<T: Elem>() -> Arg {
        Arg {
            role: Role::Input { expect: None },
            elem: T::TYPE,
        }
    }

    /// A `__global` buffer of `T` the kernel reads and writes: the request supplies it and the
    /// reply returns it (`Vec<T>` read back, or [`Mem<T>`](crate::Mem) left on the device).
    pub fn in_out<T: Elem>() -> Arg {
        Arg {
            role: Role::InOut { expect: None },
            elem: T::TYPE,
        }
    }

    /// A `__global` buffer of `T` the kernel writes, of `len` elements computed from the request;
    /// the reply returns it.
    pub fn output<T: Elem>(len: impl Fn(&Shape<'_>) -> usize + Send + Sync + 'static) -> Arg {
        Arg {
            role: Role::Output { len: Arc::new(len) },
            elem: T::TYPE,
        }
    }

    /// A scalar of `T` passed by value; the request supplies it.
    pub fn scalar<T: Elem>() -> Arg {
        Arg {
            role: Role::Scalar,
            elem: T::TYPE,
        }
    }

    /// A `__local` buffer of `len` elements of `T` per work-group, computed from the request.
    pub fn local<T: Elem>(len: impl Fn(&Shape<'_>) -> usize + Send + Sync + 'static) -> Arg {
        Arg {
            role: Role::Local { len: Arc::new(len) },
            elem: T::TYPE,
        }
    }

    /// For an input or in-out buffer: the length, computed from the request, that the supplied
    /// buffer must have; a request whose buffer differs is refused with
    /// [`ComputeError::BadRequest`](crate::ComputeError::BadRequest). No effect on other args.
    pub fn expect_len(mut self, len: impl Fn(&Shape<'_>) -> usize + Send + Sync + 'static) -> Arg {
        match &mut self.role {
            Role::Input { expect } | Role::InOut { expect } => *expect = Some(Arc::new(len)),
            _ => {}
        }
        self
    }

    /// Whether the request carries a value for this argument.
    pub(crate) fn takes_input(&self) -> bool {
        matches!(
            self.role,
            Role::Input { .. } | Role::InOut { .. } | Role::Scalar
        )
    }

    /// Whether the reply carries a value for this argument.
    pub(crate) fn gives_output(&self) -> bool {
        matches!(self.role, Role::Output { .. } | Role::InOut { .. })
    }

    pub(crate) fn describe(&self) -> String {
        let role = match self.role {
            Role::Input { .. } => "input buffer",
            Role::InOut { .. } => "in-out buffer",
            Role::Output { .. } => "output buffer",
            Role::Scalar => "scalar",
            Role::Local { .. } => "local buffer",
        };
        format!("{role} of {}", self.elem)
    }
}

impl fmt::Debug for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// What a request supplies for one kernel argument, as a [`Shape`] shows it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Given {
    /// A buffer of so many elements.
    Len(usize),
    /// A scalar's bytes.
    Scalar([u8; 8], ElemType),
    /// Nothing (an output or local argument).
    Nothing,
}

/// A request's inputs as the size functions of output and local buffers and the work function
/// see them, by kernel argument index: buffer lengths and scalar values.
pub struct Shape<'a> {
    pub(crate) given: &'a [Given],
}

impl Shape<'_> {
    /// The element count of the buffer the request gives for argument `arg`; 0 for an argument
    /// that is not an input buffer.
    pub fn len(&self, arg: usize) -> usize {
        match self.given.get(arg) {
            Some(Given::Len(n)) => *n,
            _ => 0,
        }
    }

    /// The scalar the request gives for argument `arg`, as an unsigned size (negative values
    /// and non-integers give 0; 0 also for an argument that is not a scalar).
    pub fn scalar_usize(&self, arg: usize) -> usize {
        let f = self.scalar_f64(arg);
        if f.is_finite() && f >= 0.0 && f.fract() == 0.0 {
            f as usize
        } else {
            0
        }
    }

    /// The scalar the request gives for argument `arg`, as an `f64` (0 for an argument that is
    /// not a scalar).
    pub fn scalar_f64(&self, arg: usize) -> f64 {
        let Some(Given::Scalar(b, elem)) = self.given.get(arg) else {
            return 0.0;
        };
        let b = *b;
        macro_rules! read {
            ($t:ty) => {
                bytemuck::pod_read_unaligned::<$t>(&b[..std::mem::size_of::<$t>()]) as f64
            };
        }
        match elem {
            ElemType::Char => read!(i8),
            ElemType::UChar => read!(u8),
            ElemType::Short => read!(i16),
            ElemType::UShort => read!(u16),
            ElemType::Int => read!(i32),
            ElemType::UInt => read!(u32),
            ElemType::Long => read!(i64),
            ElemType::ULong => read!(u64),
            ElemType::Float => read!(f32),
            ElemType::Double => read!(f64),
        }
    }
}

/// The work dimensions of one launch: the global size (1 to 3 dimensions), and optionally the
/// work-group (local) size and the global offset.
///
/// ```
/// use motet_compute::WorkSize;
/// let w = WorkSize::new([1024, 1024]).local([16, 16]);
/// assert_eq!(w.global(), &[1024, 1024]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkSize {
    global: Vec<usize>,
    local: Option<Vec<usize>>,
    offset: Option<Vec<usize>>,
}

impl WorkSize {
    /// A global size of 1, 2 or 3 dimensions (others are refused at launch).
    pub fn new<const N: usize>(global: [usize; N]) -> WorkSize {
        WorkSize {
            global: global.to_vec(),
            local: None,
            offset: None,
        }
    }

    /// Sets the work-group size (the same number of dimensions as the global size).
    pub fn local<const N: usize>(mut self, local: [usize; N]) -> WorkSize {
        self.local = Some(local.to_vec());
        self
    }

    /// Sets the global offset (the same number of dimensions as the global size).
    pub fn offset<const N: usize>(mut self, offset: [usize; N]) -> WorkSize {
        self.offset = Some(offset.to_vec());
        self
    }

    /// The global size.
    pub fn global(&self) -> &[usize] {
        &self.global
    }

    /// The work-group size, if set.
    pub fn local_size(&self) -> Option<&[usize]> {
        self.local.as_deref()
    }

    /// The global offset, if set.
    pub fn global_offset(&self) -> Option<&[usize]> {
        self.offset.as_deref()
    }

    /// Checks the dimensions: 1 to 3, none zero, local and offset of the same rank.
    pub(crate) fn check(&self) -> Result<(), String> {
        let n = self.global.len();
        if !(1..=3).contains(&n) {
            return Err(format!("{n} work dimensions (1 to 3 allowed)"));
        }
        if self.global.contains(&0) {
            return Err(format!("a global work size of 0 ({:?})", self.global));
        }
        for (what, v) in [("local", &self.local), ("offset", &self.offset)] {
            if let Some(v) = v {
                if v.len() != n {
                    return Err(format!(
                        "{what} size has {} dimensions, global {n}",
                        v.len()
                    ));
                }
            }
        }
        if matches!(&self.local, Some(l) if l.contains(&0)) {
            return Err("a local work size of 0".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_reads_lengths_and_scalars() {
        let mut seven = [0u8; 8];
        seven[..4].copy_from_slice(&7u32.to_ne_bytes());
        let mut neg = [0u8; 8];
        neg[..4].copy_from_slice(&(-2.5f32).to_ne_bytes());
        let given = [
            Given::Len(12),
            Given::Scalar(seven, ElemType::UInt),
            Given::Scalar(neg, ElemType::Float),
            Given::Nothing,
        ];
        let s = Shape { given: &given };
        assert_eq!(s.len(0), 12);
        assert_eq!(s.len(1), 0);
        assert_eq!(s.scalar_usize(1), 7);
        assert_eq!(s.scalar_f64(2), -2.5);
        assert_eq!(s.scalar_usize(2), 0);
        assert_eq!(s.len(9), 0);
    }

    #[test]
    fn work_sizes_are_checked() {
        assert!(WorkSize::new([4, 4]).local([2, 2]).check().is_ok());
        assert!(WorkSize::new([4, 0]).check().is_err());
        assert!(WorkSize::new([4, 4]).local([2]).check().is_err());
        assert!(WorkSize::new([1, 1, 1, 1]).check().is_err());
        assert!(WorkSize::new([4]).local([0]).check().is_err());
    }
}

//! [`Mem<T>`]: a buffer that lives on a device, for chaining compute actors without a copy back to
//! the host (CAF's `mem_ref`).

use std::fmt;
use std::marker::PhantomData;
use std::ptr;
use std::sync::Arc;

use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;

use crate::device::Device;
use crate::elem::{Elem, ElemType};
use crate::error::ComputeError;

/// An untyped device buffer and the device it belongs to.
pub(crate) struct RawMem {
    pub(crate) buffer: Buffer<u8>,
    pub(crate) elem: ElemType,
    pub(crate) len: usize,
    pub(crate) device: Device,
}

impl RawMem {
    /// A new, uninitialised buffer of `len` elements of `elem` (`bytes` in all) on `device`.
    pub(crate) fn alloc(
        device: &Device,
        elem: ElemType,
        len: usize,
        bytes: usize,
    ) -> Result<RawMem, ComputeError> {
        if bytes == 0 {
            return Err(ComputeError::BadRequest("a buffer of 0 bytes".into()));
        }
        // SAFETY: no host pointer is given (and no flag that would use one), so OpenCL reads no
        // host memory; `bytes` is non-zero.
        let buffer = unsafe {
            Buffer::<u8>::create(device.context(), CL_MEM_READ_WRITE, bytes, ptr::null_mut())
        }
        .map_err(ComputeError::cl("clCreateBuffer"))?;
        Ok(RawMem {
            buffer,
            elem,
            len,
            device: device.clone(),
        })
    }
}

/// A buffer of `T` on a device. A compute actor whose output type is `Mem<T>` leaves its result
/// on the device, and one whose input type is `Mem<T>` reads it there, so a chain of compute
/// actors on one device copies nothing to the host between them; the `Mem` is an ordinary value
/// and may pass through CPU actors on its way. Cloning shares the buffer (a reference count);
/// the buffer is released when the last clone is dropped.
pub struct Mem<T: Elem> {
    pub(crate) raw: Arc<RawMem>,
    _elem: PhantomData<fn() -> T>,
}

impl<T: Elem> Clone for Mem<T> {
    fn clone(&self) -> Self {
        Mem::from_raw(self.raw.clone())
    }
}

impl<T: Elem> Mem<T> {
    pub(crate) fn from_raw(raw: Arc<RawMem>) -> Mem<T> {
        debug_assert_eq!(raw.elem, T::TYPE);
        Mem {
            raw,
            _elem: PhantomData,
        }
    }

    /// Copies `data` into a new buffer on `device` (a blocking write).
    ///
    /// # Errors
    /// [`ComputeError::BadRequest`] for empty data; [`ComputeError::OpenCl`] when the buffer
    /// cannot be made or written.
    pub fn from_slice(device: &Device, data: &[T]) -> Result<Mem<T>, ComputeError> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let mut raw = RawMem::alloc(device, T::TYPE, data.len(), bytes.len())?;
        // SAFETY: a blocking write of `bytes.len()` bytes, the buffer's size, from a live slice.
        unsafe {
            device
                .queue()
                .enqueue_write_buffer(&mut raw.buffer, CL_BLOCKING, 0, bytes, &[])
        }
        .map_err(ComputeError::cl("clEnqueueWriteBuffer"))?;
        Ok(Mem::from_raw(Arc::new(raw)))
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.raw.len
    }

    /// Whether it holds no element (never true: empty buffers are refused).
    pub fn is_empty(&self) -> bool {
        self.raw.len == 0
    }

    /// The device the buffer lives on.
    pub fn device(&self) -> &Device {
        &self.raw.device
    }

    /// Copies the buffer back to the host. This blocks the calling thread until the device's
    /// queue has reached the read; in an actor's handler prefer a compute actor whose output is
    /// a `Vec<T>`, which replies without blocking.
    ///
    /// # Errors
    /// [`ComputeError::OpenCl`] when the read fails.
    pub fn read(&self) -> Result<Vec<T>, ComputeError> {
        let mut out = vec![T::zeroed(); self.raw.len];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut out);
        // SAFETY: a blocking read into a live slice of exactly the buffer's size.
        unsafe {
            self.raw.device.queue().enqueue_read_buffer(
                &self.raw.buffer,
                CL_BLOCKING,
                0,
                bytes,
                &[],
            )
        }
        .map_err(ComputeError::cl("clEnqueueReadBuffer"))?;
        Ok(out)
    }
}

impl<T: Elem> fmt::Debug for Mem<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Mem<{}>[{}] on {}",
            T::TYPE,
            self.raw.len,
            self.raw.device.info().name
        )
    }
}

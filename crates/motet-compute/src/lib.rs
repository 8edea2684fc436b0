//! motet-compute: OpenCL kernels as motet actors, after CAF's OpenCL actors (`spawn_cl`).
//!
//! A [`Kernel`] (source, kernel name, one [`Arg`] spec per parameter, work dimensions) spawns an
//! ordinary actor whose address is an [`Addr<Request<I, O>>`](motet_actor::Addr): a request
//! carries the inputs `I` (buffers as `Vec<T>`, `Arc<[T]>` or device-resident [`Mem<T>`], and
//! scalars), the reply the outputs `O` (`Vec<T>` read back, or `Mem<T>` left on the device).
//! The Rust types are checked against the specs, and the specs against the compiled kernel's
//! parameters, when the actor is spawned.
//!
//! The pieces, each in a module of its own:
//! - devices ([`devices`], [`Device`], [`DeviceSelector`]): listing, choice (first GPU, else
//!   first CPU), one context and one in-order command queue per device, programs compiled once
//!   per device and source;
//! - specs ([`Arg`], [`Shape`], [`WorkSize`]) and value types ([`Inputs`], [`Outputs`],
//!   [`Mem`]);
//! - the actor: its handler enqueues writes, the kernel and reads without waiting and returns;
//!   an OpenCL event callback answers the request when the launch completes, so no worker blocks
//!   while a kernel runs; several requests may be in flight, and replies leave in request order;
//! - errors ([`ComputeError`]): a build log when the source does not compile, an error reply for
//!   a request that does not fit the specs, an error (not a panic) when no device is found.
//!
//! OpenCL is loaded at run time (`libOpenCL.so.1`, or the paths in `OPENCL_DYLIB_PATH`), so the
//! crate builds on machines without it; there, spawning fails with [`ComputeError::NoDevice`].
#![warn(missing_docs)]

mod actor;
mod device;
mod elem;
mod error;
mod kernel;
mod launch;
mod mem;
mod order;
mod program;
mod spec;
mod values;

pub use actor::Request;
pub use device::{devices, Device, DeviceInfo, DeviceKind, DeviceSelector};
pub use elem::{Elem, ElemType};
pub use error::ComputeError;
pub use kernel::Kernel;
pub use mem::Mem;
pub use spec::{Arg, Shape, WorkSize};
pub use values::{InputValue, Inputs, OutputValue, Outputs, ValueKind};

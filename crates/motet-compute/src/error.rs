//! [`ComputeError`]: everything that can go wrong between a kernel's source and its reply.

use std::fmt;

use opencl3::error_codes::ClError;

/// Why a compute actor could not be spawned, or why a request got no outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ComputeError {
    /// No OpenCL device matched the selection (no loader, no platform, or no device of the kind
    /// asked for). Holds what was looked for and, if any, the loader's error.
    NoDevice(String),
    /// An OpenCL call failed.
    OpenCl {
        /// The operation that failed.
        op: &'static str,
        /// The OpenCL error code.
        code: i32,
    },
    /// The kernel's source did not compile; holds the compiler's build log.
    Build {
        /// The device the program was built for.
        device: String,
        /// The build log.
        log: String,
    },
    /// The program has no kernel of this name.
    NoSuchKernel {
        /// The name asked for.
        name: String,
        /// The kernels the program does have, separated by `;`.
        available: String,
    },
    /// The argument specs do not match the Rust types of the inputs and outputs, or the kernel's
    /// own parameter list (found at spawn).
    Spec(String),
    /// A request's values do not match the argument specs (wrong length, a device buffer of
    /// another device, an empty buffer): the request is refused with this error.
    BadRequest(String),
    /// The kernel or a transfer failed on the device (the event's negative status).
    Execution(i32),
}

impl ComputeError {
    pub(crate) fn cl(op: &'static str) -> impl FnOnce(ClError) -> ComputeError {
        move |e| ComputeError::OpenCl { op, code: e.0 }
    }
}

impl fmt::Display for ComputeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ComputeError::NoDevice(what) => write!(f, "no OpenCL device found: {what}"),
            ComputeError::OpenCl { op, code } => {
                write!(f, "OpenCL {op} failed: {}", ClError(*code))
            }
            ComputeError::Build { device, log } => {
                write!(
                    f,
                    "the kernel did not compile for {device}; build log:\n{log}"
                )
            }
            ComputeError::NoSuchKernel { name, available } => {
                write!(
                    f,
                    "the program has no kernel `{name}` (it has: {available})"
                )
            }
            ComputeError::Spec(why) => write!(f, "argument specs do not match: {why}"),
            ComputeError::BadRequest(why) => write!(f, "request refused: {why}"),
            ComputeError::Execution(code) => {
                write!(f, "the command failed on the device: {}", ClError(*code))
            }
        }
    }
}

impl std::error::Error for ComputeError {}

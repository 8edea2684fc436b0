//! One request's launch: buffers made and written, arguments set, the kernel enqueued, outputs
//! read back, all without waiting; and the event callback that reports its completion.
//!
//! Everything the device may still touch (host data being written, host vectors being read into,
//! device buffers) is owned by the [`Launch`], and the launch is owned by the completion callback
//! until OpenCL calls it: memory a pending command uses cannot be freed early, even if the actor
//! stops meanwhile. The device's queue is in order, so the completion of the launch's last
//! command means all of its commands are complete.

use std::ffi::c_void;
use std::sync::Arc;

use opencl3::event::{set_event_callback, Event, CL_COMPLETE};
use opencl3::kernel::{set_kernel_arg, Kernel as ClKernel};
use opencl3::memory::ClMem;
use opencl3::types::{cl_event, cl_int, CL_NON_BLOCKING};

use crate::device::Device;
use crate::error::ComputeError;
use crate::mem::RawMem;
use crate::spec::{Arg, Given, Role, Shape, WorkFn};
use crate::values::{InValue, OutDesc, OutValue};

/// What one launch owns until its commands complete.
pub(crate) struct Launch {
    /// The request's values (host data being written, device buffers given).
    inputs: Vec<InValue>,
    /// Device buffers made for this launch.
    buffers: Vec<Arc<RawMem>>,
    /// The outputs, in output order (host vectors being read into, device buffers).
    pub(crate) outputs: Vec<OutValue>,
    /// The events of the launch's commands, released once they completed.
    events: Vec<Event>,
    /// Whether any command was enqueued (so that memory may be in use by the device).
    enqueued: bool,
}

/// The fixed parts of a compute actor that a launch reads.
pub(crate) struct Plan<'a> {
    pub(crate) device: &'a Device,
    pub(crate) kernel: &'a ClKernel,
    pub(crate) args: &'a [Arg],
    pub(crate) work: &'a WorkFn,
    pub(crate) outputs: &'a [OutDesc],
}

impl Launch {
    /// Enqueues one request. On success, returns the launch and the event of its last command
    /// (owned by the launch). On failure the error comes with the launch too, and with an event
    /// (also owned by the launch) to wait for when some commands were already enqueued, whose
    /// memory must outlive them; `None` when nothing was enqueued.
    pub(crate) fn start(
        plan: &Plan<'_>,
        inputs: Vec<InValue>,
    ) -> (Launch, Result<cl_event, (ComputeError, Option<cl_event>)>) {
        let mut launch = Launch {
            inputs,
            buffers: Vec::new(),
            outputs: Vec::new(),
            events: Vec::new(),
            enqueued: false,
        };
        let result = match launch.enqueue(plan) {
            Ok(()) => Ok(launch.last_event()),
            Err(e) if !launch.enqueued => Err((e, None)),
            Err(e) => {
                // SAFETY: a marker with no wait list on the device's queue.
                match unsafe { plan.device.queue().enqueue_marker_with_wait_list(&[]) } {
                    Ok(marker) => {
                        launch.events.push(marker);
                        let _ = plan.device.queue().flush();
                        Err((e, Some(launch.last_event())))
                    }
                    Err(_) => {
                        // Nothing to be told about: wait here (an error path only) so that
                        // the memory the enqueued commands use is not freed under them.
                        let _ = plan.device.queue().finish();
                        Err((e, None))
                    }
                }
            }
        };
        (launch, result)
    }

    fn last_event(&self) -> cl_event {
        self.events
            .last()
            .expect("an enqueued command's event")
            .get()
    }

    fn enqueue(&mut self, plan: &Plan<'_>) -> Result<(), ComputeError> {
        let given = self.given(plan)?;
        let shape = Shape { given: &given };
        let work = (plan.work)(&shape);
        work.check().map_err(ComputeError::BadRequest)?;
        // The values stay owned by the launch whatever happens below: a write may have been
        // enqueued from one of them before a later step fails.
        let inputs = std::mem::take(&mut self.inputs);
        let buffers = self.set_args(plan, &inputs, &shape);
        self.inputs = inputs;
        let buffers = buffers?;
        let kernel_event = self.enqueue_kernel(plan, &work)?;
        self.events.push(kernel_event);
        self.read_outputs(plan, &buffers)?;
        plan.device
            .queue()
            .flush()
            .map_err(ComputeError::cl("clFlush"))
    }

    /// Sets every argument; returns each argument's buffer, if it has one.
    fn set_args(
        &mut self,
        plan: &Plan<'_>,
        inputs: &[InValue],
        shape: &Shape<'_>,
    ) -> Result<Vec<Option<Arc<RawMem>>>, ComputeError> {
        let mut values = inputs.iter();
        let mut buffers = Vec::with_capacity(plan.args.len());
        for (index, arg) in plan.args.iter().enumerate() {
            let value = if arg.takes_input() {
                values.next()
            } else {
                None
            };
            buffers.push(self.set_arg(plan, index, arg, value, shape)?);
        }
        Ok(buffers)
    }

    /// What the request gives for each argument, after checking it against the specs.
    fn given(&self, plan: &Plan<'_>) -> Result<Vec<Given>, ComputeError> {
        let mut values = self.inputs.iter();
        let mut given = Vec::with_capacity(plan.args.len());
        for (index, arg) in plan.args.iter().enumerate() {
            if !arg.takes_input() {
                given.push(Given::Nothing);
                continue;
            }
            let g = match values.next() {
                Some(InValue::Host(h)) => Given::Len(h.len()),
                Some(InValue::Device(raw)) => {
                    if !raw.device.same_as(plan.device) {
                        return Err(ComputeError::BadRequest(format!(
                            "argument {index}: the device buffer belongs to another device \
                             or context ({}) than the kernel ({})",
                            raw.device.info().name,
                            plan.device.info().name
                        )));
                    }
                    Given::Len(raw.len)
                }
                Some(InValue::Scalar(b, _)) => Given::Scalar(*b, arg.elem),
                None => return Err(ComputeError::BadRequest("too few input values".into())),
            };
            if matches!(g, Given::Len(0)) {
                return Err(ComputeError::BadRequest(format!(
                    "argument {index}: an empty buffer"
                )));
            }
            given.push(g);
        }
        let shape = Shape { given: &given };
        for (index, arg) in plan.args.iter().enumerate() {
            if let Role::Input { expect: Some(f) } | Role::InOut { expect: Some(f) } = &arg.role {
                let (want, got) = (f(&shape), shape.len(index));
                if want != got {
                    return Err(ComputeError::BadRequest(format!(
                        "argument {index} ({}): {got} elements given, {want} expected",
                        arg.describe()
                    )));
                }
            }
        }
        Ok(given)
    }

    /// Sets argument `index`, making and writing its buffer if it needs one.
    fn set_arg(
        &mut self,
        plan: &Plan<'_>,
        index: usize,
        arg: &Arg,
        value: Option<&InValue>,
        shape: &Shape<'_>,
    ) -> Result<Option<Arc<RawMem>>, ComputeError> {
        let i = index as u32;
        let buffer = match (&arg.role, value) {
            (Role::Scalar, Some(InValue::Scalar(bytes, n))) => {
                // SAFETY: `bytes` holds the scalar's `n` bytes, of the spec's element type
                // (checked against the input type at spawn).
                unsafe { set_kernel_arg(plan.kernel.get(), i, *n, bytes.as_ptr().cast()) }
                    .map_err(|code| ComputeError::OpenCl {
                        op: "clSetKernelArg",
                        code,
                    })?;
                return Ok(None);
            }
            (Role::Local { len }, None) => {
                let bytes = len(shape) * arg.elem.size();
                if bytes == 0 {
                    return Err(ComputeError::BadRequest(format!(
                        "argument {index}: local memory of 0 bytes"
                    )));
                }
                // SAFETY: a local buffer's size, with a null value as OpenCL requires.
                unsafe { plan.kernel.set_arg_local_buffer(i, bytes) }
                    .map_err(ComputeError::cl("clSetKernelArg"))?;
                return Ok(None);
            }
            (Role::Input { .. } | Role::InOut { .. }, Some(InValue::Device(raw))) => raw.clone(),
            (Role::Input { .. } | Role::InOut { .. }, Some(InValue::Host(host))) => {
                let bytes = host.bytes();
                let mut raw = RawMem::alloc(plan.device, arg.elem, host.len(), bytes.len())?;
                // SAFETY: a non-blocking write of the buffer's whole size from host data this
                // launch owns until its commands complete (see the module docs).
                let ev = unsafe {
                    plan.device.queue().enqueue_write_buffer(
                        &mut raw.buffer,
                        CL_NON_BLOCKING,
                        0,
                        bytes,
                        &[],
                    )
                }
                .map_err(ComputeError::cl("clEnqueueWriteBuffer"))?;
                self.enqueued = true;
                self.events.push(ev);
                let raw = Arc::new(raw);
                self.buffers.push(raw.clone());
                raw
            }
            (Role::Output { len }, None) => {
                let n = len(shape);
                if n == 0 {
                    return Err(ComputeError::BadRequest(format!(
                        "argument {index}: an output of 0 elements"
                    )));
                }
                let raw = Arc::new(RawMem::alloc(
                    plan.device,
                    arg.elem,
                    n,
                    n * arg.elem.size(),
                )?);
                self.buffers.push(raw.clone());
                raw
            }
            _ => {
                return Err(ComputeError::BadRequest(format!(
                    "argument {index}: the value does not fit the spec ({})",
                    arg.describe()
                )))
            }
        };
        let mem = buffer.buffer.get();
        // SAFETY: a buffer argument is its `cl_mem` handle, which `buffer` keeps alive.
        unsafe { plan.kernel.set_arg(i, &mem) }.map_err(ComputeError::cl("clSetKernelArg"))?;
        Ok(Some(buffer))
    }

    fn enqueue_kernel(
        &mut self,
        plan: &Plan<'_>,
        work: &crate::WorkSize,
    ) -> Result<Event, ComputeError> {
        let global = work.global();
        let local = work.local_size().map_or(std::ptr::null(), |l| l.as_ptr());
        let offset = work
            .global_offset()
            .map_or(std::ptr::null(), |o| o.as_ptr());
        // SAFETY: `global`, `local` and `offset` have `global.len()` (1 to 3, checked) entries
        // or are null; every argument of the kernel was set above.
        let ev = unsafe {
            plan.device.queue().enqueue_nd_range_kernel(
                plan.kernel.get(),
                global.len() as u32,
                offset,
                global.as_ptr(),
                local,
                &[],
            )
        }
        .map_err(ComputeError::cl("clEnqueueNDRangeKernel"))?;
        self.enqueued = true;
        Ok(ev)
    }

    /// Enqueues the reads of host outputs and records every output.
    fn read_outputs(
        &mut self,
        plan: &Plan<'_>,
        buffers: &[Option<Arc<RawMem>>],
    ) -> Result<(), ComputeError> {
        let mut descs = plan.outputs.iter();
        for (arg, buffer) in plan.args.iter().zip(buffers) {
            if !arg.gives_output() {
                continue;
            }
            let (Some(desc), Some(raw)) = (descs.next(), buffer) else {
                return Err(ComputeError::Spec("outputs and specs disagree".into()));
            };
            if let crate::ValueKind::Device(_) = desc.kind {
                self.outputs.push(OutValue::Device(raw.clone()));
                continue;
            }
            let mut host = (desc.alloc)(raw.len);
            // SAFETY: a non-blocking read of the buffer's whole size into a host vector of the
            // same size, which this launch owns until its commands complete.
            let ev = unsafe {
                plan.device.queue().enqueue_read_buffer(
                    &raw.buffer,
                    CL_NON_BLOCKING,
                    0,
                    host.bytes_mut(),
                    &[],
                )
            }
            .map_err(ComputeError::cl("clEnqueueReadBuffer"))?;
            self.events.push(ev);
            self.outputs.push(OutValue::Host(host));
        }
        Ok(())
    }

    /// Drops what the launch held on the device side, keeping its outputs.
    pub(crate) fn into_outputs(self) -> Vec<OutValue> {
        self.outputs
    }
}

/// What a completion callback runs: given the event's status.
type Notify = Box<dyn FnOnce(cl_int) + Send>;

/// Calls `notify` with the status of `event` once it completes (or fails), on whatever thread
/// OpenCL uses for callbacks.
///
/// # Errors
/// The callback could not be registered; `notify` is handed back, not called.
pub(crate) fn on_complete(event: cl_event, notify: Notify) -> Result<(), (ComputeError, Notify)> {
    let data = Box::into_raw(Box::new(notify));
    match set_event_callback(event, CL_COMPLETE, trampoline, data.cast()) {
        Ok(()) => Ok(()),
        Err(code) => {
            // SAFETY: registration failed, so OpenCL will never call `trampoline` with `data`;
            // the box is still ours.
            let notify = unsafe { Box::from_raw(data) };
            Err((
                ComputeError::OpenCl {
                    op: "clSetEventCallback",
                    code,
                },
                *notify,
            ))
        }
    }
}

extern "C" fn trampoline(_event: cl_event, status: cl_int, data: *mut c_void) {
    // SAFETY: `data` is the `Box<Notify>` leaked by `on_complete`; OpenCL calls a registered
    // callback exactly once, so the box is taken back exactly once.
    let notify = unsafe { Box::from_raw(data.cast::<Notify>()) };
    notify(status);
}

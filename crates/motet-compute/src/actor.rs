//! The compute actor: an [`Actor`] whose handler enqueues a kernel launch and returns at once.
//! The launch's completion is reported by an OpenCL event callback, which records the outcome in
//! the actor's reply order ([`ReplyOrder`], `order.rs`) and answers the requests that are due,
//! so replies leave in request order and no worker waits for the device.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use motet_actor::{Actor, Context, Reply};
use opencl3::kernel::Kernel as ClKernel;
use opencl3::types::cl_int;

use crate::device::Device;
use crate::error::ComputeError;
use crate::launch::{on_complete, Launch, Plan};
use crate::order::{ReplyOrder, ReplyTo};
use crate::spec::{Arg, WorkFn};
use crate::values::{Inputs, OutDesc, Outputs};

/// The message a compute actor takes: a request's inputs and where its reply goes. Build it with
/// [`Request::new`] inside [`Addr::ask`](motet_actor::Addr::ask), or with [`Request::then`] to
/// have the outcome passed to a function (which may `tell` another actor, so a CPU actor needs
/// no blocking wait).
pub struct Request<I: Inputs, O: Outputs> {
    inputs: I,
    reply: ReplyTo<O>,
}

impl<I: Inputs, O: Outputs> Request<I, O> {
    /// A request whose outcome answers an ask:
    /// `addr.ask(|r| Request::new(inputs, r), timeout)`.
    pub fn new(inputs: I, reply: Reply<Result<O, ComputeError>>) -> Request<I, O> {
        Request {
            inputs,
            reply: ReplyTo::Ask(reply),
        }
    }

    /// A request whose outcome is passed to `then` once the outputs are ready, on the thread
    /// that completes it (OpenCL's callback thread, or the compute actor's worker for a refused
    /// request). Keep it short: typically a `tell` to the actor that wants the outputs.
    pub fn then(
        inputs: I,
        then: impl FnOnce(Result<O, ComputeError>) + Send + 'static,
    ) -> Request<I, O> {
        Request {
            inputs,
            reply: ReplyTo::Then(Box::new(then)),
        }
    }
}

impl<I: Inputs, O: Outputs> fmt::Debug for Request<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Request(..)")
    }
}

/// A kernel as an actor.
pub(crate) struct ComputeActor<I: Inputs, O: Outputs> {
    pub(crate) device: Device,
    pub(crate) kernel: ClKernel,
    pub(crate) args: Arc<[Arg]>,
    pub(crate) work: WorkFn,
    pub(crate) outputs: Vec<OutDesc>,
    order: Arc<ReplyOrder<O>>,
    _inputs: PhantomData<fn(I)>,
}

impl<I: Inputs, O: Outputs> ComputeActor<I, O> {
    pub(crate) fn new(
        device: Device,
        kernel: ClKernel,
        args: Arc<[Arg]>,
        work: WorkFn,
        outputs: Vec<OutDesc>,
    ) -> Self {
        ComputeActor {
            device,
            kernel,
            args,
            work,
            outputs,
            order: Arc::new(ReplyOrder::new()),
            _inputs: PhantomData,
        }
    }

    fn run(&mut self, inputs: I, reply: ReplyTo<O>) {
        let seq = self.order.push(reply);
        let plan = Plan {
            device: &self.device,
            kernel: &self.kernel,
            args: &self.args,
            work: &self.work,
            outputs: &self.outputs,
        };
        let (launch, started) = Launch::start(&plan, inputs.into_values());
        let (event, refusal) = match started {
            Ok(event) => (event, None),
            Err((e, Some(event))) => (event, Some(e)),
            Err((e, None)) => {
                self.order.finish(seq, Err(e));
                return;
            }
        };
        let order = self.order.clone();
        let notify: Box<dyn FnOnce(cl_int) + Send> = match refusal {
            // Commands were enqueued before the error: the launch's memory is released once
            // they complete, and the request is answered with the error then, in its turn.
            Some(e) => Box::new(move |_status| {
                drop(launch);
                order.finish(seq, Err(e));
            }),
            None => Box::new(move |status| {
                let outcome = if status < 0 {
                    Err(ComputeError::Execution(status))
                } else {
                    O::from_values(launch.into_outputs()).ok_or_else(|| {
                        ComputeError::Spec("the outputs do not fit their types".into())
                    })
                };
                order.finish(seq, outcome);
            }),
        };
        if let Err((e, notify)) = on_complete(event, notify) {
            // No callback will come: wait here (an error path only) until the commands are
            // done, then release their memory and answer with the error.
            let _ = self.device.queue().finish();
            drop(notify);
            self.order.finish(seq, Err(e));
        }
    }
}

impl<I: Inputs, O: Outputs> Actor for ComputeActor<I, O> {
    type Msg = Request<I, O>;

    fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: Request<I, O>) {
        self.run(msg.inputs, msg.reply);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::{Arg, ComputeError, Device, DeviceSelector, Kernel, Mem, Request, WorkSize};

    const COPY: &str = "__kernel void copy(__global const int* x, __global int* y) {
        y[get_global_id(0)] = x[get_global_id(0)];
    }";

    #[test]
    fn a_device_buffer_of_another_device_is_refused() {
        let rt = motet_runtime::Runtime::builder()
            .workers(1)
            .build()
            .unwrap();
        let here = Device::select(&DeviceSelector::Default).expect("an OpenCL device");
        let elsewhere = Device::open_unshared(&DeviceSelector::Default).unwrap();
        assert!(!here.same_as(&elsewhere));
        let copy = Kernel::new(COPY, "copy")
            .arg(Arg::input::<i32>())
            .arg(Arg::output::<i32>(|s| s.len(0)))
            .work(|s| WorkSize::new([s.len(0)]))
            .on(&here)
            .spawn::<Mem<i32>, Vec<i32>>(rt.handle())
            .unwrap();
        let ask = |m: Mem<i32>| {
            copy.ask(|r| Request::new(m, r), Duration::from_secs(120))
                .wait()
                .unwrap()
        };
        let foreign = Mem::from_slice(&elsewhere, &[1, 2, 3]).unwrap();
        let err = ask(foreign).unwrap_err();
        assert!(
            matches!(&err, ComputeError::BadRequest(m) if m.contains("another device")),
            "{err}"
        );
        let local = Mem::from_slice(&here, &[1, 2, 3]).unwrap();
        assert_eq!(ask(local).unwrap(), vec![1, 2, 3]);
    }
}

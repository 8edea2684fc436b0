//! The compute actor: an [`Actor`] whose handler enqueues a kernel launch and returns at once;
//! the launch's completion comes back to it as a message, and it replies in request order.
//!
//! Requests are numbered as they arrive. Each gets an entry in the in-flight queue, which a
//! completion (or an immediate refusal) marks as finished; finished entries at the front of the
//! queue are answered. A refused request therefore waits for the requests before it, and every
//! reply leaves in the order the requests came.

use std::collections::VecDeque;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use motet_actor::{Actor, Addr, Context, Reply};
use opencl3::kernel::Kernel as ClKernel;
use opencl3::types::cl_int;

use crate::device::Device;
use crate::error::ComputeError;
use crate::launch::{on_complete, Launch, Plan};
use crate::spec::{Arg, WorkFn};
use crate::values::{Inputs, OutDesc, Outputs};

/// The message a compute actor takes: a request's inputs and where its reply goes. Build it with
/// [`Request::new`] inside [`Addr::ask`], or with [`Request::then`] to have the outcome passed
/// to a function (which may `tell` another actor, so a CPU actor needs no blocking wait).
pub struct Request<I: Inputs, O: Outputs>(pub(crate) Inner<I, O>);

pub(crate) enum Inner<I, O> {
    Run {
        inputs: I,
        reply: ReplyTo<O>,
    },
    Done {
        seq: u64,
        status: cl_int,
        launch: Box<Launch>,
    },
}

/// Where a request's outcome goes.
pub(crate) enum ReplyTo<O> {
    Ask(Reply<Result<O, ComputeError>>),
    Then(Box<dyn FnOnce(Result<O, ComputeError>) + Send>),
}

impl<O> ReplyTo<O> {
    fn send(self, result: Result<O, ComputeError>) {
        match self {
            ReplyTo::Ask(reply) => {
                let _ = reply.send(result);
            }
            ReplyTo::Then(f) => f(result),
        }
    }
}

impl<I: Inputs, O: Outputs> Request<I, O> {
    /// A request whose outcome answers an ask:
    /// `addr.ask(|r| Request::new(inputs, r), timeout)`.
    pub fn new(inputs: I, reply: Reply<Result<O, ComputeError>>) -> Request<I, O> {
        Request(Inner::Run {
            inputs,
            reply: ReplyTo::Ask(reply),
        })
    }

    /// A request whose outcome is passed to `then`, on the compute actor's worker, once the
    /// outputs are ready (keep it short: typically a `tell` to the actor that wants them).
    pub fn then(
        inputs: I,
        then: impl FnOnce(Result<O, ComputeError>) + Send + 'static,
    ) -> Request<I, O> {
        Request(Inner::Run {
            inputs,
            reply: ReplyTo::Then(Box::new(then)),
        })
    }
}

impl<I: Inputs, O: Outputs> fmt::Debug for Request<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Inner::Run { .. } => f.write_str("Request::Run"),
            Inner::Done { seq, status, .. } => write!(f, "Request::Done({seq}, {status})"),
        }
    }
}

/// One request between its arrival and its reply.
struct InFlight<O> {
    reply: ReplyTo<O>,
    outcome: Option<Result<O, ComputeError>>,
}

/// A kernel as an actor.
pub(crate) struct ComputeActor<I: Inputs, O: Outputs> {
    pub(crate) device: Device,
    pub(crate) kernel: ClKernel,
    pub(crate) args: Arc<[Arg]>,
    pub(crate) work: WorkFn,
    pub(crate) outputs: Vec<OutDesc>,
    in_flight: VecDeque<InFlight<O>>,
    /// The number of the request at the front of `in_flight`.
    front_seq: u64,
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
            in_flight: VecDeque::new(),
            front_seq: 0,
            _inputs: PhantomData,
        }
    }

    fn run(&mut self, ctx: &Context<'_, Self>, inputs: I, reply: ReplyTo<O>) {
        let seq = self.front_seq + self.in_flight.len() as u64;
        self.in_flight.push_back(InFlight {
            reply,
            outcome: None,
        });
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
                self.finish(seq, Err(e));
                return;
            }
        };
        if let Some(e) = refusal {
            // Commands were enqueued before the error: the launch's memory is released once
            // they complete, and the request is answered with the error now.
            let notify = Box::new(move |_status| drop(launch));
            if let Err((_, notify)) = on_complete(event, notify) {
                let _ = self.device.queue().finish();
                drop(notify);
            }
            self.finish(seq, Err(e));
            return;
        }
        let launch = Box::new(launch);
        let myself: Addr<Request<I, O>> = ctx.myself();
        let runtime = ctx.runtime().clone();
        let notify = Box::new(move |status| {
            // If the actor has stopped, the message (and the launch in it) is dropped here,
            // after the commands completed.
            let _ = myself.tell(Request(Inner::Done {
                seq,
                status,
                launch,
            }));
            // The address may be the actor's last, and the runtime may have shut down: dropping
            // it then frees the actor's cell and its runtime handle from inside the runtime's
            // drain of its injector. The runtime handle held here keeps the runtime's state alive
            // until that drain has returned.
            drop(myself);
            drop(runtime);
        });
        if let Err((e, notify)) = on_complete(event, notify) {
            let _ = self.device.queue().finish();
            drop(notify);
            self.finish(seq, Err(e));
        }
    }

    fn done(&mut self, seq: u64, status: cl_int, launch: Launch) {
        let outcome = if status < 0 {
            Err(ComputeError::Execution(status))
        } else {
            O::from_values(launch.into_outputs())
                .ok_or_else(|| ComputeError::Spec("the outputs do not fit their types".into()))
        };
        self.finish(seq, outcome);
    }

    /// Records request `seq`'s outcome and answers every finished request at the front.
    fn finish(&mut self, seq: u64, outcome: Result<O, ComputeError>) {
        let Some(slot) = seq
            .checked_sub(self.front_seq)
            .and_then(|i| self.in_flight.get_mut(i as usize))
        else {
            return;
        };
        slot.outcome = Some(outcome);
        while self.in_flight.front().is_some_and(|f| f.outcome.is_some()) {
            let f = self.in_flight.pop_front().expect("front exists");
            self.front_seq += 1;
            f.reply.send(f.outcome.expect("finished"));
        }
    }
}

impl<I: Inputs, O: Outputs> Actor for ComputeActor<I, O> {
    type Msg = Request<I, O>;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Request<I, O>) {
        match msg.0 {
            Inner::Run { inputs, reply } => self.run(ctx, inputs, reply),
            Inner::Done {
                seq,
                status,
                launch,
            } => self.done(seq, status, *launch),
        }
    }
}

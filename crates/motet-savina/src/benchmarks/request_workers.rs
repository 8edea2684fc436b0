//! The reactor scaffolding that Concurrent Dictionary and Concurrent Sorted Linked List share
//! (LF's ports of both): a Manager whose `do_work` starts E workers and which sends `end` once
//! every worker has reported `finished`, and the bank of E workers, each keeping one request
//! outstanding to a server that answers on a multiport, channel i to worker i.
//!
//! The server itself (the Dictionary, the List) stays with its benchmark; the Manager is built
//! before it and the workers after it, in the order of LF's ports.

use motet_reactor::{
    Ctx, Input, InputMultiport, Output, OutputMultiport, Ports, ProgramBuilder, ReactorId,
};

use crate::reactor_support;

/// What a worker asks its server, and what it notes of the answers.
pub(crate) trait Client: Send + 'static {
    /// A request to the server.
    type Request: Send + Sync + 'static;
    /// The server's answer to one request.
    type Response: Send + Sync + 'static;

    /// The next request to send.
    fn next_request(&mut self) -> Self::Request;

    /// Notes the message that woke the worker, before the worker counts it: `response` is the
    /// server's answer, if the message was one (not `do_work`).
    fn answered(&mut self, ctx: &Ctx<'_>, response: Input<Self::Response>);
}

/// A worker's state: its [`Client`] and the messages it got (`do_work` and the answers).
pub(crate) struct Worker<C> {
    /// What the worker asks, and what it noted of the answers.
    pub(crate) client: C,
    /// Messages received; the answers are one fewer.
    pub(crate) count: u64,
}

/// The Manager's ports, for the server and the workers to connect to.
pub(crate) struct Manager {
    /// Reaches every worker at startup.
    do_work: Output<()>,
    /// Channel i: worker i has finished.
    finished: InputMultiport<()>,
    /// Set once every worker has finished; the caller connects it to the server.
    pub(crate) end: Output<()>,
}

/// Builds the Manager of `e` workers.
pub(crate) fn manager(b: &mut ProgramBuilder, e: usize) -> Manager {
    let manager = b.reactor("manager", 0usize);
    let do_work = b.output::<(), _>(manager, "do_work");
    let finished = b.input_multiport::<(), _>(manager, "finished", e);
    let end = b.output::<(), _>(manager, "end");
    reactor_support::at_startup(b, manager, do_work, |ctx, port| ctx.set(port, ()));
    b.reaction(manager, "count")
        .trigger(finished)
        .effect(end)
        .body(move |ended: &mut usize, ctx| {
            *ended += ctx.present_count(finished);
            if *ended == e {
                ctx.set(end, ());
            }
        });
    Manager {
        do_work,
        finished,
        end,
    }
}

/// Builds the bank of `e` workers, worker `id` asking what `client(id)` gives: on `do_work` and
/// on every answer it sends its next request to `requests` while it has sent at most `limit`,
/// then reports `finished` to the Manager instead. Connects the workers to the Manager and to
/// the server's `requests` and `responses`, and returns them in bank order.
pub(crate) fn workers<C: Client>(
    b: &mut ProgramBuilder,
    manager: &Manager,
    limit: u64,
    requests: InputMultiport<C::Request>,
    responses: OutputMultiport<C::Response>,
    mut client: impl FnMut(usize) -> C,
) -> Vec<ReactorId<Worker<C>>> {
    let e = requests.width();
    let workers = b.bank(e, |b, id| {
        let r = b.reactor(
            &format!("worker[{id}]"),
            Worker {
                client: client(id),
                count: 0,
            },
        );
        let do_work_in = b.input::<(), _>(r, "do_work");
        let response = b.input::<C::Response, _>(r, "response");
        let request = b.output::<C::Request, _>(r, "request");
        let done = b.output::<(), _>(r, "finished");
        b.reaction(r, "next")
            .trigger(do_work_in)
            .trigger(response)
            .effect(request)
            .effect(done)
            .body(move |w: &mut Worker<C>, ctx| {
                w.client.answered(ctx, response);
                w.count += 1;
                if w.count <= limit {
                    ctx.set(request, w.client.next_request());
                } else {
                    ctx.set(done, ());
                }
            });
        (r, do_work_in, response, request, done)
    });
    b.connect_broadcast(
        manager.do_work,
        workers.iter().map(|x| x.1).collect::<Ports<()>>(),
    );
    b.connect(responses, workers.iter().map(|x| x.2).collect::<Ports<_>>());
    b.connect(workers.iter().map(|x| x.3).collect::<Ports<_>>(), requests);
    b.connect(
        workers.iter().map(|x| x.4).collect::<Ports<_>>(),
        manager.finished,
    );
    workers.into_iter().map(|x| x.0).collect()
}

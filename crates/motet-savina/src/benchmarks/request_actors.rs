//! The motet-actor scaffolding that Concurrent Dictionary and Concurrent Sorted Linked List share
//! (Savina's flow for both, SPEC.md sections 3.8 and 3.9): the Master creates the server and the E
//! workers as it starts and sends each `DoWork`; a worker keeps one request outstanding, carrying
//! its address, which the server answers; on its (M + 1)-th message it sends `EndWork` to the
//! Master and stops; after E of them the Master sends `EndWork` to the server.
//!
//! What the server keeps ([`Serve`]: the Dictionary, the List) and what a worker asks ([`Client`])
//! stay with the benchmark.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

/// A server's messages.
pub(crate) enum ServerMsg<Q, R: Send + 'static> {
    /// A worker's request, with the worker to answer.
    Request {
        from: Addr<WorkerMsg<R>>,
        request: Q,
    },
    /// From the Master once every worker has ended.
    EndWork,
}

/// A worker's messages.
pub(crate) enum WorkerMsg<R> {
    /// From the Master: start asking.
    DoWork,
    /// The server's answer.
    Result(R),
}

/// A worker's `EndWork`, to the Master.
pub(crate) struct EndWork;

/// What the server keeps and how it answers.
pub(crate) trait Serve: Send + 'static {
    /// A worker's request.
    type Request: Send + 'static;
    /// The answer to one request.
    type Response: Send + 'static;

    /// Serves one request.
    fn serve(&mut self, request: Self::Request) -> Self::Response;

    /// Reports what the server ended with (on the Master's `EndWork`).
    fn end(&mut self);
}

/// What a worker asks, and what it notes of the answers.
pub(crate) trait Client: Send + 'static {
    /// A request to the server.
    type Request: Send + 'static;
    /// The server's answer to one request.
    type Response: Send + 'static;

    /// The next request to send.
    fn next_request(&mut self) -> Self::Request;

    /// Notes the message that woke the worker, before the worker counts it.
    fn answered(&mut self, msg: WorkerMsg<Self::Response>);

    /// Reports what the worker did as it stops: `answers` answers reached it.
    fn finished(&mut self, answers: u64);
}

/// What one run creates: the server, and each worker's client.
pub(crate) trait Plan: Send + 'static {
    /// The server's state.
    type Server: Serve;
    /// A worker's client.
    type Client: Client<
        Request = <Self::Server as Serve>::Request,
        Response = <Self::Server as Serve>::Response,
    >;

    /// The server, as the Master starts (inside the timed run, as in Savina).
    fn server(&self) -> Self::Server;

    /// Worker `id`'s client.
    fn client(&self, id: usize) -> Self::Client;
}

/// One run: spawns the Master on `rt`, which creates the server and `workers` workers of `limit`
/// requests each, and waits until every actor has ended.
pub(crate) fn run<P: Plan>(rt: &Runtime, plan: P, workers: usize, limit: u64) {
    let master = spawn(
        rt.handle(),
        Master {
            plan,
            workers,
            limit,
            ended: 0,
            server: None,
        },
    );
    drop(master);
    rt.wait_quiescent();
}

type ServerAddr<P> = Addr<
    ServerMsg<<<P as Plan>::Server as Serve>::Request, <<P as Plan>::Server as Serve>::Response>,
>;

struct Server<S>(S);

impl<S: Serve> Actor for Server<S> {
    type Msg = ServerMsg<S::Request, S::Response>;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Self::Msg) {
        match msg {
            ServerMsg::Request { from, request } => {
                let response = self.0.serve(request);
                let _ = from.send(WorkerMsg::Result(response));
            }
            ServerMsg::EndWork => {
                self.0.end();
                ctx.stop();
            }
        }
    }
}

struct Master<P: Plan> {
    plan: P,
    workers: usize,
    limit: u64,
    ended: usize,
    server: Option<ServerAddr<P>>,
}

impl<P: Plan> Actor for Master<P> {
    type Msg = EndWork;

    /// Creates the server and the workers, and starts the workers.
    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        let server = ctx.spawn(Server(self.plan.server()));
        for id in 0..self.workers {
            let worker = ctx.spawn(Worker {
                client: self.plan.client(id),
                limit: self.limit,
                count: 0,
                server: server.clone(),
                master: ctx.myself(),
            });
            let _ = worker.send(WorkerMsg::DoWork);
        }
        self.server = Some(server);
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, EndWork: EndWork) {
        self.ended += 1;
        if self.ended == self.workers {
            if let Some(server) = self.server.take() {
                let _ = server.send(ServerMsg::EndWork);
            }
            ctx.stop();
        }
    }
}

struct Worker<C: Client> {
    client: C,
    limit: u64,
    count: u64,
    server: Addr<ServerMsg<C::Request, C::Response>>,
    master: Addr<EndWork>,
}

impl<C: Client> Actor for Worker<C> {
    type Msg = WorkerMsg<C::Response>;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Self::Msg) {
        self.client.answered(msg);
        self.count += 1;
        if self.count <= self.limit {
            let _ = self.server.tell(ServerMsg::Request {
                from: ctx.myself(),
                request: self.client.next_request(),
            });
        } else {
            let _ = self.master.tell(EndWork);
            self.client.finished(self.count - 1);
            ctx.stop();
        }
    }
}

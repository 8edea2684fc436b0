//! Compute actors on the machine's OpenCL device (PoCL's CPU device in CI): results, requests in
//! flight, replies in order, device-buffer chaining through a CPU actor, workers kept free.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use motet_actor::{spawn, Actor, Addr, Context, Reply};
use motet_compute::{Arg, ComputeError, Kernel, Mem, Request, WorkSize};
use motet_runtime::Runtime;

const LONG: Duration = Duration::from_secs(120);

const ADD: &str = "
__kernel void add(__global const float* a, __global const float* b, __global float* c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}";

const MATMUL: &str = "
__kernel void matmul(__global const float* a, __global const float* b, __global float* c,
                     uint n) {
    size_t row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (uint k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}";

fn runtime(workers: usize) -> Runtime {
    Runtime::builder().workers(workers).build().unwrap()
}

type Add = Addr<Request<(Vec<f32>, Vec<f32>), Vec<f32>>>;

fn adder(rt: &Runtime) -> Add {
    Kernel::new(ADD, "add")
        .arg(Arg::input::<f32>())
        .arg(Arg::input::<f32>().expect_len(|s| s.len(0)))
        .arg(Arg::output::<f32>(|s| s.len(0)))
        .work(|s| WorkSize::new([s.len(0)]))
        .spawn(rt.handle())
        .expect("an OpenCL device (install pocl-opencl-icd)")
}

#[test]
fn a_kernel_answers_an_ask() {
    let rt = runtime(2);
    let add = adder(&rt);
    let a: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..1000).map(|i| (2 * i) as f32).collect();
    let c = add
        .ask(|r| Request::new((a.clone(), b.clone()), r), LONG)
        .wait()
        .unwrap()
        .unwrap();
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(c, want);
}

fn seq_matmul(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0.0f32;
            for k in 0..n {
                acc += a[row * n + k] * b[k * n + col];
            }
            c[row * n + col] = acc;
        }
    }
    c
}

#[test]
fn matmul_with_a_scalar_and_two_dimensions_matches_the_sequential_product() {
    let rt = runtime(2);
    let mm = Kernel::new(MATMUL, "matmul")
        .arg(Arg::input::<f32>())
        .arg(Arg::input::<f32>())
        .arg(Arg::output::<f32>(|s| s.len(0)))
        .arg(Arg::scalar::<u32>())
        .work(|s| WorkSize::new([s.scalar_usize(3), s.scalar_usize(3)]))
        .spawn::<(Arc<[f32]>, Arc<[f32]>, u32), Vec<f32>>(rt.handle())
        .unwrap();
    let n = 33;
    let a: Arc<[f32]> = (0..n * n).map(|i| (i % 7) as f32).collect();
    let b: Arc<[f32]> = (0..n * n).map(|i| (i % 5) as f32 - 2.0).collect();
    let c = mm
        .ask(|r| Request::new((a.clone(), b.clone(), n as u32), r), LONG)
        .wait()
        .unwrap()
        .unwrap();
    assert_eq!(c, seq_matmul(&a, &b, n));
}

#[test]
fn many_requests_in_flight_are_answered_in_request_order() {
    let rt = runtime(2);
    let add = adder(&rt);
    let got = Arc::new(Mutex::new(Vec::new()));
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let count = 64;
    for i in 0..count {
        let got = got.clone();
        let done_tx = done_tx.clone();
        // Request 17 is refused (its second buffer is short); it must still come in its turn.
        let b = if i == 17 {
            vec![1.0; 10]
        } else {
            vec![i as f32; 4096]
        };
        let req = Request::then((vec![1.0f32; 4096], b), move |r| {
            let v = r.map(|c: Vec<f32>| c[4095]);
            got.lock().unwrap().push((i, v));
            let _ = done_tx.send(());
        });
        add.tell(req).unwrap();
    }
    for _ in 0..count {
        done_rx
            .recv_timeout(LONG)
            .expect("every request is answered");
    }
    let got = got.lock().unwrap();
    for (k, (i, v)) in got.iter().enumerate() {
        assert_eq!(*i, k, "replies leave in request order");
        match v {
            Ok(x) => assert_eq!(*x, 1.0 + *i as f32),
            Err(e) => {
                assert_eq!(*i, 17);
                assert!(matches!(e, ComputeError::BadRequest(_)), "{e}");
            }
        }
    }
    assert!(got[17].1.is_err());
}

// A chain: `square` leaves its output on the device, a CPU actor passes the buffer on, and
// `plus_one` reads it there and replies to the CPU actor's requester.
const SQUARE: &str = "
__kernel void square(__global const int* x, __global int* y) {
    size_t i = get_global_id(0);
    y[i] = x[i] * x[i];
}
__kernel void plus_one(__global const int* y, __global int* z) {
    size_t i = get_global_id(0);
    z[i] = y[i] + 1;
}";

type Square = Addr<Request<Vec<i32>, Mem<i32>>>;
type PlusOne = Addr<Request<Mem<i32>, Vec<i32>>>;

struct Middle {
    square: Square,
    plus_one: PlusOne,
    hops: Arc<Mutex<Vec<String>>>,
}

enum MiddleMsg {
    Run(Vec<i32>, Reply<Result<Vec<i32>, ComputeError>>),
    Squared(
        Result<Mem<i32>, ComputeError>,
        Reply<Result<Vec<i32>, ComputeError>>,
    ),
}

impl Actor for Middle {
    type Msg = MiddleMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: MiddleMsg) {
        match msg {
            MiddleMsg::Run(x, reply) => {
                let me = ctx.myself();
                let req = Request::then(x, move |r| {
                    let _ = me.tell(MiddleMsg::Squared(r, reply));
                });
                let _ = self.square.tell(req);
            }
            MiddleMsg::Squared(Err(e), reply) => {
                let _ = reply.send(Err(e));
            }
            MiddleMsg::Squared(Ok(mem), reply) => {
                self.hops.lock().unwrap().push(format!("{mem:?}"));
                let req = Request::then(mem, move |r| {
                    let _ = reply.send(r);
                });
                let _ = self.plus_one.tell(req);
            }
        }
    }
}

fn chain_kernels(rt: &Runtime) -> (Square, PlusOne) {
    let len = |s: &motet_compute::Shape<'_>| s.len(0);
    let square = Kernel::new(SQUARE, "square")
        .arg(Arg::input::<i32>())
        .arg(Arg::output::<i32>(len))
        .work(move |s| WorkSize::new([len(s)]))
        .spawn(rt.handle())
        .unwrap();
    let plus_one = Kernel::new(SQUARE, "plus_one")
        .arg(Arg::input::<i32>())
        .arg(Arg::output::<i32>(len))
        .work(move |s| WorkSize::new([len(s)]))
        .spawn(rt.handle())
        .unwrap();
    (square, plus_one)
}

#[test]
fn device_buffers_chain_compute_actors_through_a_cpu_actor() {
    let rt = runtime(2);
    let (square, plus_one) = chain_kernels(&rt);
    let hops = Arc::new(Mutex::new(Vec::new()));
    let middle = spawn(
        rt.handle(),
        Middle {
            square,
            plus_one,
            hops: hops.clone(),
        },
    );
    let x: Vec<i32> = (-500..500).collect();
    let z = middle
        .ask(|r| MiddleMsg::Run(x.clone(), r), LONG)
        .wait()
        .unwrap()
        .unwrap();
    let want: Vec<i32> = x.iter().map(|v| v * v + 1).collect();
    assert_eq!(z, want);
    let hops = hops.lock().unwrap();
    assert_eq!(hops.len(), 1);
    assert!(hops[0].starts_with("Mem<int>[1000]"), "{}", hops[0]);
}

#[test]
fn a_device_output_can_be_read_back_and_fed_again() {
    let rt = runtime(1);
    let (square, plus_one) = chain_kernels(&rt);
    let mem = square
        .ask(|r| Request::new(vec![3, 4, 5], r), LONG)
        .wait()
        .unwrap()
        .unwrap();
    assert_eq!(mem.read().unwrap(), vec![9, 16, 25]);
    let uploaded = Mem::from_slice(mem.device(), &[1, 2]).unwrap();
    let out = plus_one
        .ask(|r| Request::new(uploaded, r), LONG)
        .wait()
        .unwrap()
        .unwrap();
    assert_eq!(out, vec![2, 3]);
}

const SCALE_IN_PLACE: &str = "
__kernel void scale(__global float* x, float k) {
    size_t i = get_global_id(0);
    x[i] = x[i] * k;
}";

#[test]
fn an_in_out_buffer_comes_back_updated() {
    let rt = runtime(1);
    let scale = Kernel::new(SCALE_IN_PLACE, "scale")
        .arg(Arg::in_out::<f32>())
        .arg(Arg::scalar::<f32>())
        .work(|s| WorkSize::new([s.len(0)]))
        .spawn::<(Vec<f32>, f32), Vec<f32>>(rt.handle())
        .unwrap();
    let out = scale
        .ask(|r| Request::new((vec![1.0, 2.0, 3.0], 2.5), r), LONG)
        .wait()
        .unwrap()
        .unwrap();
    assert_eq!(out, vec![2.5, 5.0, 7.5]);
}

const GROUP_SUM: &str = "
__kernel void group_sum(__global const uint* x, __global uint* sums, __local uint* scratch) {
    size_t l = get_local_id(0), n = get_local_size(0);
    scratch[l] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        uint s = 0;
        for (size_t i = 0; i < n; i++) s += scratch[i];
        sums[get_group_id(0)] = s;
    }
}";

#[test]
fn local_memory_and_a_work_group_size_computed_from_the_request() {
    let rt = runtime(1);
    let group = 16;
    let sum = Kernel::new(GROUP_SUM, "group_sum")
        .arg(Arg::input::<u32>())
        .arg(Arg::output::<u32>(move |s| s.len(0) / group))
        .arg(Arg::local::<u32>(move |_| group))
        .work(move |s| WorkSize::new([s.len(0)]).local([group]))
        .spawn::<Vec<u32>, Vec<u32>>(rt.handle())
        .unwrap();
    let x: Vec<u32> = (0..128).collect();
    let sums = sum
        .ask(|r| Request::new(x.clone(), r), LONG)
        .wait()
        .unwrap()
        .unwrap();
    let want: Vec<u32> = x.chunks(group).map(|c| c.iter().sum()).collect();
    assert_eq!(sums, want);
}

const SPIN: &str = "
__kernel void spin(__global uint* out, uint rounds) {
    uint x = get_global_id(0) + 1;
    for (uint i = 0; i < rounds; i++) x = x * 1664525u + 1013904223u;
    out[get_global_id(0)] = x;
}";

struct Echo;
impl Actor for Echo {
    type Msg = (u32, Reply<u32>);
    fn handle(&mut self, _: &mut Context<'_, Self>, (n, r): (u32, Reply<u32>)) {
        let _ = r.send(n + 1);
    }
}

#[test]
fn a_running_kernel_does_not_hold_the_only_worker() {
    // One worker: if the compute actor waited for its kernel, the echo could not answer first.
    let rt = runtime(1);
    let spin = Kernel::new(SPIN, "spin")
        .arg(Arg::output::<u32>(|_| 4))
        .arg(Arg::scalar::<u32>())
        .work_size(WorkSize::new([4]))
        .spawn::<u32, Vec<u32>>(rt.handle())
        .unwrap();
    let echo = spawn(rt.handle(), Echo);
    let finished = Arc::new(Mutex::new(None));
    let (tx, rx) = std::sync::mpsc::channel();
    let f = finished.clone();
    spin.tell(Request::then(400_000_000, move |r| {
        *f.lock().unwrap() = Some(r.is_ok());
        let _ = tx.send(());
    }))
    .unwrap();
    for i in 0..100 {
        assert_eq!(echo.ask(|r| (i, r), LONG).wait().unwrap(), i + 1);
    }
    assert_eq!(
        *finished.lock().unwrap(),
        None,
        "the kernel (hundreds of millions of rounds) outlasts 100 echoes"
    );
    rx.recv_timeout(LONG).unwrap();
    assert_eq!(*finished.lock().unwrap(), Some(true));
}

#[test]
fn requests_in_flight_are_answered_after_the_last_address_is_dropped() {
    let rt = runtime(2);
    let add = adder(&rt);
    let exit = add.watch();
    let (tx, rx) = std::sync::mpsc::channel();
    for i in 0..10 {
        let tx = tx.clone();
        let req = Request::then((vec![i as f32; 100_000], vec![1.0; 100_000]), move |r| {
            let _ = tx.send((i, r.map(|c: Vec<f32>| c[99_999])));
        });
        add.tell(req).unwrap();
    }
    drop(add);
    let reason = exit
        .wait_timeout(LONG)
        .expect("the actor stops once unreachable");
    assert!(
        matches!(reason, motet_actor::ExitReason::Unreachable),
        "{reason:?}"
    );
    for k in 0..10 {
        let (i, r) = rx.recv_timeout(LONG).expect("every request is answered");
        assert_eq!(i, k);
        assert_eq!(r.unwrap(), i as f32 + 1.0);
    }
}

//! Matrix multiplication, N x N (after the CAF paper's OpenCL benchmark): the same kernel through a
//! compute actor (`actor`) and called directly through `opencl3` in a loop on one thread
//! (`direct`: the same buffer creation, writes, launch, wait and read per multiplication), and
//! the product computed by motet CPU actors that split the rows over the workers (`cpu-actors`);
//! on request also `direct-callback`, the direct loop waiting for an event callback.
//! Every result is compared with a sequential multiply; the matrices hold small integers, so every
//! variant's result is exact and must be equal.
//!
//! ```text
//! cargo run --release -p motet-compute --example matmul -- --json matmul.json --max-n 512
//! ```
//!
//! Writes one record per variant and size: `{"variant", "n", "median_ms", "validated", ...}`,
//! `median_ms` being the median time of one multiplication (inputs in host memory, output back in
//! host memory) over the rounds. The variants are timed in rounds, one call of each per round,
//! so that a busy machine slows them alike; the actor's record also has `paired_overhead_us`,
//! the median over the rounds of its time minus the direct loop's.

use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use motet_actor::{spawn, Actor, Addr, Context, Reply};
use motet_compute::{Arg, Device, DeviceSelector, Kernel, Request, WorkSize};
use motet_runtime::Runtime;
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context as ClContext;
use opencl3::event::CL_COMPLETE;
use opencl3::kernel::Kernel as ClKernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY};
use opencl3::program::Program;
use opencl3::types::{cl_event, cl_int, CL_BLOCKING, CL_NON_BLOCKING};
use serde::Serialize;

const SOURCE: &str = "
__kernel void matmul(__global const float* a, __global const float* b, __global float* c,
                     uint n) {
    size_t row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (uint k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}";

#[derive(Parser)]
struct Args {
    /// Write the records as a JSON array to this file.
    #[arg(long)]
    json: Option<String>,
    /// The largest N (sizes are 64, 128, ... up to 2048).
    #[arg(long, default_value_t = 2048)]
    max_n: usize,
    /// The smallest N.
    #[arg(long, default_value_t = 64)]
    min_n: usize,
    /// Timed rounds per size, after one warm-up; a round calls each variant once, so all
    /// variants see the same load (more rounds at small sizes, until 200 ms have passed).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Variants to run, comma-separated: actor, direct, cpu-actors, and direct-callback (the
    /// direct loop waiting for the read's completion callback instead of a blocking read: how
    /// much of the actor's overhead is OpenCL's callback delivery), and ask-echo (an ask of a CPU
    /// actor that computes nothing: the messaging alone; its record's `validated` is trivially
    /// true).
    #[arg(long, default_value = "actor,direct,cpu-actors")]
    variants: String,
    /// Runtime workers (default: the machine's cores).
    #[arg(long)]
    workers: Option<usize>,
    /// Device index as `clinfo -l` lists them (default: first GPU, else first CPU).
    #[arg(long)]
    device: Option<usize>,
}

#[derive(Serialize)]
struct Record {
    variant: String,
    n: usize,
    median_ms: f64,
    validated: bool,
    /// Timed repetitions.
    reps: usize,
    device: String,
    /// For the actor: the median, over the rounds, of its time minus the direct loop's time in
    /// the same round, in microseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    paired_overhead_us: Option<f64>,
}

fn matrices(n: usize) -> (Arc<[f32]>, Arc<[f32]>) {
    let a = (0..n * n).map(|i| ((i * 7 + 3) % 7) as f32).collect();
    let b = (0..n * n).map(|i| ((i * 5 + 1) % 5) as f32 - 2.0).collect();
    (a, b)
}

/// Rows `rows` of the product (i-k-j order).
fn multiply_rows(a: &[f32], b: &[f32], n: usize, rows: std::ops::Range<usize>) -> Vec<f32> {
    let mut c = vec![0.0f32; rows.len() * n];
    for (r, row) in rows.enumerate() {
        let out = &mut c[r * n..(r + 1) * n];
        for k in 0..n {
            let x = a[row * n + k];
            for (o, y) in out.iter_mut().zip(&b[k * n..(k + 1) * n]) {
                *o += x * y;
            }
        }
    }
    c
}

/// Runs every variant once (the warm-up, whose results are validated), then in rounds, one call
/// of each variant per round, so that all of them see the same machine at the same time: at
/// least `reps` rounds and 200 ms. The times of each variant, round by round.
#[allow(clippy::type_complexity)]
fn measure_rounds(
    reps: usize,
    runners: &mut [Box<dyn FnMut() -> Vec<f32> + '_>],
) -> (Vec<Vec<Duration>>, Vec<Vec<f32>>) {
    let firsts = runners.iter_mut().map(|f| f()).collect();
    let mut times = vec![Vec::new(); runners.len()];
    let start = Instant::now();
    let mut rounds = 0;
    while rounds < reps || start.elapsed() < Duration::from_millis(200) {
        for (f, t) in runners.iter_mut().zip(&mut times) {
            let at = Instant::now();
            std::hint::black_box(f());
            t.push(at.elapsed());
        }
        rounds += 1;
        if rounds >= 10_000 {
            break;
        }
    }
    (times, firsts)
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

type MatMul = Addr<Request<(Arc<[f32]>, Arc<[f32]>, u32), Vec<f32>>>;

fn actor_variant(rt: &Runtime, device: &Device) -> MatMul {
    Kernel::new(SOURCE, "matmul")
        .arg(Arg::input::<f32>())
        .arg(Arg::input::<f32>().expect_len(|s| s.len(0)))
        .arg(Arg::output::<f32>(|s| s.len(0)))
        .arg(Arg::scalar::<u32>())
        .work(|s| WorkSize::new([s.scalar_usize(3), s.scalar_usize(3)]))
        .on(device)
        .spawn(rt.handle())
        .unwrap_or_else(|e| panic!("spawning the compute actor: {e}"))
}

/// The same kernel through `opencl3` alone, on its own context and queue.
struct Direct {
    queue: CommandQueue,
    kernel: ClKernel,
    context: ClContext,
}

impl Direct {
    fn new(device: &Device) -> Direct {
        let platforms = opencl3::platform::get_platforms().expect("a platform");
        let ids: Vec<_> = platforms
            .iter()
            .flat_map(|p| {
                p.get_devices(opencl3::device::CL_DEVICE_TYPE_ALL)
                    .unwrap_or_default()
            })
            .collect();
        let id = ids[device.info().index];
        let context = ClContext::from_device(&opencl3::device::Device::new(id)).unwrap();
        // SAFETY: the device is the context's.
        let queue = unsafe { CommandQueue::create_with_properties(&context, id, 0, 0) }.unwrap();
        let program = Program::create_and_build_from_source(&context, SOURCE, "").unwrap();
        let kernel = ClKernel::create(&program, "matmul").unwrap();
        Direct {
            queue,
            kernel,
            context,
        }
    }

    /// One multiplication; with `callback`, the read is non-blocking and the thread waits for its
    /// event's completion callback instead (the way a compute actor learns of it).
    fn multiply(&self, a: &[f32], b: &[f32], n: usize, callback: bool) -> Vec<f32> {
        let len = n * n;
        let mut c = vec![0.0f32; len];
        // SAFETY: buffers of `len` floats without host pointers; writes and the read cover
        // exactly that size from and into live slices; the read blocks, and the queue is in
        // order, so every command is complete when it returns.
        unsafe {
            let mut ba =
                Buffer::<f32>::create(&self.context, CL_MEM_READ_ONLY, len, ptr::null_mut())
                    .unwrap();
            let mut bb =
                Buffer::<f32>::create(&self.context, CL_MEM_READ_ONLY, len, ptr::null_mut())
                    .unwrap();
            let bc = Buffer::<f32>::create(&self.context, CL_MEM_WRITE_ONLY, len, ptr::null_mut())
                .unwrap();
            let _wa = self
                .queue
                .enqueue_write_buffer(&mut ba, CL_NON_BLOCKING, 0, a, &[])
                .unwrap();
            let _wb = self
                .queue
                .enqueue_write_buffer(&mut bb, CL_NON_BLOCKING, 0, b, &[])
                .unwrap();
            let n32 = n as u32;
            self.kernel.set_arg(0, &ba.get()).unwrap();
            self.kernel.set_arg(1, &bb.get()).unwrap();
            self.kernel.set_arg(2, &bc.get()).unwrap();
            self.kernel.set_arg(3, &n32).unwrap();
            let global = [n, n];
            let _k = self
                .queue
                .enqueue_nd_range_kernel(
                    self.kernel.get(),
                    2,
                    ptr::null(),
                    global.as_ptr(),
                    ptr::null(),
                    &[],
                )
                .unwrap();
            let blocking = if callback {
                CL_NON_BLOCKING
            } else {
                CL_BLOCKING
            };
            let r = self
                .queue
                .enqueue_read_buffer(&bc, blocking, 0, &mut c, &[])
                .unwrap();
            if callback {
                self.queue.flush().unwrap();
                let (tx, rx) = std::sync::mpsc::sync_channel::<()>(1);
                let tx = Box::into_raw(Box::new(tx));
                r.set_callback(CL_COMPLETE, signal, tx.cast()).unwrap();
                rx.recv().unwrap();
            }
        }
        c
    }
}

extern "C" fn signal(_: cl_event, _: cl_int, data: *mut c_void) {
    // SAFETY: `data` is the boxed sender leaked by `multiply`, and this callback runs once.
    let tx = unsafe { Box::from_raw(data.cast::<std::sync::mpsc::SyncSender<()>>()) };
    let _ = tx.send(());
}

/// A CPU actor computing a band of rows.
struct Band;

type BandMsg = (
    Arc<[f32]>,
    Arc<[f32]>,
    usize,
    std::ops::Range<usize>,
    Reply<Vec<f32>>,
);

impl Actor for Band {
    type Msg = BandMsg;
    fn handle(&mut self, _: &mut Context<'_, Self>, (a, b, n, rows, reply): BandMsg) {
        let _ = reply.send(multiply_rows(&a, &b, n, rows));
    }
}

fn cpu_actors(bands: &[Addr<BandMsg>], a: &Arc<[f32]>, b: &Arc<[f32]>, n: usize) -> Vec<f32> {
    let per = n.div_ceil(bands.len());
    let asks: Vec<_> = bands
        .iter()
        .enumerate()
        .map(|(i, band)| {
            let rows = (i * per).min(n)..((i + 1) * per).min(n);
            let (a, b) = (a.clone(), b.clone());
            band.ask(move |r| (a, b, n, rows, r), Duration::from_secs(3600))
        })
        .collect();
    let mut c = Vec::with_capacity(n * n);
    for ask in asks {
        c.extend(ask.wait().expect("a band"));
    }
    c
}

fn main() {
    let args = Args::parse();
    let workers = args.workers.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    });
    let rt = Runtime::builder().workers(workers).build().unwrap();
    let selector = args
        .device
        .map_or(DeviceSelector::Default, DeviceSelector::Index);
    let device = motet_compute::Device::select(&selector).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let dname = device.info().name.clone();
    println!("device: {}; {workers} workers", device.info());
    let variants: Vec<&str> = args.variants.split(',').collect();
    let actor = actor_variant(&rt, &device);
    let direct = variants
        .iter()
        .any(|v| v.starts_with("direct"))
        .then(|| Direct::new(&device));
    let bands: Vec<_> = (0..workers).map(|_| spawn(rt.handle(), Band)).collect();
    let mut records = Vec::new();
    println!(
        "{:>6} {:>15} {:>12} {:>10}",
        "n", "variant", "median_ms", "validated"
    );
    let mut n = args.min_n.max(1);
    while n <= args.max_n.min(2048) {
        let (a, b) = matrices(n);
        let expect = multiply_rows(&a, &b, n, 0..n);
        let mut runners: Vec<Box<dyn FnMut() -> Vec<f32> + '_>> = Vec::new();
        for v in &variants {
            let (a, b) = (a.clone(), b.clone());
            runners.push(match *v {
                "actor" => {
                    let actor = &actor;
                    Box::new(move || {
                        let (a, b) = (a.clone(), b.clone());
                        actor
                            .ask(
                                move |r| Request::new((a, b, n as u32), r),
                                Duration::from_secs(3600),
                            )
                            .wait()
                            .expect("an answer")
                            .unwrap_or_else(|e| panic!("{e}"))
                    })
                }
                "direct" | "direct-callback" => {
                    let d = direct.as_ref().expect("made above");
                    let callback = *v == "direct-callback";
                    Box::new(move || d.multiply(&a, &b, n, callback))
                }
                "cpu-actors" => {
                    let bands = &bands;
                    Box::new(move || cpu_actors(bands, &a, &b, n))
                }
                "ask-echo" => {
                    let band = &bands[0];
                    Box::new(move || {
                        let (a, b) = (a.clone(), b.clone());
                        band.ask(move |r| (a, b, n, 0..0, r), Duration::from_secs(60))
                            .wait()
                            .expect("an answer")
                    })
                }
                other => panic!("unknown variant {other}"),
            });
        }
        let (times, firsts) = measure_rounds(args.reps, &mut runners);
        drop(runners);
        let ms =
            |t: &[Duration]| median(&t.iter().map(|d| d.as_secs_f64() * 1e3).collect::<Vec<_>>());
        let pos = |name: &str| variants.iter().position(|v| *v == name);
        for (i, v) in variants.iter().enumerate() {
            // The actor's overhead over the direct loop, round by round (the same load).
            let paired = match (*v, pos("direct")) {
                ("actor", Some(d)) => Some(median(
                    &times[i]
                        .iter()
                        .zip(&times[d])
                        .map(|(x, y)| (x.as_secs_f64() - y.as_secs_f64()) * 1e6)
                        .collect::<Vec<_>>(),
                )),
                _ => None,
            };
            let r = Record {
                variant: v.to_string(),
                n,
                median_ms: ms(&times[i]),
                validated: *v == "ask-echo" || firsts[i] == expect,
                reps: times[i].len(),
                device: if *v == "cpu-actors" || *v == "ask-echo" {
                    format!("{workers} CPU workers")
                } else {
                    dname.clone()
                },
                paired_overhead_us: paired,
            };
            let extra = paired.map_or(String::new(), |p| {
                format!("  actor - direct, paired by round: {p:+.1} us")
            });
            println!(
                "{:>6} {:>15} {:>12.4} {:>10}{extra}",
                n, r.variant, r.median_ms, r.validated
            );
            records.push(r);
        }
        n *= 2;
    }
    if let Some(path) = args.json {
        std::fs::write(&path, serde_json::to_string_pretty(&records).unwrap()).unwrap();
        println!("wrote {path}");
    }
    if records.iter().any(|r| !r.validated) {
        eprintln!("a result differs from the sequential multiply");
        std::process::exit(1);
    }
}

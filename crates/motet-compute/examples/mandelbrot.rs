//! Mandelbrot offloading (the CAF paper's experiment): one image split between CPU actors and a
//! compute actor, with 0, 25, 50, 75 and 100 % of the rows offloaded to the compute actor. The
//! two sides run at once; the time of a split is from sending the first part to receiving the
//! last. Every image's checksum must equal the sequential one: the kernel and the CPU code do
//! the same single-precision operations in the same order (the kernel with floating-point
//! contraction off), so the iteration counts agree exactly.
//!
//! ```text
//! cargo run --release -p motet-compute --example mandelbrot -- --width 1024 --height 768
//! ```

use std::time::{Duration, Instant};

use clap::Parser;
use motet_actor::{spawn, Actor, Addr, Ask, Context, Reply};
use motet_compute::{Arg, ComputeError, DeviceSelector, Kernel, Request, WorkSize};
use motet_runtime::Runtime;
use serde::Serialize;

const SOURCE: &str = "
#pragma OPENCL FP_CONTRACT OFF
__kernel void mandelbrot(__global uint* out, uint row0, float x0, float y0, float dx, float dy,
                         uint max_iter) {
    size_t col = get_global_id(0), r = get_global_id(1);
    float cx = x0 + (float)col * dx;
    float cy = y0 + (float)(row0 + r) * dy;
    float x = 0.0f, y = 0.0f;
    uint i = 0;
    while (i < max_iter) {
        float x2 = x * x, y2 = y * y;
        if (x2 + y2 > 4.0f) break;
        y = 2.0f * x * y + cy;
        x = x2 - y2 + cx;
        i++;
    }
    out[r * get_global_size(0) + col] = i;
}";

#[derive(Parser)]
struct Args {
    /// Image width in pixels.
    #[arg(long, default_value_t = 1024)]
    width: usize,
    /// Image height in pixels (rows).
    #[arg(long, default_value_t = 768)]
    height: usize,
    /// Iteration limit per pixel.
    #[arg(long, default_value_t = 512)]
    max_iter: u32,
    /// Timed repetitions per split (after one warm-up); the median is reported.
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Runtime workers, and CPU actors (default: the machine's cores).
    #[arg(long)]
    workers: Option<usize>,
    /// Device index as `clinfo -l` lists them (default: first GPU, else first CPU).
    #[arg(long)]
    device: Option<usize>,
    /// Write the records as a JSON array to this file.
    #[arg(long)]
    json: Option<String>,
}

#[derive(Clone, Copy)]
struct View {
    width: usize,
    x0: f32,
    y0: f32,
    dx: f32,
    dy: f32,
    max_iter: u32,
}

impl View {
    fn new(width: usize, height: usize, max_iter: u32) -> View {
        View {
            width,
            x0: -2.0,
            y0: -1.2,
            dx: 3.0 / width as f32,
            dy: 2.4 / height as f32,
            max_iter,
        }
    }

    /// Rows `rows`, sequentially, exactly as the kernel computes them.
    fn rows(&self, rows: std::ops::Range<usize>) -> Vec<u32> {
        let mut out = Vec::with_capacity(rows.len() * self.width);
        for row in rows {
            let cy = self.y0 + (row as u32) as f32 * self.dy;
            for col in 0..self.width {
                let cx = self.x0 + col as f32 * self.dx;
                let (mut x, mut y, mut i) = (0.0f32, 0.0f32, 0u32);
                while i < self.max_iter {
                    let (x2, y2) = (x * x, y * y);
                    if x2 + y2 > 4.0 {
                        break;
                    }
                    y = 2.0 * x * y + cy;
                    x = x2 - y2 + cx;
                    i += 1;
                }
                out.push(i);
            }
        }
        out
    }
}

/// FNV-1a over the iteration counts in row order.
fn checksum(image: &[u32]) -> u64 {
    image.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &v| {
        (h ^ u64::from(v)).wrapping_mul(0x100_0000_01b3)
    })
}

struct Band(View);

type BandMsg = (std::ops::Range<usize>, Reply<Vec<u32>>);

impl Actor for Band {
    type Msg = BandMsg;
    fn handle(&mut self, _: &mut Context<'_, Self>, (rows, reply): BandMsg) {
        let _ = reply.send(self.0.rows(rows));
    }
}

type Gpu = Addr<Request<(u32, f32, f32, f32, f32, u32), Vec<u32>>>;

enum Part {
    Cpu(Ask<Vec<u32>>),
    Device(Ask<Result<Vec<u32>, ComputeError>>),
}

/// The image with the first `offloaded` rows on the compute actor and the rest split over the
/// CPU actors.
fn render(
    view: &View,
    height: usize,
    offloaded: usize,
    gpu: &Gpu,
    bands: &[Addr<BandMsg>],
) -> Vec<u32> {
    let long = Duration::from_secs(3600);
    let mut parts = Vec::new();
    if offloaded > 0 {
        let v = *view;
        parts.push(Part::Device(gpu.ask(
            move |r| Request::new((0, v.x0, v.y0, v.dx, v.dy, v.max_iter), r),
            long,
        )));
    }
    let rest = height - offloaded;
    if rest > 0 {
        let per = rest.div_ceil(bands.len());
        for (i, band) in bands.iter().enumerate() {
            let rows = (offloaded + i * per).min(height)..(offloaded + (i + 1) * per).min(height);
            if !rows.is_empty() {
                parts.push(Part::Cpu(band.ask(move |r| (rows, r), long)));
            }
        }
    }
    let mut image = Vec::with_capacity(view.width * height);
    for part in parts {
        match part {
            Part::Cpu(ask) => image.extend(ask.wait().expect("a band")),
            Part::Device(ask) => image.extend(
                ask.wait()
                    .expect("an answer")
                    .unwrap_or_else(|e| panic!("{e}")),
            ),
        }
    }
    image
}

#[derive(Serialize)]
struct Record {
    offloaded_percent: usize,
    rows_offloaded: usize,
    median_ms: f64,
    checksum: String,
    validated: bool,
    reps: usize,
}

fn main() {
    let args = Args::parse();
    let workers = args.workers.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    });
    let rt = Runtime::builder().workers(workers).build().unwrap();
    let view = View::new(args.width, args.height, args.max_iter);
    let selector = args
        .device
        .map_or(DeviceSelector::Default, DeviceSelector::Index);
    let device = motet_compute::Device::select(&selector).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    println!(
        "device: {}; {workers} workers; {}x{} pixels, {} iterations at most",
        device.info(),
        args.width,
        args.height,
        args.max_iter
    );
    let t = Instant::now();
    let expect = checksum(&view.rows(0..args.height));
    println!(
        "sequential checksum {expect:016x} ({:.1} ms, one thread)",
        t.elapsed().as_secs_f64() * 1e3
    );
    let width = args.width;
    // The rows the compute actor renders are the request's work size; the height of its part is
    // fixed per split, so each split gets a compute actor of its own (sharing the program).
    let bands: Vec<_> = (0..workers)
        .map(|_| spawn(rt.handle(), Band(view)))
        .collect();
    let mut records = Vec::new();
    println!(
        "{:>9} {:>8} {:>12} {:>10}",
        "offloaded", "rows", "median_ms", "validated"
    );
    for percent in [0, 25, 50, 75, 100] {
        let offloaded = args.height * percent / 100;
        let gpu: Gpu = Kernel::new(SOURCE, "mandelbrot")
            .arg(Arg::output::<u32>(move |_| width * offloaded.max(1)))
            .args([
                Arg::scalar::<u32>(),
                Arg::scalar::<f32>(),
                Arg::scalar::<f32>(),
                Arg::scalar::<f32>(),
                Arg::scalar::<f32>(),
                Arg::scalar::<u32>(),
            ])
            .work(move |_| WorkSize::new([width, offloaded.max(1)]))
            .on(&device)
            .spawn(rt.handle())
            .unwrap_or_else(|e| panic!("{e}"));
        let first = render(&view, args.height, offloaded, &gpu, &bands);
        let mut times = Vec::new();
        for _ in 0..args.reps.max(1) {
            let t = Instant::now();
            std::hint::black_box(render(&view, args.height, offloaded, &gpu, &bands));
            times.push(t.elapsed());
        }
        times.sort();
        let sum = checksum(&first);
        let r = Record {
            offloaded_percent: percent,
            rows_offloaded: offloaded,
            median_ms: times[times.len() / 2].as_secs_f64() * 1e3,
            checksum: format!("{sum:016x}"),
            validated: sum == expect && first.len() == width * args.height,
            reps: times.len(),
        };
        println!(
            "{:>8}% {:>8} {:>12.2} {:>10}",
            percent, offloaded, r.median_ms, r.validated
        );
        records.push(r);
    }
    if let Some(path) = args.json {
        std::fs::write(&path, serde_json::to_string_pretty(&records).unwrap()).unwrap();
        println!("wrote {path}");
    }
    if records.iter().any(|r| !r.validated) {
        eprintln!("an image's checksum differs from the sequential one");
        std::process::exit(1);
    }
}

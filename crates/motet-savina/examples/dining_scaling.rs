//! The BoC paper's Dining Philosophers scaling experiment (section 5.4): BoC on motet, OS threads
//! with mutexes, and the ideal time, per worker count.
//!
//! ```text
//! cargo run --release -p motet-savina --example dining_scaling -- --workers 1,2
//! cargo run --release -p motet-savina --example dining_scaling -- --workers 1,2,4,8,16 --size small
//! ```
//!
//! See `motet_savina::dining_scaling` for the workload and what each column measures.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use motet_savina::dining_scaling::{boc, threads, Clock, Config};

#[derive(Clone, Copy, ValueEnum)]
enum Size {
    /// 100 philosophers, 100 meals of 1 ms each: 10 s of eating.
    Default,
    /// 100 philosophers, 10 meals of 1 ms each: 1 s of eating.
    Small,
}

/// Dining Philosophers scaling: BoC, mutex threads and the ideal time per worker count.
#[derive(Parser)]
struct Args {
    /// Worker counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    workers: Vec<usize>,
    /// The workload's size.
    #[arg(long, value_enum, default_value = "default")]
    size: Size,
    /// Philosophers around the table (overrides the size's).
    #[arg(long)]
    philosophers: Option<usize>,
    /// Meals per philosopher (overrides the size's).
    #[arg(long)]
    meals: Option<u64>,
    /// Microseconds a meal busy-waits (overrides the size's 1,000).
    #[arg(long)]
    eat_us: Option<u64>,
    /// Meals spin on wall-clock time rather than the thread's CPU time: BoC's time then shows the
    /// meals the runtime keeps in flight, whatever the machine's load.
    #[arg(long)]
    wall_clock: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut cfg = match args.size {
        Size::Default => Config::DEFAULT,
        Size::Small => Config::SMALL,
    };
    cfg.philosophers = args.philosophers.unwrap_or(cfg.philosophers);
    cfg.meals = args.meals.unwrap_or(cfg.meals);
    cfg.eat = args.eat_us.map(Duration::from_micros).unwrap_or(cfg.eat);
    if args.wall_clock {
        cfg.clock = Clock::Wall;
    }
    if let Err(e) = cfg.validate() {
        eprintln!("dining_scaling: {e}");
        return ExitCode::FAILURE;
    }
    if let Some(0) = args.workers.iter().copied().min() {
        eprintln!("dining_scaling: a worker count must be at least 1");
        return ExitCode::FAILURE;
    }
    println!(
        "{} philosophers, {} meals each, {} µs of {} time per meal: {:.3} s of eating",
        cfg.philosophers,
        cfg.meals,
        cfg.eat.as_micros(),
        match cfg.clock {
            Clock::Cpu => "CPU",
            Clock::Wall => "wall-clock",
        },
        cfg.total_eating().as_secs_f64()
    );
    println!(
        "{:>7}  {:>9}  {:>13}  {:>9}  {:>9}  {:>13}",
        "workers", "boc s", "mutex thr. s", "ideal s", "boc/ideal", "mutex/ideal"
    );
    let mut failed = false;
    for &workers in &args.workers {
        let ideal = cfg.ideal(workers).as_secs_f64();
        let boc = boc::run(&cfg, workers);
        let threads = threads::run(&cfg, workers);
        let cell = |r: &Result<Duration, String>| match r {
            Ok(d) => (
                format!("{:.3}", d.as_secs_f64()),
                format!("{:.3}", d.as_secs_f64() / ideal),
            ),
            Err(_) => ("failed".into(), "-".into()),
        };
        let (b, br) = cell(&boc);
        let (t, tr) = cell(&threads);
        println!("{workers:>7}  {b:>9}  {t:>13}  {ideal:>9.3}  {br:>9}  {tr:>13}");
        for (name, r) in [("boc", &boc), ("mutex threads", &threads)] {
            if let Err(e) = r {
                eprintln!("dining_scaling: {name} on {workers} workers: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

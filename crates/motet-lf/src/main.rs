//! The `motet-lf` command: `build FILE.lf`, `run FILE.lf [-- ARGS]`, `test DIR`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use clap::{Parser, Subcommand};
use motet_lf::project::{build_crate, generate_crate};
use motet_lf::suite::run_suite;

#[derive(Parser)]
#[command(
    name = "motet-lf",
    about = "Lingua Franca programs (Rust target) on motet"
)]
struct Cli {
    /// Where generated crates and the shared cargo target directory go.
    #[arg(long, global = true, default_value = "target/motet-lf")]
    out: PathBuf,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Generates and builds the program of an .lf file; prints the binary's path.
    Build {
        /// The .lf file with the main reactor.
        file: PathBuf,
    },
    /// Builds and runs the program of an .lf file.
    Run {
        /// The .lf file with the main reactor.
        file: PathBuf,
        /// Worker threads (default: the `workers` target property, else 1).
        #[arg(long)]
        workers: Option<usize>,
        /// Fast mode: do not wait for physical time.
        #[arg(long)]
        fast: bool,
        /// Stop at T0 + this time (`10 sec`, `500ms`).
        #[arg(long)]
        timeout: Option<String>,
        /// Arguments for the program (`--PARAM VALUE` for the main reactor's parameters).
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Builds and runs every .lf program under a folder (a lingua-franca checkout's
    /// `test/Rust/src`), printing PASS, FAIL or SKIP for each.
    Test {
        /// The folder.
        dir: PathBuf,
        /// Seconds a program may run.
        #[arg(long, default_value_t = 60)]
        limit: u64,
        /// Arguments for every program (`--workers 2`).
        #[arg(last = true)]
        args: Vec<String>,
    },
}

fn build(file: &Path, out: &Path) -> Result<PathBuf, String> {
    let (_, g) = generate_crate(file, out).map_err(|e| e.to_string())?;
    build_crate(&g, out, false)
        .map_err(|e| format!("the generated crate does not compile:\n{e}"))?;
    Ok(g.binary(out))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Build { file } => match build(&file, &cli.out) {
            Ok(bin) => {
                println!("{}", bin.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        },
        Cmd::Run {
            file,
            workers,
            fast,
            timeout,
            args,
        } => {
            let bin = match build(&file, &cli.out) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            };
            let mut cmd = Command::new(bin);
            if let Some(w) = workers {
                cmd.arg("--workers").arg(w.to_string());
            }
            if fast {
                cmd.arg("--fast");
            }
            if let Some(t) = timeout {
                cmd.arg("--timeout").arg(t);
            }
            cmd.args(args);
            match cmd.status() {
                Ok(s) if s.success() => ExitCode::SUCCESS,
                Ok(s) => ExitCode::from(u8::try_from(s.code().unwrap_or(1)).unwrap_or(1)),
                Err(e) => {
                    eprintln!("cannot run the program: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Cmd::Test { dir, limit, args } => {
            let (_, failed, _) = run_suite(&dir, &cli.out, Duration::from_secs(limit), &args);
            if failed > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
    }
}

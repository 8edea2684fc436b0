//! The CAF baseline of `remote_bench`: compiles `caf_bench.cpp` (next to this file) with g++
//! against libcaf-dev 0.17, starts it as server and as client on 127.0.0.1, and reads the client's
//! round-trip times and stream rate.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use motet_remote::testing::ChildGuard;

/// Bound on each step of a run (compile, start, ping-pong, stream).
const LONG: Duration = Duration::from_secs(300);

/// The C++ source, next to this file.
fn source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/caf/caf_bench.cpp")
}

/// Compiles the CAF program next to `exe` unless an up-to-date binary is there; why not, if it
/// cannot be built (no g++, no libcaf-dev).
fn build(exe: &Path) -> Result<PathBuf, String> {
    let src = source();
    let out = exe.with_file_name("caf_bench");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(b), Some(s)) = (modified(&out), modified(&src)) {
        if b >= s {
            return Ok(out);
        }
    }
    if !Path::new("/usr/include/caf/io/all.hpp").exists() {
        return Err("libcaf-dev (CAF 0.17 headers) is not installed".into());
    }
    eprintln!("compiling {} ...", src.display());
    let status = Command::new("g++")
        .args(["-O2", "-std=c++17"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .args(["-lcaf_io", "-lcaf_core", "-pthread"])
        .status()
        .map_err(|e| format!("running g++: {e}"))?;
    if !status.success() {
        return Err(format!("g++ failed ({status})"));
    }
    Ok(out)
}

/// Runs the CAF ping-pong and stream; round trips in nanoseconds, messages per second, and
/// whether every answer and the stream's count and order were right.
pub fn bench(
    exe: &Path,
    port: u16,
    warmup: usize,
    rtt_n: usize,
    stream_n: u64,
) -> Result<(Vec<u64>, f64, bool), String> {
    let bin = build(exe)?;
    let server = ChildGuard::spawn(&bin, &["serve".into(), port.to_string()])
        .map_err(|e| format!("starting the CAF server: {e}"))?;
    server
        .expect_line("READY", LONG)
        .ok_or("the CAF server did not start")?;
    let client = ChildGuard::spawn(
        &bin,
        &[
            "client".into(),
            port.to_string(),
            warmup.to_string(),
            rtt_n.to_string(),
            stream_n.to_string(),
        ],
    )
    .map_err(|e| format!("starting the CAF client: {e}"))?;
    let rtts: Vec<u64> = client
        .expect_line("RTTS", LONG)
        .ok_or("the CAF client gave no round-trip times")?
        .split_whitespace()
        .map(|v| v.parse().map_err(|e| format!("round-trip time {v:?}: {e}")))
        .collect::<Result<_, _>>()?;
    if rtts.len() != rtt_n {
        return Err(format!("{} round-trip times, {rtt_n} expected", rtts.len()));
    }
    let stream = client
        .expect_line("STREAM", LONG)
        .ok_or("the CAF client gave no stream result")?;
    let mut parts = stream.split_whitespace();
    let rate: f64 = parts
        .next()
        .and_then(|r| r.parse().ok())
        .ok_or("bad stream rate")?;
    let checked = parts.next() == Some("1");
    Ok((rtts, rate, checked))
}

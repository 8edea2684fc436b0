//! What the report says about where it was measured: the CPU, the cores, the memory, the compiler
//! and the date.
//!
//! On Linux the CPU model and the memory come from `/proc/cpuinfo` and `/proc/meminfo`; elsewhere
//! they are "unknown". The compiler is the `rustc --version` that built this binary (recorded by the
//! build script), the date is today's in UTC.

use std::time::{SystemTime, UNIX_EPOCH};

/// The machine and toolchain a run measured on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Machine {
    /// The CPU's model name.
    pub cpu: String,
    /// Cores available to the process (`available_parallelism`).
    pub cores: usize,
    /// Total memory in KiB, if known.
    pub memory_kib: Option<u64>,
    /// The operating system and architecture, e.g. `linux x86_64`.
    pub os: String,
    /// `rustc --version` of the compiler that built the binary.
    pub rustc: String,
    /// Today's date in UTC, `YYYY-MM-DD`.
    pub date: String,
}

impl Machine {
    /// The machine this process runs on.
    pub fn detect() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Machine {
            cpu: cpu_model(&cpuinfo).unwrap_or_else(|| "unknown CPU".to_string()),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            memory_kib: mem_total_kib(&meminfo),
            os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
            rustc: env!("MOTET_SAVINA_RUSTC").to_string(),
            date: date_of(secs),
        }
    }

    /// One line: `AMD EPYC, 2 cores, 23.4 GiB, linux x86_64`.
    pub fn summary(&self) -> String {
        let memory = self
            .memory_kib
            .map_or_else(|| "memory unknown".to_string(), |kib| gib(kib) + " memory");
        format!(
            "{}, {} core{}, {memory}, {}",
            self.cpu,
            self.cores,
            if self.cores == 1 { "" } else { "s" },
            self.os
        )
    }
}

/// KiB as GiB with one decimal, e.g. `23.4 GiB`.
fn gib(kib: u64) -> String {
    format!("{:.1} GiB", kib as f64 / (1024.0 * 1024.0))
}

/// The first `model name` of a `/proc/cpuinfo` text (`Hardware` or `cpu model` on some ARM and
/// MIPS kernels).
fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        let key = key.trim();
        let value = value.trim();
        let known = matches!(key, "model name" | "Hardware" | "cpu model");
        (known && !value.is_empty()).then(|| value.split_whitespace().collect::<Vec<_>>().join(" "))
    })
}

/// `MemTotal` of a `/proc/meminfo` text, in KiB.
fn mem_total_kib(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The UTC date of `secs` seconds after the Unix epoch, `YYYY-MM-DD` (the proleptic Gregorian
/// calendar, by the days-to-civil conversion).
pub fn date_of(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    // Shift the epoch to 0000-03-01 so that leap days fall at the end of a 400-year era's years.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::{cpu_model, date_of, mem_total_kib, Machine};

    #[test]
    fn dates_are_civil() {
        assert_eq!(date_of(0), "1970-01-01");
        assert_eq!(date_of(951_782_400), "2000-02-29");
        assert_eq!(date_of(1_709_164_800), "2024-02-29");
        assert_eq!(date_of(1_735_689_599), "2024-12-31");
        assert_eq!(date_of(1_735_689_600), "2025-01-01");
    }

    #[test]
    fn proc_files_are_read() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD  EPYC 7B13\n";
        assert_eq!(cpu_model(cpuinfo).as_deref(), Some("AMD EPYC 7B13"));
        assert_eq!(cpu_model("processor : 0\n"), None);
        let meminfo = "MemTotal:       24576000 kB\nMemFree:        1000 kB\n";
        assert_eq!(mem_total_kib(meminfo), Some(24_576_000));
        assert_eq!(mem_total_kib(""), None);
    }

    #[test]
    fn the_summary_names_cores_and_memory() {
        let m = Machine {
            cpu: "AMD EPYC".into(),
            cores: 2,
            memory_kib: Some(24 * 1024 * 1024),
            os: "linux x86_64".into(),
            rustc: "rustc 1.95.0".into(),
            date: "2026-01-01".into(),
        };
        assert_eq!(
            m.summary(),
            "AMD EPYC, 2 cores, 24.0 GiB memory, linux x86_64"
        );
        assert!(!Machine::detect().rustc.is_empty());
    }
}

//! `bare`: startup and a semihosting exit, no reactor runtime and no heap: the baseline whose
//! footprint `run-qemu.sh` subtracts from every other program's to give the runtime's share.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use motet_embedded::report;

#[entry]
fn main() -> ! {
    // The same report as every program prints: the formatting code is part of the baseline.
    report::finish("bare", "started", true)
}

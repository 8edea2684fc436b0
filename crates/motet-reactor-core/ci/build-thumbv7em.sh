#!/usr/bin/env bash
# Builds motet-reactor-core for thumbv7em-none-eabihf (Cortex-M4F), no_std + alloc.
#
# The rustup toolchain has no thumb targets and no rust-src, so the build uses Debian's Rust
# (rustc-web, cargo-web) and compiles `core` and `alloc` from Debian's sources (rust-web-src) with
# `-Z build-std`, which a stable compiler accepts under RUSTC_BOOTSTRAP=1. Missing packages are
# installed non-interactively (with sudo when not root). The host build is untouched: the target
# directory is separate and nothing is configured at the workspace level.
set -euo pipefail
cd "$(dirname "$0")/../../.."

TARGET=thumbv7em-none-eabihf
PACKAGES=(rustc-web cargo-web rust-web-src lld)

bash .ci/apt-install.sh "${PACKAGES[@]}"

# Debian's cargo and rustc, not rustup's proxies.
export PATH=/usr/bin:/bin
export RUSTC=/usr/bin/rustc
export RUSTC_BOOTSTRAP=1
unset RUSTFLAGS CARGO_BUILD_TARGET
# Debian's cargo may predate debug = "line-tables-only", which CI sets for the host workspace.
unset CARGO_PROFILE_DEV_DEBUG CARGO_PROFILE_TEST_DEBUG CARGO_PROFILE_RELEASE_DEBUG CARGO_PROFILE_BENCH_DEBUG
rustc --version
cargo --version

cargo build -p motet-reactor-core --release --target "$TARGET" \
    -Z build-std=core,alloc \
    --target-dir target/thumbv7em
echo "built: target/thumbv7em/$TARGET/release/libmotet_reactor_core.rlib"

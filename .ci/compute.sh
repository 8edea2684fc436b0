#!/usr/bin/env bash
# motet-compute (OpenCL kernels as actors): installs the OpenCL ICD loader and PoCL (a CPU OpenCL
# implementation), lists the devices, runs the crate's tests and both benchmark examples at small
# sizes (they exit non-zero if a result does not validate), and prints the step's time.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
bash .ci/apt-install.sh ocl-icd-libopencl1 ocl-icd-opencl-dev pocl-opencl-icd clinfo
clinfo -l
cargo test -p motet-compute
cargo clippy -p motet --features opencl --all-targets -- -D warnings
cargo run --release -p motet-compute --example matmul -- --max-n 128 --reps 3 \
    --json target/ci-compute-matmul.json
cargo run --release -p motet-compute --example mandelbrot -- --width 256 --height 128 \
    --max-iter 256 --reps 2 --json target/ci-compute-mandelbrot.json
echo "motet-compute step: $((SECONDS - start)) s"

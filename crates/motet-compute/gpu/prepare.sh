#!/usr/bin/env bash
# Prepares a run of both benchmarks on a machine with an NVIDIA GPU that has the driver but maybe
# no package registry: builds the two examples in release mode and copies them, with the OpenCL
# ICD loader (`libOpenCL.so.1`) of this machine, into target/compute-gpu/ (a few MB), the folder
# to carry to the GPU machine together with this script's sibling run.sh.
#
#   bash crates/motet-compute/gpu/prepare.sh
#   # then, on the GPU machine, from the repository root:
#   bash crates/motet-compute/gpu/run.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/../../.."
bash .ci/apt-install.sh ocl-icd-libopencl1
cargo build --release -p motet-compute --example matmul --example mandelbrot
dest=target/compute-gpu
rm -rf "$dest"
mkdir -p "$dest/lib"
cp target/release/examples/matmul target/release/examples/mandelbrot "$dest/"
strip "$dest/matmul" "$dest/mandelbrot" 2>/dev/null || true
loader=$(ldconfig -p | awk '/libOpenCL\.so\.1 .*x86-64/ {print $NF; exit}')
[ -n "$loader" ] || { echo "libOpenCL.so.1 not found (install ocl-icd-libopencl1)"; exit 1; }
cp -L "$loader" "$dest/lib/libOpenCL.so.1"
du -sh "$dest"

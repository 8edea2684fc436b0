#!/usr/bin/env bash
# Runs both benchmarks on an NVIDIA GPU with the binaries and ICD loader that prepare.sh put in
# target/compute-gpu/. The loader finds the driver's OpenCL library (libnvidia-opencl.so.1, shipped
# with the driver) through an ICD file in a folder named by OCL_ICD_VENDORS; the carried loader
# is named by OPENCL_DYLIB_PATH (read by the opencl3 crate) and LD_LIBRARY_PATH. A few minutes in
# all: matmul up to N = 2048 (actor, direct, and CPU actors on the machine's cores), Mandelbrot at
# 4096 x 3072. The JSON records and the console output go to OUT_DIR (default: $OUT or ./out).
#
#   bash crates/motet-compute/gpu/run.sh [OUT_DIR]
#
# MAX_N, WIDTH, HEIGHT and MAX_ITER override the sizes, ICD_LIB the driver library named in the
# ICD file (a trial run on a machine with PoCL: ICD_LIB=libpocl.so.2 and small sizes).
#
# target/ is ignored by git: a tool that copies the working tree to the GPU machine must be told
# to carry target/compute-gpu along.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-${OUT:-out}}
mkdir -p "$out"
dir=$(pwd)/target/compute-gpu
[ -x "$dir/matmul" ] || { echo "run crates/motet-compute/gpu/prepare.sh first"; exit 1; }
icd=$(mktemp -d)
echo "${ICD_LIB:-libnvidia-opencl.so.1}" > "$icd/vendor.icd"
export OCL_ICD_VENDORS="$icd"
export OPENCL_DYLIB_PATH="$dir/lib/libOpenCL.so.1"
export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>/dev/null || true
    nproc
} | tee "$out/machine.txt"
start=$SECONDS
timeout 300 "$dir/matmul" --max-n "${MAX_N:-2048}" --reps 10 \
    --variants actor,direct,cpu-actors,direct-callback --json "$out/matmul-gpu.json" \
    2>&1 | tee "$out/matmul-gpu.txt" || echo "matmul exited with $?" | tee -a "$out/machine.txt"
timeout 200 "$dir/mandelbrot" --width "${WIDTH:-4096}" --height "${HEIGHT:-3072}" \
    --max-iter "${MAX_ITER:-1024}" --reps 5 \
    --json "$out/mandelbrot-gpu.json" 2>&1 | tee "$out/mandelbrot-gpu.txt" ||
    echo "mandelbrot exited with $?" | tee -a "$out/machine.txt"
echo "GPU benchmarks: $((SECONDS - start)) s" | tee -a "$out/machine.txt"
rm -rf "$icd"

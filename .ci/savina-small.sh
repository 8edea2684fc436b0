#!/usr/bin/env bash
# A validating Savina run at small sizes: every benchmark, actor and floor, 1 and 2 workers. Fails
# if a result does not validate. It checks results; it is not a timed comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
cargo run --release -p motet-savina -- run --all --size small --model actor,floor,floor-loop,actor-tuned \
    --threads 1,2 --iterations 3 --warmup 1 --json target/ci-savina.json
echo "Savina small run: $((SECONDS - start)) s"

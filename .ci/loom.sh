#!/usr/bin/env bash
# The loom models of every crate with lock-free code (`--cfg loom`, release, at most two
# preemptions per execution), in a target directory of their own. Every test whose name holds
# "loom" runs: motet-reactor-core's include the physical-action inbox and the interrupt-safe ring.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 CARGO_TARGET_DIR=target/loom \
    cargo test -p motet-runtime -p motet-actor -p motet-boc -p motet-process \
    -p motet-reactor-core -p motet-reactor --lib --release loom
echo "loom models: $((SECONDS - start)) s"

#!/usr/bin/env bash
# Regenerates the example report: every benchmark, every model (the peers included), 1 and 2
# workers, Savina's default sizes. Extra arguments go to `motet-savina run` (e.g. --iterations 3).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=crates/motet-savina/report
mkdir -p "$out"
cargo run --release -p motet-savina --features peers -- run --all --threads 1,2 \
    --json "$out/report.json" --markdown "$out/report.md" --plot "$out/report.svg" "$@"

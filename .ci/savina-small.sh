#!/usr/bin/env bash
# A validating Savina run at small sizes: every benchmark, actor and floor, 1 and 2 workers. Fails
# if a result does not validate. It checks results; it is not a timed comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
cargo run --release -p motet-savina -- run --all --size small --model actor,floor,floor-loop,actor-tuned \
    --threads 1,2 --iterations 3 --warmup 1 --json target/ci-savina.json
echo "Savina small run: $((SECONDS - start)) s"
# The peers comparison's merge and pairing logic (peers/compare.py) on synthetic records: no kit is
# built or run here (CI cannot reach the kits' sources).
if ! command -v python3 >/dev/null; then apt-get update -qq && apt-get install -y -qq python3; fi
python3 -m unittest discover -s peers -p 'test_*.py'
echo "Savina small run and peers' script tests: $((SECONDS - start)) s"

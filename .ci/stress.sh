#!/usr/bin/env bash
# The stress and scale tests (ignored in debug builds), in release mode.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
cargo test --release -p motet-actor --test stress --test scale --test tools_stress -- --include-ignored --nocapture
cargo test --release -p motet-process --test stress --test scale -- --include-ignored --nocapture
cargo test --release -p motet-boc --test stress -- --include-ignored --nocapture
cargo run -q --release -p motet --example bank
cargo run -q --release -p motet --example actor_tour
echo "stress and scale tests: $((SECONDS - start)) s"

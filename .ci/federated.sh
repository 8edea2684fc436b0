#!/usr/bin/env bash
# CI: motet-federated (federated reactors over Zenoh) in a step of its own, because it builds
# Zenoh: lints, the crate's tests (the in-memory ones and the multi-process ones on 127.0.0.1),
# the facade with its `remote` feature, and the example's check against the one-process run.
# With --stress: 20 federated runs of the example in release mode instead.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
SECONDS=0

if [[ "${1:-}" == "--stress" ]]; then
    cargo run --release -q -p motet-federated --example federated_chain -- --runs 20 --quiet
    echo "motet-federated stress: ${SECONDS} s"
    exit 0
fi

cargo clippy -p motet-federated --all-targets -- -D warnings
cargo clippy -p motet --features remote --all-targets -- -D warnings
cargo test -p motet-federated
cargo run -q -p motet-federated --example federated_chain -- --quiet
echo "motet-federated: ${SECONDS} s"

#!/usr/bin/env bash
# motet-remote: lints and builds the crate (zenoh with the TCP and TLS transports) and runs its tests, the
# multi-process ones included (child node processes on 127.0.0.1, killed by PID when a test ends),
# with the envelope decoder's proptest at a bounded number of cases. Then three examples, each of
# which starts its own second process (remote_savina at small sizes: it exits non-zero if a check
# fails). MOTET_REMOTE_MESSAGES sets the ordered-delivery count
# (debug default 20,000; `MOTET_REMOTE_MESSAGES=1000000 cargo test --release -p motet-remote` runs
# the full million).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
cargo clippy -p motet-remote --all-targets -- -D warnings
cargo clippy -p motet-remote --all-targets --features hop-trace -- -D warnings
cargo build -p motet-remote --all-targets
cargo test -p motet-remote -- --test-threads=1
timeout 120 cargo run -q -p motet-remote --example remote_pingpong -- 2000
timeout 120 cargo run -q -p motet-remote --example remote_supervisor
timeout 120 cargo run -q -p motet-remote --example remote_savina -- -n 200 -w 12 --iterations 2
echo "motet-remote build and tests: $((SECONDS - start)) s"

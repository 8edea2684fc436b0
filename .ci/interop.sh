#!/usr/bin/env bash
# The facade with features tokio and tracing, which `cargo test --workspace` leaves off: processes
# awaiting tokio (`in_tokio`), the tokio service example, and the tracing example.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
cargo test -p motet --features tokio,tracing
cargo run -q -p motet --features tokio --example tokio_service
cargo run -q -p motet --features tracing --example tracing 2>&1 | tail -n 20
echo "interop and tracing: $((SECONDS - start)) s"

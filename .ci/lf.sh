#!/usr/bin/env bash
# motet-lf: the crates' tests (parser, generator, runtime names, small .lf programs end to end),
# then an example from a .lf file to a running program through the command line. With
# LF_CHECKOUT set to a lingua-franca checkout, also LF's own Rust test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

cargo test -p motet-lf -p motet-lf-runtime
cargo build -p motet-lf
# The end-to-end tests build into the same folder: motet is compiled once for both.
out=target/tmp/motet-lf
./target/debug/motet-lf --out "$out" run crates/motet-lf/examples/Hello.lf --fast -- --count 3 | tee /tmp/motet-lf-hello.txt
grep -q "tick 3" /tmp/motet-lf-hello.txt
./target/debug/motet-lf --out "$out" test crates/motet-lf/tests/lf
if [ -n "${LF_CHECKOUT:-}" ]; then
    ./target/debug/motet-lf --out "$out" test "$LF_CHECKOUT/test/Rust/src"
fi
echo "motet-lf: $((SECONDS - start)) s"

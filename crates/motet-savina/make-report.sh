#!/usr/bin/env bash
# Regenerates the committed report: every benchmark but mixedload (one iteration of it takes about
# 50 s at its default size), every model (the peer crates included), 1 and 2 workers, Savina's
# default sizes, `run`'s default statistics (at least 10 timed iterations and 1 s per cell) in 3
# rounds (each cell in three processes, a benchmark's cells taking turns; docs/savina/running.md),
# the cells under a real-time policy where `chrt` is allowed. Writes report/report.{json,md,svg}.
#
#   crates/motet-savina/make-report.sh [--with-peers] [RUN ARGS...]
#
# --with-peers then runs peers/compare.sh over every benchmark the peer kits port (Verona's BoC
# runtime, CAF, Akka, LF C++; 1 and 2 workers, 10 iterations), each kit's cells followed at once by
# motet's at that kit's parameters, real-time priority where allowed, into report/peers/
# (peers.md, peers.json and each part). It needs the kits' sources: see peers/README.md.
# Other arguments go to `motet-savina run` (e.g. --iterations 3, or --rounds 1 for one process per
# cell).
set -euo pipefail
cd "$(dirname "$0")/../.."
with_peers=0
if [ "${1:-}" = --with-peers ]; then with_peers=1; shift; fi
out=crates/motet-savina/report
mkdir -p "$out"
cargo build --release -p motet-savina --features peers
bin=target/release/motet-savina
# the rows of `list` whose first column is Savina's number or "-" (the CAF paper's programs)
benches=$("$bin" list | awk '($1 ~ /^[0-9]+$/ || $1 == "-") && $2 != "mixedload" { print $2 }')
rt=()
if command -v chrt >/dev/null && chrt -f 10 true 2>/dev/null; then rt=(chrt -f 10); fi
start=$(date +%s)
# shellcheck disable=SC2086 # one word per benchmark
# 3 rounds unless the arguments name their own
rounds=(--rounds 3)
for arg in "$@"; do case "$arg" in --rounds|--rounds=*) rounds=() ;; esac; done
"${rt[@]}" "$bin" run $benches --threads 1,2 "${rounds[@]}" \
    --json "$out/report.json" --markdown "$out/report.md" --plot "$out/report.svg" "$@"
echo "make-report.sh: the report took $(( $(date +%s) - start )) s" >&2
if [ "$with_peers" = 1 ]; then
    start=$(date +%s)
    MOTET_SAVINA="$bin" peers/compare.sh --bench "$(echo $benches | tr ' ' ,)" --threads 1,2 \
        --iterations 10 --timeout 300 --rt --kits verona,caf,akka,lf --out "$out/peers"
    echo "make-report.sh: the peers' comparison took $(( $(date +%s) - start )) s" >&2
fi

#!/usr/bin/env bash
# ThreadSanitizer and AddressSanitizer (with LeakSanitizer) over a subset of the stress and scenario
# tests of motet-runtime, motet-actor, motet-boc and motet-process: the tests that run many threads
# through the lock-free code (work stealing, parking, mailboxes, the BoC protocol, the channels'
# hand-off and fast park) without the heavy (ignored) sizes, which take too long instrumented.
#
# Sanitizers need a nightly compiler (`-Zsanitizer`). Without `rust-src` the standard library cannot
# be rebuilt instrumented, so the ABI check is waived (`-Cunsafe-allow-abi-mismatch=sanitizer`) and
# std's own non-generic code runs uninstrumented: a race inside std, or one that only std's
# synchronisation orders, may be missed or misreported. ThreadSanitizer does not model `fence`s;
# .ci/tsan.supp lists, with reasons, the reports that come from that and nothing else.
#
# If no nightly toolchain can be had (rustup missing or offline), the step says so and is skipped.
# Each sanitizer builds in a target directory of its own (target/tsan, target/asan), with full
# debug info whatever the caller's profile says: the suppressions name functions by their paths
# (`motet_runtime::runtime::Shared*Counted*release`), which line tables alone do not give inlined
# frames, so that a report would print `release` and match nothing. Backtraces
# of the panics that tests provoke are off: std's (uninstrumented) backtrace printing under its own
# lock is reported as racing by ThreadSanitizer.
#
#   bash .ci/sanitizers.sh          # both
#   bash .ci/sanitizers.sh thread   # one of: thread, address
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

if ! command -v rustup >/dev/null; then
    echo "sanitizers: skipped: rustup is not installed, so no nightly toolchain can be had"
    exit 0
fi
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    if ! rustup toolchain install nightly --profile minimal; then
        echo "sanitizers: skipped: 'rustup toolchain install nightly --profile minimal' failed (see above)"
        exit 0
    fi
fi
echo "sanitizers: $(rustup run nightly rustc --version)"

host=$(rustup run nightly rustc -vV | sed -n 's/^host: //p')

# The subsets: each entry is a crate and its test targets.
#
# ThreadSanitizer runs the tests below. Left out, and run under AddressSanitizer only:
# motet-runtime's `timers` (its real-pool cases assume that registering six timers takes less than
# their 10 ms spacing, which instrumented code does not meet), and motet-runtime's `quiescence` and
# motet-actor's `ask` and `stress`, whose test code reads values handed over through a std
# `Mutex`/`Condvar` (an ask's reply slot) or a scoped thread's join: std runs uninstrumented here,
# so those hand-overs are invisible to ThreadSanitizer and every later read is reported, in test
# code that no suppression can single out.
TSAN_TESTS=(
    "motet-runtime --test stealing --test workers --test shutdown --test slot"
    "motet-actor --test bounded"
    "motet-boc --test stress --test basics"
    "motet-process --test stress --test channels --test fast_park --test wait_queue --test streams"
)
# AddressSanitizer skips motet-actor's test of flat memory under overload: it measures the process's
# resident size, which AddressSanitizer's quarantine of freed memory and its shadow memory inflate.
ASAN_TESTS=(
    "motet-runtime --test stealing --test workers --test shutdown --test quiescence --test slot"
    "motet-actor --test stress --test ask --test bounded -- --skip overload_keeps_the_queue_bounded"
    "motet-boc --test stress --test basics"
    "motet-process --test stress --test channels --test fast_park --test wait_queue --test streams"
)
# AddressSanitizer also runs the reactors' tests: the type-erased cells of motet-reactor-core (ports,
# actions and reactor states behind untyped pointers) are single-threaded code for which
# ThreadSanitizer has nothing to say.
ASAN_ONLY=(
    "motet-reactor-core --lib --tests"
    "motet-reactor --test conformance"
)

failed=()

run_sanitizer() {
    local san=$1 dir=$2
    shift 2
    local t0=$SECONDS
    echo "=== $san sanitizer"
    for entry in "$@"; do
        # An entry is a crate and its test flags, then, after " -- ", arguments for the harness.
        local cargo_part=${entry%% -- *} harness_part=""
        [[ $entry == *" -- "* ]] && harness_part=${entry#* -- }
        # shellcheck disable=SC2086 # word splitting of the flags is intended
        set -- $cargo_part
        local crate=$1
        shift
        echo "--- $san: $entry"
        # Every test target runs even after a failure, so that one run shows every report.
        # shellcheck disable=SC2086
        if ! RUSTFLAGS="-Zsanitizer=$san -Cunsafe-allow-abi-mismatch=sanitizer -Cforce-frame-pointers=yes" \
            CARGO_TARGET_DIR="target/$dir" \
            CARGO_PROFILE_DEV_OPT_LEVEL=1 \
            CARGO_PROFILE_DEV_DEBUG=full CARGO_PROFILE_TEST_DEBUG=full \
            RUST_BACKTRACE=0 \
            cargo +nightly test --target "$host" -p "$crate" "$@" --no-fail-fast -- --test-threads=2 $harness_part; then
            failed+=("$san: $entry")
        fi
    done
    echo "$san sanitizer: $((SECONDS - t0)) s"
}

which=${1:-all}
if [[ $which == all || $which == thread ]]; then
    TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 suppressions=$PWD/.ci/tsan.supp" \
        run_sanitizer thread tsan "${TSAN_TESTS[@]}"
fi
if [[ $which == all || $which == address ]]; then
    ASAN_OPTIONS="detect_leaks=1 detect_stack_use_after_return=1" \
        LSAN_OPTIONS="suppressions=$PWD/.ci/lsan.supp" \
        run_sanitizer address asan "${ASAN_TESTS[@]}" "${ASAN_ONLY[@]}"
fi
echo "sanitizers: $((SECONDS - start)) s"
if ((${#failed[@]})); then
    printf 'sanitizers: reports or failures in:\n'
    printf '  %s\n' "${failed[@]}"
    exit 1
fi

#!/usr/bin/env bash
# Builds every program of motet-embedded for thumbv7em-none-eabihf, runs each on QEMU's emulated
# Cortex-M4F board (mps2-an386) with deterministic virtual time, and reports footprint, result and
# figures. Exits non-zero if a program fails to build, run or validate.
#
#   bash crates/motet-embedded/run-qemu.sh [--json FILE] [--host]
#
# --host also runs pingpong, threadring and count on this machine with motet-reactor (one worker),
# built from the same program text (crate motet-embedded-programs, example `host`), and adds their
# records (platform "host", nanoseconds per reaction) to the table and the JSON: the host's column
# beside the board's, from one run. It builds with the host's own Rust toolchain.
#
# Missing Debian packages are installed non-interactively by .ci/apt-install.sh, as
# crates/motet-reactor-core/ci/build-thumbv7em.sh does. The build uses Debian's Rust and compiles
# `core` and `alloc` from source (`-Z build-std`, see .cargo/config.toml); the crate is a workspace
# of its own with its own target directory, so the host workspace is untouched.
set -euo pipefail
cd "$(dirname "$0")"
start=$SECONDS

# Instructions per virtual nanosecond: one instruction every 2^SHIFT ns (32 ns at 5: about one
# instruction per cycle of the board's 25 MHz clock).
SHIFT=5
# Seconds of host time a run may take before it counts as hung.
RUN_TIMEOUT=300
PROGRAMS=(bare empty timer timer_builder physical pingpong threadring count modes)
TARGET=thumbv7em-none-eabihf

json=""
host=0
while (($#)); do
    case "$1" in
        --json) json="$(realpath -m "$2")"; shift 2 ;;
        --host) host=1; shift ;;
        *) echo "usage: $0 [--json FILE] [--host]" >&2; exit 2 ;;
    esac
done
host_path="$PATH"

PACKAGES=(rustc-web cargo-web rust-web-src lld qemu-system-arm binutils-arm-none-eabi)
bash ../../.ci/apt-install.sh "${PACKAGES[@]}"

# Debian's cargo and rustc, not rustup's proxies; `-Z build-std` needs RUSTC_BOOTSTRAP on stable.
export PATH=/usr/bin:/bin
export RUSTC=/usr/bin/rustc
export RUSTC_BOOTSTRAP=1
unset RUSTFLAGS CARGO_BUILD_TARGET CARGO_TARGET_DIR
# The board's profiles are its own (CI sets debug-info levels for the host workspace).
unset CARGO_PROFILE_DEV_DEBUG CARGO_PROFILE_TEST_DEBUG CARGO_PROFILE_RELEASE_DEBUG CARGO_PROFILE_BENCH_DEBUG
rustc --version
qemu-system-arm --version | head -1

bins=()
for p in "${PROGRAMS[@]}"; do bins+=(--bin "$p"); done
cargo build --release --locked "${bins[@]}"
dir=target/$TARGET/release

# "text data bss" of an ELF (Berkeley format: text includes the vector table and read-only data,
# bss the uninitialised sections).
sizes() { arm-none-eabi-size "$1" | awk 'NR == 2 { print $1, $2, $3 }'; }
# The value of KEY in the program's `motet: ... KEY=VALUE ...` lines (empty if absent).
field() { { grep -o "[ :]$2=[^ ]*" <<<"$1" || true; } | head -1 | cut -d= -f2; }
# `{"p50": .., "p99": .., "max": ..}` from the program's `motet: NAME p50=.. p99=.. max=..` line.
dist() {
    local line
    line=$(grep "^motet: $2 " <<<"$1" || true)
    if [ -z "$line" ]; then echo null; return; fi
    printf '{"p50": %s, "p99": %s, "max": %s}' \
        "$(field "$line" p50)" "$(field "$line" p99)" "$(field "$line" max)"
}
num() { if [ -n "$1" ]; then echo "$1"; else echo null; fi; }

read -r bare_text bare_data bare_bss < <(sizes "$dir/bare")
failed=0
records=()
printf '\n%-13s %7s %6s %8s %8s %8s %9s  %-12s %s\n' \
    program text data bss heap runtime_t stack result status
for p in "${PROGRAMS[@]}"; do
    read -r text data bss < <(sizes "$dir/$p")
    set +e
    out=$(timeout "$RUN_TIMEOUT" qemu-system-arm -machine mps2-an386 -nographic -monitor none \
        -serial none -semihosting-config enable=on,target=native \
        -icount "shift=$SHIFT,sleep=off" -kernel "$dir/$p" 2>&1)
    rc=$?
    set -e
    result=$(field "$out" result)
    heap=$(field "$out" heap_size)
    validated=false
    if [ "$rc" = 0 ] && [ "$(field "$out" validated)" = true ]; then validated=true; fi
    status=OK
    if [ "$validated" != true ]; then
        status=FAILED
        failed=1
        [ "$rc" = 124 ] && status="FAILED (timed out after ${RUN_TIMEOUT} s)"
        echo "--- $p (exit status $rc):"
        echo "$out"
    fi
    printf '%-13s %7s %6s %8s %8s %8s %9s  %-12s %s\n' "$p" "$text" "$data" "$bss" \
        "${heap:-0}" "$((text - bare_text))" "$(field "$out" stack_peak)" "${result:-?}" "$status"
    records+=("$(printf '{"program": "%s", "text": %s, "data": %s, "bss": %s, "runtime_text": %s, "runtime_data": %s, "runtime_bss": %s, "heap_size": %s, "heap_peak": %s, "stack_peak": %s, "result": "%s", "validated": %s, "timer_offset_cycles": %s, "irq_latency_cycles": %s, "per_reaction_cycles": %s, "icount_shift": %s}' \
        "$p" "$text" "$data" "$bss" "$((text - bare_text))" "$((data - bare_data))" \
        "$((bss - ${heap:-0} - bare_bss))" "$(num "$heap")" "$(num "$(field "$out" heap_peak)")" \
        "$(num "$(field "$out" stack_peak)")" "${result:-}" "$validated" \
        "$(dist "$out" timer_offset_cycles)" "$(dist "$out" irq_latency_cycles)" \
        "$(num "$(field "$out" per_reaction_cycles)")" "$SHIFT")")
    # Figures each program prints besides its result.
    grep '^motet: ' <<<"$out" | grep -v -e ' program=' -e ' heap_size=' | sed 's/^motet: /    /' || true
done

if ((host)); then
    echo
    echo "host (motet-reactor, 1 worker, the same programs at the board's sizes):"
    host_json=$(mktemp)
    if ! (cd ../.. && env -u RUSTC -u RUSTC_BOOTSTRAP PATH="$host_path" \
        cargo run --release --quiet -p motet-embedded-programs --example host -- --json "$host_json"); then
        failed=1
    fi
    # One record per line between the brackets, as the example writes them.
    while IFS= read -r line; do
        line="${line%,}"
        [[ "$line" == *'"program"'* ]] && records+=("${line#  }")
    done <"$host_json"
    rm -f "$host_json"
fi

if [ -n "$json" ]; then
    {
        echo "["
        for i in "${!records[@]}"; do
            sep=","; [ "$i" = $((${#records[@]} - 1)) ] && sep=""
            echo "  ${records[$i]}$sep"
        done
        echo "]"
    } >"$json"
    echo "wrote $json"
fi
echo "run-qemu.sh: $((SECONDS - start)) s"
if ((failed)); then
    echo "run-qemu.sh: some programs FAILED"
    exit 1
fi

#!/usr/bin/env bash
# Rebuild the CAF Savina ports (lf-lang/savina, C++ sources under src/main/cpp)
# against Debian's libcaf-dev 0.17.6 with g++ -O3, into .build/ next to this script.
#
# Usage:  build.sh [SAVINA_GIT_DIR]
#   SAVINA_GIT_DIR (or env SAVINA_GIT): git directory of github repository lf-lang/savina:
#                   a bare clone, a checkout's .git, or the checkout itself.
#   env SAVINA_COMMIT: commit to build (default: the pinned one below).
#   env JOBS:          parallel compile jobs (default 2; keep <= 2 on the shared 2-core machine).
# Output: .build/bin/caf_* (benchmarks), .build/bin/actor_mem (probe), .build/BUILD_INFO.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD="$HERE/.build"
LOCK="$HERE/../.bench.lock"
SAVINA_GIT=${1:-${SAVINA_GIT:-}}
SAVINA_COMMIT=${SAVINA_COMMIT:-d0e658464bd8f59654864901795281036a74f300}
JOBS=${JOBS:-2}
APT_PKGS=(libcaf-dev g++ cmake make patch time python3 git)
CAF_WANT=0.17.6

# The benchmarks this kit runs: the 24 CAF ports that lf-lang/savina builds, with one
# variant each of logmap and banking (the ones the pony-savina/LF runners keep).
TARGETS=(caf_01_pingpong caf_02_count caf_03_fjthrput caf_04_fjcreate caf_05_threadring
  caf_06_chameneos caf_07_big caf_08_concdict caf_09_concsll caf_10_bndbuffer
  caf_11_philosopher caf_14_logmap_request_await_infinite caf_15_banking_request_then_infinite
  caf_16_radixsort caf_18_sieve caf_20_facloc caf_21_trapezoid caf_23_recmatmul
  caf_24_quicksort caf_25_apsp caf_28_nqueenk caf_29_fib caf_30_bitonicsort)

die() { echo "build.sh: $*" >&2; exit 1; }

[[ -n "$SAVINA_GIT" ]] || die "give the lf-lang/savina git directory as \$1 or SAVINA_GIT"
[[ -d "$SAVINA_GIT" ]] || die "no such directory: $SAVINA_GIT"
[[ -d "$SAVINA_GIT/.git" ]] && SAVINA_GIT="$SAVINA_GIT/.git"   # a clone with a work tree
SAVINA_GIT=$(cd "$SAVINA_GIT" && pwd)

# --- shared lock for the whole build: timed runs (flock -x) wait until we are done ---
touch "$LOCK"
exec 9<"$LOCK"
echo "build.sh: waiting for shared lock $LOCK" >&2
flock -s 9

# --- system packages (idempotent) ---
SUDO=()
[[ "$(id -u)" == 0 ]] || SUDO=(sudo)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "build.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
    "${SUDO[@]}" apt-get update
    "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
  fi
fi
caf_version=$(dpkg-query -W -f='${Version}' libcaf-dev)
[[ "$caf_version" == "$CAF_WANT"* ]] ||
  echo "build.sh: WARNING: libcaf-dev is $caf_version, the kit was made with $CAF_WANT" >&2

# --- sources: pinned commit, then the harness patches ---
git --git-dir="$SAVINA_GIT" cat-file -e "$SAVINA_COMMIT^{commit}" 2>/dev/null ||
  die "commit $SAVINA_COMMIT is not in $SAVINA_GIT (set SAVINA_COMMIT to the closest one)"
rm -rf "${BUILD:?}/src" "${BUILD:?}/obj" "${BUILD:?}/bin"
mkdir -p "$BUILD/src" "$BUILD/obj" "$BUILD/bin"
git --git-dir="$SAVINA_GIT" archive "$SAVINA_COMMIT" CMakeLists.txt cmake src/main/cpp |
  tar -x -C "$BUILD/src"
for p in "$HERE"/patches/*.patch; do
  [[ -e "$p" ]] || continue
  echo "build.sh: applying $(basename "$p")" >&2
  patch -d "$BUILD/src" -p1 --forward --batch <"$p" >/dev/null
done

# --- compile: Release = -std=c++17 -O3 -DNDEBUG (the CMakeLists' own flags) ---
unset CXXFLAGS CFLAGS LDFLAGS
cmake -S "$BUILD/src" -B "$BUILD/obj" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ \
  -DCAF_NO_SUMMARY=ON >"$BUILD/cmake.log" 2>&1 || { cat "$BUILD/cmake.log" >&2; die "cmake failed"; }
make -C "$BUILD/obj" -j"$JOBS" "${TARGETS[@]}" >"$BUILD/make.log" 2>&1 ||
  { tail -50 "$BUILD/make.log" >&2; die "make failed (see $BUILD/make.log)"; }
for t in "${TARGETS[@]}"; do cp -f "$BUILD/obj/bin/$t" "$BUILD/bin/$t"; done

# actor-memory probe (bytes per idle actor, spawn cost)
g++ -std=c++17 -O3 -DNDEBUG -o "$BUILD/bin/actor_mem" "$HERE/tools/actor_mem.cpp" -lcaf_core -pthread

{
  echo "savina_commit=$SAVINA_COMMIT"
  echo "libcaf-dev=$caf_version"
  echo "cxx=$(g++ --version | head -1)"
  echo "cxxflags=-std=c++17 -O3 -DNDEBUG"
  echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$BUILD/BUILD_INFO"
echo "build.sh: built ${#TARGETS[@]} benchmarks + actor_mem into $BUILD/bin" >&2
